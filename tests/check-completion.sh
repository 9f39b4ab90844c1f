#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The bash completion (contrib/completion/storpulsectl.bash, as configured) run as bash runs it:
# COMP_WORDS/COMP_CWORD set, _storpulsectl called, COMPREPLY read. Expected verbs and options come
# from `storpulsectl help [VERB]` of the binary under test, profiles from a config written here,
# volumes from the lvm-on-md fixture tree (its README: md0 over vda and vdb, LV vgmd/data = dm-0
# on md0). The zsh completion is checked for syntax with zsh -n.
#   check-completion.sh BASH_COMPLETION ZSH_COMPLETION STORPULSECTL FIXTURES
set -uo pipefail
bashcomp=$1 zshcomp=$2 ctl=$3 fixtures=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

ok() { # result description
        n=$((n + 1))
        if [[ $1 == 0 ]]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}

# `storpulsectl volumes` of the completion sees the fixture tree
cat >"$tmp/storpulsectl" <<WRAP
#!/bin/sh
[ "\$1" = volumes ] && exec "$ctl" volumes --root "$fixtures/lvm-on-md"
exec "$ctl" "\$@"
WRAP
chmod +x "$tmp/storpulsectl"
printf '[Profile nightly]\nMembers=yes\n' >"$tmp/storpulse.conf"
mkdir -p "$tmp/storpulse.conf.d"
printf ' [Profile  weekly ]\n' >"$tmp/storpulse.conf.d/10-weekly.conf"

complete_words() { # words... (the last one is completed): COMPREPLY, one per line
        STORPULSE_CONFIG="$tmp/storpulse.conf" bash -c '
                source "$1" || exit 99
                shift
                COMP_WORDS=("$@")
                COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
                _storpulsectl || exit 98
                printf "%s\n" "${COMPREPLY[@]}"' _ "$bashcomp" "$tmp/storpulsectl" "$@" | sort -u
}

has_all() { # expected-list got-list: every expected line is in got
        [[ -n $1 ]] && [[ -z $(comm -23 <(sort -u <<<"$1") <(sort -u <<<"$2")) ]]
}

echo "1..10"
verbs=$("$ctl" help | sed -n '/^Verbs:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p')
got=$(complete_words "")
has_all "$verbs" "$got"
ok $? "all verbs of 'storpulsectl help' ($(echo $verbs)) complete after the command: got $(echo $got)"

got=$(complete_words "pro")
[[ $got == probe ]]
ok $? "'pro' completes to probe: got $(echo $got)"

for verb in probe watch; do
        opts=$("$ctl" help $verb | grep -o -- '--[a-z][a-z0-9-]*' | sort -u)
        got=$(complete_words $verb --)
        has_all "$opts" "$got"
        ok $? "all options of 'help $verb' complete after '$verb --': missing $(comm -23 <(echo "$opts") <(echo "$got") | tr '\n' ' ')"
done

got=$(complete_words probe --profile "")
has_all "$(printf '%s\n' quick deep light nightly weekly)" "$got"
ok $? "profiles (built-in and from the config and its drop-in) after --profile: got $(echo $got)"

got=$(complete_words report "")
has_all "$(printf '%s\n' md0 dm-0 vgmd/data vda vdb)" "$got"
ok $? "volumes of 'storpulsectl volumes' after report: got $(echo $got)"

got=$(complete_words history "")
has_all "$(printf '%s\n' md0 dm-0 vgmd/data vda vdb)" "$got"
ok $? "volumes of 'storpulsectl volumes' after history: got $(echo $got)"

opts=$("$ctl" help probe | grep -o -- '--[a-z][a-z0-9-]*' | sort -u)
got=$(complete_words probe --profile quick --)
has_all "$(printf '%s\n' --profile --no-wait --socket)" "$got"
ok $? "'probe --profile quick --' completes the daemon mode's options: got $(echo $got)"

got=$(complete_words watch "")
[[ $got == md0 ]]
ok $? "only md arrays after watch: got $(echo $got)"

if command -v zsh >/dev/null; then
        zsh -n "$zshcomp"
        ok $? "zsh completion parses (zsh -n)"
else
        echo "not ok 10 - zsh missing (build-aux/install-deps.sh --test)"
        failed=1
fi
exit $failed

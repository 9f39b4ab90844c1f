#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The shipped sample config loads, and with every commented "#Key=value" line uncommented it
# still loads (so every documented key exists and every shown default is valid). TAP.
set -u
daemon=$1 sample=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$daemon" --check-config --config "$sample" >/dev/null
rc=$?
echo "$([ $rc -eq 0 ] && echo ok || echo not ok) 1 - sample loads as shipped"
sed -E 's/^#(\[[A-Za-z]+( [a-z]+)?\])$/\1/; s/^#([A-Za-z]+=.*)$/\1/' "$sample" >"$tmp/all.conf"
"$daemon" --check-config --config "$tmp/all.conf" >"$tmp/out" 2>&1
rc2=$?
sed 's/^/# /' "$tmp/out"
echo "$([ $rc2 -eq 0 ] && echo ok || echo not ok) 2 - sample loads with every key uncommented"
n=$(grep -cE '^[A-Za-z]+=' "$tmp/all.conf")
echo "$([ "$n" -ge 30 ] && echo ok || echo not ok) 3 - $n keys documented"
# the line limit the sample states holds: a line of exactly that many bytes loads, one more does not
lim=$(grep -oE 'A line holds at most [0-9]+ bytes' "$sample" | grep -oE '[0-9]+')
line_conf() { # LENGTH: a config whose Name= line is LENGTH bytes long
        printf '[Volumes]\nName=%s\n' "$(printf '%*s' $(($1 - 5)) '' | tr ' ' x)" >"$tmp/line.conf"
}
line_conf "${lim:-0}"
"$daemon" --check-config --config "$tmp/line.conf" >/dev/null 2>&1
rc3=$?
line_conf $((${lim:-0} + 1))
"$daemon" --check-config --config "$tmp/line.conf" >/dev/null 2>&1
rc4=$?
echo "$([ -n "$lim" ] && [ $rc3 -eq 0 ] && [ $rc4 -ne 0 ] && echo ok || echo not ok) 4 - lines of the stated ${lim:-?} bytes load, longer ones do not"
# --check-config refuses what is no config file, in bounded time (a FIFO or /dev/zero once hung it)
mkfifo "$tmp/fifo"
bad=0
for f in "$tmp" /dev/zero "$tmp/fifo"; do
        out=$(timeout 20 "$daemon" --check-config --config "$f" 2>&1)
        rc5=$?
        if [ $rc5 -eq 0 ] || [ $rc5 -eq 124 ] || [[ "$out" != *"$f:0: "* ]]; then
                echo "# --check-config --config $f: exit $rc5: $out"
                bad=1
        fi
done
echo "$([ $bad -eq 0 ] && echo ok || echo not ok) 5 - a directory, /dev/zero and a FIFO are refused as FILE:0"
echo "1..5"
[ $bad -eq 0 ] && [ $rc -eq 0 ] && [ $rc2 -eq 0 ] && [ "$n" -ge 30 ] && [ -n "$lim" ] && [ $rc3 -eq 0 ] && [ $rc4 -ne 0 ]

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
# the minimum of Interval= the sample states holds: that value loads, a second less does not
imin=$(grep -oE 'Time from the start of one run to the next: at least [0-9]+s' "$sample" | grep -oE '[0-9]+s$' | tr -d s)
printf '[Schedule]\nInterval=%ss\n' "${imin:-0}" >"$tmp/iv.conf"
"$daemon" --check-config --config "$tmp/iv.conf" >/dev/null 2>&1
rc6=$?
printf '[Schedule]\nInterval=%ss\n' $((${imin:-0} - 1)) >"$tmp/iv.conf"
"$daemon" --check-config --config "$tmp/iv.conf" >"$tmp/iv.out" 2>&1
rc7=$?
iv_ok=$([ -n "$imin" ] && [ $rc6 -eq 0 ] && [ $rc7 -ne 0 ] && grep -q "iv.conf:2: " "$tmp/iv.out" && echo 0 || echo 1)
echo "$([ "$iv_ok" = 0 ] && echo ok || echo not ok) 6 - Interval= of the stated minimum ${imin:-?}s loads, a second less is refused with FILE:LINE"
# --dump-config: the effective config (a drop-in included) as a file --check-config reads, and
# dumping that dump gives the same text (every value survives the round trip)
mkdir -p "$tmp/all.conf.d"
printf '[Schedule]\nInterval=2h\n[Profile nightly]\nRandomDuration=1500ms\n' >"$tmp/all.conf.d/10-x.conf"
"$daemon" --dump-config --config "$tmp/all.conf" >"$tmp/dump1.conf" 2>&1
rc8=$?
"$daemon" --check-config --config "$tmp/dump1.conf" >/dev/null 2>&1
rc9=$?
"$daemon" --dump-config --config "$tmp/dump1.conf" >"$tmp/dump2.conf" 2>&1
dump_same=$(cmp -s <(sed 1d "$tmp/dump1.conf") <(sed 1d "$tmp/dump2.conf") && echo 0 || echo 1)
dump_keys=$(grep -cE '^#?[A-Za-z0-9]+=' "$tmp/dump1.conf")
sample_keys=$(grep -oE '^[A-Za-z0-9]+=' "$tmp/all.conf" | sort -u | wc -l)
dump_ok=1
[ $rc8 -eq 0 ] && [ $rc9 -eq 0 ] && [ "$dump_same" = 0 ] && grep -qx 'Interval=2h' "$tmp/dump1.conf" &&
        grep -qx 'RandomDuration=1500ms' "$tmp/dump1.conf" && grep -qx '\[Profile nightly\]' "$tmp/dump1.conf" &&
        [ "$dump_keys" -ge "$sample_keys" ] && dump_ok=0
[ $dump_ok -eq 0 ] || sed 's/^/# /' "$tmp/dump1.conf"
echo "$([ $dump_ok -eq 0 ] && echo ok || echo not ok) 7 - --dump-config: drop-in values, $dump_keys key lines (sample: $sample_keys keys), reads back, dumps the same"
echo "1..7"
[ "$iv_ok" = 0 ] && [ $dump_ok -eq 0 ] && [ $bad -eq 0 ] && [ $rc -eq 0 ] && [ $rc2 -eq 0 ] && [ "$n" -ge 30 ] && [ -n "$lim" ] && [ $rc3 -eq 0 ] && [ $rc4 -ne 0 ]

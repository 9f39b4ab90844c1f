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
echo "1..3"
[ $rc -eq 0 ] && [ $rc2 -eq 0 ] && [ "$n" -ge 30 ]

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Under CI=true (what .ci/run exports) a suite that cannot run fails instead of skipping: the
# integration tests' skip_all and the vm suite's wrapper, when qemu is missing. Outside CI both
# still skip, loudly.
. "$(dirname "$0")/probe-lib.sh"
here=$(cd "$(dirname "$0")" && pwd)

out=$(CI=true bash -c '. "$1/probe-lib.sh" x; skip_all "no loop devices"' _ "$here")
rc=$?
tap_ok $((rc == 0)) "integration skip_all under CI=true: fails (exit $rc)"
check "integration skip_all under CI=true: Bail out!" grep -q "^Bail out!" <<<"$out"
out=$(CI= bash -c '. "$1/probe-lib.sh" x; skip_all "no loop devices"' _ "$here")
rc=$?
tap_ok $((rc != 0)) "integration skip_all outside CI: exit 0 (got $rc)"
check "integration skip_all outside CI: TAP SKIP" grep -q "^1..0 # SKIP" <<<"$out"

# vm-test with a PATH that has no qemu: a skip outside CI, a failure under CI.
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
for t in bash id dirname cat; do ln -s "$(command -v "$t")" "$bin/$t"; done
out=$(PATH=$bin CI=true "$bin/bash" "$here/../vm/vm-test" --name ci-selftest -- md-raid1 2>/dev/null)
rc=$?
if [ "$(id -u)" -eq 0 ]; then
        tap_ok $((rc == 0)) "vm-test without qemu under CI=true: fails (exit $rc)"
        check "vm-test under CI=true: Bail out!" grep -q "^Bail out! CI=true" <<<"$out"
fi
out=$(PATH=$bin CI= "$bin/bash" "$here/../vm/vm-test" --name ci-selftest -- md-raid1 2>/dev/null)
rc=$?
tap_ok $((rc != 0)) "vm-test without qemu outside CI: exit 0 (got $rc)"
check "vm-test outside CI: TAP SKIP" grep -q "^1..0 # SKIP" <<<"$out"
finish

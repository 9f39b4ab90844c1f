#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The systemd units as built: `systemd-analyze security --offline` exposure of every shipped
# service, each <= 2.0 (the issue's bound): storpulsed.service (the HTTP socket comes from
# storpulsed-http.socket, so no AF_INET/AF_INET6 is left; there is no IPAddressDeny=, so remote
# Prometheus servers can scrape; the rest is as tight as a root daemon that needs CAP_SYS_ADMIN
# for device-mapper status gets), storpulse-probe@.service and storpulse-controller-cli@.service
# (the vendor CLIs: root with the controllers' nodes, no network); that the controller nodes are
# open to the CLI helper's unit and shut to the daemon's; `systemd-analyze verify` of every unit;
# and the journal catalog parsed by journalctl itself (--root: nothing on the host is touched).
#   units.sh BUILD_UNITS_DIR SOURCE_UNITS_DIR
set -u
built=$1 src=$2
n=0 failed=0
tap() {
        n=$((n + 1))
        if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}
command -v systemd-analyze >/dev/null || { echo "1..0 # SKIP no systemd-analyze"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$built"/storpulsed.service "$built"/storpulse-probe@.service \
        "$built"/storpulse-controller-cli@.service "$src"/storpulsed.socket \
        "$src"/storpulsed-http.socket "$src"/storpulse-probe@.timer \
        "$src"/storpulse-controller-cli.socket "$tmp"/

exposure() {
        (cd "$tmp" && systemd-analyze security --offline=true "$1" 2>&1) |
                sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p'
}
# every service the build ships (a new one is measured without being named here)
for f in "$built"/*.service; do
        u=$(basename "$f")
        e=$(exposure "$u")
        echo "# $u exposure $e"
        tap "$(python3 -c "import sys; sys.exit(0 if 0 < float('${e:-99}') <= 2.0 else 1)"; echo $?)" \
                "$u exposure ${e:-?} <= 2.0"
done

# The vendor CLIs' device nodes (by /proc/devices name): rw for the helper's unit, absent from
# the daemon's (whose children cannot reach them: the reason the helper has a unit of its own)
devices() { grep -h '^DeviceAllow=' "$tmp/$1" | sed 's/^DeviceAllow=//'; }
for node in "char-megaraid_sas_ioctl rwm" "char-sg rw" "char-aac rwm"; do
        tap "$(devices storpulse-controller-cli@.service | grep -qxF "$node"; echo $?)" \
                "storpulse-controller-cli@.service: DeviceAllow=$node"
done
tap "$(devices storpulsed.service | grep -q '^char-'; [ $? -ne 0 ]; echo $?)" \
        "storpulsed.service allows no character device but /dev/mapper/control"
tap "$(grep -q '^ExecStart=.* --controller-cli-socket /run/storpulse/controller-cli' \
        "$tmp/storpulsed.service" && grep -qx 'ListenStream=/run/storpulse/controller-cli' \
        "$tmp/storpulse-controller-cli.socket"; echo $?)" \
        "storpulsed.service asks the socket storpulse-controller-cli.socket listens on"

# verify: ignore only the complaint that the binaries are not installed yet
for u in storpulsed.service storpulsed.socket storpulsed-http.socket \
        storpulse-probe@quick.service storpulse-probe@quick.timer \
        storpulse-controller-cli.socket; do
        [ -e "$tmp/$u" ] || ln -s "$tmp/${u/@quick/@}" "$tmp/$u"
        (cd "$tmp" && systemd-analyze verify --man=no "$tmp/$u" 2>&1) |
                grep -v -e "is not executable" -e "^$" >"$tmp/verify.out"
        sed 's/^/# /' "$tmp/verify.out"
        tap "$([ ! -s "$tmp/verify.out" ]; echo $?)" "systemd-analyze verify $u"
done

mkdir -p "$tmp/root/usr/lib/systemd/catalog" "$tmp/root/var/lib/systemd/catalog"
cp "$src/storpulse.catalog" "$tmp/root/usr/lib/systemd/catalog/"
journalctl --root="$tmp/root" --update-catalog 2>"$tmp/cat.err"
tap $? "journalctl --update-catalog accepts storpulse.catalog"
sed 's/^/# /' "$tmp/cat.err"
journalctl --root="$tmp/root" --dump-catalog 2>/dev/null | grep -c "^-- " >"$tmp/count"
tap "$([ "$(cat "$tmp/count")" -ge 28 ]; echo $?)" "catalog holds $(cat "$tmp/count") entries"
echo "1..$n"
[ "$failed" -eq 0 ]

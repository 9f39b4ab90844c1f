# SPDX-License-Identifier: MIT
# Issue 24: the vendor RAID CLIs run where they can reach their devices. Under systemd as PID 1,
# with the units as built (paths pointed at the build tree): a fake storcli64 on the CLI path
# opens the "controller's" node read-write as the real CLIs do (/dev/sgN of a scsi_debug disk,
# the controller stand-in under STORPULSE_CONTROLLER_TEST=1) and prints a captured storcli
# output. Run in a copy of storpulsed.service's own sandbox it is denied the node (so the daemon
# could never run it as a child); run by storpulsed through storpulse-controller-cli.socket, its
# volume state reaches `storpulsectl volumes --daemon --json`. Then the socket is stopped: at its
# next poll the daemon logs that the helper cannot be reached, and stays up.
# shellcheck disable=SC2016
source ../lib.sh
require_verb volumes
[[ "$(cat /proc/1/comm)" == systemd ]] || fail "PID 1 is $(cat /proc/1/comm), not systemd"
builddir=$(cd "$(dirname "$STORPULSECTL")/.." && pwd)
srcunits=$(cd "$VMDIR/../../units" && pwd)
fixture=$(cd "$VMDIR/../fixtures/controller/storcli" && pwd)/vall-nvme-raid1-optimal.json
STORPULSED=$builddir/daemon/storpulsed
HELPER=$builddir/daemon/storpulse-controller-cli
[[ -x $STORPULSED && -x $HELPER ]] || fail "no storpulsed/storpulse-controller-cli in $builddir"

# ---- the "controller": a scsi_debug disk and its sg node -------------------------------------
run modprobe -a sg scsi_debug
udevadm settle --timeout=30
sd='' sg=''
for m in /sys/block/sd*/device/model; do
        [[ -e $m && "$(cat "$m")" == scsi_debug* ]] && sd=$(basename "$(dirname "$(dirname "$m")")")
done
for g in /sys/block/"$sd"/device/scsi_generic/sg*; do [[ -e $g ]] && sg=/dev/$(basename "$g"); done
[[ -n $sd && -c $sg ]] || fail "no scsi_debug disk with an sg node (sd '$sd', sg '$sg')"
log "controller stand-in: $sd, its node $sg ($(stat -c '%t:%T' "$sg"); /proc/devices: $(grep -w sg /proc/devices))"

# ---- the fake CLI: opens the node as storcli opens megaraid_sas_ioctl_node -------------------
mkdir -p /usr/local/sbin /usr/local/share/storpulse-vm
sed "s|\"/dev/sda\"|\"/dev/$sd\"|" "$fixture" >/usr/local/share/storpulse-vm/vall.json
grep -q "\"/dev/$sd\"" /usr/local/share/storpulse-vm/vall.json || fail "fixture without OS Drive Name"
{
        echo '#!/bin/sh'
        echo '# fake storcli64 (VM test): the controller node read-write, then a captured output'
        echo "exec 3<>$sg || exit 1"
        echo 'case "$*" in'
        echo '"/call/vall show all J") exec cat /usr/local/share/storpulse-vm/vall.json ;;'
        echo '*) echo "unexpected arguments: $*" >&2; exit 2 ;;'
        echo 'esac'
} >/usr/local/sbin/storcli64
chmod 755 /usr/local/sbin/storcli64
/usr/local/sbin/storcli64 /call/vall show all J >/dev/null || fail "the fake storcli64 fails even as plain root"

# ---- the units, as meson configured them, pointed at the build tree ----------------------
unitdir=/etc/systemd/system
mkdir -p "$unitdir/storpulsed.service.d" "$unitdir/storpulse-controller-cli@.service.d"
sed -e "s|ExecStart=[^ ]*/storpulsed |ExecStart=$STORPULSED |" "$builddir/units/storpulsed.service" \
        >"$unitdir/storpulsed.service" || fail "install storpulsed.service"
sed -e "s|ExecStart=[^ ]*/storpulse-controller-cli |ExecStart=$HELPER |" \
        "$builddir/units/storpulse-controller-cli@.service" \
        >"$unitdir/storpulse-controller-cli@.service" || fail "install the helper's unit"
cp "$srcunits/storpulsed.socket" "$srcunits/storpulsed-http.socket" \
        "$srcunits/storpulse-controller-cli.socket" "$unitdir/"
conf=$(sed -n 's|^ExecStart=.* --config \([^ ]*\).*|\1|p' "$unitdir/storpulsed.service")
[[ -n $conf ]] || fail "no --config in storpulsed.service"
mkdir -p "$(dirname "$conf")"
printf '[Daemon]\nControllerPollInterval=10s\n[Schedule]\nBuiltin=no\n[HTTP]\nEnable=no\n' >"$conf"
# PrivateTmp= would hide a build tree below /tmp: bind it back in, read-only
printf '[Service]\nEnvironment=STORPULSE_CONTROLLER_TEST=1\nBindReadOnlyPaths=%s\n' "$builddir" \
        >"$unitdir/storpulsed.service.d/test.conf"
printf '[Service]\nBindReadOnlyPaths=%s\n' "$builddir" \
        >"$unitdir/storpulse-controller-cli@.service.d/test.conf"
# storpulsed.service's sandbox, every line of it, running the fake CLI once instead of the daemon
sed -e 's|^Type=notify|Type=oneshot|' -e '/^\(WatchdogSec\|ExecReload\|Restart\|RestartSec\)=/d' \
        -e 's|^ExecStart=.*|ExecStart=/usr/local/sbin/storcli64 /call/vall show all J|' \
        -e '/^\[Install\]/,$d' -e '/^\(After\|Wants\)=/d' "$unitdir/storpulsed.service" \
        >"$unitdir/storpulse-vm-sandbox.service"
grep -q '^DevicePolicy=closed' "$unitdir/storpulse-vm-sandbox.service" || fail "sandbox copy"
run systemctl daemon-reload

# ---- in storpulsed's sandbox the CLI cannot open its node ------------------------------------
systemctl start storpulse-vm-sandbox.service && fail "the fake CLI ran in storpulsed.service's sandbox"
journalctl -u storpulse-vm-sandbox.service -o cat --no-pager | tail -5 | sed 's/^/sandbox: /'
journalctl -u storpulse-vm-sandbox.service -o cat --no-pager |
        grep -q -e "$sg.*ermission denied" -e "$sg.*not permitted" ||
        fail "no 'permission denied' on $sg in the sandbox's journal"

# ---- storpulsed asks the helper's unit: the CLI's verdict reaches the daemon ----------------
timeout 60 systemctl start storpulse-controller-cli.socket storpulsed.socket storpulsed.service || {
        journalctl -u storpulsed --no-pager | tail -30
        fail "systemctl start storpulsed failed"
}
daemon_vol() { # the daemon's volumes into $SCRATCH/cli-daemon.json; true once $sd has storcli's
        timeout 20 "$STORPULSECTL" volumes --daemon --json >"$SCRATCH/cli-daemon.json" 2>/dev/null &&
                python3 - "$SCRATCH/cli-daemon.json" "$sd" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
vols = j if isinstance(j, list) else j.get("volumes", [])
v = [x for x in vols if isinstance(x, dict) and x.get("name") == sys.argv[2]]
sys.exit(0 if v and (v[0].get("controller") or {}).get("cli") == "storcli" else 1)
PY
}
t0=$(date +%s)
if ! (
        while ! daemon_vol; do
                (($(date +%s) < t0 + 60)) || exit 1
                sleep 1
        done
); then
        journalctl -u storpulsed -u 'storpulse-controller-cli@*' --no-pager | tail -30
        fail "no storcli data on $sd in the daemon after 60 s"
fi
checkfile "$SCRATCH/cli-daemon.json" "the fake storcli's VD, through the helper's unit, in the daemon" "
vols = V if isinstance(V, list) else V['volumes']
v = [x for x in vols if x.get('name') == '$sd'][0]
print(v.get('controller'), v.get('level'))
eq(v['kind'], 'controller', 'kind')
eq(v['controller']['cli'], 'storcli', 'cli')
eq(v['controller']['volume_id'], 'c0/v239', 'the VD of the captured output')
eq(v['controller']['state'], 'optimal', 'state')
eq(v['controller']['state_raw'], 'Optl', 'state_raw')
eq(v['level'], 'RAID1', 'level from the CLI')
"
! journalctl -u 'storpulse-controller-cli@*' -o cat --no-pager | grep -e "ermission denied" -e "not permitted" ||
        fail "the helper's unit was denied something"
# the CLI ran in an instance of the helper's unit, not as a child of the daemon
journalctl -o cat --no-pager _PID=1 | grep "storpulse-controller-cli@" | tail -2 | sed 's/^/systemd: /'
journalctl -o cat --no-pager _PID=1 | grep -q "storpulse-controller-cli@" ||
        fail "systemd started no storpulse-controller-cli@ instance"

# ---- no helper: logged at the next poll (10 s), the daemon carries on ------------------------
# (not restarted: storpulsed.service Wants= the socket and would start it again)
run systemctl stop storpulse-controller-cli.socket
wait_until 40 "the daemon says the helper is unreachable" bash -c \
        "journalctl -u storpulsed -o cat --no-pager | grep -q 'Cannot reach the vendor CLI helper at /run/storpulse/controller-cli'"
[[ "$(systemctl is-active storpulsed)" == active ]] || fail "storpulsed not active without the helper"
run timeout 60 systemctl stop storpulsed.service storpulsed.socket
rm -f "$unitdir/storpulse-vm-sandbox.service" /usr/local/sbin/storcli64

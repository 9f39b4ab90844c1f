# SPDX-License-Identifier: MIT
# The Debian package under systemd as PID 1 (issue 25). The guest's root is the host's, read-only,
# under a tmpfs overlay: dpkg writes its database, /etc, /usr and /var/lib to the overlay.
# STORPULSE_DEB is the .deb dpkg-buildpackage made from this tree, STORPULSE_DEB_UPGRADE the same
# package with a higher version (tests/vm/package-test). Checked: dpkg -i enables and starts
# storpulsed.service and its three sockets (the probe timer stays disabled), systemd's dpkg trigger
# compiles our catalog, the daemon answers on its socket and over HTTP, an edited conffile
# and `systemctl reload` give config-reloaded, storpulse-probe@quick.service runs a probe that
# is learned into the baselines, the upgrade restarts the daemon and keeps the conffile edit and
# the baselines, and purge leaves nothing of ours in /etc, /var/lib, /run and the unit links.
# shellcheck disable=SC2016
source ../lib.sh
# a failure shows what storpulsed said (the guest's journal is gone with it)
fail() {
        echo "--- storpulsed's journal (last 60 entries)"
        journalctl -u storpulsed --no-pager -n 60 -o short-monotonic 2>/dev/null
        echo "FAIL: $*" >&2
        exit 1
}
[[ "$(cat /proc/1/comm)" == systemd ]] || fail "PID 1 is $(cat /proc/1/comm), not systemd"
[[ -f ${STORPULSE_DEB:-} && -f ${STORPULSE_DEB_UPGRADE:-} ]] || fail "STORPULSE_DEB(_UPGRADE) not given"
ID_STARTED=e74a827ee83e45cbb596dae03e49d6c8
ID_RELOADED=2a58adfbb21545649b54af42ee3b50ff
ID_PROBE_FINISHED=52d1c022e9de40c4b2f57f62ec4f0d4d
ctl=/usr/bin/storpulsectl
conf=/etc/storpulse/storpulse.conf
export DEBIAN_FRONTEND=noninteractive

dpkg-query -W storpulse >/dev/null 2>&1 && fail "storpulse is already installed in the guest's root"
# The host may be a container image whose policy-rc.d forbids starting services (exit 101): the
# guest shares that root, but boots systemd and should behave like an installed machine. Removed
# in the overlay only. man-db's index update is skipped (minutes under TCG; not ours to test).
rm -f /usr/sbin/policy-rc.d
echo "man-db man-db/auto-update boolean false" | debconf-set-selections
rm -f /var/lib/man-db/auto-update
a=$(disk 1) b=$(disk 2)
modprobe -a md_mod raid1
run mdadm --create /dev/md0 --run --assume-clean --metadata=1.2 --level=1 --raid-devices=2 \
        /dev/$a /dev/$b </dev/null
udevadm settle --timeout=30
uuid=$(mdadm --detail --export /dev/md0 | sed -n 's/^MD_UUID=//p')
[[ -n $uuid ]] || fail "no MD_UUID for md0"

# ---- install -----------------------------------------------------------------------------
# dpkg_i DEB: install it; the maintainer scripts' systemctl calls must all have worked (they end
# in `|| true`, so only their output tells: "Could not execute systemctl", a refused job)
dpkg_i() {
        local rc=0
        dpkg -i "$1" </dev/null >"$SCRATCH/dpkg.out" 2>&1 || rc=$?
        cat "$SCRATCH/dpkg.out"
        ((rc == 0)) || fail "dpkg -i $1 failed (rc $rc)"
        ! grep -E "Could not execute systemctl|refusing|Job for .* failed" "$SCRATCH/dpkg.out" ||
                fail "a systemctl call of the maintainer scripts failed (above)"
}
dpkg_i "$STORPULSE_DEB"
[[ -x $ctl && -x /usr/sbin/storpulsed ]] || fail "binaries not installed"
for u in storpulsed.service storpulsed.socket storpulsed-http.socket storpulse-controller-cli.socket; do
        [[ "$(systemctl is-enabled $u)" == enabled ]] || fail "$u is not enabled after install"
done
[[ -x /usr/libexec/storpulse-controller-cli ]] || fail "the vendor CLI helper is not installed"
[[ "$(systemctl is-enabled storpulse-probe@quick.timer 2>&1)" != enabled ]] ||
        fail "storpulse-probe@quick.timer is enabled by default"
wait_until 30 "storpulsed active" systemctl is-active --quiet storpulsed
wait_until 10 "journal: started" bash -c "journalctl MESSAGE_ID=$ID_STARTED -o cat --no-pager | grep -q started"
journalctl --list-catalog $ID_STARTED --no-pager | grep -q "storpulsed started" ||
        fail "the catalog was not compiled on install (systemd's dpkg trigger)"
run $ctl status
curl -sfS --max-time 10 http://127.0.0.1:9977/metrics | grep -q '^storpulse_' || fail "no metrics over HTTP"
for m in storpulsed.8 storpulsectl.1 storpulse.conf.5; do
        [[ -f /usr/share/man/man${m##*.}/$m.gz ]] || fail "man page $m not installed"
done
[[ -f /usr/share/doc/storpulse/README.md.gz ]] || fail "README not installed"
[[ -f /usr/share/bash-completion/completions/storpulsectl ]] || fail "bash completion not installed"
dpkg-query -W -f='${Conffiles}\n' storpulse | grep -q " $conf " || fail "$conf is not a conffile"

# ---- an edited conffile, reload, a probe run through the template service ------------------
printf '%s\n' "# edited in the VM (package-debian)" "[Volumes]" "Name=md0" "[Profile quick]" \
        "SequentialBytes=4M" "RandomDuration=1s" >>"$conf"
run systemctl reload storpulsed
wait_until 20 "journal: config-reloaded" bash -c "journalctl MESSAGE_ID=$ID_RELOADED -o cat --no-pager | grep -q ."
run timeout 120 systemctl start storpulse-probe@quick.service
wait_until 20 "journal: probe-finished md0" bash -c \
        "journalctl MESSAGE_ID=$ID_PROBE_FINISHED STORPULSE_VOLUME=md0 -o cat --no-pager | grep -q ."
# what was learned, as the daemon reports it (baselines.json is written at most once a minute and
# at stop: the upgrade's stop writes it, the new daemon reads it)
learned() { # FILE: md0's baselines as `report --json` gives them
        $ctl report --json md0 >"$1" || fail "storpulsectl report --json md0"
}
wait_until 20 "md0 learned a run" bash -c \
        "$ctl report --json md0 | python3 -c 'import json, sys; d = json.load(sys.stdin); sys.exit(not any(v[\"volume\"] == \"md0\" and v[\"learned_runs\"] >= 1 for v in d[\"volumes\"]))'"
learned "$SCRATCH/learned.before"
pid_before=$(systemctl show -p MainPID --value storpulsed)

# ---- upgrade -----------------------------------------------------------------------------
dpkg_i "$STORPULSE_DEB_UPGRADE"
new=$(dpkg-deb -f "$STORPULSE_DEB_UPGRADE" Version)
[[ "$(dpkg-query -W -f='${Version}' storpulse)" == "$new" ]] || fail "not upgraded to $new"
grep -q "^# edited in the VM (package-debian)" "$conf" || fail "the upgrade lost the conffile edit"
[[ ! -e $conf.dpkg-new && ! -e $conf.dpkg-dist ]] || fail "the upgrade left $conf.dpkg-*"
wait_until 30 "storpulsed active after the upgrade" systemctl is-active --quiet storpulsed
[[ "$(systemctl show -p MainPID --value storpulsed)" != "$pid_before" ]] ||
        fail "storpulsed not restarted by the upgrade"
for u in storpulsed.socket storpulsed-http.socket storpulse-controller-cli.socket; do
        systemctl is-active --quiet $u || fail "$u not active after the upgrade"
done
[[ -s /var/lib/storpulse/baselines.json ]] || fail "no baselines.json after the upgrade"
wait_until 20 "storpulsed answers after the upgrade" $ctl status
learned "$SCRATCH/learned.after"
python3 - "$SCRATCH/learned.before" "$SCRATCH/learned.after" <<'PY' || fail "baselines lost in the upgrade"
import json, sys
def key(v):
    return (v["volume"], v["profile"], v["identity"])
before, after = ({key(v): v for v in json.load(open(p))["volumes"]} for p in sys.argv[1:3])
before = {k: v for k, v in before.items() if v["learned_runs"] >= 1}
assert before, "nothing learned before the upgrade"
for k, v in before.items():
    a = after.get(k)
    assert a, f"{k} gone after the upgrade"
    assert a["learned_runs"] >= v["learned_runs"] >= 1, f"{k}: learned_runs {v['learned_runs']} -> {a['learned_runs']}"
    print(f"kept: {k[0]} profile {k[1]}: {a['learned_runs']} learned runs")
PY
run $ctl report md0

# ---- purge -------------------------------------------------------------------------------
run dpkg --purge storpulse </dev/null
left=$(ls -d /etc/storpulse /var/lib/storpulse /run/storpulse /usr/sbin/storpulsed 2>/dev/null
        find /etc/systemd/system /var/lib/systemd/deb-systemd-helper-enabled -name '*storpulse*' 2>/dev/null)
[[ -z $left ]] || fail "purge left: $left"
systemctl is-active --quiet storpulsed && fail "storpulsed still running after purge"
journalctl --list-catalog $ID_STARTED --no-pager 2>/dev/null | grep -q "storpulsed started" &&
        fail "the catalog still has our entries after purge"
log "install, reload, probe, upgrade to $new, purge: ok"

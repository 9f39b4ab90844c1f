# SPDX-License-Identifier: MIT
# systemd as PID 1: journald and udev run, the test unit is the only failed candidate, and
# storpulsectl volumes works under systemd on an md array (mdmonitor is masked, pitfall 10).
# shellcheck disable=SC2016
source ../lib.sh
require_verb volumes
[[ "$(cat /proc/1/comm)" == systemd ]] || fail "PID 1 is $(cat /proc/1/comm), not systemd"
systemctl is-active systemd-journald systemd-udevd || fail "journald/udevd not active"
[[ "$(systemctl is-enabled mdmonitor.service 2>&1)" == masked* ]] || fail "mdmonitor.service not masked"
a=$(disk 1) b=$(disk 2)
modprobe -a md_mod raid1
run mdadm --create /dev/md0 --run --assume-clean --metadata=1.2 --level=1 --raid-devices=2 \
        /dev/$a /dev/$b </dev/null
udevadm settle --timeout=30
systemctl is-active mdmonitor.service && fail "mdmonitor.service runs despite the mask"
logger -t storpulse-vm "journal works"
wait_until 10 "journal entry" bash -c 'journalctl -t storpulse-vm --no-pager | grep -q "journal works"'
check systemd-volumes "volumes under systemd" "
m = vol('md0')
eq(m['kind'], 'md', 'kind')
eq(m['state'], 'ok', 'state')
eq(sorted(m['members']), sorted(['$a', '$b']), 'members')
"

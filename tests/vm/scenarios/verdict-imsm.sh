# SPDX-License-Identifier: MIT
# An IMSM container with a RAID1 volume (IMSM_NO_PLATFORM=1: no Intel RST firmware here;
# IMSM_DEVNAME_AS_SERIAL=1: virtio disks have no serial). The container is `inactive` forever by
# design: a container, not a failure; its member array names it and is judged as an array.
# shellcheck disable=SC2016
source ../lib.sh
require_verb volumes
export IMSM_NO_PLATFORM=1 IMSM_DEVNAME_AS_SERIAL=1
a=$(disk 1) b=$(disk 2)
modprobe -a md_mod raid1
run mdadm --create /dev/md/imsm0 --run --metadata=imsm --raid-devices=2 /dev/$a /dev/$b </dev/null
run mdadm --create /dev/md/vol0 --run --level=1 --raid-devices=2 --size=16M \
        /dev/md/imsm0 </dev/null
udevadm settle --timeout=30
cont=$(basename "$(readlink -f /dev/md/imsm0)")
vol=$(basename "$(readlink -f /dev/md/vol0)")
log "container $cont ($(md_attr "$cont" metadata_version), $(md_attr "$cont" array_state)); volume $vol ($(md_attr "$vol" metadata_version))"
cat /proc/mdstat
check imsm "IMSM container is a container, its RAID1 volume an array linked to it" "
c = vol('$cont')
eq(c['md']['array_state'], '$(md_attr "$cont" array_state)', 'container array_state as the kernel')
eq(c['verdict'], 'container', 'container verdict')
eq(c['level'], 'container', 'container level named although md leaves it empty')
ne(c['state'], 'failed', 'container not failed')
v = vol('$vol')
eq(v['level'], 'raid1', 'volume level')
eq(v['md']['container'], '$cont', 'volume names its container')
eq(c['md']['member_arrays'], ['$vol'], 'container lists its member array')
ok(v['verdict'] in ('ok',), 'volume verdict ok (%r)' % v['verdict'])
for d in ('$a', '$b'):
    ok(d in v['members'], d + ' a member of the volume')
"
# the tree says the same: the container's row names its arrays, the array's row its container
tree=$(ctl volumes) || fail "storpulsectl volumes exited $?"
echo "$tree"
grep -Eq "^$cont .*arrays: $vol\s*$" <<<"$tree" || fail "container row does not name $vol"
grep -Eq "^$vol .*in container $cont\s*$" <<<"$tree" || fail "array row does not name $cont"
mdadm --stop "/dev/$vol" >/dev/null 2>&1 || true
mdadm --stop "/dev/$cont" >/dev/null 2>&1 || true

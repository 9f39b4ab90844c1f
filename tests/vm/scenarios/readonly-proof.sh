# SPDX-License-Identifier: MIT
# The read-only proof: an md RAID1 and an LVM raid1 LV, settled; the sha256 of every member
# device and the kernel's count of completed writes on every device of the stack are taken
# before and after storpulse runs everything it has against them (volumes, probes of every
# volume and member). Any difference fails.
# shellcheck disable=SC2016
source ../lib.sh
source ./lvm-common.sh
require_verb volumes
require_verb probe
a=$(disk 1) b=$(disk 2) c=$(disk 3) d=$(disk 4)
modprobe -a md_mod raid1
run mdadm --create /dev/md0 --run --assume-clean --metadata=1.2 --level=1 --raid-devices=2 \
        /dev/$a /dev/$b </dev/null
run pvcreate -qq /dev/$c /dev/$d
run vgcreate -qq vgro /dev/$c /dev/$d
run lvcreate -qq --monitor n -y --type raid1 -m 1 --nosync -L 12M -n r1 vgro
udevadm settle --timeout=30
wait_until 30 "vgro-r1 in sync" dm_raid_in_sync vgro-r1
lvdev=/dev/$(kname /dev/vgro/r1)
members=("/dev/$a" "/dev/$b" "/dev/$c" "/dev/$d")
stack=("${members[@]}" /dev/md0 "$lvdev")
sync
# md marks an array clean some 200 ms after its last write (a superblock write), and the bitmap
# daemon of the dm-raid LV clears its bits in passes every daemon_sleep (5 s) after the writes of
# lvcreate: wait until the stack's write counters stand still for 12 s (two bitmap passes plus
# margin) before taking the "before" picture, so the kernel's own housekeeping is over.
stable() {
        local w1 w2
        w1=$(writes_each "${stack[@]}")
        sleep 12
        w2=$(writes_each "${stack[@]}")
        [[ $w1 == "$w2" ]]
}
wait_until 120 "write counters of the stack stand still for 12 s" stable
w_before=$(writes "${stack[@]}")
writes_each "${stack[@]}" >"$SCRATCH/writes-before"
sums "$SCRATCH/sums-before" "${members[@]}"
cat "$SCRATCH/sums-before"

log "storpulse runs against everything"
volumes ro-1 >/dev/null
for t in /dev/md0 "$lvdev" "${members[@]}"; do
        timeout 120 "$STORPULSECTL" probe --json --no-progress --seq-bytes=8M --block-size=1M \
                --rand-count=200 --rand-queue-depth=1,8 --timeout=60s "$t" >>"$SCRATCH/ro-probes.json" ||
                fail "probe of $t failed (exit $?)"
done
cat "$SCRATCH/ro-probes.json"
checkfile "$SCRATCH/ro-probes.json" "every probe ok, with reads done" "
eq(len(J), 6, 'probe results')
for p in J:
    eq(p['state'], 'ok', p['path'] + ' state')
    ok(p['sequential']['bytes'] > 0 and p['random']['ios'] > 0, p['path'] + ' read something')
"
volumes ro-2 >/dev/null
sync

w_after=$(writes "${stack[@]}")
writes_each "${stack[@]}" >"$SCRATCH/writes-after"
sums "$SCRATCH/sums-after" "${members[@]}"
log "writes completed on the stack: before $w_before, after $w_after"
want_w=$w_before
[[ ${STORPULSE_VM_SELFTEST_WRONG:-0} == 1 ]] && want_w=$((w_before + 1))
sums_same=1
diff -u "$SCRATCH/sums-before" "$SCRATCH/sums-after" || sums_same=0
if [[ $w_after != "$want_w" ]]; then
        diff -u "$SCRATCH/writes-before" "$SCRATCH/writes-after"
        fail "the kernel counted writes on the stack while storpulse ran: $w_before -> $w_after (contents $( ((sums_same)) && echo unchanged || echo CHANGED))"
fi
((sums_same)) || fail "member contents changed while storpulse ran"
echo "  ok: sha256 of all ${#members[@]} members unchanged, no writes counted"

# SPDX-License-Identifier: MIT
# dm-cache, dm-writecache and dm-integrity on the real kernel, built with dmsetup over slices of
# the disks. cache (writeback): its metadata device's table replaced by `error` and the cache
# written: the commit fails, the abort fails, Linux 6.1 prints `Error` for the status read that
# tried to commit and `Fail` after: failed. (Its cache device replaced instead fails the I/O but
# leaves the status `rw -`: the kernel tells no one, so neither can a judge; not asserted.)
# writecache (ssd): its cache device replaced by `error` and written until the status's error
# indicator is set (6.1 prints 1, not an errno): failed, every write fails. integrity (crc32c,
# journal, `recalculate` so that udev's reads of the fresh device do not count as mismatches):
# a block written through it, then 512 bytes of it overwritten on the backing device (the test's
# own device, by dd), read back through it: EILSEQ, and the status's mismatch count: degraded.
# shellcheck disable=SC2016
source ../lib.sh
source ./verdict-dm-common.sh
require_verb volumes
a=$(disk 1) b=$(disk 2) c=$(disk 3)
run modprobe -a dm_mod dm_cache dm_cache_smq dm_writecache dm_integrity
# swap_error DMNAME: the device's table becomes `error` of the same size (a disk that died)
swap_error() {
        run dmsetup load "$1" --table "0 $(blockdev --getsz "/dev/mapper/$1") error"
        run dmsetup suspend "$1"
        run dmsetup resume "$1"
}
# The disks carry what earlier scenarios of the group left (a thin pool's, a snapshot's): the
# targets' superblocks start zeroed, or dm-writecache refuses the stale bytes ("Invalid magic in
# the superblock", CI of 4ad9cfb) and dm-cache/dm-integrity would read them as their own.
run dd if=/dev/zero of="/dev/$a" bs=1M count=32 oflag=direct status=none
run dd if=/dev/zero of="/dev/$c" bs=1M count=2 oflag=direct status=none
run dmsetup create ccmeta --table "0 8192 linear /dev/$a 0"
run dmsetup create ccssd --table "0 32768 linear /dev/$a 8192"
run dmsetup create ccorig --table "0 49152 linear /dev/$b 0"
run dmsetup create cc --table "0 49152 cache /dev/mapper/ccmeta /dev/mapper/ccssd /dev/mapper/ccorig 128 1 writeback default 0"
run dmsetup create wcssd --table "0 16384 linear /dev/$a 49152"
run dmsetup create wcorig --table "0 32768 linear /dev/$b 49152"
run dmsetup create wc --table "0 32768 writecache s /dev/mapper/wcorig /dev/mapper/wcssd 4096 0"
# integrity: a one-sector load formats the device; its status gives the provided data size
run dmsetup create igraw --table "0 32768 linear /dev/$c 0"
itab() { echo "0 $1 integrity /dev/mapper/igraw 0 4 J 2 internal_hash:crc32c recalculate"; }
run dmsetup create ig --table "$(itab 1)"
udevadm settle --timeout=30
isz=$(dmsetup status ig | awk '{print $5}')
run dmsetup remove ig
run dmsetup create ig --table "$(itab "$isz")"
udevadm settle --timeout=30
recalc_done() { dmsetup status ig | awk '{exit !($6 == "-" || $6 == $5)}'; }
wait_until 60 "ig recalculated" recalc_done
dd if=/dev/urandom of=/dev/mapper/cc bs=1M count=4 oflag=direct status=none
dd if=/dev/urandom of=/dev/mapper/wc bs=1M count=2 oflag=direct status=none
cc=$(dm_name_of cc) wc=$(dm_name_of wc) ig=$(dm_name_of ig)
dmsetup table cc wc ig
dmsetup status cc wc ig
dm_daemon_start
dm_check cache-before "cache $cc, writecache $wc, integrity $ig ok" "
for n in ('$cc', '$wc', '$ig'):
    eq(vol(n)['verdict'], 'ok', n + ' verdict')
$(figures_check "vol('$cc')" cc)
$(figures_check "vol('$wc')" wc)
$(figures_check "vol('$ig')" ig)
"

log "cache: metadata device fails"
swap_error ccmeta
dd if=/dev/urandom of=/dev/mapper/cc bs=64k count=16 seek=128 oflag=direct status=none 2>&1 | head -n 1
dmsetup status cc
wait_until 20 "cc Fail" status_shows cc ' cache Fail'
dmsetup status cc
dm_check cache-fail "cache metadata lost: failed" "
v = vol('$cc')
eq(v['verdict'], 'failed', 'cache verdict')
ok('cache failed' in v['verdict_reason'], 'reason: %r' % v['verdict_reason'])
$(figures_check "vol('$cc')" cc)
"
metrics_has "storpulse_volume_health\\{volume=\"$cc\"(,[a-z]+=\"[^\"]*\")*,state=\"failed\"\\} 1" "cache failed"
event_has "$cc: .* has failed \\(cache failed" "failed event"

log "writecache: cache device fails"
swap_error wcssd
for i in $(seq 1 20); do
        dd if=/dev/urandom of=/dev/mapper/wc bs=4k count=1 seek=$((1000 + i)) oflag=direct,sync \
                status=none 2>/dev/null
        status_shows wc '^0 [0-9]+ writecache [1-9-]' && break
done
dmsetup status wc
status_shows wc '^0 [0-9]+ writecache [1-9-]' || fail "kernel: writecache error indicator not set"
dd if=/dev/zero of=/dev/mapper/wc bs=4k count=1 oflag=direct status=none 2>/dev/null &&
        fail "kernel: a write to wc succeeded after its error"
dm_check writecache-error "writecache error: failed, writes fail" "
v = vol('$wc')
eq(v['verdict'], 'failed', 'writecache verdict')
ok('every write fails' in v['verdict_reason'], 'reason: %r' % v['verdict_reason'])
$(figures_check "vol('$wc')" wc)
"
metrics_has "storpulse_volume_health\\{volume=\"$wc\"(,[a-z]+=\"[^\"]*\")*,state=\"failed\"\\} 1" "writecache failed"
event_has "$wc: .* has failed \\(writecache" "failed event"

log "integrity: a block of data corrupted under it"
mark=STORPULSE-INTEGRITY-$RANDOM$RANDOM
python3 -c "import sys; sys.stdout.write(('$mark' * 400)[:4096])" |
        dd of=/dev/mapper/ig bs=4096 seek=200 count=1 oflag=direct,sync status=none
# the journal holds the write until a commit: suspend/resume writes it to its place
run dmsetup suspend ig
run dmsetup resume ig
off=$(grep -obUa -m1 "$mark" /dev/mapper/igraw | head -n 1 | cut -d: -f1)
[[ -n $off ]] || fail "test setup: the written block not found on igraw"
echo "  block found at byte $off of igraw; overwriting sector $((off / 512))"
dd if=/dev/urandom of=/dev/mapper/igraw bs=512 count=1 seek=$((off / 512)) oflag=direct status=none
dd if=/dev/mapper/ig of=/dev/null bs=4096 skip=200 count=1 iflag=direct status=none &&
        fail "kernel: the corrupted block read back without an error"
dmesg | grep 'integrity:.*Checksum failed' | tail -n 2
wait_until 10 "ig mismatches counted" status_shows ig '^0 [0-9]+ integrity [1-9]'
dmsetup status ig
n=$(dmsetup status ig | awk '{print $4}')
dm_check integrity-mismatch "integrity: $n checksum mismatches: degraded" "
v = vol('$ig')
eq(v['verdict'], 'degraded', 'integrity verdict')
ok('$n checksum mismatches' in v['verdict_reason'], 'reason: %r' % v['verdict_reason'])
$(figures_check "vol('$ig')" ig)
"
metrics_has "storpulse_dm_integrity_mismatches\\{volume=\"$ig\"[^}]*\\} $n\$" "mismatch count"
event_has "$ig: .* is degraded \\($n checksum" "degraded event"
dm_daemon_stop
dmsetup remove cc wc ig ccmeta ccssd ccorig wcssd wcorig igraw >/dev/null 2>&1 || true

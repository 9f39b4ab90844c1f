# SPDX-License-Identifier: MIT
# A thin pool whose metadata runs out, on the real kernel. LVM will not make a metadata LV under
# 2 MiB (about 100k mappings to fill), so dmsetup builds the pool: 128 KiB of metadata (32
# blocks of 4 KiB) on a slice of a disk, 512 MiB of data on a `zero` target (nothing is stored;
# 8192 blocks of 64 KiB, more than 32 blocks of btree leaves can ever map), and one thin volume
# written in 16 MiB steps until the pool leaves `rw`. Linux 6.1 then logs "No free metadata
# blocks", switches the pool to read-only, fails to set needs_check on the read-only metadata and
# switches it to fail mode: the pool and its thin volume print `Fail` (a kernel that stops at
# `ro`/`needs_check` is held to those words instead). Either way the pool is failed (all I/O
# fails) in the CLI, the API, /metrics and the journal, and so is the thin volume.
# shellcheck disable=SC2016
source ../lib.sh
source ./verdict-dm-common.sh
require_verb volumes
a=$(disk 4)
run modprobe -a dm_mod dm_thin_pool
data_sectors=$((512 * 2048))
run dmsetup create tmmeta --table "0 256 linear /dev/$a 0"
run dmsetup create tmdata --table "0 $data_sectors zero"
run dmsetup create tmpool --table "0 $data_sectors thin-pool /dev/mapper/tmmeta /dev/mapper/tmdata 128 0 1 skip_block_zeroing"
run dmsetup message tmpool 0 "create_thin 0"
run dmsetup create tmthin --table "0 $data_sectors thin /dev/mapper/tmpool 0"
udevadm settle --timeout=30
pool=$(dm_name_of tmpool)
thin=$(dm_name_of tmthin)
dmsetup table tmpool
dmsetup status tmpool
dmsetup status tmthin
dm_daemon_start
dm_check thinmeta-before "pool $pool and thin $thin ok with free metadata" "
eq(vol('$pool')['verdict'], 'ok', 'pool verdict')
eq(vol('$thin')['verdict'], 'ok', 'thin verdict')
$(figures_check "vol('$pool')" tmpool)
"
metrics_has "storpulse_thin_pool_metadata_usage_ratio\\{volume=\"$pool\"[^}]*\\} 0\\.[0-9]" "metadata usage below 1"
log "fill the metadata: 16 MiB steps (256 new mappings each) until the pool is no longer rw"
for i in $(seq 0 31); do
        dd if=/dev/zero of=/dev/mapper/tmthin bs=1M count=16 seek=$((i * 16)) oflag=direct \
                status=none 2>&1 | head -n 1
        s=$(dmsetup status tmpool)
        echo "  after $(((i + 1) * 16)) MiB: $s"
        [[ $s == *" rw "* ]] || break
done
dmsetup status tmpool
dmsetup status tmthin
dmesg | grep -E 'device-mapper: (thin|space map)' | tail -n 8
status_shows tmpool ' (Fail|ro|out_of_data_space) ' || status_shows tmpool ' Fail$| Fail $' ||
        fail "kernel: tmpool still rw after 512 MiB"
status_shows tmpool out_of_data_space && fail "kernel: data ran out before metadata (test setup)"
dm_check thinmeta-full "metadata exhausted: pool failed, thin volume failed" "
p = vol('$pool')
eq(p['verdict'], 'failed', 'pool verdict')
ok(('failed' in p['verdict_reason']) or ('read-only' in p['verdict_reason']), 'reason: %r' % p['verdict_reason'])
$(figures_check "vol('$pool')" tmpool)
t = vol('$thin')
if '$(dmsetup status tmthin | awk '{print $4}')' == 'Fail':
    eq(t['verdict'], 'failed', 'thin verdict (the kernel says Fail)')
    eq(t['dm']['thin']['failed'], True, 'dm.thin.failed')
"
metrics_has "storpulse_volume_health\\{volume=\"$pool\"(,[a-z]+=\"[^\"]*\")*,state=\"failed\"\\} 1" "pool failed"
metrics_has "storpulse_volume_effective_health\\{volume=\"$thin\"(,[a-z]+=\"[^\"]*\")*,state=\"failed\"\\} 1" "thin volume effectively failed"
event_has "$pool: .* has failed \\(thin pool" "failed event naming the pool"
dm_daemon_stop
dmsetup remove tmthin tmpool tmdata tmmeta >/dev/null 2>&1 || true

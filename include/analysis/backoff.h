/* SPDX-License-Identifier: MIT */
#pragma once

/* Probe back-off: the pure decisions that keep a probe from disturbing production I/O, the way
 * md's own resync backs off (md.c is_mddev_idle(): compare the array's I/O counters with what the
 * resync itself submitted; anything more is someone else's I/O). The manager reads
 * /sys/block/X/stat of the volume and of every disk below it before and after each probe slice
 * and hands the readings here; this module decides, never reads a clock or a file.
 *
 *  - Foreign I/O: the sectors read+written on a device during the slice minus the sectors the
 *    probe itself read (which show on the probed device and, spread, on its members). If the
 *    rest exceeds a threshold, someone else used the device: pause and retry later.
 *  - Shared disks: two volumes whose member disks intersect are never probed at once.
 *  - Rebuilds: an array that rebuilds is probed lightly only (probe reads make md throttle its
 *    rebuild toward sync_speed_min).
 *  - Standby: a disk whose runtime PM status is "suspended"/"suspending" (or whose drive reports
 *    standby) is never touched.
 *  - Budget: a run has a device-time budget; a probe that would exceed it is skipped.
 *  - Deferral: a volume that is never quiet would never be probed; once its probes have been
 *    given up for foreign I/O for MaxDeferral= (md's sync_speed_min: a floor under the back-off),
 *    the next run probes it anyway, lightly, and the detector judges it with the load it met.
 * Every skip is counted by reason. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/macro.h"
#include "basic/string-table.h"
#include "basic/time-util.h"
#include "model/blockstat.h"

typedef enum ProbeSkipReason {
        PROBE_SKIP_FOREIGN_IO,  /* someone else did I/O during the slice (or just before) */
        PROBE_SKIP_SHARED_DISK, /* a volume sharing a disk is being probed */
        PROBE_SKIP_STANDBY,     /* a disk below is in standby: never wake it */
        PROBE_SKIP_BUDGET,      /* the run's device-time budget is spent */
        PROBE_SKIP_UNUSABLE,    /* the target cannot be probed (refused, gone, bad params) */
        PROBE_SKIP_RETRIES,     /* foreign I/O every time: gave up for this run */
        _PROBE_SKIP_REASON_MAX,
        _PROBE_SKIP_REASON_INVALID = -EINVAL,
} ProbeSkipReason;

DECLARE_STRING_TABLE_LOOKUP(probe_skip_reason, ProbeSkipReason);

/* Runtime power-management words of /sys/block/X/device/power/runtime_status
 * (Documentation/ABI/testing/sysfs-devices-power): "active", "suspended", "suspending",
 * "resuming", "error", "unsupported". True for the ones where touching the disk would wake it.
 * NULL (attribute missing) is not standby. Pure. */
bool backoff_runtime_status_is_standby(const char *runtime_status) _pure_;

/* Sectors (read + written + discarded) a device did between two readings of its stat. A counter
 * that went backwards (device re-created) gives 0. Pure. */
uint64_t backoff_stat_sectors(const BlockStat *before, const BlockStat *after) _pure_;

/* Foreign I/O during a slice on one device: its sectors between the readings minus the sectors
 * the probe is known to have caused there (own_sectors), never below 0. Pure. */
uint64_t backoff_foreign_sectors(const BlockStat *before, const BlockStat *after,
                                 uint64_t own_sectors) _pure_;

/* As backoff_foreign_sectors() for a write probe's slice, where own_sectors are writes (the
 * scratch file's, through the filesystem): reads and the writes beyond own_sectors are foreign.
 * Judged on the probed volume only: below it writes multiply (mirror legs, parity, read-modify-
 * write reads), so a member's counters would call the probe's own cost foreign. Pure. */
uint64_t backoff_foreign_sectors_written(const BlockStat *before, const BlockStat *after,
                                         uint64_t own_sectors) _pure_;
/* foreign / (foreign + own) of backoff_foreign_sectors_written(); NAN when nothing moved. Pure. */
double backoff_foreign_share_written(const BlockStat *before, const BlockStat *after,
                                     uint64_t own_sectors) _pure_;

/* The verdict of one slice over the probed device and its disks: true (back off) if any of them
 * shows more than threshold_sectors of foreign I/O. `own_sectors` is what the probe read from the
 * probed device; on a member disk of an array the probe's reads can show up to that amount again
 * (mirrors read one leg, stripes spread), so the same allowance is used for every member. n is
 * the number of devices; before/after hold one reading each. Pure. */
bool backoff_slice_foreign(const BlockStat *before, const BlockStat *after, size_t n,
                           uint64_t own_sectors, uint64_t threshold_sectors);

/* The share of the I/O on the busiest device that was not the probe's during a slice accepted with
 * foreign I/O (ForeignIOThreshold= above zero): max over the n devices with have[i] of
 * foreign / (foreign + own_sectors), 0..1. A member of an array shows at most own_sectors of the
 * probe's reads, so the share there is a lower bound. NAN when no device has both readings or
 * nothing moved. The detector judges such a run as if the device were that busy. Pure. */
double backoff_foreign_share(const BlockStat *before, const BlockStat *after, const bool *have,
                             size_t n, uint64_t own_sectors);

/* What the probe may have read from a device by the time its counters were read during a running
 * slice, in sectors: the bytes of a progress report (own_bytes), what it can have completed between
 * the report and the reading (interval_bytes; 0 for a report sent after the reading, which is how
 * the manager judges: a report can be read any time after it was sent) and what it has in flight
 * (queue_depth reads of block_size). The foreign-I/O check of a running slice subtracts this, so
 * the lag of a report is never mistaken for someone else's I/O. Pure. */
uint64_t backoff_progress_allowance(uint64_t own_bytes, uint64_t interval_bytes,
                                    unsigned queue_depth, uint64_t block_size) _const_;

/* True if the two NULL-terminated disk lists intersect (volumes sharing a disk). NULL lists are
 * empty. Pure. */
bool backoff_disks_intersect(char *const *a, char *const *b) _pure_;

/* The wait before retrying after foreign I/O: base doubled per attempt (attempt 0 = base), capped
 * at max. Pure. */
usec_t backoff_retry_delay(usec_t base_usec, usec_t max_usec, unsigned attempt) _const_;

/* Whether a volume deferred since `deferred_usec` (CLOCK_REALTIME of its first run given up for
 * foreign I/O, 0 = not deferred) is due to be probed despite foreground I/O at `now_usec`:
 * deferred for max_usec or longer (0 or USEC_INFINITY: never). A clock that went back before the
 * deferral's start counts as no time passed. Pure. */
bool backoff_deferral_expired(usec_t deferred_usec, usec_t now_usec, usec_t max_usec) _const_;

/* Whether a probe of expected device time `cost_usec` fits a budget with `used_usec` spent
 * (budget 0 or USEC_INFINITY: unlimited). Pure. */
bool backoff_budget_allows(usec_t budget_usec, usec_t used_usec, usec_t cost_usec) _const_;

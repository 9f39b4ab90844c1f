/* SPDX-License-Identifier: MIT */
#pragma once

/* The one reading of an md array's background operation (resync, recovery, check, repair,
 * reshape): progress, the kernel's speed and the ETA from them. `storpulsectl volumes`, the md
 * monitor's rebuild tracker (watch, the daemon's journal) and /metrics all take their figures
 * from md_progress_compute(), so they cannot disagree. Pure: no I/O, no clock.
 *
 * Sources (drivers/md/md.c of Linux 6.1):
 *  - fine: /proc/mdstat's "(done/total)" in KiB, moving continuously (status_resync());
 *  - coarse: md/sync_completed "done / total" in sectors, which md updates only at its
 *    checkpoints (every ~1/16 of the device, md_do_sync()), used when mdstat has no line.
 *  While md cleans up a finished or aborted operation mdstat prints 100% although
 *  sync_completed still holds the real checkpoint: the fine figure is dropped then.
 *  A sync_completed of "0 / N" while sync_speed reads "none" (curr_resync is 0: no sync
 *  thread is working) is no position either: md_check_recovery() zeroes curr_resync_completed
 *  and sets MD_RECOVERY_RUNNING before deciding whether to start anything, and after
 *  md_reap_sync_thread() MD_RECOVERY_RECOVER is still set, so right after every recovery or
 *  replace md reads "recover" with "0 / N" for a moment (no mdstat line, no speed). That
 *  coarse figure is dropped; a real restart shows itself with the next figures.
 *  An array whose operation is queued (sync_completed "delayed", mdstat "resync=DELAYED" or
 *  "=PENDING"), frozen or idle has no figure at all, whatever a stale counter says.
 *  "delayed"/"DELAYED" is also md's own first moment of every operation (md_do_sync() sets
 *  curr_resync to MD_RESYNC_DELAYED while it looks for another array on the same disks to wait
 *  for): when /proc/mdstat shows no other array with an operation, nothing can queue it and the
 *  operation counts as running (without a figure yet). A recovery started with mdadm --add on
 *  a slow machine reads so for a moment. */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "basic/macro.h"
#include "basic/string-table.h"

typedef struct MdArray MdArray;         /* model/md.h */
typedef struct MdstatArray MdstatArray; /* model/mdstat.h */
typedef struct Mdstat Mdstat;           /* model/mdstat.h */

typedef enum MdProgressSource {
        MD_PROGRESS_SOURCE_NONE,           /* no figure */
        MD_PROGRESS_SOURCE_MDSTAT,         /* /proc/mdstat's counters */
        MD_PROGRESS_SOURCE_SYNC_COMPLETED, /* md/sync_completed */
        _MD_PROGRESS_SOURCE_MAX,
        _MD_PROGRESS_SOURCE_INVALID = -EINVAL,
} MdProgressSource;

DECLARE_STRING_TABLE_LOOKUP(md_progress_source, MdProgressSource);

/* "None" for the sector fields. */
#define MD_PROGRESS_UNSET UINT64_MAX

typedef struct MdProgress {
        bool running; /* an operation runs now (sync_action not idle/frozen, not delayed) */
        bool delayed; /* queued behind another array sharing its disks, or pending */
        MdProgressSource source;
        uint64_t done_sectors, total_sectors; /* of `source`; 0/0 for NONE */
        double ratio;                         /* 0..1 of `source`; -1 for NONE */
        uint64_t speed_bytes_per_sec;         /* md/sync_speed * 1024 (md's ~30 s average); 0
                                               * when not running or unknown */
        bool has_eta;
        uint64_t eta_sec; /* remaining sectors * 512 / speed */
        /* both raw sources, for a tracker that wants its own history (MD_PROGRESS_UNSET when
         * absent or dropped) */
        uint64_t coarse_done_sectors, coarse_total_sectors;
        uint64_t fine_done_sectors, fine_total_sectors;
} MdProgress;

/* Compute the reading of array `a` (md_array_load()) with its /proc/mdstat entry `m` (NULL when
 * there is none) and the whole /proc/mdstat `all` it came from (NULL when unread: a "delayed"
 * is then believed as read). */
void md_progress_compute(const MdArray *a, const MdstatArray *m, const Mdstat *all,
                         MdProgress *ret);

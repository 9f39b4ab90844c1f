/* SPDX-License-Identifier: MIT */
#pragma once

/* Slow rebuilds. A RebuildSlowTracker follows one array's background operation (the figures of
 * rebuild.h's RebuildStatus) and reports SLOW once per operation when, for sustain_usec in a
 * row, either
 *   - the ETA exceeds eta_limit_sec (whatever the cause: the admin needs to know when
 *     redundancy comes back), or
 *   - the speed stays below the floor while foreground I/O is NOT competing (md throttles a
 *     rebuild toward sync_speed_min when the array is busy; that is by design, not slow).
 * The floor is min(speed_floor, 80% of sync_speed_max): an admin who capped the rebuild is not
 * told it is slow. Foreground I/O is the array device's own read+write rate (the md device's
 * /sys/block/mdX/stat counts only I/O submitted to the array, not the resync's own member I/O);
 * competing means above busy_bytes_per_sec or busy_iops.
 *
 * Hardware-controller volumes show no rebuild state without a vendor CLI; HwRebuildHint turns
 * "throughput down while latency up" for k runs into a "possible background rebuild" hint.
 *
 * Pure: no I/O, no clock. */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/rebuild.h"
#include "basic/macro.h"
#include "basic/string-table.h"
#include "basic/time-util.h"

typedef struct RebuildSlowConfig {
        double eta_limit_sec;             /* 72 h */
        double speed_floor_bytes_per_sec; /* 10 MiB/s */
        usec_t sustain_usec;              /* 10 min */
        double busy_bytes_per_sec;        /* 1 MiB/s of foreground I/O competes */
        double busy_iops;                 /* or 20 foreground I/Os per second */
} RebuildSlowConfig;

/* A rebuild runs at up to sync_speed_max (md default 200000 KiB/s) when the array is otherwise
 * idle; 10 MiB/s idle is a sick member or a throttled controller, and 72 h is past the time a
 * 20 TB member takes at 80 MB/s. */
#define REBUILD_SLOW_CONFIG_DEFAULT                                                                \
        ((RebuildSlowConfig){                                                                      \
                .eta_limit_sec = 72 * 3600.0,                                                      \
                .speed_floor_bytes_per_sec = 10.0 * 1024 * 1024,                                   \
                .sustain_usec = 600 * USEC_PER_SEC,                                                \
                .busy_bytes_per_sec = 1.0 * 1024 * 1024,                                           \
                .busy_iops = 20,                                                                   \
        })

int rebuild_slow_config_validate(const RebuildSlowConfig *c);

typedef enum RebuildSlowReason {
        REBUILD_SLOW_ETA,   /* ETA over the limit */
        REBUILD_SLOW_SPEED, /* speed below the floor without competing I/O */
        _REBUILD_SLOW_REASON_MAX,
        _REBUILD_SLOW_REASON_INVALID = -EINVAL,
} RebuildSlowReason;

DECLARE_STRING_TABLE_LOOKUP(rebuild_slow_reason, RebuildSlowReason);

typedef struct RebuildSlowInput {
        RebuildStatus status;                             /* rebuild_tracker_get_status() */
        uint64_t sync_speed_min_kib, sync_speed_max_kib;  /* REBUILD_UNKNOWN if not read */
        double foreground_bytes_per_sec, foreground_iops; /* NAN unknown (counts as idle) */
} RebuildSlowInput;

typedef struct RebuildSlowEvent {
        RebuildOperation operation;
        RebuildSlowReason reason;
        double speed_bytes_per_sec, eta_sec, progress; /* -1 unknown */
        double eta_limit_sec, floor_bytes_per_sec;
        uint64_t sync_speed_min_kib, sync_speed_max_kib;
        double foreground_bytes_per_sec, foreground_iops;
        bool competing;
        usec_t slow_for_usec;
} RebuildSlowEvent;

typedef struct RebuildSlowTracker {
        RebuildOperation op;
        usec_t slow_since_usec; /* USEC_INFINITY: not slow */
        bool reported;
        bool competing; /* last input */
} RebuildSlowTracker;

void rebuild_slow_tracker_init(RebuildSlowTracker *t);

/* Feed the figures at `now` (CLOCK_MONOTONIC). Returns 1 with *ret filled when the rebuild is
 * reported slow (once per operation), 0 otherwise, -EINVAL for NULL arguments. A phase other
 * than RUNNING, or another operation, re-arms the tracker. */
int rebuild_slow_feed(RebuildSlowTracker *t, const RebuildSlowConfig *c, const RebuildSlowInput *in,
                      usec_t now_usec, RebuildSlowEvent *ret);

/* "recovery slow: 2.1 MiB/s, ETA 3d 4h (limit 3d), sync_speed_min 1000 KiB/s, sync_speed_max
 * 200000 KiB/s, no foreground I/O competing". Returns buf, truncating. */
char *rebuild_slow_event_format(const RebuildSlowEvent *e, char *buf, size_t size);

/* "Possible background rebuild" on a hardware-controller volume: throughput below
 * tput_ratio_max of its baseline while latency is above lat_ratio_min of its baseline, for
 * k_runs runs in a row. */
typedef struct HwRebuildHint {
        unsigned streak;
        bool active;
} HwRebuildHint;

#define HW_REBUILD_HINT_TPUT_RATIO_MAX 0.8
#define HW_REBUILD_HINT_LAT_RATIO_MIN  1.5
#define HW_REBUILD_HINT_RUNS           2U

/* Feed one run's ratios to the baseline (NAN unknown: the run does not count either way).
 * Returns 1 when the hint becomes active, -1 when it clears, 0 otherwise. */
int hw_rebuild_hint_feed(HwRebuildHint *h, double throughput_ratio, double latency_ratio);

/* "throughput 55% of baseline while latency 2.3x: possible background rebuild or consistency
 * check on the controller (no vendor CLI to confirm)". */
char *hw_rebuild_hint_format(double throughput_ratio, double latency_ratio, char *buf, size_t size);

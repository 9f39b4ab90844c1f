/* SPDX-License-Identifier: MIT */
#pragma once

/* Rebuild tracking: one RebuildTracker per md array or dm-raid LV follows the array's background
 * operation (resync, recovery, check, repair, reshape) from a stream of observations and turns it
 * into progress, our own speed estimate, an ETA, and transition events (started, every 10%,
 * finished, interrupted, resumed, delayed) with a severity, so that a routine check is reported
 * as information while an interrupted recovery is an error.
 *
 * Pure: no I/O, no clock, no allocation. Time comes in as `now` (CLOCK_MONOTONIC µs) with every
 * observation. The tracker is plain data (embeddable, copyable); an observation that is garbage
 * (done > total, total 0, time going backwards, unknown operation value) never crashes it and
 * never divides by zero.
 *
 * Progress unit: sectors of the operation's own progress counter (md sync_completed, /proc/mdstat
 * progress KiB * 2, dm-raid sync ratio). For recovery/check/repair that is per member, so speeds
 * are per member, as the kernel's own sync_speed is. */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/string-table.h"
#include "model/dm.h"
#include "basic/macro.h"
#include "model/md.h"
#include "model/mdstat.h"
#include "basic/time-util.h"

/* "Not known" for the uint64_t fields of observations and events. */
#define REBUILD_UNKNOWN UINT64_MAX

typedef enum RebuildOperation {
        REBUILD_OP_IDLE,     /* nothing running */
        REBUILD_OP_RESYNC,   /* initial sync or after an unclean shutdown */
        REBUILD_OP_RECOVERY, /* rebuilding a replaced/added member: the array is degraded */
        REBUILD_OP_CHECK,    /* scrub, read-only compare */
        REBUILD_OP_REPAIR,   /* scrub that rewrites mismatches */
        REBUILD_OP_RESHAPE,  /* level/disks/chunk change */
        REBUILD_OP_FROZEN,   /* sync_action "frozen": background work held */
        REBUILD_OP_REPLACE,  /* mdadm --replace: a replacement rebuilt beside a working member;
                              * redundancy is never reduced (md degraded stays 0) */
        _REBUILD_OP_MAX,
        _REBUILD_OP_INVALID = -EINVAL,
} RebuildOperation;

typedef enum RebuildEventType {
        REBUILD_EVENT_STARTED,     /* an operation began (or was first seen running) */
        REBUILD_EVENT_PROGRESS,    /* progress crossed a multiple of 10% (10..90), once each */
        REBUILD_EVENT_FINISHED,    /* ran to its end; duration, mismatch count for check/repair */
        REBUILD_EVENT_INTERRUPTED, /* stopped before its end: idle written, frozen, member failed */
        REBUILD_EVENT_RESUMED,     /* an interrupted operation continued */
        REBUILD_EVENT_DELAYED,     /* queued (sync_completed "delayed", mdstat DELAYED/PENDING) */
        _REBUILD_EVENT_TYPE_MAX,
        _REBUILD_EVENT_TYPE_INVALID = -EINVAL,
} RebuildEventType;

/* Ordered by urgency; map to syslog with rebuild_severity_to_priority(). */
typedef enum RebuildSeverity {
        REBUILD_SEVERITY_INFO,    /* routine: check started/finished clean, progress */
        REBUILD_SEVERITY_NOTICE,  /* worth knowing: resync/reshape, recovery finished */
        REBUILD_SEVERITY_WARNING, /* redundancy reduced or data questioned: recovery started,
                                     check found mismatches */
        REBUILD_SEVERITY_ERROR,   /* recovery interrupted, member failed mid-operation */
        _REBUILD_SEVERITY_MAX,
        _REBUILD_SEVERITY_INVALID = -EINVAL,
} RebuildSeverity;

/* Why an event happened, where the type alone does not say. */
typedef enum RebuildReason {
        REBUILD_REASON_NONE,
        REBUILD_REASON_ALREADY_RUNNING, /* STARTED: first seen mid-way (start time unknown) */
        REBUILD_REASON_RESTARTED,       /* STARTED: the same operation began again lower down */
        REBUILD_REASON_STOPPED,         /* INTERRUPTED: went idle before its end */
        REBUILD_REASON_FROZEN,          /* INTERRUPTED: sync_action became frozen */
        REBUILD_REASON_MEMBER_FAILED,   /* INTERRUPTED: a member failed / degraded went up */
        REBUILD_REASON_REPLACED,        /* INTERRUPTED: another operation took its place */
        _REBUILD_REASON_MAX,
        _REBUILD_REASON_INVALID = -EINVAL,
} RebuildReason;

typedef enum RebuildPhase {
        REBUILD_PHASE_IDLE,        /* nothing tracked */
        REBUILD_PHASE_DELAYED,     /* operation queued, not yet running */
        REBUILD_PHASE_RUNNING,     /* operation running */
        REBUILD_PHASE_INTERRUPTED, /* operation stopped early; remembered for RESUMED */
        _REBUILD_PHASE_MAX,
        _REBUILD_PHASE_INVALID = -EINVAL,
} RebuildPhase;

/* One look at the array. Start from rebuild_observation_init() (everything unknown), then fill in
 * what was read. */
typedef struct RebuildObservation {
        RebuildOperation operation;
        bool delayed; /* queued behind another array, or pending (read-auto) */
        /* Progress in sectors; REBUILD_UNKNOWN when not read; total 0 means unknown too.
         * coarse: md sync_completed. fine: /proc/mdstat (x/y) KiB * 2, or dm-raid's sync ratio.
         * When both are given, fine is used and coarse ignored for speed. */
        uint64_t coarse_done_sectors, coarse_total_sectors;
        uint64_t fine_done_sectors, fine_total_sectors;
        uint64_t kernel_speed_bytes_per_sec; /* md sync_speed * 1024; fallback only */
        uint64_t degraded;                   /* missing members */
        uint64_t mismatch_count;             /* md mismatch_cnt, dm-raid mismatch count */
        bool member_failed;                  /* some member is faulty (md) or dead (dm 'D'); a
                                              * member md marked faulty because it was replaced
                                              * is not failed */
        /* Whether the operation that just ended ran to its end, when the caller knows it (md:
         * a resync ended with resync_start "none"): -1 unknown, 0 no, 1 yes. */
        int completed;
} RebuildObservation;

typedef struct RebuildEvent {
        RebuildEventType type;
        RebuildOperation operation; /* the operation the event is about (never IDLE/FROZEN) */
        RebuildSeverity severity;
        RebuildReason reason;
        usec_t time_usec;           /* the observation's `now` */
        unsigned percent;           /* PROGRESS: the mark crossed (10..90); else floor(progress%) */
        double progress;            /* 0..1, or -1 unknown */
        double speed_bytes_per_sec; /* our estimate, the kernel's as fallback; -1 unknown */
        double eta_sec;             /* -1 unknown */
        usec_t duration_usec;       /* FINISHED/INTERRUPTED: since start; USEC_INFINITY unknown */
        uint64_t mismatch_count;    /* FINISHED/INTERRUPTED check/repair; else REBUILD_UNKNOWN */
} RebuildEvent;

/* Enough room for the events of any one rebuild_tracker_feed(): the end of one operation, the
 * start of the next, nine progress marks and a delay. */
#define REBUILD_EVENTS_MAX 16

/* Speed samples kept per progress source. */
#define REBUILD_SAMPLES_MAX 32

/* The speed estimate spans (at least) this much history, and always at least two distinct
 * progress values, so coarse sync_completed steps far apart still give the exact step rate. */
#define REBUILD_SPEED_WINDOW_USEC (120 * USEC_PER_SEC)

typedef struct RebuildSample {
        usec_t time_usec;
        uint64_t done_sectors;
} RebuildSample;

typedef struct RebuildSampleRing {
        RebuildSample s[REBUILD_SAMPLES_MAX];
        size_t n, first;
        uint64_t last_value;    /* last value seen in this source (REBUILD_UNKNOWN: none yet) */
        usec_t last_value_usec; /* when last_value was first seen */
} RebuildSampleRing;

/* Plain data; fields are private to rebuild.c: read them through rebuild_tracker_get_status(). */
typedef struct RebuildTracker {
        bool seen;        /* at least one observation fed */
        usec_t last_usec; /* time of the last observation */
        RebuildPhase phase;
        RebuildOperation op; /* meaningful unless phase IDLE */
        bool joined;         /* first seen already running: start time unknown */
        usec_t start_usec;
        unsigned marks; /* bit n set: the n*10% mark is passed (emitted or suppressed) */
        bool delayed_reported;
        bool first_coarse_is_edge; /* op start observed: the first coarse value is fresh */
        uint64_t done_sectors, total_sectors; /* best known progress; total 0 = unknown */
        usec_t done_usec;                     /* when done_sectors was (first) seen */
        bool fine;                            /* done_sectors is from the fine source */
        uint64_t interrupted_done_sectors;
        bool interrupted_saw_other; /* INTERRUPTED: the op left meanwhile (idle/frozen) */
        RebuildSampleRing coarse, fine_ring;
        uint64_t kernel_speed_bytes_per_sec;
        uint64_t degraded, degraded_at_start;
        bool member_failed;
        uint64_t mismatch_count;
} RebuildTracker;

/* What the tracker knows now, for status output. */
typedef struct RebuildStatus {
        RebuildPhase phase;
        RebuildOperation operation; /* IDLE when phase IDLE */
        usec_t start_usec;          /* USEC_INFINITY when unknown */
        double progress;            /* 0..1, -1 unknown */
        double speed_bytes_per_sec; /* -1 unknown */
        double eta_sec;             /* -1 unknown */
        uint64_t mismatch_count;    /* REBUILD_UNKNOWN when not read */
} RebuildStatus;

DECLARE_STRING_TABLE_LOOKUP(rebuild_operation, RebuildOperation);
DECLARE_STRING_TABLE_LOOKUP(rebuild_event_type, RebuildEventType);
DECLARE_STRING_TABLE_LOOKUP(rebuild_severity, RebuildSeverity);
DECLARE_STRING_TABLE_LOOKUP(rebuild_reason, RebuildReason);
DECLARE_STRING_TABLE_LOOKUP(rebuild_phase, RebuildPhase);

/* syslog priority (LOG_INFO .. LOG_ERR) of a severity; LOG_INFO for an invalid value. */
int rebuild_severity_to_priority(RebuildSeverity s) _const_;

/* Fill *o with "nothing known": operation IDLE, numbers REBUILD_UNKNOWN, completed -1. */
void rebuild_observation_init(RebuildObservation *o);

/* Build the observation of an md array, without I/O: `a` from md_array_load(), `m` the array's
 * /proc/mdstat entry (NULL if unavailable), `all` the whole /proc/mdstat (NULL if unread; see
 * md_progress_compute() for what it decides), sync_min_sectors md/sync_min (REBUILD_UNKNOWN if not
 * read), `t` the array's tracker (NULL: no history). md specifics handled here (checked on a real
 * kernel, drivers/md/md.c):
 *  - while a finished or aborted operation is being cleaned up, /proc/mdstat shows 100%
 *    (status_resync(): "Still cleaning up") although sync_completed still holds the real
 *    checkpoint; the fine figure is dropped then;
 *  - when the tracked operation has just ended it fills `completed`: a resync completed if
 *    resync_start reads "none"; a check/repair was aborted if sync_min kept a checkpoint (> 0;
 *    md resets it to 0 only on completion) and completed if sync_min is 0 after progress >= 1/8
 *    (past md's first checkpoint); a reshape completed if reshape_position reads "none";
 *  - a recovery onto a `replacement` member while another carries want_replacement is a
 *    REPLACE; it completed when md marked the old member faulty (6.1: "faulty", slot none)
 *    with degraded 0 and no want_replacement left, which is not a member failure. */
void rebuild_observation_from_md(const RebuildTracker *t, const MdArray *a, const MdstatArray *m,
                                 const Mdstat *all, uint64_t sync_min_sectors,
                                 RebuildObservation *ret);

/* Build the observation of a dm-raid LV (an LVM raid LV) from its parsed status, without I/O.
 * The sync ratio is the fine progress; degraded counts dead and absent legs ('D', '-'); a dead
 * leg is a failed member. When the tracked resync/recovery has just ended, `completed` says
 * whether every leg is in sync ('A') now. dm-raid has no equivalent of md's sync_min, so an
 * ended check/repair is judged by the tracker's own heuristics. */
void rebuild_observation_from_dm(const RebuildTracker *t, const DmRaidStatus *s,
                                 RebuildObservation *ret);

/* Make *t an empty tracker. */
void rebuild_tracker_init(RebuildTracker *t);

/* Feed one observation taken at `now`. Writes the resulting events, in order, to ret_events
 * (room for n_events; REBUILD_EVENTS_MAX always suffices) and returns their number (>= 0).
 * Returns -EINVAL (tracker unchanged) for NULL arguments or an operation outside the enum, and
 * -ENOBUFS (tracker unchanged, nothing written) if n_events is too small. A `now` earlier than the
 * previous one is accepted but discards the speed history (no negative durations). */
int rebuild_tracker_feed(RebuildTracker *t, usec_t now, const RebuildObservation *o,
                         RebuildEvent *ret_events, size_t n_events);

/* Current figures at `now` (the ETA counts down from the last observation at the estimated
 * speed). Never fails. */
void rebuild_tracker_get_status(const RebuildTracker *t, usec_t now, RebuildStatus *ret);

/* One human line for an event, e.g. "check finished after 12min 3s, 0 mismatches" or
 * "recovery 40% done, 3.2 MiB/s, ETA 3min 10s" (no array name, no newline). Writes at most size
 * bytes including the NUL, truncating; returns buf. */
char *rebuild_event_format(const RebuildEvent *e, char *buf, size_t size);

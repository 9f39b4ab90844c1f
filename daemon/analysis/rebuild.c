/* SPDX-License-Identifier: MIT */
/* Rebuild tracking (see include/analysis/rebuild.h for the contract; rebuild-observe.c turns what
 * md and dm-raid say into the tracker's observations).
 *
 * The tracker is a small state machine (IDLE, DELAYED, RUNNING, INTERRUPTED) fed with
 * observations. Every feed works on a copy of the tracker and commits it only when the events fit
 * the caller's array, so a failed call changes nothing.
 *
 * Speed: md's sync_completed only moves every ~1/16 of the device, so a plain delta between two
 * observations is mostly zero and then jumps. The tracker therefore keeps, per progress source, a
 * ring of samples: for the coarse source only the *edges* (the time a new value was first seen,
 * which for a pollable sync_completed is the time the kernel moved it), for the fine source
 * (/proc/mdstat, dm-raid) one sample every few seconds. Speed is (newest - oldest)/(time) over
 * the samples of the last REBUILD_SPEED_WINDOW_USEC, widened to the previous sample when the
 * window holds only one, so two coarse edges minutes apart still give the exact rate. When a
 * fine observation is present it wins; the kernel's own sync_speed is only the fallback before
 * two samples exist.
 *
 * End of an operation: md shows "idle" both after a completed and an aborted operation, and the
 * final sync_completed value is usually gone ("none") by the time we read. In order, the tracker
 * believes: a member failure (interrupted), the caller's `completed` hint, a last progress of
 * 100%, a recovery after which fewer members are missing (completed), an extrapolation of the
 * last progress at the estimated speed (generous by 1.5x) reaching the end, and lastly the last
 * coarse step (>= 15/16 means completed). */

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "basic/format-util.h"
#include "basic/string-table.h"
#include "analysis/rebuild.h"

static const char *const rebuild_operation_table[_REBUILD_OP_MAX] = {
        [REBUILD_OP_IDLE] = "idle",         [REBUILD_OP_RESYNC] = "resync",
        [REBUILD_OP_RECOVERY] = "recovery", [REBUILD_OP_CHECK] = "check",
        [REBUILD_OP_REPAIR] = "repair",     [REBUILD_OP_RESHAPE] = "reshape",
        [REBUILD_OP_FROZEN] = "frozen",     [REBUILD_OP_REPLACE] = "replace",
};

static const char *const rebuild_event_type_table[_REBUILD_EVENT_TYPE_MAX] = {
        [REBUILD_EVENT_STARTED] = "started",   [REBUILD_EVENT_PROGRESS] = "progress",
        [REBUILD_EVENT_FINISHED] = "finished", [REBUILD_EVENT_INTERRUPTED] = "interrupted",
        [REBUILD_EVENT_RESUMED] = "resumed",   [REBUILD_EVENT_DELAYED] = "delayed",
};

static const char *const rebuild_severity_table[_REBUILD_SEVERITY_MAX] = {
        [REBUILD_SEVERITY_INFO] = "info",
        [REBUILD_SEVERITY_NOTICE] = "notice",
        [REBUILD_SEVERITY_WARNING] = "warning",
        [REBUILD_SEVERITY_ERROR] = "error",
};

static const char *const rebuild_reason_table[_REBUILD_REASON_MAX] = {
        [REBUILD_REASON_NONE] = "none",
        [REBUILD_REASON_ALREADY_RUNNING] = "already-running",
        [REBUILD_REASON_RESTARTED] = "restarted",
        [REBUILD_REASON_STOPPED] = "stopped",
        [REBUILD_REASON_FROZEN] = "frozen",
        [REBUILD_REASON_MEMBER_FAILED] = "member-failed",
        [REBUILD_REASON_REPLACED] = "replaced",
};

static const char *const rebuild_phase_table[_REBUILD_PHASE_MAX] = {
        [REBUILD_PHASE_IDLE] = "idle",
        [REBUILD_PHASE_DELAYED] = "delayed",
        [REBUILD_PHASE_RUNNING] = "running",
        [REBUILD_PHASE_INTERRUPTED] = "interrupted",
};

DEFINE_STRING_TABLE_LOOKUP(rebuild_operation, RebuildOperation, rebuild_operation_table)
DEFINE_STRING_TABLE_LOOKUP(rebuild_event_type, RebuildEventType, rebuild_event_type_table)
DEFINE_STRING_TABLE_LOOKUP(rebuild_severity, RebuildSeverity, rebuild_severity_table)
DEFINE_STRING_TABLE_LOOKUP(rebuild_reason, RebuildReason, rebuild_reason_table)
DEFINE_STRING_TABLE_LOOKUP(rebuild_phase, RebuildPhase, rebuild_phase_table)

int rebuild_severity_to_priority(RebuildSeverity s) {
        switch (s) {
        case REBUILD_SEVERITY_INFO:
                return LOG_INFO;
        case REBUILD_SEVERITY_NOTICE:
                return LOG_NOTICE;
        case REBUILD_SEVERITY_WARNING:
                return LOG_WARNING;
        case REBUILD_SEVERITY_ERROR:
                return LOG_ERR;
        case _REBUILD_SEVERITY_MAX:
        case _REBUILD_SEVERITY_INVALID:
                break;
        }
        return LOG_INFO;
}

void rebuild_observation_init(RebuildObservation *o) {
        *o = (RebuildObservation){
                .operation = REBUILD_OP_IDLE,
                .coarse_done_sectors = REBUILD_UNKNOWN,
                .coarse_total_sectors = REBUILD_UNKNOWN,
                .fine_done_sectors = REBUILD_UNKNOWN,
                .fine_total_sectors = REBUILD_UNKNOWN,
                .kernel_speed_bytes_per_sec = REBUILD_UNKNOWN,
                .degraded = REBUILD_UNKNOWN,
                .mismatch_count = REBUILD_UNKNOWN,
                .completed = -1,
        };
}

static void ring_reset(RebuildSampleRing *r) {
        r->n = r->first = 0;
        r->last_value = REBUILD_UNKNOWN;
        r->last_value_usec = 0;
}

static void ring_push(RebuildSampleRing *r, usec_t t, uint64_t done) {
        size_t i;

        if (r->n < REBUILD_SAMPLES_MAX)
                i = (r->first + r->n++) % REBUILD_SAMPLES_MAX;
        else {
                i = r->first;
                r->first = (r->first + 1) % REBUILD_SAMPLES_MAX;
        }
        r->s[i] = (RebuildSample){ .time_usec = t, .done_sectors = done };
}

static const RebuildSample *ring_get(const RebuildSampleRing *r, size_t k) {
        /* k = 0 is the oldest. */
        return &r->s[(r->first + k) % REBUILD_SAMPLES_MAX];
}

void rebuild_tracker_init(RebuildTracker *t) {
        *t = (RebuildTracker){
                .phase = REBUILD_PHASE_IDLE,
                .op = REBUILD_OP_IDLE,
                .kernel_speed_bytes_per_sec = REBUILD_UNKNOWN,
                .degraded = REBUILD_UNKNOWN,
                .degraded_at_start = REBUILD_UNKNOWN,
                .mismatch_count = REBUILD_UNKNOWN,
        };
        ring_reset(&t->coarse);
        ring_reset(&t->fine_ring);
}

static bool op_is_active(RebuildOperation o) {
        switch (o) {
        case REBUILD_OP_RESYNC:
        case REBUILD_OP_RECOVERY:
        case REBUILD_OP_CHECK:
        case REBUILD_OP_REPAIR:
        case REBUILD_OP_RESHAPE:
        case REBUILD_OP_REPLACE:
                return true;
        case REBUILD_OP_IDLE:
        case REBUILD_OP_FROZEN:
        case _REBUILD_OP_MAX:
        case _REBUILD_OP_INVALID:
                break;
        }
        return false;
}

/* A usable done/total pair: total known and non-zero, done known; done clamped to total. */
static bool pair_valid(uint64_t done, uint64_t total, uint64_t *ret_done) {
        if (total == 0 || total == REBUILD_UNKNOWN || done == REBUILD_UNKNOWN)
                return false;
        *ret_done = MIN(done, total);
        return true;
}

static usec_t usec_sub(usec_t a, usec_t b) {
        return a > b ? a - b : 0;
}

/* Speed in sectors/s from one ring; `latest` is the newest point to measure to. -1 if unknown. */
static double ring_speed(const RebuildSampleRing *r, usec_t latest_usec, uint64_t latest_done) {
        const RebuildSample *pick = NULL;

        for (size_t k = 0; k < r->n; k++) {
                const RebuildSample *s = ring_get(r, k);

                if (s->time_usec >= latest_usec)
                        break;
                if (latest_usec - s->time_usec <= REBUILD_SPEED_WINDOW_USEC) {
                        pick = s;
                        break;
                }
                pick = s; /* older than the window: keep the newest such as fallback */
        }
        if (!pick || pick->done_sectors > latest_done)
                return -1;
        return (double) (latest_done - pick->done_sectors) /
               ((double) (latest_usec - pick->time_usec) / USEC_PER_SEC);
}

/* Our speed estimate in sectors/s, the kernel's as fallback; -1 if unknown. */
static double tracker_speed(const RebuildTracker *t) {
        double v = -1;

        if (t->fine) {
                if (t->fine_ring.n > 0)
                        v = ring_speed(&t->fine_ring, t->done_usec, t->done_sectors);
        } else if (t->coarse.n > 0) {
                const RebuildSample *last = ring_get(&t->coarse, t->coarse.n - 1);
                v = ring_speed(&t->coarse, last->time_usec, last->done_sectors);
        }
        /* md's sync_speed reads 0 right after a start: not a measurement */
        if (v < 0 && t->kernel_speed_bytes_per_sec != REBUILD_UNKNOWN &&
            t->kernel_speed_bytes_per_sec > 0)
                v = (double) t->kernel_speed_bytes_per_sec / 512.0;
        return v;
}

static double tracker_progress(const RebuildTracker *t) {
        if (t->total_sectors == 0)
                return -1;
        return (double) MIN(t->done_sectors, t->total_sectors) / (double) t->total_sectors;
}

static double tracker_eta(const RebuildTracker *t, usec_t now, double speed) {
        double pos, remaining;

        if (t->total_sectors == 0 || speed <= 0)
                return -1;
        pos = (double) t->done_sectors +
              speed * ((double) usec_sub(now, t->done_usec) / USEC_PER_SEC);
        pos = CLAMP(pos, (double) t->done_sectors, (double) t->total_sectors);
        remaining = (double) t->total_sectors - pos;
        return remaining / speed;
}

typedef struct Emitter {
        RebuildEvent ev[REBUILD_EVENTS_MAX];
        size_t n;
} Emitter;

static RebuildSeverity severity_for(RebuildEventType type, RebuildOperation op,
                                    RebuildReason reason, uint64_t mismatches) {
        bool mism = mismatches != REBUILD_UNKNOWN && mismatches > 0;

        if (reason == REBUILD_REASON_MEMBER_FAILED)
                return REBUILD_SEVERITY_ERROR;

        switch (type) {
        case REBUILD_EVENT_STARTED:
                switch (op) {
                case REBUILD_OP_RECOVERY:
                        return REBUILD_SEVERITY_WARNING;
                case REBUILD_OP_CHECK:
                        return REBUILD_SEVERITY_INFO;
                case REBUILD_OP_REPLACE: /* planned, redundancy kept */
                case REBUILD_OP_RESYNC:
                case REBUILD_OP_REPAIR:
                case REBUILD_OP_RESHAPE:
                case REBUILD_OP_IDLE:
                case REBUILD_OP_FROZEN:
                case _REBUILD_OP_MAX:
                case _REBUILD_OP_INVALID:
                        return REBUILD_SEVERITY_NOTICE;
                }
                break;
        case REBUILD_EVENT_FINISHED:
                switch (op) {
                case REBUILD_OP_CHECK:
                        return mism ? REBUILD_SEVERITY_WARNING : REBUILD_SEVERITY_INFO;
                case REBUILD_OP_REPAIR:
                        return mism ? REBUILD_SEVERITY_NOTICE : REBUILD_SEVERITY_INFO;
                case REBUILD_OP_RECOVERY:
                case REBUILD_OP_RESHAPE:
                        return REBUILD_SEVERITY_NOTICE;
                case REBUILD_OP_REPLACE: /* the disk swap the admin asked for is done */
                case REBUILD_OP_RESYNC:
                case REBUILD_OP_IDLE:
                case REBUILD_OP_FROZEN:
                case _REBUILD_OP_MAX:
                case _REBUILD_OP_INVALID:
                        return REBUILD_SEVERITY_INFO;
                }
                break;
        case REBUILD_EVENT_INTERRUPTED:
                switch (op) {
                case REBUILD_OP_RECOVERY:
                        return REBUILD_SEVERITY_ERROR;
                case REBUILD_OP_RESYNC:
                case REBUILD_OP_RESHAPE:
                case REBUILD_OP_REPLACE: /* the old disk still serves */
                        return REBUILD_SEVERITY_WARNING;
                case REBUILD_OP_REPAIR:
                        return REBUILD_SEVERITY_NOTICE;
                case REBUILD_OP_CHECK: /* mdcheck stops checks with "idle" on purpose */
                case REBUILD_OP_IDLE:
                case REBUILD_OP_FROZEN:
                case _REBUILD_OP_MAX:
                case _REBUILD_OP_INVALID:
                        return REBUILD_SEVERITY_INFO;
                }
                break;
        case REBUILD_EVENT_RESUMED:
                return op == REBUILD_OP_RECOVERY ? REBUILD_SEVERITY_NOTICE : REBUILD_SEVERITY_INFO;
        case REBUILD_EVENT_PROGRESS:
        case REBUILD_EVENT_DELAYED:
        case _REBUILD_EVENT_TYPE_MAX:
        case _REBUILD_EVENT_TYPE_INVALID:
                break;
        }
        return REBUILD_SEVERITY_INFO;
}

static RebuildEvent *emit(Emitter *e, const RebuildTracker *t, usec_t now, RebuildEventType type,
                          RebuildReason reason) {
        RebuildEvent *ev;
        double p, speed;

        if (e->n >= ELEMENTSOF(e->ev)) /* cannot happen: bounded by construction */
                return NULL;
        ev = &e->ev[e->n++];
        p = tracker_progress(t);
        speed = tracker_speed(t);
        *ev = (RebuildEvent){
                .type = type,
                .operation = t->op,
                .reason = reason,
                .time_usec = now,
                .progress = p,
                .percent = p >= 0 ? (unsigned) (p * 100.0) : 0,
                .speed_bytes_per_sec = speed >= 0 ? speed * 512.0 : -1,
                .eta_sec = tracker_eta(t, now, speed),
                .duration_usec = USEC_INFINITY,
                .mismatch_count = REBUILD_UNKNOWN,
        };
        ev->severity = severity_for(type, t->op, reason, REBUILD_UNKNOWN);
        return ev;
}

/* Update the progress of the running operation from o. */
static void take_progress(RebuildTracker *t, usec_t now, const RebuildObservation *o) {
        uint64_t cd, fd;
        bool have_c = pair_valid(o->coarse_done_sectors, o->coarse_total_sectors, &cd);
        bool have_f = pair_valid(o->fine_done_sectors, o->fine_total_sectors, &fd);

        if (have_c) {
                RebuildSampleRing *r = &t->coarse;

                if (r->last_value != REBUILD_UNKNOWN && cd < r->last_value)
                        ring_reset(r); /* went backwards: restart or garbage */
                if (r->last_value == REBUILD_UNKNOWN) {
                        if (t->first_coarse_is_edge)
                                ring_push(r, now, cd);
                        r->last_value = cd;
                        r->last_value_usec = now;
                } else if (cd != r->last_value) {
                        ring_push(r, now, cd); /* an edge: the kernel moved it about now */
                        r->last_value = cd;
                        r->last_value_usec = now;
                }
                t->first_coarse_is_edge = false;
        }

        if (have_f) {
                RebuildSampleRing *r = &t->fine_ring;

                if (r->last_value != REBUILD_UNKNOWN && fd < r->last_value)
                        ring_reset(r);
                if (r->n == 0 || usec_sub(now, ring_get(r, r->n - 1)->time_usec) >=
                                         REBUILD_SPEED_WINDOW_USEC / REBUILD_SAMPLES_MAX)
                        ring_push(r, now, fd);
                r->last_value = fd;
                r->last_value_usec = now;

                t->fine = true;
                t->done_sectors = fd;
                t->total_sectors = o->fine_total_sectors;
                t->done_usec = now;
        } else if (have_c) {
                t->fine = false;
                t->done_sectors = cd;
                t->total_sectors = o->coarse_total_sectors;
                t->done_usec = t->coarse.last_value_usec;
        }
}

/* Emit PROGRESS for every 10% mark passed and not yet emitted, in order. */
static void emit_marks(Emitter *e, RebuildTracker *t, usec_t now, bool suppress) {
        if (t->total_sectors == 0)
                return;
        for (unsigned m = 1; m <= 9; m++) {
                unsigned __int128 lhs =
                        (unsigned __int128) MIN(t->done_sectors, t->total_sectors) * 10;
                unsigned __int128 rhs = (unsigned __int128) t->total_sectors * m;
                RebuildEvent *ev;

                if (lhs < rhs)
                        break;
                if (t->marks & (1U << m))
                        continue;
                t->marks |= 1U << m;
                if (suppress)
                        continue;
                ev = emit(e, t, now, REBUILD_EVENT_PROGRESS, REBUILD_REASON_NONE);
                if (ev)
                        ev->percent = m * 10;
        }
}

static void start_op(Emitter *e, RebuildTracker *t, usec_t now, const RebuildObservation *o,
                     bool observed_start, RebuildReason reason) {
        t->op = o->operation;
        t->marks = 0;
        t->delayed_reported = false;
        t->done_sectors = t->total_sectors = 0;
        t->done_usec = now;
        t->fine = false;
        t->interrupted_done_sectors = 0;
        t->interrupted_saw_other = false;
        ring_reset(&t->coarse);
        ring_reset(&t->fine_ring);
        t->degraded_at_start = o->degraded != REBUILD_UNKNOWN ? o->degraded : t->degraded;

        if (o->delayed) {
                t->phase = REBUILD_PHASE_DELAYED;
                t->delayed_reported = true;
                (void) emit(e, t, now, REBUILD_EVENT_DELAYED, REBUILD_REASON_NONE);
                return;
        }

        t->phase = REBUILD_PHASE_RUNNING;
        t->start_usec = now;
        t->joined = !observed_start;
        /* The first coarse value is a fresh edge only if we saw the operation begin just now. */
        t->first_coarse_is_edge = observed_start && t->seen &&
                                  usec_sub(now, t->last_usec) <= REBUILD_SPEED_WINDOW_USEC / 4;
        take_progress(t, now, o);
        emit_marks(e, t, now, /* suppress= */ true);
        (void) emit(e, t, now, REBUILD_EVENT_STARTED,
                    t->joined ? REBUILD_REASON_ALREADY_RUNNING : reason);
}

static bool ended_complete(const RebuildTracker *t, usec_t now, const RebuildObservation *o) {
        double speed;

        if (o->completed >= 0)
                return o->completed > 0;
        if (t->total_sectors > 0 && t->done_sectors >= t->total_sectors)
                return true;
        if (t->op == REBUILD_OP_RECOVERY && o->degraded != REBUILD_UNKNOWN &&
            t->degraded_at_start != REBUILD_UNKNOWN && o->degraded < t->degraded_at_start)
                return true;
        if (t->total_sectors == 0)
                return false;
        speed = tracker_speed(t);
        if (speed > 0) {
                double reach = (double) t->done_sectors +
                               1.5 * speed * ((double) usec_sub(now, t->done_usec) / USEC_PER_SEC);
                return reach >= (double) t->total_sectors;
        }
        return (unsigned __int128) t->done_sectors * 16 >=
               (unsigned __int128) t->total_sectors * 15;
}

/* End the running operation: FINISHED or INTERRUPTED. Afterwards the phase is IDLE (finished)
 * or INTERRUPTED. */
static void end_op(Emitter *e, RebuildTracker *t, usec_t now, const RebuildObservation *o,
                   RebuildReason why_interrupted, bool failure) {
        bool complete = !failure && ended_complete(t, now, o);
        RebuildReason reason = failure ? REBUILD_REASON_MEMBER_FAILED : why_interrupted;
        uint64_t mism =
                o->mismatch_count != REBUILD_UNKNOWN ? o->mismatch_count : t->mismatch_count;
        RebuildEvent *ev;

        if (complete) {
                /* report 100% */
                if (t->total_sectors > 0)
                        t->done_sectors = t->total_sectors;
                else
                        t->done_sectors = t->total_sectors = 1;
                ev = emit(e, t, now, REBUILD_EVENT_FINISHED, REBUILD_REASON_NONE);
        } else
                ev = emit(e, t, now, REBUILD_EVENT_INTERRUPTED, reason);
        if (ev) {
                if (complete) {
                        ev->speed_bytes_per_sec = -1;
                        ev->eta_sec = 0;
                } else
                        ev->eta_sec = -1;
                if (!t->joined)
                        ev->duration_usec = usec_sub(now, t->start_usec);
                if (t->op == REBUILD_OP_CHECK || t->op == REBUILD_OP_REPAIR)
                        ev->mismatch_count = mism;
                ev->severity = severity_for(ev->type, t->op, ev->reason, ev->mismatch_count);
        }

        if (complete)
                t->phase = REBUILD_PHASE_IDLE;
        else {
                t->phase = REBUILD_PHASE_INTERRUPTED;
                t->interrupted_done_sectors = t->done_sectors;
                t->interrupted_saw_other = false;
        }
}

static void resume_op(Emitter *e, RebuildTracker *t, usec_t now, const RebuildObservation *o) {
        t->phase = REBUILD_PHASE_RUNNING;
        ring_reset(&t->coarse);
        ring_reset(&t->fine_ring);
        t->first_coarse_is_edge = false;
        take_progress(t, now, o);
        emit_marks(e, t, now, /* suppress= */ true);
        (void) emit(e, t, now, REBUILD_EVENT_RESUMED, REBUILD_REASON_NONE);
}

/* Same operation still running: did its progress go back (a restart we did not see)? */
static bool went_back(const RebuildTracker *t, const RebuildObservation *o) {
        uint64_t d;

        if (pair_valid(o->fine_done_sectors, o->fine_total_sectors, &d))
                return t->fine_ring.last_value != REBUILD_UNKNOWN &&
                       d + o->fine_total_sectors / 100 < t->fine_ring.last_value;
        if (pair_valid(o->coarse_done_sectors, o->coarse_total_sectors, &d))
                return t->coarse.last_value != REBUILD_UNKNOWN &&
                       d + o->coarse_total_sectors / 100 < t->coarse.last_value;
        return false;
}

/* RUNNING: progress, an end (finished, interrupted, a member failed), or another operation. */
static void observe_running(Emitter *e, RebuildTracker *t, usec_t now, const RebuildObservation *o,
                            bool active, bool failure) {
        if (failure) {
                /* Record where it was when the member failed, for a later RESUMED. */
                if (active && o->operation == t->op && !o->delayed && !went_back(t, o))
                        take_progress(t, now, o);
                end_op(e, t, now, o, REBUILD_REASON_MEMBER_FAILED, true);
                if (active && o->operation != t->op)
                        start_op(e, t, now, o, true, REBUILD_REASON_NONE);
                else if (!active)
                        t->interrupted_saw_other = true;
                return;
        }
        if (active && o->operation == t->op) {
                if (o->delayed)
                        return; /* yielding to another array for a moment */
                if (went_back(t, o)) {
                        end_op(e, t, now, o, REBUILD_REASON_STOPPED, false);
                        start_op(e, t, now, o, true, REBUILD_REASON_RESTARTED);
                        return;
                }
                take_progress(t, now, o);
                emit_marks(e, t, now, /* suppress= */ false);
                return;
        }
        if (active) {
                end_op(e, t, now, o, REBUILD_REASON_REPLACED, false);
                start_op(e, t, now, o, true, REBUILD_REASON_NONE);
                return;
        }
        end_op(e, t, now, o,
               o->operation == REBUILD_OP_FROZEN ? REBUILD_REASON_FROZEN : REBUILD_REASON_STOPPED,
               false);
        t->interrupted_saw_other = true;
}

/* INTERRUPTED: resumed where it stopped, restarted from the beginning, or another operation. */
static void observe_interrupted(Emitter *e, RebuildTracker *t, usec_t now,
                                const RebuildObservation *o, bool active) {
        uint64_t d;

        if (active && o->operation == t->op) {
                if (o->delayed) {
                        if (!t->delayed_reported) {
                                t->delayed_reported = true;
                                (void) emit(e, t, now, REBUILD_EVENT_DELAYED, REBUILD_REASON_NONE);
                        }
                        t->interrupted_saw_other = true;
                        return;
                }
                if (pair_valid(o->fine_done_sectors, o->fine_total_sectors, &d) ||
                    pair_valid(o->coarse_done_sectors, o->coarse_total_sectors, &d)) {
                        if (d < t->interrupted_done_sectors || d == 0) {
                                start_op(e, t, now, o, true, REBUILD_REASON_RESTARTED);
                                return;
                        }
                        if (t->interrupted_saw_other || d > t->interrupted_done_sectors)
                                resume_op(e, t, now, o);
                } else if (t->interrupted_saw_other)
                        resume_op(e, t, now, o);
                return;
        }
        t->interrupted_saw_other = true;
        if (active)
                start_op(e, t, now, o, true, REBUILD_REASON_NONE);
}

/* DELAYED: it runs at last, another operation came, or it was cancelled before it ran. */
static void observe_delayed(Emitter *e, RebuildTracker *t, usec_t now, const RebuildObservation *o,
                            bool active) {
        if (active && o->operation == t->op) {
                if (!o->delayed) {
                        bool reported = t->delayed_reported;

                        start_op(e, t, now, o, true, REBUILD_REASON_NONE);
                        t->delayed_reported = reported;
                }
                return;
        }
        if (active) {
                start_op(e, t, now, o, true, REBUILD_REASON_NONE);
                return;
        }
        t->phase = REBUILD_PHASE_IDLE; /* cancelled before it ran */
}

static void observe(Emitter *e, RebuildTracker *t, usec_t now, const RebuildObservation *o) {
        bool active = op_is_active(o->operation);
        bool failure = t->seen && ((o->member_failed && !t->member_failed) ||
                                   (o->degraded != REBUILD_UNKNOWN &&
                                    t->degraded != REBUILD_UNKNOWN && o->degraded > t->degraded));

        switch (t->phase) {
        case REBUILD_PHASE_RUNNING:
                observe_running(e, t, now, o, active, failure);
                return;
        case REBUILD_PHASE_INTERRUPTED:
                observe_interrupted(e, t, now, o, active);
                return;
        case REBUILD_PHASE_DELAYED:
                observe_delayed(e, t, now, o, active);
                return;
        case REBUILD_PHASE_IDLE:
                if (active)
                        start_op(e, t, now, o, t->seen, REBUILD_REASON_NONE);
                return;

        case _REBUILD_PHASE_MAX:
        case _REBUILD_PHASE_INVALID:
                break;
        }
        /* Corrupt phase (not reachable through this API): start over. */
        t->phase = REBUILD_PHASE_IDLE;
}

int rebuild_tracker_feed(RebuildTracker *t, usec_t now, const RebuildObservation *o,
                         RebuildEvent *ret_events, size_t n_events) {
        RebuildTracker s;
        Emitter e = {};

        if (!t || !o || (!ret_events && n_events > 0))
                return -EINVAL;
        if ((int) o->operation < 0 || o->operation >= _REBUILD_OP_MAX)
                return -EINVAL;

        s = *t;
        if (s.seen && now < s.last_usec) {
                /* Time went backwards: forget the speed history, keep the state. */
                ring_reset(&s.coarse);
                ring_reset(&s.fine_ring);
                s.done_usec = now;
                if (s.start_usec > now)
                        s.start_usec = now;
        }

        if (o->kernel_speed_bytes_per_sec != REBUILD_UNKNOWN || !op_is_active(o->operation))
                s.kernel_speed_bytes_per_sec = o->kernel_speed_bytes_per_sec;

        observe(&e, &s, now, o);

        if (o->degraded != REBUILD_UNKNOWN)
                s.degraded = o->degraded;
        s.member_failed = o->member_failed;
        if (o->mismatch_count != REBUILD_UNKNOWN)
                s.mismatch_count = o->mismatch_count;
        s.seen = true;
        s.last_usec = now;

        if (e.n > n_events)
                return -ENOBUFS;
        if (e.n > 0)
                memcpy(ret_events, e.ev, e.n * sizeof(e.ev[0]));
        *t = s;
        return (int) e.n;
}

void rebuild_tracker_get_status(const RebuildTracker *t, usec_t now, RebuildStatus *ret) {
        double speed;

        *ret = (RebuildStatus){
                .phase = t->phase,
                .operation = t->phase == REBUILD_PHASE_IDLE ? REBUILD_OP_IDLE : t->op,
                .start_usec = USEC_INFINITY,
                .progress = -1,
                .speed_bytes_per_sec = -1,
                .eta_sec = -1,
                .mismatch_count = t->mismatch_count,
        };
        if (t->phase == REBUILD_PHASE_IDLE || t->phase == REBUILD_PHASE_DELAYED)
                return;
        if (!t->joined)
                ret->start_usec = t->start_usec;
        ret->progress = tracker_progress(t);
        if (t->phase != REBUILD_PHASE_RUNNING)
                return;
        speed = tracker_speed(t);
        ret->speed_bytes_per_sec = speed >= 0 ? speed * 512.0 : -1;
        ret->eta_sec = tracker_eta(t, now, speed);
}

char *rebuild_event_format(const RebuildEvent *e, char *buf, size_t size) {
        const char *op = rebuild_operation_to_string(e->operation) ?: "operation";
        char dur[32], eta[32], speed[32] = "";
        size_t n;

        if (!buf || size == 0)
                return buf;
        format_duration(
                dur, sizeof(dur),
                e->duration_usec == USEC_INFINITY ? -1 : (double) e->duration_usec / USEC_PER_SEC,
                false);
        format_duration(eta, sizeof(eta), e->eta_sec, false);
        if (e->speed_bytes_per_sec >= 1024.0 * 1024.0)
                snprintf(speed, sizeof(speed), ", %.1f MiB/s",
                         e->speed_bytes_per_sec / (1024.0 * 1024.0));
        else if (e->speed_bytes_per_sec >= 0)
                snprintf(speed, sizeof(speed), ", %.1f KiB/s", e->speed_bytes_per_sec / 1024.0);

        switch (e->type) {
        case REBUILD_EVENT_STARTED:
                if (e->reason == REBUILD_REASON_ALREADY_RUNNING)
                        snprintf(buf, size, "%s in progress, %u%% done%s", op, e->percent, speed);
                else
                        snprintf(buf, size, "%s %s", op,
                                 e->reason == REBUILD_REASON_RESTARTED ? "restarted" : "started");
                break;
        case REBUILD_EVENT_PROGRESS:
                snprintf(buf, size, "%s %u%% done%s, ETA %s", op, e->percent, speed, eta);
                break;
        case REBUILD_EVENT_FINISHED:
                snprintf(buf, size, "%s finished after %s", op, dur);
                break;
        case REBUILD_EVENT_INTERRUPTED:
                snprintf(buf, size, "%s interrupted (%s) at %u%% after %s", op,
                         rebuild_reason_to_string(e->reason) ?: "unknown", e->percent, dur);
                break;
        case REBUILD_EVENT_RESUMED:
                snprintf(buf, size, "%s resumed at %u%%", op, e->percent);
                break;
        case REBUILD_EVENT_DELAYED:
                snprintf(buf, size, "%s delayed (queued behind another array)", op);
                break;
        case _REBUILD_EVENT_TYPE_MAX:
        case _REBUILD_EVENT_TYPE_INVALID:
                snprintf(buf, size, "%s: unknown event", op);
                break;
        }
        n = strlen(buf);
        if (e->mismatch_count != REBUILD_UNKNOWN && n + 1 < size)
                snprintf(buf + n, size - n, ", %" PRIu64 " mismatch%s", e->mismatch_count,
                         e->mismatch_count == 1 ? "" : "es");
        return buf;
}

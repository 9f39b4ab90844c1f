/* SPDX-License-Identifier: MIT */
/* Rebuild tracker: table-driven sequences of observations with synthetic timestamps, each step
 * with the exact events it must produce, plus speed/ETA accuracy against a known true rate and
 * garbage input. Event strings read "type:operation:severity[:reason][@mark][=mismatches]". */

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "analysis/rebuild.h"
#include "model/md-progress.h"
#include "tap.h"

#define U  (-1) /* unknown */
#define NA (-2) /* "completed" hint not given */

typedef struct Step {
        double t; /* seconds */
        RebuildOperation op;
        bool delayed;
        int64_t cdone, ctotal; /* coarse (sync_completed), U = unknown */
        int64_t fdone, ftotal; /* fine (mdstat / dm ratio), U = unknown */
        int64_t degraded;
        int64_t mismatch;
        bool failed;
        int completed; /* NA = -1 */
        const char *expect;
} Step;

typedef struct Scenario {
        const char *name;
        Step steps[24];
} Scenario;

#define IDLE     REBUILD_OP_IDLE
#define RESYNC   REBUILD_OP_RESYNC
#define RECOVERY REBUILD_OP_RECOVERY
#define CHECK    REBUILD_OP_CHECK
#define REPAIR   REBUILD_OP_REPAIR
#define RESHAPE  REBUILD_OP_RESHAPE
#define FROZEN   REBUILD_OP_FROZEN

/* Steps: t, op, delayed, cdone, ctotal, fdone, ftotal, degraded, mismatch, failed, completed. */
#define C(t, op, d, tot, deg, exp)                                                                 \
        { t, op, false, d, tot, U, U, deg, U, false, NA, exp }
#define F(t, op, d, tot, deg, exp)                                                                 \
        { t, op, false, U, U, d, tot, deg, U, false, NA, exp }
#define I(t, deg, mism, comp, exp)                                                                 \
        { t, IDLE, false, U, U, U, U, deg, mism, false, comp, exp }
#define END                                                                                        \
        { -1 }

static const Scenario scenarios[] = {
        { "full resync, coarse steps, completed hint",
          { I(0, 0, 0, NA, ""), C(1, RESYNC, 0, 1600, 0, "started:resync:notice"),
            C(11, RESYNC, 100, 1600, 0, ""), C(21, RESYNC, 200, 1600, 0, "progress:resync:info@10"),
            C(31, RESYNC, 300, 1600, 0, ""), C(41, RESYNC, 400, 1600, 0, "progress:resync:info@20"),
            C(91, RESYNC, 900, 1600, 0,
              "progress:resync:info@30 progress:resync:info@40 progress:resync:info@50"),
            C(151, RESYNC, 1500, 1600, 0,
              "progress:resync:info@60 progress:resync:info@70 progress:resync:info@80 "
              "progress:resync:info@90"),
            I(152, 0, 0, 1, "finished:resync:info"), I(200, 0, 0, NA, ""), END } },
        { "check aborted by idle",
          { I(0, 0, 0, NA, ""), F(1, CHECK, 0, 1000, 0, "started:check:info"),
            F(2, CHECK, 10, 1000, 0, ""),
            F(30, CHECK, 290, 1000, 0, "progress:check:info@10 progress:check:info@20"),
            I(31, 0, 0, NA, "interrupted:check:info:stopped=0"), I(40, 0, 0, NA, ""), END } },
        { "check finishing clean",
          { I(0, 0, 0, NA, ""), F(1, CHECK, 0, 1000, 0, "started:check:info"),
            F(50, CHECK, 490, 1000, 0,
              "progress:check:info@10 progress:check:info@20 progress:check:info@30 "
              "progress:check:info@40"),
            F(100, CHECK, 990, 1000, 0,
              "progress:check:info@50 progress:check:info@60 progress:check:info@70 "
              "progress:check:info@80 progress:check:info@90"),
            I(101, 0, 0, NA, "finished:check:info=0"), END } },
        { "check finishing with mismatches",
          { I(0, 0, 0, NA, ""), F(1, CHECK, 0, 1000, 0, "started:check:info"),
            F(50, CHECK, 1000, 1000, 0,
              "progress:check:info@10 progress:check:info@20 progress:check:info@30 "
              "progress:check:info@40 progress:check:info@50 progress:check:info@60 "
              "progress:check:info@70 progress:check:info@80 progress:check:info@90"),
            I(51, 0, 128, NA, "finished:check:warning=128"), END } },
        { "repair finishing with mismatches is a notice",
          { I(0, 0, 0, NA, ""), F(1, REPAIR, 0, 100, 0, "started:repair:notice"),
            F(9, REPAIR, 100, 100, 0,
              "progress:repair:info@10 progress:repair:info@20 progress:repair:info@30 "
              "progress:repair:info@40 progress:repair:info@50 progress:repair:info@60 "
              "progress:repair:info@70 progress:repair:info@80 progress:repair:info@90"),
            I(10, 0, 8, NA, "finished:repair:notice=8"), END } },
        { "member failed mid-recovery",
          { I(0, 1, 0, NA, ""),
            F(1, RECOVERY, 0, 1000, 1, "started:recovery:warning"),
            F(20, RECOVERY, 150, 1000, 1, "progress:recovery:info@10"),
            { 21, RECOVERY, false, U, U, 160, 1000, 2, U, true, NA,
              "interrupted:recovery:error:member-failed" },
            I(22, 2, 0, NA, ""),
            END } },
        { "member failed, recovery carries on and resumes",
          { I(0, 1, 0, NA, ""),
            F(1, RECOVERY, 0, 1000, 1, "started:recovery:warning"),
            { 5, RECOVERY, false, U, U, 40, 1000, 2, U, true, NA,
              "interrupted:recovery:error:member-failed" },
            { 6, RECOVERY, false, U, U, 40, 1000, 2, U, true, NA, "" },
            { 7, RECOVERY, false, U, U, 50, 1000, 2, U, true, NA, "resumed:recovery:notice" },
            { 15, RECOVERY, false, U, U, 120, 1000, 2, U, true, NA, "progress:recovery:info@10" },
            END } },
        { "recovery finishing: degraded drops although the last step was 50%",
          { I(0, 1, 0, NA, ""), C(1, RECOVERY, 0, 1600, 1, "started:recovery:warning"),
            C(10, RECOVERY, 800, 1600, 1,
              "progress:recovery:info@10 progress:recovery:info@20 progress:recovery:info@30 "
              "progress:recovery:info@40 progress:recovery:info@50"),
            I(11, 0, 0, NA, "finished:recovery:notice"), END } },
        { "reshape",
          { I(0, 0, 0, NA, ""), F(1, RESHAPE, 0, 500, 0, "started:reshape:notice"),
            F(30, RESHAPE, 250, 500, 0,
              "progress:reshape:info@10 progress:reshape:info@20 progress:reshape:info@30 "
              "progress:reshape:info@40 progress:reshape:info@50"),
            F(59, RESHAPE, 500, 500, 0,
              "progress:reshape:info@60 progress:reshape:info@70 progress:reshape:info@80 "
              "progress:reshape:info@90"),
            I(60, 0, 0, NA, "finished:reshape:notice"), END } },
        { "delayed, then starts",
          { I(0, 0, 0, NA, ""),
            { 1, CHECK, true, U, U, U, U, 0, 0, false, NA, "delayed:check:info" },
            { 2, CHECK, true, U, U, U, U, 0, 0, false, NA, "" },
            F(30, CHECK, 0, 1000, 0, "started:check:info"),
            F(40, CHECK, 110, 1000, 0, "progress:check:info@10"),
            END } },
        { "delayed, then cancelled",
          { I(0, 0, 0, NA, ""),
            { 1, RESYNC, true, U, U, U, U, 0, 0, false, NA, "delayed:resync:info" },
            I(2, 0, 0, NA, ""),
            C(3, RESYNC, 0, 100, 0, "started:resync:notice"),
            END } },
        { "frozen recovery, then resumed",
          { I(0, 1, 0, NA, ""),
            F(1, RECOVERY, 0, 1000, 1, "started:recovery:warning"),
            F(30, RECOVERY, 300, 1000, 1,
              "progress:recovery:info@10 progress:recovery:info@20 progress:recovery:info@30"),
            { 31, FROZEN, false, U, U, U, U, 1, U, false, NA, "interrupted:recovery:error:frozen" },
            { 40, FROZEN, false, U, U, U, U, 1, U, false, NA, "" },
            F(41, RECOVERY, 300, 1000, 1, "resumed:recovery:notice"),
            F(60, RECOVERY, 410, 1000, 1, "progress:recovery:info@40"),
            END } },
        { "idle to frozen and back is nothing",
          { I(0, 0, 0, NA, ""),
            { 1, FROZEN, false, U, U, U, U, 0, U, false, NA, "" },
            I(2, 0, 0, NA, ""),
            END } },
        { "progress marks once each across jumps and wobbles",
          { I(0, 0, 0, NA, ""), F(1, CHECK, 50, 1000, 0, "started:check:info"),
            F(10, CHECK, 470, 1000, 0,
              "progress:check:info@10 progress:check:info@20 progress:check:info@30 "
              "progress:check:info@40"),
            F(11, CHECK, 470, 1000, 0, ""),
            F(12, CHECK, 465, 1000, 0, ""), /* small step back (< 1%): no restart, no repeat */
            F(13, CHECK, 500, 1000, 0, "progress:check:info@50"),
            F(14, CHECK, 999, 1000, 0,
              "progress:check:info@60 progress:check:info@70 progress:check:info@80 "
              "progress:check:info@90"),
            F(15, CHECK, 1000, 1000, 0, ""), END } },
        { "a new operation right after one ends",
          { I(0, 0, 0, NA, ""), F(1, RESYNC, 0, 100, 0, "started:resync:notice"),
            F(10, RESYNC, 100, 100, 0,
              "progress:resync:info@10 progress:resync:info@20 progress:resync:info@30 "
              "progress:resync:info@40 progress:resync:info@50 progress:resync:info@60 "
              "progress:resync:info@70 progress:resync:info@80 progress:resync:info@90"),
            F(11, CHECK, 0, 100, 0, "finished:resync:info started:check:info"),
            F(12, CHECK, 20, 100, 0, "progress:check:info@10 progress:check:info@20"),
            F(13, RECOVERY, 0, 100, 0,
              "interrupted:check:info:replaced=0 started:recovery:warning"),
            END } },
        { "first seen mid-way: no back-filled marks",
          { F(0, RECOVERY, 430, 1000, 1, "started:recovery:warning:already-running"),
            F(10, RECOVERY, 480, 1000, 1, ""),
            F(20, RECOVERY, 520, 1000, 1, "progress:recovery:info@50"), END } },
        { "interrupted check resumed later from its checkpoint (mdcheck)",
          { I(0, 0, 0, NA, ""), F(1, CHECK, 0, 1000, 0, "started:check:info"),
            F(40, CHECK, 400, 1000, 0,
              "progress:check:info@10 progress:check:info@20 progress:check:info@30 "
              "progress:check:info@40"),
            I(41, 0, 0, NA, "interrupted:check:info:stopped=0"), I(86400, 0, 0, NA, ""),
            F(86401, CHECK, 400, 1000, 0, "resumed:check:info"),
            F(86420, CHECK, 600, 1000, 0, "progress:check:info@50 progress:check:info@60"), END } },
        { "interrupted check started again from zero",
          { I(0, 0, 0, NA, ""), F(1, CHECK, 0, 1000, 0, "started:check:info"),
            F(30, CHECK, 300, 1000, 0,
              "progress:check:info@10 progress:check:info@20 progress:check:info@30"),
            I(31, 0, 0, NA, "interrupted:check:info:stopped=0"),
            F(50, CHECK, 0, 1000, 0, "started:check:info:restarted"),
            F(60, CHECK, 100, 1000, 0, "progress:check:info@10"), END } },
        { "unseen restart while running (progress went back)",
          { I(0, 0, 0, NA, ""), F(1, CHECK, 0, 1000, 0, "started:check:info"),
            F(30, CHECK, 300, 1000, 0,
              "progress:check:info@10 progress:check:info@20 progress:check:info@30"),
            F(31, CHECK, 5, 1000, 0,
              "interrupted:check:info:stopped=0 started:check:info:restarted"),
            F(50, CHECK, 100, 1000, 0, "progress:check:info@10"), END } },
        { "resync not completed per hint",
          { I(0, 0, 0, NA, ""), C(1, RESYNC, 0, 1600, 0, "started:resync:notice"),
            C(20, RESYNC, 1600, 1600, 0,
              "progress:resync:info@10 progress:resync:info@20 progress:resync:info@30 "
              "progress:resync:info@40 progress:resync:info@50 progress:resync:info@60 "
              "progress:resync:info@70 progress:resync:info@80 progress:resync:info@90"),
            I(21, 0, 0, 0, "interrupted:resync:warning:stopped"), END } },
        { "coarse only, no speed, last step 15/16: finished",
          { C(0, CHECK, 1500, 1600, 0, "started:check:info:already-running"),
            I(1, 0, 0, NA, "finished:check:info=0"), END } },
        { "coarse only, no speed, last step 8/16: interrupted",
          { C(0, CHECK, 800, 1600, 0, "started:check:info:already-running"),
            I(1, 0, 0, NA, "interrupted:check:info:stopped=0"), END } },
        { "check ends long after the last coarse step at its speed: finished",
          { I(0, 0, 0, NA, ""), C(1, CHECK, 0, 1600, 0, "started:check:info"),
            C(101, CHECK, 100, 1600, 0, ""), C(201, CHECK, 200, 1600, 0, "progress:check:info@10"),
            I(1601, 0, 0, NA, "finished:check:info=0"), END } },
        { "garbage: done > total, total 0, unknowns",
          { I(0, 0, 0, NA, ""),
            C(1, CHECK, 5000, 100, 0,
              "started:check:info"), /* clamped to 100%: marks suppressed at start */
            C(2, CHECK, 5, 0, 0, ""),
            { 3, CHECK, false, U, U, U, U, U, U, false, NA, "" },
            F(4, CHECK, U, 100, 0, ""),
            I(5, 0, 0, NA, "finished:check:info=0"),
            END } },
        { "time going backwards",
          { I(100, 0, 0, NA, ""), F(101, RECOVERY, 0, 1000, 1, "started:recovery:warning"),
            F(50, RECOVERY, 200, 1000, 1, "progress:recovery:info@10 progress:recovery:info@20"),
            F(60, RECOVERY, 300, 1000, 1, "progress:recovery:info@30"),
            I(0, 0, 0, NA, "finished:recovery:notice"), END } },
};

static void obs_from_step(const Step *s, RebuildObservation *o) {
        rebuild_observation_init(o);
        o->operation = s->op;
        o->delayed = s->delayed;
#define SET(field, v)                                                                              \
        if ((v) >= 0)                                                                              \
                o->field = (uint64_t) (v);
        SET(coarse_done_sectors, s->cdone);
        SET(coarse_total_sectors, s->ctotal);
        SET(fine_done_sectors, s->fdone);
        SET(fine_total_sectors, s->ftotal);
        SET(degraded, s->degraded);
        SET(mismatch_count, s->mismatch);
#undef SET
        o->member_failed = s->failed;
        o->completed = s->completed == NA ? -1 : s->completed;
}

static void events_to_string(const RebuildEvent *ev, int n, char *buf, size_t size) {
        size_t len = 0;

        buf[0] = 0;
        for (int i = 0; i < n; i++) {
                len += (size_t) snprintf(buf + len, size - len, "%s%s:%s:%s", i ? " " : "",
                                         rebuild_event_type_to_string(ev[i].type),
                                         rebuild_operation_to_string(ev[i].operation),
                                         rebuild_severity_to_string(ev[i].severity));
                if (ev[i].reason != REBUILD_REASON_NONE)
                        len += (size_t) snprintf(buf + len, size - len, ":%s",
                                                 rebuild_reason_to_string(ev[i].reason));
                if (ev[i].type == REBUILD_EVENT_PROGRESS)
                        len += (size_t) snprintf(buf + len, size - len, "@%u", ev[i].percent);
                if (ev[i].mismatch_count != REBUILD_UNKNOWN)
                        len += (size_t) snprintf(buf + len, size - len, "=%llu",
                                                 (unsigned long long) ev[i].mismatch_count);
        }
}

static void run_scenario(const Scenario *sc) {
        RebuildTracker t;

        rebuild_tracker_init(&t);
        for (size_t i = 0; i < ELEMENTSOF(sc->steps) && sc->steps[i].t >= 0; i++) {
                const Step *s = &sc->steps[i];
                RebuildObservation o;
                RebuildEvent ev[REBUILD_EVENTS_MAX];
                char got[1024];
                int n;

                obs_from_step(s, &o);
                n = rebuild_tracker_feed(&t, (usec_t) (s->t * USEC_PER_SEC), &o, ev,
                                         ELEMENTSOF(ev));
                if (n < 0) {
                        ok(0, "%s: step %zu fed (%d)", sc->name, i, n);
                        return;
                }
                events_to_string(ev, n, got, sizeof(got));
                is_str(got, s->expect, "%s: step %zu (t=%g)", sc->name, i, s->t);
                for (int k = 0; k < n; k++) {
                        char msg[256];

                        /* every event formats to a non-empty line and has sane numbers */
                        rebuild_event_format(&ev[k], msg, sizeof(msg));
                        if (!msg[0] || !(ev[k].progress <= 1.0) || isnan(ev[k].eta_sec) ||
                            isnan(ev[k].speed_bytes_per_sec))
                                ok(0, "%s: step %zu event %d sane: \"%s\" p=%g", sc->name, i, k,
                                   msg, ev[k].progress);
                        else
                                tap_diag("%s", msg);
                }
        }
}

/* A recovery at a true per-member rate; sync_completed moves every 1/16, mdstat every KiB.
 * Speed and ETA must be within tolerance of the truth with both sources, and with coarse only. */
static void test_speed_eta(bool with_fine) {
        const uint64_t total = 16 * 1024 * 1024; /* sectors per member: 8 GiB */
        const double rate = 40000.0;             /* sectors/s = 19.5 MiB/s */
        RebuildTracker t;
        RebuildStatus st;
        RebuildEvent ev[REBUILD_EVENTS_MAX];
        double t0 = 1000.0, tsec;
        unsigned seed = 12345;
        int checked = 0;

        rebuild_tracker_init(&t);
        for (tsec = t0 - 1; tsec < t0 + total / rate + 5; tsec += 1.0) {
                RebuildObservation o;
                double jitter = ((seed = seed * 1103515245 + 12345) >> 16 & 0x3ff) / 4096.0;
                double now = tsec + jitter; /* observations at irregular times */
                double done_true = (now - t0) * rate;
                uint64_t done;

                rebuild_observation_init(&o);
                o.degraded = 1;
                if (now < t0 || done_true >= (double) total) {
                        o.operation = REBUILD_OP_IDLE;
                        if (done_true >= (double) total)
                                o.degraded = 0;
                } else {
                        done = (uint64_t) done_true;
                        o.operation = REBUILD_OP_RECOVERY;
                        o.coarse_done_sectors = done / (total / 16) * (total / 16);
                        o.coarse_total_sectors = total;
                        if (with_fine) {
                                o.fine_done_sectors = done / 2 * 2; /* KiB granularity */
                                o.fine_total_sectors = total;
                        }
                        o.kernel_speed_bytes_per_sec = 7777; /* wrong on purpose: not used */
                }
                if (rebuild_tracker_feed(&t, (usec_t) (now * USEC_PER_SEC), &o, ev,
                                         ELEMENTSOF(ev)) < 0) {
                        ok(0, "feed failed");
                        return;
                }

                /* Check well after start (coarse needs two steps: 2/16 of the run). */
                if (o.operation == REBUILD_OP_RECOVERY && done_true > (double) total * 3 / 16 &&
                    done_true < (double) total * 15 / 16 && ((uint64_t) tsec % 37) == 0) {
                        double eta_true = ((double) total - done_true) / rate;

                        rebuild_tracker_get_status(&t, (usec_t) (now * USEC_PER_SEC), &st);
                        if (st.speed_bytes_per_sec < rate * 512 * 0.98 ||
                            st.speed_bytes_per_sec > rate * 512 * 1.02 ||
                            fabs(st.eta_sec - eta_true) > 0.03 * eta_true + 2.0) {
                                is_double(st.speed_bytes_per_sec, rate * 512, rate * 512 * 0.02,
                                          "%s: speed at t=%.1f", with_fine ? "fine" : "coarse",
                                          now - t0);
                                is_double(st.eta_sec, eta_true, 0.03 * eta_true + 2.0,
                                          "%s: ETA at t=%.1f", with_fine ? "fine" : "coarse",
                                          now - t0);
                                return;
                        }
                        checked++;
                }
        }
        ok(checked > 5, "%s: speed within 2%% and ETA within 3%% at %d points",
           with_fine ? "fine+coarse" : "coarse only", checked);
        rebuild_tracker_get_status(&t, (usec_t) (tsec * USEC_PER_SEC), &st);
        is_int(st.phase, REBUILD_PHASE_IDLE, "recovery over: idle");
}

static void test_status(void) {
        RebuildTracker t;
        RebuildStatus st;
        RebuildObservation o;
        RebuildEvent ev[REBUILD_EVENTS_MAX];

        rebuild_tracker_init(&t);
        rebuild_tracker_get_status(&t, 0, &st);
        is_int(st.phase, REBUILD_PHASE_IDLE, "empty tracker idle");
        ok(st.progress < 0 && st.speed_bytes_per_sec < 0 && st.eta_sec < 0, "empty: unknowns");

        /* kernel speed is the fallback before two samples exist */
        rebuild_observation_init(&o);
        o.operation = REBUILD_OP_CHECK;
        o.coarse_done_sectors = 0;
        o.coarse_total_sectors = 1000000;
        o.kernel_speed_bytes_per_sec = 5376 * 1024;
        is_int(rebuild_tracker_feed(&t, 10 * USEC_PER_SEC, &o, ev, ELEMENTSOF(ev)), 1, "start");
        rebuild_tracker_get_status(&t, 10 * USEC_PER_SEC, &st);
        is_int(st.operation, REBUILD_OP_CHECK, "status: check");
        is_double(st.speed_bytes_per_sec, 5376.0 * 1024, 0.5, "kernel speed fallback");
        is_double(st.eta_sec, 1000000.0 * 512 / (5376.0 * 1024), 0.01, "ETA from kernel speed");
        is_double(st.progress, 0.0, 1e-9, "progress 0");
        is_u64(st.start_usec, USEC_INFINITY, "joined: start unknown");
        ok(ev[0].speed_bytes_per_sec > 0, "STARTED carries the speed");
}

static void test_garbage(void) {
        RebuildTracker t, copy;
        RebuildObservation o;
        RebuildEvent ev[REBUILD_EVENTS_MAX];

        rebuild_tracker_init(&t);
        rebuild_observation_init(&o);
        o.operation = (RebuildOperation) 99;
        is_int(rebuild_tracker_feed(&t, 0, &o, ev, ELEMENTSOF(ev)), -EINVAL, "bad op: -EINVAL");
        o.operation = _REBUILD_OP_INVALID;
        is_int(rebuild_tracker_feed(&t, 0, &o, ev, ELEMENTSOF(ev)), -EINVAL, "invalid: -EINVAL");
        is_int(rebuild_tracker_feed(NULL, 0, &o, ev, ELEMENTSOF(ev)), -EINVAL, "NULL tracker");
        ok(!t.seen, "tracker unchanged after -EINVAL");

        /* too small an output array: -ENOBUFS, tracker unchanged */
        o.operation = REBUILD_OP_IDLE;
        is_int(rebuild_tracker_feed(&t, 0, &o, NULL, 0), 0, "idle fits in 0 events");
        o.operation = REBUILD_OP_CHECK;
        o.fine_done_sectors = 0;
        o.fine_total_sectors = 100;
        is_int(rebuild_tracker_feed(&t, 1, &o, ev, ELEMENTSOF(ev)), 1, "check started");
        o.fine_done_sectors = 95;
        copy = t;
        is_int(rebuild_tracker_feed(&t, 2, &o, ev, 3), -ENOBUFS, "9 marks into 3 slots");
        ok(memcmp(&copy, &t, sizeof(t)) == 0, "tracker unchanged after -ENOBUFS");
        is_int(rebuild_tracker_feed(&t, 2, &o, ev, ELEMENTSOF(ev)), 9, "then all 9 marks");

        /* huge numbers: no overflow in the mark arithmetic */
        rebuild_tracker_init(&t);
        o.fine_done_sectors = UINT64_MAX - 1;
        o.fine_total_sectors = UINT64_MAX - 1;
        is_int(rebuild_tracker_feed(&t, 0, &o, ev, ELEMENTSOF(ev)), 1, "huge: started only");
        o.operation = REBUILD_OP_IDLE;
        is_int(rebuild_tracker_feed(&t, 0, &o, ev, ELEMENTSOF(ev)), 1, "huge: finished");
        is_int(ev[0].type, REBUILD_EVENT_FINISHED, "huge: finished type");

        /* same timestamp twice, speeds stay finite */
        rebuild_tracker_init(&t);
        rebuild_observation_init(&o);
        o.operation = REBUILD_OP_RESYNC;
        for (int i = 0; i < 100; i++) {
                RebuildStatus st;

                o.coarse_done_sectors = (uint64_t) i * 7;
                o.coarse_total_sectors = i % 3 ? 500 : 0;
                o.fine_done_sectors = i % 5 ? (uint64_t) i : REBUILD_UNKNOWN;
                o.fine_total_sectors = 1000 - (uint64_t) i;
                if (rebuild_tracker_feed(&t, (usec_t) (i / 4) * 1000, &o, ev, ELEMENTSOF(ev)) < 0)
                        break;
                rebuild_tracker_get_status(&t, (usec_t) (i / 4) * 1000, &st);
                if (isnan(st.speed_bytes_per_sec) || isinf(st.speed_bytes_per_sec) ||
                    isnan(st.eta_sec) || isinf(st.eta_sec) || st.progress > 1.0) {
                        ok(0, "finite figures at i=%d", i);
                        return;
                }
        }
        ok(1, "100 garbage observations with equal timestamps: finite figures");
}

static void test_tables(void) {
        for (int i = 0; i < _REBUILD_OP_MAX; i++)
                is_int(rebuild_operation_from_string(rebuild_operation_to_string(i)), i,
                       "operation %d round-trips", i);
        for (int i = 0; i < _REBUILD_EVENT_TYPE_MAX; i++)
                is_int(rebuild_event_type_from_string(rebuild_event_type_to_string(i)), i,
                       "event type %d round-trips", i);
        for (int i = 0; i < _REBUILD_SEVERITY_MAX; i++)
                is_int(rebuild_severity_from_string(rebuild_severity_to_string(i)), i,
                       "severity %d round-trips", i);
        for (int i = 0; i < _REBUILD_REASON_MAX; i++)
                is_int(rebuild_reason_from_string(rebuild_reason_to_string(i)), i,
                       "reason %d round-trips", i);
        for (int i = 0; i < _REBUILD_PHASE_MAX; i++)
                is_int(rebuild_phase_from_string(rebuild_phase_to_string(i)), i,
                       "phase %d round-trips", i);
        is_int(rebuild_operation_from_string("nonsense"), -EINVAL, "unknown word");
        is_int(rebuild_operation_from_string(NULL), -EINVAL, "NULL word");
        ok(rebuild_operation_to_string(_REBUILD_OP_MAX) == NULL, "out of range -> NULL");
        is_int(rebuild_severity_to_priority(REBUILD_SEVERITY_ERROR), LOG_ERR, "error -> LOG_ERR");
        is_int(rebuild_severity_to_priority(REBUILD_SEVERITY_INFO), LOG_INFO, "info -> LOG_INFO");
}

static void test_format(void) {
        RebuildEvent e = {
                .type = REBUILD_EVENT_FINISHED,
                .operation = REBUILD_OP_CHECK,
                .duration_usec = 723 * USEC_PER_SEC,
                .mismatch_count = 3,
                .progress = 1,
                .speed_bytes_per_sec = -1,
                .eta_sec = 0,
        };
        char buf[128], tiny[8];

        is_str(rebuild_event_format(&e, buf, sizeof(buf)),
               "check finished after 12min 3s, 3 mismatches", "format finished check");
        e.type = REBUILD_EVENT_PROGRESS;
        e.operation = REBUILD_OP_RECOVERY;
        e.percent = 40;
        e.speed_bytes_per_sec = 3.25 * 1024 * 1024;
        e.eta_sec = 190;
        e.mismatch_count = REBUILD_UNKNOWN;
        is_str(rebuild_event_format(&e, buf, sizeof(buf)),
               "recovery 40% done, 3.2 MiB/s, ETA 3min 10s", "format progress");
        is_str(rebuild_event_format(&e, tiny, sizeof(tiny)), "recover", "truncates");
}

/* md mapping: hand-built MdArray/MdstatArray values as md_array_load()/mdstat_parse() give them,
 * with the figures of the VM runs (64 MiB RAID1: 64512 KiB per member, 129024 sectors). */
static MdArray md_idle(void) {
        return (MdArray){
                .sync_action = MD_SYNC_ACTION_IDLE,
                .sync_completed = { MD_SYNC_COMPLETED_NONE, 0, 0 },
                .sync_speed_kib_per_sec = MD_UNSET,
                .degraded = 0,
                .mismatch_cnt = 0,
                .reshape_position_sectors = MD_UNSET,
                .resync_start_sectors = MD_UNSET,
        };
}

static MdArray md_running(MdSyncAction action, uint64_t coarse_done, uint64_t speed_kib) {
        MdArray a = md_idle();

        a.sync_action = action;
        a.sync_completed = (MdSyncCompleted){ MD_SYNC_COMPLETED_PROGRESS, coarse_done, 129024 };
        a.sync_speed_kib_per_sec = speed_kib;
        return a;
}

static MdstatArray mdstat_at(uint64_t done_kib) {
        return (MdstatArray){ .progress = { .kind = MDSTAT_PROGRESS_RUNNING,
                                            .action = MD_SYNC_ACTION_CHECK,
                                            .done_kib = done_kib,
                                            .total_kib = 64512 } };
}

static void feed_md(RebuildTracker *t, double sec, const MdArray *a, const MdstatArray *m,
                    uint64_t sync_min, const char *expect, const char *what) {
        RebuildObservation o;
        RebuildEvent ev[REBUILD_EVENTS_MAX];
        char got[1024];
        int n;

        rebuild_observation_from_md(t, a, m, NULL, sync_min, &o);
        n = rebuild_tracker_feed(t, (usec_t) (sec * USEC_PER_SEC), &o, ev, ELEMENTSOF(ev));
        if (n < 0) {
                ok(0, "%s: fed (%d)", what, n);
                return;
        }
        events_to_string(ev, n, got, sizeof(got));
        is_str(got, expect, "%s", what);
}

static int feed_md_quiet(RebuildTracker *t, double sec, const MdArray *a, const MdstatArray *m) {
        RebuildObservation o;
        RebuildEvent ev[REBUILD_EVENTS_MAX];

        rebuild_observation_from_md(t, a, m, NULL, REBUILD_UNKNOWN, &o);
        return rebuild_tracker_feed(t, (usec_t) (sec * USEC_PER_SEC), &o, ev, ELEMENTSOF(ev));
}

static void test_md_mapping(void) {
        MdArray a = md_running(MD_SYNC_ACTION_CHECK, 32768, 5376);
        MdstatArray m = mdstat_at(21504);
        MdMember members[2] = {
                { .name = (char *) "vda", .state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_IN_SYNC) },
                { .name = (char *) "vdb", .state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_IN_SYNC) }
        };
        RebuildObservation o;

        a.members = members;
        a.n_members = 2;
        rebuild_observation_from_md(NULL, &a, &m, NULL, 0, &o);
        is_int(o.operation, REBUILD_OP_CHECK, "md: check");
        ok(!o.delayed, "md: not delayed");
        is_u64(o.coarse_done_sectors, 32768, "md: coarse done");
        is_u64(o.coarse_total_sectors, 129024, "md: coarse total");
        is_u64(o.fine_done_sectors, 43008, "md: fine done = KiB * 2");
        is_u64(o.fine_total_sectors, 129024, "md: fine total = KiB * 2");
        is_u64(o.kernel_speed_bytes_per_sec, 5376 * 1024, "md: sync_speed KiB/s -> bytes/s");
        is_u64(o.degraded, 0, "md: degraded");
        is_u64(o.mismatch_count, 0, "md: mismatches");
        ok(!o.member_failed, "md: no faulty member");
        is_int(o.completed, -1, "md: no end hint while nothing ended");

        /* md's cleanup window: mdstat 100% while sync_completed holds the real checkpoint */
        m = mdstat_at(64512);
        a.sync_completed.done_sectors = 12288;
        rebuild_observation_from_md(NULL, &a, &m, NULL, 0, &o);
        is_u64(o.fine_done_sectors, REBUILD_UNKNOWN, "md: cleanup-window 100%% dropped");
        is_u64(o.coarse_done_sectors, 12288, "md: checkpoint kept");
        a.sync_completed.done_sectors = 129024;
        rebuild_observation_from_md(NULL, &a, &m, NULL, 0, &o);
        is_u64(o.fine_done_sectors, 129024, "md: 100%% kept when sync_completed agrees");

        a.sync_speed_kib_per_sec = 0;
        members[1].state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_FAULTY);
        rebuild_observation_from_md(NULL, &a, NULL, NULL, REBUILD_UNKNOWN, &o);
        is_u64(o.kernel_speed_bytes_per_sec, REBUILD_UNKNOWN, "md: sync_speed 0 is no figure");
        ok(o.member_failed, "md: faulty member");
        is_u64(o.fine_done_sectors, REBUILD_UNKNOWN, "md: no mdstat, no fine progress");

        a.sync_completed = (MdSyncCompleted){ MD_SYNC_COMPLETED_DELAYED, 0, 0 };
        rebuild_observation_from_md(NULL, &a, NULL, NULL, 0, &o);
        ok(o.delayed, "md: sync_completed delayed");
        a = md_running(MD_SYNC_ACTION_RESYNC, 0, MD_UNSET);
        m = (MdstatArray){ .progress = { .kind = MDSTAT_PROGRESS_PENDING } };
        rebuild_observation_from_md(NULL, &a, &m, NULL, 0, &o);
        ok(o.delayed, "md: mdstat resync=PENDING");
        a.sync_action = _MD_SYNC_ACTION_INVALID; /* raid0 */
        rebuild_observation_from_md(NULL, &a, NULL, NULL, 0, &o);
        is_int(o.operation, REBUILD_OP_IDLE, "md: no sync_action -> idle");
        a.sync_action = MD_SYNC_ACTION_UNKNOWN;
        rebuild_observation_from_md(NULL, &a, NULL, NULL, 0, &o);
        is_int(o.operation, REBUILD_OP_IDLE, "md: unknown word -> idle");
}

/* The sequences seen on the real kernel (tests/vm, Debian 6.1): what went wrong before the md end
 * hints, now right. */
static void test_md_sequences(void) {
        RebuildTracker t;
        MdArray a, idle = md_idle();
        MdstatArray m;

        /* A fast check that completes: last look at 95%, then idle right away (no time for the
         * speed extrapolation); sync_min back to 0 says it completed. */
        rebuild_tracker_init(&t);
        feed_md(&t, 0, &idle, NULL, 0, "", "check: idle");
        a = md_running(MD_SYNC_ACTION_CHECK, 0, 0);
        m = mdstat_at(0);
        feed_md(&t, 1, &a, &m, 0, "started:check:info", "check: started");
        a.sync_completed.done_sectors = 122880;
        m = mdstat_at(61440);
        feed_md(&t, 8, &a, &m, 0,
                "progress:check:info@10 progress:check:info@20 progress:check:info@30 "
                "progress:check:info@40 progress:check:info@50 progress:check:info@60 "
                "progress:check:info@70 progress:check:info@80 progress:check:info@90",
                "check: 95%");
        idle.mismatch_cnt = 8192;
        feed_md(&t, 8.05, &idle, NULL, 0, "finished:check:warning=8192",
                "check: completed (sync_min 0), mismatches -> warning");

        /* The same, aborted with idle at 95%: md keeps the checkpoint in sync_min. */
        rebuild_tracker_init(&t);
        idle = md_idle();
        feed_md(&t, 0, &idle, NULL, 0, "", "abort: idle");
        a = md_running(MD_SYNC_ACTION_CHECK, 0, 0);
        m = mdstat_at(0);
        feed_md(&t, 1, &a, &m, 0, "started:check:info", "abort: started");
        a.sync_completed.done_sectors = 122880;
        m = mdstat_at(61440);
        feed_md(&t, 8, &a, &m, 0,
                "progress:check:info@10 progress:check:info@20 progress:check:info@30 "
                "progress:check:info@40 progress:check:info@50 progress:check:info@60 "
                "progress:check:info@70 progress:check:info@80 progress:check:info@90",
                "abort: 95%");
        /* cleanup window: mdstat says 100%, the checkpoint says otherwise */
        m = mdstat_at(64512);
        feed_md(&t, 8.01, &a, &m, 122880, "", "abort: cleanup window, no false 100%");
        feed_md(&t, 8.05, &idle, NULL, 122880, "interrupted:check:info:stopped=0",
                "abort: sync_min kept the checkpoint -> interrupted");

        /* Recovery whose target member fails: md cleans up (mdstat 100%) with the faulty member
         * already listed; reported as interrupted at the checkpoint, not at 100%. */
        rebuild_tracker_init(&t);
        idle = md_idle();
        idle.degraded = 1;
        feed_md(&t, 0, &idle, NULL, 0, "", "recovery: degraded idle");
        a = md_running(MD_SYNC_ACTION_RECOVER, 0, 0);
        a.degraded = 1;
        m = mdstat_at(3072);
        feed_md(&t, 1, &a, &m, 0, "started:recovery:warning", "recovery: started");
        {
                MdMember members[1] = { { .name = (char *) "vdb",
                                          .state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_FAULTY) } };
                RebuildObservation o;
                RebuildEvent ev[REBUILD_EVENTS_MAX];
                int n;

                a.members = members;
                a.n_members = 1;
                a.sync_completed.done_sectors = 8192;
                m = mdstat_at(64512);
                rebuild_observation_from_md(&t, &a, &m, NULL, 0, &o);
                n = rebuild_tracker_feed(&t, 6 * USEC_PER_SEC, &o, ev, ELEMENTSOF(ev));
                is_int(n, 1, "recovery: one event when the member fails");
                if (n == 1) {
                        is_str(rebuild_reason_to_string(ev[0].reason), "member-failed",
                               "recovery: interrupted, member failed");
                        is_int(ev[0].severity, REBUILD_SEVERITY_ERROR, "recovery: error");
                        is_double(ev[0].progress, 8192.0 / 129024, 1e-9,
                                  "recovery: progress at the checkpoint, not 100%%");
                }
        }

        /* Resync end: resync_start "none" = completed; a number = aborted (warning). */
        rebuild_tracker_init(&t);
        idle = md_idle();
        feed_md(&t, 0, &idle, NULL, 0, "", "resync: idle");
        a = md_running(MD_SYNC_ACTION_RESYNC, 0, 0);
        feed_md(&t, 1, &a, NULL, 0, "started:resync:notice", "resync: started");
        feed_md(&t, 2, &idle, NULL, 0, "finished:resync:info", "resync: resync_start none");
        a = md_running(MD_SYNC_ACTION_RESYNC, 0, 0);
        feed_md(&t, 3, &a, NULL, 0, "started:resync:notice", "resync again");
        idle.resync_start_sectors = 32768;
        feed_md(&t, 4, &idle, NULL, 0, "interrupted:resync:warning:stopped",
                "resync: resync_start kept a checkpoint");

        /* Reshape end: reshape_position "none" = completed. */
        rebuild_tracker_init(&t);
        idle = md_idle();
        feed_md(&t, 0, &idle, NULL, 0, "", "reshape: idle");
        a = md_running(MD_SYNC_ACTION_RESHAPE, 0, 0);
        a.reshape_position_sectors = 0;
        feed_md(&t, 1, &a, NULL, 0, "started:reshape:notice", "reshape: started");
        feed_md(&t, 2, &idle, NULL, 0, "finished:reshape:notice", "reshape: position none");
}

static void feed_dm(RebuildTracker *t, double sec, const char *status, const char *expect) {
        DmRaidStatus st;
        RebuildObservation o;
        RebuildEvent ev[REBUILD_EVENTS_MAX];
        char got[1024];
        int n;

        if (dm_raid_status_parse(status, &st) < 0) {
                ok(0, "dm: parse \"%s\"", status);
                return;
        }
        rebuild_observation_from_dm(t, &st, &o);
        n = rebuild_tracker_feed(t, (usec_t) (sec * USEC_PER_SEC), &o, ev, ELEMENTSOF(ev));
        if (n < 0) {
                ok(0, "dm: fed (%d)", n);
                return;
        }
        events_to_string(ev, n, got, sizeof(got));
        is_str(got, expect, "dm: %s", status);
}

/* dm-raid status lines as the VM capture shows them (vm-testbed.md section 3), plus variants. */
static void test_dm(void) {
        RebuildTracker t;
        DmRaidStatus st;
        RebuildObservation o;

        is_int(dm_raid_status_parse("raid1 2 aa 30976/245760 resync 0 0 -", &st), 0, "parse");
        rebuild_observation_from_dm(NULL, &st, &o);
        is_int(o.operation, REBUILD_OP_RESYNC, "dm: resync");
        is_u64(o.fine_done_sectors, 30976, "dm: ratio is the fine progress");
        is_u64(o.fine_total_sectors, 245760, "dm: total");
        is_u64(o.degraded, 0, "dm: lower-case a is not degraded");
        ok(!o.member_failed, "dm: no dead leg");
        is_u64(o.mismatch_count, 0, "dm: mismatches");

        rebuild_tracker_init(&t);
        feed_dm(&t, 0, "raid1 2 AA 245760/245760 idle 0 0 -", "");
        feed_dm(&t, 1, "raid1 2 aa 0/245760 resync 0 0 -", "started:resync:notice");
        feed_dm(&t, 10, "raid1 2 aa 30976/245760 resync 0 0 -", "progress:resync:info@10");
        feed_dm(&t, 11, "raid1 2 AA 245760/245760 idle 0 0 -", "finished:resync:info");
        feed_dm(&t, 20, "raid1 2 AA 15488/245760 check 0 0 -", "started:check:info");
        feed_dm(&t, 21, "raid1 2 AA 245760/245760 idle 0 0 -",
                "interrupted:check:info:stopped=0"); /* idle ratio is not the check's */
        feed_dm(&t, 30, "raid1 2 AA 0/245760 check 0 0 -", "started:check:info:restarted");
        feed_dm(&t, 40, "raid1 2 AD 24576/245760 check 0 0 -",
                "interrupted:check:error:member-failed=0");
        feed_dm(&t, 50, "raid1 2 Aa 0/245760 recover 0 0 -", "started:recovery:warning");
        feed_dm(&t, 51, "raid1 2 Aa 24576/245760 recover 0 0 -", "progress:recovery:info@10");
        feed_dm(&t, 52, "raid1 2 Aa 245760/245760 idle 0 0 -",
                "interrupted:recovery:error:stopped"); /* a leg still not in sync */
        feed_dm(&t, 60, "raid1 2 Aa 49152/245760 recover 0 0 -", "resumed:recovery:notice");
        feed_dm(&t, 70, "raid1 2 AA 245760/245760 idle 0 0 -", "finished:recovery:notice");
        feed_dm(&t, 80, "raid4 5 AAAAA 2/490221568 init 0", "started:resync:notice");
}

/* mdadm --replace vdb --with vdd on a RAID1 with write-mostly vdc (md of 6.1): vdb carries
 * want_replacement, vdd replacement while sync_action reads "recover" and degraded stays 0; at
 * the end md marks vdb "faulty,want_replacement" on purpose. A replace of its own, never
 * "redundancy reduced", and its successful end is info, not an interrupted recovery. */
static void test_md_replace(void) {
        RebuildTracker t;
        MdArray idle = md_idle(), a;
        MdstatArray m;
        MdMember before[2] = {
                { .name = (char *) "vdb",
                  .state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_IN_SYNC),
                  .slot = 0 },
                { .name = (char *) "vdc",
                  .state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_IN_SYNC) |
                           MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_WRITE_MOSTLY),
                  .slot = 1 },
        };
        MdMember during[3] = {
                { .name = (char *) "vdb",
                  .state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_IN_SYNC) |
                           MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_WANT_REPLACEMENT),
                  .slot = 0 },
                before[1],
                { .name = (char *) "vdd",
                  .state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_REPLACEMENT),
                  .slot = 0 },
        };
        MdMember after[3] = {
                { .name = (char *) "vdb",
                  .state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_FAULTY), /* as on 6.1 */
                  .slot = MD_SLOT_NONE },
                before[1],
                { .name = (char *) "vdd",
                  .state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_IN_SYNC),
                  .slot = 0 },
        };
        RebuildObservation o;

        rebuild_tracker_init(&t);
        idle.members = before;
        idle.n_members = 2;
        feed_md(&t, 0, &idle, NULL, REBUILD_UNKNOWN, "", "replace: idle before");
        a = md_running(MD_SYNC_ACTION_RECOVER, 0, 1000);
        a.members = during;
        a.n_members = 3;
        rebuild_observation_from_md(&t, &a, NULL, NULL, REBUILD_UNKNOWN, &o);
        is_str(rebuild_operation_to_string(o.operation), "replace", "want_replacement: a replace");
        ok(!o.member_failed, "no member failed");
        m = mdstat_at(0);
        feed_md(&t, 1, &a, &m, REBUILD_UNKNOWN, "started:replace:notice",
                "replace started: notice");
        m = mdstat_at(32256);
        a.sync_completed.done_sectors = 64512;
        feed_md(&t, 30, &a, &m, REBUILD_UNKNOWN,
                "progress:replace:info@10 progress:replace:info@20 progress:replace:info@30 "
                "progress:replace:info@40 progress:replace:info@50",
                "replace: progress marks");
        /* md swapped the members before sync_action went idle */
        a.members = after;
        feed_md(&t, 31, &a, &m, REBUILD_UNKNOWN, "", "old member faulty on purpose: no failure");
        idle.members = after;
        idle.n_members = 3;
        feed_md(&t, 32, &idle, NULL, REBUILD_UNKNOWN, "finished:replace:info",
                "replace finished: info");
}

/* The end of a replace on the real kernel, state by state, copied from the trace verdict-replace
 * writes (tests/vm: mdadm --replace vda --with vdc on a RAID1 of vda + write-mostly vdb,
 * sync_speed_max 3000 until the end, Linux 6.1.0-57, TCG). Running: sync_action recover, vda
 * "in_sync,want_replacement" slot 0, vdc "spare,replacement" slot 0, degraded 0. The tail
 * (md.c/raid1.c of 6.1 say why):
 *  1. md_do_sync() returned (curr_resync 0): sync_completed "129024 / 129024", sync_speed
 *     "none", mdstat still "(64512/64512)";
 *  2. md_reap_sync_thread() -> raid1_spare_active(): vdc "in_sync,replacement", vda
 *     "faulty,want_replacement", both slot 0; no mdstat line;
 *  3. the next md_check_recovery() pass zeroes curr_resync_completed and sets RUNNING (RECOVER is
 *     still set) before it finds nothing to do: "recover", "0 / 129024", speed "none". This
 *     reading once gave "replace interrupted (stopped) at 98%" + "replace restarted";
 *  4. raid1_remove_disk() and idle: "idle", "none", vda "faulty" slot none, vdc "in_sync" 0. */
static void test_md_replace_kernel_tail(void) {
        RebuildTracker t;
        MdArray idle = md_idle(), a;
        MdstatArray m;
        MdMember before[3] = {
                { .name = (char *) "vda",
                  .state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_IN_SYNC),
                  .slot = 0 },
                { .name = (char *) "vdb",
                  .state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_IN_SYNC) |
                           MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_WRITE_MOSTLY),
                  .slot = 1 },
                { .name = (char *) "vdc",
                  .state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_SPARE),
                  .slot = MD_SLOT_NONE },
        };
        MdMember during[3] = {
                { .name = (char *) "vda",
                  .state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_IN_SYNC) |
                           MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_WANT_REPLACEMENT),
                  .slot = 0 },
                before[1],
                { .name = (char *) "vdc",
                  .state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_SPARE) |
                           MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_REPLACEMENT),
                  .slot = 0 },
        };
        /* raid1_spare_active() done (vda Faulty, WantReplacement kept), raid1_remove_disk()
         * (clears WantReplacement and the Replacement of vdc, slot -1) not yet */
        MdMember swapped[3] = {
                { .name = (char *) "vda",
                  .state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_FAULTY) |
                           MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_WANT_REPLACEMENT),
                  .slot = 0 },
                before[1],
                { .name = (char *) "vdc",
                  .state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_IN_SYNC) |
                           MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_REPLACEMENT),
                  .slot = 0 },
        };
        MdMember after[3] = {
                { .name = (char *) "vda",
                  .state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_FAULTY),
                  .slot = MD_SLOT_NONE },
                before[1],
                { .name = (char *) "vdc",
                  .state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_IN_SYNC),
                  .slot = 0 },
        };
        MdProgress p;

        rebuild_tracker_init(&t);
        idle.members = before;
        idle.n_members = 3;
        feed_md(&t, 0, &idle, NULL, REBUILD_UNKNOWN, "", "kernel replace: idle before");
        a = md_running(MD_SYNC_ACTION_RECOVER, 0, MD_UNSET); /* md_check_recovery() started it */
        a.members = during;
        a.n_members = 3;
        feed_md(&t, 2, &a, NULL, REBUILD_UNKNOWN, "started:replace:notice",
                "kernel replace: started");
        a = md_running(MD_SYNC_ACTION_RECOVER, 16384, 5120);
        a.members = during;
        a.n_members = 3;
        m = mdstat_at(7424);
        m.progress.action = MD_SYNC_ACTION_RECOVER;
        feed_md(&t, 4, &a, &m, REBUILD_UNKNOWN, "progress:replace:info@10",
                "kernel replace: 11.0%");
        a = md_running(MD_SYNC_ACTION_RECOVER, 122880, 4726);
        a.members = during;
        a.n_members = 3;
        m.progress.done_kib = 61440;
        feed_md(&t, 15, &a, &m, REBUILD_UNKNOWN,
                "progress:replace:info@20 progress:replace:info@30 progress:replace:info@40 "
                "progress:replace:info@50 progress:replace:info@60 progress:replace:info@70 "
                "progress:replace:info@80 progress:replace:info@90",
                "kernel replace: 94.4%");
        a = md_running(MD_SYNC_ACTION_RECOVER, 129024, MD_UNSET); /* 1. */
        a.members = during;
        a.n_members = 3;
        m.progress.done_kib = 64512;
        feed_md(&t, 15.3, &a, &m, REBUILD_UNKNOWN, "", "kernel replace tail 1: sync thread done");
        a.members = swapped; /* 2. */
        feed_md(&t, 15.31, &a, NULL, REBUILD_UNKNOWN, "",
                "kernel replace tail 2: vda faulty on purpose, no failure");
        a = md_running(MD_SYNC_ACTION_RECOVER, 0, MD_UNSET); /* 3. */
        a.members = swapped;
        a.n_members = 3;
        md_progress_compute(&a, NULL, NULL, &p);
        is_str(md_progress_source_to_string(p.source), "none",
               "kernel replace tail 3: 0 / N with speed none is no figure");
        feed_md(&t, 15.32, &a, NULL, REBUILD_UNKNOWN, "",
                "kernel replace tail 3: no interruption, no restart");
        idle.members = after; /* 4. */
        feed_md(&t, 15.33, &idle, NULL, REBUILD_UNKNOWN, "finished:replace:info",
                "kernel replace tail 4: finished, info");

        /* the same tail after a plain recovery: finished, not restarted */
        rebuild_tracker_init(&t);
        a = md_running(MD_SYNC_ACTION_RECOVER, 16384, 5120);
        a.degraded = 1;
        m = mdstat_at(8320);
        m.progress.action = MD_SYNC_ACTION_RECOVER;
        feed_md(&t, 0, &idle, NULL, REBUILD_UNKNOWN, "", "recovery tail: idle before");
        feed_md(&t, 1, &a, &m, REBUILD_UNKNOWN, "started:recovery:warning",
                "recovery tail: started");
        m.progress.done_kib = 61440;
        a.sync_completed.done_sectors = 114688;
        (void) feed_md_quiet(&t, 5, &a, &m);
        a = md_running(MD_SYNC_ACTION_RECOVER, 0, MD_UNSET);
        a.degraded = 0;
        feed_md(&t, 5.02, &a, NULL, REBUILD_UNKNOWN, "", "recovery tail: no restart");
        idle.degraded = 0;
        feed_md(&t, 5.04, &idle, NULL, REBUILD_UNKNOWN, "finished:recovery:notice",
                "recovery tail: finished");
}

/* mdadm --fail on a RAID1 of two, as 6.1 shows it (bench/event-latency's trace): md_error()
 * makes md_check_recovery() look for work, and sync_action reads "recover" for a moment with
 * no member to recover (vda in_sync, vdb faulty, no spare in a slot), then "idle". That is no
 * recovery: no started/interrupted pair. The real one after mdadm --add (vdb back as a spare in
 * slot 1) starts at once, as "started", not "resumed". */
static void test_md_fail_blip(void) {
        RebuildTracker t;
        MdArray a = md_idle();
        MdMember members[2] = {
                { .name = (char *) "vda",
                  .state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_IN_SYNC),
                  .slot = 0 },
                { .name = (char *) "vdb",
                  .state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_IN_SYNC),
                  .slot = 1 },
        };

        rebuild_tracker_init(&t);
        a.members = members;
        a.n_members = 2;
        feed_md(&t, 0, &a, NULL, 0, "", "fail blip: clean idle");
        members[1].state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_FAULTY);
        a.degraded = 1;
        a.sync_action = MD_SYNC_ACTION_RECOVER;
        a.sync_completed = (MdSyncCompleted){ MD_SYNC_COMPLETED_NONE, 0, 0 };
        feed_md(&t, 1, &a, NULL, 0, "", "fail blip: recover with nothing to recover, no event");
        a.sync_action = MD_SYNC_ACTION_IDLE;
        members[1].slot = MD_SLOT_NONE;
        feed_md(&t, 1.01, &a, NULL, 0, "", "fail blip: idle again, no interrupted");
        /* mdadm --remove, --add: vdb a spare, given slot 1, recovery running */
        members[1].state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_SPARE);
        members[1].slot = 1;
        a.sync_action = MD_SYNC_ACTION_RECOVER;
        a.sync_completed = (MdSyncCompleted){ MD_SYNC_COMPLETED_PROGRESS, 0, 129024 };
        a.sync_speed_kib_per_sec = MD_UNSET;
        feed_md(&t, 5, &a, NULL, 0, "started:recovery:warning",
                "fail blip: the real recovery after --add starts at once");
        is_int(t.phase, REBUILD_PHASE_RUNNING, "fail blip: running");
}

/* mdadm --add on a one-array machine: md reads "delayed" for a moment (md_do_sync() looking for
 * an array to wait for) before its recovery shows progress. Without another array in
 * /proc/mdstat that is the recovery's start, reported once as started, never as delayed; with
 * another array resyncing it is a real queue. */
static void test_md_start_moment(void) {
        MdstatArray self = { .name = (char *) "md0",
                             .progress = { .kind = MDSTAT_PROGRESS_DELAYED } };
        MdstatArray other = { .name = (char *) "md1", .progress = mdstat_at(1024).progress };
        MdstatArray both[2] = { self, other };
        Mdstat alone = { .arrays = &self, .n_arrays = 1 },
               shared = { .arrays = both, .n_arrays = 2 };
        MdArray idle = md_idle(), start = md_idle(), run;
        RebuildObservation o;
        RebuildEvent ev[REBUILD_EVENTS_MAX];
        RebuildTracker t;
        char got[1024];
        int n;

        idle.degraded = 1;
        start.degraded = 1;
        start.sync_action = MD_SYNC_ACTION_RECOVER;
        start.sync_completed = (MdSyncCompleted){ MD_SYNC_COMPLETED_DELAYED, 0, 0 };
        run = md_running(MD_SYNC_ACTION_RECOVER, 0, 6000);
        run.degraded = 1;

        rebuild_tracker_init(&t);
        rebuild_observation_from_md(&t, &idle, NULL, &alone, 0, &o);
        is_int(rebuild_tracker_feed(&t, 0, &o, ev, ELEMENTSOF(ev)), 0, "start moment: idle first");
        rebuild_observation_from_md(&t, &start, &self, &alone, 0, &o);
        ok(!o.delayed, "alone: not delayed");
        n = rebuild_tracker_feed(&t, USEC_PER_SEC, &o, ev, ELEMENTSOF(ev));
        events_to_string(ev, n, got, sizeof(got));
        is_str(got, "started:recovery:warning", "alone: the start moment is the recovery's start");
        self.progress = mdstat_at(2048).progress;
        rebuild_observation_from_md(&t, &run, &self, &alone, 0, &o);
        n = rebuild_tracker_feed(&t, 2 * USEC_PER_SEC, &o, ev, ELEMENTSOF(ev));
        is_int(n, 0, "alone: its progress is no second start");

        rebuild_tracker_init(&t);
        rebuild_observation_from_md(&t, &idle, NULL, &shared, 0, &o);
        (void) rebuild_tracker_feed(&t, 0, &o, ev, ELEMENTSOF(ev));
        rebuild_observation_from_md(&t, &start, &both[0], &shared, 0, &o);
        ok(o.delayed, "md1 resyncing: delayed");
        n = rebuild_tracker_feed(&t, USEC_PER_SEC, &o, ev, ELEMENTSOF(ev));
        events_to_string(ev, n, got, sizeof(got));
        is_str(got, "delayed:recovery:info", "md1 resyncing: reported as delayed");
}

int main(void) {
        for (size_t i = 0; i < ELEMENTSOF(scenarios); i++)
                run_scenario(&scenarios[i]);
        test_speed_eta(true);
        test_speed_eta(false);
        test_status();
        test_garbage();
        test_tables();
        test_format();
        test_md_mapping();
        test_md_start_moment();
        test_md_sequences();
        test_md_replace();
        test_md_replace_kernel_tail();
        test_md_fail_blip();
        test_dm();
        return tap_done();
}

/* SPDX-License-Identifier: MIT */
/* Rebuild tracker: table-driven sequences of observations with synthetic timestamps, each step
 * with the exact events it must produce, plus speed/ETA accuracy against a known true rate and
 * garbage input. Event strings read "type:operation:severity[:reason][@mark][=mismatches]"
 * (test-rebuild-events.h). What md and dm-raid readings become is in test-rebuild-observe.c. */

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "analysis/rebuild.h"
#include "tap.h"
#include "test-rebuild-events.h"

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

int main(void) {
        for (size_t i = 0; i < ELEMENTSOF(scenarios); i++)
                run_scenario(&scenarios[i]);
        test_speed_eta(true);
        test_speed_eta(false);
        test_status();
        test_garbage();
        test_tables();
        test_format();
        return tap_done();
}

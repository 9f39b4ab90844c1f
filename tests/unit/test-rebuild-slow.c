/* SPDX-License-Identifier: MIT */
/* Slow rebuilds: speed below the floor without foreground I/O for the sustain time (reported
 * once, with the figures), not while foreground I/O competes, ETA over the limit whatever the
 * load, a floor capped by sync_speed_max, re-arming on a new operation; the hardware-controller
 * hint. */

#include <math.h>
#include <string.h>

#include "analysis/rebuild-slow.h"
#include "tap.h"

static RebuildSlowInput input(double speed_mib, double eta_h, double fg_mib) {
        return (RebuildSlowInput){
                .status = { .phase = REBUILD_PHASE_RUNNING,
                            .operation = REBUILD_OP_RECOVERY,
                            .progress = 0.2,
                            .speed_bytes_per_sec = speed_mib * 1048576,
                            .eta_sec = eta_h * 3600,
                            .mismatch_count = REBUILD_UNKNOWN },
                .sync_speed_min_kib = 1000,
                .sync_speed_max_kib = 200000,
                .foreground_bytes_per_sec = fg_mib * 1048576,
                .foreground_iops = fg_mib > 0 ? 100 : 0,
        };
}

#define MIN_USEC (60 * USEC_PER_SEC)

static void test_speed(void) {
        RebuildSlowConfig c = REBUILD_SLOW_CONFIG_DEFAULT;
        RebuildSlowTracker t;
        RebuildSlowInput in = input(2, 10, 0);
        RebuildSlowEvent e;
        char buf[512];
        int n = 0;

        rebuild_slow_tracker_init(&t);
        for (usec_t m = 0; m <= 30; m++) {
                int r = rebuild_slow_feed(&t, &c, &in, m * MIN_USEC, &e);

                if (r > 0) {
                        n++;
                        is_u64(m, 10, "reported after 10 min below the floor");
                }
        }
        is_int(n, 1, "reported once");
        is_int(e.reason, REBUILD_SLOW_SPEED, "by speed");
        ok(!e.competing, "no foreground I/O");
        rebuild_slow_event_format(&e, buf, sizeof(buf));
        tap_diag("%s", buf);
        is_str(buf,
               "recovery slow: 2.0 MiB/s (floor 10.0 MiB/s), ETA 10h 0min (limit 3d 0h), "
               "sync_speed_min 1000 KiB/s, sync_speed_max 200000 KiB/s, no foreground I/O "
               "competing",
               "event text");

        /* Foreground I/O competing: md throttles on purpose, not slow. */
        rebuild_slow_tracker_init(&t);
        in = input(2, 10, 30);
        for (usec_t m = 0; m <= 30; m++)
                is_int(rebuild_slow_feed(&t, &c, &in, m * MIN_USEC, &e), 0, "competing %d",
                       (int) m);
        ok(t.competing, "competing seen");

        /* A dip that recovers before the sustain time is not reported. */
        rebuild_slow_tracker_init(&t);
        for (usec_t m = 0; m <= 40; m++) {
                in = input(m % 8 < 5 ? 2 : 50, 10, 0);
                is_int(rebuild_slow_feed(&t, &c, &in, m * MIN_USEC, &e), 0, "dips %d", (int) m);
        }

        /* An admin cap: sync_speed_max 2000 KiB/s, speed 1.8 MiB/s is 92% of it: fine. */
        rebuild_slow_tracker_init(&t);
        in = input(1.8, 10, 0);
        in.sync_speed_max_kib = 2000;
        for (usec_t m = 0; m <= 30; m++)
                is_int(rebuild_slow_feed(&t, &c, &in, m * MIN_USEC, &e), 0, "capped %d", (int) m);
}

static void test_eta(void) {
        RebuildSlowConfig c = REBUILD_SLOW_CONFIG_DEFAULT;
        RebuildSlowTracker t;
        RebuildSlowInput in = input(50, 100, 30); /* busy, fast enough, but 100 h to go */
        RebuildSlowEvent e;
        char buf[512];
        int n = 0;

        rebuild_slow_tracker_init(&t);
        for (usec_t m = 0; m <= 20; m++)
                n += rebuild_slow_feed(&t, &c, &in, m * MIN_USEC, &e) > 0;
        is_int(n, 1, "ETA over the limit reported even with competing I/O");
        is_int(e.reason, REBUILD_SLOW_ETA, "by ETA");
        ok(e.competing, "competing said");
        rebuild_slow_event_format(&e, buf, sizeof(buf));
        ok(strstr(buf, "ETA 4d 4h (limit 3d 0h)") && strstr(buf, "foreground I/O competing (30.0"),
           "text: %s", buf);

        /* A new operation re-arms. */
        in.status.operation = REBUILD_OP_CHECK;
        n = 0;
        for (usec_t m = 30; m <= 50; m++)
                n += rebuild_slow_feed(&t, &c, &in, m * MIN_USEC, &e) > 0;
        is_int(n, 1, "check reported after the recovery");
        in.status.phase = REBUILD_PHASE_IDLE;
        is_int(rebuild_slow_feed(&t, &c, &in, 60 * MIN_USEC, &e), 0, "idle");
        is_int(t.op, REBUILD_OP_IDLE, "re-armed");
        is_int(rebuild_slow_config_validate(&c), 0, "defaults valid");
        c.eta_limit_sec = 0;
        is_int(rebuild_slow_config_validate(&c), -EINVAL, "zero limit invalid");
}

static void test_hw_hint(void) {
        HwRebuildHint h = {};
        char buf[256];

        is_int(hw_rebuild_hint_feed(&h, 0.55, 2.3), 0, "first run");
        is_int(hw_rebuild_hint_feed(&h, NAN, 2.3), 0, "unknown run does not count");
        is_int(hw_rebuild_hint_feed(&h, 0.5, 2.0), 1, "second run: hint");
        is_int(hw_rebuild_hint_feed(&h, 0.5, 2.0), 0, "no repeat");
        is_int(hw_rebuild_hint_feed(&h, 0.5, 1.0), -1, "latency normal: cleared");
        is_int(hw_rebuild_hint_feed(&h, 0.5, 1.0), 0, "stays clear");
        hw_rebuild_hint_format(0.55, 2.3, buf, sizeof(buf));
        ok(strstr(buf, "throughput 55% of baseline while latency 2.3x baseline: possible "
                       "background rebuild") == buf,
           "text: %s", buf);
}

int main(void) {
        test_speed();
        test_eta();
        test_hw_hint();
        return tap_done();
}

/* SPDX-License-Identifier: MIT */
/* Baselines: median and MAD against hand-computed values, the ring window, the learning gate and
 * its precedence, the guard band, the frozen reference under slow drift, no learning
 * during a rebuild, device identity (WWN > serial > udev id > dev_t+size; member order does not
 * matter, a replaced member does), and the set's lookups. */

#include <math.h>
#include <string.h>

#include "analysis/baseline.h"
#include "tap.h"

static void test_median_mad(void) {
        /* 1 2 3 4 100: median 3; deviations 2 1 0 1 97 -> sorted 0 1 1 2 97, median 1. */
        const double v[] = { 100, 3, 1, 4, 2 };
        const double even[] = { 4, 1, 3, 2 }; /* median 2.5; |dev| 1.5 .5 .5 1.5 -> 1.0 */
        double med, mad;

        baseline_median_mad(v, 5, &med, &mad);
        is_double(med, 3, 1e-12, "median of 5 with an outlier");
        is_double(mad, 1 * BASELINE_MAD_SCALE, 1e-12, "scaled MAD ignores the outlier");
        ok(v[0] == 100 && v[4] == 2, "input left in order");
        baseline_median_mad(even, 4, &med, &mad);
        is_double(med, 2.5, 1e-12, "median of an even count");
        is_double(mad, 1.0 * BASELINE_MAD_SCALE, 1e-12, "MAD of an even count");
        baseline_median_mad(v, 0, &med, &mad);
        ok(isnan(med) && isnan(mad), "empty: NAN");
}

static void test_ring(void) {
        BaselineRing r = {};
        BaselineStat st;

        for (int i = 1; i <= 10; i++)
                baseline_ring_push(&r, 4, i);
        is_int(r.n, 4, "ring keeps window values");
        baseline_ring_stat(&r, 4, &st);
        ok(st.ready, "ready at min_samples");
        is_double(st.median, 8.5, 1e-12, "median of the last 4 (7 8 9 10)");
        baseline_ring_stat(&r, 5, &st);
        ok(!st.ready, "not ready below min_samples");
        /* A smaller window later drops the oldest. */
        baseline_ring_push(&r, 2, 11);
        is_int(r.n, 2, "shrunk window");
        baseline_ring_stat(&r, 1, &st);
        is_double(st.median, 10.5, 1e-12, "10 and 11 remain");
        for (int i = 0; i < 200; i++)
                baseline_ring_push(&r, 1000, i);
        is_int(r.n, BASELINE_WINDOW_MAX, "window clamped to the maximum");
}

static BaselineSample sample(double seq, double iops, double p50, double p99) {
        BaselineSample s;

        baseline_sample_init(&s);
        s.v[BASELINE_SEQ_BYTES_PER_SEC] = seq;
        s.v[BASELINE_RAND_IOPS] = iops;
        s.v[BASELINE_LAT_P50_NS] = p50;
        s.v[BASELINE_LAT_P99_NS] = p99;
        return s;
}

static void test_gate(void) {
        BaselineConditions c = { .foreground_utilization = NAN };

        is_int(baseline_gate(&c, 0.3), BASELINE_GATE_OPEN, "healthy idle: open");
        c.foreground_utilization = 0.31;
        is_int(baseline_gate(&c, 0.3), BASELINE_GATE_BUSY, "busy: closed");
        c.foreground_utilization = 0.1;
        c.verdict_standing = true;
        is_int(baseline_gate(&c, 0.3), BASELINE_GATE_VERDICT, "verdict standing: closed");
        c.rebuilding = true;
        is_int(baseline_gate(&c, 0.3), BASELINE_GATE_REBUILDING, "rebuild outranks verdict");
        c.degraded = true;
        is_int(baseline_gate(&c, 0.3), BASELINE_GATE_DEGRADED, "degraded outranks rebuild");
        c.failed = true;
        is_int(baseline_gate(&c, 0.3), BASELINE_GATE_FAILED, "failed first");
        is_str(baseline_gate_to_string(BASELINE_GATE_REBUILDING), "rebuilding", "gate names");
        is_int(baseline_gate_from_string("probe-error"), BASELINE_GATE_PROBE_ERROR, "gate parse");
        is_int(baseline_gate_from_string("nope"), -EINVAL, "unknown gate");
}

static void test_learn(void) {
        Baseline b;
        BaselineStat st;
        BaselineSample s;

        baseline_init(&b, "serial:X", "sdb", 16, 1000);
        is_u64(b.generation, 1, "first generation");
        for (int i = 0; i < 16; i++) {
                s = sample(100e6 + (i % 4) * 1e6, 200, 4e6, 12e6);
                is_int(baseline_learn(&b, &s, 0.2, 8, 2000 + i), 4, "learned 4 metrics");
        }
        baseline_get_stat(&b, BASELINE_SEQ_BYTES_PER_SEC, 8, &st);
        ok(st.ready && st.n == 16, "ready with 16 values");
        is_double(st.median, 101.5e6, 1, "median throughput");

        /* Guard band: a run at 70% is not learned (more than 20% worse), one at 130% is. */
        s = sample(70e6, 200, 4e6, 12e6);
        is_int(baseline_learn(&b, &s, 0.2, 8, 3000), 3, "slow throughput not learned");
        s = sample(130e6, 200, 4e6, 30e6);
        is_int(baseline_learn(&b, &s, 0.2, 8, 3001), 3, "high p99 not learned, fast seq is");

        /* A slow fault creeping in at -1% per run: the ring's median follows it (each value is
         * within the band of the one before), the frozen reference does not. */
        is_double(b.reference[BASELINE_SEQ_BYTES_PER_SEC], 101.5e6, 1, "reference set when full");
        for (int i = 0; i < 60; i++) {
                s = sample(100e6 * pow(0.99, i), 200, 4e6, 12e6);
                (void) baseline_learn(&b, &s, 0.2, 8, 4000 + i);
        }
        baseline_get_stat(&b, BASELINE_SEQ_BYTES_PER_SEC, 8, &st);
        ok(st.median < 70e6, "ring follows the drift: median %.1f MB/s", st.median / 1e6);
        is_double(b.reference[BASELINE_SEQ_BYTES_PER_SEC], 101.5e6, 1, "reference frozen");

        /* NAN, negative and infinite values are never learned. */
        s = sample(NAN, -1, INFINITY, 12e6);
        is_int(baseline_learn(&b, &s, 0.2, 8, 5000), 1, "only the finite value learned");

        baseline_note_rebuild(&b, &s, 6000);
        is_int(b.rebuild[BASELINE_LAT_P99_NS].n, 1, "rebuild run kept aside");
        is_u64(b.rebuild_realtime_usec, 6000, "rebuild time");

        baseline_reset(&b, 7000);
        is_u64(b.generation, 2, "reset bumps the generation");
        is_int(b.ring[BASELINE_SEQ_BYTES_PER_SEC].n, 0, "reset forgets");
        is_u64(b.since_realtime_usec, 7000, "new generation's start");
        is_str(b.identity, "serial:X", "identity kept");
}

/* A rebuild must not teach the baseline: the manager's rule (gate first, then learn) over a
 * series where runs during a rebuild read at 40%. */
static void test_no_learning_during_rebuild(void) {
        Baseline b;
        BaselineStat st;

        baseline_init(&b, "md-uuid:1", "md0", 32, 0);
        for (int i = 0; i < 40; i++) {
                bool rebuilding = i >= 10 && i < 35;
                BaselineConditions c = { .rebuilding = rebuilding, .foreground_utilization = 0 };
                BaselineSample s = sample(rebuilding ? 40e6 : 100e6, 200, 4e6, 12e6);

                if (baseline_gate(&c, BASELINE_IDLE_UTILIZATION_DEFAULT) == BASELINE_GATE_OPEN)
                        (void) baseline_learn(&b, &s, 0, 8, i);
                else
                        baseline_note_rebuild(&b, &s, i);
        }
        baseline_get_stat(&b, BASELINE_SEQ_BYTES_PER_SEC, 8, &st);
        is_int(st.n, 15, "only the 15 runs outside the rebuild learned");
        is_double(st.median, 100e6, 1, "baseline unaffected by the rebuild");
        baseline_ring_stat(&b.rebuild[BASELINE_SEQ_BYTES_PER_SEC], 1, &st);
        is_double(st.median, 40e6, 1, "during-rebuild figures kept for the report");
}

static void test_identity(void) {
        char a[BASELINE_IDENTITY_MAX], b[BASELINE_IDENTITY_MAX];
        const char *m1[] = { "serial:A", "serial:B" }, *m2[] = { "serial:B", "serial:A" };
        const char *m3[] = { "serial:A", "serial:C" };
        char longid[300];

        baseline_identity_compose("0x5000c500a1b2c3d4", "S1", "ata-X", 8, 16, 1000, NULL, 0, a);
        is_str(a, "wwn:0x5000c500a1b2c3d4", "WWN first");
        baseline_identity_compose("", "S1", "ata-X", 8, 16, 1000, NULL, 0, a);
        is_str(a, "serial:S1", "serial second");
        baseline_identity_compose(NULL, NULL, "virtio-pci-0000:00:05.0", 253, 16, 1000, NULL, 0, a);
        is_str(a, "id:virtio-pci-0000:00:05.0", "udev id third");
        baseline_identity_compose(NULL, NULL, NULL, 7, 0, 1048576, NULL, 0, a);
        is_str(a, "devt:7:0:1048576", "dev_t and size last");

        baseline_identity_compose(NULL, NULL, "md-uuid-1", 9, 0, 1, m1, 2, a);
        baseline_identity_compose(NULL, NULL, "md-uuid-1", 9, 0, 1, m2, 2, b);
        is_str(a, b, "member order does not matter");
        ok(strstr(a, ":members=") != NULL, "member hash present: %s", a);
        baseline_identity_compose(NULL, NULL, "md-uuid-1", 9, 0, 1, m3, 2, b);
        ok(strcmp(a, b) != 0, "a replaced member is a new identity");

        memset(longid, 'x', sizeof(longid) - 1);
        longid[sizeof(longid) - 1] = 0;
        baseline_identity_compose(NULL, longid, NULL, 0, 0, 0, m1, 2, a);
        is_int(strlen(a), BASELINE_IDENTITY_MAX - 1, "long identity truncated");
        ok(strstr(a, ":members=") != NULL, "hash survives truncation");
}

static void test_set(void) {
        _cleanup_(baseline_set_freep) BaselineSet *s = NULL;
        Baseline *b, *c;

        ok(baseline_set_new(&s) == 0, "new set");
        is_int(baseline_set_get(s, "serial:A", "sdb", 0, 1, &b), 1, "created");
        is_int(b->window, BASELINE_WINDOW_DEFAULT, "default window");
        b->updated_realtime_usec = 10;
        is_int(baseline_set_get(s, "serial:A", "sdc", 0, 2, &b), 0, "found again");
        is_str(b->name, "sdc", "name label follows the device");
        /* Names move: sdb is now another disk; the old entry is kept under its identity. */
        is_int(baseline_set_get(s, "serial:B", "sdc", 0, 3, &c), 1, "second identity");
        c->updated_realtime_usec = 20;
        is_int(s->n, 2, "both kept");
        ok(baseline_set_find_name(s, "sdc") == &s->items[1], "name lookup: most recent");
        is_int(baseline_set_add(s, &s->items[0]), -EEXIST, "duplicate identity refused");
        is_int(baseline_set_remove(s, "serial:A"), 1, "removed");
        is_int(baseline_set_remove(s, "serial:A"), 0, "already gone");
        is_str(s->items[0].identity, "serial:B", "remaining entry moved down");
        is_int(baseline_set_get(s, "", "x", 0, 0, &b), -EINVAL, "empty identity refused");
        for (int i = 0; i < 100; i++) {
                char id[32];

                snprintf(id, sizeof(id), "devt:8:%d:1", i);
                ok(baseline_set_get(s, id, NULL, 0, 0, &b) == 1, "grow %d", i);
        }
        ok(baseline_set_find(s, "devt:8:57:1") != NULL, "lookup after growth");
}

int main(void) {
        test_median_mad();
        test_ring();
        test_gate();
        test_learn();
        test_no_learning_during_rebuild();
        test_identity();
        test_set();
        return tap_done();
}

/* SPDX-License-Identifier: MIT */
/* Shared degradation (analysis/common-mode): the factor of a finding, the rule on hand-made
 * rounds (all peers alike, one member slow, a host stall hitting one member harder, two
 * members, members not probed), and a synthetic series of three members (lognormal run noise)
 * with host stalls that slow every member alike for two rounds in a row: without the rule the
 * members' own-baseline detectors give verdicts, with it none, while a member +20 ms is still
 * found in exactly K runs and not shared. */

#include <math.h>
#include <stdint.h>

#include "analysis/common-mode.h"
#include "tap.h"
#include "test-rng.h"

static double lognormal(Rng *r, double sigma) {
        return exp(sigma * sqrt(-2 * log(rng_uniform(r))) * cos(2 * M_PI * rng_uniform(r)));
}

static void test_factor(void) {
        DetectorFinding f = { .metric = BASELINE_SEQ_BYTES_PER_SEC, .ratio = 0.25 };

        is_double(common_mode_factor(&f), 4, 1e-12, "throughput at 25%%: factor 4");
        f.ratio = 1.3;
        is_double(common_mode_factor(&f), 1, 0, "throughput above baseline: 1");
        f.ratio = 0;
        ok(isinf(common_mode_factor(&f)), "nothing read: infinite");
        f = (DetectorFinding){ .metric = BASELINE_LAT_P99_NS, .ratio = 6 };
        is_double(common_mode_factor(&f), 6, 1e-12, "p99 6x: factor 6");
        f.ratio = 0.5;
        is_double(common_mode_factor(&f), 1, 0, "latency below baseline: 1");
        f.ratio = NAN;
        is_double(common_mode_factor(&f), 1, 0, "NAN ratio: 1");
        f.metric = _BASELINE_METRIC_INVALID;
        is_double(common_mode_factor(&f), 1, 0, "no finding: 1");
        is_double(common_mode_factor(NULL), 1, 0, "NULL: 1");
}

static void test_rounds(void) {
        CommonModeConfig c = COMMON_MODE_CONFIG_DEFAULT;

        ok(common_mode_config_validate(&c) == 0, "defaults valid");
        const double alike[] = { 10, 12, 9 };
        for (size_t i = 0; i < 3; i++)
                ok(common_mode_shared(&c, alike, 3, i), "all peers alike: member %zu shared", i);
        const double one_slow[] = { 1.1, 60, 1.0 };
        ok(!common_mode_shared(&c, one_slow, 3, 1), "one member 60x, peers 1x: not shared");
        const double stall[] = { 50, 8, 10 };
        ok(common_mode_shared(&c, stall, 3, 0), "host stall, one member hit harder: shared");
        const double apart[] = { 200, 3, 2.5 };
        ok(!common_mode_shared(&c, apart, 3, 0), "200x against peers at 3x: not shared");
        const double half[] = { 10, 9, 1, 1 };
        ok(!common_mode_shared(&c, half, 4, 0), "two of three peers healthy: not shared");
        const double even[] = { 10, 9, 1 };
        ok(!common_mode_shared(&c, even, 3, 0),
           "one of two peers healthy: lower median, not shared");
        ok(!common_mode_shared(&c, one_slow, 3, 0),
           "a healthy member beside a slow one: not shared");
        const double two[] = { 10, 9 }, two_slow[] = { 10, 1.2 };
        ok(common_mode_shared(&c, two, 2, 0), "two members alike: shared");
        ok(!common_mode_shared(&c, two_slow, 2, 0), "two members, one slow: not shared");
        const double skipped[] = { 10, NAN, NAN };
        ok(!common_mode_shared(&c, skipped, 3, 0), "no peer probed: not shared");
        const double lone[] = { 10 };
        ok(!common_mode_shared(&c, lone, 1, 0), "a single member: not shared");
        ok(!common_mode_shared(&c, alike, 3, 3), "index out of range");
        c.spread = 0.5;
        ok(common_mode_config_validate(&c) == -EINVAL, "spread < 1 invalid");
        c = (CommonModeConfig){ .min_factor = 1, .spread = 8 };
        ok(common_mode_config_validate(&c) == -EINVAL, "min_factor 1 invalid");
}

#define MEMBERS 3

/* One member's run: 300 MB/s, 3000 IOPS, p50 0.3 ms, p99 1 ms, lognormal noise; stall divides
 * throughput and IOPS and multiplies latency; add_ns is a fail-slow delay per read. */
static BaselineSample member_run(Rng *r, double stall, double add_ns) {
        BaselineSample s;

        baseline_sample_init(&s);
        s.v[BASELINE_SEQ_BYTES_PER_SEC] = 300e6 * lognormal(r, 0.15) / stall;
        s.v[BASELINE_LAT_P50_NS] = 0.3e6 * lognormal(r, 0.15) * stall + add_ns;
        s.v[BASELINE_LAT_P99_NS] = 1e6 * lognormal(r, 0.25) * stall + add_ns;
        s.v[BASELINE_RAND_IOPS] = 1e9 / s.v[BASELINE_LAT_P50_NS];
        return s;
}

typedef struct Series {
        Baseline b[MEMBERS];
        Detector d[MEMBERS];
        unsigned verdicts[MEMBERS], shared;
} Series;

static void series_init(Series *t, Rng *r) {
        const DetectorConfig dc = DETECTOR_CONFIG_DEFAULT;

        *t = (Series){};
        for (size_t m = 0; m < MEMBERS; m++) {
                baseline_init(&t->b[m], "id", "dm", 0, 0);
                detector_init(&t->d[m]);
                for (unsigned k = 0; k < BASELINE_WINDOW_DEFAULT; k++) {
                        BaselineSample s = member_run(r, 1, 0);

                        (void) baseline_learn(&t->b[m], &s, dc.guard, dc.min_samples, 0);
                }
        }
}

/* One round: every member's run classified, factors compared, detectors fed unless shared
 * (use_rule). Returns the member that got a verdict this round, or -1. */
static int series_round(Series *t, Rng *r, double stall, int slow, bool use_rule) {
        const DetectorConfig dc = DETECTOR_CONFIG_DEFAULT;
        const CommonModeConfig cc = COMMON_MODE_CONFIG_DEFAULT;
        BaselineSample s[MEMBERS];
        double f[MEMBERS];
        int got = -1;

        for (size_t m = 0; m < MEMBERS; m++) {
                DetectorFinding w;
                /* a stall hits every member, each by its own amount (x0.5..x2 around it) */
                double st = stall > 1 ? stall * lognormal(r, 0.35) : 1;

                s[m] = member_run(r, st, (int) m == slow ? 20e6 : 0);
                (void) detector_classify(&dc, &t->b[m], &s[m], NAN, &w);
                f[m] = common_mode_factor(&w);
        }
        for (size_t m = 0; m < MEMBERS; m++) {
                DetectorEvent ev;

                if (use_rule && common_mode_shared(&cc, f, MEMBERS, m)) {
                        t->shared++;
                        continue;
                }
                if (detector_feed(&t->d[m], &dc, &t->b[m], &s[m], NAN, false, NULL, 0, &ev) > 0 &&
                    ev.type == DETECTOR_EVENT_DEGRADED) {
                        t->verdicts[m]++;
                        got = (int) m;
                }
        }
        return got;
}

static unsigned series_healthy(Series *t, Rng *r, bool use_rule) {
        unsigned total = 0;

        /* 200 rounds; a stall of 5..50x for two rounds every 20 */
        for (unsigned k = 0; k < 200; k++) {
                double stall = k % 20 >= 18 ? 5 + 45 * rng_uniform(r) : 1;

                (void) series_round(t, r, stall, -1, use_rule);
        }
        for (size_t m = 0; m < MEMBERS; m++)
                total += t->verdicts[m];
        return total;
}

static void test_series(void) {
        Series t;
        Rng r = { 11 };
        unsigned without, with, runs = 0;
        int got = -1;

        series_init(&t, &r);
        without = series_healthy(&t, &r, false);
        tap_diag("without the rule: %u own-baseline verdicts in 200 rounds", without);
        ok(without > 0, "host stalls give member verdicts without the rule (%u)", without);

        r = (Rng){ 11 };
        series_init(&t, &r);
        with = series_healthy(&t, &r, true);
        is_int(with, 0, "no member verdict with the rule over 200 rounds with 20 stall rounds");
        ok(t.shared >= 20, "stall rounds were shared (%u member runs)", t.shared);

        /* three good rounds, then member 1 +20 ms per read: found in K = 2 runs, not shared */
        for (unsigned k = 0; k < 3; k++)
                (void) series_round(&t, &r, 1, -1, true);
        t.shared = 0;
        while (got < 0 && runs < 5) {
                got = series_round(&t, &r, 1, 1, true);
                runs++;
        }
        is_int(got, 1, "the slow member gets the verdict");
        is_int(runs, 2, "after K = 2 runs");
        is_int(t.shared, 0, "its runs are not shared");
}

int main(void) {
        test_factor();
        test_rounds();
        test_series();
        return tap_done();
}

/* SPDX-License-Identifier: MIT */
/* Latency histogram: exactness of small values, the documented relative error bound over
 * 1 ns .. 30 s, percentiles against an exact sorted-array reference on several distributions,
 * empty and huge inputs, merge == histogram of the concatenation, count_le at bucket bounds. */

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/histogram.h"
#include "basic/macro.h"
#include "tap.h"
#include "test-rng.h"

/* The bound the header documents; everything below is checked against it, and it against 1%. */
#define REL_BOUND (1.0 / (double) (2U << HIST_SUB_BITS))

/* Deterministic PRNG (test-rng.h) so failures reproduce. */
static Rng rng;

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
        return x < y ? -1 : x > y;
}

/* Exact nearest-rank reference on a sorted array; pp is the percentile in units of 0.01%, so
 * the rank ceil(pp * n / 10000) is computed in integers, independently of the histogram's
 * floating-point rank. */
static uint64_t ref_percentile(const uint64_t *sorted, size_t n, unsigned pp) {
        uint64_t rank = ((uint64_t) pp * n + 9999) / 10000;

        if (rank < 1)
                rank = 1;
        if (rank > n)
                rank = n;
        return sorted[rank - 1];
}

/* Number of samples <= le in a sorted array. */
static uint64_t ref_count_le(const uint64_t *sorted, size_t n, uint64_t le) {
        size_t lo = 0, hi = n;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (sorted[mid] <= le)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo;
}

static double rel_err(uint64_t got, uint64_t want) {
        if (want == 0)
                return got == 0 ? 0 : INFINITY;
        return fabs((double) got - (double) want) / (double) want;
}

static void test_bound_documented(void) {
        ok(REL_BOUND <= 0.01, "documented bound 2^-(HIST_SUB_BITS+1) = %.5f%% is <= 1%%",
           REL_BOUND * 100);
}

static void test_layout(void) {
        unsigned bad_contig = 0, bad_index = 0;

        is_u64(latency_histogram_bucket_lower(0), 0, "bucket 0 starts at 0");
        for (size_t i = 0; i + 1 < HIST_BUCKETS; i++) {
                nsec_t lo = latency_histogram_bucket_lower(i),
                       up = latency_histogram_bucket_upper(i);

                if (up + 1 != latency_histogram_bucket_lower(i + 1) || up < lo)
                        bad_contig++;
                if (latency_histogram_bucket_index(lo) != i ||
                    latency_histogram_bucket_index(up) != i)
                        bad_index++;
        }
        is_int(bad_contig, 0, "buckets are contiguous and non-empty");
        is_int(bad_index, 0, "bucket_index() maps both bounds of every bucket to that bucket");
        is_u64(latency_histogram_bucket_lower(HIST_OVERFLOW_INDEX), HIST_MAX_TRACKED_NS,
               "overflow bucket starts at HIST_MAX_TRACKED_NS");
        is_u64(latency_histogram_bucket_upper(HIST_OVERFLOW_INDEX), UINT64_MAX,
               "overflow bucket ends at UINT64_MAX");
        is_u64(latency_histogram_bucket_upper(HIST_OVERFLOW_INDEX - 1), HIST_MAX_TRACKED_NS - 1,
               "last regular bucket ends just below HIST_MAX_TRACKED_NS");
        ok(HIST_MAX_TRACKED_NS > 30 * NSEC_PER_SEC, "tracked range covers 30 s");
        is_u64(sizeof(LatencyHistogram), (HIST_BUCKETS + 4) * sizeof(uint64_t),
               "fixed memory: %zu bytes", sizeof(LatencyHistogram));
}

static void test_small_exact(void) {
        static const nsec_t t[] = { 0, 1, 2, 7, 63, 64, 65, 100, 126, 127 };
        unsigned bad = 0;

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                LatencyHistogram h;

                latency_histogram_init(&h);
                latency_histogram_add(&h, 0);
                latency_histogram_add(&h, t[i]);
                latency_histogram_add(&h, UINT64_MAX);
                /* p50 is the middle sample; min/max clamping cannot help here. */
                is_u64(latency_histogram_percentile(&h, 50), t[i], "%" PRIu64 " ns is exact", t[i]);
        }
        /* Every value below 128 has a bucket of its own. */
        for (nsec_t v = 0; v < 2 * HIST_SUB_BUCKETS; v++)
                if (latency_histogram_bucket_lower(latency_histogram_bucket_index(v)) != v ||
                    latency_histogram_bucket_upper(latency_histogram_bucket_index(v)) != v)
                        bad++;
        is_int(bad, 0, "values 0..127 each have a bucket of width 1");
        ok(latency_histogram_bucket_upper(latency_histogram_bucket_index(128)) > 128,
           "128 is the first value sharing a bucket");
}

/* Reports v through the percentile path (three samples, v in the middle, sentinels far away so
 * clamping to [min, max] does not hide the bucket midpoint). */
static nsec_t reported(const LatencyHistogram *base, nsec_t v) {
        LatencyHistogram h = *base;

        latency_histogram_add(&h, v);
        return latency_histogram_percentile(&h, 50);
}

static void test_error_sweep(void) {
        LatencyHistogram base;
        double worst = 0, worst_bounds = 0;
        nsec_t worst_v = 0;
        unsigned n = 0, over = 0;

        latency_histogram_init(&base);
        latency_histogram_add(&base, 0);
        latency_histogram_add(&base, UINT64_MAX);

        /* Geometric sweep 1 ns .. 30 s, ratio 1.0007 (~34k values), plus v-1, v, v+1. */
        for (double x = 1; x <= 30e9; x *= 1.0007)
                for (int d = -1; d <= 1; d++) {
                        nsec_t v = (nsec_t) x + (nsec_t) d;
                        double e;

                        if ((nsec_t) x == 0 && d < 0)
                                continue;
                        e = rel_err(reported(&base, v), v);
                        n++;
                        if (e > REL_BOUND)
                                over++;
                        if (e > worst) {
                                worst = e;
                                worst_v = v;
                        }
                }
        /* Worst case by construction: the lowest value of each bucket. */
        for (size_t i = 0; i < HIST_OVERFLOW_INDEX; i++) {
                nsec_t lo = latency_histogram_bucket_lower(i);
                double e = rel_err(reported(&base, lo), lo);

                n++;
                if (e > REL_BOUND)
                        over++;
                worst_bounds = MAX(worst_bounds, e);
        }
        tap_diag("sweep: %u values, worst %.5f%% at %" PRIu64 " ns, worst at bucket bounds %.5f%%",
                 n, worst * 100, worst_v, worst_bounds * 100);
        is_int(over, 0, "every value in 1 ns..30 s reported within %.4f%%", REL_BOUND * 100);
        ok(worst <= 0.01 && worst_bounds <= 0.01, "... and therefore within 1%%");
        /* The bound is tight (the test would notice a coarser layout): the worst case reaches
         * more than 90% of it. */
        ok(worst_bounds > 0.9 * REL_BOUND, "bound is nearly reached at bucket bounds (%.5f%%)",
           worst_bounds * 100);
}

static void test_rank_exact(void) {
        /* 100 samples 0..99 (exact values, shuffled): every percentile in steps of 0.01% must be
         * exactly the nearest-rank sample, including p where p/100*n is not representable. */
        uint64_t v[100], sorted[100];
        LatencyHistogram h;
        unsigned bad = 0, first_bad = 0;

        rng = (Rng){ .s = 7 };
        for (size_t i = 0; i < 100; i++)
                v[i] = sorted[i] = i;
        for (size_t i = 99; i > 0; i--) {
                size_t j = rng_next(&rng) % (i + 1);
                uint64_t t = v[i];
                v[i] = v[j];
                v[j] = t;
        }
        latency_histogram_init(&h);
        for (size_t i = 0; i < 100; i++)
                latency_histogram_add(&h, v[i]);
        for (unsigned pp = 0; pp <= 10000; pp++)
                if (latency_histogram_percentile(&h, pp / 100.0) !=
                    ref_percentile(sorted, 100, pp)) {
                        if (!bad)
                                first_bad = pp;
                        bad++;
                }
        is_int(bad, 0, "nearest rank exact for p = 0.00..100.00 on 0..99 (first bad p=%.2f)",
               first_bad / 100.0);
        is_u64(latency_histogram_percentile(&h, 7), 6, "p7 of 0..99 is 6 (0.07*100 > 7 in fp)");
        is_u64(latency_histogram_percentile(&h, 99.9), 99, "p99.9 of 0..99 is 99");
}

typedef enum Distribution {
        DIST_UNIFORM,
        DIST_LOGNORMAL,
        DIST_BIMODAL,
        DIST_HEAVY_TAIL,
        _DIST_MAX,
} Distribution;

static const char *const dist_name[_DIST_MAX] = {
        [DIST_UNIFORM] = "uniform 1us..10ms",
        [DIST_LOGNORMAL] = "log-normal median 200us sigma 1",
        [DIST_BIMODAL] = "bimodal 90% ~100us, 10% ~50ms",
        [DIST_HEAVY_TAIL] = "pareto-ish 50us..30s",
};

static nsec_t sample(Distribution d) {
        double x = 0;

        switch (d) {
        case DIST_UNIFORM:
                return 1000 + rng_next(&rng) % (10 * NSEC_PER_MSEC - 1000);
        case DIST_LOGNORMAL:
                x = 200e3 * exp(rng_normal(&rng));
                break;
        case DIST_BIMODAL:
                if (rng_uniform(&rng) < 0.9)
                        x = 100e3 + 10e3 * rng_normal(&rng);
                else
                        x = 50e6 + 5e6 * rng_normal(&rng);
                break;
        case DIST_HEAVY_TAIL:
                x = MIN(50e3 / pow(rng_uniform(&rng), 1.0 / 1.1), 30e9);
                break;
        case _DIST_MAX:
                break;
        }
        return x < 1 ? 1 : (nsec_t) x;
}

#define N_SAMPLES 100000

static void fill(Distribution d, uint64_t seed, uint64_t *v, size_t n) {
        rng = (Rng){ .s = seed };
        for (size_t i = 0; i < n; i++)
                v[i] = sample(d);
}

static void test_percentiles(void) {
        static const unsigned pps[] = { 0,    1,    100,  1000, 2500, 5000, 7500,
                                        9000, 9500, 9900, 9990, 9999, 10000 };
        _cleanup_free_ uint64_t *v = calloc(N_SAMPLES, sizeof(uint64_t));

        if (!v) {
                ok(0, "allocation");
                return;
        }
        for (Distribution d = 0; d < _DIST_MAX; d++) {
                LatencyHistogram h;
                uint64_t sum = 0;
                double worst = 0;
                unsigned over = 0;

                fill(d, 1000 + d, v, N_SAMPLES);
                latency_histogram_init(&h);
                for (size_t i = 0; i < N_SAMPLES; i++) {
                        latency_histogram_add(&h, v[i]);
                        sum += v[i];
                }
                qsort(v, N_SAMPLES, sizeof(uint64_t), cmp_u64);

                for (size_t i = 0; i < ELEMENTSOF(pps); i++) {
                        uint64_t want = ref_percentile(v, N_SAMPLES, pps[i]);
                        uint64_t got = latency_histogram_percentile(&h, pps[i] / 100.0);
                        double e = rel_err(got, want);

                        worst = MAX(worst, e);
                        if (e > REL_BOUND) {
                                over++;
                                tap_diag("%s p%.2f: got %" PRIu64 ", want %" PRIu64, dist_name[d],
                                         pps[i] / 100.0, got, want);
                        }
                }
                is_int(over, 0, "%s: percentiles within %.3f%% of exact (worst %.4f%%)",
                       dist_name[d], REL_BOUND * 100, worst * 100);
                is_u64(latency_histogram_percentile(&h, 0), v[0], "%s: p0 == min exactly",
                       dist_name[d]);
                is_u64(latency_histogram_percentile(&h, 100), v[N_SAMPLES - 1],
                       "%s: p100 == max exactly", dist_name[d]);
                is_u64(h.count, N_SAMPLES, "%s: count", dist_name[d]);
                is_u64(h.sum_ns, sum, "%s: sum exact", dist_name[d]);
                is_double(latency_histogram_mean_ns(&h), (double) sum / N_SAMPLES, 1e-6,
                          "%s: mean exact", dist_name[d]);
        }
        /* Out-of-range p is clamped, never UB. */
        {
                LatencyHistogram h;

                latency_histogram_init(&h);
                latency_histogram_add(&h, 5000);
                latency_histogram_add(&h, 7000);
                is_u64(latency_histogram_percentile(&h, -3), 5000, "p < 0 -> min");
                is_u64(latency_histogram_percentile(&h, NAN), 5000, "p NaN -> min");
                is_u64(latency_histogram_percentile(&h, 250), 7000, "p > 100 -> max");
                is_u64(latency_histogram_percentile(&h, INFINITY), 7000, "p inf -> max");
        }
}

static void test_empty(void) {
        LatencyHistogram h, zero, other;

        latency_histogram_init(&h);
        memset(&zero, 0, sizeof(zero));
        ok(memcmp(&h, &zero, sizeof(h)) == 0, "init == all-zero struct");
        is_u64(latency_histogram_percentile(&h, 0), 0, "empty p0 is 0");
        is_u64(latency_histogram_percentile(&h, 50), 0, "empty p50 is 0");
        is_u64(latency_histogram_percentile(&h, 100), 0, "empty p100 is 0");
        is_double(latency_histogram_mean_ns(&h), 0, 0, "empty mean is 0");
        is_u64(latency_histogram_count_le(&h, 0), 0, "empty count_le(0)");
        is_u64(latency_histogram_count_le(&h, UINT64_MAX), 0, "empty count_le(max)");

        latency_histogram_merge(&h, &zero);
        ok(memcmp(&h, &zero, sizeof(h)) == 0, "empty + empty is empty");

        latency_histogram_init(&other);
        latency_histogram_add(&other, 300);
        latency_histogram_add(&other, 200000);
        h = other;
        latency_histogram_merge(&h, &zero);
        ok(memcmp(&h, &other, sizeof(h)) == 0, "x + empty == x");
        latency_histogram_init(&h);
        latency_histogram_merge(&h, &other);
        ok(memcmp(&h, &other, sizeof(h)) == 0, "empty + x == x (min/max taken from x)");
        is_u64(h.min_ns, 300, "min after merge into empty");
}

static void test_merge(void) {
        static const size_t na = 30000, nb = 45000;
        _cleanup_free_ uint64_t *v = calloc(na + nb, sizeof(uint64_t));
        LatencyHistogram a, b, all, m, twice;

        if (!v) {
                ok(0, "allocation");
                return;
        }
        /* Different distributions on each side, so min and max come from different inputs. */
        fill(DIST_BIMODAL, 11, v, na);
        fill(DIST_HEAVY_TAIL, 12, v + na, nb);
        v[3] = 17; /* min from a */
        latency_histogram_init(&a);
        latency_histogram_init(&b);
        latency_histogram_init(&all);
        for (size_t i = 0; i < na + nb; i++) {
                latency_histogram_add(i < na ? &a : &b, v[i]);
                latency_histogram_add(&all, v[i]);
        }
        m = a;
        latency_histogram_merge(&m, &b);
        ok(memcmp(&m, &all, sizeof(m)) == 0, "merge(a, b) == histogram of a ++ b");
        m = b;
        latency_histogram_merge(&m, &a);
        ok(memcmp(&m, &all, sizeof(m)) == 0, "merge(b, a) == histogram of a ++ b");

        /* Self-merge: the histogram of every sample twice. */
        latency_histogram_init(&twice);
        for (size_t i = 0; i < na; i++) {
                latency_histogram_add(&twice, v[i]);
                latency_histogram_add(&twice, v[i]);
        }
        m = a;
        latency_histogram_merge(&m, &m);
        ok(memcmp(&m, &twice, sizeof(m)) == 0, "merge(a, a) aliasing == a twice");
}

static void test_huge(void) {
        static const nsec_t t[] = { HIST_MAX_TRACKED_NS - 1, HIST_MAX_TRACKED_NS,
                                    HIST_MAX_TRACKED_NS + 1, UINT64_MAX / 2,
                                    UINT64_MAX - 1,          UINT64_MAX };
        LatencyHistogram h;

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                size_t idx = latency_histogram_bucket_index(t[i]);

                ok(idx < HIST_BUCKETS, "index of %" PRIu64 " in range", t[i]);
                ok(t[i] >= latency_histogram_bucket_lower(idx) &&
                           t[i] <= latency_histogram_bucket_upper(idx),
                   "%" PRIu64 " within its bucket's bounds", t[i]);
        }
        is_int(latency_histogram_bucket_index(HIST_MAX_TRACKED_NS - 1), HIST_OVERFLOW_INDEX - 1,
               "just below the tracked range: last regular bucket");
        is_int(latency_histogram_bucket_index(UINT64_MAX), HIST_OVERFLOW_INDEX,
               "UINT64_MAX: overflow bucket");

        latency_histogram_init(&h);
        latency_histogram_add(&h, UINT64_MAX);
        latency_histogram_add(&h, UINT64_MAX);
        is_u64(h.max_ns, UINT64_MAX, "max exact at UINT64_MAX");
        is_u64(latency_histogram_percentile(&h, 50), UINT64_MAX, "p50 of {max, max} is max");
        is_u64(h.sum_ns, UINT64_MAX, "sum saturates");
        ok(isfinite(latency_histogram_mean_ns(&h)), "mean finite after saturation");

        latency_histogram_init(&h);
        latency_histogram_add(&h, 1000);
        latency_histogram_add(&h, 100 * NSEC_PER_SEC);
        latency_histogram_add(&h, 200 * NSEC_PER_SEC);
        is_u64(latency_histogram_percentile(&h, 60), 200 * NSEC_PER_SEC,
               "percentile landing in the overflow bucket reports the exact max");
        is_u64(latency_histogram_percentile(&h, 100), 200 * NSEC_PER_SEC, "p100 exact max");
        is_u64(latency_histogram_count_le(&h, HIST_MAX_TRACKED_NS - 1), 1,
               "count_le below the overflow bucket");
        is_u64(latency_histogram_count_le(&h, UINT64_MAX), 3, "count_le(UINT64_MAX) == count");
}

static void test_count_le(void) {
        _cleanup_free_ uint64_t *v = calloc(N_SAMPLES, sizeof(uint64_t));
        LatencyHistogram h;
        unsigned bad_exact = 0, bad_mono = 0, bad_range = 0;
        uint64_t prev = 0;

        if (!v) {
                ok(0, "allocation");
                return;
        }
        fill(DIST_LOGNORMAL, 99, v, N_SAMPLES / 2);
        fill(DIST_UNIFORM, 98, v + N_SAMPLES / 2, N_SAMPLES / 2);
        v[0] = 3;
        latency_histogram_init(&h);
        for (size_t i = 0; i < N_SAMPLES; i++)
                latency_histogram_add(&h, v[i]);
        qsort(v, N_SAMPLES, sizeof(uint64_t), cmp_u64);

        for (size_t i = 0; i < HIST_BUCKETS; i++) {
                nsec_t up = latency_histogram_bucket_upper(i);

                if (latency_histogram_count_le(&h, up) != ref_count_le(v, N_SAMPLES, up))
                        bad_exact++;
        }
        is_int(bad_exact, 0, "count_le exact at every bucket upper bound");

        /* Monotonic over a dense sweep including values inside buckets; never over the truth
         * and never below the truth minus le's own bucket. */
        for (double x = 1; x < 1e11; x *= 1.003) {
                nsec_t le = (nsec_t) x;
                uint64_t c = latency_histogram_count_le(&h, le),
                         want = ref_count_le(v, N_SAMPLES, le);
                size_t idx = latency_histogram_bucket_index(le);

                if (c < prev)
                        bad_mono++;
                if (c > want || c + h.buckets[idx] < want)
                        bad_range++;
                prev = c;
        }
        is_int(bad_mono, 0, "count_le monotonic");
        is_int(bad_range, 0, "count_le within one bucket below the truth between bounds");
        is_u64(latency_histogram_count_le(&h, 2), 0, "count_le below min is 0");
        is_u64(latency_histogram_count_le(&h, 3), 1, "count_le(min) counts min");
        is_u64(latency_histogram_count_le(&h, v[N_SAMPLES - 1]), N_SAMPLES,
               "count_le(max) == count");
}

int main(void) {
        test_bound_documented();
        test_layout();
        test_small_exact();
        test_error_sweep();
        test_rank_exact();
        test_percentiles();
        test_empty();
        test_merge();
        test_huge();
        test_count_le();
        return tap_done();
}

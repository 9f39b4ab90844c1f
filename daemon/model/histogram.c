/* SPDX-License-Identifier: MIT */
/* Log-linear latency histogram, after fio's stat.h "executive summary".
 *
 * Layout: a latency v (ns) below 2^(HIST_SUB_BITS+1) = 128 gets a bucket of its own, so small
 * values are exact. Above, let m = floor(log2(v)) (m >= 7 there, m >= 6 for the exact group 1);
 * v is placed in group g = m - HIST_SUB_BITS + 1 and, inside it, in sub-bucket
 * (v >> (m - HIST_SUB_BITS)) & (2^HIST_SUB_BITS - 1): the bits after the leading one. Each group
 * is one power of two split into 2^HIST_SUB_BITS = 64 equal buckets of width w = 2^(g-1).
 * Group 0 is [0, 64) and group 1 is [64, 128), both one value per bucket, so index == value for
 * v < 128. HIST_GROUPS = 30 groups reach 2^36 ns (~68.7 s); anything larger (up to UINT64_MAX)
 * goes to a single overflow bucket, whose percentile is reported as the exact max.
 *
 * Memory: HIST_BUCKETS = 31 * 64 + 1 = 1985 counters of 8 bytes, ~15.5 KiB, fixed; no allocation.
 *
 * Error bound: a percentile is reported as the integer midpoint lower + (w-1)/2 of the bucket the
 * nearest-rank sample falls in. That sample v >= lower >= 2^(g+5) and |midpoint - v| <= w/2 =
 * 2^(g-2), so the relative error is <= 2^-(HIST_SUB_BITS+1) = 1/128 = 0.78% (< 1%), and zero for
 * v < 128. The result is clamped to [min, max], which only moves it closer to v. min, max, count
 * and sum are kept exactly beside the buckets (sum saturates at UINT64_MAX).
 *
 * Mergeability: the bucket of a value depends on the value alone, so histograms from different
 * runs, threads or processes add bucket by bucket and the sum is exactly the histogram of all
 * their samples (min/max/count/sum combine exactly too).
 *
 * Pure: no I/O, no clock, no allocation, no failure paths. */

#include <assert.h>
#include <math.h>
#include <string.h>

#include "model/histogram.h"
#include "basic/macro.h"
#include "basic/math-util.h"

/* Width (number of distinct integer values) of a bucket in group g. */
static nsec_t group_width(size_t g) {
        return g == 0 ? 1 : (nsec_t) 1 << (g - 1);
}

size_t latency_histogram_bucket_index(nsec_t v) {
        unsigned msb;

        if (v < HIST_SUB_BUCKETS)
                return (size_t) v;
        if (v >= HIST_MAX_TRACKED_NS)
                return HIST_OVERFLOW_INDEX;

        msb = 63U -
              (unsigned) __builtin_clzll(v); /* HIST_SUB_BITS .. HIST_SUB_BITS+HIST_GROUPS-1 */
        return (size_t) (msb - HIST_SUB_BITS + 1) * HIST_SUB_BUCKETS +
               (size_t) ((v >> (msb - HIST_SUB_BITS)) & (HIST_SUB_BUCKETS - 1));
}

nsec_t latency_histogram_bucket_lower(size_t i) {
        size_t g, sub;

        if (i >= HIST_OVERFLOW_INDEX)
                return HIST_MAX_TRACKED_NS;

        g = i / HIST_SUB_BUCKETS;
        sub = i % HIST_SUB_BUCKETS;
        if (g == 0)
                return (nsec_t) sub;
        return ((nsec_t) HIST_SUB_BUCKETS + sub) << (g - 1);
}

nsec_t latency_histogram_bucket_upper(size_t i) {
        if (i >= HIST_OVERFLOW_INDEX)
                return UINT64_MAX;
        return latency_histogram_bucket_lower(i) + group_width(i / HIST_SUB_BUCKETS) - 1;
}

static nsec_t bucket_midpoint(size_t i) {
        return latency_histogram_bucket_lower(i) + (group_width(i / HIST_SUB_BUCKETS) - 1) / 2;
}

static uint64_t add_saturating(uint64_t a, uint64_t b) {
        uint64_t r;

        if (__builtin_add_overflow(a, b, &r))
                return UINT64_MAX;
        return r;
}

void latency_histogram_init(LatencyHistogram *h) {
        assert(h);
        memset(h, 0, sizeof(*h));
}

void latency_histogram_add(LatencyHistogram *h, nsec_t v) {
        assert(h);

        h->buckets[latency_histogram_bucket_index(v)]++;
        if (h->count == 0)
                h->min_ns = h->max_ns = v;
        else {
                h->min_ns = MIN(h->min_ns, v);
                h->max_ns = MAX(h->max_ns, v);
        }
        h->count++;
        h->sum_ns = add_saturating(h->sum_ns, v);
}

void latency_histogram_merge(LatencyHistogram *dst, const LatencyHistogram *src) {
        uint64_t src_count, src_sum;
        nsec_t src_min, src_max;

        assert(dst);
        assert(src);

        /* Snapshot first: src may alias dst. */
        src_count = src->count;
        src_sum = src->sum_ns;
        src_min = src->min_ns;
        src_max = src->max_ns;
        if (src_count == 0)
                return;

        for (size_t i = 0; i < HIST_BUCKETS; i++)
                dst->buckets[i] += src->buckets[i];

        if (dst->count == 0) {
                dst->min_ns = src_min;
                dst->max_ns = src_max;
        } else {
                dst->min_ns = MIN(dst->min_ns, src_min);
                dst->max_ns = MAX(dst->max_ns, src_max);
        }
        dst->count += src_count;
        dst->sum_ns = add_saturating(dst->sum_ns, src_sum);
}

/* Nearest rank, 1-based: the smallest k with k >= p/100 * n. A product within 1e-9 (relative) of
 * an integer is taken as that integer, so 99.9% of 1000 samples is rank 999 although 99.9 is not
 * representable in binary. */
static uint64_t nearest_rank(double p, uint64_t n) {
        double x = p / 100.0 * (double) n, r = round_half_away(x);
        uint64_t k;

        if (fabs(x - r) <= 1e-9 * x)
                k = (uint64_t) r;
        else
                k = (uint64_t) ceil(x);
        return CLAMP(k, (uint64_t) 1, n);
}

nsec_t latency_histogram_percentile(const LatencyHistogram *h, double p) {
        uint64_t rank, seen = 0;

        assert(h);

        if (h->count == 0)
                return 0;
        if (!(p > 0)) /* also NaN */
                return h->min_ns;
        if (p >= 100)
                return h->max_ns;

        rank = nearest_rank(p, h->count);
        for (size_t i = 0; i < HIST_BUCKETS; i++) {
                seen += h->buckets[i];
                if (seen < rank)
                        continue;
                if (i == HIST_OVERFLOW_INDEX)
                        return h->max_ns;
                return CLAMP(bucket_midpoint(i), h->min_ns, h->max_ns);
        }

        /* Buckets sum to less than count: only possible for a corrupted struct. */
        return h->max_ns;
}

double latency_histogram_mean_ns(const LatencyHistogram *h) {
        assert(h);

        if (h->count == 0)
                return 0;
        return (double) h->sum_ns / (double) h->count;
}

uint64_t latency_histogram_count_le(const LatencyHistogram *h, nsec_t le_ns) {
        uint64_t n = 0;
        size_t idx;

        assert(h);

        if (h->count == 0 || le_ns < h->min_ns)
                return 0;
        if (le_ns >= h->max_ns)
                return h->count;

        idx = latency_histogram_bucket_index(le_ns);
        for (size_t i = 0; i < idx; i++)
                n += h->buckets[i];
        if (latency_histogram_bucket_upper(idx) == le_ns)
                n += h->buckets[idx];
        return n;
}

/* SPDX-License-Identifier: MIT */
#pragma once

/* Log-linear latency histogram (fio's design): fixed memory, no allocation, no I/O, no clock.
 * Values below 2^(HIST_SUB_BITS+1) = 128 ns land in one bucket each (exact). Above, a value is
 * grouped by its most significant bit and the next HIST_SUB_BITS bits pick one of 2^HIST_SUB_BITS
 * equal buckets inside that power of two, so reporting a bucket's midpoint is off by at most
 * 2^-(HIST_SUB_BITS+1) of the value (0.78% for 6 bits). Values at or above HIST_MAX_TRACKED_NS
 * (~68.7 s) go to one overflow bucket; min_ns and max_ns stay exact regardless.
 *
 * The struct is plain data: embeddable, memcpy-able (e.g. through a pipe between processes on the
 * same machine), and an all-zero struct is a valid empty histogram. Two histograms merge by
 * adding their buckets; the result equals the histogram of the concatenated samples. */

#include <stdint.h>
#include <stddef.h>

#include "basic/time-util.h" /* nsec_t */

#define HIST_SUB_BITS    6                     /* 64 buckets per power of two: <= 0.78% error */
#define HIST_SUB_BUCKETS (1U << HIST_SUB_BITS) /* buckets per group */
#define HIST_GROUPS      30                    /* log groups above the linear group 0 */
/* Group 0 holds [0, 64) ns one value per bucket; group g >= 1 holds [2^(g+5), 2^(g+6)) ns. */
#define HIST_MAX_TRACKED_NS ((nsec_t) 1 << (HIST_GROUPS + HIST_SUB_BITS)) /* 2^36 ns ~ 68.7 s */
/* (HIST_GROUPS + 1) groups of HIST_SUB_BUCKETS, plus one overflow bucket at the end. */
#define HIST_BUCKETS        ((HIST_GROUPS + 1) * HIST_SUB_BUCKETS + 1)
#define HIST_OVERFLOW_INDEX (HIST_BUCKETS - 1)

typedef struct LatencyHistogram {
        uint64_t buckets[HIST_BUCKETS];
        uint64_t count;  /* == sum of buckets[] */
        nsec_t min_ns;   /* exact; meaningful only when count > 0 */
        nsec_t max_ns;   /* exact; meaningful only when count > 0 */
        uint64_t sum_ns; /* exact sum of all samples, saturating at UINT64_MAX (~584 years) */
} LatencyHistogram;

/* Reset *h to the empty histogram (equivalent to zero-filling it). */
void latency_histogram_init(LatencyHistogram *h);

/* Record one sample of v ns. Never fails; values >= HIST_MAX_TRACKED_NS go to the overflow
 * bucket (their percentiles degrade to max_ns), min/max/sum stay exact (sum saturates). */
void latency_histogram_add(LatencyHistogram *h, nsec_t v);

/* dst += src: afterwards dst is the histogram of both sample sets. src is not modified; src and
 * dst may be the same object (doubles every count). */
void latency_histogram_merge(LatencyHistogram *dst, const LatencyHistogram *src);

/* Nearest-rank percentile: the value v such that at least p% of the samples are <= v, reported as
 * the midpoint of v's bucket (exact below 128 ns, otherwise within 2^-(HIST_SUB_BITS+1) of the
 * true sample), clamped to [min_ns, max_ns]. p <= 0 (or NaN) returns min_ns and p >= 100 returns
 * max_ns, both exact. Returns 0 when empty. */
nsec_t latency_histogram_percentile(const LatencyHistogram *h, double p);

/* Exact arithmetic mean in ns (sum_ns / count; approximate only once sum_ns saturated).
 * Returns 0 when empty. */
double latency_histogram_mean_ns(const LatencyHistogram *h);

/* Cumulative count of samples <= le_ns, for Prometheus' `le` buckets. Counts every bucket whose
 * upper bound is <= le_ns, so it is exact when le_ns is a bucket's upper bound (see
 * latency_histogram_bucket_upper()), when le_ns >= max_ns (returns count) and when le_ns < min_ns
 * (returns 0); in between it may undercount by the samples of the one bucket le_ns falls in.
 * Monotonic non-decreasing in le_ns. */
uint64_t latency_histogram_count_le(const LatencyHistogram *h, nsec_t le_ns);

/* Layout helpers (pure functions of the constants above). */
/* Index of the bucket that v falls in, in [0, HIST_BUCKETS). */
size_t latency_histogram_bucket_index(nsec_t v);
/* Smallest and largest value (inclusive, ns) that fall in bucket i; i >= HIST_BUCKETS is treated
 * as the overflow bucket, whose upper bound is UINT64_MAX. */
nsec_t latency_histogram_bucket_lower(size_t i);
nsec_t latency_histogram_bucket_upper(size_t i);

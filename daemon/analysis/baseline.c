/* SPDX-License-Identifier: MIT */
/* Learned baselines: per metric a ring of the last N healthy values, summarised by median and
 * scaled MAD. Rings are tiny (<= 64 values), so a summary sorts a copy each time: no incremental
 * structure to get wrong, no state beyond the values themselves, which is also exactly what the
 * state file stores. Non-finite and negative values are never learned, so every summary of a
 * non-empty ring is finite. */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/baseline.h"
#include "basic/string-table.h"

static const char *const baseline_metric_table[_BASELINE_METRIC_MAX] = {
        [BASELINE_SEQ_BYTES_PER_SEC] = "seq_bytes_per_sec",
        [BASELINE_RAND_IOPS] = "rand_iops",
        [BASELINE_LAT_P50_NS] = "lat_p50_ns",
        [BASELINE_LAT_P99_NS] = "lat_p99_ns",
        [BASELINE_LAT_MAX_NS] = "lat_max_ns",
        [BASELINE_AWAIT_MS] = "await_ms",
        [BASELINE_CPU_USEC_PER_RUN] = "cpu_usec_per_run",
        [BASELINE_WRITE_BYTES_PER_SEC] = "write_bytes_per_sec",
        [BASELINE_WRITE_IOPS] = "write_iops",
        [BASELINE_WRITE_LAT_P99_NS] = "write_lat_p99_ns",
        [BASELINE_SYNC_LAT_P99_NS] = "sync_lat_p99_ns",
};
DEFINE_STRING_TABLE_LOOKUP(baseline_metric, BaselineMetric, baseline_metric_table);

static const char *const baseline_gate_table[_BASELINE_GATE_MAX] = {
        [BASELINE_GATE_OPEN] = "open",
        [BASELINE_GATE_FAILED] = "failed",
        [BASELINE_GATE_DEGRADED] = "degraded",
        [BASELINE_GATE_REBUILDING] = "rebuilding",
        [BASELINE_GATE_PROBE_ERROR] = "probe-error",
        [BASELINE_GATE_BUSY] = "busy",
        [BASELINE_GATE_VERDICT] = "verdict",
};
DEFINE_STRING_TABLE_LOOKUP(baseline_gate, BaselineGate, baseline_gate_table);

/* What a metric means for a verdict: which way is better, and whether a drift of it is judged
 * at all (the others are learned and shown only). */
static const struct {
        bool higher_is_better;
        bool judged;
} baseline_metric_info[_BASELINE_METRIC_MAX] = {
        [BASELINE_SEQ_BYTES_PER_SEC] = { .higher_is_better = true, .judged = true },
        [BASELINE_RAND_IOPS] = { .higher_is_better = true, .judged = true },
        [BASELINE_LAT_P50_NS] = { .judged = true },
        [BASELINE_LAT_P99_NS] = { .judged = true },
        [BASELINE_LAT_MAX_NS] = {},
        [BASELINE_AWAIT_MS] = {},
        [BASELINE_CPU_USEC_PER_RUN] = {},
        [BASELINE_WRITE_BYTES_PER_SEC] = { .higher_is_better = true, .judged = true },
        [BASELINE_WRITE_IOPS] = { .higher_is_better = true, .judged = true },
        [BASELINE_WRITE_LAT_P99_NS] = { .judged = true },
        [BASELINE_SYNC_LAT_P99_NS] = { .judged = true },
};

bool baseline_metric_higher_is_better(BaselineMetric m) {
        return m >= 0 && m < _BASELINE_METRIC_MAX && baseline_metric_info[m].higher_is_better;
}

bool baseline_metric_judged(BaselineMetric m) {
        return m >= 0 && m < _BASELINE_METRIC_MAX && baseline_metric_info[m].judged;
}

void baseline_sample_init(BaselineSample *s) {
        for (size_t i = 0; i < _BASELINE_METRIC_MAX; i++)
                s->v[i] = NAN;
}

BaselineGate baseline_gate(const BaselineConditions *c, double idle_utilization) {
        if (c->failed)
                return BASELINE_GATE_FAILED;
        if (c->degraded)
                return BASELINE_GATE_DEGRADED;
        if (c->rebuilding)
                return BASELINE_GATE_REBUILDING;
        if (c->probe_error)
                return BASELINE_GATE_PROBE_ERROR;
        if (isfinite(c->foreground_utilization) && c->foreground_utilization > idle_utilization)
                return BASELINE_GATE_BUSY;
        if (c->verdict_standing)
                return BASELINE_GATE_VERDICT;
        return BASELINE_GATE_OPEN;
}

static void copy_label(char *dst, size_t size, const char *src) {
        size_t n = src ? strnlen(src, size - 1) : 0;

        if (n > 0)
                memcpy(dst, src, n);
        dst[n] = 0;
}

void baseline_init(Baseline *b, const char *identity, const char *name, unsigned window,
                   usec_t now_realtime_usec) {
        memset(b, 0, sizeof(*b));
        copy_label(b->identity, sizeof(b->identity), identity);
        copy_label(b->name, sizeof(b->name), name);
        b->window = window == 0 ? BASELINE_WINDOW_DEFAULT : MIN(window, BASELINE_WINDOW_MAX);
        b->generation = 1;
        b->since_realtime_usec = now_realtime_usec;
        for (size_t i = 0; i < _BASELINE_METRIC_MAX; i++)
                b->reference[i] = NAN;
}

void baseline_reset(Baseline *b, usec_t now_realtime_usec) {
        memset(b->ring, 0, sizeof(b->ring));
        memset(b->rebuild, 0, sizeof(b->rebuild));
        b->rebuild_realtime_usec = 0;
        for (size_t i = 0; i < _BASELINE_METRIC_MAX; i++)
                b->reference[i] = NAN;
        b->learned_runs = 0;
        b->updated_realtime_usec = 0;
        b->generation++;
        b->since_realtime_usec = now_realtime_usec;
}

void baseline_ring_push(BaselineRing *r, unsigned window, double v) {
        window = window == 0 ? BASELINE_WINDOW_DEFAULT : MIN(window, BASELINE_WINDOW_MAX);
        /* A window shrunk below n (a new configuration): drop the oldest until it fits. */
        while (r->n >= window) {
                r->first = (r->first + 1) % BASELINE_WINDOW_MAX;
                r->n--;
        }
        r->v[(r->first + r->n) % BASELINE_WINDOW_MAX] = v;
        r->n++;
}

static void ring_trim(BaselineRing *r, unsigned window) {
        while (r->n > window) {
                r->first = (r->first + 1) % BASELINE_WINDOW_MAX;
                r->n--;
        }
}

void baseline_set_window(Baseline *b, unsigned window) {
        window = window == 0 ? BASELINE_WINDOW_DEFAULT : MIN(window, BASELINE_WINDOW_MAX);
        b->window = window;
        for (size_t m = 0; m < _BASELINE_METRIC_MAX; m++) {
                ring_trim(&b->ring[m], window);
                ring_trim(&b->rebuild[m], window);
        }
}

static int cmp_double(const void *a, const void *b) {
        double x = *(const double *) a, y = *(const double *) b;

        return x < y ? -1 : x > y ? 1 : 0;
}

static double median_sorted(const double *v, size_t n) {
        return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void baseline_median_mad(const double *v, size_t n, double *ret_median, double *ret_mad) {
        double buf[BASELINE_WINDOW_MAX * 4], *w = buf, med;
        _cleanup_free_ double *heap = NULL;

        if (n == 0) {
                *ret_median = *ret_mad = NAN;
                return;
        }
        if (n > ELEMENTSOF(buf)) {
                heap = malloc(n * sizeof(double));
                if (!heap) {
                        *ret_median = *ret_mad = NAN;
                        return;
                }
                w = heap;
        }
        memcpy(w, v, n * sizeof(double));
        qsort(w, n, sizeof(double), cmp_double);
        med = median_sorted(w, n);
        for (size_t i = 0; i < n; i++)
                w[i] = fabs(w[i] - med);
        qsort(w, n, sizeof(double), cmp_double);
        *ret_median = med;
        *ret_mad = median_sorted(w, n) * BASELINE_MAD_SCALE;
}

void baseline_ring_stat(const BaselineRing *r, unsigned min_samples, BaselineStat *ret) {
        double v[BASELINE_WINDOW_MAX];
        unsigned n = MIN(r->n, BASELINE_WINDOW_MAX);

        for (unsigned i = 0; i < n; i++)
                v[i] = r->v[(r->first + i) % BASELINE_WINDOW_MAX];
        *ret = (BaselineStat){ .n = n, .ready = n > 0 && n >= min_samples };
        baseline_median_mad(v, n, &ret->median, &ret->mad);
}

void baseline_get_stat(const Baseline *b, BaselineMetric m, unsigned min_samples,
                       BaselineStat *ret) {
        if (m < 0 || m >= _BASELINE_METRIC_MAX) {
                *ret = (BaselineStat){ .median = NAN, .mad = NAN };
                return;
        }
        baseline_ring_stat(&b->ring[m], min_samples, ret);
}

static bool in_guard_band(const Baseline *b, BaselineMetric m, double v, double guard,
                          unsigned min_samples) {
        BaselineStat st;

        if (guard <= 0)
                return true;
        baseline_ring_stat(&b->ring[m], min_samples, &st);
        if (!st.ready)
                return true;
        if (baseline_metric_higher_is_better(m))
                return v >= st.median * (1 - guard);
        return v <= st.median * (1 + guard);
}

unsigned baseline_learn(Baseline *b, const BaselineSample *s, double guard, unsigned min_samples,
                        usec_t now_realtime_usec) {
        unsigned learned = 0;

        for (BaselineMetric m = 0; m < _BASELINE_METRIC_MAX; m++) {
                double v = s->v[m];

                if (!isfinite(v) || v < 0)
                        continue;
                if (!in_guard_band(b, m, v, guard, min_samples))
                        continue;
                baseline_ring_push(&b->ring[m], b->window, v);
                if (!isfinite(b->reference[m]) && b->ring[m].n >= b->window) {
                        BaselineStat st;

                        baseline_ring_stat(&b->ring[m], 1, &st);
                        b->reference[m] = st.median;
                }
                learned++;
        }
        if (learned > 0) {
                b->learned_runs++;
                b->updated_realtime_usec = now_realtime_usec;
        }
        return learned;
}

void baseline_note_rebuild(Baseline *b, const BaselineSample *s, usec_t now_realtime_usec) {
        bool any = false;

        for (BaselineMetric m = 0; m < _BASELINE_METRIC_MAX; m++)
                if (isfinite(s->v[m]) && s->v[m] >= 0) {
                        baseline_ring_push(&b->rebuild[m], b->window, s->v[m]);
                        any = true;
                }
        if (any)
                b->rebuild_realtime_usec = now_realtime_usec;
}

static int cmp_str(const void *a, const void *b) {
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

void baseline_identity_compose(const char *wwn, const char *serial, const char *udev_id,
                               unsigned major, unsigned minor, uint64_t size_bytes,
                               const char *const *member_ids, size_t n_members,
                               char ret[static BASELINE_IDENTITY_MAX]) {
        char own[BASELINE_IDENTITY_MAX];
        int k;

        if (wwn && *wwn)
                k = snprintf(own, sizeof(own), "wwn:%s", wwn);
        else if (serial && *serial)
                k = snprintf(own, sizeof(own), "serial:%s", serial);
        else if (udev_id && *udev_id)
                k = snprintf(own, sizeof(own), "id:%s", udev_id);
        else
                k = snprintf(own, sizeof(own), "devt:%u:%u:%" PRIu64, major, minor, size_bytes);
        (void) k;

        if (n_members == 0 || !member_ids) {
                copy_label(ret, BASELINE_IDENTITY_MAX, own);
                return;
        }

        /* FNV-1a over the sorted ids, each followed by a NUL so ("ab","c") != ("a","bc"). */
        uint64_t h = UINT64_C(0xcbf29ce484222325);
        const char *sorted[64];
        size_t n = MIN(n_members, ELEMENTSOF(sorted));

        memcpy(sorted, member_ids, n * sizeof(*sorted));
        for (size_t i = 0; i < n; i++)
                if (!sorted[i])
                        sorted[i] = "";
        qsort(sorted, n, sizeof(*sorted), cmp_str);
        for (size_t i = 0; i < n; i++)
                for (const char *p = sorted[i];; p++) {
                        h ^= (unsigned char) *p;
                        h *= UINT64_C(0x100000001b3);
                        if (!*p)
                                break;
                }
        /* Keep room for the member hash: truncate the own part, never the hash. */
        char suffix[32];
        size_t keep;

        (void) snprintf(suffix, sizeof(suffix), ":members=%016" PRIx64, h);
        keep = MIN(strlen(own), BASELINE_IDENTITY_MAX - 1 - strlen(suffix));
        memcpy(ret, own, keep);
        memcpy(ret + keep, suffix, strlen(suffix) + 1);
}

int baseline_set_new(BaselineSet **ret) {
        BaselineSet *s = calloc(1, sizeof(*s));

        if (!s)
                return -ENOMEM;
        *ret = s;
        return 0;
}

BaselineSet *baseline_set_free(BaselineSet *s) {
        if (!s)
                return NULL;
        free(s->items);
        free(s);
        return NULL;
}

Baseline *baseline_set_find(const BaselineSet *s, const char *identity) {
        if (!s || !identity)
                return NULL;
        for (size_t i = 0; i < s->n; i++)
                if (strncmp(s->items[i].identity, identity, BASELINE_IDENTITY_MAX - 1) == 0)
                        return &s->items[i];
        return NULL;
}

Baseline *baseline_set_find_name(const BaselineSet *s, const char *name) {
        Baseline *best = NULL;

        if (!s || !name)
                return NULL;
        for (size_t i = 0; i < s->n; i++)
                if (strncmp(s->items[i].name, name, BASELINE_NAME_MAX - 1) == 0 &&
                    (!best || s->items[i].updated_realtime_usec > best->updated_realtime_usec))
                        best = &s->items[i];
        return best;
}

static int set_grow(BaselineSet *s) {
        Baseline *n;
        size_t a;

        if (s->n < s->allocated)
                return 0;
        a = s->allocated ? s->allocated * 2 : 8;
        n = realloc(s->items, a * sizeof(*n));
        if (!n)
                return -ENOMEM;
        s->items = n;
        s->allocated = a;
        return 0;
}

int baseline_set_add(BaselineSet *s, const Baseline *b) {
        int r;

        if (!s || !b || !b->identity[0])
                return -EINVAL;
        if (baseline_set_find(s, b->identity))
                return -EEXIST;
        r = set_grow(s);
        if (r < 0)
                return r;
        s->items[s->n++] = *b;
        return 0;
}

int baseline_set_get(BaselineSet *s, const char *identity, const char *name, unsigned window,
                     usec_t now_realtime_usec, Baseline **ret) {
        Baseline *b;
        int r;

        if (!s || !identity || !*identity)
                return -EINVAL;
        b = baseline_set_find(s, identity);
        if (b) {
                if (name)
                        copy_label(b->name, sizeof(b->name), name);
                *ret = b;
                return 0;
        }
        r = set_grow(s);
        if (r < 0)
                return r;
        b = &s->items[s->n++];
        baseline_init(b, identity, name, window, now_realtime_usec);
        *ret = b;
        return 1;
}

int baseline_set_remove(BaselineSet *s, const char *identity) {
        Baseline *b = baseline_set_find(s, identity);

        if (!b)
                return 0;
        memmove(b, b + 1, (size_t) (&s->items[s->n] - (b + 1)) * sizeof(*b));
        s->n--;
        return 1;
}

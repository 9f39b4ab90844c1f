/* SPDX-License-Identifier: MIT */
#pragma once

/* Learned baselines: what "normal" is for one volume (or array member), per metric.
 *
 * A Baseline keeps, per metric, a ring of the last `window` values of healthy runs and answers
 * with their median and MAD (median absolute deviation, scaled by 1.4826 so that it estimates the
 * standard deviation of normal noise). Median and MAD are robust: one outlier moves neither, where
 * it would drag a mean. A value is learned only through baseline_learn(), which the caller calls
 * after baseline_gate() said the run may teach (the volume is healthy, not rebuilding, not busy
 * with foreground I/O, the probe ran clean, no verdict of degradation is standing). Besides the
 * gate, a value worse than the current median by more than half the detector's margin is not
 * learned either (the guard band): a suspect run just before a verdict does not teach the
 * baseline the fault. Each metric also keeps a reference: its median when the ring first filled
 * its window, frozen for the generation. A ring median follows a fault that creeps in at 1% per
 * run (lagging half a window behind); the detector judges every run against the reference too,
 * so slow drift is found once it crosses the same margin.
 *
 * A baseline belongs to a device identity (baseline_identity_compose(): WWN, serial, udev id or
 * dev_t+size, and for an array the identities of its members). A different identity starts a new
 * baseline: a replaced disk or a new member is a new normal, not a fault.
 *
 * Pure: no I/O, no clock. Times (realtime µs, for display and the state file) come in as
 * arguments. A Baseline is plain data (copyable); a BaselineSet is a heap array of them. */

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/macro.h"
#include "basic/string-table.h"
#include "basic/time-util.h"

typedef enum BaselineMetric {
        BASELINE_SEQ_BYTES_PER_SEC, /* sequential phase throughput */
        BASELINE_RAND_IOPS,         /* random phase (QD1) reads per second */
        BASELINE_LAT_P50_NS,        /* random phase latency quantiles */
        BASELINE_LAT_P99_NS,
        BASELINE_LAT_MAX_NS,       /* report only: one read decides it, too noisy to judge on */
        BASELINE_AWAIT_MS,         /* passive: /sys/block/X/stat read await between two samples */
        BASELINE_CPU_USEC_PER_RUN, /* report only: probe CPU time (user + sys) */
        /* the write probe (a scratch file on the volume's filesystem), when one ran */
        BASELINE_WRITE_BYTES_PER_SEC, /* write_sequential throughput */
        BASELINE_WRITE_IOPS,          /* write_random writes per second */
        BASELINE_WRITE_LAT_P99_NS,    /* write_random latency p99 */
        BASELINE_SYNC_LAT_P99_NS,     /* write_sync: fdatasync() latency p99 */
        _BASELINE_METRIC_MAX,
        _BASELINE_METRIC_INVALID = -EINVAL,
} BaselineMetric;

DECLARE_STRING_TABLE_LOOKUP(baseline_metric, BaselineMetric);

/* True for throughput-like metrics (bigger is better), false for latencies and cost. */
bool baseline_metric_higher_is_better(BaselineMetric m) _const_;

/* True if the detector judges the metric (throughput, IOPS, p50, p99); max latency and CPU are
 * kept for the report only, passive await for peer comparison only (it follows the workload's
 * queue depth, not the device's health). */
bool baseline_metric_judged(BaselineMetric m) _const_;

#define BASELINE_WINDOW_MAX     64U
#define BASELINE_WINDOW_DEFAULT 32U
/* Values needed before a metric's baseline is "ready" (detector and peers use it). */
#define BASELINE_MIN_SAMPLES_DEFAULT 8U
#define BASELINE_IDENTITY_MAX        128U
#define BASELINE_NAME_MAX            64U
/* Scale of the MAD to a standard deviation for normal data (1 / Phi^-1(3/4)). */
#define BASELINE_MAD_SCALE 1.4826

/* One value per metric; NAN where a run did not measure it. */
typedef struct BaselineSample {
        double v[_BASELINE_METRIC_MAX];
} BaselineSample;

/* All metrics NAN. */
void baseline_sample_init(BaselineSample *s);

typedef struct BaselineRing {
        double v[BASELINE_WINDOW_MAX]; /* v[(first + i) % BASELINE_WINDOW_MAX], i < n: oldest first
                                        */
        unsigned n, first;
} BaselineRing;

typedef struct Baseline {
        char name[BASELINE_NAME_MAX];         /* kernel name when last seen ("md0"), a label */
        char identity[BASELINE_IDENTITY_MAX]; /* the key */
        unsigned window;              /* N: values kept per metric, 1..BASELINE_WINDOW_MAX */
        uint64_t generation;          /* bumped by each reset or identity change */
        uint64_t learned_runs;        /* runs learned since the last reset */
        usec_t since_realtime_usec;   /* when this generation started; 0 unknown */
        usec_t updated_realtime_usec; /* last learned run; 0 never */
        BaselineRing ring[_BASELINE_METRIC_MAX];
        double reference[_BASELINE_METRIC_MAX]; /* median when the ring filled; NAN not yet */
        /* Runs taken while the array rebuilt (never learned into ring): for "during rebuild vs
         * after" in the report. */
        BaselineRing rebuild[_BASELINE_METRIC_MAX];
        usec_t rebuild_realtime_usec; /* last run during a rebuild; 0 none */
} Baseline;

/* Robust summary of one metric. */
typedef struct BaselineStat {
        bool ready;    /* n >= min_samples */
        unsigned n;    /* values in the ring */
        double median; /* NAN when n == 0 */
        double mad;    /* scaled MAD; NAN when n == 0 */
} BaselineStat;

/* Why a run may or may not teach the baseline, in order of precedence. */
typedef enum BaselineGate {
        BASELINE_GATE_OPEN,        /* learn */
        BASELINE_GATE_FAILED,      /* the volume (or a member) failed */
        BASELINE_GATE_DEGRADED,    /* redundancy reduced */
        BASELINE_GATE_REBUILDING,  /* resync/recovery/check/reshape running */
        BASELINE_GATE_PROBE_ERROR, /* the probe had errors or stalled */
        BASELINE_GATE_BUSY,        /* foreground I/O above the idle limit */
        BASELINE_GATE_VERDICT,     /* a degradation verdict or a suspect streak is standing */
        _BASELINE_GATE_MAX,
        _BASELINE_GATE_INVALID = -EINVAL,
} BaselineGate;

DECLARE_STRING_TABLE_LOOKUP(baseline_gate, BaselineGate);

/* What the caller knows about the run's circumstances. */
typedef struct BaselineConditions {
        bool failed, degraded, rebuilding, probe_error;
        double foreground_utilization; /* 0..1: device busy time not caused by the probe; NAN
                                        * unknown (counts as idle) */
        bool verdict_standing;         /* detector_is_suspect() */
} BaselineConditions;

/* Foreground utilization above which a run does not teach (default). A busy device's probe
 * figures are lower than its normal; learning them would make a later fault look normal. */
#define BASELINE_IDLE_UTILIZATION_DEFAULT 0.30

/* The gate for one run: the first reason in enum order that applies, else OPEN. */
BaselineGate baseline_gate(const BaselineConditions *c, double idle_utilization) _pure_;

/* Make *b an empty baseline for identity (truncated to BASELINE_IDENTITY_MAX - 1) and name
 * (label, may be NULL), keeping `window` values (0: default; clamped to BASELINE_WINDOW_MAX),
 * generation 1, started at now_realtime_usec. */
void baseline_init(Baseline *b, const char *identity, const char *name, unsigned window,
                   usec_t now_realtime_usec);

/* Forget every learned value (the admin's reset, or a new identity), bump the generation. */
void baseline_reset(Baseline *b, usec_t now_realtime_usec);

/* Learn the finite, non-negative values of s, each unless it lies outside the guard band:
 * worse than the median of a ready metric by more than guard (throughput: value < median *
 * (1 - guard); latencies: value > median * (1 + guard)). guard <= 0 turns the band off. The push
 * that fills a metric's ring to its window for the first time sets its reference. Returns the
 * number of values learned. */
unsigned baseline_learn(Baseline *b, const BaselineSample *s, double guard, unsigned min_samples,
                        usec_t now_realtime_usec);

/* Remember a run taken during a rebuild (never learned; for the report). */
void baseline_note_rebuild(Baseline *b, const BaselineSample *s, usec_t now_realtime_usec);

/* Keep `window` values per metric from now on (0: default; clamped to BASELINE_WINDOW_MAX): rings
 * holding more drop their oldest values; the references stay. */
void baseline_set_window(Baseline *b, unsigned window);

/* Append one value to a ring (dropping the oldest when n reaches window). */
void baseline_ring_push(BaselineRing *r, unsigned window, double v);

/* Median and scaled MAD of a ring; ready when n >= min_samples. */
void baseline_ring_stat(const BaselineRing *r, unsigned min_samples, BaselineStat *ret);

/* Summary of metric m of b. */
void baseline_get_stat(const Baseline *b, BaselineMetric m, unsigned min_samples,
                       BaselineStat *ret);

/* Median and scaled MAD of n values (n may be 0: NAN, NAN). Values are copied, not reordered. */
void baseline_median_mad(const double *v, size_t n, double *ret_median, double *ret_mad);

/* The identity of a device: the first non-empty of wwn, serial and udev_id, prefixed with its
 * kind ("wwn:", "serial:", "id:"), else "devt:MAJ:MIN:SIZE". With member identities (an array),
 * ":members=" and a 64-bit FNV-1a hash of the sorted member identities is appended, so a changed
 * member set is a new identity whatever order the members come in. Writes at most
 * BASELINE_IDENTITY_MAX bytes to ret (truncating). */
void baseline_identity_compose(const char *wwn, const char *serial, const char *udev_id,
                               unsigned major, unsigned minor, uint64_t size_bytes,
                               const char *const *member_ids, size_t n_members,
                               char ret[static BASELINE_IDENTITY_MAX]);

/* A set of baselines keyed by identity. */
typedef struct BaselineSet {
        Baseline *items;
        size_t n, allocated;
} BaselineSet;

int baseline_set_new(BaselineSet **ret);
BaselineSet *baseline_set_free(BaselineSet *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(BaselineSet *, baseline_set_free);

/* The baseline with this identity, or NULL. */
Baseline *baseline_set_find(const BaselineSet *s, const char *identity);
/* The baseline last seen under kernel name `name` (the most recently updated one when names
 * moved between devices), or NULL. */
Baseline *baseline_set_find_name(const BaselineSet *s, const char *name);

/* The baseline for identity, created empty if missing, its name label updated. An entry of
 * another identity under the same name is kept (kernel names move between disks across reboots;
 * the identity is the key). Returns 0 (existing) or 1 (created) with *ret pointing into the set
 * (valid until the next add/remove), or -ENOMEM/-EINVAL. */
int baseline_set_get(BaselineSet *s, const char *identity, const char *name, unsigned window,
                     usec_t now_realtime_usec, Baseline **ret);

/* Append a copy of b (the file parser). -EEXIST if its identity is already present. */
int baseline_set_add(BaselineSet *s, const Baseline *b);

/* Drop the entry with this identity; returns 1 if dropped, 0 if absent. */
int baseline_set_remove(BaselineSet *s, const char *identity);

/* SPDX-License-Identifier: MIT */
#pragma once

/* Degradation verdicts with hysteresis: one Detector per volume compares each probe run with the
 * volume's Baseline and says when performance degraded and when it recovered.
 *
 * A run is BAD when a judged metric (baseline_metric_judged()) is worse than its baseline (the
 * ring's median, or the metric's frozen reference, see baseline.h) by more than the margin AND
 * by more than noise_k scaled MADs:
 *   throughput, IOPS:  value < median * (1 - threshold)  and  value < median - noise_k * MAD
 *   p50 (p99) latency: value > median * factor (p99_factor),  value > median + noise_k * MAD
 *                      and value > median + latency_floor_ns
 * The throughput allowance is linear on purpose: on a volume whose healthy runs spread over
 * several x (a TCG guest beside another VM with foreground I/O), 3 MADs exceed the median and
 * throughput is in effect not judged, its latency still is. An allowance in log space (a
 * factor, never below 0) was tried (issue 26): 200 healthy rounds of bench/detection under
 * foreground fio beside another VM then gave 20 verdicts (sequential reads at 11-42% of
 * baseline for 2 runs in a row, on the array and on single members): on such a host a healthy
 * run at 20% and a throttle to 30% are the same figure.
 * GOOD when every judged metric with a ready baseline is inside its margin, INCONCLUSIVE when
 * no metric could be judged (no ready baseline, nothing measured) or the device was saturated
 * with foreground I/O. K consecutive BAD runs give DEGRADED, then M consecutive GOOD runs give
 * RECOVERED; an INCONCLUSIVE run neither extends nor breaks a streak.
 *
 * Foreground load changes what the probe sees (it shares the device), so the margin widens with
 * the device's foreground utilization u measured just before the run:
 *   u < busy_utilization                    threshold, factor, p99_factor
 *   busy_utilization <= u < saturated       busy_threshold, factors x busy_scale
 *   u >= saturated_utilization              INCONCLUSIVE (a probe failure still counts)
 *
 * Why the defaults (threshold 0.5, factor 3, p99_factor 6, floor 2 ms, noise_k 3, K 2, M 3,
 * busy from u = 0.3 with threshold 0.7 and factors x2, saturated from u = 0.6) give no false
 * alarm on a healthy busy machine: a probe sharing a device with foreground load at utilization u
 * gets roughly 1 - 0.9u of it. The baseline learns only below u = 0.3
 * (BASELINE_IDLE_UTILIZATION_DEFAULT), so its median sits near 0.87 of the idle figure; below
 * u = 0.3 a healthy run then reads >= 0.73 / 0.87 = 84% of baseline before noise, and the 50%
 * line is 3.5 sigma of 15% lognormal run-to-run noise away; between u = 0.3 and 0.6 the line is
 * 30% and a fair share gives >= 0.46 / 0.87 = 53%, again about 4 sigma. p99 is a tail by nature
 * (one slow read in a hundred moves it), so its factor is 6, not 3. A single unlucky run is not
 * a verdict: K = 2 needs two in a row, so an independent per-run false-positive rate p becomes
 * p^2 (measured below: p = 0.01-0.04%, i.e. p^2 ~ 1e-7 per run, one false verdict in some 3000
 * years of 15-minute probes). test-detector checks this on 20000 runs of that model (lognormal
 * sigma 0.15 for throughput and p50, 0.25 for p99, 2.5x p99 spikes in 3% of runs, u idle half
 * the time, busy 30%, saturated 20%) on an HDD-like and an SSD-like device: zero verdicts, while
 * a volume throttled to 30% and +20 ms per I/O are each found in exactly K runs, a drop to 40%
 * within 4 and a slow drift of -1% per run before half the speed is gone. Above u = 0.6 runs
 * are not judged: a fault on a saturated device is found at the next quieter run, or by peer
 * comparison, which does not depend on the load (all members share it).
 *
 * The verdict names the layer: the caller passes the member that peer comparison found slow
 * (peers.h), and the event says "member sdc is the slow one" instead of blaming the volume.
 *
 * Pure: no I/O, no clock; plain data. */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "analysis/baseline.h"
#include "basic/macro.h"
#include "basic/string-table.h"
#include "basic/time-util.h"

typedef struct DetectorConfig {
        double threshold;  /* throughput/IOPS margin: degraded below (1 - threshold) */
        double factor;     /* p50 latency margin: degraded above factor x baseline */
        double p99_factor; /* p99 latency margin */
        double latency_floor_ns;
        double noise_k; /* and beyond noise_k scaled MADs */
        double busy_utilization, busy_threshold, busy_scale;
        double saturated_utilization;
        unsigned k_bad;       /* consecutive bad runs for DEGRADED (>= 1) */
        unsigned m_good;      /* consecutive good runs for RECOVERED (>= 1) */
        unsigned min_samples; /* baseline values needed to judge a metric */
        double guard;         /* baseline_learn() guard band */
} DetectorConfig;

#define DETECTOR_CONFIG_DEFAULT                                                                    \
        ((DetectorConfig){                                                                         \
                .threshold = 0.5,                                                                  \
                .factor = 3.0,                                                                     \
                .p99_factor = 6.0,                                                                 \
                .latency_floor_ns = 2e6,                                                           \
                .noise_k = 3.0,                                                                    \
                .busy_utilization = 0.3,                                                           \
                .busy_threshold = 0.7,                                                             \
                .busy_scale = 2.0,                                                                 \
                .saturated_utilization = 0.6,                                                      \
                .k_bad = 2,                                                                        \
                .m_good = 3,                                                                       \
                .min_samples = BASELINE_MIN_SAMPLES_DEFAULT,                                       \
                .guard = 0.3,                                                                      \
        })

/* -EINVAL (and nothing else checked) for margins out of range (threshold not in (0,1),
 * factor <= 1, k/m 0, utilizations not ordered, ...). */
int detector_config_validate(const DetectorConfig *c);

typedef enum DetectorState {
        DETECTOR_LEARNING, /* no judged metric ready yet */
        DETECTOR_OK,
        DETECTOR_SUSPECT,  /* 1..K-1 bad runs: not a verdict yet */
        DETECTOR_DEGRADED, /* verdict standing (also while 1..M-1 good runs follow) */
        _DETECTOR_STATE_MAX,
        _DETECTOR_STATE_INVALID = -EINVAL,
} DetectorState;

typedef enum DetectorRun {
        DETECTOR_RUN_GOOD,
        DETECTOR_RUN_BAD,
        DETECTOR_RUN_INCONCLUSIVE,
        _DETECTOR_RUN_MAX,
        _DETECTOR_RUN_INVALID = -EINVAL,
} DetectorRun;

typedef enum DetectorEventType {
        DETECTOR_EVENT_DEGRADED,
        DETECTOR_EVENT_RECOVERED,
        _DETECTOR_EVENT_TYPE_MAX,
        _DETECTOR_EVENT_TYPE_INVALID = -EINVAL,
} DetectorEventType;

DECLARE_STRING_TABLE_LOOKUP(detector_state, DetectorState);
DECLARE_STRING_TABLE_LOOKUP(detector_run, DetectorRun);
DECLARE_STRING_TABLE_LOOKUP(detector_event_type, DetectorEventType);

/* The worst judged metric of a run, relative to its baseline median. */
typedef struct DetectorFinding {
        BaselineMetric metric; /* _BASELINE_METRIC_INVALID: none */
        double value, baseline;
        double ratio; /* value / baseline */
} DetectorFinding;

typedef struct DetectorEvent {
        DetectorEventType type;
        DetectorFinding finding; /* DEGRADED: worst of the streak; RECOVERED: of the last run */
        unsigned runs;           /* the streak that decided */
        usec_t since_usec;       /* DEGRADED: first bad run; RECOVERED: when it degraded */
        char culprit[BASELINE_NAME_MAX]; /* "" the volume itself, else the slow member */
} DetectorEvent;

/* Plain data; read the public fields, change them only through detector_feed(). */
typedef struct Detector {
        DetectorState state;
        DetectorRun last_run;
        DetectorFinding last;  /* worst metric of the last run */
        DetectorFinding worst; /* worst of the current bad streak / standing verdict */
        unsigned bad_streak, good_streak;
        usec_t streak_start_usec, degraded_since_usec;
        uint64_t runs, bad_runs, verdicts;
        char culprit[BASELINE_NAME_MAX];
} Detector;

void detector_init(Detector *d);

/* True while a verdict or a bad streak stands (the baseline must not learn then). */
bool detector_is_suspect(const Detector *d) _pure_;

/* Judge one run: s against b, with the device's foreground utilization (0..1, NAN unknown: idle)
 * and the member peers found slow (NULL/"" none). probe_failed: the run had I/O errors or
 * stalled, which counts as BAD whatever the figures say. Returns the run's classification, and
 * 1 with *ret_event filled when the state changed to DEGRADED or back to OK (RECOVERED), 0
 * otherwise; -EINVAL for NULL arguments. */
int detector_feed(Detector *d, const DetectorConfig *c, const Baseline *b, const BaselineSample *s,
                  double foreground_utilization, bool probe_failed, const char *slow_member,
                  usec_t now_usec, DetectorEvent *ret_event);

/* Classify one run without state (what detector_feed() does first). ret_worst may be NULL. */
DetectorRun detector_classify(const DetectorConfig *c, const Baseline *b, const BaselineSample *s,
                              double foreground_utilization, DetectorFinding *ret_worst);

/* One line for the journal, e.g. "sequential read throughput at 31% of baseline (41.0 MB/s vs
 * 132.5 MB/s) for 2 runs; member sdc is the slow one" (no volume name, no newline). Returns buf,
 * truncating to size. */
char *detector_event_format(const DetectorEvent *e, char *buf, size_t size);

/* One finding, e.g. "sequential read throughput at 31% of baseline (41.0 MB/s vs 132.5 MB/s)",
 * "probe failed" without a metric. Returns buf, truncating to size. */
char *detector_finding_format(const DetectorFinding *f, char *buf, size_t size);

/* "41.0 MB/s", "2.35 ms", "1520 IOPS" for a metric's value. Returns buf. */
char *baseline_metric_format_value(BaselineMetric m, double v, char *buf, size_t size);

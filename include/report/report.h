/* SPDX-License-Identifier: MIT */
#pragma once

/* What the reports (metrics, JSON API, the web page) are made of: the inventory plus the probe
 * figures and recent events, in report-side structs the owner (the manager) fills from its own
 * records. Plain data, borrowed: every pointer must stay valid for the duration of one
 * snapshot_build() / metrics_render() / api_*() call, nothing is kept afterwards. */

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/backoff.h"
#include "basic/string-table.h"
#include "basic/time-util.h"
#include "core/inventory.h"
#include "model/histogram.h"
#include "probe/probe.h"
#include "report/metrics-latency.h"

typedef struct MetricsWriter MetricsWriter;

/* How a probe ended, as the reports name it. */
typedef enum ReportProbeResult {
        REPORT_PROBE_OK,      /* every read succeeded */
        REPORT_PROBE_ERROR,   /* finished with failed or short reads */
        REPORT_PROBE_STALLED, /* no result before the timeout */
        REPORT_PROBE_FAILED,  /* could not run (target refused, helper died) */
        _REPORT_PROBE_RESULT_MAX,
        _REPORT_PROBE_RESULT_INVALID = -EINVAL,
} ReportProbeResult;

DECLARE_STRING_TABLE_LOOKUP(report_probe_result, ReportProbeResult);

typedef struct ReportPhase {
        bool ran;
        double bytes_per_second;
        double iops;
        nsec_t p50_ns, p99_ns, max_ns; /* read latency */
        uint64_t errors;
        const LatencyHistogram *latency; /* the full histogram (last run only), NULL if none */
} ReportPhase;

/* One probe run of one volume. */
typedef struct ReportSample {
        usec_t realtime_usec; /* when it ended, CLOCK_REALTIME */
        const char *profile;  /* may be NULL */
        ReportProbeResult result;
        usec_t duration_usec;
        uint64_t errors;         /* failed + short reads */
        bool forced;             /* run despite foreground I/O after MaxDeferral= */
        double foreground_share; /* 0..1 someone else's share of the device's I/O; NaN unknown */
        double cpu_wait_share;   /* 0..1 of the probe's time waiting for a CPU; NaN unknown */
        ReportPhase phases[_PROBE_PHASE_MAX];
} ReportSample;

/* The expected figures of a volume (the detector's baseline), drawn into the charts and exported
 * as storpulse_baseline_*; has = false when none was learnt yet. The *_mad are the learned
 * values' scaled MADs (same units; NAN unknown): the page draws median +- 3 MAD as the band. */
typedef struct ReportPhaseBaseline {
        bool has;
        double bytes_per_second, iops;
        nsec_t p99_ns;
        double bytes_per_second_mad, iops_mad, p99_mad_ns;
} ReportPhaseBaseline;

typedef struct ReportBaseline {
        bool has;
        ReportPhaseBaseline phases[_PROBE_PHASE_MAX];
} ReportBaseline;

/* Probe state and counters of one volume. Counters count since the daemon started. */
typedef struct ReportProbe {
        const char *volume; /* kernel name; probes of names not in the inventory are ignored */
        bool running;       /* a probe runs on it now */
        bool stalled;       /* the last probe stalled */
        bool has_last;
        ReportSample last;           /* the last run, with latency histograms */
        const ReportSample *history; /* recent runs, oldest first (the page's charts) */
        size_t n_history;
        uint64_t n_probes, n_stalls, n_failed; /* n_failed: runs with I/O errors or not run */
        uint64_t skips[_PROBE_SKIP_REASON_MAX];
        uint64_t n_forced;       /* run despite foreground I/O after MaxDeferral= */
        uint64_t n_second_looks; /* results that read bad and were measured again */
        usec_t deferred_usec; /* CLOCK_REALTIME since its probes are given up for foreign I/O; 0 */
        usec_t cpu_usec;      /* probe helper CPU time (user + system) */
        usec_t device_usec;   /* device time spent probing */
        const ReportBaseline *baseline; /* NULL: none */
} ReportProbe;

typedef struct ReportEvent {
        uint64_t seq;
        usec_t realtime_usec;
        const char *type;            /* "degraded", "rebuild-started", ... */
        const char *message_id;      /* its journal MESSAGE_ID (units/storpulse.catalog); NULL */
        int priority;                /* LOG_* */
        const char *volume, *member; /* NULL or "" when none */
        const char *message;
} ReportEvent;

/* A module above the report layer adding its own series (the detector's verdicts) and JSON.
 * Either callback may be NULL. `metrics` runs at the end of each metrics rendering (once per
 * format) and adds families with metrics_writer_family()/metrics_writer_sample(); `volume_json`
 * may add keys to the history object of one volume. Both return 0 or -errno. */
typedef struct ReportExtension {
        int (*metrics)(MetricsWriter *w, void *userdata);
        int (*volume_json)(const char *volume, json_object *o, void *userdata);
        void *userdata;
} ReportExtension;

typedef struct ReportInput {
        const Inventory *inventory; /* required */
        const ReportProbe *probes;  /* any order, at most one per volume */
        size_t n_probes;
        const ReportEvent *events; /* newest first */
        size_t n_events;
        const char *version;             /* storpulse_build_info */
        usec_t now_realtime_usec;        /* when the input was taken */
        usec_t start_realtime_usec;      /* daemon start; 0 unknown */
        usec_t next_probe_realtime_usec; /* next scheduled run; 0 none */
        usec_t render_duration_usec; /* what the previous snapshot build took (caller measures) */
        uint64_t state_save_errors;  /* failed saves of the state files since start */
        bool state_unsaved;          /* the state is not being saved (last save failed, or kept) */
        MetricsLatency latency_histogram; /* the bucket set; 0 is the default, off */
        const ReportExtension *extensions;
        size_t n_extensions;
} ReportInput;

/* The probe record of `name`, NULL if none (linear; renderers index it once). */
const ReportProbe *report_input_get_probe(const ReportInput *in, const char *name) _pure_;

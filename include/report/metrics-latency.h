/* SPDX-License-Identifier: MIT */
#pragma once

/* The probe latency series of /metrics: storpulse_probe_read_latency_seconds (a histogram whose
 * bucket set an admin picks, [HTTP] LatencyHistogram=) and storpulse_probe_read_latency_p99_seconds
 * (the exact p99 of the last run, in every mode). A fleet pays per bucket: the full set is 18
 * bounds, 21 series per phase, which is what made a probed volume cost 84 series. Pure. */

#include <stddef.h>

#include "basic/string-table.h"

typedef struct MetricsWriter MetricsWriter;
typedef struct ReportProbe ReportProbe;
typedef struct Volume Volume;

typedef enum MetricsLatency {
        METRICS_LATENCY_OFF,    /* the default: no histogram; the p99 gauge stays */
        METRICS_LATENCY_COARSE, /* le 1ms, 10ms, 100ms, +Inf (6 series per phase) */
        METRICS_LATENCY_FULL,   /* 25us .. 10s in 1-2.5-5 steps, 18 bounds (21 per phase) */
        _METRICS_LATENCY_MAX,
        _METRICS_LATENCY_INVALID = -EINVAL,
} MetricsLatency;

DECLARE_STRING_TABLE_LOOKUP(metrics_latency, MetricsLatency);

/* Render both families for the listed volumes vols[0..n) with their probe records (NULL: none),
 * for the phases of each volume's last run that ran and carry a latency histogram. Every coarse
 * bound is also a full one, so a query on le="0.01" reads the same in both modes. Returns 0 or
 * -errno (the writer's sticky error). */
int metrics_latency_render(MetricsWriter *w, MetricsLatency mode, Volume *const *vols,
                           const ReportProbe *const *probes, size_t n);

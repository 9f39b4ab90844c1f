/* SPDX-License-Identifier: MIT */
#pragma once

/* The write probe's series of /metrics, beside the read ones and shaped alike:
 * storpulse_probe_write_bytes_per_second and storpulse_probe_write_iops with phase="sequential",
 * "random" or "sync" (each write followed by fdatasync), and
 * storpulse_probe_write_latency_p99_seconds with phase="random" (the write) or "sync" (the
 * fdatasync alone). No histogram: the p99 gauge carries what an alert needs at three series per
 * volume. Only volumes whose last run wrote have samples.
 * The learnt baselines are in metrics-baseline.h. Pure. */

#include <stddef.h>

typedef struct MetricsWriter MetricsWriter;
typedef struct ReportProbe ReportProbe;
typedef struct Volume Volume;

/* Render the three families for vols[0..n) with their probe records (NULL: none). Returns 0 or
 * -errno (the writer's sticky error). */
int metrics_write_render(MetricsWriter *w, Volume *const *vols, const ReportProbe *const *probes,
                         size_t n);

/* SPDX-License-Identifier: MIT */
#pragma once

/* The learnt baselines on /metrics, read and write alike: storpulse_baseline_read_* and
 * storpulse_baseline_write_* with a `phase` label, each carrying only the figures the baseline
 * learns and judges (perf_report_baseline()): a sequential phase's bytes/s, a random phase's IOPS
 * and p99, the fdatasync's p99. A figure not learnt (yet) is absent, never a 0 a rule or a ratio
 * would take for a collapse, and a family with no learnt figure anywhere is left out. Pure. */

#include <stddef.h>

typedef struct MetricsWriter MetricsWriter;
typedef struct ReportProbe ReportProbe;
typedef struct Volume Volume;

/* Render the six baseline families for vols[0..n) (probes[i]->baseline, NULL: none). Returns 0 or
 * -errno (the writer's sticky error). */
int metrics_baseline_render(MetricsWriter *w, Volume *const *vols, const ReportProbe *const *probes,
                            size_t n);

/* SPDX-License-Identifier: MIT */
#pragma once

/* The learned baselines in the reports, through the report layer's own hooks: the ReportBaseline
 * of a volume (drawn into the charts, exported by metrics.c as storpulse_baseline_*), and a
 * ReportExtension adding the monitor's verdict series and a "performance" object per volume in
 * the API JSON ({state, culprit, rebuild_slow, slow_members}, docs/json.md). Userdata of the
 * extension is the PerfMonitor (borrowed; it must outlive the render). Series (gauges unless
 * said; labels volume, and member for members):
 *   storpulse_performance_state{state="learning|ok|suspect|degraded"}  0/1 per state
 *   storpulse_performance_ratio{metric="seq_bytes_per_sec|rand_iops|lat_p50_ns|lat_p99_ns"}
 *                                       last run / baseline median (unitless)
 *   storpulse_baseline_samples          values in the baseline (of the throughput metric)
 *   storpulse_member_slow               0/1, fail-slow by peer comparison
 *   storpulse_member_flapping           0/1
 *   storpulse_member_slow_episodes_total  counter: times the member became slow
 *   storpulse_rebuild_slow              0/1 per array with a running rebuild judged */

#include <json-c/json.h>

#include "core/perf-monitor.h"
#include "report/metrics.h"
#include "report/report.h"

/* Fill *ret from the baseline the monitor judged `volume` against (has = false if none or not
 * ready). The sequential phase gets bytes/s, the random phase IOPS and p99. */
void perf_report_baseline(const PerfMonitor *pm, const char *volume, unsigned min_samples,
                          ReportBaseline *ret);

int perf_metrics_write(MetricsWriter *w, void *userdata);
int perf_metrics_volume_json(const char *volume, json_object *o, void *userdata);

/* The extension for ReportInput.extensions. */
static inline ReportExtension perf_report_extension(const PerfMonitor *pm) {
        return (ReportExtension){
                .metrics = perf_metrics_write,
                .volume_json = perf_metrics_volume_json,
                .userdata = (void *) pm,
        };
}

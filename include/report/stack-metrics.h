/* SPDX-License-Identifier: MIT */
#pragma once

/* The problem series of /metrics beside metrics.c's families: a volume's own problem including
 * its probes (read errors and stalls are problems until a clean run), and its health through the
 * stack (core/stack-health.h). Pure, like the rest of the report layer. */

#include <stddef.h>

#include "report/report.h"

/* Why the volume's probes make it a problem until a clean probe: "stalled" (the last probe got
 * no answer before its timeout), "read-errors" (it ended with failed or short reads),
 * "probe-failed" (it could not run); NULL when the last probe was clean or there is none. */
const char *report_probe_problem(const ReportProbe *p) _pure_;

/* storpulse_volume_problem's value: volume_has_problem() or a probe problem. */
bool report_volume_problem(const Volume *v, const ReportProbe *p) _pure_;

/* Render storpulse_volume_effective_health (volumes that stand on others; a disk's is its own
 * health) and storpulse_volume_effective_cause_info for the listed volumes vols[0..n) (inventory
 * order, with their probe records or NULL). Returns 0 or -errno (the writer's sticky error). */
int stack_metrics_render(MetricsWriter *w, const ReportInput *in, Volume *const *vols,
                         const ReportProbe *const *probes, size_t n);

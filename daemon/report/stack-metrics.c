/* SPDX-License-Identifier: MIT */
/* Problem series that metrics.c's families call for (kept apart: metrics.c is at its size limit).
 * A probe's read errors or stall is a problem of the volume until a clean probe: the report's
 * last result already says how the newest probe ended (a skipped run leaves it), so nothing but
 * the record is needed. Health through the stack comes from core/stack-health.c, computed once
 * per rendering for every volume. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/stack-health.h"
#include "report/metrics.h"
#include "report/stack-metrics.h"

static const char *const probe_problems[] = { "read-errors", "stalled", "probe-failed" };

const char *report_probe_problem(const ReportProbe *p) {
        if (!p)
                return NULL;
        if (p->stalled)
                return "stalled";
        if (!p->has_last)
                return NULL;
        switch (p->last.result) {
        case REPORT_PROBE_OK:
                return NULL;
        case REPORT_PROBE_ERROR:
                return "read-errors";
        case REPORT_PROBE_STALLED:
                return "stalled";
        case REPORT_PROBE_FAILED:
                return "probe-failed";
        case _REPORT_PROBE_RESULT_MAX:
        case _REPORT_PROBE_RESULT_INVALID:
                break;
        }
        return NULL;
}

bool report_volume_problem(const Volume *v, const ReportProbe *p) {
        return volume_has_problem(v) || report_probe_problem(p);
}

static void probe_problem_family(MetricsWriter *w, Volume *const *vols,
                                 const ReportProbe *const *probes, size_t n) {
        metrics_writer_family(w, "storpulse_probe_problem", METRIC_GAUGE,
                              "1 for the reason the volume's probes make it a problem until a "
                              "clean probe (read-errors, stalled, probe-failed), one series per "
                              "reason; probed volumes only.");
        for (size_t i = 0; i < n; i++) {
                const char *why = report_probe_problem(probes[i]);

                if (!probes[i])
                        continue;
                for (size_t k = 0; k < ELEMENTSOF(probe_problems); k++)
                        metrics_writer_sample(w, "", why && strcmp(why, probe_problems[k]) == 0,
                                              "volume", vols[i]->name, "reason", probe_problems[k],
                                              NULL);
        }
}

int stack_metrics_render(MetricsWriter *w, const ReportInput *in, Volume *const *vols,
                         const ReportProbe *const *probes, size_t n) {
        _cleanup_free_ StackHealth *sh = NULL;
        size_t n_all;
        int r;

        if (!w || !in || !in->inventory || (n > 0 && (!vols || !probes)))
                return -EINVAL;
        n_all = inventory_size(in->inventory);
        sh = calloc(n_all + 1, sizeof(*sh));
        if (!sh)
                return -ENOMEM;
        r = stack_health_compute(in->inventory, sh, n_all);
        if (r < 0)
                return r;

        probe_problem_family(w, vols, probes, n);
        metrics_writer_family(w, "storpulse_volume_effective_health", METRIC_GAUGE,
                              "Health through the stack: the worse of the volume's own health and "
                              "that of the volumes it stands on (an LV on a broken md array is "
                              "failed), one series per state, 1 for the current one.");
        for (size_t i = 0, k = 0; i < n; i++) {
                /* vols[] is in inventory order */
                while (k < n_all && inventory_get_nth(in->inventory, k) != vols[i])
                        k++;
                for (VolumeHealth h = 0; k < n_all && h < _VOLUME_HEALTH_MAX; h++)
                        metrics_writer_sample(w, "", sh[k].effective == h, "volume", vols[i]->name,
                                              "state", volume_health_to_string(h), NULL);
        }
        metrics_writer_family(w, "storpulse_volume_effective_cause_info", METRIC_INFO,
                              "Value 1 for a volume whose effective health comes from below it: "
                              "cause is the lowest volume at fault, layer its kind.");
        for (size_t i = 0, k = 0; i < n; i++) {
                while (k < n_all && inventory_get_nth(in->inventory, k) != vols[i])
                        k++;
                if (k < n_all && sh[k].cause)
                        metrics_writer_sample(w, "", 1, "volume", vols[i]->name, "cause",
                                              sh[k].cause->name, "layer",
                                              volume_kind_to_string(sh[k].cause->kind), NULL);
        }
        return 0;
}

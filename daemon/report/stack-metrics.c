/* SPDX-License-Identifier: MIT */
/* Problems and health through the stack for metrics.c and the API (kept apart: metrics.c is at
 * its size limit). A probe's read errors or stall is a problem of the volume until a clean probe:
 * the report's last result already says how the newest probe ended (a skipped run leaves it), so
 * nothing but the record is needed; /metrics says why with storpulse_probe_last_result. Health
 * through the stack comes from core/stack-health.c, computed once per rendering for every volume.
 */

#include <errno.h>
#include <stdlib.h>

#include "core/stack-health.h"
#include "report/metrics.h"
#include "report/stack-metrics.h"

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

/* A volume that stands on nothing (a disk, a loop device) has its own health as its effective
 * health: its effective series would only repeat storpulse_volume_health, 4 series a volume. */
static bool stands_on_something(const Volume *v) {
        return v->members && v->members[0];
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

        metrics_writer_family(w, "storpulse_volume_effective_health", METRIC_GAUGE,
                              "Health through the stack: the worse of the volume's own health and "
                              "that of the volumes it stands on (an LV on a broken md array is "
                              "failed), one series per state, 1 for the current one; volumes "
                              "that stand on others only.");
        for (size_t i = 0, k = 0; i < n; i++) {
                /* vols[] is in inventory order */
                while (k < n_all && inventory_get_nth(in->inventory, k) != vols[i])
                        k++;
                for (VolumeHealth h = 0;
                     k < n_all && stands_on_something(vols[i]) && h < _VOLUME_HEALTH_MAX; h++)
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

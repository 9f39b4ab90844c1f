/* SPDX-License-Identifier: MIT */
/* The learnt baselines on /metrics (see metrics-baseline.h). The `phase` label is
 * probe_phase_label(): the write phases drop the "write_" the family name already says, so a
 * dashboard joins read and write series on the same label values. */

#include <math.h>

#include "model/volume.h"
#include "probe/probe.h"
#include "report/metrics-baseline.h"
#include "report/metrics.h"
#include "report/report.h"

/* The figures a baseline learns, one family per direction each. */
typedef enum BaselineFigure {
        BASELINE_FIGURE_BYTES_PER_SECOND,
        BASELINE_FIGURE_IOPS,
        BASELINE_FIGURE_P99,
        _BASELINE_FIGURE_MAX,
} BaselineFigure;

/* What the learnt baseline in p holds for phase ph and figure `what` (p99 in seconds): true and
 * *ret when learnt. */
static bool baseline_figure(const ReportProbe *p, ProbePhase ph, BaselineFigure what, double *ret) {
        bool seq = ph == PROBE_PHASE_SEQUENTIAL || ph == PROBE_PHASE_WRITE_SEQUENTIAL;
        bool rand = ph == PROBE_PHASE_RANDOM || ph == PROBE_PHASE_WRITE_RANDOM;
        const ReportPhaseBaseline *b;

        if (!p || !p->baseline || !p->baseline->has || !p->baseline->phases[ph].has)
                return false;
        b = &p->baseline->phases[ph];
        switch (what) {
        case BASELINE_FIGURE_BYTES_PER_SECOND: /* only a sequential phase learns a throughput */
                if (!seq || !(b->bytes_per_second > 0))
                        return false;
                *ret = b->bytes_per_second;
                return true;
        case BASELINE_FIGURE_IOPS: /* not the sync phase's cycles per second */
                if (!rand || !isfinite(b->iops))
                        return false;
                *ret = b->iops;
                return true;
        case BASELINE_FIGURE_P99: /* random: the read or write; sync: the fdatasync */
                if (seq || !isfinite(b->p99_mad_ns))
                        return false;
                *ret = (double) b->p99_ns / 1e9;
                return true;
        case _BASELINE_FIGURE_MAX:
                break;
        }
        return false;
}

static const struct {
        const char *name, *help;
} baseline_family[2][_BASELINE_FIGURE_MAX] = {
        {
                { "storpulse_baseline_read_bytes_per_second",
                  "Expected sequential read throughput (the learnt baseline)." },
                { "storpulse_baseline_read_iops",
                  "Expected random reads per second (the learnt baseline)." },
                { "storpulse_baseline_read_latency_p99_seconds",
                  "Expected 99th percentile random read latency (the learnt baseline)." },
        },
        {
                { "storpulse_baseline_write_bytes_per_second",
                  "Expected sequential write throughput (the learnt baseline)." },
                { "storpulse_baseline_write_iops",
                  "Expected random writes per second (the learnt baseline)." },
                { "storpulse_baseline_write_latency_p99_seconds",
                  "Expected 99th percentile latency per phase, random the write, sync the "
                  "fdatasync alone (the learnt baseline)." },
        },
};

static bool any_figure(const ReportProbe *const *probes, size_t n, bool write,
                       BaselineFigure what) {
        double v;

        for (size_t i = 0; i < n; i++)
                for (ProbePhase p = 0; p < _PROBE_PHASE_MAX; p++)
                        if (probe_phase_is_write(p) == write &&
                            baseline_figure(probes[i], p, what, &v))
                                return true;
        return false;
}

int metrics_baseline_render(MetricsWriter *w, Volume *const *vols, const ReportProbe *const *probes,
                            size_t n) {
        int r = 0;

        for (int write = 0; write <= 1; write++)
                for (BaselineFigure what = 0; what < _BASELINE_FIGURE_MAX; what++) {
                        double v;

                        if (!any_figure(probes, n, write, what))
                                continue;
                        r = metrics_writer_family(w, baseline_family[write][what].name,
                                                  METRIC_GAUGE, baseline_family[write][what].help);
                        for (size_t i = 0; i < n; i++)
                                for (ProbePhase p = 0; p < _PROBE_PHASE_MAX; p++)
                                        if (probe_phase_is_write(p) == write &&
                                            baseline_figure(probes[i], p, what, &v))
                                                r = metrics_writer_sample(
                                                        w, "", v, "volume", vols[i]->name, "phase",
                                                        probe_phase_label(p), NULL);
                }
        return r;
}

/* SPDX-License-Identifier: MIT */
/* Write probe figures on /metrics (see metrics-write.h). The phases come from the probe's
 * write_sequential, write_random and write_sync; the `phase` label drops the "write_" that the
 * family name already says (probe_phase_label()), so a dashboard joins read and write series on
 * the same label values. The baseline families carry only what the baseline learns of writes
 * (perf_report_baseline(): sequential bytes/s, random IOPS and p99, the fdatasync p99), so an
 * unlearnt figure is absent rather than a 0 a rule would take for a collapse. */

#include <math.h>

#include "model/volume.h"
#include "probe/probe.h"
#include "report/metrics-write.h"
#include "report/metrics.h"
#include "report/report.h"

#define PROBE_HELP " (from the last probe run)"

static const ReportPhase *write_phase(const ReportProbe *p, ProbePhase ph) {
        if (!p || !p->has_last || !probe_phase_is_write(ph) || !p->last.phases[ph].ran)
                return NULL;
        return &p->last.phases[ph];
}

int metrics_write_render(MetricsWriter *w, Volume *const *vols, const ReportProbe *const *probes,
                         size_t n) {
        int r;

        metrics_writer_family(w, "storpulse_probe_write_bytes_per_second", METRIC_GAUGE,
                              "Write throughput of the write probe per phase (sequential, random, "
                              "sync: each write followed by fdatasync), in its scratch file on the "
                              "volume's filesystem" PROBE_HELP ".");
        for (size_t i = 0; i < n; i++)
                for (ProbePhase p = 0; p < _PROBE_PHASE_MAX; p++)
                        if (write_phase(probes[i], p))
                                metrics_writer_sample(w, "",
                                                      write_phase(probes[i], p)->bytes_per_second,
                                                      "volume", vols[i]->name, "phase",
                                                      probe_phase_label(p), NULL);
        metrics_writer_family(w, "storpulse_probe_write_iops", METRIC_GAUGE,
                              "Writes (sync: write+fdatasync cycles) completed per second per "
                              "phase" PROBE_HELP ".");
        for (size_t i = 0; i < n; i++)
                for (ProbePhase p = 0; p < _PROBE_PHASE_MAX; p++)
                        if (write_phase(probes[i], p))
                                metrics_writer_sample(w, "", write_phase(probes[i], p)->iops,
                                                      "volume", vols[i]->name, "phase",
                                                      probe_phase_label(p), NULL);
        r = metrics_writer_family(w, "storpulse_probe_write_latency_p99_seconds", METRIC_GAUGE,
                                  "99th percentile latency per phase: random the write, sync the "
                                  "fdatasync alone" PROBE_HELP ".");
        for (size_t i = 0; i < n; i++)
                for (ProbePhase p = PROBE_PHASE_WRITE_RANDOM; p < _PROBE_PHASE_MAX; p++)
                        if (write_phase(probes[i], p))
                                r = metrics_writer_sample(
                                        w, "", (double) write_phase(probes[i], p)->p99_ns / 1e9,
                                        "volume", vols[i]->name, "phase", probe_phase_label(p),
                                        NULL);
        return r;
}

/* The figures a write baseline learns, one family each. */
typedef enum WriteFigure {
        WRITE_FIGURE_BYTES_PER_SECOND,
        WRITE_FIGURE_IOPS,
        WRITE_FIGURE_P99,
        _WRITE_FIGURE_MAX,
} WriteFigure;

/* What the learnt baseline in p holds for write phase ph and figure `what` (p99 in seconds):
 * true and *ret when learnt. */
static bool write_baseline(const ReportProbe *p, ProbePhase ph, WriteFigure what, double *ret) {
        const ReportPhaseBaseline *b;

        if (!p || !p->baseline || !p->baseline->has || !probe_phase_is_write(ph) ||
            !p->baseline->phases[ph].has)
                return false;
        b = &p->baseline->phases[ph];
        switch (what) {
        case WRITE_FIGURE_BYTES_PER_SECOND: /* only the sequential phase learns a throughput */
                if (ph != PROBE_PHASE_WRITE_SEQUENTIAL || !(b->bytes_per_second > 0))
                        return false;
                *ret = b->bytes_per_second;
                return true;
        case WRITE_FIGURE_IOPS: /* the sync phase's cycles per second are no figure of the device */
                if (ph != PROBE_PHASE_WRITE_RANDOM || !isfinite(b->iops))
                        return false;
                *ret = b->iops;
                return true;
        case WRITE_FIGURE_P99: /* random: the write; sync: the fdatasync */
                if (ph == PROBE_PHASE_WRITE_SEQUENTIAL || !isfinite(b->p99_mad_ns))
                        return false;
                *ret = (double) b->p99_ns / 1e9;
                return true;
        case _WRITE_FIGURE_MAX:
                break;
        }
        return false;
}

static const struct {
        const char *name, *help;
} baseline_family[_WRITE_FIGURE_MAX] = {
        { "storpulse_baseline_write_bytes_per_second",
          "Expected sequential write throughput (the learnt baseline)." },
        { "storpulse_baseline_write_iops",
          "Expected random writes per second (the learnt baseline)." },
        { "storpulse_baseline_write_latency_p99_seconds",
          "Expected 99th percentile latency per phase, random the write, sync the fdatasync "
          "alone (the learnt baseline)." },
};

int metrics_write_baseline_render(MetricsWriter *w, Volume *const *vols,
                                  const ReportProbe *const *probes, size_t n) {
        int r = 0;

        for (WriteFigure what = 0; what < _WRITE_FIGURE_MAX; what++) {
                bool any = false;
                double v;

                for (size_t i = 0; i < n && !any; i++)
                        for (ProbePhase p = 0; p < _PROBE_PHASE_MAX && !any; p++)
                                any = write_baseline(probes[i], p, what, &v);
                if (!any)
                        continue;
                r = metrics_writer_family(w, baseline_family[what].name, METRIC_GAUGE,
                                          baseline_family[what].help);
                for (size_t i = 0; i < n; i++)
                        for (ProbePhase p = 0; p < _PROBE_PHASE_MAX; p++)
                                if (write_baseline(probes[i], p, what, &v))
                                        r = metrics_writer_sample(w, "", v, "volume", vols[i]->name,
                                                                  "phase", probe_phase_label(p),
                                                                  NULL);
        }
        return r;
}

/* SPDX-License-Identifier: MIT */
/* Write probe figures on /metrics (see metrics-write.h). The phases come from the probe's
 * write_sequential, write_random and write_sync; the `phase` label drops the "write_" that the
 * family name already says (probe_phase_label()), so a dashboard joins read and write series on
 * the same label values. Their learnt baselines are in metrics-baseline.c. */

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

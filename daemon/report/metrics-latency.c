/* SPDX-License-Identifier: MIT */
/* Probe latency on /metrics, at the cost an admin picks. The probe keeps a log-linear histogram
 * (model/histogram.h, 0.78% resolution); the `le` buckets here are cumulative counts from it. An
 * `le` bound inside one of its buckets does not count that bucket's samples
 * (latency_histogram_count_le()), so a bucket may undercount by the samples within 0.78% below its
 * bound; _sum and _count are exact.
 *
 * Series are what a fleet pays for: the full set of 18 bounds costs 21 series per phase (two
 * phases in the quick profile: 42 of the 84 series a probed volume once had). The default exports
 * no histogram: the exact p99 of each phase is a gauge of its own in every mode, so alerts and
 * fleet views need no histogram_quantile(); `coarse` adds three decade bounds (how many reads took
 * over 1, 10, 100 ms), `full` all 18. */

#include <errno.h>

#include "report/metrics-latency.h"
#include "report/metrics.h"
#include "report/report.h"

static const char *const metrics_latency_table[_METRICS_LATENCY_MAX] = {
        [METRICS_LATENCY_COARSE] = "coarse",
        [METRICS_LATENCY_FULL] = "full",
        [METRICS_LATENCY_OFF] = "off",
};

DEFINE_STRING_TABLE_LOOKUP(metrics_latency, MetricsLatency, metrics_latency_table);

typedef struct LatencyBound {
        nsec_t ns;
        const char *le; /* as the metrics writer prints the bound in seconds */
} LatencyBound;

static const LatencyBound full_bounds[] = {
        { 25000, "2.5e-05" },  { 50000, "5e-05" },    { 100000, "0.0001" },  { 250000, "0.00025" },
        { 500000, "0.0005" },  { 1000000, "0.001" },  { 2500000, "0.0025" }, { 5000000, "0.005" },
        { 10000000, "0.01" },  { 25000000, "0.025" }, { 50000000, "0.05" },  { 100000000, "0.1" },
        { 250000000, "0.25" }, { 500000000, "0.5" },  { 1000000000, "1" },   { 2500000000, "2.5" },
        { 5000000000, "5" },   { 10000000000, "10" },
};

static const LatencyBound coarse_bounds[] = {
        { 1000000, "0.001" },
        { 10000000, "0.01" },
        { 100000000, "0.1" },
};

#define PROBE_HELP " (from the last probe run)"

static bool has_latency(const ReportProbe *p, ProbePhase ph) {
        return p && p->has_last && !probe_phase_is_write(ph) && p->last.phases[ph].ran &&
               p->last.phases[ph].latency;
}

static void histogram(MetricsWriter *w, const LatencyBound *b, size_t n_b, const char *volume,
                      const char *phase, const LatencyHistogram *h) {
        for (size_t k = 0; k < n_b; k++)
                metrics_writer_sample(w, "_bucket", (double) latency_histogram_count_le(h, b[k].ns),
                                      "volume", volume, "phase", phase, "le", b[k].le, NULL);
        metrics_writer_sample(w, "_bucket", (double) h->count, "volume", volume, "phase", phase,
                              "le", "+Inf", NULL);
        metrics_writer_sample(w, "_sum", (double) h->sum_ns / 1e9, "volume", volume, "phase", phase,
                              NULL);
        metrics_writer_sample(w, "_count", (double) h->count, "volume", volume, "phase", phase,
                              NULL);
}

int metrics_latency_render(MetricsWriter *w, MetricsLatency mode, Volume *const *vols,
                           const ReportProbe *const *probes, size_t n) {
        const LatencyBound *b = NULL;
        size_t n_b = 0;
        int r = 0;

        switch (mode) {
        case METRICS_LATENCY_COARSE:
                b = coarse_bounds, n_b = ELEMENTSOF(coarse_bounds);
                break;
        case METRICS_LATENCY_FULL:
                b = full_bounds, n_b = ELEMENTSOF(full_bounds);
                break;
        case METRICS_LATENCY_OFF:
                break;
        case _METRICS_LATENCY_MAX:
        case _METRICS_LATENCY_INVALID:
                return -EINVAL;
        }

        if (b) {
                (void) metrics_writer_family(w, "storpulse_probe_read_latency_seconds",
                                             METRIC_HISTOGRAM,
                                             "Read latency per phase" PROBE_HELP
                                             "; a bucket may undercount by the samples within 0.8% "
                                             "below its bound.");
                for (size_t i = 0; i < n; i++)
                        for (ProbePhase p = 0; p < _PROBE_PHASE_MAX; p++)
                                if (has_latency(probes[i], p))
                                        histogram(w, b, n_b, vols[i]->name,
                                                  probe_phase_to_string(p),
                                                  probes[i]->last.phases[p].latency);
        }
        /* the writer's error sticks: the last call returns the first error */
        r = metrics_writer_family(w, "storpulse_probe_read_latency_p99_seconds", METRIC_GAUGE,
                                  "99th percentile read latency per phase" PROBE_HELP
                                  ", from the probe's own histogram (within 0.8%).");
        for (size_t i = 0; i < n; i++)
                for (ProbePhase p = 0; p < _PROBE_PHASE_MAX; p++)
                        if (has_latency(probes[i], p))
                                r = metrics_writer_sample(
                                        w, "", (double) probes[i]->last.phases[p].p99_ns / 1e9,
                                        "volume", vols[i]->name, "phase", probe_phase_to_string(p),
                                        NULL);
        return r;
}

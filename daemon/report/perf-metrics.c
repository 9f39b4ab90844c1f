/* SPDX-License-Identifier: MIT */
/* Learned baselines, verdicts and fail-slow members as report series (the list is in the
 * header). Families are written only when they have a sample, volumes and members in the
 * monitor's order sorted by name so the output is deterministic. */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/perf-report.h"
#include "report/perf-metrics.h"

/* A throughput phase's baseline (seq) and a random phase's (iops, p99: either may be unlearnt)
 * into ret's phases; true when any of them is learnt. */
static bool baseline_throughput(const BaselineStat *seq, ReportPhaseBaseline *ret) {
        if (!seq->ready)
                return false;
        ret->has = true;
        ret->bytes_per_second = seq->median;
        ret->bytes_per_second_mad = seq->mad;
        return true;
}

static bool baseline_random(const BaselineStat *iops, const BaselineStat *p99,
                            ReportPhaseBaseline *ret) {
        if (!iops->ready && !p99->ready)
                return false;
        ret->has = true;
        ret->iops = iops->ready ? iops->median : NAN;
        ret->iops_mad = iops->ready ? iops->mad : NAN;
        ret->p99_ns = p99->ready ? (nsec_t) p99->median : 0;
        ret->p99_mad_ns = p99->ready ? p99->mad : NAN;
        return true;
}

void perf_report_baseline(const PerfMonitor *pm, const char *volume, unsigned min_samples,
                          ReportBaseline *ret) {
        const Baseline *b = pm ? perf_monitor_get_baseline(pm, volume) : NULL;
        BaselineStat seq, iops, p99, ws, wi, wp, sp, none = { .ready = false };
        bool any = false;

        *ret = (ReportBaseline){};
        if (!b)
                return;
        baseline_get_stat(b, BASELINE_SEQ_BYTES_PER_SEC, min_samples, &seq);
        baseline_get_stat(b, BASELINE_RAND_IOPS, min_samples, &iops);
        baseline_get_stat(b, BASELINE_LAT_P99_NS, min_samples, &p99);
        baseline_get_stat(b, BASELINE_WRITE_BYTES_PER_SEC, min_samples, &ws);
        baseline_get_stat(b, BASELINE_WRITE_IOPS, min_samples, &wi);
        baseline_get_stat(b, BASELINE_WRITE_LAT_P99_NS, min_samples, &wp);
        baseline_get_stat(b, BASELINE_SYNC_LAT_P99_NS, min_samples, &sp);
        for (ProbePhase p = 0; p < _PROBE_PHASE_MAX; p++) {
                ret->phases[p].bytes_per_second_mad = NAN;
                ret->phases[p].iops_mad = NAN;
                ret->phases[p].p99_mad_ns = NAN;
        }
        any |= baseline_throughput(&seq, &ret->phases[PROBE_PHASE_SEQUENTIAL]);
        any |= baseline_random(&iops, &p99, &ret->phases[PROBE_PHASE_RANDOM]);
        any |= baseline_throughput(&ws, &ret->phases[PROBE_PHASE_WRITE_SEQUENTIAL]);
        any |= baseline_random(&wi, &wp, &ret->phases[PROBE_PHASE_WRITE_RANDOM]);
        /* the sync phase has a latency only: its "IOPS" is not a figure of the device */
        if (baseline_random(&none, &sp, &ret->phases[PROBE_PHASE_WRITE_SYNC]))
                any = true;
        ret->has = any;
}

static int cmp_name(const void *a, const void *b) {
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* The monitor's volume names, sorted; *ret_n of them. Caller frees the array (not the names). */
static const char **sorted_names(const PerfMonitor *pm, size_t *ret_n) {
        size_t n = 0;
        const char **a;

        while (perf_monitor_volume_name(pm, n))
                n++;
        a = calloc(n + 1, sizeof(*a));
        if (!a)
                return NULL;
        for (size_t i = 0; i < n; i++)
                a[i] = perf_monitor_volume_name(pm, i);
        qsort(a, n, sizeof(*a), cmp_name);
        *ret_n = n;
        return a;
}

static const BaselineMetric judged[] = {
        BASELINE_SEQ_BYTES_PER_SEC, BASELINE_RAND_IOPS,           BASELINE_LAT_P50_NS,
        BASELINE_LAT_P99_NS,        BASELINE_WRITE_BYTES_PER_SEC, BASELINE_WRITE_IOPS,
        BASELINE_WRITE_LAT_P99_NS,  BASELINE_SYNC_LAT_P99_NS,
};

/* The detector's verdict of each volume with a probe run. */
static void state_family(MetricsWriter *w, const PerfMonitor *pm, const char *const *names,
                         size_t n) {
        bool any = false;

        for (size_t i = 0; i < n; i++)
                any = any || perf_monitor_get_detector(pm, names[i])->runs > 0;
        if (any) {
                metrics_writer_family(w, "storpulse_performance_state", METRIC_GAUGE,
                                      "Degradation verdict against the learned baseline, one "
                                      "series per state (from the last probe run).");
                for (size_t i = 0; i < n; i++) {
                        const Detector *d = perf_monitor_get_detector(pm, names[i]);

                        if (d->runs == 0)
                                continue;
                        for (DetectorState s = 0; s < _DETECTOR_STATE_MAX; s++)
                                metrics_writer_sample(w, "", d->state == s ? 1 : 0, "volume",
                                                      names[i], "state",
                                                      detector_state_to_string(s), NULL);
                }
        }
}

/* Last run against the learned baseline, and how many runs it holds. */
static void baseline_families(MetricsWriter *w, const PerfMonitor *pm, const char *const *names,
                              size_t n) {
        bool any = false;

        for (size_t i = 0; i < n; i++)
                any = any || perf_monitor_get_baseline(pm, names[i]);
        if (any) {
                metrics_writer_family(w, "storpulse_performance_ratio", METRIC_GAUGE,
                                      "Last probe run divided by the learned baseline's median "
                                      "(cached from the last probe run).");
                for (size_t i = 0; i < n; i++) {
                        const Baseline *b = perf_monitor_get_baseline(pm, names[i]);
                        BaselineSample last;

                        if (!b || !perf_monitor_get_last(pm, names[i], &last, NULL))
                                continue;
                        for (size_t k = 0; k < ELEMENTSOF(judged); k++) {
                                BaselineStat st;

                                baseline_get_stat(b, judged[k], 1, &st);
                                if (!(st.median > 0) || !isfinite(last.v[judged[k]]))
                                        continue;
                                /* label values: the report's names (docs/json.md), not the
                                 * baseline file's internal ones (seq_bytes_per_sec, lat_p50_ns) */
                                metrics_writer_sample(w, "", last.v[judged[k]] / st.median,
                                                      "volume", names[i], "metric",
                                                      perf_report_metric_name(judged[k]), NULL);
                        }
                }
                metrics_writer_family(w, "storpulse_baseline_samples", METRIC_GAUGE,
                                      "Probe runs in the learned baseline (the last N healthy, "
                                      "idle runs).");
                for (size_t i = 0; i < n; i++) {
                        const Baseline *b = perf_monitor_get_baseline(pm, names[i]);
                        unsigned most = 0;

                        if (!b)
                                continue;
                        for (size_t k = 0; k < ELEMENTSOF(judged); k++)
                                most = MAX(most, b->ring[judged[k]].n);
                        metrics_writer_sample(w, "", most, "volume", names[i], NULL);
                }
        }
}

/* Peer comparison of array members: slow, flapping, episodes. */
static void member_families(MetricsWriter *w, const PerfMonitor *pm, const char *const *names,
                            size_t n) {
        bool any = false;

        for (size_t i = 0; i < n; i++)
                any = any || perf_monitor_get_group(pm, names[i]);
        if (any) {
                static const struct {
                        const char *name, *help;
                        MetricType type;
                } fam[] = {
                        { "storpulse_member_slow",
                          "1 if the array member is fail-slow (peer comparison).", METRIC_GAUGE },
                        { "storpulse_member_flapping",
                          "1 if the member went slow and back repeatedly in its last 32 runs.",
                          METRIC_GAUGE },
                        { "storpulse_member_slow_episodes_total",
                          "Times the member became fail-slow since the daemon started.",
                          METRIC_COUNTER },
                };

                for (size_t f = 0; f < ELEMENTSOF(fam); f++) {
                        metrics_writer_family(w, fam[f].name, fam[f].type, fam[f].help);
                        for (size_t i = 0; i < n; i++) {
                                const PeerGroup *g = perf_monitor_get_group(pm, names[i]);

                                for (size_t k = 0; g && k < g->n; k++) {
                                        const PeerMemberState *s = &g->m[k];
                                        double v = f == 0   ? s->suspect
                                                   : f == 1 ? s->flapping
                                                            : (double) s->episodes;

                                        metrics_writer_sample(w, "", v, "volume", names[i],
                                                              "member", s->name, NULL);
                                }
                        }
                }
        }
}

/* Rebuilds reported slow. */
static void rebuild_family(MetricsWriter *w, const PerfMonitor *pm, const char *const *names,
                           size_t n) {
        bool any = false;

        for (size_t i = 0; i < n; i++)
                any = any || perf_monitor_rebuild_is_slow(pm, names[i]);
        if (any) {
                metrics_writer_family(w, "storpulse_rebuild_slow", METRIC_GAUGE,
                                      "1 while the array's rebuild is reported slow (ETA over the "
                                      "limit or speed under the floor without competing I/O).");
                for (size_t i = 0; i < n; i++)
                        if (perf_monitor_rebuild_is_slow(pm, names[i]))
                                metrics_writer_sample(w, "", 1, "volume", names[i], NULL);
        }
}

int perf_metrics_write(MetricsWriter *w, void *userdata) {
        const PerfMonitor *pm = userdata;
        _cleanup_free_ const char **names = NULL;
        size_t n = 0;

        if (!pm)
                return 0;
        names = sorted_names(pm, &n);
        if (!names)
                return -ENOMEM;
        state_family(w, pm, names, n);
        baseline_families(w, pm, names, n);
        member_families(w, pm, names, n);
        rebuild_family(w, pm, names, n);
        return 0;
}

int perf_metrics_volume_json(const char *volume, json_object *o, void *userdata) {
        const PerfMonitor *pm = userdata;
        const Detector *d = pm ? perf_monitor_get_detector(pm, volume) : NULL;
        const PeerGroup *g = pm ? perf_monitor_get_group(pm, volume) : NULL;
        json_object *p, *slow;

        if (!d)
                return 0;
        p = json_object_new_object();
        if (!p)
                return -ENOMEM;
        /* the members judged fail-slow by peer comparison (storpulse_member_slow) */
        slow = json_object_new_array();
        if (!slow || json_object_object_add(p, "slow_members", slow) < 0) {
                json_object_put(slow);
                json_object_put(p);
                return -ENOMEM;
        }
        for (size_t k = 0; g && k < g->n; k++)
                if (g->m[k].suspect &&
                    json_object_array_add(slow, json_object_new_string(g->m[k].name)) < 0) {
                        json_object_put(p);
                        return -ENOMEM;
                }
        json_object_object_add(p, "state",
                               json_object_new_string(detector_state_to_string(d->state)));
        json_object_object_add(p, "culprit",
                               d->culprit[0] ? json_object_new_string(d->culprit) : NULL);
        json_object_object_add(p, "rebuild_slow",
                               json_object_new_boolean(perf_monitor_rebuild_is_slow(pm, volume)));
        if (json_object_object_add(o, "performance", p) < 0) {
                json_object_put(p);
                return -ENOMEM;
        }
        return 0;
}

/* SPDX-License-Identifier: MIT */
/* Degradation detector: classify each run against the baseline (margin AND noise AND, for
 * latency, an absolute floor), then a two-counter hysteresis (K bad in a row to degrade, M good
 * in a row to recover). Runs that cannot be judged leave the counters alone, so a saturated hour
 * neither raises nor clears a verdict. The header says why the defaults do not alarm on a busy
 * healthy machine. */

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "basic/format-util.h"
#include "analysis/detector.h"
#include "basic/string-table.h"

static const char *const detector_state_table[_DETECTOR_STATE_MAX] = {
        [DETECTOR_LEARNING] = "learning",
        [DETECTOR_OK] = "ok",
        [DETECTOR_SUSPECT] = "suspect",
        [DETECTOR_DEGRADED] = "degraded",
};
DEFINE_STRING_TABLE_LOOKUP(detector_state, DetectorState, detector_state_table);

static const char *const detector_run_table[_DETECTOR_RUN_MAX] = {
        [DETECTOR_RUN_GOOD] = "good",
        [DETECTOR_RUN_BAD] = "bad",
        [DETECTOR_RUN_INCONCLUSIVE] = "inconclusive",
};
DEFINE_STRING_TABLE_LOOKUP(detector_run, DetectorRun, detector_run_table);

static const char *const detector_event_type_table[_DETECTOR_EVENT_TYPE_MAX] = {
        [DETECTOR_EVENT_DEGRADED] = "degraded",
        [DETECTOR_EVENT_RECOVERED] = "recovered",
};
DEFINE_STRING_TABLE_LOOKUP(detector_event_type, DetectorEventType, detector_event_type_table);

int detector_config_validate(const DetectorConfig *c) {
        if (!c)
                return -EINVAL;
        if (!(c->threshold > 0 && c->threshold < 1) ||
            !(c->busy_threshold >= c->threshold && c->busy_threshold < 1))
                return -EINVAL;
        if (!(c->factor > 1) || !(c->p99_factor > 1) || !isfinite(c->factor) ||
            !isfinite(c->p99_factor) || !(c->busy_scale >= 1) || !isfinite(c->busy_scale))
                return -EINVAL;
        if (!(c->latency_floor_ns >= 0) || !isfinite(c->latency_floor_ns) || !(c->noise_k >= 0) ||
            !isfinite(c->noise_k))
                return -EINVAL;
        if (!(c->busy_utilization > 0 && c->busy_utilization <= c->saturated_utilization &&
              c->saturated_utilization <= 1))
                return -EINVAL;
        if (c->k_bad == 0 || c->m_good == 0 || c->k_bad > 1000 || c->m_good > 1000)
                return -EINVAL;
        if (c->min_samples == 0 || c->min_samples > BASELINE_WINDOW_MAX)
                return -EINVAL;
        if (!(c->guard >= 0 && c->guard < 1))
                return -EINVAL;
        return 0;
}

void detector_init(Detector *d) {
        *d = (Detector){
                .state = DETECTOR_LEARNING,
                .last_run = DETECTOR_RUN_INCONCLUSIVE,
                .last.metric = _BASELINE_METRIC_INVALID,
                .worst.metric = _BASELINE_METRIC_INVALID,
                .streak_start_usec = USEC_INFINITY,
                .degraded_since_usec = USEC_INFINITY,
        };
}

bool detector_is_suspect(const Detector *d) {
        return d->state == DETECTOR_SUSPECT || d->state == DETECTOR_DEGRADED;
}

/* 1 at the degradation line, larger is worse; -INFINITY when not judged. */
static double severity(BaselineMetric m, double ratio, double thr, double fac) {
        if (baseline_metric_higher_is_better(m))
                return (1 - ratio) / thr;
        return (ratio - 1) / (fac - 1);
}

DetectorRun detector_classify(const DetectorConfig *c, const Baseline *b, const BaselineSample *s,
                              double u, DetectorFinding *ret_worst) {
        DetectorFinding worst = { .metric = _BASELINE_METRIC_INVALID };
        double thr = c->threshold, scale = 1, worst_sev = -INFINITY;
        unsigned judged = 0;
        bool bad = false;

        if (isfinite(u) && u >= c->saturated_utilization) {
                if (ret_worst)
                        *ret_worst = worst;
                return DETECTOR_RUN_INCONCLUSIVE;
        }
        if (isfinite(u) && u >= c->busy_utilization) {
                thr = c->busy_threshold;
                scale = c->busy_scale;
        }

        for (BaselineMetric m = 0; m < _BASELINE_METRIC_MAX; m++) {
                BaselineStat st;
                double v = s->v[m], fac;

                if (!baseline_metric_judged(m) || !isfinite(v) || v < 0)
                        continue;
                baseline_get_stat(b, m, c->min_samples, &st);
                if (!st.ready || !(st.median > 0))
                        continue;
                judged++;
                fac = (m == BASELINE_LAT_P99_NS || m == BASELINE_WRITE_LAT_P99_NS ||
                                       m == BASELINE_SYNC_LAT_P99_NS
                               ? c->p99_factor
                               : c->factor) *
                      scale;
                /* Against the ring's median, and against the frozen reference (slow drift). */
                for (unsigned k = 0; k < 2; k++) {
                        double ref = k == 0 ? st.median : b->reference[m], sev;
                        bool is_bad;

                        if (!(ref > 0) || !isfinite(ref))
                                continue;
                        if (baseline_metric_higher_is_better(m))
                                is_bad = v < ref * (1 - thr) && v < ref - c->noise_k * st.mad;
                        else
                                is_bad = v > ref * fac && v > ref + c->noise_k * st.mad &&
                                         v > ref + c->latency_floor_ns;
                        bad = bad || is_bad;
                        sev = severity(m, v / ref, thr, fac);
                        /* A bad metric always outranks one merely worse relative to its line. */
                        if (is_bad)
                                sev += 1e6;
                        if (sev > worst_sev) {
                                worst_sev = sev;
                                worst = (DetectorFinding){
                                        .metric = m,
                                        .value = v,
                                        .baseline = ref,
                                        .ratio = v / ref,
                                };
                        }
                }
        }
        if (ret_worst)
                *ret_worst = worst;
        if (judged == 0)
                return DETECTOR_RUN_INCONCLUSIVE;
        return bad ? DETECTOR_RUN_BAD : DETECTOR_RUN_GOOD;
}

/* How far past 1 a ratio is, in either direction, as a factor >= 1: the order of |log(ratio)|
 * without log(). 0 is infinitely far; a negative ratio (none is) compares as NaN, false. */
static double ratio_spread(double ratio) {
        if (ratio < 0)
                return NAN;
        return ratio >= 1 ? ratio : 1 / ratio;
}

static bool finding_worse(const DetectorFinding *a, const DetectorFinding *b) {
        if (a->metric < 0)
                return false;
        if (b->metric < 0)
                return true;
        /* Compare on one scale: how far past 1 (either direction) the ratio is. */
        return ratio_spread(a->ratio) > ratio_spread(b->ratio);
}

static void set_culprit(Detector *d, const char *member) {
        size_t n = member ? strnlen(member, sizeof(d->culprit) - 1) : 0;

        memcpy(d->culprit, member ? member : "", n);
        d->culprit[n] = 0;
}

int detector_feed(Detector *d, const DetectorConfig *c, const Baseline *b, const BaselineSample *s,
                  double u, bool probe_failed, const char *slow_member, usec_t now_usec,
                  DetectorEvent *ret_event) {
        DetectorFinding f;
        DetectorRun run;

        if (!d || !c || !b || !s || !ret_event)
                return -EINVAL;

        run = detector_classify(c, b, s, u, &f);
        if (probe_failed)
                run = DETECTOR_RUN_BAD;
        d->runs++;
        d->last_run = run;
        d->last = f;

        switch (run) {
        case DETECTOR_RUN_INCONCLUSIVE:
                return 0;

        case DETECTOR_RUN_BAD:
                d->bad_runs++;
                d->good_streak = 0;
                if (d->bad_streak == 0) {
                        d->streak_start_usec = now_usec;
                        if (d->state != DETECTOR_DEGRADED) {
                                d->worst = f;
                                set_culprit(d, NULL);
                        }
                }
                if (finding_worse(&f, &d->worst))
                        d->worst = f;
                d->bad_streak++;
                if (slow_member && *slow_member)
                        set_culprit(d, slow_member);
                if (d->state == DETECTOR_DEGRADED)
                        return 0;
                if (d->bad_streak < c->k_bad) {
                        d->state = DETECTOR_SUSPECT;
                        return 0;
                }
                d->state = DETECTOR_DEGRADED;
                d->degraded_since_usec = d->streak_start_usec;
                d->verdicts++;
                *ret_event = (DetectorEvent){
                        .type = DETECTOR_EVENT_DEGRADED,
                        .finding = d->worst,
                        .runs = d->bad_streak,
                        .since_usec = d->degraded_since_usec,
                };
                memcpy(ret_event->culprit, d->culprit, sizeof(d->culprit));
                return 1;

        case DETECTOR_RUN_GOOD:
                d->bad_streak = 0;
                d->good_streak++;
                if (d->state != DETECTOR_DEGRADED) {
                        d->state = DETECTOR_OK;
                        set_culprit(d, NULL);
                        return 0;
                }
                if (d->good_streak < c->m_good)
                        return 0;
                *ret_event = (DetectorEvent){
                        .type = DETECTOR_EVENT_RECOVERED,
                        .finding = f,
                        .runs = d->good_streak,
                        .since_usec = d->degraded_since_usec,
                };
                memcpy(ret_event->culprit, d->culprit, sizeof(d->culprit));
                d->state = DETECTOR_OK;
                d->worst = (DetectorFinding){ .metric = _BASELINE_METRIC_INVALID };
                d->degraded_since_usec = USEC_INFINITY;
                set_culprit(d, NULL);
                return 1;

        case _DETECTOR_RUN_MAX:
        case _DETECTOR_RUN_INVALID:
                break;
        }
        return -EINVAL;
}

static const char *metric_label(BaselineMetric m) {
        switch (m) {
        case BASELINE_SEQ_BYTES_PER_SEC:
                return "sequential read throughput";
        case BASELINE_RAND_IOPS:
                return "random read IOPS";
        case BASELINE_LAT_P50_NS:
                return "median read latency";
        case BASELINE_LAT_P99_NS:
                return "p99 read latency";
        case BASELINE_LAT_MAX_NS:
                return "maximum read latency";
        case BASELINE_AWAIT_MS:
                return "read await";
        case BASELINE_CPU_USEC_PER_RUN:
                return "probe CPU time";
        case BASELINE_WRITE_BYTES_PER_SEC:
                return "sequential write throughput";
        case BASELINE_WRITE_IOPS:
                return "random write IOPS";
        case BASELINE_WRITE_LAT_P99_NS:
                return "p99 write latency";
        case BASELINE_SYNC_LAT_P99_NS:
                return "p99 fdatasync latency";
        case _BASELINE_METRIC_MAX:
        case _BASELINE_METRIC_INVALID:
                break;
        }
        return "performance";
}

char *baseline_metric_format_value(BaselineMetric m, double v, char *buf, size_t size) {
        if (!isfinite(v)) {
                snprintf(buf, size, "-");
                return buf;
        }
        switch (m) {
        case BASELINE_SEQ_BYTES_PER_SEC:
        case BASELINE_WRITE_BYTES_PER_SEC:
                format_bytes_per_second(buf, size, v);
                break;
        case BASELINE_RAND_IOPS:
        case BASELINE_WRITE_IOPS:
                snprintf(buf, size, "%.0f IOPS", v);
                break;
        case BASELINE_LAT_P50_NS:
        case BASELINE_LAT_P99_NS:
        case BASELINE_LAT_MAX_NS:
        case BASELINE_WRITE_LAT_P99_NS:
        case BASELINE_SYNC_LAT_P99_NS:
                if (v >= 1e6)
                        snprintf(buf, size, "%.2f ms", v / 1e6);
                else
                        snprintf(buf, size, "%.0f us", v / 1e3);
                break;
        case BASELINE_AWAIT_MS:
                snprintf(buf, size, "%.2f ms", v);
                break;
        case BASELINE_CPU_USEC_PER_RUN:
                snprintf(buf, size, "%.1f ms", v / 1e3);
                break;
        case _BASELINE_METRIC_MAX:
        case _BASELINE_METRIC_INVALID:
                snprintf(buf, size, "%g", v);
                break;
        }
        return buf;
}

char *detector_finding_format(const DetectorFinding *f, char *buf, size_t size) {
        char val[32], base[32];

        if (f->metric < 0 || f->metric >= _BASELINE_METRIC_MAX) {
                snprintf(buf, size, "probe failed");
                return buf;
        }
        baseline_metric_format_value(f->metric, f->value, val, sizeof(val));
        baseline_metric_format_value(f->metric, f->baseline, base, sizeof(base));
        if (baseline_metric_higher_is_better(f->metric))
                snprintf(buf, size, "%s at %.0f%% of baseline (%s vs %s)", metric_label(f->metric),
                         f->ratio * 100, val, base);
        else
                snprintf(buf, size, "%s %.1fx baseline (%s vs %s)", metric_label(f->metric),
                         f->ratio, val, base);
        return buf;
}

char *detector_event_format(const DetectorEvent *e, char *buf, size_t size) {
        char finding[160], who[BASELINE_NAME_MAX + 40] = "";

        if (e->culprit[0])
                snprintf(who, sizeof(who), "; member %s %s the slow one", e->culprit,
                         e->type == DETECTOR_EVENT_DEGRADED ? "is" : "was");
        snprintf(buf, size, "performance %s: %s for %u runs%s",
                 e->type == DETECTOR_EVENT_DEGRADED ? "degraded" : "recovered",
                 detector_finding_format(&e->finding, finding, sizeof(finding)), e->runs, who);
        return buf;
}

/* SPDX-License-Identifier: MIT */
/* The report document (format in the header): medians from the baseline rings, the last run from
 * the monitor when there is one. Pure apart from reading the monitor and the inventory. */

#include <math.h>
#include <string.h>

#include "basic/json-util.h"
#include "core/perf-report.h"

/* The metrics under their schema names (docs/json.md: units in the name, SI base units), and the
 * factor from the baseline's own unit (baselines.json keeps ns, ms and µs) to that. */
static const struct {
        const char *name;
        double scale;
} metric_out[_BASELINE_METRIC_MAX] = {
        [BASELINE_SEQ_BYTES_PER_SEC] = { "seq_bytes_per_second", 1 },
        [BASELINE_RAND_IOPS] = { "rand_iops", 1 },
        [BASELINE_LAT_P50_NS] = { "latency_p50_seconds", 1e-9 },
        [BASELINE_LAT_P99_NS] = { "latency_p99_seconds", 1e-9 },
        [BASELINE_LAT_MAX_NS] = { "latency_max_seconds", 1e-9 },
        [BASELINE_AWAIT_MS] = { "await_seconds", 1e-3 },
        [BASELINE_CPU_USEC_PER_RUN] = { "cpu_seconds_per_run", 1e-6 },
        [BASELINE_WRITE_BYTES_PER_SEC] = { "write_bytes_per_second", 1 },
        [BASELINE_WRITE_IOPS] = { "write_iops", 1 },
        [BASELINE_WRITE_LAT_P99_NS] = { "write_latency_p99_seconds", 1e-9 },
        [BASELINE_SYNC_LAT_P99_NS] = { "sync_latency_p99_seconds", 1e-9 },
};

const char *perf_report_metric_name(BaselineMetric m) {
        return m >= 0 && m < _BASELINE_METRIC_MAX ? metric_out[m].name : NULL;
}

static bool wanted(char *const *only, const char *name) {
        if (!only)
                return true;
        for (size_t i = 0; only[i]; i++)
                if (strcmp(only[i], name) == 0)
                        return true;
        return false;
}

/* Another entry of the same name and profile was updated later (the name moved to another
 * device): only the newest is reported from a state file. */
static bool superseded(const BaselineSet *set, const Baseline *b) {
        char pb[64], po[64];

        (void) perf_baseline_key_split(b->identity, pb, sizeof(pb));
        for (size_t i = 0; i < set->n; i++) {
                const Baseline *o = &set->items[i];

                if (o == b || strcmp(o->name, b->name) != 0)
                        continue;
                (void) perf_baseline_key_split(o->identity, po, sizeof(po));
                if (strcmp(pb, po) == 0 && o->updated_realtime_usec > b->updated_realtime_usec)
                        return true;
        }
        return false;
}

static double newest(const BaselineRing *r) {
        if (r->n == 0)
                return NAN;
        return r->v[(r->first + r->n - 1) % BASELINE_WINDOW_MAX];
}

static int entry_to_json(const Baseline *b, const char *name, const PerfMonitor *pm,
                         json_object **ret) {
        json_object *o = json_object_new_object(), *ms = json_object_new_object();
        /* the last run and the verdict belong to the baseline that run was judged against: a
         * light run is no "now" of the quick baseline */
        bool own = pm && perf_monitor_get_baseline(pm, name) == b;
        const Detector *d = own ? perf_monitor_get_detector(pm, name) : NULL;
        BaselineSample last;
        bool have_last = own && perf_monitor_get_last(pm, name, &last, NULL);

        if (!o || !ms) {
                json_object_put(o);
                json_object_put(ms);
                return -ENOMEM;
        }
        char profile[64];
        const char *identity = perf_baseline_key_split(b->identity, profile, sizeof(profile));

        json_object_object_add(o, "volume", json_object_new_string(name));
        json_object_object_add(o, "profile", profile[0] ? json_object_new_string(profile) : NULL);
        json_object_object_add(o, "identity", json_object_new_string(identity));
        json_object_object_add(o, "generation", json_object_new_uint64(b->generation));
        json_object_object_add(o, "learned_runs", json_object_new_uint64(b->learned_runs));
        (void) json_add_usec_as_seconds(o, "since_timestamp_seconds", b->since_realtime_usec, true);
        (void) json_add_usec_as_seconds(o, "updated_timestamp_seconds", b->updated_realtime_usec,
                                        true);
        (void) json_add_usec_as_seconds(o, "rebuild_timestamp_seconds", b->rebuild_realtime_usec,
                                        true);
        json_object_object_add(o, "verdict",
                               d && d->state != DETECTOR_LEARNING
                                       ? json_object_new_string(detector_state_to_string(d->state))
                                       : NULL);
        json_object_object_add(o, "culprit",
                               d && d->culprit[0] ? json_object_new_string(d->culprit) : NULL);
        json_object_object_add(
                o, "rebuild_slow",
                json_object_new_boolean(pm && perf_monitor_rebuild_is_slow(pm, name)));
        json_object_object_add(o, "now_source",
                               json_object_new_string(have_last ? "last-run" : "last-learned"));
        for (BaselineMetric m = 0; m < _BASELINE_METRIC_MAX; m++) {
                json_object *x = json_object_new_object();
                BaselineStat st, rb;

                if (!x) {
                        json_object_put(o);
                        json_object_put(ms);
                        return -ENOMEM;
                }
                baseline_get_stat(b, m, 1, &st);
                baseline_ring_stat(&b->rebuild[m], 1, &rb);
                double k = metric_out[m].scale;

                (void) json_add_number(x, "now", k * (have_last ? last.v[m] : newest(&b->ring[m])));
                (void) json_add_number(x, "baseline", k * st.median);
                (void) json_add_number(x, "mad", k * st.mad);
                (void) json_add_u64(x, "n", st.n);
                (void) json_add_number(x, "reference", k * b->reference[m]);
                (void) json_add_number(x, "during_rebuild", k * rb.median);
                (void) json_add(ms, metric_out[m].name, x);
        }
        json_object_object_add(o, "metrics", ms);
        *ret = o;
        return 0;
}

int perf_report_build(const BaselineSet *set, const PerfMonitor *pm, const Inventory *inv,
                      char *const *only, json_object **ret) {
        json_object *doc = json_object_new_object(), *a = json_object_new_array();
        int r;

        if (!doc || !a) {
                json_object_put(doc);
                json_object_put(a);
                return -ENOMEM;
        }
        json_object_object_add(doc, "source", json_object_new_string(pm ? "daemon" : "state-file"));
        json_object_object_add(doc, "volumes", a);

        if (inv) {
                const Volume *v;

                INVENTORY_FOREACH(v, inv) {
                        char id[BASELINE_IDENTITY_MAX];

                        if (v->hidden || !wanted(only, v->name))
                                continue;
                        perf_volume_identity(inv, v, id);
                        /* one entry per profile the device was probed with */
                        for (size_t i = 0; set && i < set->n; i++) {
                                const Baseline *b = &set->items[i];
                                json_object *e;

                                if (strcmp(perf_baseline_key_split(b->identity, NULL, 0), id) != 0)
                                        continue;
                                r = entry_to_json(b, v->name, pm, &e);
                                if (r < 0) {
                                        json_object_put(doc);
                                        return r;
                                }
                                json_object_array_add(a, e);
                        }
                }
        } else
                for (size_t i = 0; set && i < set->n; i++) {
                        const Baseline *b = &set->items[i];
                        json_object *e;

                        if (!b->name[0] || !wanted(only, b->name) || superseded(set, b))
                                continue;
                        r = entry_to_json(b, b->name, pm, &e);
                        if (r < 0) {
                                json_object_put(doc);
                                return r;
                        }
                        json_object_array_add(a, e);
                }
        *ret = doc;
        return 0;
}

/* SPDX-License-Identifier: MIT */
/* JSON for /api/v1: the volume objects are the CLI's (model/volume.c volume_to_json(), one schema
 * for `storpulsectl volumes --json` and the API), the probe history and events are built here.
 * json-c does all escaping. Times are CLOCK_REALTIME µs since the epoch ("*_usec"), rates per
 * second, latencies ns. */

#include <errno.h>
#include <string.h>

#include "report/api.h"

static int add(json_object *o, const char *key, json_object *val) {
        if (json_object_object_add(o, key, val) < 0) {
                json_object_put(val);
                return -ENOMEM;
        }
        return 0;
}

static int add_u64(json_object *o, const char *key, uint64_t u) {
        json_object *j = json_object_new_uint64(u);
        return j ? add(o, key, j) : -ENOMEM;
}

static int add_double(json_object *o, const char *key, double d) {
        json_object *j = json_object_new_double(d);
        return j ? add(o, key, j) : -ENOMEM;
}

static int add_str(json_object *o, const char *key, const char *s) {
        json_object *j = NULL;

        if (s && !(j = json_object_new_string(s)))
                return -ENOMEM;
        return add(o, key, j);
}

static int add_bool(json_object *o, const char *key, bool b) {
        json_object *j = json_object_new_boolean(b);
        return j ? add(o, key, j) : -ENOMEM;
}

static int array_add(json_object *a, json_object *val) {
        if (json_object_array_add(a, val) < 0) {
                json_object_put(val);
                return -ENOMEM;
        }
        return 0;
}

static int sample_to_json(const ReportSample *s, json_object **ret) {
        json_object *o = json_object_new_object(), *phases;

        if (!o)
                return -ENOMEM;
        if (add_u64(o, "realtime_usec", s->realtime_usec) < 0 ||
            add_str(o, "profile", s->profile) < 0 ||
            add_str(o, "result", report_probe_result_to_string(s->result)) < 0 ||
            add_u64(o, "duration_usec", s->duration_usec) < 0 ||
            add_u64(o, "errors", s->errors) < 0 || add_bool(o, "forced", s->forced) < 0)
                goto out_nomem;
        phases = json_object_new_object();
        if (!phases || add(o, "phases", phases) < 0)
                goto out_nomem;
        for (ProbePhase p = 0; p < _PROBE_PHASE_MAX; p++) {
                const ReportPhase *ph = &s->phases[p];
                json_object *j;

                if (!ph->ran)
                        continue;
                j = json_object_new_object();
                if (!j || add(phases, probe_phase_to_string(p), j) < 0)
                        goto out_nomem;
                if (add_double(j, "bytes_per_second", ph->bytes_per_second) < 0 ||
                    add_double(j, "iops", ph->iops) < 0 || add_u64(j, "p50_ns", ph->p50_ns) < 0 ||
                    add_u64(j, "p99_ns", ph->p99_ns) < 0 || add_u64(j, "max_ns", ph->max_ns) < 0 ||
                    add_u64(j, "errors", ph->errors) < 0)
                        goto out_nomem;
        }
        *ret = o;
        return 0;

out_nomem:
        json_object_put(o);
        return -ENOMEM;
}

static int baseline_to_json(const ReportBaseline *b, json_object **ret) {
        json_object *o;

        if (!b || !b->has) {
                *ret = NULL;
                return 0;
        }
        o = json_object_new_object();
        if (!o)
                return -ENOMEM;
        for (ProbePhase p = 0; p < _PROBE_PHASE_MAX; p++) {
                json_object *j;

                if (!b->phases[p].has)
                        continue;
                j = json_object_new_object();
                if (!j || add(o, probe_phase_to_string(p), j) < 0 ||
                    add_double(j, "bytes_per_second", b->phases[p].bytes_per_second) < 0 ||
                    add_double(j, "iops", b->phases[p].iops) < 0 ||
                    add_u64(j, "p99_ns", b->phases[p].p99_ns) < 0) {
                        json_object_put(o);
                        return -ENOMEM;
                }
        }
        *ret = o;
        return 0;
}

static int probe_to_json(const ReportProbe *p, json_object **ret) {
        json_object *o, *skips, *last = NULL;

        if (!p) {
                *ret = NULL;
                return 0;
        }
        o = json_object_new_object();
        if (!o)
                return -ENOMEM;
        if (add_bool(o, "running", p->running) < 0 || add_bool(o, "stalled", p->stalled) < 0 ||
            add_u64(o, "runs", p->n_probes) < 0 || add_u64(o, "stalls", p->n_stalls) < 0 ||
            add_u64(o, "failures", p->n_failed) < 0 || add_u64(o, "cpu_usec", p->cpu_usec) < 0 ||
            add_u64(o, "device_usec", p->device_usec) < 0 ||
            add_u64(o, "forced", p->n_forced) < 0 ||
            add(o, "deferred_since_usec",
                p->deferred_usec > 0 ? json_object_new_uint64(p->deferred_usec) : NULL) < 0)
                goto out_nomem;
        skips = json_object_new_object();
        if (!skips || add(o, "skips", skips) < 0)
                goto out_nomem;
        for (ProbeSkipReason r = 0; r < _PROBE_SKIP_REASON_MAX; r++)
                if (add_u64(skips, probe_skip_reason_to_string(r), p->skips[r]) < 0)
                        goto out_nomem;
        if (p->has_last && sample_to_json(&p->last, &last) < 0)
                goto out_nomem;
        if (add(o, "last", last) < 0)
                goto out_nomem;
        *ret = o;
        return 0;

out_nomem:
        json_object_put(o);
        return -ENOMEM;
}

int api_volumes_json(const ReportInput *in, json_object **ret) {
        if (!in || !in->inventory || !ret)
                return -EINVAL;
        return inventory_to_json(in->inventory, ret);
}

int api_volume_json(const ReportInput *in, const char *name, json_object **ret) {
        json_object *o = NULL, *probe = NULL;
        const Volume *v;
        int r;

        if (!in || !in->inventory || !name || !ret)
                return -EINVAL;
        v = inventory_get(in->inventory, name);
        if (!v)
                return -ENOENT;
        r = volume_to_json(v, &o);
        if (r < 0)
                return r;
        if (probe_to_json(report_input_get_probe(in, name), &probe) < 0 ||
            add(o, "probe", probe) < 0) {
                json_object_put(o);
                return -ENOMEM;
        }
        *ret = o;
        return 0;
}

static int event_to_json(const ReportEvent *e, json_object **ret) {
        json_object *o = json_object_new_object();

        if (!o)
                return -ENOMEM;
        if (add_u64(o, "seq", e->seq) < 0 || add_u64(o, "realtime_usec", e->realtime_usec) < 0 ||
            add_str(o, "type", e->type) < 0 || add_u64(o, "priority", (uint64_t) e->priority) < 0 ||
            add_str(o, "volume", e->volume && *e->volume ? e->volume : NULL) < 0 ||
            add_str(o, "member", e->member && *e->member ? e->member : NULL) < 0 ||
            add_str(o, "message", e->message) < 0) {
                json_object_put(o);
                return -ENOMEM;
        }
        *ret = o;
        return 0;
}

int api_history_json(const ReportInput *in, json_object **ret) {
        json_object *o, *vols, *events;
        Volume *v;
        int r = -ENOMEM;

        if (!in || !in->inventory || !ret)
                return -EINVAL;
        o = json_object_new_object();
        if (!o)
                return -ENOMEM;
        if (add_u64(o, "now_usec", in->now_realtime_usec) < 0)
                goto out;
        vols = json_object_new_object();
        if (!vols || add(o, "volumes", vols) < 0)
                goto out;
        INVENTORY_FOREACH(v, in->inventory) {
                const ReportProbe *p;
                json_object *j, *samples, *b = NULL;

                if (!volume_is_listed(v))
                        continue;
                p = report_input_get_probe(in, v->name);
                j = json_object_new_object();
                if (!j || add(vols, v->name, j) < 0)
                        goto out;
                samples = json_object_new_array();
                if (!samples || add(j, "samples", samples) < 0)
                        goto out;
                for (size_t i = 0; p && i < p->n_history; i++) {
                        json_object *s;
                        if (sample_to_json(&p->history[i], &s) < 0 || array_add(samples, s) < 0)
                                goto out;
                }
                if (baseline_to_json(p ? p->baseline : NULL, &b) < 0 || add(j, "baseline", b) < 0)
                        goto out;
                for (size_t i = 0; i < in->n_extensions; i++)
                        if (in->extensions[i].volume_json) {
                                r = in->extensions[i].volume_json(v->name, j,
                                                                  in->extensions[i].userdata);
                                if (r < 0)
                                        goto out;
                                r = -ENOMEM;
                        }
        }
        events = json_object_new_array();
        if (!events || add(o, "events", events) < 0)
                goto out;
        for (size_t i = 0; i < in->n_events; i++) {
                json_object *e;
                if (event_to_json(&in->events[i], &e) < 0 || array_add(events, e) < 0)
                        goto out;
        }
        *ret = o;
        return 0;

out:
        json_object_put(o);
        return r;
}

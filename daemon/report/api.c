/* SPDX-License-Identifier: MIT */
/* JSON for /api/v1: the volume objects are the CLI's (model/volume.c volume_to_json(), one schema
 * for `storpulsectl volumes --json` and the API), the probe records, samples and events are built
 * here, for the API and for the control socket (`storpulsectl volumes --daemon --json`) alike.
 * Names and units follow docs/json.md: units in the name, times in seconds (`*_seconds`,
 * CLOCK_REALTIME as `*_timestamp_seconds`), rates per second; numbers by basic/json-util.h. */

#include <errno.h>
#include <string.h>

#include "basic/json-util.h"
#include "core/stack-health.h"
#include "report/api.h"
#include "report/stack-metrics.h"

int api_sample_json(const ReportSample *s, json_object **ret) {
        json_object *o = json_object_new_object(), *phases;

        if (!o)
                return -ENOMEM;
        if (json_add_usec_as_seconds(o, "timestamp_seconds", s->realtime_usec, false) < 0 ||
            json_add_str(o, "profile", s->profile) < 0 ||
            json_add_str(o, "result", report_probe_result_to_string(s->result)) < 0 ||
            json_add_usec_as_seconds(o, "duration_seconds", s->duration_usec, false) < 0 ||
            json_add_u64(o, "errors", s->errors) < 0 || json_add_bool(o, "forced", s->forced) < 0 ||
            json_add_number(o, "foreground_share", s->foreground_share) < 0 ||
            json_add_number(o, "cpu_wait_share", s->cpu_wait_share) < 0)
                goto out_nomem;
        phases = json_object_new_object();
        if (!phases || json_add(o, "phases", phases) < 0)
                goto out_nomem;
        for (ProbePhase p = 0; p < _PROBE_PHASE_MAX; p++) {
                const ReportPhase *ph = &s->phases[p];
                json_object *j;

                if (!ph->ran)
                        continue;
                j = json_object_new_object();
                if (!j || json_add(phases, probe_phase_to_string(p), j) < 0)
                        goto out_nomem;
                if (json_add_number(j, "bytes_per_second", ph->bytes_per_second) < 0 ||
                    json_add_number(j, "iops", ph->iops) < 0 ||
                    json_add_number(j, "latency_p50_seconds", ph->p50_ns / 1e9) < 0 ||
                    json_add_number(j, "latency_p99_seconds", ph->p99_ns / 1e9) < 0 ||
                    json_add_number(j, "latency_max_seconds", ph->max_ns / 1e9) < 0 ||
                    json_add_u64(j, "errors", ph->errors) < 0)
                        goto out_nomem;
        }
        *ret = o;
        return 0;

out_nomem:
        json_object_put(o);
        return -ENOMEM;
}

/* One phase of a baseline: the medians and, under "mad", their scaled MADs (null unknown). */
static int baseline_phase_to_json(const ReportBaseline *b, ProbePhase p, json_object *j) {
        json_object *mad = json_object_new_object();

        if (!mad || json_add(j, "mad", mad) < 0)
                return -ENOMEM;
        if (json_add_number(j, "bytes_per_second", b->phases[p].bytes_per_second) < 0 ||
            json_add_number(j, "iops", b->phases[p].iops) < 0 ||
            json_add_number(j, "latency_p99_seconds", b->phases[p].p99_ns / 1e9) < 0 ||
            json_add_number(mad, "bytes_per_second", b->phases[p].bytes_per_second_mad) < 0 ||
            json_add_number(mad, "iops", b->phases[p].iops_mad) < 0 ||
            json_add_number(mad, "latency_p99_seconds", b->phases[p].p99_mad_ns / 1e9) < 0)
                return -ENOMEM;
        return 0;
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
                if (!j || json_add(o, probe_phase_to_string(p), j) < 0 ||
                    baseline_phase_to_json(b, p, j) < 0) {
                        json_object_put(o);
                        return -ENOMEM;
                }
        }
        *ret = o;
        return 0;
}

int api_probe_json(const ReportProbe *p, json_object **ret) {
        json_object *o, *skips, *last = NULL;

        if (!p) {
                *ret = NULL;
                return 0;
        }
        o = json_object_new_object();
        if (!o)
                return -ENOMEM;
        if (json_add_bool(o, "running", p->running) < 0 ||
            json_add_bool(o, "stalled", p->stalled) < 0 ||
            json_add_u64(o, "runs", p->n_probes) < 0 ||
            json_add_u64(o, "stalls", p->n_stalls) < 0 ||
            json_add_u64(o, "failures", p->n_failed) < 0 ||
            json_add_usec_as_seconds(o, "cpu_seconds", p->cpu_usec, false) < 0 ||
            json_add_usec_as_seconds(o, "device_seconds", p->device_usec, false) < 0 ||
            json_add_u64(o, "forced", p->n_forced) < 0 ||
            json_add_u64(o, "second_looks", p->n_second_looks) < 0 ||
            json_add_usec_as_seconds(o, "deferred_since_timestamp_seconds", p->deferred_usec,
                                     true) < 0)
                goto out_nomem;
        skips = json_object_new_object();
        if (!skips || json_add(o, "skips", skips) < 0)
                goto out_nomem;
        for (ProbeSkipReason r = 0; r < _PROBE_SKIP_REASON_MAX; r++)
                if (json_add_u64(skips, probe_skip_reason_to_string(r), p->skips[r]) < 0)
                        goto out_nomem;
        if (p->has_last && api_sample_json(&p->last, &last) < 0)
                goto out_nomem;
        if (json_add(o, "last", last) < 0)
                goto out_nomem;
        *ret = o;
        return 0;

out_nomem:
        json_object_put(o);
        return -ENOMEM;
}

/* "probe_problem": report_probe_problem() of the volume's record, or null. */
static int add_probe_problem(const ReportInput *in, json_object *o) {
        json_object *name;

        if (!json_object_object_get_ex(o, "name", &name))
                return -EINVAL;
        return json_add_str(
                o, "probe_problem",
                report_probe_problem(report_input_get_probe(in, json_object_get_string(name))));
}

int api_volumes_json(const ReportInput *in, json_object **ret) {
        json_object *a;
        int r;

        if (!in || !in->inventory || !ret)
                return -EINVAL;
        r = inventory_to_json(in->inventory, &a);
        if (r < 0)
                return r;
        for (size_t i = 0; i < json_object_array_length(a); i++) {
                r = add_probe_problem(in, json_object_array_get_idx(a, i));
                if (r < 0) {
                        json_object_put(a);
                        return r;
                }
        }
        *ret = a;
        return 0;
}

int api_volume_json(const ReportInput *in, const char *name, json_object **ret) {
        json_object *o = NULL, *probe = NULL;
        const Volume *v;
        StackHealth sh;
        int r;

        if (!in || !in->inventory || !name || !ret)
                return -EINVAL;
        v = inventory_get(in->inventory, name);
        if (!v)
                return -ENOENT;
        r = stack_health_of(in->inventory, v, &sh);
        if (r < 0)
                return r;
        r = volume_to_json(v, &o);
        if (r < 0)
                return r;
        if (stack_health_add_json(&sh, o) < 0 || add_probe_problem(in, o) < 0 ||
            api_probe_json(report_input_get_probe(in, name), &probe) < 0 ||
            json_add(o, "probe", probe) < 0) {
                json_object_put(o);
                return -ENOMEM;
        }
        *ret = o;
        return 0;
}

int api_event_json(const ReportEvent *e, json_object **ret) {
        json_object *o = json_object_new_object();

        if (!o)
                return -ENOMEM;
        if (json_add_u64(o, "seq", e->seq) < 0 ||
            json_add_usec_as_seconds(o, "timestamp_seconds", e->realtime_usec, false) < 0 ||
            json_add_str(o, "event", e->type) < 0 ||
            json_add_str(o, "message_id", e->message_id) < 0 ||
            json_add_int(o, "priority", e->priority) < 0 ||
            json_add_str(o, "volume", e->volume && *e->volume ? e->volume : NULL) < 0 ||
            json_add_str(o, "member", e->member && *e->member ? e->member : NULL) < 0 ||
            json_add_str(o, "message", e->message) < 0) {
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
        if (json_add_usec_as_seconds(o, "now_timestamp_seconds", in->now_realtime_usec, false) < 0)
                goto out;
        vols = json_object_new_object();
        if (!vols || json_add(o, "volumes", vols) < 0)
                goto out;
        INVENTORY_FOREACH(v, in->inventory) {
                const ReportProbe *p;
                json_object *j, *samples, *b = NULL;

                if (!volume_is_listed(v))
                        continue;
                p = report_input_get_probe(in, v->name);
                j = json_object_new_object();
                if (!j || json_add(vols, v->name, j) < 0)
                        goto out;
                samples = json_object_new_array();
                if (!samples || json_add(j, "samples", samples) < 0)
                        goto out;
                for (size_t i = 0; p && i < p->n_history; i++) {
                        json_object *s;
                        if (api_sample_json(&p->history[i], &s) < 0 ||
                            json_array_append(samples, s) < 0)
                                goto out;
                }
                if (baseline_to_json(p ? p->baseline : NULL, &b) < 0 ||
                    json_add(j, "baseline", b) < 0)
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
        if (!events || json_add(o, "events", events) < 0)
                goto out;
        for (size_t i = 0; i < in->n_events; i++) {
                json_object *e;
                if (api_event_json(&in->events[i], &e) < 0 || json_array_append(events, e) < 0)
                        goto out;
        }
        *ret = o;
        return 0;

out:
        json_object_put(o);
        return r;
}

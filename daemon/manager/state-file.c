/* SPDX-License-Identifier: MIT */
/* Conversion of the probe records to and from the state file (state-file.h). The history is
 * written oldest first and read back into the ring in the same order, so the ring's newest entry
 * stays the newest. Numbers are bounded on the way in (a count fits uint64, a name fits a
 * record), and every unexpected type skips that item only. */

#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "manager/state-file.h"

static json_object *sample_build(const ManagerProbeSample *s) {
        json_object *o = json_object_new_object(), *ph = json_object_new_array();

        if (!o || !ph)
                goto fail;
        if (json_add_u64(o, "time_usec", s->realtime_usec) < 0 ||
            json_object_object_add(o, "profile", json_object_new_string(s->profile)) < 0 ||
            json_object_object_add(
                    o, "status",
                    json_object_new_string(probe_runner_status_to_string(s->status) ?: "")) < 0 ||
            json_object_object_add(o, "state",
                                   json_object_new_string(probe_state_to_string(s->state) ?: "")) <
                    0 ||
            json_add_u64(o, "duration_usec", s->duration_usec) < 0 ||
            json_add_u64(o, "errors", s->errors) < 0 ||
            (s->forced && json_object_object_add(o, "forced", json_object_new_boolean(true)) < 0))
                goto fail;
        for (size_t i = 0; i < _PROBE_PHASE_MAX; i++) {
                const ManagerProbePhaseSummary *p = &s->phases[i];
                json_object *x = json_object_new_object();

                if (!x)
                        goto fail;
                json_object_array_add(ph, x);
                if (json_object_object_add(x, "ran", json_object_new_boolean(p->ran)) < 0 ||
                    json_object_object_add(x, "bytes_per_second",
                                           json_object_new_double(p->bytes_per_second)) < 0 ||
                    json_object_object_add(x, "iops", json_object_new_double(p->iops)) < 0 ||
                    json_add_u64(x, "p50_ns", p->p50_ns) < 0 ||
                    json_add_u64(x, "p99_ns", p->p99_ns) < 0 ||
                    json_add_u64(x, "max_ns", p->max_ns) < 0 ||
                    json_add_u64(x, "errors", p->errors) < 0)
                        goto fail;
        }
        if (json_object_object_add(o, "phases", ph) < 0)
                goto fail;
        return o;
fail:
        json_object_put(o);
        json_object_put(ph);
        return NULL;
}

int state_file_build(const Manager *m, json_object **ret) {
        json_object *doc = json_object_new_object(), *vols = json_object_new_object();

        if (!doc || !vols || json_add_u64(doc, "version", STATE_FILE_VERSION) < 0)
                goto fail;
        for (size_t i = 0; i < m->n_volumes; i++) {
                const ManagerVolume *r = m->volumes[i];
                json_object *o, *sk, *h;

                if (r->n_probes == 0 && r->n_history == 0) {
                        bool any = r->deferred_usec > 0;

                        for (size_t k = 0; k < _PROBE_SKIP_REASON_MAX; k++)
                                any = any || r->skips[k] > 0;
                        if (!any)
                                continue; /* nothing measured: not worth a line */
                }
                o = json_object_new_object();
                sk = json_object_new_object();
                h = json_object_new_array();
                if (!o || !sk || !h || json_object_object_add(vols, r->name, o) < 0) {
                        json_object_put(o);
                        json_object_put(sk);
                        json_object_put(h);
                        goto fail;
                }
                if (json_add_u64(o, "probes", r->n_probes) < 0 ||
                    json_add_u64(o, "stalls", r->n_stalls) < 0 ||
                    json_add_u64(o, "errors", r->n_errors) < 0 ||
                    json_add_u64(o, "cpu_usec", r->cpu_usec) < 0 ||
                    json_add_u64(o, "device_usec", r->device_usec) < 0 ||
                    json_add_u64(o, "forced", r->n_forced) < 0 ||
                    json_add_u64(o, "second_looks", r->n_second_looks) < 0 ||
                    json_add_u64(o, "deferred_since_usec", r->deferred_usec) < 0 ||
                    json_object_object_add(o, "stalled", json_object_new_boolean(r->stalled)) < 0) {
                        json_object_put(sk);
                        json_object_put(h);
                        goto fail;
                }
                for (size_t k = 0; k < _PROBE_SKIP_REASON_MAX; k++)
                        (void) json_add_u64(sk, probe_skip_reason_to_string((ProbeSkipReason) k),
                                            r->skips[k]);
                json_object_object_add(o, "skips", sk);
                for (size_t k = r->n_history; k > 0; k--) {
                        json_object *s = sample_build(manager_volume_get_sample(r, k - 1));

                        if (!s) {
                                json_object_put(h);
                                goto fail;
                        }
                        json_object_array_add(h, s);
                }
                json_object_object_add(o, "history", h);
        }
        if (json_object_object_add(doc, "volumes", vols) < 0) {
                vols = NULL;
                goto fail;
        }
        *ret = doc;
        return 0;
fail:
        json_object_put(doc);
        json_object_put(vols);
        return -ENOMEM;
}

static bool get_u64(json_object *o, const char *k, uint64_t *ret) {
        json_object *v;

        if (!json_object_object_get_ex(o, k, &v) || !json_object_is_type(v, json_type_int))
                return false;
        if (json_object_get_int64(v) < 0 && json_object_get_uint64(v) == 0)
                return false;
        *ret = json_object_get_uint64(v);
        return true;
}

static double get_double(json_object *o, const char *k) {
        json_object *v;

        if (!json_object_object_get_ex(o, k, &v) ||
            !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
                return 0;
        return json_object_get_double(v);
}

static const char *get_str(json_object *o, const char *k) {
        json_object *v;

        return json_object_object_get_ex(o, k, &v) && json_object_is_type(v, json_type_string)
                       ? json_object_get_string(v)
                       : NULL;
}

static bool sample_parse(json_object *o, ManagerProbeSample *s) {
        const char *profile = get_str(o, "profile"), *st = get_str(o, "status"),
                   *state = get_str(o, "state");
        json_object *ph, *fo;
        uint64_t u;

        /* not kept: the foreground and CPU-wait figures of a sample (the detector judged it) */
        *s = (ManagerProbeSample){ .foreground_share = NAN, .cpu_wait_usec = USEC_INFINITY };
        if (!json_object_is_type(o, json_type_object) || !profile ||
            strlen(profile) >= sizeof(s->profile) || !st || !state ||
            probe_runner_status_from_string(st) < 0 || !get_u64(o, "time_usec", &s->realtime_usec))
                return false;
        memcpy(s->profile, profile, strlen(profile) + 1);
        s->status = probe_runner_status_from_string(st);
        s->state = probe_state_from_string(state) < 0 ? PROBE_STATE_OK
                                                      : probe_state_from_string(state);
        if (get_u64(o, "duration_usec", &u))
                s->duration_usec = u;
        (void) get_u64(o, "errors", &s->errors);
        s->forced = json_object_object_get_ex(o, "forced", &fo) && json_object_get_boolean(fo);
        if (json_object_object_get_ex(o, "phases", &ph) && json_object_is_type(ph, json_type_array))
                for (size_t i = 0; i < _PROBE_PHASE_MAX && i < json_object_array_length(ph); i++) {
                        json_object *x = json_object_array_get_idx(ph, i), *ran;
                        ManagerProbePhaseSummary *p = &s->phases[i];

                        if (!json_object_is_type(x, json_type_object))
                                continue;
                        p->ran = json_object_object_get_ex(x, "ran", &ran) &&
                                 json_object_get_boolean(ran);
                        p->bytes_per_second = get_double(x, "bytes_per_second");
                        p->iops = get_double(x, "iops");
                        (void) get_u64(x, "p50_ns", &p->p50_ns);
                        (void) get_u64(x, "p99_ns", &p->p99_ns);
                        (void) get_u64(x, "max_ns", &p->max_ns);
                        (void) get_u64(x, "errors", &p->errors);
                }
        return true;
}

int state_file_parse(const char *text, size_t size, StateFileRestore restore, void *userdata,
                     unsigned *ret_skipped, const char **ret_error) {
        struct json_tokener *tok = json_tokener_new_ex(8);
        json_object *doc, *vols;
        uint64_t version = 0;
        unsigned skipped = 0;
        int n = 0;

        if (!tok)
                return -ENOMEM;
        if (size > (size_t) INT32_MAX) {
                json_tokener_free(tok);
                *ret_error = "file too large";
                return -EBADMSG;
        }
        doc = json_tokener_parse_ex(tok, text, (int) size);
        json_tokener_free(tok);
        if (!doc || !json_object_is_type(doc, json_type_object)) {
                json_object_put(doc);
                *ret_error = "not a JSON object";
                return -EBADMSG;
        }
        if (!get_u64(doc, "version", &version) || version != STATE_FILE_VERSION) {
                json_object_put(doc);
                *ret_error = "unknown version";
                /* a newer daemon's file: to be kept for it, not replaced by an older format */
                return version > STATE_FILE_VERSION ? -EPROTONOSUPPORT : -EBADMSG;
        }
        if (!json_object_object_get_ex(doc, "volumes", &vols) ||
            !json_object_is_type(vols, json_type_object)) {
                json_object_put(doc);
                *ret_error = "no volumes object";
                return -EBADMSG;
        }
        json_object_object_foreach(vols, name, o) {
                ManagerProbeSample history[MANAGER_HISTORY_MAX], sample;
                ManagerVolume r = { .history = history };
                json_object *sk, *h, *st;

                if (!json_object_is_type(o, json_type_object) || strlen(name) == 0 ||
                    strlen(name) >= MANAGER_EVENT_NAME_MAX || strchr(name, '/')) {
                        skipped++;
                        continue;
                }
                r.name = name;
                (void) get_u64(o, "probes", &r.n_probes);
                (void) get_u64(o, "stalls", &r.n_stalls);
                (void) get_u64(o, "errors", &r.n_errors);
                (void) get_u64(o, "cpu_usec", &r.cpu_usec);
                (void) get_u64(o, "device_usec", &r.device_usec);
                (void) get_u64(o, "forced", &r.n_forced);
                (void) get_u64(o, "second_looks", &r.n_second_looks);
                (void) get_u64(o, "deferred_since_usec", &r.deferred_usec);
                r.stalled =
                        json_object_object_get_ex(o, "stalled", &st) && json_object_get_boolean(st);
                if (json_object_object_get_ex(o, "skips", &sk) &&
                    json_object_is_type(sk, json_type_object))
                        for (size_t k = 0; k < _PROBE_SKIP_REASON_MAX; k++)
                                (void) get_u64(sk, probe_skip_reason_to_string((ProbeSkipReason) k),
                                               &r.skips[k]);
                if (json_object_object_get_ex(o, "history", &h) &&
                    json_object_is_type(h, json_type_array)) {
                        size_t len = json_object_array_length(h);
                        size_t from = len > MANAGER_HISTORY_MAX ? len - MANAGER_HISTORY_MAX : 0;

                        for (size_t k = from; k < len; k++)
                                if (sample_parse(json_object_array_get_idx(h, k), &sample))
                                        (void) manager_volume_add_sample(&r, &sample);
                                else
                                        skipped++;
                }
                restore(&r, userdata);
                n++;
        }
        json_object_put(doc);
        if (ret_skipped)
                *ret_skipped = skipped;
        return n;
}

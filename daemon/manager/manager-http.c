/* SPDX-License-Identifier: MIT */
/* The daemon's side of the HTTP endpoint: start the server from [HTTP] (or --listen), or on the
 * sockets systemd passed, which then replace both (the AF_INET/AF_INET6 ones: the AF_UNIX one is
 * the control socket's; storpulsed-http.socket under the shipped units), and
 * after every manager_publish() turn the Manager's records into a ReportInput, build a new
 * Snapshot (report/snapshot.h: every body rendered and compressed once, here, on the loop) and
 * hand it to the server's thread. The endpoint is optional: when it cannot bind, the daemon logs
 * a warning and keeps monitoring.
 *
 * Nothing of this before the first client: the sockets are bound at start, then the loop watches
 * them, and the first connection waiting there renders the first snapshot and starts the server
 * (which loads libmicrohttpd, http/mhd-api.h), which then accepts it. An idle daemon nobody
 * scrapes holds no snapshot, no HTTP thread and no libmicrohttpd/GnuTLS. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <systemd/sd-daemon.h>

#include "basic/log.h"
#include "basic/sysfs.h"
#include "config.h"
#include "manager/manager-internal.h"
#include "report/api.h"
#include "report/perf-metrics.h"
#include "report/report.h"
#include "report/snapshot.h"

static ReportProbeResult sample_result(const ManagerProbeSample *s) {
        if (s->status == PROBE_RUNNER_STALLED)
                return REPORT_PROBE_STALLED;
        if (s->status != PROBE_RUNNER_DONE)
                return REPORT_PROBE_FAILED;
        switch (s->state) {
        case PROBE_STATE_OK:
                return REPORT_PROBE_OK;
        case PROBE_STATE_ERROR:
                return REPORT_PROBE_ERROR;
        case PROBE_STATE_STALLED:
                return REPORT_PROBE_STALLED;
        case _PROBE_STATE_MAX:
        case _PROBE_STATE_INVALID:
                break;
        }
        return REPORT_PROBE_FAILED;
}

void manager_report_sample(const ManagerProbeSample *s, ReportSample *ret) {
        *ret = (ReportSample){
                .realtime_usec = s->realtime_usec,
                .profile = s->profile,
                .result = sample_result(s),
                .duration_usec = s->duration_usec,
                .errors = s->errors,
                .forced = s->forced,
                .foreground_share = s->foreground_share,
                .cpu_wait_share = manager_probe_sample_cpu_wait_share(s),
        };
        for (ProbePhase p = 0; p < _PROBE_PHASE_MAX; p++)
                ret->phases[p] = (ReportPhase){
                        .ran = s->phases[p].ran,
                        .bytes_per_second = s->phases[p].bytes_per_second,
                        .iops = s->phases[p].iops,
                        .p50_ns = s->phases[p].p50_ns,
                        .p99_ns = s->phases[p].p99_ns,
                        .max_ns = s->phases[p].max_ns,
                        .errors = s->phases[p].errors,
                };
}

void manager_report_event(const ManagerEvent *e, ReportEvent *ret) {
        *ret = (ReportEvent){
                .seq = e->seq,
                .realtime_usec = e->realtime_usec,
                .type = manager_event_type_to_string(e->type),
                .message_id = manager_event_type_message_id(e->type),
                .priority = e->priority,
                .volume = e->volume,
                .member = e->member,
                .message = e->message,
        };
}

void manager_report_probe(const PerfMonitor *pm, const ManagerVolume *r, ReportProbe *p,
                          ReportSample *h, ReportBaseline *b) {
        *p = (ReportProbe){
                .volume = r->name,
                .running = r->probing,
                .stalled = r->stalled,
                .history = h,
                .n_history = r->n_history,
                .n_probes = r->n_probes,
                .n_stalls = r->n_stalls,
                .n_failed = r->n_errors,
                .cpu_usec = r->cpu_usec,
                .device_usec = r->device_usec,
                .n_forced = r->n_forced,
                .n_second_looks = r->n_second_looks,
                .deferred_usec = r->deferred_usec,
        };
        memcpy(p->skips, r->skips, sizeof(p->skips));
        if (pm) {
                perf_report_baseline(pm, r->name, perf_monitor_get_config(pm)->detector.min_samples,
                                     b);
                if (b->has)
                        p->baseline = b;
        }
        /* the history oldest first */
        for (size_t k = 0; k < r->n_history; k++)
                manager_report_sample(manager_volume_get_sample(r, r->n_history - 1 - k), &h[k]);
        if (r->n_history > 0) {
                p->has_last = true;
                p->last = h[r->n_history - 1];
                /* the full histograms of the last run, when it produced a result */
                if (r->has_outcome && r->last_outcome &&
                    r->last_outcome->status == PROBE_RUNNER_DONE)
                        for (ProbePhase ph = 0; ph < _PROBE_PHASE_MAX; ph++)
                                if (r->last_outcome->result.phases[ph].ran)
                                        p->last.phases[ph].latency =
                                                &r->last_outcome->result.phases[ph].latency;
        }
}

/* The buffers a ReportInput points into, freed together. */
typedef struct InputBuffers {
        ReportProbe *probes;
        ReportSample *samples;
        ReportEvent *events;
        ReportBaseline *baselines;
        ReportExtension ext;
} InputBuffers;

static void input_buffers_done(InputBuffers *b) {
        free(b->probes);
        free(b->samples);
        free(b->events);
        free(b->baselines);
}

/* The Manager's records as the report layer reads them (the snapshot, the control socket's
 * history). ret points into b and m. 0 or -ENOMEM. */
static int report_input_build(Manager *m, InputBuffers *b, ReportInput *ret) {
        const PerfMonitor *pm = manager_perf_monitor(m);
        usec_t now_rt = now(CLOCK_REALTIME), now_mono = now(CLOCK_MONOTONIC);

        *b = (InputBuffers){ .ext = perf_report_extension(pm) };
        b->probes = calloc(m->n_volumes + 1, sizeof(*b->probes));
        b->samples = calloc(m->n_volumes * MANAGER_HISTORY_MAX + 1, sizeof(*b->samples));
        b->events = calloc(m->n_events + 1, sizeof(*b->events));
        b->baselines = calloc(m->n_volumes + 1, sizeof(*b->baselines));
        if (!b->probes || !b->samples || !b->events || !b->baselines) {
                input_buffers_done(b);
                return -ENOMEM;
        }
        for (size_t i = 0; i < m->n_volumes; i++)
                manager_report_probe(pm, m->volumes[i], &b->probes[i],
                                     &b->samples[i * MANAGER_HISTORY_MAX], &b->baselines[i]);
        for (size_t i = 0; i < m->n_events; i++)
                manager_report_event(manager_get_event(m, i), &b->events[i]);
        *ret = (ReportInput){
                .inventory = m->inventory,
                .probes = b->probes,
                .n_probes = m->n_volumes,
                .events = b->events,
                .n_events = m->n_events,
                .version = PACKAGE_VERSION,
                .now_realtime_usec = now_rt,
                .start_realtime_usec = m->start_usec > 0 && now_mono >= m->start_usec
                                               ? now_rt - (now_mono - m->start_usec)
                                               : 0,
                .next_probe_realtime_usec = m->next_probe_usec,
                .render_duration_usec = m->http_render_usec,
                .state_save_errors = m->n_save_errors,
                .state_unsaved = manager_state_unsaved(m) != NULL,
                .latency_histogram = m->config->http_latency_histogram,
                /* the learned baselines' series and JSON (report/perf-metrics.h) */
                .extensions = pm ? &b->ext : NULL,
                .n_extensions = pm ? 1 : 0,
        };
        return 0;
}

static int build_snapshot(Manager *m, Snapshot **ret) {
        InputBuffers b;
        ReportInput in;
        int r;

        r = report_input_build(m, &b, &in);
        if (r < 0)
                return r;
        r = snapshot_build(&in, ++m->http_generation, ret);
        input_buffers_done(&b);
        return r;
}

int manager_history_json(Manager *m, char *const *only, json_object **ret, char *error,
                         size_t error_size) {
        json_object *doc = NULL, *vols;
        InputBuffers b;
        ReportInput in;
        int r;

        for (size_t i = 0; only && only[i]; i++) {
                const Volume *v = inventory_get(m->inventory, only[i]);

                if (!v || !volume_is_listed(v)) {
                        (void) snprintf(error, error_size, "no volume '%s'", only[i]);
                        return -ENOENT;
                }
        }
        r = report_input_build(m, &b, &in);
        if (r < 0)
                return r;
        r = api_history_json(&in, &doc);
        input_buffers_done(&b);
        if (r < 0)
                return r;
        if (only && json_object_object_get_ex(doc, "volumes", &vols)) {
                json_object *keep = json_object_new_object();

                if (!keep) {
                        json_object_put(doc);
                        return -ENOMEM;
                }
                for (size_t i = 0; only[i]; i++) {
                        json_object *v;

                        if (json_object_object_get_ex(vols, only[i], &v))
                                json_object_object_add(keep, only[i], json_object_get(v));
                }
                json_object_object_add(doc, "volumes", keep);
        }
        *ret = doc;
        return 0;
}

static void render(Manager *m) {
        _cleanup_(snapshot_unrefp) Snapshot *s = NULL;
        usec_t t0;
        int r;

        t0 = now(CLOCK_MONOTONIC);
        r = build_snapshot(m, &s);
        if (r < 0) {
                log_warning_errno(r,
                                  "Failed to render the HTTP snapshot: %m, serving the last one");
                return;
        }
        m->http_render_usec = now(CLOCK_MONOTONIC) - t0;
        http_server_set_snapshot(m->http, s);
}

static void on_publish(Manager *m, unsigned changed, void *userdata) {
        if (m->http && http_server_started(m->http))
                render(m);
}

static void wait_free(Manager *m) {
        for (size_t i = 0; i < m->n_http_wait; i++)
                sd_event_source_disable_unref(m->http_wait[i]);
        m->http_wait = mfree(m->http_wait);
        m->n_http_wait = 0;
}

/* Render, then start: the first request finds a snapshot, not a 503. */
static int start_now(Manager *m) {
        _cleanup_free_ char *error = NULL;
        int r;

        wait_free(m);
        render(m);
        r = http_server_start(m->http, &error);
        if (r < 0) {
                log_warning_errno(r, "HTTP endpoint stopped: %s, ignoring", error ?: strerror(-r));
                m->http = http_server_free(m->http);
                return r;
        }
        log_debug("HTTP endpoint started at its first connection.");
        return 0;
}

static int on_first_connection(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        (void) start_now(userdata);
        return 0;
}

static int wait_for_first_connection(Manager *m) {
        size_t n = http_server_n_listen(m->http);

        m->http_wait = calloc(n + 1, sizeof(*m->http_wait));
        if (!m->http_wait)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                int r = sd_event_add_io(m->event, &m->http_wait[m->n_http_wait],
                                        http_server_listen_fd(m->http, i), EPOLLIN,
                                        on_first_connection, m);
                if (r < 0)
                        return r;
                m->n_http_wait++;
        }
        return 0;
}

/* Sockets passed by systemd for HTTP: the stream sockets of family AF_INET/AF_INET6. The
 * environment is left in place for the control socket (manager-control.c). */
static size_t inet_listen_fds(int *fds, size_t max) {
        int n = sd_listen_fds(false);
        size_t k = 0;

        for (int fd = SD_LISTEN_FDS_START; n > 0 && fd < SD_LISTEN_FDS_START + n && k < max; fd++)
                if (sd_is_socket_inet(fd, 0, SOCK_STREAM, 1, 0) > 0)
                        fds[k++] = fd;
        return k;
}

/* [HTTP] but the sockets. */
static HttpServerOptions http_options(const Config *c) {
        return (HttpServerOptions){
                .max_connections = c->http_max_connections,
                .max_connections_per_ip = c->http_max_connections_ip,
                .connection_memory_bytes = (size_t) c->http_connection_memory,
                .timeout_sec = (unsigned) (c->http_timeout_usec / USEC_PER_SEC),
                .request_timeout_sec = (unsigned) (c->http_request_timeout_usec / USEC_PER_SEC),
                .tls_priorities = c->http_tls_priorities,
                .tls_cert_file = c->http_tls_certificate,
                .tls_key_file = c->http_tls_key,
                .auth_user = c->http_user,
                .auth_hash = c->http_password_hash,
                .lazy = true,
        };
}

static bool strv_equal_null(char *const *a, char *const *b) {
        for (; a && *a && b && *b; a++, b++)
                if (strcmp(*a, *b) != 0)
                        return false;
        return !(a && *a) && !(b && *b);
}

const char *manager_http_reload(Manager *m, const Config *c) {
        const Config *old = m->config;
        _cleanup_free_ char *error = NULL;
        HttpServerOptions o;
        int r;

        /* what the sockets are: bound once (or passed by systemd), kept across reloads */
        /* --listen overrides both */
        if (!m->http_listen && (c->http_enable != old->http_enable ||
                                !strv_equal_null(c->http_listen, old->http_listen))) {
                log_notice("[HTTP] Enable= or Listen= changed: takes effect at the next restart, "
                           "the endpoint keeps its sockets until then.");
                return "[HTTP] Enable= and Listen= take effect at the next restart";
        }
        if (!m->http) {
                if (c->http_enable)
                        log_notice("The HTTP endpoint did not start; a restart starts it with the "
                                   "new [HTTP] settings.");
                return c->http_enable ? "the HTTP endpoint starts at the next restart" : NULL;
        }
        o = http_options(c);
        r = http_server_reconfigure(m->http, &o, &error);
        if (r < 0) {
                log_warning_errno(r, "HTTP endpoint keeps its old [HTTP] settings: %s",
                                  error ?: strerror(-r));
                return "[HTTP] not applied (see the log): the endpoint keeps its old settings";
        }
        if (r > 0)
                log_info("HTTP endpoint: new [HTTP] settings (limits, TLS, auth) in force.");
        return NULL;
}

int manager_http_setup(Manager *m) {
        const Config *c = m->config;
        _cleanup_free_ char *error = NULL;
        int fds[16];
        size_t n_fds;
        char *const *addrs;
        HttpServerOptions o;
        int r;

        n_fds = inet_listen_fds(fds, ELEMENTSOF(fds));
        if (!c->http_enable && !m->http_listen) {
                if (n_fds > 0)
                        log_warning("HTTP endpoint disabled ([HTTP] Enable=no), but systemd "
                                    "passed it %zu socket(s): clients will wait on them; "
                                    "disable storpulsed-http.socket instead",
                                    n_fds);
                else
                        log_debug("HTTP endpoint disabled ([HTTP] Enable=no).");
                return 0;
        }
        addrs = m->http_listen ?: c->http_listen;
        if (n_fds > 0 && addrs && addrs[0])
                log_notice("HTTP endpoint: systemd passed %zu socket(s) (storpulsed-http.socket), "
                           "serving those; %s is ignored",
                           n_fds, m->http_listen ? "--listen" : "[HTTP] Listen=");
        o = http_options(c);
        o.listen = addrs;
        o.fds = fds;
        o.n_fds = n_fds;
        r = http_server_new(&o, &m->http, &error);
        if (r < 0) {
                log_warning_errno(r, "HTTP endpoint not started: %s, ignoring",
                                  error ?: "failed to start");
                return 0;
        }
        for (size_t i = 0; i < http_server_n_listen(m->http); i++) {
                char a[128];
                if (http_server_listen_address(m->http, i, a, sizeof(a)) >= 0)
                        log_info("HTTP endpoint on %s%s (/metrics, /api/v1, /).",
                                 c->http_tls_certificate ? "https://" : "http://", a);
        }
        r = manager_add_publish_hook(m, on_publish, NULL);
        if (r < 0)
                return log_error_errno(r, "Failed to add the HTTP publish hook: %m");
        if (http_server_started(m->http))
                render(m); /* TLS: started at once */
        else if (wait_for_first_connection(m) < 0)
                (void) start_now(m); /* cannot watch: serve at once, as before */
        return 0;
}

void manager_http_free(Manager *m) {
        wait_free(m);
        m->http = http_server_free(m->http);
        m->http_listen = strv_free(m->http_listen);
}

json_object *manager_http_urls_json(const Manager *m) {
        json_object *a = json_object_new_array();

        for (size_t i = 0; a && m->http && i < http_server_n_listen(m->http); i++) {
                char addr[128], url[160];

                if (http_server_listen_address(m->http, i, addr, sizeof(addr)) < 0)
                        continue;
                (void) snprintf(url, sizeof(url), "%s%s",
                                m->config->http_tls_certificate ? "https://" : "http://", addr);
                if (json_object_array_add(a, json_object_new_string(url)) < 0) {
                        json_object_put(a);
                        return NULL;
                }
        }
        return a;
}

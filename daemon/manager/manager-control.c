/* SPDX-License-Identifier: MIT */
/* The control socket: AF_UNIX stream in the runtime directory (or passed by storpulsed.socket),
 * line-delimited JSON (control-protocol.h). Everything is non-blocking and bounded, so no client
 * can hurt the daemon: at most CLIENTS_MAX connections, a request line of CONTROL_LINE_MAX bytes
 * that must arrive within REQUEST_TIMEOUT, at most OUTPUT_MAX bytes queued for a client that does
 * not read (then it is dropped). Access is decided by SO_PEERCRED / SO_PEERGROUPS at connect, in
 * two levels: root, our own uid and members of [Daemon] AdminGroup= may do everything; members of
 * ControlGroup= only read (status, volumes, report, history; control_command_is_admin()). Every
 * change (probe, reload, baseline-reset) is logged with the peer's uid and pid, and so is a
 * refusal. */

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "basic/json-util.h"
#include "basic/log.h"
#include "config.h"
#include "manager/control-protocol.h"
#include "core/stack-health.h"
#include "manager/manager-internal.h"
#include "report/api.h"

#define CLIENTS_MAX      32
#define OUTPUT_MAX       (1024 * 1024)
#define REQUEST_TIMEOUT  (10 * USEC_PER_SEC)  /* a request line must arrive within this */
#define IDLE_TIMEOUT     (300 * USEC_PER_SEC) /* between requests */
#define EVENTS_IN_STATUS 20

typedef struct Client Client;

typedef enum ControlAccess {
        CONTROL_ACCESS_NONE,
        CONTROL_ACCESS_READ,  /* ControlGroup=: status, volumes, report, history */
        CONTROL_ACCESS_ADMIN, /* root, our uid, AdminGroup=: every command */
} ControlAccess;

struct ManagerControl {
        Manager *m;
        int fd;
        bool activated; /* passed by systemd: not ours to unlink */
        bool bound;     /* we bound c->path: ours to unlink at exit */
        char *path;
        sd_event_source *source;
        Client *clients[CLIENTS_MAX];
        size_t n_clients;
};

struct Client {
        ManagerControl *c;
        int fd;
        sd_event_source *io, *timer;
        char in[CONTROL_LINE_MAX + 2];
        size_t n_in;
        char *out;
        size_t n_out, out_size;
        bool streaming; /* a probe reply is pending: no new request is read */
        bool closing;   /* close once the output is written */
        uint64_t run_id;
        uid_t uid;
        pid_t pid;
        ControlAccess access;
};

/* cl may be freed by any reply: look it up again before touching it. */
static bool client_alive(ManagerControl *c, Client *cl) {
        for (size_t i = 0; i < c->n_clients; i++)
                if (c->clients[i] == cl)
                        return true;
        return false;
}

static void client_free(Client *cl) {
        ManagerControl *c;

        if (!cl)
                return;
        c = cl->c;
        manager_probe_forget_waiter(c->m, cl);
        for (size_t i = 0; i < c->n_clients; i++)
                if (c->clients[i] == cl) {
                        c->clients[i] = c->clients[--c->n_clients];
                        break;
                }
        sd_event_source_disable_unref(cl->io);
        sd_event_source_disable_unref(cl->timer);
        safe_close(cl->fd);
        free(cl->out);
        free(cl);
}

static void client_update_events(Client *cl) {
        uint32_t ev = 0;

        if (!cl->streaming && !cl->closing)
                ev |= EPOLLIN;
        if (cl->n_out > 0)
                ev |= EPOLLOUT;
        (void) sd_event_source_set_io_events(cl->io, ev);
}

static int client_flush(Client *cl) {
        while (cl->n_out > 0) {
                ssize_t k = send(cl->fd, cl->out, cl->n_out, MSG_DONTWAIT | MSG_NOSIGNAL);

                if (k < 0) {
                        if (errno == EAGAIN || errno == EINTR)
                                break;
                        return -errno;
                }
                memmove(cl->out, cl->out + k, cl->n_out - (size_t) k);
                cl->n_out -= (size_t) k;
        }
        if (cl->n_out == 0 && cl->closing)
                return -ECONNRESET; /* done: close */
        client_update_events(cl);
        return 0;
}

/* Queue one JSON line (consumes o). A client that does not read is dropped when its queue
 * would exceed OUTPUT_MAX; returns -ENOBUFS then (cl is freed). */
static int client_send(Client *cl, struct json_object *o) {
        const char *s;
        size_t n;

        if (!o)
                return -ENOMEM;
        s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
        n = strlen(s);
        if (cl->n_out + n + 1 > OUTPUT_MAX) {
                json_object_put(o);
                log_notice("Control client (uid %u) does not read its replies, dropped.",
                           (unsigned) cl->uid);
                client_free(cl);
                return -ENOBUFS;
        }
        if (cl->n_out + n + 1 > cl->out_size) {
                size_t sz = MAX(cl->out_size * 2, cl->n_out + n + 1);
                char *b = realloc(cl->out, MAX(sz, (size_t) 4096));

                if (!b) {
                        json_object_put(o);
                        client_free(cl);
                        return -ENOMEM;
                }
                cl->out = b;
                cl->out_size = MAX(sz, (size_t) 4096);
        }
        memcpy(cl->out + cl->n_out, s, n);
        cl->out[cl->n_out + n] = '\n';
        cl->n_out += n + 1;
        json_object_put(o);
        if (client_flush(cl) < 0) {
                client_free(cl);
                return -ECONNRESET;
        }
        return 0;
}

static struct json_object *reply_new(bool ok, const char *error) {
        struct json_object *o = json_object_new_object();

        if (!o)
                return NULL;
        json_object_object_add(o, "type", json_object_new_string("reply"));
        json_object_object_add(o, "ok", json_object_new_boolean(ok));
        if (error)
                json_object_object_add(o, "error", json_object_new_string(error));
        return o;
}

/* Error reply, then close. */
static void client_refuse(Client *cl, const char *error) {
        cl->closing = true;
        (void) client_send(cl, reply_new(false, error));
}

/* A run's JSON, the API's (report/api.h, docs/json.md); NULL when it cannot be had. */
static struct json_object *sample_to_json(const ManagerProbeSample *s) {
        ReportSample rs;
        struct json_object *o;

        manager_report_sample(s, &rs);
        return api_sample_json(&rs, &o) < 0 ? NULL : o;
}

/* A volume's probe record, the API's (report/api.h): the last run, no history. */
static struct json_object *record_to_json(const Manager *m, const ManagerVolume *r) {
        _cleanup_free_ ReportSample *h = calloc(MAX(r->n_history, (size_t) 1), sizeof(*h));
        ReportBaseline b;
        ReportProbe p;
        struct json_object *o;

        if (!h)
                return NULL;
        manager_report_probe(manager_perf_monitor(m), r, &p, h, &b);
        return api_probe_json(&p, &o) < 0 ? NULL : o;
}

static struct json_object *event_to_json(const ManagerEvent *e) {
        ReportEvent re;
        struct json_object *o;

        manager_report_event(e, &re);
        return api_event_json(&re, &o) < 0 ? NULL : o;
}

/* status' "last_runs": [{"volume", "last": RUN or null}] of the listed volumes with a probe
 * record, in the records' order. */
static struct json_object *last_runs_json(const Manager *m) {
        struct json_object *a = json_object_new_array();

        for (size_t i = 0; a && i < m->n_volumes; i++) {
                const ManagerVolume *r = m->volumes[i];
                struct json_object *e;

                if (!r->volume || !volume_is_listed(r->volume))
                        continue;
                e = json_object_new_object();
                if (!e || json_object_array_add(a, e) < 0) {
                        json_object_put(e);
                        json_object_put(a);
                        return NULL;
                }
                json_object_object_add(e, "volume", json_object_new_string(r->name));
                json_object_object_add(
                        e, "last",
                        r->n_history > 0 ? sample_to_json(manager_volume_get_sample(r, 0)) : NULL);
        }
        return a;
}

static void do_status(Client *cl) {
        Manager *m = cl->c->m;
        struct json_object *o = reply_new(true, NULL), *ev = json_object_new_array(),
                           *stalled = json_object_new_array();
        char line[256];
        size_t n_visible = 0;
        Volume *v;

        if (!o || !ev || !stalled) {
                json_object_put(o);
                json_object_put(ev);
                json_object_put(stalled);
                client_refuse(cl, "out of memory");
                return;
        }
        INVENTORY_FOREACH(v, m->inventory)
        if (volume_is_listed(v))
                n_visible++;
        (void) manager_status_line(m, line, sizeof(line));
        json_object_object_add(o, "version", json_object_new_string(PACKAGE_VERSION));
        json_object_object_add(o, "status", json_object_new_string(line));
        json_object_object_add(o, "volumes", json_object_new_uint64(n_visible));
        json_object_object_add(o, "problems", json_object_new_uint64(manager_count_problems(m)));
        json_object_object_add(o, "problem_volumes", manager_problems_json(m));
        (void) json_add_usec_as_seconds(o, "next_probe_timestamp_seconds", m->next_probe_usec,
                                        true);
        json_object_object_add(o, "runs", json_object_new_uint64(m->n_runs));
        json_object_object_add(o, "running", json_object_new_boolean(m->run != NULL));
        json_object_object_add(o, "queued", json_object_new_uint64(m->n_queued));
        json_object_object_add(o, "helpers_left_behind",
                               json_object_new_uint64(process_reaper_count(m->reaper)));
        json_object_object_add(
                o, "uptime_seconds",
                json_number_new_rounded(
                        (double) (now(CLOCK_MONOTONIC) - m->start_usec) / USEC_PER_SEC, 1));
        json_object_object_add(o, "config", json_object_new_string(m->config_path));
        json_object_object_add(o, "http_urls", manager_http_urls_json(m));
        json_object_object_add(o, "last_runs", last_runs_json(m));
        for (size_t i = 0; i < m->n_volumes; i++)
                if (m->volumes[i]->stalled)
                        json_object_array_add(stalled, json_object_new_string(m->volumes[i]->name));
        json_object_object_add(o, "stalled", stalled);
        for (size_t i = MIN(m->n_events, EVENTS_IN_STATUS); i > 0; i--)
                json_object_array_add(ev, event_to_json(manager_get_event(m, i - 1)));
        json_object_object_add(o, "events", ev);
        (void) client_send(cl, o);
}

static void do_volumes(Client *cl) {
        Manager *m = cl->c->m;
        struct json_object *o = reply_new(true, NULL), *a = json_object_new_array();
        Volume *v;

        if (!o || !a) {
                json_object_put(o);
                json_object_put(a);
                client_refuse(cl, "out of memory");
                return;
        }
        INVENTORY_FOREACH(v, m->inventory) {
                struct json_object *j = NULL;
                const ManagerVolume *r;

                StackHealth sh;

                if (!volume_is_listed(v) || volume_to_json(v, &j) < 0)
                        continue;
                r = manager_get_volume(m, v->name);
                if (stack_health_of(m->inventory, v, &sh) >= 0)
                        (void) stack_health_add_json(&sh, j);
                json_object_object_add(
                        j, "probe_problem",
                        manager_volume_probe_problem(r)
                                ? json_object_new_string(manager_volume_probe_problem(r))
                                : NULL);
                json_object_object_add(
                        j, "selected",
                        json_object_new_boolean(config_volume_selected(m->config, v)));
                json_object_object_add(j, "probe", r ? record_to_json(m, r) : NULL);
                json_object_array_add(a, j);
        }
        json_object_object_add(o, "volumes", a);
        (void) client_send(cl, o);
}

static void do_reload(Client *cl) {
        _cleanup_free_ char *error = NULL;
        Manager *m = cl->c->m;
        struct json_object *o;
        int r;

        m->http_note = NULL;
        r = manager_reload(m, &error);
        o = reply_new(r >= 0, r >= 0 ? NULL : error ?: "reload failed");
        if (o && r >= 0 && m->http_note)
                json_object_object_add(o, "http_not_applied", json_object_new_string(m->http_note));
        (void) client_send(cl, o);
}

static void on_run_progress(Manager *m, const char *volume, const ProbeProgress *p,
                            void *userdata) {
        Client *cl = userdata;
        struct json_object *o = json_object_new_object();

        if (!o)
                return;
        json_object_object_add(o, "type", json_object_new_string("progress"));
        json_object_object_add(o, "volume", json_object_new_string(volume));
        json_object_object_add(o, "phase", json_object_new_string(probe_phase_to_string(p->phase)));
        json_object_object_add(o, "fraction", json_number_new_rounded(p->fraction, 3));
        json_object_object_add(o, "ios", json_object_new_uint64(p->ios));
        json_object_object_add(o, "errors", json_object_new_uint64(p->errors));
        (void) client_send(cl, o);
}

static void on_run_volume(Manager *m, const ManagerVolume *r, ManagerProbeVerdict verdict,
                          ProbeSkipReason reason, void *userdata) {
        Client *cl = userdata;
        struct json_object *o = json_object_new_object();
        const ManagerProbeSample *s =
                verdict == MANAGER_PROBE_SKIPPED ? NULL : manager_volume_get_sample(r, 0);

        if (!o || !r) {
                json_object_put(o);
                return;
        }
        json_object_object_add(o, "type", json_object_new_string("volume"));
        json_object_object_add(o, "volume", json_object_new_string(r->name));
        json_object_object_add(o, "verdict",
                               json_object_new_string(manager_probe_verdict_to_string(verdict)));
        if (verdict == MANAGER_PROBE_SKIPPED)
                json_object_object_add(o, "reason",
                                       json_object_new_string(probe_skip_reason_to_string(reason)));
        if (s)
                json_object_object_add(o, "result", sample_to_json(s));
        (void) client_send(cl, o);
}

static void on_run_finished(Manager *m, const ManagerRunSummary *s, void *userdata) {
        Client *cl = userdata;
        struct json_object *o;

        o = reply_new(!s->aborted, s->aborted ? "run aborted: the daemon is stopping" : NULL);
        if (!o)
                return;
        json_object_object_add(o, "run", json_object_new_uint64(s->id));
        json_object_object_add(o, "profile", json_object_new_string(s->profile));
        json_object_object_add(o, "volumes", json_object_new_uint64(s->n_volumes));
        json_object_object_add(o, "probed_ok", json_object_new_uint64(s->n_ok));
        json_object_object_add(o, "probed_error", json_object_new_uint64(s->n_error));
        json_object_object_add(o, "stalled", json_object_new_uint64(s->n_stalled));
        json_object_object_add(o, "skipped", json_object_new_uint64(s->n_skipped));
        json_object_object_add(
                o, "duration_seconds",
                json_number_new_rounded((double) s->duration_usec / USEC_PER_SEC, 3));
        cl->streaming = false;
        manager_probe_forget_waiter(m, cl);
        if (client_send(cl, o) >= 0)
                client_update_events(cl);
}

static void do_probe(Client *cl, const ControlRequest *req) {
        ManagerProbeWaiter w = {
                .progress = on_run_progress,
                .volume_done = on_run_volume,
                .finished = on_run_finished,
                .userdata = cl,
        };
        const char *bad = NULL;
        uint64_t id = 0;
        int r;

        ManagerControl *c = cl->c;

        cl->streaming = req->wait; /* before the request: a run may end inside it */
        r = manager_probe_request(c->m, req->profile, req->volumes, req->wait ? &w : NULL, &id,
                                  &bad);
        if (!client_alive(c, cl))
                return; /* dropped while the run started (it did not read) */
        if (r < 0) {
                char msg[160];

                cl->streaming = false;
                if (r == -ENOENT)
                        (void) snprintf(msg, sizeof(msg), "unknown %s '%s'",
                                        bad == req->profile ? "profile" : "volume", bad);
                else
                        (void) snprintf(msg, sizeof(msg), "%s",
                                        r == -EBUSY ? "the daemon is stopping" : strerror(-r));
                (void) client_send(cl, reply_new(false, msg));
                return;
        }
        if (!req->wait) {
                struct json_object *o = reply_new(true, NULL);

                if (o)
                        json_object_object_add(o, "run", json_object_new_uint64(id));
                (void) client_send(cl, o);
                return;
        }
        cl->run_id = id;
        client_update_events(cl);
}

static void do_history(Client *cl, const ControlRequest *req) {
        struct json_object *doc = NULL, *o;
        char error[160] = "";
        int r;

        r = manager_history_json(cl->c->m, req->volumes, &doc, error, sizeof(error));
        if (r < 0) {
                (void) client_send(cl, reply_new(false, error[0] ? error : strerror(-r)));
                return;
        }
        o = reply_new(true, NULL);
        if (o)
                json_object_object_add(o, "history", doc);
        else
                json_object_put(doc);
        (void) client_send(cl, o);
}

/* baseline-reset, report: answered by manager-perf.c. */
static void do_perf(Client *cl, const ControlRequest *req) {
        struct json_object *extra = NULL, *o;
        char error[160] = "";
        int r;

        r = manager_perf_control(cl->c->m, req, &extra, error, sizeof(error));
        if (r < 0) {
                (void) client_send(cl, reply_new(false, error[0] ? error : strerror(-r)));
                return;
        }
        o = reply_new(true, NULL);
        if (o && extra)
                json_object_object_add(o, req->command == CONTROL_REPORT ? "report" : "reset",
                                       extra);
        else
                json_object_put(extra);
        (void) client_send(cl, o);
}

static int arm_timer(Client *cl, usec_t rel) {
        (void) sd_event_source_set_time_relative(cl->timer, rel);
        return sd_event_source_set_enabled(cl->timer, SD_EVENT_ONESHOT);
}

static void client_handle_line(Client *cl, const char *line, size_t len) {
        ControlRequest req;
        const char *error = NULL;

        if (control_request_parse(line, len, &req, &error) < 0) {
                client_refuse(cl, error);
                return;
        }
        if (control_command_is_admin(req.command) && cl->access < CONTROL_ACCESS_ADMIN) {
                log_notice("Control: %s from uid %u (pid %d) refused: read-only access.",
                           control_command_to_string(req.command), (unsigned) cl->uid,
                           (int) cl->pid);
                (void) client_send(cl, reply_new(false, "permission denied: root or AdminGroup="));
                control_request_done(&req);
                return;
        }
        if (control_command_is_admin(req.command)) /* every change says who made it */
                log_notice("Control: %s by uid %u (pid %d).",
                           control_command_to_string(req.command), (unsigned) cl->uid,
                           (int) cl->pid);
        else
                log_debug("Control: %s from uid %u (pid %d)",
                          control_command_to_string(req.command), (unsigned) cl->uid,
                          (int) cl->pid);
        switch (req.command) {
        case CONTROL_STATUS:
                do_status(cl);
                break;
        case CONTROL_VOLUMES:
                do_volumes(cl);
                break;
        case CONTROL_PROBE:
                do_probe(cl, &req);
                break;
        case CONTROL_RELOAD:
                do_reload(cl);
                break;
        case CONTROL_BASELINE_RESET:
        case CONTROL_REPORT:
                do_perf(cl, &req);
                break;
        case CONTROL_HISTORY:
                do_history(cl, &req);
                break;
        case _CONTROL_COMMAND_MAX:
        case _CONTROL_COMMAND_INVALID:
                break;
        }
        control_request_done(&req);
}

static int on_client_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        Client *cl = userdata;
        ManagerControl *c = cl->c;

        if (revents & EPOLLOUT) {
                if (client_flush(cl) < 0) {
                        client_free(cl);
                        return 0;
                }
        }
        if (!(revents & (EPOLLIN | EPOLLHUP | EPOLLERR)) || cl->streaming || cl->closing) {
                if (revents & (EPOLLHUP | EPOLLERR))
                        client_free(cl);
                return 0;
        }
        for (;;) {
                ssize_t k =
                        recv(cl->fd, cl->in + cl->n_in, sizeof(cl->in) - cl->n_in, MSG_DONTWAIT);
                char *nl;

                if (k < 0) {
                        if (errno == EAGAIN || errno == EINTR)
                                break;
                        client_free(cl);
                        return 0;
                }
                if (k == 0) {
                        client_free(cl);
                        return 0;
                }
                cl->n_in += (size_t) k;
                while (!cl->streaming && !cl->closing && (nl = memchr(cl->in, '\n', cl->n_in))) {
                        size_t len = (size_t) (nl - cl->in);

                        client_handle_line(cl, cl->in, len);
                        if (!client_alive(c, cl))
                                return 0;
                        memmove(cl->in, nl + 1, cl->n_in - len - 1);
                        cl->n_in -= len + 1;
                }
                if (!client_alive(c, cl))
                        return 0;
                if (cl->closing || cl->streaming)
                        break;
                if (cl->n_in >= sizeof(cl->in) - 1) {
                        client_refuse(cl, "request too long");
                        return 0;
                }
        }
        if (client_alive(c, cl) && !cl->closing)
                (void) arm_timer(cl, cl->n_in > 0 ? REQUEST_TIMEOUT : IDLE_TIMEOUT);
        return 0;
}

static int on_client_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        Client *cl = userdata;

        if (cl->streaming) {
                (void) arm_timer(cl, IDLE_TIMEOUT);
                return 0;
        }
        if (cl->closing || cl->n_in > 0) {
                log_debug("Control client (uid %u) too slow, closed.", (unsigned) cl->uid);
                if (cl->closing)
                        client_free(cl);
                else
                        client_refuse(cl, "request timed out");
                return 0;
        }
        client_free(cl);
        return 0;
}

/* Whether the peer's groups include `gid` (resolved at config load: no NSS on the loop). */
static bool peer_in_group(int fd, const struct ucred *cred, gid_t gid) {
        gid_t groups[64];
        socklen_t len = sizeof(groups);

        if (gid == CONFIG_GID_INVALID)
                return false;
        if (cred->gid == gid)
                return true;
        if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) < 0)
                return false;
        for (size_t i = 0; i < len / sizeof(gid_t); i++)
                if (groups[i] == gid)
                        return true;
        return false;
}

/* The peer's level: admin (root, our own uid, AdminGroup=), read (ControlGroup=), or none. */
static ControlAccess peer_access(ManagerControl *c, int fd, struct ucred *ret_cred) {
        const Config *cf = c->m->config;
        socklen_t len = sizeof(*ret_cred);

        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, ret_cred, &len) < 0)
                return CONTROL_ACCESS_NONE;
        if (ret_cred->uid == 0 || ret_cred->uid == geteuid() ||
            peer_in_group(fd, ret_cred, cf->admin_gid))
                return CONTROL_ACCESS_ADMIN;
        if (peer_in_group(fd, ret_cred, cf->control_gid))
                return CONTROL_ACCESS_READ;
        return CONTROL_ACCESS_NONE;
}

static int on_accept(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        ManagerControl *c = userdata;
        _cleanup_close_ int cfd = -EBADF;
        struct ucred cred = { .pid = -1, .uid = (uid_t) -1, .gid = (gid_t) -1 };
        ControlAccess access;
        Client *cl;
        int r;

        cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (cfd < 0)
                return 0;
        access = peer_access(c, cfd, &cred);
        if (access == CONTROL_ACCESS_NONE) {
                static const char msg[] =
                        "{\"type\":\"reply\",\"ok\":false,\"error\":\"permission denied\"}\n";

                (void) send(cfd, msg, sizeof(msg) - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
                log_notice("Control connection from uid %d (pid %d) refused.", (int) cred.uid,
                           (int) cred.pid);
                return 0;
        }
        if (c->n_clients >= CLIENTS_MAX) {
                static const char msg[] =
                        "{\"type\":\"reply\",\"ok\":false,\"error\":\"too many clients\"}\n";

                (void) send(cfd, msg, sizeof(msg) - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
                return 0;
        }
        cl = calloc(1, sizeof(*cl));
        if (!cl)
                return 0;
        cl->c = c;
        cl->uid = cred.uid;
        cl->pid = cred.pid;
        cl->access = access;
        cl->fd = TAKE_FD(cfd);
        c->clients[c->n_clients++] = cl;
        r = sd_event_add_io(c->m->event, &cl->io, cl->fd, EPOLLIN, on_client_io, cl);
        if (r >= 0)
                r = sd_event_add_time_relative(c->m->event, &cl->timer, CLOCK_MONOTONIC,
                                               REQUEST_TIMEOUT, USEC_PER_SEC / 10, on_client_timer,
                                               cl);
        if (r < 0)
                client_free(cl);
        return 0;
}

static int listen_fd_from_systemd(void) {
        int n = sd_listen_fds(true);

        if (n <= 0)
                return -ENOENT;
        for (int fd = SD_LISTEN_FDS_START; fd < SD_LISTEN_FDS_START + n; fd++)
                if (sd_is_socket_unix(fd, SOCK_STREAM, 1, NULL, 0) > 0)
                        return fd;
        return -ENOENT;
}

/* A socket someone still accepts on is never unlinked, only a stale one (ECONNREFUSED) or none:
 * besides the single-instance lock (manager-main.c), for any other program's socket there. */
static int unlink_stale_socket(const struct sockaddr_un *sa) {
        _cleanup_close_ int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

        if (fd < 0)
                return -errno;
        if (connect(fd, (const struct sockaddr *) sa, sizeof(*sa)) >= 0 || errno == EAGAIN)
                return -EADDRINUSE;
        if (unlink(sa->sun_path) < 0 && errno != ENOENT)
                return -errno;
        return 0;
}

int manager_control_setup(Manager *m) {
        ManagerControl *c;
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        int r;

        c = calloc(1, sizeof(*c));
        if (!c)
                return log_oom();
        c->m = m;
        c->fd = -EBADF;
        m->control = c;
        if (asprintf(&c->path, "%s/%s", m->runtime_dir, CONTROL_SOCKET_NAME) < 0) {
                c->path = NULL;
                return log_oom();
        }
        r = listen_fd_from_systemd();
        if (r >= 0) {
                c->fd = r;
                c->activated = true;
                (void) fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK);
        } else {
                if (strlen(c->path) >= sizeof(sa.sun_path))
                        return log_error_errno(-ENAMETOOLONG, "Socket path %s too long.", c->path);
                (void) mkdir(m->runtime_dir, 0755);
                memcpy(sa.sun_path, c->path, strlen(c->path) + 1);
                c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
                if (c->fd < 0)
                        return log_error_errno(-errno, "Failed to create the control socket: %m");
                r = unlink_stale_socket(&sa);
                if (r < 0)
                        return log_error_errno(r, "Control socket %s is in use: %m", c->path);
                if (bind(c->fd, (struct sockaddr *) &sa, sizeof(sa)) < 0)
                        return log_error_errno(-errno, "Failed to bind %s: %m", c->path);
                c->bound = true;
                /* the group (if any) is checked per connection; the mode lets it connect */
                (void) chmod(c->path,
                             m->config->control_group || m->config->admin_group ? 0666 : 0600);
                if (listen(c->fd, 16) < 0)
                        return log_error_errno(-errno, "Failed to listen on %s: %m", c->path);
        }
        r = sd_event_add_io(m->event, &c->source, c->fd, EPOLLIN, on_accept, c);
        if (r < 0)
                return log_error_errno(r, "Failed to watch the control socket: %m");
        log_debug("Control socket %s%s", c->path, c->activated ? " (from systemd)" : "");
        return 0;
}

void manager_control_free(Manager *m) {
        ManagerControl *c = m->control;

        if (!c)
                return;
        while (c->n_clients > 0)
                client_free(c->clients[0]);
        c->source = sd_event_source_disable_unref(c->source);
        if (c->bound)
                (void) unlink(c->path);
        safe_close(c->fd);
        free(c->path);
        free(c);
        m->control = NULL;
}

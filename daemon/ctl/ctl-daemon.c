/* SPDX-License-Identifier: MIT */
/* The verbs that talk to a running storpulsed over its control socket (control-protocol.h):
 *   storpulsectl status [--json]                         the daemon's state, recent events
 *   storpulsectl volumes --daemon [--json]               volumes with their probe records
 *   storpulsectl probe --profile NAME [--json] [--no-wait] [VOLUME...]
 *                                                        a profile run, progress streamed
 * Why `volumes` and `probe` keep their standalone mode by default: `volumes` is a sysfs read
 * that needs neither root nor a daemon, and `probe DEVICE` is the one-shot tool for any block
 * device or file. Profiles, schedules, back-off and the probe records exist only in the daemon,
 * so `probe --profile` always asks it and `volumes --daemon` asks it explicitly; nothing falls
 * back silently to something that answers a different question.
 * Common options: --socket PATH (default $STORPULSE_SOCKET, else /run/storpulse/control),
 * --timeout SEC (give up waiting for the daemon; default none for probe, 30 s otherwise).
 * Exit codes: 0 ok, 1 usage, 2 no daemon / refused / timeout, 3 probe errors or stalls. */

#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "basic/format-util.h"
#include "basic/log.h"
#include "basic/parse-util.h"
#include "basic/time-util.h"
#include "ctl/ctl-client.h"
#include "ctl/ctl-util.h"
#include "ctl/ctl.h"
#include "manager/control-protocol.h"

#define EXIT_DAEMON 2
#define EXIT_PROBE  3

typedef struct Conn {
        int fd;
        char buf[65536];
        size_t n;
        usec_t deadline; /* CLOCK_MONOTONIC, USEC_INFINITY none */
} Conn;

static int conn_open(Conn *c, const char *path, usec_t timeout) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };

        c->n = 0;
        c->deadline = timeout == USEC_INFINITY ? USEC_INFINITY : now(CLOCK_MONOTONIC) + timeout;
        if (strlen(path) >= sizeof(sa.sun_path))
                return -ENAMETOOLONG;
        memcpy(sa.sun_path, path, strlen(path) + 1);
        c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (c->fd < 0)
                return -errno;
        if (connect(c->fd, (struct sockaddr *) &sa, sizeof(sa)) < 0) {
                int r = -errno;

                c->fd = safe_close(c->fd);
                return r;
        }
        return 0;
}

static int conn_send(Conn *c, struct json_object *req) {
        const char *s = json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN);
        size_t n = strlen(s);

        if (send(c->fd, s, n, MSG_NOSIGNAL) != (ssize_t) n ||
            send(c->fd, "\n", 1, MSG_NOSIGNAL) != 1)
                return -errno ?: -EIO;
        return 0;
}

/* Next reply line as a JSON object: 0 and *ret, -ETIMEDOUT, -ECONNRESET, -EBADMSG. */
static int conn_recv(Conn *c, struct json_object **ret) {
        for (;;) {
                char *nl = memchr(c->buf, '\n', c->n);
                struct pollfd p = { .fd = c->fd, .events = POLLIN };
                int timeout_ms = -1;
                ssize_t k;

                if (nl) {
                        struct json_object *o;

                        *nl = 0;
                        o = json_tokener_parse(c->buf);
                        memmove(c->buf, nl + 1, c->n - (size_t) (nl - c->buf) - 1);
                        c->n -= (size_t) (nl - c->buf) + 1;
                        if (!o)
                                return -EBADMSG;
                        *ret = o;
                        return 0;
                }
                if (c->n >= sizeof(c->buf))
                        return -EBADMSG;
                if (c->deadline != USEC_INFINITY) {
                        usec_t t = now(CLOCK_MONOTONIC);

                        if (t >= c->deadline)
                                return -ETIMEDOUT;
                        timeout_ms = (int) MIN((c->deadline - t + 999) / 1000, (usec_t) 1 << 30);
                }
                k = poll(&p, 1, timeout_ms);
                if (k < 0 && errno != EINTR)
                        return -errno;
                if (k <= 0)
                        continue;
                k = recv(c->fd, c->buf + c->n, sizeof(c->buf) - c->n, 0);
                if (k < 0 && errno != EINTR)
                        return -errno;
                if (k == 0)
                        return -ECONNRESET;
                if (k > 0)
                        c->n += (size_t) k;
        }
}

static const char *jstr(struct json_object *o, const char *key) {
        struct json_object *v;

        return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
                       ? json_object_get_string(v)
                       : NULL;
}

static double jnum(struct json_object *o, const char *key) {
        struct json_object *v;

        return json_object_object_get_ex(o, key, &v) ? json_object_get_double(v) : 0;
}

static bool jbool(struct json_object *o, const char *key) {
        struct json_object *v;

        return json_object_object_get_ex(o, key, &v) && json_object_get_boolean(v);
}

typedef struct Options {
        bool json, no_wait, daemon;
        const char *socket, *profile;
        usec_t timeout;
} Options;

enum { ARG_JSON = 0x100, ARG_SOCKET, ARG_TIMEOUT, ARG_PROFILE, ARG_NO_WAIT, ARG_DAEMON };

#define OPT_JSON                                                                                   \
        { "json", NULL, ARG_JSON, "print JSON (the control socket's objects)" }
#define OPT_SOCKET                                                                                 \
        {                                                                                          \
                "socket", "PATH", ARG_SOCKET,                                                      \
                        "the control socket (default $STORPULSE_SOCKET,\nelse "                    \
                        "/run/storpulse/control)"                                                  \
        }
#define OPT_TIMEOUT(d)                                                                             \
        { "timeout", "SEC", ARG_TIMEOUT, "give up waiting for storpulsed after SEC\n(" d ")" }

static const CtlOption status_options[] = { OPT_JSON, OPT_SOCKET, OPT_TIMEOUT("default 30s") };
static const CtlOption volumes_options[] = {
        { "daemon", NULL, ARG_DAEMON, "ask storpulsed (required for this mode)" },
        OPT_JSON,
        OPT_SOCKET,
        OPT_TIMEOUT("default 30s"),
};
static const CtlOption probe_options[] = {
        { "profile", "NAME", ARG_PROFILE, "the profile to run (required for this mode)" },
        { "no-wait", NULL, ARG_NO_WAIT, "queue the run and return at once" },
        { "json", NULL, ARG_JSON, "print the daemon's reply lines as they come" },
        OPT_SOCKET,
        OPT_TIMEOUT("default: as long as the run takes"),
};

/* 0 go on, 1 help shown, -EINVAL usage error. */
static int parse_common(int argc, char **argv, const CtlOption *opts, size_t n, Options *o,
                        const char *head, const char *tail) {
        int opt;

        while ((opt = ctl_getopt(argc, argv, opts, n, head, tail)) >= 0)
                switch (opt) {
                case 'h':
                        return 1;
                case ARG_JSON:
                        o->json = true;
                        break;
                case ARG_SOCKET:
                        o->socket = optarg;
                        break;
                case ARG_TIMEOUT:
                        if (parse_sec(optarg, &o->timeout) < 0 || o->timeout == 0) {
                                log_error("Invalid --timeout '%s'.", optarg);
                                return -EINVAL;
                        }
                        break;
                case ARG_PROFILE:
                        o->profile = optarg;
                        break;
                case ARG_NO_WAIT:
                        o->no_wait = true;
                        break;
                case ARG_DAEMON:
                        o->daemon = true;
                        break;
                default:
                        return -EINVAL;
                }
        return 0;
}

static void format_time_usec(uint64_t usec, char *buf, size_t size) {
        time_t t = (time_t) (usec / USEC_PER_SEC);
        struct tm tm;

        if (usec == 0 || !localtime_r(&t, &tm))
                (void) snprintf(buf, size, "-");
        else
                (void) strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm);
}

/* "  problems:" and one line per volume: its own state and why, its probes, what is below it. */
static void print_problems(struct json_object *reply) {
        struct json_object *l, *c;

        if (!json_object_object_get_ex(reply, "problem_volumes", &l) ||
            json_object_array_length(l) == 0)
                return;
        printf("  problems:\n");
        for (size_t i = 0; i < json_object_array_length(l); i++) {
                struct json_object *p = json_object_array_get_idx(l, i);
                const char *why = jstr(p, "verdict_reason"), *probe = jstr(p, "probe_problem");

                printf("    %-12s %s %s", jstr(p, "name") ?: "?", jstr(p, "kind") ?: "?",
                       jstr(p, "state") ?: "?");
                if (why)
                        printf(" (%s)", why);
                if (probe)
                        printf(", probe: %s until a clean probe", probe);
                if (json_object_object_get_ex(p, "effective_cause", &c) && c)
                        printf(", %s because of %s below it (%s %s)",
                               jstr(p, "effective_state") ?: "?", jstr(c, "volume") ?: "?",
                               jstr(c, "kind") ?: "?", jstr(c, "state") ?: "?");
                printf("\n");
        }
}

/* A run's sequential MiB/s and random IOPS as text of its "phases" (NULL: no run); "-" for a
 * phase the run did not have (light has no sequential read), not 0. */
static void phase_figures(struct json_object *phases, char seq[static 32], char iops[static 32]) {
        struct json_object *x;

        (void) snprintf(seq, 32, "-");
        (void) snprintf(iops, 32, "-");
        if (phases && json_object_object_get_ex(phases, "sequential", &x))
                (void) snprintf(seq, 32, "%.1f", bytes_to_mib(jnum(x, "bytes_per_second")));
        if (phases && json_object_object_get_ex(phases, "random", &x))
                (void) snprintf(iops, 32, "%.0f", jnum(x, "iops"));
}

/* "next probe in 5h 59min (2026-12-06 14:00:00)", "none scheduled", or "due now". */
static void print_next_probe(struct json_object *reply) {
        struct json_object *v;
        double t, now_s = (double) now(CLOCK_REALTIME) / USEC_PER_SEC;
        char when[64], rel[64];

        if (!json_object_object_get_ex(reply, "next_probe_timestamp_seconds", &v) || !v) {
                printf("  next probe: none scheduled\n");
                return;
        }
        t = json_object_get_double(v);
        format_time_usec((uint64_t) (t * USEC_PER_SEC), when, sizeof(when));
        if (t <= now_s)
                printf("  next probe: due now (%s)\n", when);
        else
                printf("  next probe: in %s (%s)\n",
                       format_duration(rel, sizeof(rel), t - now_s, true), when);
}

/* "  HTTP: http://127.0.0.1:9977" or "off". */
static void print_http(struct json_object *reply) {
        struct json_object *urls;
        size_t n;

        if (!json_object_object_get_ex(reply, "http_urls", &urls) || !urls)
                return;
        n = json_object_array_length(urls);
        printf("  HTTP:%s", n == 0 ? " off" : "");
        for (size_t i = 0; i < n; i++)
                printf(" %s", json_object_get_string(json_object_array_get_idx(urls, i)));
        printf("\n");
}

/* One line per volume: its last probe run (result, profile, when, figures of the phases run). */
static void print_last_runs(struct json_object *reply) {
        struct json_object *l;
        double now_s = (double) now(CLOCK_REALTIME) / USEC_PER_SEC;

        if (!json_object_object_get_ex(reply, "last_runs", &l) || json_object_array_length(l) == 0)
                return;
        printf("\nLast probe run per volume:\n");
        for (size_t i = 0; i < json_object_array_length(l); i++) {
                struct json_object *e = json_object_array_get_idx(l, i), *last, *ph;
                char when[64], ago[64], seq[32], iops[32];
                double t;

                if (!json_object_object_get_ex(e, "last", &last) || !last) {
                        printf("  %-12s never probed\n", jstr(e, "volume") ?: "?");
                        continue;
                }
                t = jnum(last, "timestamp_seconds");
                format_time_usec((uint64_t) (t * USEC_PER_SEC), when, sizeof(when));
                (void) format_duration(ago, sizeof(ago), MAX(now_s - t, 0.0), true);
                phase_figures(json_object_object_get_ex(last, "phases", &ph) ? ph : NULL, seq,
                              iops);
                printf("  %-12s %-8s %-8s %s (%s ago)  %s MiB/s, %s IOPS\n",
                       jstr(e, "volume") ?: "?", jstr(last, "result") ?: "?",
                       jstr(last, "profile") ?: "-", when, ago, seq, iops);
        }
}

static void print_events(struct json_object *reply) {
        struct json_object *ev;

        if (!json_object_object_get_ex(reply, "events", &ev) || json_object_array_length(ev) == 0)
                return;
        printf("\nRecent events:\n");
        for (size_t i = 0; i < json_object_array_length(ev); i++) {
                struct json_object *e = json_object_array_get_idx(ev, i);
                char when[64];

                format_time_usec((uint64_t) (jnum(e, "timestamp_seconds") * USEC_PER_SEC), when,
                                 sizeof(when));
                printf("  %s %-20s %s\n", when, jstr(e, "event") ?: "?", jstr(e, "message") ?: "");
        }
}

int ctl_status_main(int argc, char **argv) {
        static const char head[] =
                "Usage: storpulsectl status [OPTIONS]\n\n"
                "Ask the running storpulsed for its state: volumes, problems, the next probe (in\n"
                "how long, and when), the HTTP endpoint's addresses, stalled volumes, the last\n"
                "probe run of each volume and the most recent events.\n";
        static const char tail[] = "Exit status: 0 ok, 1 usage, 2 no daemon or no answer.\n";
        Options o = { .timeout = 30 * USEC_PER_SEC };
        struct json_object *reply = NULL, *st;
        int r;

        r = parse_common(argc, argv, status_options, ELEMENTSOF(status_options), &o, head, tail);
        if (r != 0)
                return r > 0 ? 0 : 1;
        if (optind < argc) {
                log_error("Usage error; see 'storpulsectl status --help'.");
                return 1;
        }
        r = ctl_request(o.socket, "status", NULL, 0, o.timeout, NULL, &reply);
        if (r > 0)
                return r;
        if (o.json) {
                (void) ctl_json_print(reply, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED);
                json_object_put(reply);
                return 0;
        }
        printf("storpulsed %s: %s\n", jstr(reply, "version") ?: "?", jstr(reply, "status") ?: "");
        printf("  uptime %.0fs, %.0f probe runs done%s\n", jnum(reply, "uptime_seconds"),
               jnum(reply, "runs"), jbool(reply, "running") ? ", one running" : "");
        print_next_probe(reply);
        print_http(reply);
        print_problems(reply);
        if (json_object_object_get_ex(reply, "stalled", &st) && json_object_array_length(st) > 0) {
                printf("  stalled:");
                for (size_t i = 0; i < json_object_array_length(st); i++)
                        printf(" %s", json_object_get_string(json_object_array_get_idx(st, i)));
                printf("\n");
        }
        if (jnum(reply, "helpers_left_behind") > 0)
                printf("  probe helpers stuck in the kernel: %.0f\n",
                       jnum(reply, "helpers_left_behind"));
        print_last_runs(reply);
        print_events(reply);
        json_object_put(reply);
        return 0;
}

static int ctl_daemon_volumes_main(int argc, char **argv) {
        static const char head[] =
                "Usage: storpulsectl volumes --daemon [OPTIONS]\n\n"
                "Ask the running storpulsed for its volumes and their probe records (last\n"
                "result, stalls, errors, skips by reason; - for a figure the last run did not\n"
                "measure). Without --daemon, `volumes` reads sysfs itself (see 'storpulsectl\n"
                "volumes --help').\n";
        static const char tail[] = "Exit status: 0 ok, 1 usage, 2 no daemon or no answer.\n";
        Options o = { .timeout = 30 * USEC_PER_SEC };
        struct json_object *reply = NULL, *vols;
        int r;

        r = parse_common(argc, argv, volumes_options, ELEMENTSOF(volumes_options), &o, head, tail);
        if (r != 0)
                return r > 0 ? 0 : 1;
        if (optind < argc) {
                log_error("Usage error; see 'storpulsectl volumes --daemon --help'.");
                return 1;
        }
        r = ctl_request(o.socket, "volumes", NULL, 0, o.timeout, NULL, &reply);
        if (r > 0)
                return r;
        if (!json_object_object_get_ex(reply, "volumes", &vols))
                vols = NULL;
        if (o.json) {
                (void) ctl_json_print(vols, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED);
                json_object_put(reply);
                return 0;
        }
        printf("%-12s %-10s %-9s %-8s %6s %7s %-8s %12s %10s\n", "NAME", "KIND", "STATE",
               "SELECTED", "PROBES", "STALLS", "LAST", "SEQ MiB/s", "RAND IOPS");
        for (size_t i = 0; vols && i < json_object_array_length(vols); i++) {
                struct json_object *v = json_object_array_get_idx(vols, i), *p, *last, *ph = NULL;
                const char *lastst = "-";
                char seq[32], iops[32];

                if (!json_object_object_get_ex(v, "probe", &p) || !p)
                        p = NULL;
                if (p && json_object_object_get_ex(p, "last", &last) && last) {
                        lastst = jstr(last, "result") ?: "-";
                        if (jbool(p, "stalled"))
                                lastst = "stalled";
                        if (!json_object_object_get_ex(last, "phases", &ph))
                                ph = NULL;
                }
                phase_figures(ph, seq, iops);
                printf("%-12s %-10s %-9s %-8s %6.0f %7.0f %-8s %12s %10s\n", jstr(v, "name") ?: "?",
                       jstr(v, "kind") ?: "?", jstr(v, "state") ?: "-",
                       jbool(v, "selected") ? "yes" : "no", p ? jnum(p, "runs") : 0,
                       p ? jnum(p, "stalls") : 0, lastst, seq, iops);
        }
        json_object_put(reply);
        return 0;
}

/* {"command":"probe","profile":...,"volumes":[...]} for the volumes at argv[optind..]. */
static struct json_object *probe_request(const Options *o, int argc, char **argv) {
        struct json_object *req = json_object_new_object(), *vols = json_object_new_array();

        if (!req || !vols) {
                json_object_put(req);
                json_object_put(vols);
                return NULL;
        }
        json_object_object_add(req, "command", json_object_new_string("probe"));
        json_object_object_add(req, "profile", json_object_new_string(o->profile));
        for (int i = optind; i < argc; i++) {
                const char *n = argv[i];

                if (strncmp(n, "/dev/", 5) == 0)
                        n += 5;
                json_object_array_add(vols, json_object_new_string(n));
        }
        json_object_object_add(req, "volumes", vols);
        if (o->no_wait)
                json_object_object_add(req, "wait", json_object_new_boolean(false));
        return req;
}

/* A "volume" line of a probe run: the verdict, or why it was skipped. */
static void print_probe_volume(struct json_object *line) {
        struct json_object *res, *ph = NULL;
        char seq[32], iops[32];

        if (!json_object_object_get_ex(line, "result", &res) ||
            !json_object_object_get_ex(res, "phases", &ph))
                ph = NULL;
        phase_figures(ph, seq, iops);
        if (jstr(line, "reason"))
                printf("%-12s skipped (%s)\n", jstr(line, "volume") ?: "?", jstr(line, "reason"));
        else
                printf("%-12s %-8s %10s MiB/s %10s IOPS\n", jstr(line, "volume") ?: "?",
                       jstr(line, "verdict") ?: "?", seq, iops);
        fflush(stdout);
}

/* The final "reply" of a probe run: its summary, and the exit status it gives. */
static int probe_reply(struct json_object *line, const Options *o) {
        if (!jbool(line, "ok")) {
                if (!o->json)
                        log_error("storpulsed: %s", jstr(line, "error") ?: "unknown error");
                return EXIT_DAEMON;
        }
        if (jnum(line, "probed_error") > 0 || jnum(line, "stalled") > 0)
                return EXIT_PROBE;
        if (!o->json && !o->no_wait)
                printf("run %.0f (%s): %.0f volumes, %.0f ok, %.0f skipped in %.1fs\n",
                       jnum(line, "run"), jstr(line, "profile") ?: "?", jnum(line, "volumes"),
                       jnum(line, "probed_ok"), jnum(line, "skipped"),
                       jnum(line, "duration_seconds"));
        else if (!o->json)
                printf("run %.0f queued\n", jnum(line, "run"));
        return 0;
}

static int ctl_daemon_probe_main(int argc, char **argv) {
        static const char head[] =
                "Usage: storpulsectl probe --profile NAME [OPTIONS] [VOLUME...]\n\n"
                "Ask the running storpulsed to run probe profile NAME (quick, deep, light or one\n"
                "from the configuration) over the named volumes (kernel names) or over its\n"
                "configured selection, with its back-off, and wait for the result. Progress is\n"
                "shown on a terminal. Without --profile, `probe DEVICE...` probes once by itself\n"
                "(see 'storpulsectl probe --help').\n";
        static const char tail[] =
                "Exit status: 0 all ok, 1 usage, 2 no daemon/refused/timeout, 3 errors or\n"
                "stalls.\n";
        Options o = { .timeout = USEC_INFINITY };
        Conn c = { .fd = -EBADF };
        struct json_object *req, *line = NULL;
        bool tty = isatty(STDOUT_FILENO), progress_shown = false;
        int r, code = 0;

        r = parse_common(argc, argv, probe_options, ELEMENTSOF(probe_options), &o, head, tail);
        if (r != 0)
                return r > 0 ? 0 : 1;
        if (!o.profile) {
                log_error("Usage error; see 'storpulsectl probe --profile NAME --help'.");
                return 1;
        }
        req = probe_request(&o, argc, argv);
        if (!req)
                return log_oom(), EXIT_DAEMON;

        r = conn_open(&c, ctl_socket_path(o.socket), o.timeout);
        if (r < 0) {
                json_object_put(req);
                ctl_log_connect_error(r, ctl_socket_path(o.socket), NULL);
                return EXIT_DAEMON;
        }
        r = conn_send(&c, req);
        json_object_put(req);
        while (r >= 0) {
                const char *type;

                r = conn_recv(&c, &line);
                if (r < 0)
                        break;
                type = jstr(line, "type") ?: "";
                if (o.json) {
                        (void) ctl_json_print(line, JSON_C_TO_STRING_PLAIN);
                } else if (strcmp(type, "progress") == 0) {
                        if (tty) {
                                printf("\r%-12s %-12s %3.0f%%", jstr(line, "volume") ?: "?",
                                       jstr(line, "phase") ?: "?", jnum(line, "fraction") * 100);
                                fflush(stdout);
                                progress_shown = true;
                        }
                } else if (strcmp(type, "volume") == 0) {
                        if (progress_shown)
                                printf("\r%-40s\r", "");
                        progress_shown = false;
                        print_probe_volume(line);
                }
                if (strcmp(type, "reply") == 0) {
                        code = probe_reply(line, &o);
                        json_object_put(line);
                        break;
                }
                json_object_put(line);
                line = NULL;
        }
        safe_close(c.fd);
        if (r < 0) {
                log_error_errno(r, "Lost storpulsed while waiting for the probe: %m");
                return EXIT_DAEMON;
        }
        return code;
}

static bool has_arg(int argc, char **argv, const char *opt) {
        size_t n = strlen(opt);

        for (int i = 1; i < argc; i++) {
                if (strcmp(argv[i], "--") == 0)
                        return false;
                if (strncmp(argv[i], opt, n) == 0 && (argv[i][n] == 0 || argv[i][n] == '='))
                        return true;
        }
        return false;
}

int ctl_daemon_route(int argc, char **argv) {
        if (argc < 1)
                return -1;
        if (strcmp(argv[0], "probe") == 0 && has_arg(argc, argv, "--profile"))
                return ctl_daemon_probe_main(argc, argv);
        if (strcmp(argv[0], "volumes") == 0 && has_arg(argc, argv, "--daemon"))
                return ctl_daemon_volumes_main(argc, argv);
        return -1;
}

/* SPDX-License-Identifier: MIT */
/* The verbs of learned baselines:
 *   storpulsectl report [--json] [--offline [--state-dir DIR]] [--socket PATH] [VOLUME...]
 *       per volume, in the spirit of bonnie++/tiobench tables: sequential MiB/s, random IOPS,
 *       latency p50/p99/max and probe CPU, now vs baseline, and during the last rebuild;
 *       from the running storpulsed (now = the last probe run, with its verdict), or with
 *       --offline from the state file alone (now = the newest learned run, no verdict)
 *   storpulsectl baseline reset VOLUME [--socket PATH]
 *       forget what the daemon learned for VOLUME (it starts learning again)
 * The document is core/perf-report.h's either way; the table is rendered from it, so the
 * daemon's and the file's answers look the same. Exit codes: 0 ok, 1 usage, 2 no daemon /
 * refused / unreadable state file. */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "analysis/baseline-file.h"
#include "basic/fileio.h"
#include "basic/format-util.h"
#include "basic/log.h"
#include "basic/macro.h"
#include "basic/time-util.h"
#include "core/baseline-store.h"
#include "core/perf-report.h"
#include "ctl/ctl-util.h"
#include "ctl/ctl.h"
#include "manager/control-protocol.h"

#include "config.h"

#define EXIT_DAEMON  2
#define REPLY_MAX    (4U << 20)
#define TIMEOUT_USEC (30 * USEC_PER_SEC)

static const char *socket_path(const char *opt) {
        const char *e = getenv("STORPULSE_SOCKET");

        return opt ?: (e && *e ? e : "/run/storpulse/" CONTROL_SOCKET_NAME);
}

/* One request line, the final "reply" line back (other lines skipped). 0 and *ret, or an exit
 * code > 0 (logged). */
static int request(const char *path, json_object *req, json_object **ret) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *buf = NULL;
        usec_t deadline = now(CLOCK_MONOTONIC) + TIMEOUT_USEC;
        const char *s = json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN);
        size_t n = 0;

        if (strlen(path) >= sizeof(sa.sun_path)) {
                log_error("Socket path too long: %s", path);
                return EXIT_DAEMON;
        }
        memcpy(sa.sun_path, path, strlen(path) + 1);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || connect(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0) {
                log_error_errno(-errno,
                                "Failed to connect to storpulsed at %s: %m (is it running? "
                                "'report --offline' reads the state file instead)",
                                path);
                return EXIT_DAEMON;
        }
        if (send(fd, s, strlen(s), MSG_NOSIGNAL) != (ssize_t) strlen(s) ||
            send(fd, "\n", 1, MSG_NOSIGNAL) != 1) {
                log_error_errno(-errno, "Failed to send to storpulsed: %m");
                return EXIT_DAEMON;
        }
        buf = malloc(REPLY_MAX + 1);
        if (!buf)
                return log_oom(), EXIT_DAEMON;
        for (;;) {
                char *nl = memchr(buf, '\n', n);
                struct pollfd p = { .fd = fd, .events = POLLIN };
                usec_t t = now(CLOCK_MONOTONIC);
                ssize_t k;

                if (nl) {
                        json_object *o, *type;

                        *nl = 0;
                        o = json_tokener_parse(buf);
                        memmove(buf, nl + 1, n - (size_t) (nl - buf) - 1);
                        n -= (size_t) (nl - buf) + 1;
                        if (!o) {
                                log_error("Malformed reply from storpulsed");
                                return EXIT_DAEMON;
                        }
                        if (json_object_object_get_ex(o, "type", &type) &&
                            strcmp(json_object_get_string(type), "reply") == 0) {
                                *ret = o;
                                return 0;
                        }
                        json_object_put(o);
                        continue;
                }
                if (n >= REPLY_MAX || t >= deadline) {
                        log_error("No complete answer from storpulsed");
                        return EXIT_DAEMON;
                }
                k = poll(&p, 1, (int) ((deadline - t) / 1000 + 1));
                if (k < 0 && errno != EINTR)
                        return log_error_errno(-errno, "poll: %m"), EXIT_DAEMON;
                if (k <= 0)
                        continue;
                k = recv(fd, buf + n, REPLY_MAX - n, 0);
                if (k <= 0) {
                        if (k < 0 && errno == EINTR)
                                continue;
                        log_error("storpulsed closed the connection");
                        return EXIT_DAEMON;
                }
                n += (size_t) k;
        }
}

static int request_checked(const char *path, json_object *req, json_object **ret) {
        json_object *o = NULL, *ok, *err;
        int r = request(path, req, &o);

        if (r > 0)
                return r;
        if (!json_object_object_get_ex(o, "ok", &ok) || !json_object_get_boolean(ok)) {
                log_error("storpulsed refused: %s", json_object_object_get_ex(o, "error", &err)
                                                            ? json_object_get_string(err)
                                                            : "unknown error");
                json_object_put(o);
                return EXIT_DAEMON;
        }
        *ret = o;
        return 0;
}

static json_object *jget(json_object *o, const char *a, const char *b) {
        json_object *x = NULL;

        if (!json_object_object_get_ex(o, a, &x))
                return NULL;
        if (b && !json_object_object_get_ex(x, b, &x))
                return NULL;
        return x;
}

static double jnum(json_object *o, const char *metric, const char *what) {
        json_object *m = jget(o, "metrics", metric), *v;

        if (!m || !json_object_object_get_ex(m, what, &v) || !v)
                return NAN;
        return json_object_get_double(v);
}

static void cell(FILE *f, double v, double scale, int decimals) {
        if (isfinite(v))
                fprintf(f, "%10.*f", decimals, v / scale);
        else
                fprintf(f, "%10s", "-");
}

/* A `*_timestamp_seconds` as a local date; "unknown" for none. */
static void format_date(double sec, char *buf, size_t size) {
        time_t t = (time_t) sec;
        struct tm tm;

        if (!(sec > 0) || !localtime_r(&t, &tm) || strftime(buf, size, "%Y-%m-%d %H:%M", &tm) == 0)
                snprintf(buf, size, "unknown");
}

static void row(FILE *f, json_object *v, const char *label, const char *what, const char *note) {
        fprintf(f, "  %-16s", label);
        cell(f, bytes_to_mib(jnum(v, "seq_bytes_per_second", what)), 1, 1);
        cell(f, jnum(v, "rand_iops", what), 1, 0);
        cell(f, jnum(v, "latency_p50_seconds", what), 1e-3, 2);
        cell(f, jnum(v, "latency_p99_seconds", what), 1e-3, 2);
        cell(f, jnum(v, "latency_max_seconds", what), 1e-3, 2);
        cell(f, jnum(v, "cpu_seconds_per_run", what), 1e-3, 1);
        fprintf(f, "  %s\n", note ?: "");
}

static void print_table(FILE *f, json_object *doc) {
        json_object *vols = jget(doc, "volumes", NULL), *src = jget(doc, "source", NULL);
        bool from_file = src && strcmp(json_object_get_string(src), "state-file") == 0;
        size_t n = vols ? json_object_array_length(vols) : 0;

        if (n == 0) {
                fprintf(f, "No baselines learned yet.\n");
                return;
        }
        for (size_t i = 0; i < n; i++) {
                json_object *v = json_object_array_get_idx(vols, i), *x;
                char note[160], since[32], rb[32];
                const char *verdict =
                        (x = jget(v, "verdict", NULL)) ? json_object_get_string(x) : NULL;
                const char *culprit =
                        (x = jget(v, "culprit", NULL)) ? json_object_get_string(x) : NULL;

                x = jget(v, "profile", NULL);
                fprintf(f, "%s%s%s%s%s\n", i > 0 ? "\n" : "",
                        json_object_get_string(jget(v, "volume", NULL)), x ? " (profile " : "",
                        x ? json_object_get_string(x) : "", x ? ")" : "");
                fprintf(f, "  %-16s%10s%10s%10s%10s%10s%10s\n", "", "SEQ MiB/s", "RAND IOPS",
                        "P50 ms", "P99 ms", "MAX ms", "CPU ms");
                if (verdict)
                        snprintf(note, sizeof(note), "verdict: %s%s%s%s", verdict,
                                 culprit ? " (member " : "", culprit ?: "",
                                 culprit ? " slow)" : "");
                else
                        snprintf(note, sizeof(note), "%s", from_file ? "(last learned run)" : "");
                row(f, v, "now", "now", note);
                format_date((x = jget(v, "since_timestamp_seconds", NULL))
                                    ? json_object_get_double(x)
                                    : 0,
                            since, sizeof(since));
                snprintf(note, sizeof(note), "(%" PRIu64 " runs learned since %s)",
                         (x = jget(v, "learned_runs", NULL)) ? json_object_get_uint64(x) : 0,
                         since);
                row(f, v, "baseline", "baseline", note);
                if ((x = jget(v, "rebuild_timestamp_seconds", NULL))) {
                        format_date(json_object_get_double(x), rb, sizeof(rb));
                        snprintf(note, sizeof(note), "(last rebuild run %s%s)", rb,
                                 (x = jget(v, "rebuild_slow", NULL)) && json_object_get_boolean(x)
                                         ? ", rebuild reported slow"
                                         : "");
                        row(f, v, "during rebuild", "during_rebuild", note);
                }
        }
}

static int help_report(void) {
        printf("Usage: storpulsectl report [--json] [--offline [--state-dir DIR]] [--socket PATH] "
               "[VOLUME...]\n\n"
               "Learned baselines per volume: sequential MiB/s, random IOPS, latency p50/p99/max "
               "and\n"
               "probe CPU, now vs baseline, and during the last rebuild.\n\n"
               "  --json           the JSON document instead of the table\n"
               "  --offline        read the state file instead of asking storpulsed\n"
               "  --state-dir DIR  where the state file is (default %s)\n"
               "  --socket PATH    storpulsed's control socket\n",
               PKGSTATEDIR);
        return 0;
}

/* --offline: the report from the daemon's state file, read-only. 0, or the exit code. */
static int report_offline(const char *state_dir, int argc, char **argv, json_object **ret) {
        _cleanup_(baseline_set_freep) BaselineSet *set = NULL;
        _cleanup_close_ int fd = open(state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        _cleanup_free_ char *text = NULL;
        size_t size;
        int r;

        if (fd < 0) {
                log_error_errno(-errno, "Failed to open %s: %m", state_dir);
                return EXIT_DAEMON;
        }
        /* Read-only: no housekeeping of the daemon's directory from here. */
        r = read_full_file_at(fd, BASELINE_STORE_FILE, &text, &size);
        if (r == -ENOENT)
                r = baseline_set_new(&set);
        else if (r >= 0) {
                r = baseline_file_parse(text, size, &set);
                if (r < 0) {
                        log_error_errno(r, "%s/%s does not parse: %m", state_dir,
                                        BASELINE_STORE_FILE);
                        return EXIT_DAEMON;
                }
        }
        if (r < 0) {
                log_error_errno(r, "Failed to read %s/%s: %m", state_dir, BASELINE_STORE_FILE);
                return EXIT_DAEMON;
        }
        r = perf_report_build(set, NULL, NULL, optind < argc ? argv + optind : NULL, ret);
        if (r < 0)
                return log_oom(), EXIT_DAEMON;
        return 0;
}

/* The report from the running daemon. 0, or the exit code. */
/* {"command": COMMAND, "volumes": [NAMES...]} ("volumes" only with names) to storpulsed: 0 with
 * its reply, or the exit code (the daemon's refusal is logged). */
static int request_volumes(const char *sock, const char *command, char *const *names, int n,
                           json_object **ret_reply) {
        json_object *req = json_object_new_object(), *a = n > 0 ? json_object_new_array() : NULL;
        int r;

        if (!req || (n > 0 && !a)) {
                json_object_put(req);
                json_object_put(a);
                return log_oom(), EXIT_DAEMON;
        }
        json_object_object_add(req, "command", json_object_new_string(command));
        for (int i = 0; i < n; i++)
                json_object_array_add(a, json_object_new_string(names[i]));
        if (a)
                json_object_object_add(req, "volumes", a);
        r = request_checked(socket_path(sock), req, ret_reply);
        json_object_put(req);
        return r;
}

/* The report from the running daemon. 0, or the exit code. */
static int report_from_daemon(const char *sock, int argc, char **argv, json_object **ret) {
        json_object *reply = NULL;
        int r;

        r = request_volumes(sock, "report", argv + optind, argc - optind, &reply);
        if (r > 0)
                return r;
        *ret = json_object_get(jget(reply, "report", NULL));
        json_object_put(reply);
        if (!*ret) {
                log_error("storpulsed sent no report");
                return EXIT_DAEMON;
        }
        return 0;
}

int ctl_report_main(int argc, char **argv) {
        enum { ARG_JSON = 0x100, ARG_OFFLINE, ARG_STATE_DIR, ARG_SOCKET };
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "json", no_argument, NULL, ARG_JSON },
                { "offline", no_argument, NULL, ARG_OFFLINE },
                { "state-dir", required_argument, NULL, ARG_STATE_DIR },
                { "socket", required_argument, NULL, ARG_SOCKET },
                {},
        };
        const char *state_dir = PKGSTATEDIR, *sock = NULL;
        bool json = false, offline = false;
        json_object *doc = NULL;
        int c, r;

        optind = 0;
        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        return help_report();
                case ARG_JSON:
                        json = true;
                        break;
                case ARG_OFFLINE:
                        offline = true;
                        break;
                case ARG_STATE_DIR:
                        state_dir = optarg;
                        offline = true;
                        break;
                case ARG_SOCKET:
                        sock = optarg;
                        break;
                default:
                        return 1;
                }

        r = offline ? report_offline(state_dir, argc, argv, &doc)
                    : report_from_daemon(sock, argc, argv, &doc);
        if (r != 0)
                return r;
        if (json)
                (void) ctl_json_print(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED);
        else
                print_table(stdout, doc);
        json_object_put(doc);
        return 0;
}

int ctl_baseline_main(int argc, char **argv) {
        enum { ARG_SOCKET = 0x100 };
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "socket", required_argument, NULL, ARG_SOCKET },
                {},
        };
        json_object *reply = NULL;
        const char *sock = NULL;
        int c, r;

        optind = 0;
        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        printf("Usage: storpulsectl baseline reset VOLUME [--socket PATH]\n\n"
                               "Forget what storpulsed learned as normal for VOLUME; it learns "
                               "again from the next healthy runs.\n");
                        return 0;
                case ARG_SOCKET:
                        sock = optarg;
                        break;
                default:
                        return 1;
                }
        if (argc - optind != 2 || strcmp(argv[optind], "reset") != 0) {
                fprintf(stderr, "Usage: storpulsectl baseline reset VOLUME\n");
                return 1;
        }
        r = request_volumes(sock, "baseline-reset", argv + optind + 1, 1, &reply);
        if (r > 0)
                return r;
        json_object_put(reply);
        printf("Baseline of %s reset; storpulsed learns it again from the next healthy runs.\n",
               argv[optind + 1]);
        return 0;
}

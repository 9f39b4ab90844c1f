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
#include "ctl/ctl-client.h"
#include "ctl/ctl-util.h"
#include "ctl/ctl.h"
#include "manager/control-protocol.h"

#include "config.h"

#define EXIT_DAEMON  CTL_EXIT_DAEMON
#define TIMEOUT_USEC (30 * USEC_PER_SEC)

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

/* A latency or CPU time: in the unit that shows it (3.7 us is no "0.00 ms"). */
static void cell_time(FILE *f, double seconds) {
        char buf[32];

        fprintf(f, "%10s", ctl_format_latency(buf, sizeof(buf), isfinite(seconds) ? seconds : -1));
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
        cell_time(f, jnum(v, "latency_p50_seconds", what));
        cell_time(f, jnum(v, "latency_p99_seconds", what));
        cell_time(f, jnum(v, "latency_max_seconds", what));
        cell_time(f, jnum(v, "cpu_seconds_per_run", what));
        fprintf(f, "  %s\n", note ?: "");
}

/* The write probe's figures, when the volume has any: a second block like the reads'. */
static void write_rows(FILE *f, json_object *v) {
        static const char *const names[] = { "write_bytes_per_second", "write_iops",
                                             "write_latency_p99_seconds",
                                             "sync_latency_p99_seconds" };
        static const char *const whats[] = { "now", "baseline" };
        bool any = false;

        for (size_t k = 0; k < ELEMENTSOF(names); k++)
                any = any || isfinite(jnum(v, names[k], "now")) ||
                      isfinite(jnum(v, names[k], "baseline"));
        if (!any)
                return;
        fprintf(f, "  %-16s%10s%10s%10s%10s\n", "", "WR MiB/s", "WR IOPS", "WR P99", "SYNC P99");
        for (size_t k = 0; k < ELEMENTSOF(whats); k++) {
                fprintf(f, "  %-16s", whats[k]);
                cell(f, bytes_to_mib(jnum(v, "write_bytes_per_second", whats[k])), 1, 1);
                cell(f, jnum(v, "write_iops", whats[k]), 1, 0);
                cell_time(f, jnum(v, "write_latency_p99_seconds", whats[k]));
                cell_time(f, jnum(v, "sync_latency_p99_seconds", whats[k]));
                fputc('\n', f);
        }
}

static void print_table(FILE *f, json_object *doc) {
        json_object *vols = jget(doc, "volumes", NULL);
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
                fprintf(f, "  %-16s%10s%10s%10s%10s%10s%10s\n", "", "SEQ MiB/s", "RAND IOPS", "P50",
                        "P99", "MAX", "CPU/RUN");
                if (verdict)
                        snprintf(note, sizeof(note), "verdict: %s%s%s%s", verdict,
                                 culprit ? " (member " : "", culprit ?: "",
                                 culprit ? " slow)" : "");
                else
                        snprintf(note, sizeof(note), "%s",
                                 (x = jget(v, "now_source", NULL)) &&
                                                 strcmp(json_object_get_string(x),
                                                        "last-learned") == 0
                                         ? "(last learned run)"
                                         : "");
                row(f, v, "now", "now", note);
                format_date((x = jget(v, "since_timestamp_seconds", NULL))
                                    ? json_object_get_double(x)
                                    : 0,
                            since, sizeof(since));
                snprintf(note, sizeof(note), "(%" PRIu64 " runs learned since %s)",
                         (x = jget(v, "learned_runs", NULL)) ? json_object_get_uint64(x) : 0,
                         since);
                row(f, v, "baseline", "baseline", note);
                write_rows(f, v);
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

static const CtlOption report_options[] = {
        { "json", NULL, 0x100, "the JSON document instead of the table" },
        { "offline", NULL, 0x101, "read the state file instead of asking storpulsed" },
        { "state-dir", "DIR", 0x102,
          "where the state file is (implies --offline;\ndefault " PKGSTATEDIR ")" },
        { "socket", "PATH", 0x103, "storpulsed's control socket" },
};

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

/* The report from the running daemon (which refuses a name that is no volume). 0, or the exit
 * code. */
static int report_from_daemon(const char *sock, int argc, char **argv, json_object **ret) {
        json_object *reply = NULL;
        int r;

        r = ctl_request(sock, "report", argv + optind, argc - optind, TIMEOUT_USEC,
                        "'report --offline' reads the state file instead", &reply);
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

/* Whether the document has an entry for `name`. */
static bool has_volume(json_object *doc, const char *name) {
        json_object *vols = jget(doc, "volumes", NULL);

        if (strncmp(name, "/dev/", 5) == 0)
                name += 5;
        for (size_t i = 0; vols && i < json_object_array_length(vols); i++) {
                json_object *n = jget(json_object_array_get_idx(vols, i), "volume", NULL);

                if (n && strcmp(json_object_get_string(n), name) == 0)
                        return true;
        }
        return false;
}

/* Named volumes without an entry: from the state file, an error (it knows no such volume);
 * from the daemon (which knows the volume) a note that nothing is learned yet. The exit code. */
static int check_named(json_object *doc, bool offline, bool json, const char *state_dir, int argc,
                       char **argv) {
        int code = 0;

        for (int i = optind; i < argc; i++) {
                if (has_volume(doc, argv[i]))
                        continue;
                if (offline) {
                        log_error("%s: no baseline in %s/%s.", argv[i], state_dir,
                                  BASELINE_STORE_FILE);
                        code = EXIT_DAEMON;
                } else if (!json)
                        printf("%s: no baseline learned yet.\n", argv[i]);
        }
        return code;
}

int ctl_report_main(int argc, char **argv) {
        static const char head[] =
                "Usage: storpulsectl report [OPTIONS] [VOLUME...]\n\n"
                "Learned baselines per volume and probe profile: sequential MiB/s, random IOPS,\n"
                "latency p50/p99/max and probe CPU per run, now vs baseline, and during the last\n"
                "rebuild. \"now\" is the last probe run where it ran with that profile, else the\n"
                "newest learned run. Latencies in us, ms or s, whichever shows them; - unknown.\n";
        static const char tail[] = "Exit status: 0 ok, 1 usage, 2 no daemon, refused (a VOLUME "
                                   "that is no volume), or\nan unreadable state file (--offline: "
                                   "a VOLUME it has no baseline of).\n";
        const char *state_dir = PKGSTATEDIR, *sock = NULL;
        bool json = false, offline = false;
        json_object *doc = NULL;
        int c, r;

        while ((c = ctl_getopt(argc, argv, report_options, ELEMENTSOF(report_options), head,
                               tail)) >= 0)
                switch (c) {
                case 'h':
                        return 0;
                case 0x100:
                        json = true;
                        break;
                case 0x101:
                        offline = true;
                        break;
                case 0x102:
                        state_dir = optarg;
                        offline = true;
                        break;
                case 0x103:
                        sock = optarg;
                        break;
                default:
                        return 1;
                }

        r = offline ? report_offline(state_dir, argc, argv, &doc)
                    : report_from_daemon(sock, argc, argv, &doc);
        if (r != 0)
                return r;
        r = check_named(doc, offline, json, state_dir, argc, argv);
        if (json)
                (void) ctl_json_print(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED);
        else if (optind == argc || json_object_array_length(jget(doc, "volumes", NULL)) > 0)
                print_table(stdout, doc);
        json_object_put(doc);
        return r;
}

static const CtlOption baseline_options[] = {
        { "socket", "PATH", 0x100, "storpulsed's control socket" },
};

int ctl_baseline_main(int argc, char **argv) {
        static const char head[] =
                "Usage: storpulsectl baseline reset VOLUME [--socket PATH]\n\n"
                "Forget what storpulsed learned as normal for VOLUME (every profile); it learns\n"
                "again from the next healthy runs.\n";
        json_object *reply = NULL;
        const char *sock = NULL;
        int c, r;

        while ((c = ctl_getopt(argc, argv, baseline_options, ELEMENTSOF(baseline_options), head,
                               NULL)) >= 0)
                switch (c) {
                case 'h':
                        return 0;
                case 0x100:
                        sock = optarg;
                        break;
                default:
                        return 1;
                }
        if (argc - optind != 2 || strcmp(argv[optind], "reset") != 0) {
                fprintf(stderr, "Usage: storpulsectl baseline reset VOLUME\n");
                return 1;
        }
        r = ctl_request(sock, "baseline-reset", argv + optind + 1, 1, TIMEOUT_USEC, NULL, &reply);
        if (r > 0)
                return r;
        json_object_put(reply);
        printf("Baseline of %s reset; storpulsed learns it again from the next healthy runs.\n",
               argv[optind + 1]);
        return 0;
}

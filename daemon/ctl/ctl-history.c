/* SPDX-License-Identifier: MIT */
/* storpulsectl history [--json] [--socket PATH] [--timeout SEC] [VOLUME...]: the recent probe
 * runs the daemon keeps per volume (the page's charts, /api/v1/history), from the control socket's
 * "history" command. The table has one line per run, oldest first per volume; a phase the run
 * did not have (light: no sequential read) is "-", not 0. --json prints the document as the HTTP
 * API serves it (docs/json.md "History"), with "volumes" only those asked for.
 * Exit status: 0 ok, 1 usage, 2 no daemon / refused (a name that is no volume) / no answer. */

#include <getopt.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "basic/format-util.h"
#include "basic/log.h"
#include "basic/macro.h"
#include "basic/parse-util.h"
#include "ctl/ctl-client.h"
#include "ctl/ctl-util.h"
#include "ctl/ctl.h"

enum { ARG_JSON = 0x100, ARG_SOCKET, ARG_TIMEOUT };

static const CtlOption history_options[] = {
        { "json", NULL, ARG_JSON, "the history document (as /api/v1/history)\ninstead of a table" },
        { "socket", "PATH", ARG_SOCKET, "storpulsed's control socket" },
        { "timeout", "SEC", ARG_TIMEOUT, "give up waiting for storpulsed (default 30s)" },
};

static json_object *jget(json_object *o, const char *key) {
        json_object *v;

        return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* A number member, NAN when absent or null. */
static double jnum(json_object *o, const char *key) {
        json_object *v = jget(o, key);

        return v ? json_object_get_double(v) : NAN;
}

static void print_run(const char *volume, json_object *run) {
        json_object *ph = jget(run, "phases"), *seq = jget(ph, "sequential"),
                    *rnd = jget(ph, "random");
        char when[32] = "-", seqs[32] = "-", iops[32] = "-", p50[32], p99[32], dur[32];
        time_t t = (time_t) jnum(run, "timestamp_seconds");
        struct tm tm;

        if (t > 0 && localtime_r(&t, &tm))
                (void) strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
        if (seq)
                (void) snprintf(seqs, sizeof(seqs), "%.1f",
                                bytes_to_mib(jnum(seq, "bytes_per_second")));
        if (rnd)
                (void) snprintf(iops, sizeof(iops), "%.0f", jnum(rnd, "iops"));
        (void) ctl_format_latency(p50, sizeof(p50), rnd ? jnum(rnd, "latency_p50_seconds") : -1);
        (void) ctl_format_latency(p99, sizeof(p99), rnd ? jnum(rnd, "latency_p99_seconds") : -1);
        (void) snprintf(dur, sizeof(dur), "%.1fs", jnum(run, "duration_seconds"));
        printf("%-12s %-19s %-8s %-7s %8s %10s %10s %9s %9s\n", volume, when,
               json_object_get_string(jget(run, "profile")) ?: "-",
               json_object_get_string(jget(run, "result")) ?: "?", dur, seqs, iops, p50, p99);
}

static void print_history(json_object *doc) {
        json_object *vols = jget(doc, "volumes");

        printf("%-12s %-19s %-8s %-7s %8s %10s %10s %9s %9s\n", "VOLUME", "ENDED", "PROFILE",
               "RESULT", "DURATION", "SEQ MiB/s", "RAND IOPS", "P50", "P99");
        if (!vols)
                return;
        json_object_object_foreach(vols, name, v) {
                json_object *samples = jget(v, "samples");
                size_t n = samples ? json_object_array_length(samples) : 0;

                if (n == 0)
                        printf("%-12s (no probe run yet)\n", name);
                for (size_t i = 0; i < n; i++)
                        print_run(name, json_object_array_get_idx(samples, i));
        }
}

int ctl_history_main(int argc, char **argv) {
        static const char head[] =
                "Usage: storpulsectl history [OPTIONS] [VOLUME...]\n\n"
                "The recent probe runs storpulsed keeps per volume (the last 16), oldest first:\n"
                "when each ended, its profile and result, sequential MiB/s, random IOPS and\n"
                "latency p50/p99 (us, ms or s; - for a phase the run did not have).\n";
        static const char tail[] = "Exit status: 0 ok, 1 usage, 2 no daemon, refused (a VOLUME "
                                   "that is no volume) or\nno answer.\n";
        usec_t timeout = 30 * USEC_PER_SEC;
        json_object *reply = NULL, *doc;
        const char *sock = NULL;
        bool json = false;
        int c, r;

        while ((c = ctl_getopt(argc, argv, history_options, ELEMENTSOF(history_options), head,
                               tail)) >= 0)
                switch (c) {
                case 'h':
                        return 0;
                case ARG_JSON:
                        json = true;
                        break;
                case ARG_SOCKET:
                        sock = optarg;
                        break;
                case ARG_TIMEOUT:
                        if (parse_sec(optarg, &timeout) < 0 || timeout == 0) {
                                log_error("Invalid --timeout '%s'.", optarg);
                                return 1;
                        }
                        break;
                default:
                        return 1;
                }
        r = ctl_request(sock, "history", argv + optind, argc - optind, timeout, NULL, &reply);
        if (r > 0)
                return r;
        doc = jget(reply, "history");
        if (json)
                (void) ctl_json_print(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED);
        else
                print_history(doc);
        json_object_put(reply);
        return 0;
}

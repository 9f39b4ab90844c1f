/* SPDX-License-Identifier: MIT */
/* `storpulsectl watch [--json] [--root DIR] [--interval SEC] [--count N] [--timeout SEC]
 * [ARRAY...]`: follow md arrays event-driven and print every rebuild event as it happens.
 *
 * It runs an sd-event loop with an MdWatch (EPOLLPRI on the md attributes and /proc/mdstat, plus
 * the safety-net re-read every --interval, the only polling) over the given arrays, or over every
 * md array found below the root (new ones are picked up as they appear). Each report re-reads the
 * array (md_array_load()) and its /proc/mdstat entry (fine-grained progress) and feeds a
 * RebuildTracker; every event it returns is one line on stdout, flushed at once:
 *   text: "2026-12-02T11:30:00.123Z md0 started check info: check started"
 *   json: {"time":..., "array":..., "event":..., "operation":..., "reason":..., "progress":...,
 *          "percent":..., "speed_bytes_per_second":..., "eta_seconds":..., "duration_seconds":...,
 *          "mismatch_count":..., "severity":..., "message":...}   (unknown numbers are null)
 * Arrays appearing/vanishing and how each is watched go to stderr as diagnostics, e.g.
 * "md0: watching 6 attributes, 6 event-driven" (0 event-driven means safety net only).
 * Exit codes: 0 after --count events, a signal, or the --timeout when no --count was given;
 * 1 usage; 2 the root cannot be opened or watched; 4 --timeout passed before --count events. */

#include <fcntl.h>
#include <getopt.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "ctl/ctl.h"
#include "basic/fileio.h"
#include "basic/log.h"
#include "basic/macro.h"
#include "sources/md-watch.h"
#include "model/md.h"
#include "model/mdstat.h"
#include "basic/parse-util.h"
#include "analysis/rebuild.h"
#include "basic/sysfs.h"
#include "basic/time-util.h"

#define EXIT_TIMEOUT 4

typedef struct Tracked {
        char *name;
        RebuildTracker tracker;
} Tracked;

typedef struct Ctx {
        sd_event *event;
        MdWatch *watch;
        int root_fd;
        bool json;
        uint64_t count; /* stop after this many events; 0 = unlimited */
        uint64_t printed;
        Tracked *tracked;
        size_t n_tracked;
} Ctx;

static Tracked *tracked_get(Ctx *c, const char *name, bool create) {
        Tracked *l;

        for (size_t i = 0; i < c->n_tracked; i++)
                if (strcmp(c->tracked[i].name, name) == 0)
                        return &c->tracked[i];
        if (!create)
                return NULL;
        l = reallocarray(c->tracked, c->n_tracked + 1, sizeof(*l));
        if (!l)
                return NULL;
        c->tracked = l;
        l = &c->tracked[c->n_tracked];
        l->name = strdup(name);
        if (!l->name)
                return NULL;
        rebuild_tracker_init(&l->tracker);
        c->n_tracked++;
        return l;
}

static void tracked_drop(Ctx *c, const char *name) {
        for (size_t i = 0; i < c->n_tracked; i++)
                if (strcmp(c->tracked[i].name, name) == 0) {
                        free(c->tracked[i].name);
                        memmove(c->tracked + i, c->tracked + i + 1,
                                (c->n_tracked - i - 1) * sizeof(c->tracked[0]));
                        c->n_tracked--;
                        return;
                }
}

/* Build an observation of one array from its md/ directory and /proc/mdstat. */
static int observe_array(Ctx *c, const char *name, const RebuildTracker *t,
                         RebuildObservation *ret) {
        _cleanup_(md_array_freep) MdArray *a = NULL;
        _cleanup_(mdstat_freep) Mdstat *ms = NULL;
        _cleanup_free_ char *text = NULL;
        uint64_t sync_min = REBUILD_UNKNOWN;
        int md_fd, r;

        md_fd = md_watch_get_md_dir_fd(c->watch, name);
        if (md_fd < 0)
                return md_fd;
        r = md_array_load(md_fd, &a);
        if (r < 0)
                return r;
        if (sysfs_read_u64(md_fd, "sync_min", &sync_min) < 0)
                sync_min = REBUILD_UNKNOWN;
        /* Fine-grained progress, if /proc/mdstat is there and parses. */
        if (read_full_file_at(c->root_fd, "proc/mdstat", &text, NULL) < 0 ||
            mdstat_parse(text, &ms) < 0)
                ms = NULL;
        rebuild_observation_from_md(t, a, ms ? mdstat_find(ms, name) : NULL, sync_min, ret);
        return 0;
}

static void format_time(char *buf, size_t size) {
        struct timeval tv;
        struct tm tm;

        (void) gettimeofday(&tv, NULL);
        if (!gmtime_r(&tv.tv_sec, &tm)) {
                (void) snprintf(buf, size, "unknown");
                return;
        }
        (void) snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                        tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                        (int) (tv.tv_usec / 1000));
}

/* A non-negative double printed with `digits` decimals (json-c's default prints 17 digits), or
 * null for the "unknown" (-1) convention. */
static struct json_object *json_num_or_null(double v, int digits) {
        char buf[64];

        if (!(v >= 0))
                return NULL;
        (void) snprintf(buf, sizeof(buf), "%.*f", digits, v);
        return json_object_new_double_s(v, buf);
}

static void print_event(Ctx *c, const char *array, const RebuildEvent *ev) {
        char when[64], msg[256];

        format_time(when, sizeof(when));
        rebuild_event_format(ev, msg, sizeof(msg));

        if (c->json) {
                struct json_object *o = json_object_new_object();

                if (!o)
                        return;
                json_object_object_add(o, "time", json_object_new_string(when));
                json_object_object_add(o, "array", json_object_new_string(array));
                json_object_object_add(
                        o, "event", json_object_new_string(rebuild_event_type_to_string(ev->type)));
                json_object_object_add(
                        o, "operation",
                        json_object_new_string(rebuild_operation_to_string(ev->operation)));
                json_object_object_add(
                        o, "reason", json_object_new_string(rebuild_reason_to_string(ev->reason)));
                json_object_object_add(o, "progress", json_num_or_null(ev->progress, 4));
                json_object_object_add(o, "percent", json_object_new_int((int) ev->percent));
                json_object_object_add(o, "speed_bytes_per_second",
                                       json_num_or_null(ev->speed_bytes_per_sec, 0));
                json_object_object_add(o, "eta_seconds", json_num_or_null(ev->eta_sec, 1));
                json_object_object_add(
                        o, "duration_seconds",
                        ev->duration_usec == USEC_INFINITY
                                ? NULL
                                : json_num_or_null((double) ev->duration_usec / USEC_PER_SEC, 3));
                json_object_object_add(o, "mismatch_count",
                                       ev->mismatch_count == REBUILD_UNKNOWN
                                               ? NULL
                                               : json_object_new_uint64(ev->mismatch_count));
                json_object_object_add(
                        o, "severity",
                        json_object_new_string(rebuild_severity_to_string(ev->severity)));
                json_object_object_add(o, "message", json_object_new_string(msg));
                printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
                json_object_put(o);
        } else
                printf("%s %s %s %s %s: %s\n", when, array, rebuild_event_type_to_string(ev->type),
                       rebuild_operation_to_string(ev->operation),
                       rebuild_severity_to_string(ev->severity), msg);
        fflush(stdout);
}

static void on_change(MdWatch *w, const char *array, MdWatchChange change, unsigned attrs,
                      void *userdata) {
        Ctx *c = userdata;
        RebuildEvent ev[REBUILD_EVENTS_MAX];
        RebuildObservation o;
        Tracked *t;
        int n, r;

        if (change == MD_WATCH_ARRAY_REMOVED) {
                log_info("%s: gone, no longer watched", array);
                tracked_drop(c, array);
                return;
        }
        if (change == MD_WATCH_ARRAY_ADDED) {
                unsigned total = 0, pollable = 0;

                (void) md_watch_get_counts(w, array, &total, &pollable);
                log_info("%s: watching %u attributes, %u event-driven%s", array, total, pollable,
                         md_watch_mdstat_pollable(w) ? ", /proc/mdstat event-driven" : "");
        }

        t = tracked_get(c, array, true);
        if (!t) {
                log_error_errno(-ENOMEM, "%s: out of memory, ignoring", array);
                return;
        }
        r = observe_array(c, array, &t->tracker, &o);
        if (r < 0) {
                log_warning_errno(r, "%s: failed to read the array: %m, ignoring", array);
                return;
        }
        n = rebuild_tracker_feed(&t->tracker, now(CLOCK_MONOTONIC), &o, ev, ELEMENTSOF(ev));
        if (n < 0) {
                log_warning_errno(n, "%s: failed to track: %m, ignoring", array);
                return;
        }
        for (int i = 0; i < n; i++) {
                print_event(c, array, &ev[i]);
                c->printed++;
                if (c->count > 0 && c->printed >= c->count) {
                        (void) sd_event_exit(c->event, 0);
                        return;
                }
        }
}

static int on_timeout(sd_event_source *s, uint64_t usec, void *userdata) {
        Ctx *c = userdata;

        return sd_event_exit(c->event, c->count > 0 ? EXIT_TIMEOUT : 0);
}

static int help(void) {
        printf("Usage: storpulsectl watch [OPTIONS...] [ARRAY...]\n\n"
               "Follow md arrays (all, or the named ones) and print each rebuild event\n"
               "(started, progress every 10%%, finished, interrupted, resumed, delayed) as it\n"
               "happens. Changes arrive through the kernel's sysfs notifications; --interval is\n"
               "only a safety-net re-read.\n\n"
               "  -h --help           show this help\n"
               "     --json           one JSON object per line\n"
               "     --root DIR       read sys/ and proc/ below DIR (default /)\n"
               "     --interval SEC   safety-net re-read period (default 60; 0 = never)\n"
               "     --count N        exit after N events\n"
               "     --timeout SEC    exit after SEC\n\n"
               "Exit status: 0 done, 1 usage, 2 root unusable, 4 timeout before --count events.\n");
        return 0;
}

int ctl_watch_main(int argc, char **argv) {
        enum { ARG_JSON = 0x100, ARG_ROOT, ARG_INTERVAL, ARG_COUNT, ARG_TIMEOUT };
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "json", no_argument, NULL, ARG_JSON },
                { "root", required_argument, NULL, ARG_ROOT },
                { "interval", required_argument, NULL, ARG_INTERVAL },
                { "count", required_argument, NULL, ARG_COUNT },
                { "timeout", required_argument, NULL, ARG_TIMEOUT },
                {},
        };
        _cleanup_(md_watch_freep) MdWatch *watch = NULL;
        _cleanup_close_ int root_fd = -EBADF;
        sd_event_source *timeout_source = NULL;
        const char *root = "/";
        usec_t interval = 60 * USEC_PER_SEC, timeout = USEC_INFINITY;
        Ctx c = { .root_fd = -EBADF };
        sigset_t mask;
        int opt, r;

        optind = 0;
        while ((opt = getopt_long(argc, argv, "h", options, NULL)) >= 0)
                switch (opt) {
                case 'h':
                        return help();
                case ARG_JSON:
                        c.json = true;
                        break;
                case ARG_ROOT:
                        root = optarg;
                        break;
                case ARG_INTERVAL:
                        if (parse_sec(optarg, &interval) < 0) {
                                log_error("Invalid --interval '%s'.", optarg);
                                return 1;
                        }
                        break;
                case ARG_COUNT:
                        if (safe_atou64(optarg, &c.count) < 0) {
                                log_error("Invalid --count '%s'.", optarg);
                                return 1;
                        }
                        break;
                case ARG_TIMEOUT:
                        if (parse_sec(optarg, &timeout) < 0) {
                                log_error("Invalid --timeout '%s'.", optarg);
                                return 1;
                        }
                        break;
                case '?':
                        return 1;
                default:
                        return 1;
                }

        root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (root_fd < 0) {
                log_error_errno(-errno, "Failed to open root %s: %m", root);
                return 2;
        }
        c.root_fd = root_fd;

        r = sd_event_new(&c.event);
        if (r < 0) {
                log_error_errno(r, "Failed to create the event loop: %m");
                return 2;
        }

        (void) sigemptyset(&mask);
        (void) sigaddset(&mask, SIGINT);
        (void) sigaddset(&mask, SIGTERM);
        (void) sigprocmask(SIG_BLOCK, &mask, NULL);
        (void) sd_event_add_signal(c.event, NULL, SIGINT, NULL, NULL);
        (void) sd_event_add_signal(c.event, NULL, SIGTERM, NULL, NULL);

        if (timeout != USEC_INFINITY) {
                r = sd_event_add_time_relative(c.event, &timeout_source, CLOCK_MONOTONIC, timeout,
                                               0, on_timeout, &c);
                if (r < 0) {
                        log_error_errno(r, "Failed to arm the timeout: %m");
                        r = 2;
                        goto out_free_event;
                }
        }

        r = md_watch_new(c.event, root_fd, interval, /* discover= */ optind >= argc, on_change, &c,
                         &watch);
        if (r < 0) {
                log_error_errno(r, "Failed to watch md arrays below %s: %m", root);
                r = 2;
                goto out_free_event;
        }
        c.watch = watch;
        for (int i = optind; i < argc; i++) {
                r = md_watch_add(watch, argv[i]);
                if (r < 0) {
                        log_error_errno(r, "Failed to watch %s: %m", argv[i]);
                        r = 2;
                        goto out_free_event;
                }
        }
        if (md_watch_size(watch) == 0)
                log_info("No md arrays below %s yet; waiting for one to appear.", root);

        r = sd_event_loop(c.event);
        if (r < 0) {
                log_error_errno(r, "Event loop failed: %m");
                r = 2;
        }

out_free_event:
        watch = md_watch_free(watch);
        timeout_source = sd_event_source_unref(timeout_source);
        c.event = sd_event_unref(c.event);
        for (size_t i = 0; i < c.n_tracked; i++)
                free(c.tracked[i].name);
        free(c.tracked);
        /* A SIGTERM that arrived after the loop ended (e.g. `timeout` signals the child and then
         * its whole process group) has done its job: consume it before unblocking. */
        for (struct timespec zero = {}; sigtimedwait(&mask, NULL, &zero) > 0;)
                ;
        (void) sigprocmask(SIG_UNBLOCK, &mask, NULL);
        return r;
}

/* SPDX-License-Identifier: MIT */
/* `storpulsectl watch [--json] [--root DIR] [--interval SEC] [--count N] [--timeout SEC]
 * [ARRAY...]`: follow md arrays event-driven and print every rebuild event as it happens.
 *
 * A thin driver of the library's MdMonitor (core/md-monitor.h), the same one the daemon runs: an
 * Inventory of the root says which md arrays exist (all, or the named ones), the monitor watches
 * them event-driven (EPOLLPRI on the md attributes and /proc/mdstat; --interval is the safety-net
 * re-read, the only polling) and tracks their rebuilds. New and vanished arrays reach the
 * inventory through udev events on the live system and through a rescan every --interval (on a
 * fixture tree, the only way). Every rebuild event is one line on stdout, flushed at once:
 *   text: "2026-12-02T11:30:00.123Z md0 started check info: check started"
 *   json: {"timestamp_seconds":..., "array":..., "event":..., "operation":..., "reason":...,
 *          "progress":..., "percent":..., "speed_bytes_per_second":..., "eta_seconds":...,
 *          "duration_seconds":..., "mismatch_count":..., "severity":..., "message":...}
 *   (docs/json.md: the time as seconds since the epoch, progress 0..1, percent the 10 % mark;
 *   unknown numbers are null)
 * Arrays vanishing go to stderr as notices; how each is watched is a debug line (--verbose), e.g.
 * "storpulsectl watch: md0: watching 6 attributes, 6 event-driven" (0: safety net only).
 * Exit codes: 0 after --count events, a signal, or the --timeout when no --count was given;
 * 1 usage; 2 the root cannot be opened or watched; 4 --timeout passed before --count events;
 * 5 the events could not be written (main() says so). */

#include <getopt.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "basic/json-util.h"
#include "analysis/rebuild.h"
#include "basic/log.h"
#include "basic/macro.h"
#include "basic/parse-util.h"
#include "basic/sysfs.h"
#include "basic/time-util.h"
#include "core/discovery.h"
#include "core/inventory.h"
#include "core/md-monitor.h"
#include "ctl/ctl.h"
#include "ctl/ctl-util.h"

#define EXIT_TIMEOUT 4

typedef struct Options {
        bool json;
        const char *root;
        usec_t interval, timeout;
        uint64_t count; /* stop after this many events; 0 = unlimited */
} Options;

typedef struct Ctx {
        Options opt;
        sd_event *event;
        Inventory *inv;
        MdMonitor *monitor;
        Discovery *discovery;
        sd_event_source *rescan, *timeout;
        uint64_t printed;
        int exit_code;
        bool output_failed; /* stdout cannot be written: exiting with CTL_EXIT_OUTPUT */
} Ctx;

/* realtime_usec (CLOCK_REALTIME) as "2026-12-02T11:30:00.123Z". */
static void format_time(char *buf, size_t size, usec_t realtime_usec) {
        time_t sec = (time_t) (realtime_usec / USEC_PER_SEC);
        struct tm tm;

        if (!gmtime_r(&sec, &tm)) {
                (void) snprintf(buf, size, "unknown");
                return;
        }
        (void) snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                        tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                        (int) (realtime_usec % USEC_PER_SEC / 1000));
}

/* A non-negative figure rounded to `digits` decimals, or null for the "unknown" (-1) convention. */
static struct json_object *json_num_or_null(double v, unsigned digits) {
        return v >= 0 ? json_number_new_rounded(v, digits) : NULL;
}

static void print_json(usec_t realtime_usec, const char *array, const RebuildEvent *ev,
                       const char *msg) {
        struct json_object *o = json_object_new_object();

        if (!o)
                return;
        (void) json_add_usec_as_seconds(o, "timestamp_seconds", realtime_usec, false);
        json_object_object_add(o, "array", json_object_new_string(array));
        json_object_object_add(o, "event",
                               json_object_new_string(rebuild_event_type_to_string(ev->type)));
        json_object_object_add(o, "operation",
                               json_object_new_string(rebuild_operation_to_string(ev->operation)));
        json_object_object_add(o, "reason",
                               json_object_new_string(rebuild_reason_to_string(ev->reason)));
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
        json_object_object_add(o, "severity",
                               json_object_new_string(rebuild_severity_to_string(ev->severity)));
        json_object_object_add(o, "message", json_object_new_string(msg));
        (void) ctl_json_print(o, JSON_C_TO_STRING_PLAIN); /* a write error ends the loop */
        json_object_put(o);
}

static void print_event(Ctx *c, const char *array, const RebuildEvent *ev) {
        usec_t t = now(CLOCK_REALTIME);
        char when[64], msg[256];

        format_time(when, sizeof(when), t);
        rebuild_event_format(ev, msg, sizeof(msg));
        if (c->opt.json)
                print_json(t, array, ev, msg);
        else
                printf("%s %s %s %s %s: %s\n", when, array, rebuild_event_type_to_string(ev->type),
                       rebuild_operation_to_string(ev->operation),
                       rebuild_severity_to_string(ev->severity), msg);
        /* Nobody reads us any more (closed pipe, full disk): stop; main() says so, exit 5. */
        if (ctl_flush_stdout() < 0) {
                c->output_failed = true;
                (void) sd_event_exit(c->event, CTL_EXIT_OUTPUT);
        }
}

static void on_monitor(MdMonitor *m, const MdMonitorEvent *ev, void *userdata) {
        Ctx *c = userdata;

        switch (ev->type) {
        case MD_MONITOR_ARRAY_WATCHED:
                log_debug("%s: watching %u attributes, %u event-driven%s", ev->array, ev->n_attrs,
                          ev->n_pollable, ev->mdstat_pollable ? ", /proc/mdstat event-driven" : "");
                break;
        case MD_MONITOR_ARRAY_DROPPED:
                log_notice("%s: gone, no longer watched", ev->array);
                break;
        case MD_MONITOR_READ_FAILED:
                log_warning_errno(ev->error, "%s: failed to read the array, ignoring: %m",
                                  ev->array);
                break;
        case MD_MONITOR_REBUILD:
                if (c->output_failed || (c->opt.count > 0 && c->printed >= c->opt.count))
                        break; /* exiting: --count is reached, or nobody reads us */
                print_event(c, ev->array, ev->rebuild);
                c->printed++;
                if (!c->output_failed && c->opt.count > 0 && c->printed >= c->opt.count)
                        (void) sd_event_exit(c->event, 0);
                break;
        case _MD_MONITOR_EVENT_TYPE_MAX:
        case _MD_MONITOR_EVENT_TYPE_INVALID:
                break;
        }
}

static void on_changes(Inventory *inv, const InventoryChange *changes, size_t n, void *userdata) {
        Ctx *c = userdata;

        if (md_monitor_apply_changes(c->monitor, changes, n) < 0)
                log_error_errno(-ENOMEM, "out of memory following the arrays, ignoring");
}

static int on_rescan(sd_event_source *s, uint64_t usec, void *userdata) {
        Ctx *c = userdata;
        int r;

        r = inventory_queue_rescan(c->inv);
        if (r < 0)
                log_warning_errno(r, "failed to list the block devices, ignoring: %m");
        (void) sd_event_source_set_time_relative(s, c->opt.interval);
        (void) sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
        return 0;
}

static int on_timeout(sd_event_source *s, uint64_t usec, void *userdata) {
        Ctx *c = userdata;

        return sd_event_exit(c->event, c->opt.count > 0 ? EXIT_TIMEOUT : 0);
}

static int help(void) {
        printf("Usage: storpulsectl watch [OPTIONS...] [ARRAY...]\n\n"
               "Follow md arrays (all, or the named ones: md0, /dev/md0 or /dev/md/NAME) and\n"
               "print each rebuild event\n"
               "(started, progress every 10%%, finished, interrupted, resumed, delayed) as it\n"
               "happens. Changes arrive through the kernel's sysfs notifications; --interval is\n"
               "only a safety-net re-read.\n\n"
               "  -h --help           show this help\n"
               "     --json           one JSON object per line\n"
               "     --root DIR       read sys/ and proc/ below DIR (default /)\n"
               "     --interval SEC   safety-net re-read period (default 60; 0 = never)\n"
               "     --count N        exit after N events\n"
               "     --timeout SEC    exit after SEC\n"
               "  -v --verbose        debug lines on stderr (how each array is watched)\n\n"
               "Exit status: 0 done, 1 usage, 2 root unusable, 4 timeout before --count events,\n"
               "5 the output could not be written.\n");
        return 0;
}

/* 0 to go on, 1 after --help (exit 0), -EINVAL for a usage error (exit 1). */
static int parse_argv(int argc, char **argv, Options *o) {
        enum { ARG_JSON = 0x100, ARG_ROOT, ARG_INTERVAL, ARG_COUNT, ARG_TIMEOUT };
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "json", no_argument, NULL, ARG_JSON },
                { "root", required_argument, NULL, ARG_ROOT },
                { "interval", required_argument, NULL, ARG_INTERVAL },
                { "count", required_argument, NULL, ARG_COUNT },
                { "timeout", required_argument, NULL, ARG_TIMEOUT },
                { "verbose", no_argument, NULL, 'v' },
                {},
        };
        int opt;

        *o = (Options){ .root = "/", .interval = 60 * USEC_PER_SEC, .timeout = USEC_INFINITY };
        optind = 0;
        while ((opt = getopt_long(argc, argv, "hv", options, NULL)) >= 0)
                switch (opt) {
                case 'h':
                        (void) help();
                        return 1;
                case ARG_JSON:
                        o->json = true;
                        break;
                case 'v':
                        ctl_set_verbose(true);
                        break;
                case ARG_ROOT:
                        o->root = optarg;
                        break;
                case ARG_INTERVAL:
                        if (parse_sec(optarg, &o->interval) < 0) {
                                log_error("invalid --interval '%s': not a duration (e.g. 60, "
                                          "500ms, 2min)",
                                          optarg);
                                return -EINVAL;
                        }
                        break;
                case ARG_COUNT:
                        if (safe_atou64(optarg, &o->count) < 0) {
                                log_error("invalid --count '%s': not a number", optarg);
                                return -EINVAL;
                        }
                        break;
                case ARG_TIMEOUT:
                        if (parse_sec(optarg, &o->timeout) < 0) {
                                log_error("invalid --timeout '%s': not a duration (e.g. 60, 500ms, "
                                          "2min)",
                                          optarg);
                                return -EINVAL;
                        }
                        break;
                case '?':
                default:
                        return -EINVAL;
                }
        return 0;
}

/* The inventory of the root, and what keeps it current: udev events (live system) and the
 * rescan timer. Returns 0 or an exit code. */
static int setup_inventory(Ctx *c) {
        int r;

        r = inventory_new_for_root(c->opt.root, &c->inv);
        if (r < 0) {
                log_error_errno(r, "failed to open the root %s: %m", c->opt.root);
                return 2;
        }
        if (inventory_is_live(c->inv)) {
                r = discovery_new(discovery_inventory_queue_handler, c->inv, &c->discovery);
                if (r >= 0)
                        r = discovery_start(c->discovery);
                if (r >= 0)
                        r = discovery_attach_event(c->discovery, c->event);
                if (r < 0) {
                        log_notice_errno(r, "no udev events (%m); new arrays are found by the "
                                            "rescan every --interval");
                        c->discovery = discovery_free(c->discovery);
                }
        }
        if (!c->discovery) {
                r = inventory_scan(c->inv);
                if (r < 0) {
                        log_error_errno(r, "failed to list the block devices below %s: %m",
                                        c->opt.root);
                        return 2;
                }
        } else
                (void) inventory_flush(c->inv, 0); /* the coldplug, at once */
        if (c->opt.interval > 0 && c->opt.interval != USEC_INFINITY) {
                r = sd_event_add_time_relative(c->event, &c->rescan, CLOCK_MONOTONIC,
                                               c->opt.interval, 0, on_rescan, c);
                if (r < 0) {
                        log_error_errno(r, "failed to arm the rescan timer: %m");
                        return 2;
                }
        }
        return 0;
}

/* The monitor over the named arrays (which must be md arrays now) or over all. */
static int setup_monitor(Ctx *c, char **names) {
        int r;

        for (size_t i = 0; names && names[i]; i++) {
                const Volume *v = inventory_get(c->inv, names[i]);

                if (!v || v->kind != VOLUME_MD) {
                        log_error("cannot watch %s: no such md array below %s", names[i],
                                  c->opt.root);
                        return 2;
                }
        }
        r = md_monitor_new(c->event, c->inv, c->opt.interval, names, 0, on_monitor, c, &c->monitor);
        if (r >= 0)
                r = md_monitor_sync(c->monitor);
        if (r >= 0)
                r = inventory_attach_event(c->inv, c->event, 64, on_changes, c);
        if (r < 0) {
                log_error_errno(r, "failed to watch the md arrays below %s: %m", c->opt.root);
                return 2;
        }
        /* what the coldplug recorded is followed already */
        inventory_clear_changes(c->inv);
        if (md_monitor_size(c->monitor) == 0)
                log_notice("no md arrays below %s yet; waiting for one to appear", c->opt.root);
        return 0;
}

static int setup_loop(Ctx *c, sigset_t *mask) {
        int r;

        r = sd_event_new(&c->event);
        if (r < 0) {
                log_error_errno(r, "failed to create the event loop: %m");
                return 2;
        }
        (void) sigemptyset(mask);
        (void) sigaddset(mask, SIGINT);
        (void) sigaddset(mask, SIGTERM);
        (void) sigprocmask(SIG_BLOCK, mask, NULL);
        (void) sd_event_add_signal(c->event, NULL, SIGINT, NULL, NULL);
        (void) sd_event_add_signal(c->event, NULL, SIGTERM, NULL, NULL);
        if (c->opt.timeout != USEC_INFINITY) {
                r = sd_event_add_time_relative(c->event, &c->timeout, CLOCK_MONOTONIC,
                                               c->opt.timeout, 0, on_timeout, c);
                if (r < 0) {
                        log_error_errno(r, "failed to arm the timeout: %m");
                        return 2;
                }
        }
        return 0;
}

/* "md0", "/dev/md0" and "/dev/md/NAME" (udev's symlink, resolved on the live system) all name
 * the kernel device md0, which is what the inventory knows. *ret is NULL when none are given. */
static int normalize_names(const char *root, char **args, int n, char ***ret) {
        char **names;

        *ret = NULL;
        if (n <= 0)
                return 0;
        names = calloc((size_t) n + 1, sizeof(char *));
        if (!names)
                return -ENOMEM;
        for (int i = 0; i < n; i++) {
                _cleanup_free_ char *resolved = NULL;
                const char *a = args[i], *slash;

                if (a[0] == '/' && strcmp(root, "/") == 0) {
                        resolved = realpath(a, NULL);
                        if (resolved)
                                a = resolved;
                }
                if (strncmp(a, "/dev/", 5) == 0 && (slash = strrchr(a, '/')))
                        a = slash + 1;
                names[i] = strdup(a);
                if (!names[i]) {
                        strv_free(names);
                        return -ENOMEM;
                }
        }
        *ret = names;
        return 0;
}

int ctl_watch_main(int argc, char **argv) {
        _cleanup_(strv_freep) char **names = NULL;
        Ctx c = {};
        sigset_t mask;
        int r;

        ctl_setup_log("watch");
        r = parse_argv(argc, argv, &c.opt);
        if (r != 0)
                return r > 0 ? 0 : 1;
        r = normalize_names(c.opt.root, argv + optind, argc - optind, &names);
        if (r < 0) {
                (void) log_oom();
                return 2;
        }

        (void) sigemptyset(&mask);
        r = setup_loop(&c, &mask);
        if (r == 0)
                r = setup_inventory(&c);
        if (r == 0)
                r = setup_monitor(&c, names);
        if (r == 0) {
                r = sd_event_loop(c.event);
                if (r < 0) {
                        log_error_errno(r, "the event loop failed: %m");
                        r = 2;
                }
        }

        c.monitor = md_monitor_free(c.monitor);
        c.discovery = discovery_free(c.discovery);
        c.inv = inventory_free(c.inv);
        c.rescan = sd_event_source_unref(c.rescan);
        c.timeout = sd_event_source_unref(c.timeout);
        c.event = sd_event_unref(c.event);
        /* A SIGTERM that arrived after the loop ended (e.g. `timeout` signals the child and then
         * its whole process group) has done its job: consume it before unblocking. */
        for (struct timespec zero = {}; sigtimedwait(&mask, NULL, &zero) > 0;)
                ;
        (void) sigprocmask(SIG_UNBLOCK, &mask, NULL);
        return r;
}

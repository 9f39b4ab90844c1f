/* SPDX-License-Identifier: MIT */
#pragma once

/* The Manager: storpulsed's state and its one sd-event loop. It owns the live inventory (udev
 * monitor + rescan safety net + dm-raid poll timer), the md monitor (EPOLLPRI rebuild tracking),
 * the probe scheduling (probes run in the storpulse-probe helper through the probe runner; hung
 * helpers go to the ProcessReaper), the journal events and the control socket.
 *
 * For the modules hanging off the daemon (HTTP snapshot, baselines): the fields below are the
 * state, documented for reading from a publish hook. manager_publish() is called after every
 * state change (an inventory change set, an md progress tick, a probe result, an event); it calls
 * every hook added with manager_add_publish_hook(), in the order added, with `changed` saying
 * what changed (MANAGER_CHANGED_* bits). Hooks run on the loop and must not block; they may read
 * everything here but change nothing except their own data. */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "analysis/backoff.h"
#include "basic/macro.h"
#include "basic/process.h"
#include "basic/string-table.h"
#include "basic/time-util.h"
#include "core/discovery.h"
#include "core/inventory.h"
#include "core/md-monitor.h"
#include "http/server.h"
#include "manager/config.h"
#include "manager/event.h"
#include "manager/state-writer.h"
#include "probe/probe-runner.h"
#include "probe/probe.h"

/* Results kept per volume (the history ring) and events kept by the daemon (the event ring). */
#define MANAGER_HISTORY_MAX 16
#define MANAGER_EVENTS_MAX  256

/* Bits of Manager.changed: what the current manager_publish() is about. */
#define MANAGER_CHANGED_INVENTORY (1U << 0) /* volumes added/changed/removed */
#define MANAGER_CHANGED_REBUILD   (1U << 1) /* an md monitor event or progress tick */
#define MANAGER_CHANGED_PROBE     (1U << 2) /* a probe started, progressed or ended */
#define MANAGER_CHANGED_EVENT     (1U << 3) /* an event was raised (the newest ring entry) */
#define MANAGER_CHANGED_CONFIG    (1U << 4) /* a new config is in effect */
#define MANAGER_CHANGED_STATE     (1U << 5) /* a state file save failed or works again */

/* One probe result, summarised for the history ring (the full last result is in
 * ManagerVolume.last_outcome). Rates are 0 when the phase did not run. */
typedef struct ManagerProbePhaseSummary {
        bool ran;
        double bytes_per_second;
        double iops;
        nsec_t p50_ns, p99_ns, max_ns; /* read latency */
        uint64_t errors;
} ManagerProbePhaseSummary;

typedef struct ManagerProbeSample {
        usec_t realtime_usec; /* when the probe ended, CLOCK_REALTIME */
        char profile[CONFIG_PROFILE_NAME_MAX];
        ProbeRunnerStatus status; /* DONE / STALLED / FAILED / ... */
        ProbeState state;         /* DONE: ok / error / stalled */
        usec_t duration_usec;     /* wall time of the helper, CLOCK_MONOTONIC */
        uint64_t errors;          /* failed + short reads */
        double foreground_share;  /* 0..1: someone else's share of a device's I/O during the
                                   * probe (accepted with ForeignIOThreshold= > 0); NAN unknown */
        usec_t probe_usec;        /* the helper's own time (sum over the slices) */
        usec_t cpu_wait_usec;     /* of it runnable but waiting for a CPU (schedstat run_delay);
                                   * USEC_INFINITY unknown */
        bool forced;              /* run despite foreground I/O after MaxDeferral= */
        ManagerProbePhaseSummary phases[_PROBE_PHASE_MAX];
} ManagerProbeSample;

/* Per-volume record: survives as long as the kernel device (a device re-created under the same
 * name starts a new record). */
typedef struct ManagerVolume {
        char *name;     /* kernel name, the key */
        Volume *volume; /* the inventory's handle (stable while the device exists) */

        /* what the last event saw: transitions are raised once */
        VolumeHealth seen_health;
        char **seen_members; /* "name=state" of array members at the last reading */
        bool seen_listed;    /* volume_is_listed() at the last reading: appeared/vanished */
        /* effective health from below and its cause as the last problem-below event saw them
         * (OK and "": none) */
        VolumeHealth seen_below;
        char seen_cause[MANAGER_EVENT_NAME_MAX];
        usec_t assembling_since_usec; /* CLOCK_MONOTONIC since an md array reads assembling, 0 */

        /* probes */
        bool probing; /* a helper runs on it now */
        bool stalled; /* the last probe stalled (cleared by a good one) */
        bool has_outcome;
        ProbeRunnerOutcome *last_outcome; /* the full last outcome (histograms), or NULL */
        usec_t last_realtime_usec;        /* when it ended, CLOCK_REALTIME; 0 never */
        /* a ring of MANAGER_HISTORY_MAX samples, oldest overwritten; allocated at the first sample,
         * since most volumes of a large server are never probed (3.7 KiB each) */
        ManagerProbeSample *history;
        size_t n_history;                       /* entries used, <= MAX */
        size_t history_next;                    /* index written next */
        uint64_t n_probes, n_stalls, n_errors;  /* errors: probes with I/O errors or FAILED */
        uint64_t skips[_PROBE_SKIP_REASON_MAX]; /* skips by reason, since start */
        unsigned skips_in_row;                  /* consecutive skipped runs */
        usec_t deferred_usec; /* CLOCK_REALTIME of the first run skipped for foreign I/O since the
                               * last probe ("retries"), 0 none: MaxDeferral= counts from it */
        uint64_t n_forced;    /* probes run despite foreground I/O after MaxDeferral= */
        uint64_t n_second_looks; /* results that read bad and were measured again */
        usec_t cpu_usec;         /* probe helper CPU (user+sys), total */
        usec_t device_usec;      /* device time spent probing, total */
} ManagerVolume;

typedef struct Manager Manager;
typedef struct ManagerProbeRun ManagerProbeRun; /* a running profile run (manager-probe.c) */
typedef struct ManagerControl ManagerControl;   /* the control socket (manager-control.c) */
typedef struct ManagerCli ManagerCli;           /* the vendor CLI worker (manager-controller.c) */
typedef struct ManagerPerf ManagerPerf;         /* baselines and verdicts (manager-perf.c) */
typedef struct ManagerScratch ManagerScratch;   /* write probe scratch files (manager-scratch.c) */

typedef void (*ManagerPublishHook)(Manager *m, unsigned changed, void *userdata);

struct Manager {
        sd_event *event;

        /* configuration */
        char *config_path;         /* --config FILE, or the default /etc/storpulse/storpulse.conf */
        bool config_path_explicit; /* given with --config: a missing file is an error */
        Config *config;            /* in effect; replaced only by a valid one */
        char *runtime_dir;         /* $RUNTIME_DIRECTORY or /run/storpulse: the control socket */
        char *state_dir;           /* $STATE_DIRECTORY or /var/lib/storpulse: probes.json */
        int state_error;           /* the last probes.json save's -errno (logged once), 0 ok */
        int baseline_error;        /* the last baselines.json save's -errno, 0 ok */
        uint64_t n_save_errors;    /* saves of either file that failed, since start */
        bool state_refused;        /* probes.json is of a newer version: never overwritten */
        StateWriter *state_writer; /* writes probes.json off the loop (state-writer.h) */
        char *root;                /* "/" (tests: a fixture root for the inventory) */
        bool under_systemd;        /* $NOTIFY_SOCKET was set at start */
        bool journal;              /* events go to the journal (its socket exists) */

        /* the live inventory and what keeps it current */
        Inventory *inventory;
        Discovery *discovery; /* udev or kernel uevents; NULL: none (fixture root, no netlink) */
        bool udev_running;    /* /run/udev/control exists */
        MdMonitor *md_monitor;
        sd_event_source *rescan_timer, *dm_timer;
        sd_event_source *dm_live_timer;  /* DM_LIST_DEVICES event counters, while dm is polled */
        int dm_live_error;               /* the last live refresh's error (told once a streak) */
        sd_event_source *assemble_timer; /* AssembleTimeout= of the oldest assembling array */

        /* probes */
        ProcessReaper *reaper;
        sd_event_source *reaper_io, *reaper_timer;
        ManagerProbeRun *run;     /* the run in progress, NULL when idle */
        ManagerProbeRun **queued; /* runs asked for while one runs, FIFO */
        ManagerScratch *scratch;  /* the directories write slices ran in, their cleanup */
        size_t n_queued;
        sd_event_source *schedule_timer; /* the built-in schedule, NULL when off */
        usec_t next_probe_usec;          /* CLOCK_REALTIME of the next scheduled run; 0 none */
        uint64_t n_runs;                 /* profile runs completed */

        /* per-volume records, in no particular order */
        ManagerVolume **volumes;
        size_t n_volumes;
        unsigned n_problems; /* visible volumes with a problem (volume_has_problem) */

        /* recent events: a ring of MANAGER_EVENTS_MAX, oldest overwritten */
        ManagerEvent events[MANAGER_EVENTS_MAX];
        size_t n_events;    /* used, <= MAX */
        size_t events_next; /* index written next */
        uint64_t event_seq; /* seq of the newest event, 0 none */

        ManagerControl *control;
        ManagerCli *cli;  /* vendor RAID CLIs, polled in a worker thread */
        char *cli_socket; /* --controller-cli-socket: the CLIs run by the helper unit behind it;
                             NULL: as children of the worker */
        unsigned controller_flags; /* ControllerLookupFlags ($STORPULSE_CONTROLLER_TEST) */
        bool reaper_in_use;        /* a worker still holds the reaper at exit: not freed */

        /* the HTTP endpoint (manager-http.c): NULL when disabled or when it could not start */
        HttpServer *http;
        sd_event_source **http_wait; /* EPOLLIN on its sockets until the first connection */
        size_t n_http_wait;
        char **http_listen;       /* --listen, overrides [HTTP] Listen= (NULL-terminated) */
        uint64_t http_generation; /* snapshots built */
        usec_t http_render_usec;  /* what the last snapshot build took */
        const char *http_note;    /* the last reload's word on [HTTP] (static), NULL: applied */
        ManagerPerf *perf;

        /* publish hooks */
        struct {
                ManagerPublishHook hook;
                void *userdata;
        } hooks[8];
        size_t n_hooks;
        unsigned changed; /* MANAGER_CHANGED_* accumulated for the current publish */

        usec_t start_usec;     /* CLOCK_MONOTONIC at start */
        char last_status[256]; /* the last STATUS= sent to systemd */
        bool stopping;
};

/* Options for manager_new() from the command line. */
typedef struct ManagerOptions {
        const char *config_path; /* NULL: the default; a missing default file means defaults */
        const char *root;        /* NULL: "/" */
        const char *runtime_dir; /* NULL: $RUNTIME_DIRECTORY or /run/storpulse */
        const char *state_dir;   /* NULL: $STATE_DIRECTORY or /var/lib/storpulse */
        char *const *listen;     /* --listen ADDR:PORT, NULL-terminated; NULL: [HTTP] Listen= */
        const char *cli_socket;  /* NULL: vendor CLIs run as our children */
} ManagerOptions;

/* Load the config (a bad one fails with its "FILE:LINE: message" logged), create the loop and
 * everything on it; nothing runs until manager_run(). Returns 0 or -errno (logged). */
int manager_new(const ManagerOptions *o, Manager **ret);

/* Coldplug, READY=1, then the loop until SIGTERM/SIGINT (or manager_exit()). Returns 0 or
 * -errno. Bounded at exit: probes still running get Config.shutdown_timeout_usec, then are left
 * to the reaper (and init). */
int manager_run(Manager *m);

/* Ask the loop to end (what SIGTERM does). */
void manager_exit(Manager *m);

/* Re-read the config; apply it only if valid (CONFIG_RELOADED), else keep the old one and raise
 * CONFIG_REJECTED with the error. Returns 0 if applied, -errno otherwise; *ret_error (optional)
 * gets the error text. */
int manager_reload(Manager *m, char **ret_error);

Manager *manager_free(Manager *m);
DEFINE_TRIVIAL_CLEANUP_FUNC(Manager *, manager_free);

/* Register a publish hook (at most 8). Returns 0 or -ENOSPC. */
int manager_add_publish_hook(Manager *m, ManagerPublishHook hook, void *userdata);

/* Called after every state change: runs the hooks with the accumulated MANAGER_CHANGED_* bits,
 * then clears them, and refreshes the sd_notify STATUS= line. */
void manager_publish(Manager *m);

/* Raise an event: keep it in the ring, send it to the journal (MESSAGE_ID, PRIORITY,
 * STORPULSE_EVENT/VOLUME/KIND/MEMBER and the extra "FIELD=value" strings, NULL-terminated, may
 * be NULL) or to stderr without a journal, then publish. v and member may be NULL. */
void manager_event(Manager *m, ManagerEventType type, const Volume *v, const char *member,
                   char *const *fields, const char *format, ...) _printf_(6, 7);

/* The same with a priority (LOG_*) other than the type's default (a rebuild's severity). */
void manager_event_priority(Manager *m, ManagerEventType type, int priority, const Volume *v,
                            const char *member, char *const *fields, const char *format, ...)
        _printf_(7, 8);

/* The record of a volume by name, NULL if none. */
ManagerVolume *manager_get_volume(const Manager *m, const char *name) _pure_;

/* The i-th newest event (0 = newest), NULL past the end. */
const ManagerEvent *manager_get_event(const Manager *m, size_t i) _pure_;

/* The newest history sample of a record (0 = newest), NULL past the end. */
const ManagerProbeSample *manager_volume_get_sample(const ManagerVolume *v, size_t i) _pure_;

/* Append a copy of *s to v's history (allocating the ring at the first sample). Returns 0 or
 * -ENOMEM (the sample is then not recorded). */
int manager_volume_add_sample(ManagerVolume *v, const ManagerProbeSample *s);

/* The share of the probe's own time it waited for a CPU, 0..1; NAN unknown. Pure. */
double manager_probe_sample_cpu_wait_share(const ManagerProbeSample *s) _pure_;

/* ---- probe runs ------------------------------------------------------------------------- */

/* A run probes every selected volume (or the named ones) with one profile, one volume at a time
 * per disk, each volume in slices (the sequential phase, then the random phases) with the
 * back-off checks around every slice. Runs asked for while one is in progress are queued. */

typedef enum ManagerProbeVerdict {
        MANAGER_PROBE_OK,      /* every read succeeded */
        MANAGER_PROBE_ERROR,   /* I/O errors, or the probe could not run */
        MANAGER_PROBE_STALLED, /* no result before the timeout: the helper was killed */
        MANAGER_PROBE_SKIPPED, /* not probed: see the skip reason */
        _MANAGER_PROBE_VERDICT_MAX,
        _MANAGER_PROBE_VERDICT_INVALID = -EINVAL,
} ManagerProbeVerdict;

DECLARE_STRING_TABLE_LOOKUP(manager_probe_verdict, ManagerProbeVerdict);

typedef struct ManagerRunSummary {
        uint64_t id;
        char profile[CONFIG_PROFILE_NAME_MAX];
        unsigned n_volumes, n_ok, n_error, n_stalled, n_skipped;
        bool aborted; /* the daemon stopped before the run ended */
        usec_t duration_usec;
} ManagerRunSummary;

/* What a requester (the control socket) hears about its run. Any callback may be NULL. They run
 * on the loop; `volume_done` gets the record (the last sample in its history is this probe's
 * unless the verdict is SKIPPED) and, for SKIPPED, the reason. */
typedef struct ManagerProbeWaiter {
        void (*progress)(Manager *m, const char *volume, const ProbeProgress *p, void *userdata);
        void (*volume_done)(Manager *m, const ManagerVolume *r, ManagerProbeVerdict verdict,
                            ProbeSkipReason reason, void *userdata);
        void (*finished)(Manager *m, const ManagerRunSummary *s, void *userdata);
        void *userdata;
} ManagerProbeWaiter;

/* Start (or queue) a run of `profile` over `volumes` (NULL-terminated kernel names; NULL = the
 * [Volumes] selection). w (copied, may be NULL) is told about its progress. Returns 0 and the run
 * id, -ENOENT for an unknown profile (*ret_bad = the name) or volume (*ret_bad = it), -EBUSY when
 * stopping, -ENOMEM. */
int manager_probe_request(Manager *m, const char *profile, char *const *volumes,
                          const ManagerProbeWaiter *w, uint64_t *ret_id, const char **ret_bad);

/* Forget every waiter with this userdata (its client went away); the runs go on. */
void manager_probe_forget_waiter(Manager *m, void *userdata);

/* One status line ("3 volumes, 1 problem, next probe 12:00:00"), for sd_notify and `status`. */
int manager_status_line(const Manager *m, char *buf, size_t size);

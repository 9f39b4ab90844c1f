/* SPDX-License-Identifier: MIT */
#pragma once

/* Inside the probe runs: a run and its targets (manager-probe.c: requests, the queue, results,
 * the schedule) and the slices a target is probed in (manager-probe-slice.c: the back-off checks,
 * its idle window, one helper per slice on the loop, the foreign-I/O check at every progress
 * report, its outcome). */

#include <stdbool.h>
#include <stddef.h>

#include "manager/manager-internal.h"

#define ACTIVE_MAX 16 /* slices running at once, at most */

typedef enum TargetState {
        TARGET_PENDING,
        TARGET_RUNNING,
        TARGET_DONE,
} TargetState;

/* The first result of a target measured once more (manager-probe.c: second_look()). */
typedef struct FirstLook {
        ProbeResult acc;
        double foreign_share;
        ProbeRunnerStatus status;
        usec_t started_usec;
} FirstLook;

typedef struct RunTarget {
        char *name;
        TargetState state;
        unsigned slice;    /* next slice: 0 sequential, 1 random, 2 write (RUN_SLICES) */
        unsigned attempts; /* foreign-I/O retries of the current slice */
        usec_t not_before; /* CLOCK_MONOTONIC */
        char **devs;       /* the volume itself, then every disk below it */
        size_t n_devs;
        Profile profile; /* effective: the rebuild profile while rebuilding */
        bool deferred_shared;
        bool forced; /* deferred past MaxDeferral=: probed despite foreground I/O */
        bool any_slice;
        ProbeResult acc;      /* merged over the slices */
        double foreign_share; /* the largest of the accepted slices (backoff_foreign_share()) */
        ProbeRunnerStatus status;
        usec_t started_usec, cpu_usec;
        /* the write slice: a [WriteProbe] Directory= on this volume, when the profile writes */
        char *write_dir;
        uint64_t write_dev;        /* the volume's dev_t (makedev), checked by the helper */
        uint64_t write_file_bytes; /* [WriteProbe] Size= */
        /* a result that read bad is measured once more before it counts: the first one, kept
         * in case the second cannot be taken (skipped); second_look: it is being taken */
        bool second_look;
        FirstLook *first;
} RunTarget;

/* How long a target whose result read bad waits before it is measured again: a busy host's slow
 * moment (another VM, a build, a backup's burst) mostly passes within seconds. */
#define SECOND_LOOK_DELAY_USEC (5 * USEC_PER_SEC)

#define RUN_SLICES 3

/* A slice from the start of its idle window (window set, runner NULL) until its outcome. */
typedef struct Active {
        ManagerProbeRun *run;
        RunTarget *t;
        ProbeParams params;
        ProbeRunner *runner;
        sd_event_source *window, *io, *timer;
        BlockStat *before, *after; /* stat of t->devs at the window's start; scratch */
        bool *have_before, *have_after;
        usec_t start_usec; /* the helper's start */
        /* the helper's progress reports, for the foreign-I/O check while it runs */
        ProbePhase phase;
        uint64_t done_bytes;  /* of the phases reported before this one */
        uint64_t phase_bytes; /* of this phase, as last reported */
        usec_t read_usec;     /* when `after` was read, to judge at a report sent later; 0: none */
        bool abandon;         /* foreign I/O seen while running: drop at the next dispatch */
} Active;

typedef struct RunWaiter {
        ManagerProbeWaiter w;
        bool gone;
} RunWaiter;

struct ManagerProbeRun {
        Manager *m;
        uint64_t id;
        Profile profile;
        char **requested; /* kernel names, NULL = the selection; resolved when the run starts */
        RunTarget *targets;
        size_t n_targets;
        Active *active[ACTIVE_MAX];
        size_t n_active;
        RunWaiter *waiters;
        size_t n_waiters;
        usec_t budget_used_usec;
        usec_t start_usec;
        bool started;
        sd_event_source *retry_timer;
        ManagerRunSummary summary;
};

/* manager-probe.c */
void manager_probe_record_skip(Manager *m, ManagerProbeRun *run, RunTarget *t,
                               ProbeSkipReason reason);
void manager_probe_record_result(Manager *m, ManagerProbeRun *run, RunTarget *t,
                                 ManagerProbeVerdict verdict, const ProbeRunnerOutcome *last);
/* Starts what can start of the current run (or the next queued one), finishes a run that is
 * done. */
void manager_probe_kick(Manager *m);
int manager_probe_reaper_arm(Manager *m);
/* Frees what t owns (not t). */
void manager_probe_target_free(RunTarget *t);

/* manager-probe-targets.c */
/* Resolves run's targets (see there); -ENOMEM. */
int manager_probe_run_resolve(ManagerProbeRun *run);

/* manager-probe-slice.c */
/* Try to start the next slice of t: 1 started, 0 deferred or finished, -errno. */
int manager_probe_slice_start(Manager *m, ManagerProbeRun *run, RunTarget *t);
/* Whether a running slice of run reads a disk below t. */
bool manager_probe_shares_disk(const ManagerProbeRun *run, const RunTarget *t);
/* Drops a running slice: its helper is killed and handed to the reaper. */
void manager_probe_active_remove(ManagerProbeRun *run, Active *a);

/* SPDX-License-Identifier: MIT */
#pragma once

/* Runs one probe (open the target, probe_run() over libaio) in a `storpulse-probe` helper
 * process and brings the result back through a socket, so the caller never blocks on the device:
 * a hung open(), io_submit() or io_getevents() on a suspended device leaves the helper in D
 * state, and since the kernel's exit_aio() waits for in-flight AIO such a child cannot even
 * exit. The parent therefore only ever reads the socket (non-blocking) and, when the deadline
 * (probe timeout + grace) passes without a result, or when the child reports a stalled probe,
 * SIGKILLs it, reports STALLED and hands it to the caller's ProcessReaper (basic/process.h),
 * which collects it whenever it finally dies.
 *
 * Two ways to use it: event-driven (daemon: watch probe_runner_fd() for input and wake up at
 * probe_runner_deadline_usec(), call probe_runner_dispatch() each time) or blocking but bounded
 * (CLI: probe_runner_run()). */

#include <stdbool.h>
#include <sys/types.h>

#include "basic/process.h"
#include "basic/string-table.h"
#include "probe/probe-target.h"
#include "probe/probe.h"

/* Extra time the parent allows beyond the probe's own timeout (open, setup, reporting). */
#define PROBE_RUNNER_GRACE_USEC (2 * USEC_PER_SEC)

typedef enum ProbeRunnerStatus {
        PROBE_RUNNER_RUNNING,   /* no outcome yet */
        PROBE_RUNNER_DONE,      /* result valid; its state says ok / error / stalled */
        PROBE_RUNNER_UNUSABLE,  /* target refused: error is a probe_target_open() refusal */
        PROBE_RUNNER_BAD_PARAM, /* params do not fit the target: bad_param names which */
        PROBE_RUNNER_STALLED,   /* no result before the deadline: child killed */
        PROBE_RUNNER_FAILED,    /* the probe could not run (error) or the child died */
        _PROBE_RUNNER_STATUS_MAX,
        _PROBE_RUNNER_STATUS_INVALID = -EINVAL,
} ProbeRunnerStatus;

DECLARE_STRING_TABLE_LOOKUP(probe_runner_status, ProbeRunnerStatus);

typedef struct ProbeRunnerOutcome {
        ProbeRunnerStatus status;
        int error;            /* UNUSABLE / FAILED: -errno */
        ProbeParam bad_param; /* BAD_PARAM */
        bool have_info;
        ProbeTargetInfo info;        /* when have_info */
        ProbeProgress last_progress; /* the last progress report seen (STALLED: how far it got);
                                      * phase _PROBE_PHASE_INVALID before the first */
        ProbeResult result;          /* DONE */
        bool removed; /* probe_runner_start_remove(), DONE: the file was there and is gone */
} ProbeRunnerOutcome;

typedef struct ProbeRunner ProbeRunner;

/* Spawn the helper probing `path` with p (validated first: -EINVAL/-ERANGE, nothing spawned).
 * sysfs_dirfd as for probe_target_open() (a directory fd is passed on to the helper; a negative
 * one means none). progress (may be NULL) is called from
 * probe_runner_dispatch() for each progress report. A child killed later is handed to `reaper`,
 * which must outlive the runner. Returns 0 and a runner, or -errno (-ENOENT: no helper at
 * probe_runner_helper_path()). */
int probe_runner_start(ProcessReaper *reaper, const char *path, const ProbeParams *p,
                       int sysfs_dirfd, probe_progress_t progress, void *userdata,
                       ProbeRunner **ret);

/* Spawn the helper to remove the write probe's scratch file in dir if it is ours
 * (probe_scratch_remove(), in the helper: an unlink on a hung filesystem blocks the helper, not
 * the caller). Dispatched like a probe, with a deadline of 10 s + grace; its outcome is DONE
 * (removed: it was there and is gone; false: there was none), UNUSABLE (error: -EEXIST a file of
 * that name that is not ours, left alone; -ENOENT no such directory; other -errno), STALLED or
 * FAILED. Returns 0 and a runner, or -errno. */
int probe_runner_start_remove(ProcessReaper *reaper, const char *dir, ProbeRunner **ret);

/* The socket's read end (non-blocking): poll it for input. Owned by the runner. */
int probe_runner_fd(const ProbeRunner *r);
/* The helper's pid, -1 once it was handed to the reaper; the runner reaps it, callers must not. */
pid_t probe_runner_pid(const ProbeRunner *r);
/* CLOCK_MONOTONIC µs at which dispatch must be called even without input. */
usec_t probe_runner_deadline_usec(const ProbeRunner *r);

/* Consume what the child sent, act on the deadline (now_usec, CLOCK_MONOTONIC). Never blocks.
 * Returns 0 while running, 1 once the outcome is final (then probe_runner_outcome() is valid),
 * -errno on internal failure. */
int probe_runner_dispatch(ProbeRunner *r, usec_t now_usec);
/* The outcome; status RUNNING until dispatch returned 1. Owned by the runner. */
const ProbeRunnerOutcome *probe_runner_outcome(const ProbeRunner *r);

/* Start and dispatch until final, waiting in poll() at most until the deadline (bounded: never
 * longer than p->timeout_usec + PROBE_RUNNER_GRACE_USEC plus a 1 s exit grace). Copies the
 * outcome into *ret. Returns 0 (see ret->status) or -errno if it could not start. */
int probe_runner_run(ProcessReaper *reaper, const char *path, const ProbeParams *p, int sysfs_dirfd,
                     probe_progress_t progress, void *userdata, ProbeRunnerOutcome *ret);

/* Kills the child if still running and hands it to the reaper unless its exit was already
 * collected. Accepts NULL, returns NULL. */
ProbeRunner *probe_runner_free(ProbeRunner *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(ProbeRunner *, probe_runner_free);

/* The helper executable: $STORPULSE_PROBE_HELPER if set (an absolute path), else the one in the
 * build tree when the running program is itself in the build tree, else the installed one in
 * libexecdir. Never NULL. */
const char *probe_runner_helper_path(void);

/* main() of the helper (argv[1] is the target path, the request and the replies go over fd 3,
 * a sysfs directory is fd 4; the probe's buffers follow that sysfs' transparent huge page
 * policy, and without one they use plain pages). Returns the exit status. Only
 * `storpulse-probe` calls this. */
int probe_runner_helper_main(int argc, char *argv[]);

/* SPDX-License-Identifier: MIT */
#pragma once

/* Child processes that inherit nothing and never block their parent.
 *
 * A Process is one exec'd child, addressed by a pidfd: signals go through pidfd_send_signal()
 * and the exit is collected with waitid(P_PIDFD, ..., WNOHANG), so neither can hit a recycled
 * pid. The pidfd polls readable once the child has exited. Nothing here ever waits for a child
 * without a bound: process_try_reap() never blocks, process_wait() polls until a deadline.
 *
 * A ProcessReaper owns children that were told to die but may not have died yet: a process in
 * uninterruptible sleep (D state, e.g. reading a suspended dm device, or waiting in exit_aio()
 * for in-flight AIO) keeps running after SIGKILL until its I/O returns. The reaper tracks any
 * number of them (a growing array, no fixed table), reports them (pid, age) for a status
 * display, and reaps them when they finally exit. It is driven either by a non-blocking sweep
 * (process_reaper_reap()) from an event loop that polls process_reaper_fd() and wakes at
 * process_reaper_next_usec(), or, in a one-shot command, by a bounded process_reaper_settle()
 * before exit, which leaves whatever is still stuck behind instead of hanging. */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "basic/macro.h"
#include "basic/time-util.h"

typedef enum ProcessFlags {
        /* The child leads a new process group. Signals go to the whole group as well, and the
         * group is SIGKILLed when the leader's exit is collected (its unreaped zombie keeps the
         * group id reserved until then), so helpers it forked do not outlive it. */
        PROCESS_NEW_PGROUP = 1 << 0,
} ProcessFlags;

/* Most file descriptors a child can be given (fds[] of process_spawn()). */
#define PROCESS_FDS_MAX 8

/* How a child ended: code is CLD_EXITED (status = exit status) or CLD_KILLED/CLD_DUMPED
 * (status = the signal), as waitid() reports it. */
typedef struct ProcessExit {
        int code;
        int status;
} ProcessExit;

/* True for CLD_EXITED with status 0. */
bool process_exit_ok(const ProcessExit *e) _pure_;

typedef struct Process Process;

/* Exec `path` (no PATH search) with argv (argv[0] included, NULL-terminated) and envp
 * (NULL-terminated; never NULL). The child's fd i is fds[i] for i < n_fds (n_fds <=
 * PROCESS_FDS_MAX); a negative fds[i], and each of 0, 1, 2 not given, is /dev/null. Every other
 * fd is closed in the child (close_range, or a /proc/self/fd walk where it is missing), whatever
 * its CLOEXEC flag; the signal mask is emptied and every signal's disposition reset to
 * SIG_DFL. fds stay owned by the caller. Returns 0 and the child, or -errno (-ENOENT, -EACCES,
 * -ENOEXEC... when the exec itself failed: no child is left behind then). */
int process_spawn(const char *path, char *const argv[], char *const envp[], const int fds[],
                  size_t n_fds, ProcessFlags flags, Process **ret);

pid_t process_pid(const Process *p) _pure_;
/* The pidfd (owned by p, CLOEXEC): polls readable (POLLIN) once the child has exited. -EBADF
 * where the kernel (or a seccomp filter, or valgrind) has no pidfd_open(): p then works by pid. */
int process_pidfd(const Process *p) _pure_;
/* True once the exit has been collected; process_exit() is valid then. */
bool process_reaped(const Process *p) _pure_;
const ProcessExit *process_exit(const Process *p) _pure_;

/* Send `sig` through the pidfd (and to the group with PROCESS_NEW_PGROUP). Returns 0, -ESRCH if
 * the exit was already collected, or -errno. */
int process_signal(Process *p, int sig);

/* Collect the exit if the child has exited, never blocking (waitid(P_PIDFD, WNOHANG)). Returns 1
 * (exited; also on later calls) with *ret_exit filled if not NULL, 0 while it runs, or -errno. */
int process_try_reap(Process *p, ProcessExit *ret_exit);

/* Poll the pidfd until the child exits or `deadline_usec` (CLOCK_MONOTONIC; USEC_INFINITY
 * waits for ever) passes, then collect the exit. Returns 1 (exited) with *ret_exit filled if not
 * NULL, 0 at the deadline, or -errno. For worker threads and one-shot commands. */
int process_wait(Process *p, usec_t deadline_usec, ProcessExit *ret_exit);

/* SIGKILLs a child whose exit was not collected and tries once more to collect it; one that is
 * still stuck is then left to init when this process exits. Callers that may outlive such a
 * child hand it to process_reaper_adopt() instead. Accepts NULL, returns NULL. */
Process *process_free(Process *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(Process *, process_free);

typedef struct ProcessReaper ProcessReaper;

/* Called for each child the reaper collects, with its pid, exit and how long it was tracked.
 * Runs inside process_reaper_reap()/settle() with the reaper locked: it must not call back into
 * the reaper. */
typedef void (*process_reaped_t)(pid_t pid, const ProcessExit *e, usec_t tracked_usec,
                                 void *userdata);

/* A new reaper; `reaped` (may be NULL) is told about every child collected. Returns 0 or
 * -errno. */
int process_reaper_new(process_reaped_t reaped, void *userdata, ProcessReaper **ret);

/* Take ownership of p and make it die: SIGTERM now and SIGKILL once `grace_usec` has passed
 * (grace_usec 0: SIGKILL now). A child that has already exited is collected at once. Thread
 * safe (a worker may hand over while the main loop sweeps). p is always consumed; returns 0, or
 * -errno from the signal or the tracking allocation (then p has been SIGKILLed and is freed as
 * by process_free()). */
int process_reaper_adopt(ProcessReaper *r, Process *p, usec_t grace_usec);

/* Non-blocking sweep at `now_usec` (CLOCK_MONOTONIC): collects every tracked child that has
 * exited and SIGKILLs those whose grace has passed. Returns how many are still tracked. */
size_t process_reaper_reap(ProcessReaper *r, usec_t now_usec);

/* An epoll fd (owned by the reaper) that polls readable while a tracked child has exited and
 * awaits process_reaper_reap(): an event loop watches it for EPOLLIN (sd_event_add_io()). */
int process_reaper_fd(const ProcessReaper *r) _pure_;
/* CLOCK_MONOTONIC µs of the next SIGKILL due (a grace period ending; or soon, for a child
 * without a pidfd, which the fd cannot signal), or USEC_INFINITY: an event loop arms a timer
 * there and calls process_reaper_reap(). */
usec_t process_reaper_next_usec(ProcessReaper *r);

/* Sweep, polling process_reaper_fd() between sweeps, until nothing is tracked or
 * `deadline_usec` passes. Returns how many are still tracked (children stuck in the kernel that
 * are left behind). For a one-shot command before it exits. */
size_t process_reaper_settle(ProcessReaper *r, usec_t deadline_usec);

typedef struct ProcessReaperEntry {
        pid_t pid;
        bool killed;        /* SIGKILL sent: it is stuck if it is still here */
        usec_t age_usec;    /* since it was adopted */
        usec_t killed_usec; /* since SIGKILL (when killed) */
} ProcessReaperEntry;

/* How many children are tracked. Thread safe. */
size_t process_reaper_count(ProcessReaper *r);
/* A snapshot of the tracked children at `now_usec`, oldest first, for the daemon's status.
 * Returns the count and a malloc'd array (NULL when empty) in *ret, or -ENOMEM. */
int process_reaper_list(ProcessReaper *r, usec_t now_usec, ProcessReaperEntry **ret);

/* Stops tracking (children still stuck are left to init) and frees. Accepts NULL, returns NULL. */
ProcessReaper *process_reaper_free(ProcessReaper *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(ProcessReaper *, process_reaper_free);

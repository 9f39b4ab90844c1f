/* SPDX-License-Identifier: MIT */
/* Child processes: spawn with nothing inherited, signal and reap by pidfd, never block.
 *
 * Spawning uses glibc's posix_spawn() rather than a hand-written fork(): it clones with
 * CLONE_VM|CLONE_VFORK onto a private stack and runs only async-signal-safe code in the child,
 * so it is correct in a multi-threaded parent (libmicrohttpd's threads, worker threads), where
 * after fork() nothing but async-signal-safe calls is allowed; it blocks all signals around the
 * clone so no parent handler runs in the child, and it reports a failed exec to the parent as
 * an error instead of a child that exits 127. Its attributes give everything "inherit nothing"
 * needs: POSIX_SPAWN_SETSIGMASK (empty mask) and POSIX_SPAWN_SETSIGDEF (every signal SIG_DFL,
 * including ignored ones, which exec would keep), POSIX_SPAWN_SETPGROUP, and the file actions
 * dup2 (the wanted fds into 0..n-1) followed by closefrom (close_range(n, ~0U), falling back to
 * a walk of /proc/self/fd where the syscall is missing), which also closes fds that another
 * thread opened without O_CLOEXEC. The wanted fds are first duplicated above n in the parent so
 * the dup2 sequence can never overwrite a source it still needs. stdin and any gap are
 * /dev/null.
 *
 * Where pidfd_open() is missing (Linux < 5.3, a seccomp filter that refuses it, valgrind up to
 * 3.19) a Process falls back to its pid: kill() and waitid(P_PID, WNOHANG) are just as safe on
 * a child not yet reaped, only not pollable, so waits and the reaper then look every
 * PROCESS_POLL_FALLBACK_USEC instead of sleeping on the pidfd.
 *
 * The pidfd comes from pidfd_open() right after posix_spawn() returns. The pid cannot have been
 * recycled in between: it is our own child, not yet reaped, and this module assumes nobody in
 * the process reaps children it did not spawn (no waitpid(-1), no SIGCHLD set to SIG_IGN, which
 * would auto-reap). From then on only the pidfd is used: pidfd_send_signal(), and
 * waitid(P_PIDFD, WEXITED|WNOHANG), so no call here waits for a child without a bound.
 *
 * No PR_SET_PDEATHSIG: it fires when the *thread* that forked exits, not the process, so from a
 * worker thread it kills children at random, and it is not needed: every child we run is bounded
 * by its own means (the probe helper by its own deadline and by noticing its socket's peer
 * close; a vendor CLI writes into a pipe whose reader is gone and dies of SIGPIPE), and a
 * parent that dies leaves its children to init, which reaps them.
 *
 * The reaper keeps children that were told to die (SIGTERM with a grace period, then SIGKILL)
 * until their exit is collected. Their pidfds sit in one epoll fd, so an event loop needs a
 * single io source for any number of them, plus a timer for the next SIGKILL due. A mutex makes
 * adopt/reap/list safe across threads (a worker thread running a vendor CLI hands over a hung
 * one while the main loop sweeps). */

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/pidfd.h>
#include <sys/wait.h>

#include "basic/process.h"

/* How often a child without a pidfd is looked at while waiting for it. */
#define PROCESS_POLL_FALLBACK_USEC (10 * USEC_PER_MSEC)

struct Process {
        pid_t pid;
        int pidfd;
        ProcessFlags flags;
        bool reaped;
        ProcessExit exit;
};

bool process_exit_ok(const ProcessExit *e) {
        return e && e->code == CLD_EXITED && e->status == 0;
}

static void spawn_attr_donep(posix_spawnattr_t *a) {
        (void) posix_spawnattr_destroy(a);
}

static void file_actions_donep(posix_spawn_file_actions_t *fa) {
        (void) posix_spawn_file_actions_destroy(fa);
}

static int spawn_attr_init(posix_spawnattr_t *a, ProcessFlags flags) {
        short f = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
        sigset_t none, all;
        int r;

        (void) sigemptyset(&none);
        /* Every bit, not sigfillset(): that leaves out glibc's internal signals 32 and 33, which
         * posix_spawn() otherwise hands to the child as SIG_IGN, and exec keeps ignored. */
        memset(&all, 0xff, sizeof(all));
        if (flags & PROCESS_NEW_PGROUP)
                f |= POSIX_SPAWN_SETPGROUP;
        r = posix_spawnattr_setflags(a, f);
        if (r == 0)
                r = posix_spawnattr_setsigmask(a, &none);
        if (r == 0)
                r = posix_spawnattr_setsigdefault(a, &all);
        if (r == 0 && (flags & PROCESS_NEW_PGROUP))
                r = posix_spawnattr_setpgroup(a, 0);
        return -r;
}

/* tmp[i] holds a duplicate of fds[i] at or above `floor` (or -EBADF); the caller closes them. */
static int file_actions_init(posix_spawn_file_actions_t *fa, const int fds[], size_t n_fds,
                             int tmp[]) {
        int floor = (int) MAX(n_fds, (size_t) 3), r = 0;

        for (int i = 0; i < floor && r == 0; i++) {
                if ((size_t) i < n_fds && fds[i] >= 0) {
                        tmp[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, floor);
                        if (tmp[i] < 0)
                                return -errno;
                        r = posix_spawn_file_actions_adddup2(fa, tmp[i], i);
                } else
                        r = posix_spawn_file_actions_addopen(fa, i, "/dev/null", O_RDWR, 0);
        }
        if (r == 0)
                r = posix_spawn_file_actions_addclosefrom_np(fa, floor);
        return -r;
}

static int spawn_pid(const char *path, char *const argv[], char *const envp[], const int fds[],
                     size_t n_fds, ProcessFlags flags, pid_t *ret) {
        _cleanup_(spawn_attr_donep) posix_spawnattr_t attr;
        _cleanup_(file_actions_donep) posix_spawn_file_actions_t fa;
        int tmp[PROCESS_FDS_MAX] = { [0 ... PROCESS_FDS_MAX - 1] = -EBADF };
        int r;

        /* Neither init can fail on glibc; both must have run before the cleanups can. */
        (void) posix_spawnattr_init(&attr);
        (void) posix_spawn_file_actions_init(&fa);
        r = spawn_attr_init(&attr, flags);
        if (r >= 0)
                r = file_actions_init(&fa, fds, n_fds, tmp);
        if (r >= 0)
                r = -posix_spawn(ret, path, &fa, &attr, argv, envp);
        for (size_t i = 0; i < ELEMENTSOF(tmp); i++)
                (void) safe_close(tmp[i]);
        return r;
}

int process_spawn(const char *path, char *const argv[], char *const envp[], const int fds[],
                  size_t n_fds, ProcessFlags flags, Process **ret) {
        _cleanup_free_ Process *p = NULL;
        pid_t pid;
        int r;

        if (!path || !argv || !argv[0] || !envp || (n_fds > 0 && !fds) || n_fds > PROCESS_FDS_MAX ||
            !ret)
                return -EINVAL;
        /* An early, clear error. posix_spawn() reports a failed exec too, but not everywhere:
         * valgrind runs its vfork as a plain fork, and the exec error becomes an exit 127. */
        if (access(path, X_OK) < 0)
                return -errno;
        p = calloc(1, sizeof(*p));
        if (!p)
                return -ENOMEM;
        r = spawn_pid(path, argv, envp, fds, n_fds, flags, &pid);
        if (r < 0)
                return r;

        p->pid = pid;
        p->flags = flags;
        p->pidfd = pidfd_open(pid, 0);
        if (p->pidfd < 0 && errno != ENOSYS && errno != EPERM) {
                r = -errno;
                (void) kill(pid, SIGKILL); /* still our unreaped child: the pid is its own */
                return r;
        }
        *ret = TAKE_PTR(p);
        return 0;
}

pid_t process_pid(const Process *p) {
        return p ? p->pid : -1;
}

int process_pidfd(const Process *p) {
        return p ? p->pidfd : -EBADF;
}

bool process_reaped(const Process *p) {
        return p && p->reaped;
}

const ProcessExit *process_exit(const Process *p) {
        return p && p->reaped ? &p->exit : NULL;
}

int process_signal(Process *p, int sig) {
        if (!p)
                return -EINVAL;
        if (p->reaped)
                return -ESRCH;
        /* The leader is unreaped, so its pgid cannot have been reused. */
        if (p->flags & PROCESS_NEW_PGROUP)
                (void) kill(-p->pid, sig);
        if (p->pidfd < 0)
                return RET_NERRNO(kill(p->pid, sig));
        return RET_NERRNO(pidfd_send_signal(p->pidfd, sig, NULL, 0));
}

static int waitid_nohang(const Process *p, int extra, siginfo_t *si) {
        idtype_t type = p->pidfd >= 0 ? P_PIDFD : P_PID;
        id_t id = p->pidfd >= 0 ? (id_t) p->pidfd : (id_t) p->pid;

        for (;;) {
                *si = (siginfo_t){};
                if (waitid(type, id, si, WEXITED | WNOHANG | extra) >= 0)
                        return si->si_pid != 0;
                if (errno != EINTR)
                        return -errno;
        }
}

int process_try_reap(Process *p, ProcessExit *ret_exit) {
        siginfo_t si;
        int r;

        if (!p)
                return -EINVAL;
        if (!p->reaped) {
                if (p->flags & PROCESS_NEW_PGROUP) {
                        /* Look without reaping: while the zombie leader exists its group id is
                         * reserved, so the group kill cannot hit a stranger. */
                        r = waitid_nohang(p, WNOWAIT, &si);
                        if (r <= 0)
                                return r;
                        (void) kill(-p->pid, SIGKILL);
                }
                r = waitid_nohang(p, 0, &si);
                if (r <= 0)
                        return r;
                p->reaped = true;
                p->exit = (ProcessExit){ .code = si.si_code, .status = si.si_status };
                p->pidfd = safe_close(p->pidfd);
        }
        if (ret_exit)
                *ret_exit = p->exit;
        return 1;
}

static int poll_ms(usec_t deadline_usec, usec_t now_usec) {
        if (deadline_usec == USEC_INFINITY)
                return -1;
        if (deadline_usec <= now_usec)
                return 0;
        return (int) MIN((deadline_usec - now_usec + USEC_PER_MSEC - 1) / USEC_PER_MSEC,
                         (usec_t) INT32_MAX);
}

int process_wait(Process *p, usec_t deadline_usec, ProcessExit *ret_exit) {
        if (!p)
                return -EINVAL;
        for (;;) {
                struct pollfd pfd = { .fd = p->pidfd, .events = POLLIN };
                usec_t t, wake;
                int r;

                r = process_try_reap(p, ret_exit);
                if (r != 0)
                        return r;
                t = now(CLOCK_MONOTONIC);
                if (t >= deadline_usec)
                        return 0;
                /* Without a pidfd nothing wakes us: look again soon. */
                wake = p->pidfd >= 0 ? deadline_usec
                                     : MIN(deadline_usec, t + PROCESS_POLL_FALLBACK_USEC);
                if (poll(p->pidfd >= 0 ? &pfd : NULL, p->pidfd >= 0, poll_ms(wake, t)) < 0 &&
                    errno != EINTR)
                        return -errno;
        }
}

Process *process_free(Process *p) {
        if (!p)
                return NULL;
        if (!p->reaped) {
                (void) process_signal(p, SIGKILL);
                (void) process_try_reap(p, NULL);
        }
        p->pidfd = safe_close(p->pidfd);
        free(p);
        return NULL;
}

/* ---- reaper ---- */

typedef struct Tracked {
        Process *process;
        usec_t adopted_usec;
        usec_t kill_usec;   /* SIGKILL due at; USEC_INFINITY once sent */
        usec_t killed_usec; /* when SIGKILL was sent */
} Tracked;

struct ProcessReaper {
        pthread_mutex_t lock;
        int epoll_fd;
        Tracked *tracked;
        size_t n, n_allocated;
        process_reaped_t reaped;
        void *userdata;
};

int process_reaper_new(process_reaped_t reaped, void *userdata, ProcessReaper **ret) {
        ProcessReaper *r;

        if (!ret)
                return -EINVAL;
        r = calloc(1, sizeof(*r));
        if (!r)
                return -ENOMEM;
        r->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
        if (r->epoll_fd < 0) {
                int e = -errno;

                free(r);
                return e;
        }
        (void) pthread_mutex_init(&r->lock, NULL);
        r->reaped = reaped;
        r->userdata = userdata;
        *ret = r;
        return 0;
}

static void kill_now(Tracked *t, usec_t now_usec) {
        (void) process_signal(t->process, SIGKILL);
        t->kill_usec = USEC_INFINITY;
        t->killed_usec = now_usec;
}

/* With r->lock held. Compacts the array in place, keeping adoption order. */
static size_t sweep_locked(ProcessReaper *r, usec_t now_usec) {
        size_t j = 0;

        for (size_t i = 0; i < r->n; i++) {
                Tracked *t = &r->tracked[i];
                int pidfd = process_pidfd(t->process);
                ProcessExit e;
                int k;

                k = process_try_reap(t->process, &e);
                if (k == 0) {
                        if (now_usec >= t->kill_usec)
                                kill_now(t, now_usec);
                        r->tracked[j++] = *t;
                        continue;
                }
                /* Exited (or not ours to wait for any more, -ECHILD): stop tracking. The pidfd
                 * was closed by the reap, which also took it out of the epoll set. */
                if (k < 0 && pidfd >= 0)
                        (void) epoll_ctl(r->epoll_fd, EPOLL_CTL_DEL, pidfd, NULL);
                if (k > 0 && r->reaped)
                        r->reaped(process_pid(t->process), &e,
                                  now_usec > t->adopted_usec ? now_usec - t->adopted_usec : 0,
                                  r->userdata);
                t->process = process_free(t->process);
        }
        r->n = j;
        return j;
}

int process_reaper_adopt(ProcessReaper *r, Process *p, usec_t grace_usec) {
        usec_t t = now(CLOCK_MONOTONIC);
        Tracked *slot;
        int k;

        if (!r || !p) {
                (void) process_free(p);
                return -EINVAL;
        }
        if (p->reaped) {
                (void) process_free(p);
                return 0;
        }
        (void) pthread_mutex_lock(&r->lock);
        if (r->n == r->n_allocated) {
                size_t na = MAX(r->n_allocated * 2, (size_t) 16);
                Tracked *nt = reallocarray(r->tracked, na, sizeof(*nt));

                if (!nt) {
                        (void) pthread_mutex_unlock(&r->lock);
                        (void) process_free(p);
                        return -ENOMEM;
                }
                r->tracked = nt;
                r->n_allocated = na;
        }
        if (p->pidfd >= 0 && epoll_ctl(r->epoll_fd, EPOLL_CTL_ADD, p->pidfd,
                                       &(struct epoll_event){ .events = EPOLLIN }) < 0) {
                k = -errno;
                (void) pthread_mutex_unlock(&r->lock);
                (void) process_free(p);
                return k;
        }
        slot = &r->tracked[r->n++];
        *slot = (Tracked){ .process = p, .adopted_usec = t, .kill_usec = USEC_INFINITY };
        if (grace_usec == 0)
                kill_now(slot, t);
        else {
                (void) process_signal(p, SIGTERM);
                slot->kill_usec =
                        grace_usec > USEC_INFINITY - t - 1 ? USEC_INFINITY - 1 : t + grace_usec;
        }
        (void) sweep_locked(r, t);
        (void) pthread_mutex_unlock(&r->lock);
        return 0;
}

size_t process_reaper_reap(ProcessReaper *r, usec_t now_usec) {
        size_t n;

        if (!r)
                return 0;
        (void) pthread_mutex_lock(&r->lock);
        n = sweep_locked(r, now_usec);
        (void) pthread_mutex_unlock(&r->lock);
        return n;
}

int process_reaper_fd(const ProcessReaper *r) {
        return r ? r->epoll_fd : -EBADF;
}

usec_t process_reaper_next_usec(ProcessReaper *r) {
        usec_t next = USEC_INFINITY;

        if (!r)
                return next;
        (void) pthread_mutex_lock(&r->lock);
        for (size_t i = 0; i < r->n; i++) {
                next = MIN(next, r->tracked[i].kill_usec);
                if (process_pidfd(r->tracked[i].process) < 0)
                        next = MIN(next, now(CLOCK_MONOTONIC) + PROCESS_POLL_FALLBACK_USEC);
        }
        (void) pthread_mutex_unlock(&r->lock);
        return next;
}

size_t process_reaper_settle(ProcessReaper *r, usec_t deadline_usec) {
        for (;;) {
                struct pollfd pfd = { .fd = process_reaper_fd(r), .events = POLLIN };
                usec_t t = now(CLOCK_MONOTONIC);
                size_t n = process_reaper_reap(r, t);

                if (n == 0 || t >= deadline_usec)
                        return n;
                (void) poll(&pfd, 1, poll_ms(MIN(deadline_usec, process_reaper_next_usec(r)), t));
        }
}

size_t process_reaper_count(ProcessReaper *r) {
        size_t n;

        if (!r)
                return 0;
        (void) pthread_mutex_lock(&r->lock);
        n = r->n;
        (void) pthread_mutex_unlock(&r->lock);
        return n;
}

static usec_t since(usec_t now_usec, usec_t then_usec) {
        return now_usec > then_usec ? now_usec - then_usec : 0;
}

int process_reaper_list(ProcessReaper *r, usec_t now_usec, ProcessReaperEntry **ret) {
        ProcessReaperEntry *l = NULL;
        size_t n;

        if (!r || !ret)
                return -EINVAL;
        (void) pthread_mutex_lock(&r->lock);
        n = r->n;
        if (n > 0) {
                l = calloc(n, sizeof(*l));
                if (!l) {
                        (void) pthread_mutex_unlock(&r->lock);
                        return -ENOMEM;
                }
        }
        for (size_t i = 0; i < n; i++) {
                const Tracked *t = &r->tracked[i];

                l[i] = (ProcessReaperEntry){
                        .pid = process_pid(t->process),
                        .killed = t->kill_usec == USEC_INFINITY,
                        .age_usec = since(now_usec, t->adopted_usec),
                        .killed_usec =
                                t->kill_usec == USEC_INFINITY ? since(now_usec, t->killed_usec) : 0,
                };
        }
        (void) pthread_mutex_unlock(&r->lock);
        *ret = l;
        return (int) MIN(n, (size_t) INT32_MAX);
}

ProcessReaper *process_reaper_free(ProcessReaper *r) {
        if (!r)
                return NULL;
        for (size_t i = 0; i < r->n; i++) {
                Process *p = r->tracked[i].process;

                /* Still stuck: drop our handle only; init reaps it once we exit. */
                p->pidfd = safe_close(p->pidfd);
                free(p);
        }
        free(r->tracked);
        (void) safe_close(r->epoll_fd);
        (void) pthread_mutex_destroy(&r->lock);
        free(r);
        return NULL;
}

/* SPDX-License-Identifier: MIT */
/* Probe runner: one forked child per probe, results through a pipe, the parent never blocks.
 * The child opens the target (open() of a block node can itself hang), checks the parameters
 * against it, runs probe_run() over the libaio engine and writes framed messages: TARGET
 * (refusal or description), PROGRESS (throttled by probe.c), RESULT. The parent reads the pipe
 * non-blocking into a fixed buffer sized for the largest message and enforces a deadline of
 * timeout + PROBE_RUNNER_GRACE_USEC. A child that reported a stalled probe, or that is silent at
 * the deadline, is SIGKILLed; it may not die until its I/O returns (exit_aio() waits), so it is
 * reaped with WNOHANG only, and remembered in a small table for probe_runner_reap_stale().
 * After a normal result the parent waits (bounded) for the pipe's EOF, i.e. the child's exit,
 * so a one-shot CLI does not leave children behind. The child uses fork() without exec and then
 * only malloc (glibc keeps it usable after fork() even in a threaded parent), libaio and write():
 * no stdio, no locks of the parent's other threads. */

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <linux/ioprio.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "probe/probe-engine.h"
#include "probe/probe-runner.h"

typedef enum MsgType {
        MSG_TARGET = 1,
        MSG_PROGRESS,
        MSG_RESULT,
} MsgType;

typedef struct MsgHeader {
        uint32_t type;
        uint32_t size;
} MsgHeader;

typedef struct MsgTarget {
        int error;     /* refusal, or 0 */
        int bad_param; /* ProbeParam, or -1 */
        ProbeTargetInfo info;
} MsgTarget;

typedef struct MsgResult {
        int error; /* probe_run() failure, or 0 */
        ProbeResult result;
} MsgResult;

#define MSG_MAX_PAYLOAD MAX(sizeof(MsgResult), MAX(sizeof(MsgTarget), sizeof(ProbeProgress)))
#define EXIT_GRACE_USEC (1 * USEC_PER_SEC)

struct ProbeRunner {
        pid_t pid;
        bool reaped;
        int fd;
        usec_t deadline_usec;
        usec_t exit_deadline_usec; /* after a result: wait this long for the child's exit */
        bool got_result;
        probe_progress_t progress;
        void *userdata;
        ProbeRunnerOutcome outcome;
        size_t buffered;
        uint8_t buffer[sizeof(MsgHeader) + MSG_MAX_PAYLOAD];
};

static const char *const status_table[_PROBE_RUNNER_STATUS_MAX] = {
        [PROBE_RUNNER_RUNNING] = "running",   [PROBE_RUNNER_DONE] = "done",
        [PROBE_RUNNER_UNUSABLE] = "unusable", [PROBE_RUNNER_BAD_PARAM] = "bad-param",
        [PROBE_RUNNER_STALLED] = "stalled",   [PROBE_RUNNER_FAILED] = "failed",
};

const char *probe_runner_status_to_string(ProbeRunnerStatus s) {
        return s >= 0 && s < _PROBE_RUNNER_STATUS_MAX ? status_table[s] : NULL;
}

ProbeRunnerStatus probe_runner_status_from_string(const char *s) {
        if (!s)
                return _PROBE_RUNNER_STATUS_INVALID;
        for (int i = 0; i < _PROBE_RUNNER_STATUS_MAX; i++)
                if (strcmp(s, status_table[i]) == 0)
                        return i;
        return _PROBE_RUNNER_STATUS_INVALID;
}

/* ---- stale children ---- */

static pid_t stale[64];
static unsigned n_stale;

static void remember_stale(pid_t pid) {
        if (waitpid(pid, NULL, WNOHANG) == pid)
                return;
        if (n_stale < ELEMENTSOF(stale))
                stale[n_stale++] = pid;
        /* else: the table is full of children stuck in D state; init reaps it once we exit. */
}

unsigned probe_runner_reap_stale(void) {
        for (unsigned i = 0; i < n_stale;) {
                pid_t r = waitpid(stale[i], NULL, WNOHANG);

                if (r == stale[i] || (r < 0 && errno == ECHILD))
                        stale[i] = stale[--n_stale];
                else
                        i++;
        }
        return n_stale;
}

/* ---- child ---- */

static int write_all(int fd, const void *p, size_t n) {
        const uint8_t *b = p;

        while (n > 0) {
                ssize_t k = write(fd, b, n);

                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                b += k;
                n -= (size_t) k;
        }
        return 0;
}

static int send_msg(int fd, MsgType type, const void *payload, size_t size) {
        MsgHeader h = { .type = type, .size = (uint32_t) size };
        int r;

        r = write_all(fd, &h, sizeof(h));
        if (r < 0)
                return r;
        return write_all(fd, payload, size);
}

static void child_progress(const ProbeProgress *p, void *userdata) {
        int *fd = userdata;

        (void) send_msg(*fd, MSG_PROGRESS, p, sizeof(*p));
}

static void on_alarm(int sig) {
        /* Only interrupts the blocking io_getevents(); probe_run() checks the clock. */
}

_noreturn_ static void child_main(int fd, const char *path, const ProbeParams *p, int sysfs_dirfd) {
        _cleanup_(probe_target_freep) ProbeTarget *t = NULL;
        _cleanup_(probe_engine_freep) ProbeEngine *e = NULL;
        MsgTarget mt = { .bad_param = -1 };
        ProbeParam bad = _PROBE_PARAM_INVALID;
        usec_t alarm_usec = p->timeout_usec + 10 * USEC_PER_MSEC;
        MsgResult *mr;
        int r;

        sigset_t none;

        /* The daemon blocks signals it reads through sd-event; the mask survives fork(). */
        (void) sigemptyset(&none);
        (void) sigprocmask(SIG_SETMASK, &none, NULL);
        (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
        (void) signal(SIGPIPE, SIG_DFL);

        if (p->idle_priority) {
                /* Best effort: a daemon's background probe should yield to real work. */
                (void) setpriority(PRIO_PROCESS, 0, 19);
                (void) syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0,
                               IOPRIO_PRIO_VALUE(IOPRIO_CLASS_IDLE, 0));
        }
        r = probe_target_open(path, sysfs_dirfd, &t);
        if (r < 0) {
                mt.error = r;
                (void) send_msg(fd, MSG_TARGET, &mt, sizeof(mt));
                _exit(0);
        }
        mt.info = t->info;
        if (probe_params_validate_for_target(p, t->info.logical_block_size, &bad) < 0)
                mt.bad_param = bad;
        (void) send_msg(fd, MSG_TARGET, &mt, sizeof(mt));
        if (mt.bad_param >= 0)
                _exit(0);

        mr = calloc(1, sizeof(*mr));
        if (!mr)
                _exit(1);
        /* The deadline arrives as SIGALRM (no SA_RESTART: it interrupts io_getevents()), once
         * just after the probe's own deadline and then every 50 ms, so a wait entered right
         * after a tick is interrupted too; probe_run() then sees the deadline and ends STALLED. */
        r = sigaction(SIGALRM, &(const struct sigaction){ .sa_handler = on_alarm }, NULL);
        if (r >= 0)
                r = setitimer(ITIMER_REAL,
                              &(const struct itimerval){
                                      .it_value = { .tv_sec = (time_t) (alarm_usec / USEC_PER_SEC),
                                                    .tv_usec = (suseconds_t) (alarm_usec %
                                                                              USEC_PER_SEC) },
                                      .it_interval = { .tv_usec = 50000 },
                              },
                              NULL);
        r = r < 0 ? -errno : probe_engine_new_aio(/* signal_deadline= */ true, &e);
        if (r >= 0)
                r = probe_run(e, t->info.size_bytes, t->info.logical_block_size, t->info.mem_align,
                              t->fd, p, child_progress, &fd, &mr->result);
        mr->error = MIN(r, 0);
        (void) send_msg(fd, MSG_RESULT, mr, sizeof(*mr));
        if (r >= 0 && mr->result.state == PROBE_STATE_STALLED)
                /* Reads may still be in flight; freeing the engine (io_destroy) or exiting would
                 * wait for them. The parent kills us; do not pretend to clean up. */
                for (;;)
                        pause();
        free(mr);
        e = probe_engine_free(e);
        _exit(0);
}

/* ---- parent ---- */

int probe_runner_start(const char *path, const ProbeParams *p, int sysfs_dirfd,
                       probe_progress_t progress, void *userdata, ProbeRunner **ret) {
        _cleanup_(probe_runner_freep) ProbeRunner *r = NULL;
        int pipefd[2], k;

        if (!path || !p || !ret)
                return -EINVAL;
        k = probe_params_validate(p, NULL);
        if (k < 0)
                return k;

        r = calloc(1, sizeof(*r));
        if (!r)
                return -ENOMEM;
        r->pid = -1;
        r->fd = -EBADF;
        r->progress = progress;
        r->userdata = userdata;
        r->outcome.status = PROBE_RUNNER_RUNNING;
        r->outcome.bad_param = _PROBE_PARAM_INVALID;

        if (pipe2(pipefd, O_CLOEXEC) < 0)
                return -errno;
        fflush(stdout);
        fflush(stderr);
        r->pid = fork();
        if (r->pid < 0) {
                k = -errno;
                (void) safe_close(pipefd[0]);
                (void) safe_close(pipefd[1]);
                return k;
        }
        if (r->pid == 0) {
                (void) safe_close(pipefd[0]);
                child_main(pipefd[1], path, p, sysfs_dirfd);
        }
        (void) safe_close(pipefd[1]);
        r->fd = pipefd[0];
        if (fcntl(r->fd, F_SETFL, O_NONBLOCK) < 0)
                return -errno;
        r->deadline_usec = now(CLOCK_MONOTONIC) + p->timeout_usec + PROBE_RUNNER_GRACE_USEC;
        *ret = TAKE_PTR(r);
        return 0;
}

int probe_runner_fd(const ProbeRunner *r) {
        return r ? r->fd : -EBADF;
}

pid_t probe_runner_pid(const ProbeRunner *r) {
        return r ? r->pid : -1;
}

usec_t probe_runner_deadline_usec(const ProbeRunner *r) {
        if (!r)
                return 0;
        return r->got_result ? MIN(r->deadline_usec, r->exit_deadline_usec) : r->deadline_usec;
}

const ProbeRunnerOutcome *probe_runner_outcome(const ProbeRunner *r) {
        return r ? &r->outcome : NULL;
}

static void kill_child(ProbeRunner *r) {
        if (r->pid > 0 && !r->reaped) {
                (void) kill(r->pid, SIGKILL);
                if (waitpid(r->pid, NULL, WNOHANG) == r->pid)
                        r->reaped = true;
        }
}

static void finish(ProbeRunner *r, ProbeRunnerStatus status, int error) {
        /* An outcome already in hand stays (e.g. a result, then the child was slow to exit). */
        if (r->outcome.status == PROBE_RUNNER_RUNNING) {
                r->outcome.status = status;
                r->outcome.error = error;
        }
        r->fd = safe_close(r->fd);
}

/* Handles one complete message. Returns true once the outcome is known. */
static bool handle_msg(ProbeRunner *r, const MsgHeader *h, const void *payload, usec_t now_usec) {
        switch (h->type) {
        case MSG_TARGET: {
                MsgTarget mt;

                if (h->size != sizeof(mt))
                        break;
                memcpy(&mt, payload, sizeof(mt));
                if (mt.error < 0) {
                        r->outcome.status = PROBE_RUNNER_UNUSABLE;
                        r->outcome.error = mt.error;
                        return true;
                }
                r->outcome.have_info = true;
                r->outcome.info = mt.info;
                if (mt.bad_param >= 0) {
                        r->outcome.status = PROBE_RUNNER_BAD_PARAM;
                        r->outcome.bad_param = mt.bad_param;
                        return true;
                }
                return false;
        }
        case MSG_PROGRESS:
                if (h->size != sizeof(ProbeProgress))
                        break;
                memcpy(&r->outcome.last_progress, payload, sizeof(ProbeProgress));
                if (r->progress)
                        r->progress(&r->outcome.last_progress, r->userdata);
                return false;
        case MSG_RESULT: {
                int error;

                if (h->size != sizeof(MsgResult))
                        break;
                memcpy(&error, (const uint8_t *) payload + offsetof(MsgResult, error),
                       sizeof(error));
                if (error < 0) {
                        r->outcome.status = PROBE_RUNNER_FAILED;
                        r->outcome.error = error;
                } else {
                        memcpy(&r->outcome.result,
                               (const uint8_t *) payload + offsetof(MsgResult, result),
                               sizeof(ProbeResult));
                        r->outcome.status = PROBE_RUNNER_DONE;
                }
                return true;
        }
        }
        /* Garbage from our own child: treat as a failure, never trust it further. */
        r->outcome.status = PROBE_RUNNER_FAILED;
        r->outcome.error = -EBADMSG;
        (void) now_usec;
        return true;
}

int probe_runner_dispatch(ProbeRunner *r, usec_t now_usec) {
        if (!r)
                return -EINVAL;
        if (r->fd < 0)
                return 1;

        for (;;) {
                ssize_t n;

                if (r->buffered == sizeof(r->buffer))
                        return finish(r, PROBE_RUNNER_FAILED, -EBADMSG), 1;
                n = read(r->fd, r->buffer + r->buffered, sizeof(r->buffer) - r->buffered);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        if (errno != EAGAIN)
                                return finish(r, PROBE_RUNNER_FAILED, -errno), 1;
                        break;
                }
                if (n == 0) {
                        /* EOF: the child exited (or died). It may not be a zombie yet: if
                         * WNOHANG misses it, probe_runner_free() leaves it to
                         * probe_runner_reap_stale(). */
                        if (r->pid > 0 && waitpid(r->pid, NULL, WNOHANG) == r->pid)
                                r->reaped = true;
                        return finish(r, PROBE_RUNNER_FAILED, -ECHILD), 1;
                }
                r->buffered += (size_t) n;

                /* Parse every complete message in the buffer. */
                for (;;) {
                        MsgHeader h;

                        if (r->buffered < sizeof(h))
                                break;
                        memcpy(&h, r->buffer, sizeof(h));
                        if (h.size > MSG_MAX_PAYLOAD)
                                return finish(r, PROBE_RUNNER_FAILED, -EBADMSG), 1;
                        if (r->buffered < sizeof(h) + h.size)
                                break;
                        if (!r->got_result && handle_msg(r, &h, r->buffer + sizeof(h), now_usec)) {
                                r->got_result = true;
                                r->exit_deadline_usec = now_usec + EXIT_GRACE_USEC;
                                if (r->outcome.status == PROBE_RUNNER_DONE &&
                                    r->outcome.result.state == PROBE_STATE_STALLED) {
                                        kill_child(r);
                                        return finish(r, PROBE_RUNNER_DONE, 0), 1;
                                }
                        }
                        r->buffered -= sizeof(h) + h.size;
                        memmove(r->buffer, r->buffer + sizeof(h) + h.size, r->buffered);
                }
        }

        if (now_usec >= probe_runner_deadline_usec(r)) {
                kill_child(r);
                finish(r, PROBE_RUNNER_STALLED, 0);
                return 1;
        }
        return 0;
}

int probe_runner_run(const char *path, const ProbeParams *p, int sysfs_dirfd,
                     probe_progress_t progress, void *userdata, ProbeRunnerOutcome *ret) {
        _cleanup_(probe_runner_freep) ProbeRunner *r = NULL;
        int k;

        k = probe_runner_start(path, p, sysfs_dirfd, progress, userdata, &r);
        if (k < 0)
                return k;
        for (;;) {
                struct pollfd pfd = { .fd = r->fd, .events = POLLIN };
                usec_t t = now(CLOCK_MONOTONIC), d = probe_runner_deadline_usec(r);
                int timeout_ms = d > t ? (int) MIN((d - t + 999) / 1000, (usec_t) INT32_MAX) : 0;

                k = probe_runner_dispatch(r, t);
                if (k < 0)
                        return k;
                if (k > 0)
                        break;
                if (poll(&pfd, 1, timeout_ms) < 0 && errno != EINTR)
                        return -errno;
        }
        memcpy(ret, &r->outcome, sizeof(*ret));
        return 0;
}

ProbeRunner *probe_runner_free(ProbeRunner *r) {
        if (!r)
                return NULL;
        if (r->pid > 0 && !r->reaped) {
                kill_child(r);
                if (!r->reaped)
                        remember_stale(r->pid);
        }
        r->fd = safe_close(r->fd);
        free(r);
        return NULL;
}

/* SPDX-License-Identifier: MIT */
/* Probe runner: each probe runs in a `storpulse-probe` helper process behind a socket, and the
 * parent never blocks.
 *
 * Why exec a helper instead of running the probe in a forked copy of the caller: the daemon will
 * be multi-threaded (libmicrohttpd's threads, workers), and after fork() in a multi-threaded
 * process only async-signal-safe calls are allowed until exec; the probe needs malloc, libaio and
 * its own timers, none of which is. A forked copy would also carry the daemon's whole state (its
 * heap, its mappings, any lock another thread held at fork time). The helper is a small
 * executable (installed in libexecdir) that starts clean, so the child carries nothing of the
 * daemon; the cost is one exec per probe, which is nothing beside seconds of I/O. The helper is
 * spawned through basic/process (posix_spawn: no fd but its socket, stderr and an optional sysfs
 * dir fd; signal mask and dispositions reset; a pidfd for signals and reaping).
 *
 * The protocol, both sides of which live in this file so they cannot drift apart: the parent
 * writes one REQUEST (the parameters and how to find sysfs; the path is argv[1], visible in ps);
 * the helper opens the target (open() of a block node can itself hang; a write probe's scratch
 * file in the directory argv[1] instead, probe-scratch.h), checks the parameters
 * against it, runs probe_run() over the libaio engine and writes framed messages: TARGET
 * (refusal or description), PROGRESS (throttled by probe.c), RESULT. A request of op REMOVE
 * asks for the scratch file in the directory argv[1] to be removed instead (when it is ours,
 * probe_scratch_remove()), answered by one REMOVED frame: an unlink on a hung filesystem blocks
 * like a read, so the daemon does it here too. Frames carry structs of
 * this build; a request of another layout (a helper from another build) is refused. The
 * parent reads the socket non-blocking into a fixed buffer sized for the largest message and
 * enforces a deadline of timeout + PROBE_RUNNER_GRACE_USEC. A child that reported a stalled
 * probe, or that is silent at the deadline, is SIGKILLed and handed to the caller's
 * ProcessReaper: it may not die until its I/O returns (exit_aio() waits for in-flight AIO), and
 * the reaper collects it whenever it does. After a normal result the parent waits (bounded) for
 * the socket's EOF, i.e. the child's exit, so a one-shot CLI does not leave children behind.
 * The helper lives no longer than its parent wants it: its probe has a deadline, and after a
 * stalled result it waits only until the parent closes its end. */

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/ioprio.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>

#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define MARK_DEFINED(p, n) VALGRIND_MAKE_MEM_DEFINED(p, n)
#else
#define MARK_DEFINED(p, n) ((void) 0)
#endif

#include "config.h"
#include "basic/string-table.h"
#include "probe/probe-engine.h"
#include "probe/probe-runner.h"
#include "probe/probe-sandbox.h"
#include "probe/probe-scratch.h"

typedef enum MsgType {
        MSG_REQUEST = 1,
        MSG_TARGET,
        MSG_PROGRESS,
        MSG_RESULT,
        MSG_REMOVED, /* an int: probe_scratch_remove()'s return */
} MsgType;

typedef struct MsgHeader {
        uint32_t type;
        uint32_t size;
} MsgHeader;

typedef enum SysfsMode {
        SYSFS_NONE,
        SYSFS_FD = 2, /* the helper's fd HELPER_SYSFS_FD (1 was "relative to the cwd": gone) */
} SysfsMode;

typedef enum RequestOp {
        OP_PROBE,
        OP_REMOVE, /* the scratch file of the directory argv[1] */
} RequestOp;

/* "spr2": op was added where "spr1" had padding, which the layout alone would not see. */
#define REQUEST_MAGIC 0x73707232U

typedef struct MsgRequest {
        uint32_t magic;
        uint32_t layout; /* LAYOUT of the sender: the structs below must match */
        uint32_t sysfs;  /* SysfsMode */
        uint32_t op;     /* RequestOp */
        ProbeParams params;
} MsgRequest;

typedef struct MsgTarget {
        int error;     /* refusal, or 0 */
        int bad_param; /* ProbeParam, or -1 */
        ProbeTargetInfo info;
} MsgTarget;

typedef struct MsgResult {
        int error; /* probe_run() failure, or 0 */
        ProbeResult result;
} MsgResult;

/* Any change of a message struct changes this, so two builds that disagree refuse each other. */
#define LAYOUT                                                                                     \
        ((uint32_t) (sizeof(MsgRequest) * 31 + sizeof(MsgTarget) * 17 + sizeof(MsgResult) * 7 +    \
                     sizeof(ProbeProgress)))

#define MSG_MAX_PAYLOAD MAX(sizeof(MsgResult), MAX(sizeof(MsgTarget), sizeof(ProbeProgress)))
/* A removal's whole deadline: one open, one fstat, one unlink. */
#define REMOVE_TIMEOUT_USEC (10 * USEC_PER_SEC)
#define EXIT_GRACE_USEC     (1 * USEC_PER_SEC)

/* The helper's file descriptors: its socket, and the sysfs directory when one is passed. */
#define HELPER_FD       3
#define HELPER_SYSFS_FD 4

static const char *const status_table[_PROBE_RUNNER_STATUS_MAX] = {
        [PROBE_RUNNER_RUNNING] = "running",   [PROBE_RUNNER_DONE] = "done",
        [PROBE_RUNNER_UNUSABLE] = "unusable", [PROBE_RUNNER_BAD_PARAM] = "bad-param",
        [PROBE_RUNNER_STALLED] = "stalled",   [PROBE_RUNNER_FAILED] = "failed",
};

DEFINE_STRING_TABLE_LOOKUP(probe_runner_status, ProbeRunnerStatus, status_table);

/* flags: MSG_NOSIGNAL in the parent, which must survive a helper that died; the helper keeps
 * SIGPIPE, so it dies when its parent is gone. */
static int write_all(int fd, const void *p, size_t n, int flags) {
        const uint8_t *b = p;

        while (n > 0) {
                ssize_t k = send(fd, b, n, flags);

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

static int send_msg_flags(int fd, MsgType type, const void *payload, size_t size, int flags) {
        MsgHeader h = { .type = type, .size = (uint32_t) size };
        int r;

        r = write_all(fd, &h, sizeof(h), flags);
        if (r < 0)
                return r;
        return write_all(fd, payload, size, flags);
}

static int send_msg(int fd, MsgType type, const void *payload, size_t size) {
        return send_msg_flags(fd, type, payload, size, 0);
}

/* ---- helper (the child) ---- */

static int read_all(int fd, void *p, size_t n) {
        uint8_t *b = p;

        while (n > 0) {
                ssize_t k = read(fd, b, n);

                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (k == 0)
                        return -EPIPE;
                b += k;
                n -= (size_t) k;
        }
        return 0;
}

static int read_request(int fd, MsgRequest *ret) {
        MsgHeader h;
        int r;

        r = read_all(fd, &h, sizeof(h));
        if (r < 0)
                return r;
        if (h.type != MSG_REQUEST || h.size != sizeof(*ret))
                return -EPROTO;
        r = read_all(fd, ret, sizeof(*ret));
        if (r < 0)
                return r;
        if (ret->magic != REQUEST_MAGIC || ret->layout != LAYOUT || ret->sysfs > SYSFS_FD ||
            ret->op > OP_REMOVE)
                return -EPROTO;
        return probe_params_validate(&ret->params, NULL) < 0 ? -EPROTO : 0;
}

static void child_progress(const ProbeProgress *p, void *userdata) {
        ProbeProgress q = *p;
        int *fd = userdata;

        q.sent_usec = now(CLOCK_MONOTONIC); /* after the reads it counts were collected */
        (void) send_msg(*fd, MSG_PROGRESS, &q, sizeof(q));
}

static void on_alarm(int sig) {
        /* Only interrupts the blocking io_getevents(); probe_run() checks the clock. */
}

/* The deadline arrives as SIGALRM (no SA_RESTART: it interrupts io_getevents()), once just
 * after the probe's own deadline and then every 50 ms, so a wait entered right after a tick is
 * interrupted too; probe_run() then sees the deadline and ends STALLED. */
static int arm_deadline(usec_t timeout_usec) {
        usec_t alarm_usec = timeout_usec + 10 * USEC_PER_MSEC;
        struct itimerval it = {
                .it_value = { .tv_sec = (time_t) (alarm_usec / USEC_PER_SEC),
                              .tv_usec = (suseconds_t) (alarm_usec % USEC_PER_SEC) },
                .it_interval = { .tv_usec = 50000 },
        };

        if (sigaction(SIGALRM, &(const struct sigaction){ .sa_handler = on_alarm }, NULL) < 0)
                return -errno;
        return RET_NERRNO(setitimer(ITIMER_REAL, &it, NULL));
}

/* After a stalled result reads may still be in flight; exiting waits for them (exit_aio()), so
 * do not pretend to clean up: wait for the parent to close its end (it kills us first, as a
 * rule), then go. */
_noreturn_ static void wait_for_parent_and_exit(int fd) {
        for (;;) {
                char c;
                ssize_t k = read(fd, &c, 1);

                if (k == 0 || (k < 0 && errno != EINTR))
                        _exit(0);
        }
}

/* Everything is open (target, sysfs, the AIO engine's schedstat): give up every privilege before
 * the first read (probe/probe-sandbox.c). STORPULSE_PROBE_TEST_OPEN_AFTER_DROP=1 is a test hook
 * (tests/integration/probe-helper.sh): the helper then tries an open() after the drop, which the
 * filter answers by killing it. Harmless in production: it can only end the helper's own probe. */
static int enter_sandbox(const char *path) {
        const char *hook = secure_getenv("STORPULSE_PROBE_TEST_OPEN_AFTER_DROP");
        bool filtered;
        int r, fd;

        r = probe_sandbox_enter(&filtered);
        if (r < 0) {
                fprintf(stderr, "storpulse-probe: %s: cannot drop privileges (%s), not probing\n",
                        path, strerror(-r));
                return r;
        }
        if (hook && strcmp(hook, "1") == 0) {
                fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                fprintf(stderr, "storpulse-probe: test hook: open() after the drop returned %d%s\n",
                        fd < 0 ? -errno : fd, filtered ? "" : " (no seccomp filter on this arch)");
                if (fd >= 0)
                        (void) close(fd);
        }
        return 0;
}

int probe_runner_helper_main(int argc, char *argv[]) {
        _cleanup_(probe_target_freep) ProbeTarget *t = NULL;
        _cleanup_(probe_engine_freep) ProbeEngine *e = NULL;
        _cleanup_free_ MsgResult *mr = NULL;
        MsgTarget mt = { .bad_param = -1 };
        ProbeParam bad = _PROBE_PARAM_INVALID;
        MsgRequest req;
        int fd = HELPER_FD, sysfs, r;

        if (argc != 2) {
                fprintf(stderr, "storpulse-probe: run by storpulse's probe runner only (usage: "
                                "storpulse-probe PATH, request on fd 3)\n");
                return 2;
        }
        r = read_request(fd, &req);
        if (r < 0) {
                fprintf(stderr, "storpulse-probe: %s: bad request from the parent (%s)%s\n",
                        argv[1], strerror(-r),
                        r == -EPROTO ? ": helper and caller are from different builds?" : "");
                return 2;
        }
        if (req.op == OP_REMOVE) {
                r = probe_scratch_remove(argv[1]);
                return send_msg(fd, MSG_REMOVED, &r, sizeof(r)) < 0;
        }
        sysfs = req.sysfs == SYSFS_FD ? HELPER_SYSFS_FD : -EBADF;
        /* A session of its own, as fio makes for each job: with the kernel's autogroups (on in
         * Debian's kernels) nice ranks a thread only against the others of its session, so a
         * helper left in its caller's session (a shell, a test, a daemon started by hand) at
         * nice 19 lost nearly every wake-up to that session's CPU-bound work, and its QD1
         * latency measured the scheduler (bench/README.md, QD1). Under systemd the daemon is a
         * session of its own already; this makes the figure the same wherever it was started. */
        (void) setsid();
        if (req.params.idle_priority) {
                /* Best effort: a daemon's background probe should yield to real work. */
                (void) setpriority(PRIO_PROCESS, 0, 19);
                (void) syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0,
                               IOPRIO_PRIO_VALUE(IOPRIO_CLASS_IDLE, 0));
        }

        /* A write probe writes only to the scratch file in the directory argv[1]; a read probe
         * opens its target read-only. There is no other way to a writable fd. */
        if (req.params.write)
                r = probe_scratch_open(argv[1], req.params.write_file_bytes, req.params.write_dev,
                                       sysfs, &t);
        else
                r = probe_target_open(argv[1], sysfs, &t);
        if (r < 0) {
                mt.error = r;
                return send_msg(fd, MSG_TARGET, &mt, sizeof(mt)) < 0;
        }
        mt.info = t->info;
        if (probe_params_validate_for_target(&req.params, t->info.logical_block_size, &bad) < 0)
                mt.bad_param = bad;
        r = send_msg(fd, MSG_TARGET, &mt, sizeof(mt));
        if (r < 0 || mt.bad_param >= 0)
                return r < 0;

        mr = calloc(1, sizeof(*mr));
        if (!mr)
                return 1;
        r = arm_deadline(req.params.timeout_usec);
        /* The THP policy for the probe's buffers comes from the same sysfs as the target's. */
        if (r >= 0)
                r = probe_engine_new_aio(/* signal_deadline= */ true, sysfs, &e);
        if (r >= 0)
                r = enter_sandbox(argv[1]);
        if (r >= 0)
                r = probe_run(e, t->info.size_bytes, t->info.logical_block_size, t->info.mem_align,
                              t->fd, &req.params, child_progress, &fd, &mr->result);
        mr->error = MIN(r, 0);
        (void) send_msg(fd, MSG_RESULT, mr, sizeof(*mr));
        if (r >= 0 && mr->result.state == PROBE_STATE_STALLED)
                wait_for_parent_and_exit(fd);
        return 0;
}

/* ---- parent ---- */

struct ProbeRunner {
        Process *process;
        ProcessReaper *reaper;
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

const char *probe_runner_helper_path(void) {
        const char *e = secure_getenv("STORPULSE_PROBE_HELPER");
        char exe[PATH_MAX];
        ssize_t n;

        if (e && e[0] == '/')
                return e;
        /* Run from the build tree (the CLI, the tests, the VM suite): use the helper built
         * beside it, never an installed one of another version. */
        n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
        if (n > 0 && (size_t) n > strlen(BUILD_ROOT "/") &&
            strncmp(exe, BUILD_ROOT "/", strlen(BUILD_ROOT "/")) == 0)
                return PROBE_HELPER_BUILD_PATH;
        return PROBE_HELPER_PATH;
}

static int spawn_helper(const char *path, int sysfs_dirfd, int sock, Process **ret) {
        char *argv[] = { (char *) "storpulse-probe", (char *) path, NULL };
        /* The helper's stderr is ours (if we have one): a crashing helper's last words, or a
         * sanitizer report, belong in the caller's log. */
        int err = fcntl(STDERR_FILENO, F_GETFD) >= 0 ? STDERR_FILENO : -EBADF;
        int fds[] = { -EBADF, -EBADF, err, sock, sysfs_dirfd };

        return process_spawn(probe_runner_helper_path(), argv, environ, fds,
                             sysfs_dirfd >= 0 ? 5 : 4, 0, ret);
}

static int runner_start(ProcessReaper *reaper, const char *path, RequestOp op, const ProbeParams *p,
                        int sysfs_dirfd, probe_progress_t progress, void *userdata,
                        ProbeRunner **ret) {
        _cleanup_(probe_runner_freep) ProbeRunner *r = NULL;
        MsgRequest req;
        int sv[2], k;

        if (!reaper || !path || !p || !ret)
                return -EINVAL;
        k = probe_params_validate(p, NULL);
        if (k < 0)
                return k;
        memset(&req, 0, sizeof(req));
        req.magic = REQUEST_MAGIC;
        req.layout = LAYOUT;
        req.sysfs = sysfs_dirfd >= 0 ? SYSFS_FD : SYSFS_NONE;
        req.op = op;
        memcpy(&req.params, p, sizeof(req.params));
        /* The caller's padding bytes come along undefined; nobody reads them. */
        MARK_DEFINED(&req, sizeof(req));

        r = calloc(1, sizeof(*r));
        if (!r)
                return -ENOMEM;
        r->reaper = reaper;
        r->fd = -EBADF;
        r->progress = progress;
        r->userdata = userdata;
        r->outcome.status = PROBE_RUNNER_RUNNING;
        r->outcome.bad_param = _PROBE_PARAM_INVALID;
        r->outcome.last_progress.phase = _PROBE_PHASE_INVALID; /* no report yet */

        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
                return -errno;
        r->fd = sv[0];
        k = spawn_helper(path, sysfs_dirfd, sv[1], &r->process);
        (void) safe_close(sv[1]);
        if (k < 0)
                return k;
        /* Small enough for the socket buffer: this write does not wait for the child. */
        k = send_msg_flags(r->fd, MSG_REQUEST, &req, sizeof(req), MSG_NOSIGNAL);
        if (k < 0)
                return k;
        if (fcntl(r->fd, F_SETFL, O_NONBLOCK) < 0)
                return -errno;
        r->deadline_usec = now(CLOCK_MONOTONIC) + p->timeout_usec + PROBE_RUNNER_GRACE_USEC;
        *ret = TAKE_PTR(r);
        return 0;
}

int probe_runner_start(ProcessReaper *reaper, const char *path, const ProbeParams *p,
                       int sysfs_dirfd, probe_progress_t progress, void *userdata,
                       ProbeRunner **ret) {
        return runner_start(reaper, path, OP_PROBE, p, sysfs_dirfd, progress, userdata, ret);
}

int probe_runner_start_remove(ProcessReaper *reaper, const char *dir, ProbeRunner **ret) {
        ProbeParams p = PROBE_PARAMS_DEFAULT;

        p.write = true;
        p.timeout_usec = REMOVE_TIMEOUT_USEC;
        return runner_start(reaper, dir, OP_REMOVE, &p, -EBADF, NULL, NULL, ret);
}

int probe_runner_fd(const ProbeRunner *r) {
        return r ? r->fd : -EBADF;
}

pid_t probe_runner_pid(const ProbeRunner *r) {
        return r ? process_pid(r->process) : -1;
}

usec_t probe_runner_deadline_usec(const ProbeRunner *r) {
        if (!r)
                return 0;
        return r->got_result ? MIN(r->deadline_usec, r->exit_deadline_usec) : r->deadline_usec;
}

const ProbeRunnerOutcome *probe_runner_outcome(const ProbeRunner *r) {
        return r ? &r->outcome : NULL;
}

/* SIGKILL and hand over: the reaper collects the child whenever its I/O lets it die. */
static void kill_child(ProbeRunner *r) {
        if (r->process)
                (void) process_reaper_adopt(r->reaper, TAKE_PTR(r->process), 0);
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
        case MSG_REMOVED: {
                int removed;

                if (h->size != sizeof(removed))
                        break;
                memcpy(&removed, payload, sizeof(removed));
                r->outcome.status = removed < 0 ? PROBE_RUNNER_UNUSABLE : PROBE_RUNNER_DONE;
                r->outcome.error = MIN(removed, 0);
                r->outcome.removed = removed > 0;
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
                         * this misses it, probe_runner_free() hands it to the reaper. */
                        if (r->process)
                                (void) process_try_reap(r->process, NULL);
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

int probe_runner_run(ProcessReaper *reaper, const char *path, const ProbeParams *p, int sysfs_dirfd,
                     probe_progress_t progress, void *userdata, ProbeRunnerOutcome *ret) {
        _cleanup_(probe_runner_freep) ProbeRunner *r = NULL;
        int k;

        k = probe_runner_start(reaper, path, p, sysfs_dirfd, progress, userdata, &r);
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
        /* A child that exited has been collected; any other is killed and left to the reaper. */
        if (r->process && !process_reaped(r->process))
                kill_child(r);
        r->process = process_free(r->process);
        r->fd = safe_close(r->fd);
        free(r);
        return NULL;
}

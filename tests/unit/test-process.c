/* SPDX-License-Identifier: MIT */
/* basic/process with real processes. The children are this program itself, re-exec'd with a
 * mode in argv[1] (report what it inherited, ignore SIGTERM, exit N), and /bin/sleep.
 *
 * "Killed but not dead yet" is modelled on the host with the cgroup v1 freezer: a task in a
 * FROZEN cgroup sits in the refrigerator in uninterruptible sleep (ps shows D); SIGKILL does not
 * wake it, so it cannot die until the cgroup is thawed, just as a reader of a suspended dm device
 * cannot die until the device is resumed (that case itself runs in the VM test bed, scenario
 * process-dm-stuck). SIGSTOP would not do: a stopped task dies at once on SIGKILL. Without a
 * freezer hierarchy (no root, or no cgroup v1 freezer to mount) those checks are skipped, loudly.
 * Nothing here asserts a duration. */

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <systemd/sd-event.h>
#include <unistd.h>

#include "basic/process.h"
#include "tap.h"

static char self[4096];
/* Valgrind 3.19 has no pidfd_open(): processes work by pid there, and the checks on pidfd
 * polling are void; said in the output. */
static bool valgrind, have_pidfd = true;

/* ---- child modes ---- */

static int child_report(void) {
        char line[256], buf[64];
        DIR *d = opendir("/proc/self/fd");
        FILE *f;
        struct dirent *de;
        ssize_t n;

        if (!d)
                return 1;
        printf("fds");
        while ((de = readdir(d)))
                if (de->d_name[0] != '.' && atoi(de->d_name) != dirfd(d))
                        printf(" %s", de->d_name);
        printf("\n");
        closedir(d);
        f = fopen("/proc/self/status", "re");
        if (!f)
                return 1;
        while (fgets(line, sizeof(line), f))
                if (strncmp(line, "SigBlk:", 7) == 0 || strncmp(line, "SigIgn:", 7) == 0)
                        fputs(line, stdout);
        fclose(f);
        for (int fd = 0; fd < 4; fd++) {
                char p[32];

                (void) snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
                n = readlink(p, buf, sizeof(buf) - 1);
                buf[n > 0 ? n : 0] = 0;
                printf("fd%d %s\n", fd, buf);
        }
        return fflush(stdout) == 0 ? 0 : 1;
}

static int child_ignore_term(void) {
        if (sigaction(SIGTERM, &(const struct sigaction){ .sa_handler = SIG_IGN }, NULL) < 0)
                return 1;
        if (write(STDOUT_FILENO, "ready\n", 6) != 6)
                return 1;
        for (;;)
                pause();
}

static int child_main(int argc, char **argv) {
        if (strcmp(argv[1], "report") == 0)
                return child_report();
        if (strcmp(argv[1], "ignore-term") == 0)
                return child_ignore_term();
        if (strcmp(argv[1], "exit") == 0 && argc > 2)
                return atoi(argv[2]);
        return 100;
}

/* ---- helpers ---- */

static char *const empty_env[] = { NULL };

static int spawn_self(const char *mode, const char *arg, int out_fd, Process **ret) {
        char *argv[] = { (char *) "test-process", (char *) mode, (char *) arg, NULL };

        return process_spawn(self, argv, empty_env, (const int[]){ -EBADF, out_fd }, 2, 0, ret);
}

static int spawn_sleep(Process **ret) {
        char *argv[] = { (char *) "sleep", (char *) "1000", NULL };

        return process_spawn("/bin/sleep", argv, empty_env, NULL, 0, 0, ret);
}

/* Read until EOF or `want` appears, at most 30 s. */
static size_t read_bounded(int fd, char *buf, size_t size, const char *want) {
        usec_t deadline = now(CLOCK_MONOTONIC) + 30 * USEC_PER_SEC;
        size_t n = 0;

        while (n + 1 < size && now(CLOCK_MONOTONIC) < deadline) {
                struct pollfd pfd = { .fd = fd, .events = POLLIN };
                ssize_t k;

                if (poll(&pfd, 1, 1000) <= 0)
                        continue;
                k = read(fd, buf + n, size - 1 - n);
                if (k <= 0)
                        break;
                n += (size_t) k;
                buf[n] = 0;
                if (want && strstr(buf, want))
                        break;
        }
        buf[n] = 0;
        return n;
}

static char proc_state(pid_t pid) {
        char p[64], buf[512], *c;
        int fd;
        ssize_t n;

        (void) snprintf(p, sizeof(p), "/proc/%d/stat", (int) pid);
        fd = open(p, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return '-';
        n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (n <= 0)
                return '-';
        buf[n] = 0;
        c = strrchr(buf, ')');
        return c && c[1] == ' ' ? c[2] : '?';
}

typedef struct Reaped {
        size_t n;
        pid_t pids[256];
        ProcessExit exits[256];
} Reaped;

static void on_reaped(pid_t pid, const ProcessExit *e, usec_t tracked_usec, void *userdata) {
        Reaped *r = userdata;

        if (r->n < ELEMENTSOF(r->pids)) {
                r->pids[r->n] = pid;
                r->exits[r->n] = *e;
        }
        r->n++;
}

static size_t count_killed_by(const Reaped *r, int sig) {
        size_t n = 0;

        for (size_t i = 0; i < MIN(r->n, ELEMENTSOF(r->pids)); i++)
                n += r->exits[i].code == CLD_KILLED && r->exits[i].status == sig;
        return n;
}

/* Sweep whenever the reaper's fd says so until at most `want` are tracked (at most 30 s). */
static void reap_until(ProcessReaper *r, size_t want) {
        usec_t deadline = now(CLOCK_MONOTONIC) + 30 * USEC_PER_SEC;

        while (process_reaper_reap(r, now(CLOCK_MONOTONIC)) > want &&
               now(CLOCK_MONOTONIC) < deadline)
                (void) poll(&(struct pollfd){ .fd = process_reaper_fd(r), .events = POLLIN }, 1,
                            1000);
}

/* ---- tests ---- */

static void test_exec_failure(void) {
        char *argv[] = { (char *) "nope", NULL };
        Process *p = NULL;
        siginfo_t si = {};

        is_int(process_spawn("/nonexistent/nope", argv, empty_env, NULL, 0, 0, &p), -ENOENT,
               "exec failure: the exec's -ENOENT");
        ok(!p, "exec failure: no process");
        ok(waitid(P_ALL, 0, &si, WEXITED | WNOHANG) < 0 && errno == ECHILD,
           "exec failure: no child left behind");
        is_int(process_spawn("/bin/true", argv, NULL, NULL, 0, 0, &p), -EINVAL,
               "envp NULL refused");
}

static void test_exit_status(void) {
        _cleanup_(process_freep) Process *p = NULL, *q = NULL;
        ProcessExit e = {};

        is_int(spawn_self("exit", "7", -EBADF, &p), 0, "exit 7: spawned");
        have_pidfd = process_pidfd(p) >= 0;
        if (!have_pidfd)
                tap_diag("no pidfd_open() here%s: processes work by pid",
                         valgrind ? " (valgrind)" : "");
        ok(process_pid(p) > 0 && (process_pidfd(p) >= 0 || valgrind), "exit 7: pid and pidfd");
        is_int(process_wait(p, now(CLOCK_MONOTONIC) + 30 * USEC_PER_SEC, &e), 1, "exit 7: exited");
        is_int(e.code, CLD_EXITED, "exit 7: CLD_EXITED");
        is_int(e.status, 7, "exit 7: status 7");
        ok(!process_exit_ok(&e), "exit 7: not ok");
        ok(process_reaped(p) && process_exit(p)->status == 7, "exit 7: remembered");
        is_int(process_try_reap(p, NULL), 1, "exit 7: try_reap again still 1");
        is_int(process_signal(p, SIGTERM), -ESRCH, "exit 7: no signal after the reap");

        is_int(spawn_self("exit", "0", -EBADF, &q), 0, "exit 0: spawned");
        is_int(process_wait(q, USEC_INFINITY, &e), 1, "exit 0: exited");
        ok(process_exit_ok(&e), "exit 0: ok");
}

static void test_inherits_nothing(void) {
        _cleanup_(process_freep) Process *p = NULL;
        _cleanup_close_ int leak = -EBADF, zero = -EBADF;
        struct sigaction old_usr2, old_pipe;
        sigset_t block, old_mask;
        int out[2] = { -EBADF, -EBADF }, leak_pipe[2] = { -EBADF, -EBADF };
        char buf[2048], want[256], err_target[128] = "", p2[32];
        ProcessExit e = {};
        ssize_t n;

        /* Everything a careless parent could pass on: fds without O_CLOEXEC, blocked signals,
         * ignored signals. */
        leak = open("/dev/null", O_RDONLY);
        zero = open("/dev/zero", O_RDONLY | O_CLOEXEC);
        ok(leak >= 0 && zero >= 0 && pipe(leak_pipe) == 0 && pipe(out) == 0,
           "inherit: fds without O_CLOEXEC in the parent");
        (void) sigemptyset(&block);
        (void) sigaddset(&block, SIGUSR1);
        (void) sigaddset(&block, SIGTERM);
        (void) sigprocmask(SIG_BLOCK, &block, &old_mask);
        (void) sigaction(SIGUSR2, &(const struct sigaction){ .sa_handler = SIG_IGN }, &old_usr2);
        (void) sigaction(SIGPIPE, &(const struct sigaction){ .sa_handler = SIG_IGN }, &old_pipe);

        /* child fd 1: the pipe, fd 2: /dev/null (not given), fd 3: our stderr (a low source
         * moved up), fd 4 would be /dev/zero but is not asked for. */
        {
                char *argv[] = { (char *) "test-process", (char *) "report", NULL };

                is_int(process_spawn(self, argv, empty_env,
                                     (const int[]){ -EBADF, out[1], -EBADF, STDERR_FILENO }, 4, 0,
                                     &p),
                       0, "inherit: spawned");
        }
        (void) sigprocmask(SIG_SETMASK, &old_mask, NULL);
        (void) sigaction(SIGUSR2, &old_usr2, NULL);
        (void) sigaction(SIGPIPE, &old_pipe, NULL);
        out[1] = safe_close(out[1]);

        (void) read_bounded(out[0], buf, sizeof(buf), NULL);
        tap_diag("child reports:\n%s", buf);
        is_int(process_wait(p, now(CLOCK_MONOTONIC) + 30 * USEC_PER_SEC, &e), 1,
               "inherit: child exited");
        ok(process_exit_ok(&e), "inherit: child exit 0");
        ok(strstr(buf, "fds 0 1 2 3\n") != NULL, "inherit: exactly fds 0 1 2 3 open in the child");
        ok(strstr(buf, "SigBlk:\t0000000000000000\n") != NULL, "inherit: signal mask empty");
        ok(strstr(buf, "SigIgn:\t0000000000000000\n") != NULL, "inherit: no signal ignored");
        ok(strstr(buf, "fd0 /dev/null\n") != NULL, "inherit: stdin is /dev/null");
        ok(strstr(buf, "fd2 /dev/null\n") != NULL, "inherit: an fd not given is /dev/null");
        (void) snprintf(p2, sizeof(p2), "/proc/self/fd/%d", STDERR_FILENO);
        n = readlink(p2, err_target, sizeof(err_target) - 1);
        err_target[n > 0 ? n : 0] = 0;
        (void) snprintf(want, sizeof(want), "fd3 %s\n", err_target);
        ok(n > 0 && strstr(buf, want) != NULL, "inherit: fd 3 is the fd passed (%s)", err_target);

        (void) safe_close(out[0]);
        (void) safe_close(leak_pipe[0]);
        (void) safe_close(leak_pipe[1]);
}

static void test_sigterm_ignored(void) {
        _cleanup_(process_reaper_freep) ProcessReaper *r = NULL;
        _cleanup_free_ ProcessReaperEntry *l = NULL;
        Process *p = NULL, *q = NULL;
        Reaped got = {};
        int out[2];
        char buf[64];
        pid_t pid, qpid;
        usec_t t0;

        is_int(process_reaper_new(on_reaped, &got, &r), 0, "sigterm: reaper");
        ok(pipe2(out, O_CLOEXEC) == 0, "sigterm: pipe");
        is_int(spawn_self("ignore-term", NULL, out[1], &p), 0, "sigterm: spawned");
        out[1] = safe_close(out[1]);
        (void) read_bounded(out[0], buf, sizeof(buf), "ready");
        is_str(buf, "ready\n", "sigterm: child ignores SIGTERM now");
        out[0] = safe_close(out[0]);
        pid = process_pid(p);

        /* A child that honours SIGTERM, beside it. */
        is_int(spawn_sleep(&q), 0, "sigterm: a sleep beside it");
        qpid = process_pid(q);

        /* The grace period is an hour of the reaper's clock, which the test moves by hand. */
        t0 = now(CLOCK_MONOTONIC);
        is_int(process_reaper_adopt(r, p, USEC_PER_SEC * 3600), 0, "sigterm: adopted, SIGTERM");
        is_int(process_reaper_adopt(r, q, USEC_PER_SEC * 3600), 0, "sigterm: sleep adopted");
        reap_until(r, 1);
        is_int(process_reaper_count(r), 1, "sigterm: the sleep died of SIGTERM, one left");
        is_int(got.n, 1, "sigterm: one collected");
        ok(got.n >= 1 && got.pids[0] == qpid && got.exits[0].code == CLD_KILLED &&
                   got.exits[0].status == SIGTERM,
           "sigterm: the sleep, killed by SIGTERM");
        ok(proc_state(pid) != 'Z' && proc_state(pid) != '-', "sigterm: ignorer still alive (%c)",
           proc_state(pid));
        is_int(process_reaper_list(r, now(CLOCK_MONOTONIC), &l), 1, "sigterm: listed");
        ok(l && l[0].pid == pid && !l[0].killed, "sigterm: listed, not SIGKILLed yet");
        ok(!have_pidfd || (process_reaper_next_usec(r) >= t0 + USEC_PER_SEC * 3600 &&
                           process_reaper_next_usec(r) != USEC_INFINITY),
           "sigterm: next SIGKILL due at the end of the grace period");

        is_int(process_reaper_reap(r, t0 + USEC_PER_SEC * 3601), 1, "sigterm: grace over");
        ok(!have_pidfd || process_reaper_next_usec(r) == USEC_INFINITY,
           "sigterm: nothing more due");
        is_int(process_reaper_settle(r, now(CLOCK_MONOTONIC) + 30 * USEC_PER_SEC), 0,
               "sigterm: ignorer collected after SIGKILL");
        ok(got.n == 2 && got.pids[1] == pid && got.exits[1].code == CLD_KILLED &&
                   got.exits[1].status == SIGKILL,
           "sigterm: the ignorer, killed by SIGKILL");
}

static void test_hundred_children(void) {
        _cleanup_(process_reaper_freep) ProcessReaper *r = NULL;
        Reaped got = {};
        size_t spawned = 0;

        is_int(process_reaper_new(on_reaped, &got, &r), 0, "100: reaper");
        for (int i = 0; i < 100; i++) {
                Process *p = NULL;

                if (spawn_sleep(&p) < 0 || process_reaper_adopt(r, p, 0) < 0)
                        break;
                spawned++;
        }
        is_int(spawned, 100, "100: spawned and adopted with SIGKILL");
        is_int(process_reaper_settle(r, now(CLOCK_MONOTONIC) + 60 * USEC_PER_SEC), 0,
               "100: all collected");
        is_int(got.n, 100, "100: 100 reported");
        is_int(count_killed_by(&got, SIGKILL), 100, "100: all killed by SIGKILL");
}

/* ---- 100 stuck children (cgroup v1 freezer) ---- */

static bool freezer_find(char *ret, size_t size) {
        char line[1024];
        FILE *f = fopen("/proc/self/mountinfo", "re");
        bool found = false;

        if (!f)
                return false;
        while (!found && fgets(line, sizeof(line), f)) {
                char mnt[512], fstype[64], *sep = strstr(line, " - ");
                unsigned skip;

                if (!sep || sscanf(line, "%*s %*s %*s %*s %511s %n", mnt, &skip) != 1)
                        continue;
                if (sscanf(sep, " - %63s", fstype) == 1 && strcmp(fstype, "cgroup") == 0 &&
                    strstr(sep, "freezer") && strlen(mnt) < size) {
                        strcpy(ret, mnt);
                        found = true;
                }
        }
        fclose(f);
        return found;
}

static int write_file(const char *path, const char *s) {
        _cleanup_close_ int fd = open(path, O_WRONLY | O_CLOEXEC);
        size_t n = strlen(s);

        if (fd < 0)
                return -errno;
        return write(fd, s, n) == (ssize_t) n ? 0 : -errno;
}

static bool freezer_is(const char *dir, const char *state) {
        char p[600], buf[32] = "";
        _cleanup_close_ int fd = -EBADF;
        ssize_t n;

        (void) snprintf(p, sizeof(p), "%s/freezer.state", dir);
        fd = open(p, O_RDONLY | O_CLOEXEC);
        n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
        buf[n > 0 ? n : 0] = 0;
        return strncmp(buf, state, strlen(state)) == 0;
}

static void test_hundred_stuck(void) {
        _cleanup_(process_reaper_freep) ProcessReaper *r = NULL;
        _cleanup_free_ ProcessReaperEntry *l = NULL;
        char root[512], tmp[] = "/tmp/test-process-freezer-XXXXXX", cg[600], p[700];
        Process *procs[100] = {};
        pid_t pids[100];
        Reaped got = {};
        bool mounted = false, all_d = true, all_listed = true;
        size_t n = 0;
        int k = 0;

        if (!freezer_find(root, sizeof(root))) {
                if (mkdtemp(tmp) && mount("freezer", tmp, "cgroup", 0, "freezer") == 0) {
                        mounted = true;
                        (void) snprintf(root, sizeof(root), "%s", tmp);
                } else {
                        (void) rmdir(tmp);
                        ok(1, "stuck # SKIP no cgroup v1 freezer (needs root): the D-state case "
                              "runs in the VM test bed");
                        return;
                }
        }
        (void) snprintf(cg, sizeof(cg), "%s/storpulse-test-process-%d", root, (int) getpid());
        if (mkdir(cg, 0755) < 0) {
                ok(1, "stuck # SKIP cannot create a freezer cgroup in %s: %m", root);
                goto out_umount;
        }
        is_int(process_reaper_new(on_reaped, &got, &r), 0, "stuck: reaper");
        (void) snprintf(p, sizeof(p), "%s/cgroup.procs", cg);
        for (; n < ELEMENTSOF(pids); n++) {
                char s[32];

                if (spawn_sleep(&procs[n]) < 0)
                        break;
                pids[n] = process_pid(procs[n]);
                (void) snprintf(s, sizeof(s), "%d", (int) pids[n]);
                if (write_file(p, s) < 0) {
                        procs[n] = process_free(procs[n]);
                        break;
                }
        }
        is_int(n, 100, "stuck: 100 children in the freezer cgroup");
        (void) snprintf(p, sizeof(p), "%s/freezer.state", cg);
        is_int(write_file(p, "FROZEN"), 0, "stuck: freezing");
        for (int i = 0; i < 1000 && !freezer_is(cg, "FROZEN"); i++)
                (void) poll(NULL, 0, 10);
        ok(freezer_is(cg, "FROZEN"), "stuck: frozen");

        /* SIGKILL now: none can die while frozen. */
        for (size_t i = 0; i < n; i++)
                k += process_reaper_adopt(r, TAKE_PTR(procs[i]), 0) == 0;
        is_int(k, 100, "stuck: 100 SIGKILLed and adopted");
        is_int(process_reaper_reap(r, now(CLOCK_MONOTONIC)), 100, "stuck: all 100 still tracked");
        ok(!have_pidfd || process_reaper_next_usec(r) == USEC_INFINITY,
           "stuck: no SIGKILL left to send");
        is_int(process_reaper_settle(r, now(CLOCK_MONOTONIC) + 200 * USEC_PER_MSEC), 100,
               "stuck: a bounded settle leaves all 100 behind, without hanging");
        is_int(process_reaper_list(r, now(CLOCK_MONOTONIC), &l), 100, "stuck: 100 listed");
        for (size_t i = 0; i < n && l; i++) {
                all_listed = all_listed && l[i].pid == pids[i] && l[i].killed;
                all_d = all_d && proc_state(pids[i]) == 'D';
        }
        ok(all_listed, "stuck: listed in order, each marked killed");
        ok(all_d, "stuck: every one in uninterruptible sleep (D)");
        is_int(got.n, 0, "stuck: none reported reaped");

        is_int(write_file(p, "THAWED"), 0, "stuck: thawing");
        is_int(process_reaper_settle(r, now(CLOCK_MONOTONIC) + 60 * USEC_PER_SEC), 0,
               "stuck: all collected once released");
        is_int(got.n, 100, "stuck: 100 reported reaped");
        is_int(count_killed_by(&got, SIGKILL), 100, "stuck: all by SIGKILL");

        (void) write_file(p, "THAWED");
        (void) rmdir(cg);
out_umount:
        if (mounted) {
                (void) umount(tmp);
                (void) rmdir(tmp);
        }
}

/* ---- the reaper in an sd-event loop ---- */

typedef struct Loop {
        ProcessReaper *reaper;
        sd_event_source *timer;
} Loop;

static void loop_sweep(Loop *lp, sd_event *e) {
        usec_t next;

        if (process_reaper_reap(lp->reaper, now(CLOCK_MONOTONIC)) == 0) {
                (void) sd_event_exit(e, 0);
                return;
        }
        next = process_reaper_next_usec(lp->reaper);
        if (next == USEC_INFINITY)
                (void) sd_event_source_set_enabled(lp->timer, SD_EVENT_OFF);
        else {
                (void) sd_event_source_set_time(lp->timer, next);
                (void) sd_event_source_set_enabled(lp->timer, SD_EVENT_ONESHOT);
        }
}

static int on_reaper_fd(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        loop_sweep(userdata, sd_event_source_get_event(s));
        return 0;
}

static int on_reaper_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        loop_sweep(userdata, sd_event_source_get_event(s));
        return 0;
}

static int on_safety(sd_event_source *s, uint64_t usec, void *userdata) {
        return sd_event_exit(sd_event_source_get_event(s), -ETIME);
}

static void test_sd_event(void) {
        _cleanup_(process_reaper_freep) ProcessReaper *r = NULL;
        sd_event *e = NULL;
        sd_event_source *io = NULL, *safety = NULL;
        Loop lp = {};
        Reaped got = {};
        int k = 0;

        is_int(process_reaper_new(on_reaped, &got, &r), 0, "sd-event: reaper");
        lp.reaper = r;
        for (int i = 0; i < 3; i++) {
                Process *p = NULL;
                int out[2];
                char buf[16];

                if (pipe2(out, O_CLOEXEC) < 0 || spawn_self("ignore-term", NULL, out[1], &p) < 0)
                        break;
                (void) safe_close(out[1]);
                (void) read_bounded(out[0], buf, sizeof(buf), "ready");
                (void) safe_close(out[0]);
                /* A real grace period: the loop's timer sends the SIGKILL. */
                k += process_reaper_adopt(r, p, 100 * USEC_PER_MSEC) == 0;
        }
        is_int(k, 3, "sd-event: 3 SIGTERM-ignoring children adopted");
        ok(sd_event_new(&e) >= 0, "sd-event: loop");
        ok(sd_event_add_io(e, &io, process_reaper_fd(r), EPOLLIN, on_reaper_fd, &lp) >= 0,
           "sd-event: io source on the reaper fd");
        ok(sd_event_add_time(e, &lp.timer, CLOCK_MONOTONIC, process_reaper_next_usec(r), 0,
                             on_reaper_timer, &lp) >= 0,
           "sd-event: timer at the next SIGKILL");
        ok(sd_event_add_time_relative(e, &safety, CLOCK_MONOTONIC, 60 * USEC_PER_SEC, 0, on_safety,
                                      NULL) >= 0,
           "sd-event: safety exit");
        is_int(sd_event_loop(e), 0, "sd-event: the loop ended because all were collected");
        is_int(process_reaper_count(r), 0, "sd-event: nothing tracked");
        is_int(count_killed_by(&got, SIGKILL), 3, "sd-event: 3 killed by SIGKILL after the grace");
        sd_event_source_unref(io);
        sd_event_source_unref(lp.timer);
        sd_event_source_unref(safety);
        sd_event_unref(e);
}

int main(int argc, char **argv) {
        ssize_t n;

        if (argc > 1)
                return child_main(argc, argv);
        n = readlink("/proc/self/exe", self, sizeof(self) - 1);
        if (n <= 0)
                return tap_skip_all("cannot find this program through /proc/self/exe");
        self[n] = 0;
        valgrind = getenv("LD_PRELOAD") && strstr(getenv("LD_PRELOAD"), "vgpreload");

        test_exec_failure();
        test_exit_status();
        test_inherits_nothing();
        test_sigterm_ignored();
        test_hundred_children();
        test_hundred_stuck();
        test_sd_event();
        return tap_done();
}

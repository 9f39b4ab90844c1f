/* SPDX-License-Identifier: MIT */
/* probe-runner: a real probe of a regular file (random data under /var/tmp, a disk filesystem)
 * in the exec'd storpulse-probe helper, the outcome through its socket; refusals; and the
 * parent's deadline: a child that goes silent (SIGSTOPped here, standing in for one stuck in D
 * state) is killed, reported STALLED and collected by the reaper, and dispatch never blocks; the
 * REMOVE request for a write probe's scratch file. No timing is asserted. */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "probe/probe-engine.h"
#include "probe/probe-runner.h"
#include "probe/probe-scratch.h"
#include "tap.h"
#include "test-files.h"

static ProcessReaper *reaper;

static unsigned progress_calls;
static void on_progress(const ProbeProgress *p, void *userdata) {
        progress_calls++;
}

static ProbeParams small_params(void) {
        ProbeParams p = PROBE_PARAMS_DEFAULT;

        p.seq_bytes = 4 << 20;
        p.seq_block_size = 256 << 10;
        p.rand_count = 200;
        p.rand_deep_queue_depth = 8;
        p.timeout_usec = 60 * USEC_PER_SEC;
        p.seed = 1;
        return p;
}

static void test_regular_file(const char *path) {
        static ProbeRunnerOutcome o;
        ProbeParams p = small_params();
        const ProbeResult *r = &o.result;

        is_int(probe_runner_run(reaper, path, &p, -EBADF, on_progress, NULL, &o), 0, "file: runs");
        is_str(probe_runner_status_to_string(o.status), "done", "file: done");
        is_int(r->state, PROBE_STATE_OK, "file: state ok");
        ok(o.have_info && o.info.kind == PROBE_TARGET_FILE, "file: described as a file");
        is_u64(o.info.size_bytes, 8 << 20, "file: size");
        is_u64(r->phases[PROBE_PHASE_SEQUENTIAL].bytes, 4 << 20, "file: 4 MiB read sequentially");
        ok(probe_phase_bytes_per_second(&r->phases[PROBE_PHASE_SEQUENTIAL]) > 0, "file: bytes/s");
        is_u64(r->phases[PROBE_PHASE_RANDOM].ios, 200, "file: 200 random reads at QD1");
        is_u64(r->phases[PROBE_PHASE_RANDOM_DEEP].ios, 200, "file: 200 random reads at QD8");
        is_u64(r->phases[PROBE_PHASE_RANDOM].latency.count, 200, "file: 200 latencies");
        ok(latency_histogram_percentile(&r->phases[PROBE_PHASE_RANDOM].latency, 50) <=
                   latency_histogram_percentile(&r->phases[PROBE_PHASE_RANDOM].latency, 99),
           "file: p50 <= p99");
        is_u64(r->errors, 0, "file: no errors");
        ok(progress_calls >= 3, "file: progress reports came through the pipe (%u)",
           progress_calls);
}

static void test_refusals(const char *dir) {
        static ProbeRunnerOutcome o;
        ProbeParams p = small_params();

        is_int(probe_runner_run(reaper, "/nonexistent/storpulse", &p, -EBADF, NULL, NULL, &o), 0,
               "missing: runs");
        is_int(o.status, PROBE_RUNNER_UNUSABLE, "missing: unusable");
        is_int(o.error, -ENOENT, "missing: -ENOENT");
        is_int(probe_runner_run(reaper, dir, &p, -EBADF, NULL, NULL, &o), 0, "dir: runs");
        is_int(o.error, -EISDIR, "dir: -EISDIR");

        p.seq_queue_depth = 0;
        is_int(probe_runner_run(reaper, dir, &p, -EBADF, NULL, NULL, &o), -ERANGE,
               "bad params: refused before forking");
}

static void test_silent_child_is_killed(const char *path) {
        _cleanup_(probe_runner_freep) ProbeRunner *r = NULL;
        ProbeParams p = small_params();
        int k = 0;

        p.seq_bytes = 0;
        p.rand_count = 0;
        p.rand_duration_usec = 30 * USEC_PER_SEC;
        p.timeout_usec = 1 * USEC_PER_SEC;
        is_int(probe_runner_start(reaper, path, &p, -EBADF, NULL, NULL, &r), 0, "silent: started");
        ok(probe_runner_pid(r) > 0, "silent: child pid");
        is_int(kill(probe_runner_pid(r), SIGSTOP), 0, "silent: child stopped");
        is_int(probe_runner_outcome(r)->status, PROBE_RUNNER_RUNNING, "silent: running");
        /* Loop like an event loop: poll the fd until the deadline, then dispatch. Bounded by
         * the deadline (timeout + grace) plus a margin of iterations. */
        for (unsigned i = 0; i < 1000 && k == 0; i++) {
                struct pollfd pfd = { .fd = probe_runner_fd(r), .events = POLLIN };
                usec_t t = now(CLOCK_MONOTONIC), d = probe_runner_deadline_usec(r);

                (void) poll(&pfd, 1, d > t ? (int) ((d - t) / 1000 + 1) : 0);
                k = probe_runner_dispatch(r, now(CLOCK_MONOTONIC));
        }
        is_int(k, 1, "silent: dispatch reached a final outcome");
        is_str(probe_runner_status_to_string(probe_runner_outcome(r)->status), "stalled",
               "silent: reported stalled");
        r = probe_runner_free(r);
        is_int(process_reaper_settle(reaper, now(CLOCK_MONOTONIC) + 30 * USEC_PER_SEC), 0,
               "silent: the killed child was reaped");
}

/* probe_runner_start_remove() to its outcome, dispatched like an event loop would. */
static int run_remove(const char *dir, ProbeRunnerOutcome *ret) {
        _cleanup_(probe_runner_freep) ProbeRunner *r = NULL;
        int k = probe_runner_start_remove(reaper, dir, &r);

        for (unsigned i = 0; k >= 0 && i < 1000; i++) {
                struct pollfd pfd = { .fd = probe_runner_fd(r), .events = POLLIN };
                usec_t t = now(CLOCK_MONOTONIC), d = probe_runner_deadline_usec(r);

                k = probe_runner_dispatch(r, t);
                if (k != 0)
                        break;
                (void) poll(&pfd, 1, d > t ? (int) ((d - t) / 1000 + 1) : 0);
        }
        if (k > 0)
                *ret = *probe_runner_outcome(r);
        return k > 0 ? 0 : k < 0 ? k : -ETIMEDOUT;
}

/* The REMOVE request: a scratch file made by a write probe goes; a symlink to it under the
 * scratch name in another directory, or a foreign file, stays (and the symlink's target too); a
 * directory without a file, or none at all, is answered as such. */
static void test_remove(const char *dir) {
        char w[160], l[160], f[160], wf[200], lf[200], ff[200];
        static ProbeRunnerOutcome o;
        ProbeParams p = small_params();
        struct stat st;

        (void) snprintf(w, sizeof(w), "%s/w", dir);
        (void) snprintf(l, sizeof(l), "%s/l", dir);
        (void) snprintf(f, sizeof(f), "%s/f", dir);
        (void) snprintf(wf, sizeof(wf), "%s/.storpulse-write-probe", w);
        (void) snprintf(lf, sizeof(lf), "%s/.storpulse-write-probe", l);
        (void) snprintf(ff, sizeof(ff), "%s/.storpulse-write-probe", f);
        ok(mkdir(w, 0700) == 0 && mkdir(l, 0700) == 0 && mkdir(f, 0700) == 0, "remove: dirs");
        p.write = true;
        p.write_file_bytes = 1 << 20;
        p.seq_bytes = 1 << 20;
        p.rand_count = 20;
        is_int(probe_runner_run(reaper, w, &p, -EBADF, NULL, NULL, &o), 0, "write probe: runs");
        if (o.status == PROBE_RUNNER_UNUSABLE && (o.error == -ENOSPC || o.error == -EOPNOTSUPP)) {
                /* a full /var/tmp, or one without fallocate() (the refusal is probe-write's) */
                tap_diag("remove: no scratch file here: %s", probe_scratch_strerror(o.error));
                return;
        }
        is_int(o.status, PROBE_RUNNER_DONE, "write probe: done");
        ok(stat(wf, &st) == 0 && S_ISREG(st.st_mode), "write probe: its scratch file is there");
        ok(symlink(wf, lf) == 0, "a symlink to it under the scratch name");
        is_int(write_random_file(ff, 8192, 0600), 0, "a foreign file under the scratch name");

        is_int(run_remove(l, &o), 0, "remove symlink: runs");
        is_int(o.status, PROBE_RUNNER_UNUSABLE, "remove symlink: refused");
        is_int(o.error, -EEXIST, "remove symlink: -EEXIST (not ours)");
        ok(lstat(lf, &st) == 0 && S_ISLNK(st.st_mode) && stat(wf, &st) == 0,
           "remove symlink: the symlink and its target stay");
        is_int(run_remove(f, &o), 0, "remove foreign: runs");
        is_int(o.error, -EEXIST, "remove foreign: -EEXIST");
        ok(stat(ff, &st) == 0 && st.st_size == 8192, "remove foreign: the file stays");
        is_int(run_remove(w, &o), 0, "remove ours: runs");
        is_int(o.status, PROBE_RUNNER_DONE, "remove ours: done");
        ok(o.removed, "remove ours: removed");
        ok(lstat(wf, &st) < 0 && errno == ENOENT, "remove ours: the file is gone");
        is_int(run_remove(w, &o), 0, "remove again: runs");
        ok(o.status == PROBE_RUNNER_DONE && !o.removed, "remove again: done, nothing removed");
        is_int(run_remove("/nonexistent/storpulse", &o), 0, "remove in no directory: runs");
        is_int(o.error, -ENOENT, "remove in no directory: -ENOENT");
}

static void test_sysfs_dirfd(const char *path) {
        _cleanup_close_ int sys = open("/sys", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        static ProbeRunnerOutcome o;
        ProbeParams p = small_params();

        /* The directory fd goes to the helper as its fd 4. */
        ok(sys >= 0, "sysfs fd: /sys opened");
        is_int(probe_runner_run(reaper, path, &p, sys, NULL, NULL, &o), 0, "sysfs fd: runs");
        is_str(probe_runner_status_to_string(o.status), "done", "sysfs fd: done");
        ok(o.have_info && o.info.logical_block_size > 0, "sysfs fd: block size %u",
           o.info.logical_block_size);
}

static void test_helper_lookup(const char *path) {
        _cleanup_(probe_runner_freep) ProbeRunner *r = NULL;
        ProbeParams p = small_params();
        const char *h = probe_runner_helper_path();

        /* This test runs from the build tree, so the helper built beside it is used. */
        ok(strstr(h, "/daemon/storpulse-probe") && access(h, X_OK) == 0,
           "helper: the build tree's (%s)", h);
        (void) setenv("STORPULSE_PROBE_HELPER", "/nonexistent/storpulse-probe", 1);
        is_str(probe_runner_helper_path(), "/nonexistent/storpulse-probe", "helper: env override");
        is_int(probe_runner_start(reaper, path, &p, -EBADF, NULL, NULL, &r), -ENOENT,
               "helper: a missing helper is -ENOENT, nothing started");
        (void) unsetenv("STORPULSE_PROBE_HELPER");
}

static void test_stall_inside_probe(const char *path) {
        static ProbeRunnerOutcome o;
        ProbeParams p = small_params();

        /* The probe's own deadline ends a run that wants more time than the timeout allows. */
        p.seq_bytes = 0;
        p.rand_count = 0;
        p.rand_duration_usec = 30 * USEC_PER_SEC;
        p.timeout_usec = 300 * USEC_PER_MSEC;
        is_int(probe_runner_run(reaper, path, &p, -EBADF, NULL, NULL, &o), 0, "deadline: runs");
        is_int(o.status, PROBE_RUNNER_DONE, "deadline: a result came back");
        is_str(probe_state_to_string(o.result.state), "stalled", "deadline: state stalled");
        ok(o.result.phases[PROBE_PHASE_RANDOM].ios > 0, "deadline: partial results kept");
}

static void test_in_process_aio(const char *path) {
        _cleanup_(probe_target_freep) ProbeTarget *t = NULL;
        _cleanup_(probe_engine_freep) ProbeEngine *e = NULL;
        ProbeParams p = small_params();
        static ProbeResult res;
        ProbeAioInfo info;

        /* The libaio engine with bounded waits (no signal), in this process. */
        is_int(probe_target_open(path, -EBADF, &t), 0, "in-process: target opens");
        is_int(probe_engine_new_aio(false, -EBADF, &e), 0, "in-process: aio engine");
        if (!t || !e)
                return;
        is_int(probe_run(e, t->info.size_bytes, t->info.logical_block_size, t->info.mem_align,
                         t->fd, &p, NULL, NULL, &res),
               0, "in-process: probe runs");
        is_int(res.state, PROBE_STATE_OK, "in-process: ok");
        is_u64(res.phases[PROBE_PHASE_SEQUENTIAL].bytes, 4 << 20, "in-process: 4 MiB sequential");
        is_u64(res.phases[PROBE_PHASE_RANDOM_DEEP].ios, 200, "in-process: 200 reads at QD8");
        ok(res.cpu_user_usec + res.cpu_sys_usec > 0 || res.elapsed_ns < 10 * NSEC_PER_MSEC,
           "in-process: CPU time measured");
        if (access("/proc/thread-self/schedstat", R_OK) == 0)
                ok(res.cpu_wait_ns != NSEC_INFINITY && res.cpu_wait_ns <= res.elapsed_ns,
                   "in-process: the wait for a CPU read from schedstat (%llu ns)",
                   (unsigned long long) res.cpu_wait_ns);
        else
                is_u64(res.cpu_wait_ns, NSEC_INFINITY, "in-process: no schedstat: unknown");
        is_int(probe_engine_aio_info(e, &info), 0, "in-process: engine info");
        is_int(info.allocations, 1, "in-process: one buffer for all three phases");
        is_int(info.contexts, 1, "in-process: one io context for all three phases");
        is_int(info.context_depth, 8, "in-process: sized for the deepest phase (QD8)");
}

/* tap_skip_all() prints the skip plan; exit 0, since meson's TAP protocol counts 77 as an error. */
static int skip_all(const char *reason) {
        (void) tap_skip_all(reason);
        return 0;
}

int main(void) {
        char dir[] = "/var/tmp/test-probe-runner-XXXXXX", path[128], cmd[160];
        struct statfs sfs;

        for (ProbeRunnerStatus s = 0; s < _PROBE_RUNNER_STATUS_MAX; s++)
                is_int(probe_runner_status_from_string(probe_runner_status_to_string(s)), s,
                       "status %d round trip", s);
        if (statfs("/var/tmp", &sfs) == 0 &&
            (sfs.f_type == TMPFS_MAGIC || sfs.f_type == RAMFS_MAGIC))
                return skip_all("/var/tmp is memory-backed: no O_DIRECT file to test with");
        if (!mkdtemp(dir))
                return skip_all("cannot create a directory under /var/tmp");
        (void) snprintf(path, sizeof(path), "%s/data", dir);
        is_int(write_random_file(path, 8 << 20, 0644), 0, "8 MiB of random data");

        is_int(process_reaper_new(NULL, NULL, &reaper), 0, "a reaper for killed children");
        test_in_process_aio(path);
        test_regular_file(path);
        test_refusals(dir);
        test_silent_child_is_killed(path);
        test_stall_inside_probe(path);
        test_sysfs_dirfd(path);
        test_helper_lookup(path);
        test_remove(dir);

        is_int(process_reaper_settle(reaper, now(CLOCK_MONOTONIC) + 30 * USEC_PER_SEC), 0,
               "no child left behind");
        reaper = process_reaper_free(reaper);
        (void) snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        (void) system(cmd);
        return tap_done();
}

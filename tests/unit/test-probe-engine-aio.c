/* SPDX-License-Identifier: MIT */
/* The libaio engine's buffer: the THP policy is read from an injected sysfs (fixture trees made
 * here); with `always`/`madvise` the buffer is 2 MiB aligned, a multiple of 2 MiB and
 * madvise()d MADV_HUGEPAGE, with `never` (or no sysfs) it is page aligned and not advised; and
 * one buffer and one io context serve every setup() that fits in what reserve() mapped. Whether
 * the kernel really backs the buffer with huge pages (and the device then sees one request per
 * 1 MiB read) is checked on a loop device in tests/integration/probe-requests.sh. */

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "probe/probe-engine.h"
#include "probe/probe.h"
#include "tap.h"

#define MiB (UINT64_C(1) << 20)
#define KiB (UINT64_C(1) << 10)

static char root[] = "/tmp/test-probe-engine-aio-XXXXXX";

/* A fixture sysfs at root/NAME whose THP policy file holds content (NULL: no such file). */
static int fixture(const char *name, const char *content) {
        char p[256];
        int fd;

        (void) snprintf(p, sizeof(p), "%s/%s", root, name);
        if (mkdir(p, 0755) < 0)
                return -errno;
        if (content) {
                char q[320];
                FILE *f;

                (void) snprintf(q, sizeof(q), "%s/kernel", p);
                (void) mkdir(q, 0755);
                (void) snprintf(q, sizeof(q), "%s/kernel/mm", p);
                (void) mkdir(q, 0755);
                (void) snprintf(q, sizeof(q), "%s/kernel/mm/transparent_hugepage", p);
                (void) mkdir(q, 0755);
                (void) snprintf(q, sizeof(q), "%s/kernel/mm/transparent_hugepage/enabled", p);
                f = fopen(q, "we");
                if (!f)
                        return -errno;
                fputs(content, f);
                if (fclose(f) != 0)
                        return -EIO;
        }
        fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        return fd < 0 ? -errno : fd;
}

static void test_policy_parse(void) {
        static const struct {
                const char *name, *content;
                int ret;
                ProbeThpMode mode;
        } cases[] = {
                { "madvise", "always [madvise] never\n", 0, PROBE_THP_MADVISE },
                { "always", "[always] madvise never\n", 0, PROBE_THP_ALWAYS },
                { "never", "always madvise [never]\n", 0, PROBE_THP_NEVER },
                { "missing", NULL, 0, PROBE_THP_UNSUPPORTED },
                { "nobracket", "always madvise never\n", -EBADMSG, 0 },
                { "unknown", "always [sometimes] never\n", -EBADMSG, 0 },
                { "empty", "[]\n", -EBADMSG, 0 },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_close_ int fd = fixture(cases[i].name, cases[i].content);
                ProbeThpMode m = _PROBE_THP_MODE_INVALID;

                ok(fd >= 0, "fixture %s", cases[i].name);
                is_int(probe_thp_mode_read(fd, &m), cases[i].ret, "policy %s: return value",
                       cases[i].name);
                if (cases[i].ret == 0)
                        is_str(probe_thp_mode_to_string(m), probe_thp_mode_to_string(cases[i].mode),
                               "policy %s: mode", cases[i].name);
        }
        for (ProbeThpMode m = 0; m < _PROBE_THP_MODE_MAX; m++)
                is_int(probe_thp_mode_from_string(probe_thp_mode_to_string(m)), m,
                       "thp mode %d round trip", m);
}

/* The phases of a default probe in order: seq 1 MiB x 4, random 4 KiB x 1, random 4 KiB x 32. */
static void run_phases(ProbeEngine *e, int fd, ProbeAioInfo *after_reserve, ProbeAioInfo *end,
                       const char *what) {
        is_int(probe_engine_reserve(e, 32, 4 * PROBE_ENGINE_SLOT_BYTES(1 * MiB, 512), 512), 0,
               "%s: reserve", what);
        is_int(probe_engine_aio_info(e, after_reserve), 0, "%s: info", what);
        is_int(probe_engine_setup(e, fd, 4, 1 * MiB, 512), 0, "%s: setup seq", what);
        is_int(probe_engine_setup(e, fd, 1, 4 * KiB, 512), 0, "%s: setup random QD1", what);
        is_int(probe_engine_setup(e, fd, 32, 4 * KiB, 512), 0, "%s: setup random QD32", what);
        is_int(probe_engine_aio_info(e, end), 0, "%s: info at the end", what);
}

static void test_huge_buffer(int fd, bool host_has_thp) {
        _cleanup_(probe_engine_freep) ProbeEngine *e = NULL;
        _cleanup_close_ int sysfs = fixture("engine-madvise", "always [madvise] never\n");
        ProbeAioInfo a, b;

        is_int(probe_engine_new_aio(false, sysfs, &e), 0, "madvise: engine");
        if (!e)
                return;
        run_phases(e, fd, &a, &b, "madvise");
        is_str(probe_thp_mode_to_string(a.thp), "madvise", "madvise: policy read from sysfs");
        ok(a.buffer && (uintptr_t) a.buffer % (2 * MiB) == 0, "madvise: buffer %p 2 MiB aligned",
           a.buffer);
        is_u64(a.buffer_align, 2 * MiB, "madvise: alignment 2 MiB");
        is_u64(a.buffer_bytes, 4 * MiB, "madvise: 4 x 1 MiB, a multiple of 2 MiB");
        /* A kernel without THP refuses MADV_HUGEPAGE; the buffer still works. */
        ok(a.hugepage_advised == host_has_thp, "madvise: MADV_HUGEPAGE %s",
           host_has_thp ? "applied" : "refused by a kernel without THP");
        ok(b.buffer == a.buffer, "madvise: the same buffer in every phase");
        is_int(b.allocations, 1, "madvise: mapped once");
        is_int(b.contexts, 1, "madvise: one io context");
        is_int(b.context_depth, 32, "madvise: the context holds the deepest phase");
}

static void test_huge_small_buffer(int fd) {
        _cleanup_(probe_engine_freep) ProbeEngine *e = NULL;
        _cleanup_close_ int sysfs = fixture("engine-always", "[always] madvise never\n");
        ProbeAioInfo a;

        /* Even one 4 KiB slot gets a whole 2 MiB aligned huge page. */
        is_int(probe_engine_new_aio(false, sysfs, &e), 0, "always: engine");
        if (!e)
                return;
        is_int(probe_engine_setup(e, fd, 1, 4 * KiB, 512), 0, "always: setup 4 KiB x 1");
        is_int(probe_engine_aio_info(e, &a), 0, "always: info");
        is_u64(a.buffer_bytes, 2 * MiB, "always: rounded up to 2 MiB");
        ok((uintptr_t) a.buffer % (2 * MiB) == 0, "always: 2 MiB aligned");
        /* Without reserve(), a later phase that fits (32 x 4 KiB in 2 MiB) still reuses it. */
        is_int(probe_engine_setup(e, fd, 32, 4 * KiB, 512), 0, "always: setup 4 KiB x 32");
        is_int(probe_engine_aio_info(e, &a), 0, "always: info");
        is_int(a.allocations, 1, "always: 32 x 4 KiB fits: not remapped");
        is_int(a.contexts, 2, "always: a deeper context for QD32");
}

static void test_never(int fd) {
        _cleanup_(probe_engine_freep) ProbeEngine *e = NULL;
        _cleanup_close_ int sysfs = fixture("engine-never", "always madvise [never]\n");
        ProbeAioInfo a, b;

        is_int(probe_engine_new_aio(false, sysfs, &e), 0, "never: engine");
        if (!e)
                return;
        run_phases(e, fd, &a, &b, "never");
        is_str(probe_thp_mode_to_string(a.thp), "never", "never: policy read from sysfs");
        ok(!a.hugepage_advised, "never: no MADV_HUGEPAGE");
        is_u64(a.buffer_align, 4096, "never: page aligned only");
        is_u64(a.buffer_bytes, 4 * MiB, "never: exactly 4 x 1 MiB");
        ok((uintptr_t) a.buffer % 4096 == 0, "never: buffer page aligned");
        ok(b.buffer == a.buffer && b.allocations == 1, "never: the same buffer in every phase");
        is_int(b.contexts, 1, "never: one io context");
}

static void test_no_sysfs(int fd) {
        _cleanup_(probe_engine_freep) ProbeEngine *e = NULL;
        _cleanup_close_ int sysfs = fixture("engine-garbage", "garbage\n");
        ProbeAioInfo a;

        /* No sysfs, or a policy that cannot be read: plain pages. */
        is_int(probe_engine_new_aio(false, -EBADF, &e), 0, "no sysfs: engine");
        if (!e)
                return;
        is_int(probe_engine_setup(e, fd, 2, 64 * KiB, 4096), 0, "no sysfs: setup");
        is_int(probe_engine_aio_info(e, &a), 0, "no sysfs: info");
        is_str(probe_thp_mode_to_string(a.thp), "unsupported", "no sysfs: policy unsupported");
        ok(!a.hugepage_advised && a.buffer_align == 4096, "no sysfs: page aligned, not advised");
        /* A larger phase than mapped gets a new buffer; a smaller one later keeps it. */
        is_int(probe_engine_setup(e, fd, 4, 1 * MiB, 4096), 0, "no sysfs: larger setup");
        is_int(probe_engine_setup(e, fd, 1, 4 * KiB, 4096), 0, "no sysfs: smaller setup");
        is_int(probe_engine_aio_info(e, &a), 0, "no sysfs: info");
        is_int(a.allocations, 2, "no sysfs: grown once, then reused");
        is_u64(a.buffer_bytes, 4 * MiB, "no sysfs: the grown buffer is kept");
        e = probe_engine_free(e);

        is_int(probe_engine_new_aio(false, sysfs, &e), 0, "garbage policy: engine");
        if (!e)
                return;
        is_int(probe_engine_aio_info(e, &a), 0, "garbage policy: info");
        is_str(probe_thp_mode_to_string(a.thp), "unsupported", "garbage policy: treated as none");

        /* A buffer alignment beyond the mapping's (a 1 MiB-aligned device) remaps. */
        is_int(probe_engine_setup(e, fd, 1, 4 * KiB, 4096), 0, "align: setup at 4096");
        is_int(probe_engine_setup(e, fd, 1, 4 * KiB, 1 << 20), 0, "align: setup at 1 MiB");
        is_int(probe_engine_aio_info(e, &a), 0, "align: info");
        ok((uintptr_t) a.buffer % MiB == 0 && a.buffer_align == MiB, "align: 1 MiB aligned");
        is_int(a.allocations, 2, "align: remapped for the stricter alignment");
}

static void test_not_aio(void) {
        static const ProbeScript s = {};
        _cleanup_(probe_engine_freep) ProbeEngine *e = NULL;
        ProbeAioInfo a;

        is_int(probe_engine_new_scripted(&s, 0, &e), 0, "scripted engine");
        is_int(probe_engine_aio_info(e, &a), -EINVAL, "aio info refuses another engine");
}

/* What a QD1 read costs in syscalls, as fio's libaio engine does it: one io_submit() of one iocb
 * and one io_getevents(min_nr=1) per read, and with signal_deadline no timeout on that wait (a
 * timed wait arms an hrtimer per call). Reads a sparse O_DIRECT file: the count is the point. */
static void qd1_run(int fd, bool signal_deadline) {
        _cleanup_(probe_engine_freep) ProbeEngine *e = NULL;
        _cleanup_free_ ProbeResult *res = calloc(1, sizeof(*res));
        const char *what = signal_deadline ? "untimed" : "timed";
        ProbeParams p = PROBE_PARAMS_DEFAULT;
        ProbeAioInfo a;

        p.seq_bytes = 0;
        p.rand_queue_depth = 1;
        p.rand_deep_queue_depth = 0;
        p.rand_count = 500;
        ok(res, "qd1 %s: result", what);
        is_int(probe_engine_new_aio(signal_deadline, -EBADF, &e), 0, "qd1 %s: engine", what);
        if (!e || !res)
                return;
        is_int(probe_run(e, 4 * MiB, 512, 4096, fd, &p, NULL, NULL, res), 0, "qd1 %s: probe", what);
        is_u64(res->phases[PROBE_PHASE_RANDOM].ios, 500, "qd1 %s: 500 reads", what);
        is_int(probe_engine_aio_info(e, &a), 0, "qd1 %s: info", what);
        is_u64(a.submit_calls, 500, "qd1 %s: one io_submit per read", what);
        is_u64(a.getevents_calls, 500, "qd1 %s: one io_getevents per read", what);
        is_u64(a.untimed_waits, signal_deadline ? 500 : 0, "qd1 %s: %s", what,
               signal_deadline ? "no wait has a timeout" : "every wait has a timeout");
}

static void test_qd1_syscalls(void) {
        char path[] = "/var/tmp/test-probe-engine-aio-XXXXXX";
        _cleanup_close_ int tmp = mkstemp(path), fd = -EBADF;

        if (tmp < 0 || ftruncate(tmp, (off_t) (4 * MiB)) < 0) {
                tap_diag("no file in /var/tmp (%m): QD1 syscall counts not checked");
                return;
        }
        fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
        if (fd < 0)
                tap_diag("/var/tmp refuses O_DIRECT (%m): QD1 syscall counts not checked");
        (void) unlink(path);
        if (fd < 0)
                return;
        qd1_run(fd, true);
        qd1_run(fd, false);
}

/* One write of 4 KiB (the engine's buffer: a pattern, not zeros) at offset 0 of fd; the
 * completion's result or the submit's -errno. */
static int64_t write_once(int fd) {
        _cleanup_(probe_engine_freep) ProbeEngine *e = NULL;
        ProbeIo io = { .offset = 0, .length = 4096, .slot = 0, .write = true };
        ProbeCompletion c;
        int r;

        r = probe_engine_new_aio(false, -EBADF, &e);
        if (r >= 0)
                r = probe_engine_setup(e, fd, 1, 4096, 4096);
        if (r >= 0)
                r = probe_engine_submit(e, &io, 1);
        if (r < 0)
                return r;
        r = probe_engine_getevents(e, 1, 1, &c, 5 * NSEC_PER_SEC);
        return r == 1 ? c.res : -ETIME;
}

/* The engine can express a write, and only the fd's access mode stands behind it: on an fd opened
 * O_RDONLY (as probe_target_open() opens every target, block devices included) the kernel refuses
 * it and the data stays; on an O_RDWR fd (a scratch file) the same write lands. */
static void test_write_needs_writable_fd(void) {
        char path[] = "/var/tmp/test-probe-engine-aio-w-XXXXXX", buf[4096], zero[4096] = {};
        _cleanup_close_ int tmp = mkstemp(path), ro = -EBADF, rw = -EBADF;

        if (tmp < 0 || ftruncate(tmp, 8192) < 0) {
                tap_diag("no file in /var/tmp (%m): write refusal not checked");
                return;
        }
        ro = open(path, O_RDONLY | O_CLOEXEC);
        rw = open(path, O_RDWR | O_CLOEXEC);
        (void) unlink(path);
        is_int((int) write_once(ro), -EBADF, "write on an O_RDONLY fd: EBADF from the kernel");
        ok(pread(tmp, buf, sizeof(buf), 0) == sizeof(buf) && memcmp(buf, zero, sizeof(buf)) == 0,
           "write on an O_RDONLY fd: the data is unchanged");
        is_int((int) write_once(rw), 4096, "write on an O_RDWR fd: 4096 bytes written");
        ok(pread(tmp, buf, sizeof(buf), 0) == sizeof(buf) && memcmp(buf, zero, sizeof(buf)) != 0,
           "write on an O_RDWR fd: the data changed (not zeros)");
}

int main(void) {
        _cleanup_close_ int fd = -EBADF, host = -EBADF;
        ProbeThpMode host_mode = PROBE_THP_UNSUPPORTED;
        char cmd[128];

        if (!mkdtemp(root))
                return tap_skip_all("cannot create a directory under /tmp"), 0;
        /* setup() only needs an fd to read later; no read is issued here. */
        fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
        ok(fd >= 0, "an fd to set the engine up with");
        /* Whether this kernel has THP at all decides if MADV_HUGEPAGE can succeed. */
        host = open("/sys", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (host >= 0)
                (void) probe_thp_mode_read(host, &host_mode);
        tap_diag("host THP policy: %s", probe_thp_mode_to_string(host_mode));

        test_policy_parse();
        test_huge_buffer(fd, host_mode != PROBE_THP_UNSUPPORTED);
        test_huge_small_buffer(fd);
        test_never(fd);
        test_no_sysfs(fd);
        test_not_aio();
        test_qd1_syscalls();
        test_write_needs_writable_fd();

        (void) snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
        (void) system(cmd);
        return tap_done();
}

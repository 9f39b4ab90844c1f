/* SPDX-License-Identifier: MIT */
/* The libaio probe engine: O_DIRECT reads (and, for a ProbeIo that says so, writes: only ever
 * effective on a scratch file opened O_RDWR, see probe-engine.h) through
 * io_submit()/io_getevents(), fdatasync() for the write_sync phase. Everything the hot
 * loop touches is allocated once: one iocb per slot, an iocb pointer array and an io_event array
 * of the largest depth, and one slot buffer mapped for the largest phase (reserve()), so later
 * setup() calls that fit reuse them and submitting and reaping never allocate. Completions are
 * reaped in batches (up to `max` per io_getevents call). The time source is CLOCK_MONOTONIC, CPU
 * time is getrusage(RUSAGE_THREAD).
 *
 * Why the buffer is a huge page when the kernel allows it: a direct read pins the buffer's pages
 * and the block layer builds one segment per physically contiguous run; a 1 MiB read into 4 KiB
 * pages that happen to be scattered needs 256 segments, more than a queue's max_segments (128 on
 * a loop device), so it is split into two requests, and pinning 256 pages costs more CPU than the
 * read itself on a fast device. A 2 MiB aligned buffer madvise()d MADV_HUGEPAGE before it is
 * touched faults in as huge pages: one segment, one request, one pinned folio. The THP policy is
 * read from an injected sysfs; with `never` the buffer is only page aligned.
 * libaio's wrappers return -errno themselves (they do not set errno). */

#include <fcntl.h>
#include <libaio.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/string-table.h"
#include "probe/probe-engine.h"

#define HUGE_PAGE_BYTES ((uint64_t) 2 << 20)

static const char *const probe_thp_mode_table[_PROBE_THP_MODE_MAX] = {
        [PROBE_THP_ALWAYS] = "always",
        [PROBE_THP_MADVISE] = "madvise",
        [PROBE_THP_NEVER] = "never",
        [PROBE_THP_UNSUPPORTED] = "unsupported",
};

DEFINE_STRING_TABLE_LOOKUP(probe_thp_mode, ProbeThpMode, probe_thp_mode_table)

int probe_thp_mode_read(int sysfs_dirfd, ProbeThpMode *ret) {
        _cleanup_free_ char *s = NULL;
        const char *open_b, *close_b;
        ProbeThpMode m;
        char word[16];
        size_t n;
        int r;

        if (!ret)
                return -EINVAL;
        r = read_one_line_at(sysfs_dirfd, "kernel/mm/transparent_hugepage/enabled", &s);
        if (r == -ENOENT) {
                *ret = PROBE_THP_UNSUPPORTED;
                return 0;
        }
        if (r < 0)
                return r;
        /* "always [madvise] never": the selected mode is the bracketed word. */
        open_b = strchr(s, '[');
        close_b = open_b ? strchr(open_b, ']') : NULL;
        if (!close_b)
                return -EBADMSG;
        n = (size_t) (close_b - open_b - 1);
        if (n == 0 || n >= sizeof(word))
                return -EBADMSG;
        memcpy(word, open_b + 1, n);
        word[n] = 0;
        m = probe_thp_mode_from_string(word);
        if (m < 0 || m == PROBE_THP_UNSUPPORTED)
                return -EBADMSG;
        *ret = m;
        return 0;
}

typedef struct AioEngine {
        io_context_t ctx;
        bool ctx_ready;
        int fd;
        unsigned depth;     /* slots of the current setup() */
        unsigned ctx_depth; /* what the context and the arrays hold */
        uint32_t max_io_bytes;
        uint64_t stride; /* bytes between two slots' buffers */
        bool signal_deadline;
        ProbeThpMode thp;
        int schedstat_fd; /* /proc/thread-self/schedstat, opened once: re-read with pread() */

        void *map; /* the whole mapping (buffers lies inside it, aligned) */
        size_t map_bytes;
        uint8_t *buffers;
        uint64_t buffer_bytes, buffer_align;
        bool hugepage_advised;
        unsigned allocations, contexts;
        uint64_t submit_calls, getevents_calls, untimed_waits; /* syscalls, for ProbeAioInfo */

        struct iocb *iocbs;
        struct iocb **iocbps;
        struct io_event *events;
} AioEngine;

static void release_buffers(AioEngine *a) {
        if (a->map)
                (void) munmap(a->map, a->map_bytes);
        a->map = NULL;
        a->map_bytes = 0;
        a->buffers = NULL;
        a->buffer_bytes = a->buffer_align = 0;
        a->hugepage_advised = false;
}

/* io_destroy waits for in-flight reads: callers only re-setup or destroy when nothing is in
 * flight, or accept the wait. */
static void release_context(AioEngine *a) {
        if (a->ctx_ready)
                (void) io_destroy(a->ctx);
        a->ctx_ready = false;
        a->ctx = NULL;
        a->iocbs = mfree(a->iocbs);
        a->iocbps = mfree(a->iocbps);
        a->events = mfree(a->events);
        a->ctx_depth = 0;
}

static bool want_huge(const AioEngine *a) {
        return a->thp == PROBE_THP_ALWAYS || a->thp == PROBE_THP_MADVISE;
}

/* xorshift64 words: cheap, incompressible enough for a write probe's buffer. */
static void fill_pattern(uint8_t *p, size_t bytes) {
        uint64_t x = UINT64_C(0x9e3779b97f4a7c15) ^ (uint64_t) (uintptr_t) p;

        for (size_t i = 0; i + sizeof(x) <= bytes; i += sizeof(x)) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                memcpy(p + i, &x, sizeof(x));
        }
}

/* Map bytes aligned to align (a power of two >= the page size): over-map by align and trim both
 * ends, so the buffer is the whole of its mapping and a huge page can back every 2 MiB of it. */
static int map_buffers(AioEngine *a, uint64_t bytes, uint64_t align) {
        uint8_t *p, *aligned;
        size_t len, head, tail;

        if (want_huge(a)) {
                align = MAX(align, HUGE_PAGE_BYTES);
                bytes = ROUND_UP(bytes, HUGE_PAGE_BYTES);
        }
        align = MAX(align, (uint64_t) 4096);
        bytes = ROUND_UP(bytes, (uint64_t) 4096);
        len = (size_t) (bytes + align - 4096);
        p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
                return -errno;
        aligned = (uint8_t *) ROUND_UP((uintptr_t) p, (uintptr_t) align);
        head = (size_t) (aligned - p);
        tail = len - head - (size_t) bytes;
        if (head > 0)
                (void) munmap(p, head);
        if (tail > 0)
                (void) munmap(aligned + bytes, tail);

        a->map = aligned;
        a->map_bytes = (size_t) bytes;
        a->buffers = aligned;
        a->buffer_bytes = bytes;
        a->buffer_align = align;
        a->allocations++;
        /* Before the first touch, so the faults below allocate huge pages. Best effort: without
         * them reads still work, only split into more requests. */
        a->hugepage_advised = want_huge(a) && madvise(aligned, (size_t) bytes, MADV_HUGEPAGE) == 0;
        /* Touch the buffers now so page faults do not land inside measured reads, with data a
         * write probe can write: not zeros, which thin pools, VDO and compressing drives would
         * store without writing. */
        fill_pattern(aligned, (size_t) bytes);
        return 0;
}

static int ensure_context(AioEngine *a, unsigned depth) {
        int r;

        if (a->ctx_ready && depth <= a->ctx_depth)
                return 0;
        release_context(a);
        a->iocbs = calloc(depth, sizeof(*a->iocbs));
        a->iocbps = calloc(depth, sizeof(*a->iocbps));
        a->events = calloc(depth, sizeof(*a->events));
        if (!a->iocbs || !a->iocbps || !a->events)
                return -ENOMEM;
        r = io_setup((int) depth, &a->ctx);
        if (r < 0)
                return r;
        a->ctx_ready = true;
        a->ctx_depth = depth;
        a->contexts++;
        return 0;
}

static int ensure_buffers(AioEngine *a, uint64_t bytes, uint64_t align) {
        if (a->buffers && bytes <= a->buffer_bytes && a->buffer_align % align == 0)
                return 0;
        release_buffers(a);
        return map_buffers(a, bytes, align);
}

static uint64_t buffer_align_for(uint32_t mem_align) {
        return MAX((uint64_t) mem_align, (uint64_t) 4096);
}

static int aio_reserve(void *userdata, unsigned max_depth, uint64_t max_buffer_bytes,
                       uint32_t mem_align) {
        AioEngine *a = userdata;
        int r;

        if (max_depth == 0 || max_buffer_bytes == 0)
                return -EINVAL;
        /* Each phase is bounded by PROBE_ENGINE_MAX_BUFFER_BYTES before slot rounding. */
        if (max_buffer_bytes > 2 * PROBE_ENGINE_MAX_BUFFER_BYTES)
                return -E2BIG;
        r = ensure_context(a, max_depth);
        if (r < 0)
                return r;
        return ensure_buffers(a, max_buffer_bytes, buffer_align_for(mem_align));
}

static int aio_setup(void *userdata, int fd, unsigned depth, uint32_t max_io_bytes,
                     uint32_t mem_align) {
        AioEngine *a = userdata;
        uint64_t stride;
        int r;

        if (depth == 0 || max_io_bytes == 0 || fd < 0)
                return -EINVAL;
        if ((uint64_t) depth * max_io_bytes > PROBE_ENGINE_MAX_BUFFER_BYTES)
                return -E2BIG;
        stride = PROBE_ENGINE_SLOT_BYTES(max_io_bytes, mem_align);
        r = ensure_context(a, depth);
        if (r < 0)
                return r;
        r = ensure_buffers(a, (uint64_t) depth * stride, buffer_align_for(mem_align));
        if (r < 0)
                return r;
        a->fd = fd;
        a->depth = depth;
        a->stride = stride;
        a->max_io_bytes = (uint32_t) MIN(stride, (uint64_t) UINT32_MAX);
        return 0;
}

static int aio_submit(void *userdata, const ProbeIo *ios, unsigned n) {
        AioEngine *a = userdata;

        if (n == 0)
                return 0;
        if (n > a->depth)
                return -EINVAL;
        for (unsigned i = 0; i < n; i++) {
                uint32_t s = ios[i].slot;
                struct iocb *cb = &a->iocbs[s];

                if (s >= a->depth || ios[i].length > a->max_io_bytes)
                        return -EINVAL; /* a caller bug: nothing was submitted */
                if (ios[i].write)
                        io_prep_pwrite(cb, a->fd, a->buffers + (size_t) s * a->stride,
                                       ios[i].length, (long long) ios[i].offset);
                else
                        io_prep_pread(cb, a->fd, a->buffers + (size_t) s * a->stride, ios[i].length,
                                      (long long) ios[i].offset);
                cb->data = (void *) (uintptr_t) s;
                a->iocbps[i] = cb;
        }
        a->submit_calls++;
        return io_submit(a->ctx, (long) n, a->iocbps);
}

static int aio_getevents(void *userdata, unsigned min, unsigned max, ProbeCompletion *ret,
                         nsec_t timeout_ns) {
        AioEngine *a = userdata;
        struct timespec ts;
        int r;

        max = MIN(max, a->depth);
        min = MIN(min, max);
        /* With signal_deadline the wait has no timer of its own (like fio's): a timed wait costs
         * an hrtimer per call, measurable at QD1 on a fast device. The caller's signal at the
         * deadline ends it with -EINTR instead. */
        a->getevents_calls++;
        a->untimed_waits += a->signal_deadline;
        r = io_getevents(a->ctx, (long) min, (long) max, a->events,
                         a->signal_deadline ? NULL : timespec_store_nsec(&ts, timeout_ns));
        if (r < 0)
                return r;
        for (int i = 0; i < r; i++) {
                ret[i].slot = (uint32_t) (uintptr_t) a->events[i].data;
                ret[i].res = (int64_t) (long) a->events[i].res;
        }
        return r;
}

static int aio_sync(void *userdata) {
        AioEngine *a = userdata;

        return RET_NERRNO(fdatasync(a->fd));
}

static nsec_t aio_now_ns(void *userdata) {
        return now_nsec(CLOCK_MONOTONIC);
}

static void aio_cpu_usec(void *userdata, usec_t *ret_user, usec_t *ret_sys) {
        struct rusage ru = {};

        (void) getrusage(RUSAGE_THREAD, &ru);
        *ret_user = (usec_t) ru.ru_utime.tv_sec * USEC_PER_SEC + (usec_t) ru.ru_utime.tv_usec;
        *ret_sys = (usec_t) ru.ru_stime.tv_sec * USEC_PER_SEC + (usec_t) ru.ru_stime.tv_usec;
}

/* /proc/thread-self/schedstat: "exec_runtime run_delay timeslices", in ns (CONFIG_SCHED_INFO;
 * Documentation/scheduler/sched-stats.rst). Opened when the engine is made and re-read from
 * offset 0 (a seq_file regenerates its text), so a probe opens nothing once it runs: the probe
 * helper forbids open() after its sandbox is entered. */
static nsec_t aio_cpu_wait_ns(void *userdata) {
        AioEngine *a = userdata;
        char buf[128];
        unsigned long long run, delay;
        ssize_t n;

        if (a->schedstat_fd < 0)
                return NSEC_INFINITY;
        n = pread(a->schedstat_fd, buf, sizeof(buf) - 1, 0);
        if (n <= 0)
                return NSEC_INFINITY;
        buf[n] = 0;
        if (sscanf(buf, "%llu %llu", &run, &delay) != 2 || delay >= NSEC_INFINITY)
                return NSEC_INFINITY;
        return (nsec_t) delay;
}

static void aio_destroy(void *userdata) {
        AioEngine *a = userdata;

        if (!a)
                return;
        release_context(a); /* first: io_destroy() waits for reads into the buffers */
        release_buffers(a);
        if (a->schedstat_fd >= 0)
                (void) close(a->schedstat_fd);
        free(a);
}

static const ProbeEngineOps aio_ops = {
        .name = "libaio",
        .reserve = aio_reserve,
        .setup = aio_setup,
        .submit = aio_submit,
        .getevents = aio_getevents,
        .sync = aio_sync,
        .now_ns = aio_now_ns,
        .cpu_usec = aio_cpu_usec,
        .cpu_wait_ns = aio_cpu_wait_ns,
        .destroy = aio_destroy,
};

int probe_engine_new_aio(bool signal_deadline, int sysfs_dirfd, ProbeEngine **ret) {
        ProbeEngine *e;
        AioEngine *a;

        a = calloc(1, sizeof(*a));
        if (!a)
                return -ENOMEM;
        a->fd = -EBADF;
        a->signal_deadline = signal_deadline;
        a->schedstat_fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
        /* No sysfs, or an unreadable policy: plain pages, as with `never`. */
        a->thp = PROBE_THP_UNSUPPORTED;
        if ((sysfs_dirfd >= 0 || sysfs_dirfd == AT_FDCWD) &&
            probe_thp_mode_read(sysfs_dirfd, &a->thp) < 0)
                a->thp = PROBE_THP_UNSUPPORTED;
        e = calloc(1, sizeof(*e));
        if (!e) {
                aio_destroy(a);
                return -ENOMEM;
        }
        e->ops = &aio_ops;
        e->userdata = a;
        *ret = e;
        return 0;
}

int probe_engine_aio_info(ProbeEngine *e, ProbeAioInfo *ret) {
        const AioEngine *a;

        if (!e || !ret || e->ops != &aio_ops)
                return -EINVAL;
        a = e->userdata;
        *ret = (ProbeAioInfo){
                .thp = a->thp,
                .buffer = a->buffers,
                .buffer_bytes = a->buffer_bytes,
                .buffer_align = a->buffer_align,
                .hugepage_advised = a->hugepage_advised,
                .allocations = a->allocations,
                .contexts = a->contexts,
                .context_depth = a->ctx_depth,
                .submit_calls = a->submit_calls,
                .getevents_calls = a->getevents_calls,
                .untimed_waits = a->untimed_waits,
        };
        return 0;
}

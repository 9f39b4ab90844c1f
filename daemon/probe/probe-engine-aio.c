/* SPDX-License-Identifier: MIT */
/* The libaio probe engine: O_DIRECT reads through io_submit()/io_getevents(). Everything the hot
 * loop touches is allocated once in setup(): one iocb and one aligned buffer per slot, an iocb
 * pointer array and an io_event array of `depth` entries, so submitting and reaping never
 * allocate. Completions are reaped in batches (up to `max` per io_getevents call). The time
 * source is CLOCK_MONOTONIC, CPU time is getrusage(RUSAGE_THREAD).
 * libaio's wrappers return -errno themselves (they do not set errno). */

#include <libaio.h>
#include <string.h>
#include <sys/resource.h>

#include "probe/probe-engine.h"

typedef struct AioEngine {
        io_context_t ctx;
        bool ctx_ready;
        int fd;
        unsigned depth;
        uint32_t max_io_bytes;
        bool signal_deadline;
        uint8_t *buffers;
        struct iocb *iocbs;
        struct iocb **iocbps;
        struct io_event *events;
} AioEngine;

/* Drop the context and buffers (io_destroy waits for in-flight reads: callers only re-setup or
 * destroy when nothing is in flight, or accept the wait). */
static void aio_release(AioEngine *a) {
        if (a->ctx_ready)
                (void) io_destroy(a->ctx);
        a->ctx_ready = false;
        a->ctx = NULL;
        a->buffers = mfree(a->buffers);
        a->iocbs = mfree(a->iocbs);
        a->iocbps = mfree(a->iocbps);
        a->events = mfree(a->events);
        a->depth = 0;
}

static int aio_setup(void *userdata, int fd, unsigned depth, uint32_t max_io_bytes,
                     uint32_t mem_align) {
        AioEngine *a = userdata;
        size_t align = MAX((size_t) mem_align, (size_t) 4096);
        void *p = NULL;
        int r;

        if (depth == 0 || max_io_bytes == 0 || fd < 0)
                return -EINVAL;
        if ((uint64_t) depth * max_io_bytes > PROBE_ENGINE_MAX_BUFFER_BYTES)
                return -E2BIG;
        aio_release(a);

        r = posix_memalign(&p, align, (size_t) depth * ROUND_UP((size_t) max_io_bytes, align));
        if (r != 0)
                return -r;
        a->buffers = p;
        a->iocbs = calloc(depth, sizeof(*a->iocbs));
        a->iocbps = calloc(depth, sizeof(*a->iocbps));
        a->events = calloc(depth, sizeof(*a->events));
        if (!a->iocbs || !a->iocbps || !a->events)
                return -ENOMEM;
        /* Touch the buffers now so page faults do not land inside measured reads. */
        memset(a->buffers, 0, (size_t) depth * ROUND_UP((size_t) max_io_bytes, align));

        r = io_setup((int) depth, &a->ctx);
        if (r < 0)
                return r;
        a->ctx_ready = true;
        a->fd = fd;
        a->depth = depth;
        a->max_io_bytes = (uint32_t) ROUND_UP((size_t) max_io_bytes, align);
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
                io_prep_pread(cb, a->fd, a->buffers + (size_t) s * a->max_io_bytes, ios[i].length,
                              (long long) ios[i].offset);
                cb->data = (void *) (uintptr_t) s;
                a->iocbps[i] = cb;
        }
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

static nsec_t aio_now_ns(void *userdata) {
        return now_nsec(CLOCK_MONOTONIC);
}

static void aio_cpu_usec(void *userdata, usec_t *ret_user, usec_t *ret_sys) {
        struct rusage ru = {};

        (void) getrusage(RUSAGE_THREAD, &ru);
        *ret_user = (usec_t) ru.ru_utime.tv_sec * USEC_PER_SEC + (usec_t) ru.ru_utime.tv_usec;
        *ret_sys = (usec_t) ru.ru_stime.tv_sec * USEC_PER_SEC + (usec_t) ru.ru_stime.tv_usec;
}

static void aio_destroy(void *userdata) {
        AioEngine *a = userdata;

        if (!a)
                return;
        aio_release(a);
        free(a);
}

static const ProbeEngineOps aio_ops = {
        .name = "libaio",
        .setup = aio_setup,
        .submit = aio_submit,
        .getevents = aio_getevents,
        .now_ns = aio_now_ns,
        .cpu_usec = aio_cpu_usec,
        .destroy = aio_destroy,
};

int probe_engine_new_aio(bool signal_deadline, ProbeEngine **ret) {
        ProbeEngine *e;
        AioEngine *a;

        a = calloc(1, sizeof(*a));
        if (!a)
                return -ENOMEM;
        a->fd = -EBADF;
        a->signal_deadline = signal_deadline;
        e = calloc(1, sizeof(*e));
        if (!e) {
                free(a);
                return -ENOMEM;
        }
        e->ops = &aio_ops;
        e->userdata = a;
        *ret = e;
        return 0;
}

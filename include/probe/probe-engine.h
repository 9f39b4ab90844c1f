/* SPDX-License-Identifier: MIT */
#pragma once

/* The I/O engine under a probe: an ops table plus userdata, so the probe logic (probe.c) runs the
 * same over libaio on a real device (probe-engine-aio.c) and over a scripted engine with
 * deterministic virtual-time latencies and injected faults (probe-engine-scripted.c).
 *
 * Model: setup() prepares `depth` I/O slots, each able to read up to max_io_bytes into an
 * engine-owned buffer. submit() queues reads, each naming a free slot; getevents() reaps
 * completions. A ProbeIo is a read unless it says `write`: the engine passes it on as a write
 * to the fd it was set up with, and only the kernel's access check stands behind that, which
 * is the point: every block device is opened O_RDONLY (probe-target.h), so a write to one fails
 * with EBADF in the kernel, whatever the probe asks; only a scratch file (probe-scratch.h) is
 * opened O_RDWR. */

#include <stdbool.h>
#include <stdint.h>

#include "basic/macro.h"
#include "basic/string-table.h"
#include "basic/time-util.h"

/* Upper bound of depth * max_io_bytes one engine allocates. */
#define PROBE_ENGINE_MAX_BUFFER_BYTES ((uint64_t) 1 << 30)

/* Bytes one slot of max_io_bytes occupies in an engine's buffer: rounded up to the buffer
 * alignment (at least a page), so every slot starts aligned. depth slots need depth times this. */
#define PROBE_ENGINE_SLOT_BYTES(max_io_bytes, mem_align)                                           \
        ROUND_UP((uint64_t) (max_io_bytes), MAX((uint64_t) (mem_align), (uint64_t) 4096))

typedef struct ProbeIo {
        uint64_t offset; /* bytes, aligned to the target's logical block size */
        uint32_t length; /* bytes, a multiple of the logical block size */
        uint32_t slot;   /* in [0, depth); free until its completion is reaped */
        bool write;      /* write the slot's buffer instead of reading into it */
} ProbeIo;

typedef struct ProbeCompletion {
        uint32_t slot;
        int64_t res; /* bytes read (may be short), or -errno */
} ProbeCompletion;

typedef struct ProbeEngineOps {
        const char *name;
        /* Optional (NULL: none). Called once before the first setup() with the largest depth
         * and the largest buffer (depth * PROBE_ENGINE_SLOT_BYTES) any later setup() asks for,
         * so an engine allocates once and keeps its buffers and context across phases. */
        int (*reserve)(void *userdata, unsigned max_depth, uint64_t max_buffer_bytes,
                       uint32_t mem_align);
        /* Prepare depth slots of max_io_bytes each, buffers aligned to mem_align, reading fd.
         * Returns 0 or -errno (-E2BIG beyond PROBE_ENGINE_MAX_BUFFER_BYTES). Called before
         * anything else; may be called again (new depth/size) when nothing is in flight. */
        int (*setup)(void *userdata, int fd, unsigned depth, uint32_t max_io_bytes,
                     uint32_t mem_align);
        /* Queue n reads. Returns how many were accepted (a prefix of ios, >= 1 unless n == 0), or
         * -errno when the first one was refused (-EAGAIN/-EINTR: try again later). */
        int (*submit)(void *userdata, const ProbeIo *ios, unsigned n);
        /* Reap between min and max completions into ret, waiting at most timeout_ns. Returns the
         * number reaped (fewer than min, possibly 0, when the timeout hit) or -errno (-EINTR). */
        int (*getevents)(void *userdata, unsigned min, unsigned max, ProbeCompletion *ret,
                         nsec_t timeout_ns);
        /* fdatasync() the fd of the last setup(): 0 or -errno. Called with nothing in flight. */
        int (*sync)(void *userdata);
        /* Monotonic time in ns (virtual for the scripted engine). */
        nsec_t (*now_ns)(void *userdata);
        /* CPU time consumed so far by the probing thread, µs (user, system). */
        void (*cpu_usec)(void *userdata, usec_t *ret_user, usec_t *ret_sys);
        /* Time the probing thread has spent runnable but waiting for a CPU so far, ns (the
         * kernel's schedstat run_delay); NSEC_INFINITY when unknown. A latency probe that waits
         * for a CPU measures the host's load, not the device. */
        nsec_t (*cpu_wait_ns)(void *userdata);
        /* Free everything. May block until in-flight I/O completes (io_destroy does): a caller
         * that saw a stall lets its process die instead (probe-runner). */
        void (*destroy)(void *userdata);
} ProbeEngineOps;

typedef struct ProbeEngine {
        const ProbeEngineOps *ops;
        void *userdata;
} ProbeEngine;

/* How the kernel hands out transparent huge pages (kernel/mm/transparent_hugepage/enabled). */
typedef enum ProbeThpMode {
        PROBE_THP_ALWAYS,
        PROBE_THP_MADVISE,
        PROBE_THP_NEVER,
        PROBE_THP_UNSUPPORTED, /* no such file: a kernel without THP */
        _PROBE_THP_MODE_MAX,
        _PROBE_THP_MODE_INVALID = -EINVAL,
} ProbeThpMode;

DECLARE_STRING_TABLE_LOOKUP(probe_thp_mode, ProbeThpMode);

/* Reads the THP policy below sysfs_dirfd (a directory fd of /sys or a fixture tree laid out like
 * it; AT_FDCWD reads relative to the working directory). Returns 0 and the selected ([bracketed])
 * mode, PROBE_THP_UNSUPPORTED when the file does not exist, -EBADMSG when no mode is selected,
 * or another -errno from reading. */
int probe_thp_mode_read(int sysfs_dirfd, ProbeThpMode *ret);

/* The libaio engine's buffer and syscall counts, for tests and diagnostics. */
typedef struct ProbeAioInfo {
        ProbeThpMode thp;         /* as read at creation (UNSUPPORTED without a sysfs fd) */
        const void *buffer;       /* NULL before the first setup()/reserve() */
        uint64_t buffer_bytes;    /* mapped for the slots */
        uint64_t buffer_align;    /* alignment of buffer (2 MiB when huge pages were asked for) */
        bool hugepage_advised;    /* madvise(MADV_HUGEPAGE) succeeded on the whole buffer */
        unsigned allocations;     /* buffers mapped so far (1 if reused across phases) */
        unsigned contexts;        /* io_setup() calls so far */
        unsigned context_depth;   /* events the current io context holds */
        uint64_t submit_calls;    /* io_submit() calls so far */
        uint64_t getevents_calls; /* io_getevents() calls so far */
        uint64_t untimed_waits;   /* of those, without a timeout (signal_deadline) */
} ProbeAioInfo;

/* libaio engine over a real fd. Returns 0 and a new engine, or -ENOMEM.
 * sysfs_dirfd (borrowed, only read here): where the THP policy is read. With `always` or
 * `madvise` the slot buffer is mapped 2 MiB aligned, rounded up to 2 MiB and madvise()d
 * MADV_HUGEPAGE before it is touched, so a 1 MiB read lies in one physically contiguous huge page
 * and reaches the device as one request instead of being split at the queue's max_segments;
 * with `never`, an unsupported kernel or sysfs_dirfd < 0 (and not AT_FDCWD) it is only page
 * aligned. The buffer and the io context are kept across setup() calls that fit in them.
 * signal_deadline: getevents() ignores its timeout and waits without a timer until min reads
 * complete or a signal interrupts it (-EINTR). The caller must then deliver a signal (handler
 * installed without SA_RESTART) at the deadline and again periodically after it, so a wait
 * entered just after a signal is ended too (probe-runner's child does this). Without it, every
 * wait is bounded by its timeout. */
int probe_engine_new_aio(bool signal_deadline, int sysfs_dirfd, ProbeEngine **ret);
/* Copy out the libaio engine's buffer state. -EINVAL if e is not a libaio engine. */
int probe_engine_aio_info(ProbeEngine *e, ProbeAioInfo *ret);

/* Frees the engine through ops->destroy. Accepts NULL, returns NULL. */
ProbeEngine *probe_engine_free(ProbeEngine *e);
DEFINE_TRIVIAL_CLEANUP_FUNC(ProbeEngine *, probe_engine_free);

/* Thin inline wrappers: the hot loop calls these. */
static inline int probe_engine_reserve(ProbeEngine *e, unsigned max_depth,
                                       uint64_t max_buffer_bytes, uint32_t mem_align) {
        return e->ops->reserve
                       ? e->ops->reserve(e->userdata, max_depth, max_buffer_bytes, mem_align)
                       : 0;
}
static inline int probe_engine_setup(ProbeEngine *e, int fd, unsigned depth, uint32_t max_io_bytes,
                                     uint32_t mem_align) {
        return e->ops->setup(e->userdata, fd, depth, max_io_bytes, mem_align);
}
static inline int probe_engine_submit(ProbeEngine *e, const ProbeIo *ios, unsigned n) {
        return e->ops->submit(e->userdata, ios, n);
}
static inline int probe_engine_getevents(ProbeEngine *e, unsigned min, unsigned max,
                                         ProbeCompletion *ret, nsec_t timeout_ns) {
        return e->ops->getevents(e->userdata, min, max, ret, timeout_ns);
}
static inline int probe_engine_sync(ProbeEngine *e) {
        return e->ops->sync ? e->ops->sync(e->userdata) : -EOPNOTSUPP;
}
static inline nsec_t probe_engine_now_ns(ProbeEngine *e) {
        return e->ops->now_ns(e->userdata);
}
static inline void probe_engine_cpu_usec(ProbeEngine *e, usec_t *ret_user, usec_t *ret_sys) {
        e->ops->cpu_usec(e->userdata, ret_user, ret_sys);
}
static inline nsec_t probe_engine_cpu_wait_ns(ProbeEngine *e) {
        return e->ops->cpu_wait_ns ? e->ops->cpu_wait_ns(e->userdata) : NSEC_INFINITY;
}

/* ---- Scripted engine (tests) ----
 * Virtual time starts at start_ns and advances only inside getevents() (to the completion it
 * waits for, or by the whole timeout when nothing can complete) and by submit_cost_ns per
 * submit() call. The k-th accepted read (0-based) completes latencies_ns[k % n_latencies] after
 * its submission, full length unless a fault says otherwise; reads complete independently (an
 * infinitely parallel device). Faults are keyed by 1-based ordinals. */

typedef enum ProbeFaultWhen {
        PROBE_FAULT_SUBMIT,     /* the nth read offered to submit() is refused with error */
        PROBE_FAULT_COMPLETION, /* the nth reaped completion carries error / is short / hangs */
        PROBE_FAULT_GETEVENTS,  /* the nth getevents() call returns error */
        _PROBE_FAULT_WHEN_MAX,
        _PROBE_FAULT_WHEN_INVALID = -EINVAL,
} ProbeFaultWhen;

typedef enum ProbeFaultAction {
        PROBE_FAULT_ERROR, /* -error */
        PROBE_FAULT_SHORT, /* completes with half its length (rounded down to 512) */
        PROBE_FAULT_HANG,  /* PROBE_FAULT_COMPLETION only: the nth submitted read never completes */
        _PROBE_FAULT_ACTION_MAX,
        _PROBE_FAULT_ACTION_INVALID = -EINVAL,
} ProbeFaultAction;

typedef struct ProbeFault {
        ProbeFaultWhen when;
        ProbeFaultAction action;
        uint64_t nth; /* 1-based; for HANG: the nth *submitted* read */
        int error;    /* positive errno for PROBE_FAULT_ERROR */
} ProbeFault;

typedef struct ProbeScript {
        nsec_t start_ns;
        const nsec_t *latencies_ns;
        size_t n_latencies;
        nsec_t submit_cost_ns;
        usec_t cpu_user_usec_per_io, cpu_sys_usec_per_io;
        nsec_t cpu_wait_ns_per_io; /* the thread's wait for a CPU per accepted read */
        nsec_t sync_ns;            /* how long each sync() takes (virtual time) */
        const ProbeFault *faults;
        size_t n_faults;
} ProbeScript;

typedef struct ProbeScriptStats {
        uint64_t submitted;         /* reads and writes accepted */
        uint64_t writes;            /* of those, writes */
        uint64_t syncs;             /* sync() calls */
        uint64_t completed;         /* completions reaped */
        uint64_t misaligned;        /* reads whose offset or length was not a multiple of 512 */
        uint64_t out_of_range;      /* reads past range_bytes (if set) */
        uint64_t reused_slot;       /* reads naming a slot still in flight (a probe bug) */
        unsigned max_inflight;      /* highest number of reads in flight at once */
        uint64_t first_offsets[16]; /* offsets of the first 16 accepted reads */
        unsigned reserves;          /* reserve() calls */
        unsigned reserved_depth;    /* arguments of the last reserve() */
        uint64_t reserved_bytes;
        unsigned setups;                /* setup() calls */
        unsigned setups_beyond_reserve; /* setup() asking more than reserved (a probe bug) */
} ProbeScriptStats;

/* Scripted engine. The script (and the arrays it points to) must outlive the engine.
 * range_bytes (0 = unchecked) is the size reads are checked against. */
int probe_engine_new_scripted(const ProbeScript *script, uint64_t range_bytes, ProbeEngine **ret);
/* Copy out what the scripted engine saw. -EINVAL if e is not a scripted engine. */
int probe_engine_scripted_stats(ProbeEngine *e, ProbeScriptStats *ret);

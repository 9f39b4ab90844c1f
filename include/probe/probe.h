/* SPDX-License-Identifier: MIT */
#pragma once

/* A performance probe of one target over a ProbeEngine. A read probe (the default) has up to three
 * phases, run in this order, each skipped when configured off:
 *   sequential   seq_bytes read in seq_block_size reads, seq_queue_depth in flight, from a start
 *                offset drawn at random among block-aligned offsets (so repeated probes do not
 *                hit a controller cache), wrapping to offset 0 at the end -> bytes/s; at most
 *                the whole target once (seq_bytes beyond its size is clamped: phase bytes say
 *                how much was read), never a second pass over what a cache now holds;
 *   random       rand_block_size reads at offsets uniform over the target (aligned to the block
 *                size), rand_queue_depth in flight, for rand_duration_usec or rand_count reads
 *                -> IOPS and a latency histogram;
 *   random_deep  the same at rand_deep_queue_depth.
 * A write probe (params.write) runs instead, over a scratch file that probe_scratch_open()
 * created and opened O_RDWR (never a block device: probe_target_open() opens every target
 * O_RDONLY, and the kernel refuses a write on such an fd):
 *   write_sequential  seq_bytes written as the sequential reads are (same block size, depth,
 *                     random start, at most the file once) -> bytes/s;
 *   write_random      rand_block_size writes at uniform offsets, rand_queue_depth in flight, for
 *                     rand_duration_usec or rand_count writes -> IOPS and write latency;
 *   write_sync        the same at depth 1, each write followed by fdatasync(): the histogram holds
 *                     the fdatasync() latency alone (a cache flush on a write-back device, the
 *                     journal commit of the filesystem), IOPS the write+sync cycles per second.
 * Latency of a read is measured from just before its submit to just after its reap.
 * The whole probe has one deadline (timeout_usec); when it passes the probe ends as STALLED with
 * whatever it measured so far, reads possibly still in flight (see probe-runner.h for why the
 * caller must then not wait for the engine). Results are plain data (memcpy-able through a pipe).
 *
 * Fault handling: a read completing with -EAGAIN/-EINTR is resubmitted (up to
 * PROBE_MAX_RETRIES times, then it counts as an error); a refused submit with -EAGAIN/-EINTR is
 * retried likewise; any other error counts, with its offset (the first PROBE_ERROR_OFFSETS_MAX
 * kept). A short read counts its bytes, is recorded as an error at its offset (code 0) and is not
 * resubmitted: a direct read inside the target's size only comes back short when the target
 * shrank under us, and resubmitting the rest would spin at the new end. A phase stops issuing
 * reads after max_errors errors. Failed and short reads are not in the latency histogram. */

#include <stdbool.h>
#include <stdint.h>

#include "basic/string-table.h"
#include "model/histogram.h"
#include "probe/probe-engine.h"
#include "basic/time-util.h"

#define PROBE_ERROR_OFFSETS_MAX  16
#define PROBE_MAX_RETRIES        8
#define PROBE_QUEUE_DEPTH_MAX    1024U
#define PROBE_BLOCK_SIZE_MAX     (1U << 30)
#define PROBE_SEQ_BYTES_MAX      ((uint64_t) 1 << 50)
#define PROBE_DURATION_MAX_USEC  ((usec_t) 24 * 3600 * USEC_PER_SEC)
#define PROBE_MAX_ERRORS_DEFAULT 64U
#define PROBE_WRITE_FILE_MIN     ((uint64_t) 1 << 20)
#define PROBE_WRITE_FILE_MAX     ((uint64_t) 1 << 40)
#define PROBE_WRITE_FILE_DEFAULT ((uint64_t) 64 << 20)

typedef enum ProbeState {
        PROBE_STATE_OK,      /* every read succeeded */
        PROBE_STATE_ERROR,   /* finished, but some reads failed or came back short */
        PROBE_STATE_STALLED, /* the deadline passed before the probe finished */
        _PROBE_STATE_MAX,
        _PROBE_STATE_INVALID = -EINVAL,
} ProbeState;

typedef enum ProbePhase {
        PROBE_PHASE_SEQUENTIAL,
        PROBE_PHASE_RANDOM,
        PROBE_PHASE_RANDOM_DEEP,
        PROBE_PHASE_WRITE_SEQUENTIAL,
        PROBE_PHASE_WRITE_RANDOM,
        PROBE_PHASE_WRITE_SYNC,
        _PROBE_PHASE_MAX,
        _PROBE_PHASE_INVALID = -EINVAL,
} ProbePhase;

/* Names a parameter that failed validation; to_string gives the CLI option name without "--". */
typedef enum ProbeParam {
        PROBE_PARAM_SEQ_BYTES,
        PROBE_PARAM_SEQ_BLOCK_SIZE,
        PROBE_PARAM_SEQ_QUEUE_DEPTH,
        PROBE_PARAM_RAND_BLOCK_SIZE,
        PROBE_PARAM_RAND_QUEUE_DEPTH,
        PROBE_PARAM_RAND_DURATION,
        PROBE_PARAM_RAND_COUNT,
        PROBE_PARAM_TIMEOUT,
        PROBE_PARAM_WRITE_SIZE,
        _PROBE_PARAM_MAX,
        _PROBE_PARAM_INVALID = -EINVAL,
} ProbeParam;

DECLARE_STRING_TABLE_LOOKUP(probe_state, ProbeState);
DECLARE_STRING_TABLE_LOOKUP(probe_phase, ProbePhase);
DECLARE_STRING_TABLE_LOOKUP(probe_param, ProbeParam);

/* A write phase (write_sequential, write_random, write_sync). */
bool probe_phase_is_write(ProbePhase p) _const_;
/* The phase's name within its direction: "sequential", "random", "random_deep", "sequential",
 * "random", "sync" (the `phase` label of the read and the write metric families). NULL if
 * invalid. */
const char *probe_phase_label(ProbePhase p) _const_;

typedef struct ProbeParams {
        uint64_t seq_bytes; /* 0: no sequential phase */
        uint32_t seq_block_size;
        unsigned seq_queue_depth;
        uint32_t rand_block_size;
        unsigned rand_queue_depth;      /* 0: no random phase */
        unsigned rand_deep_queue_depth; /* 0: no random_deep phase */
        usec_t rand_duration_usec;      /* per random phase, used when rand_count == 0 */
        uint64_t rand_count;            /* reads per random phase; 0: duration-based */
        usec_t timeout_usec;            /* the whole probe */
        uint64_t seed;                  /* offsets are a pure function of the seed */
        unsigned max_errors;            /* per phase; 0 means PROBE_MAX_ERRORS_DEFAULT */
        bool idle_priority; /* probe-runner: child at nice 19, I/O class idle (BFQ honours it) */
        /* The write phases instead of the read phases: the path is a directory on a mounted
         * filesystem and the writes go to its scratch file of write_file_bytes (probe-scratch.h) */
        bool write;
        uint64_t write_file_bytes;
        uint64_t write_dev; /* the directory's st_dev must be this (makedev()); 0: any */
} ProbeParams;

/* Short defaults: 64 MiB sequential at 1 MiB QD4, 2 s random 4 KiB at QD1 and QD32, 30 s. */
#define PROBE_PARAMS_DEFAULT                                                                       \
        ((ProbeParams){                                                                            \
                .seq_bytes = 64U << 20,                                                            \
                .seq_block_size = 1U << 20,                                                        \
                .seq_queue_depth = 4,                                                              \
                .rand_block_size = 4096,                                                           \
                .rand_queue_depth = 1,                                                             \
                .rand_deep_queue_depth = 32,                                                       \
                .rand_duration_usec = 2 * USEC_PER_SEC,                                            \
                .timeout_usec = 30 * USEC_PER_SEC,                                                 \
                .write_file_bytes = PROBE_WRITE_FILE_DEFAULT,                                      \
        })

typedef struct ProbePhaseResult {
        bool ran;
        ProbeState state;
        uint32_t block_size; /* effective: clamped to the target's size */
        unsigned queue_depth;
        uint64_t ios;         /* reads that completed in full */
        uint64_t bytes;       /* bytes read, short reads included */
        uint64_t errors;      /* failed + short reads */
        uint64_t short_reads; /* included in errors */
        uint64_t retries;     /* -EAGAIN/-EINTR resubmits and getevents retries */
        nsec_t elapsed_ns;    /* first submit to last reap */
        LatencyHistogram latency;
} ProbePhaseResult;

typedef struct ProbeResult {
        ProbeState state; /* the worst over the phases that ran */
        ProbePhaseResult phases[_PROBE_PHASE_MAX];
        uint64_t errors; /* sum over phases */
        unsigned n_error_offsets;
        uint64_t error_offsets[PROBE_ERROR_OFFSETS_MAX];
        int error_codes[PROBE_ERROR_OFFSETS_MAX]; /* -errno, 0 for a short read */
        nsec_t elapsed_ns;
        usec_t cpu_user_usec, cpu_sys_usec; /* of the probing thread, over the whole probe */
        nsec_t cpu_wait_ns; /* runnable but waiting for a CPU meanwhile; NSEC_INFINITY unknown */
} ProbeResult;

typedef struct ProbeProgress {
        ProbePhase phase;
        double fraction; /* of this phase, [0, 1] */
        uint64_t ios, bytes, errors;
        bool done; /* the phase's final report */
        /* CLOCK_MONOTONIC when the helper sent it (probe-runner; 0 from probe_run() itself): by
         * then the device had counted no more of the probe's reads than it reported plus one
         * queue in flight, however late the report is read */
        usec_t sent_usec;
} ProbeProgress;

/* Called from inside probe_run() at most every PROBE_PROGRESS_INTERVAL_NS of engine time. */
typedef void (*probe_progress_t)(const ProbeProgress *p, void *userdata);
#define PROBE_PROGRESS_INTERVAL_NS (100 * NSEC_PER_MSEC)

/* Static checks of p (ranges, zero depths, absurd sizes, buffer memory). Returns 0, or -EINVAL
 * with the offending parameter in *ret_bad (-ERANGE for a value out of range). Pure. */
int probe_params_validate(const ProbeParams *p, ProbeParam *ret_bad);
/* Checks that need the target: block sizes must be multiples of its logical block size.
 * Returns 0 or -EINVAL with *ret_bad set. Pure. */
int probe_params_validate_for_target(const ProbeParams *p, uint32_t logical_block_size,
                                     ProbeParam *ret_bad);

/* Run the probe over engine e (not yet set up; probe_run() calls setup per phase) reading a
 * target of size_bytes with the given logical block size and buffer alignment. Returns 0 with
 * *ret filled (its state says ok/error/stalled), or -errno when the probe could not start or
 * the engine failed outright (-EINVAL/-ERANGE for bad params, setup errors). progress may be
 * NULL. The engine may have reads in flight afterwards when the result is STALLED. */
int probe_run(ProbeEngine *e, uint64_t size_bytes, uint32_t logical_block_size, uint32_t mem_align,
              int fd, const ProbeParams *p, probe_progress_t progress, void *userdata,
              ProbeResult *ret);

/* Rates of a phase; 0 when it did not run or took no time. */
double probe_phase_bytes_per_second(const ProbePhaseResult *r) _pure_;
double probe_phase_iops(const ProbePhaseResult *r) _pure_;

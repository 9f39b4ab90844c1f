/* SPDX-License-Identifier: MIT */
/* The probe logic: turns parameters into a stream of aligned reads over an engine and the
 * completions back into bytes/s, IOPS and a latency histogram. It reads time only through the
 * engine (virtual under the scripted engine, so tests predict results exactly) and does no I/O
 * of its own. Each phase keeps up to queue_depth reads in flight: the slot bookkeeping, the
 * pending-submit batch and the completion array are allocated once per phase, so the steady
 * state is reap a batch -> account -> refill -> one submit, without allocation. Invariants: a
 * slot is either free, pending (prepared, not yet accepted by the engine) or in flight;
 * free + pending + in flight == depth. */

#include <string.h>

#include "basic/string-table.h"
#include "probe/probe.h"

static const char *const probe_state_table[_PROBE_STATE_MAX] = {
        [PROBE_STATE_OK] = "ok",
        [PROBE_STATE_ERROR] = "error",
        [PROBE_STATE_STALLED] = "stalled",
};

static const char *const probe_phase_table[_PROBE_PHASE_MAX] = {
        [PROBE_PHASE_SEQUENTIAL] = "sequential",
        [PROBE_PHASE_RANDOM] = "random",
        [PROBE_PHASE_RANDOM_DEEP] = "random_deep",
        [PROBE_PHASE_WRITE_SEQUENTIAL] = "write_sequential",
        [PROBE_PHASE_WRITE_RANDOM] = "write_random",
        [PROBE_PHASE_WRITE_SYNC] = "write_sync",
};

static const char *const probe_phase_label_table[_PROBE_PHASE_MAX] = {
        [PROBE_PHASE_SEQUENTIAL] = "sequential",   [PROBE_PHASE_RANDOM] = "random",
        [PROBE_PHASE_RANDOM_DEEP] = "random_deep", [PROBE_PHASE_WRITE_SEQUENTIAL] = "sequential",
        [PROBE_PHASE_WRITE_RANDOM] = "random",     [PROBE_PHASE_WRITE_SYNC] = "sync",
};

static const char *const probe_param_table[_PROBE_PARAM_MAX] = {
        [PROBE_PARAM_SEQ_BYTES] = "seq-bytes",
        [PROBE_PARAM_SEQ_BLOCK_SIZE] = "block-size",
        [PROBE_PARAM_SEQ_QUEUE_DEPTH] = "queue-depth",
        [PROBE_PARAM_RAND_BLOCK_SIZE] = "rand-block-size",
        [PROBE_PARAM_RAND_QUEUE_DEPTH] = "rand-queue-depth",
        [PROBE_PARAM_RAND_DURATION] = "rand-seconds",
        [PROBE_PARAM_RAND_COUNT] = "rand-count",
        [PROBE_PARAM_TIMEOUT] = "timeout",
        [PROBE_PARAM_WRITE_SIZE] = "write-size",
};

DEFINE_STRING_TABLE_LOOKUP(probe_state, ProbeState, probe_state_table)
DEFINE_STRING_TABLE_LOOKUP(probe_phase, ProbePhase, probe_phase_table)
DEFINE_STRING_TABLE_LOOKUP(probe_param, ProbeParam, probe_param_table)

bool probe_phase_is_write(ProbePhase p) {
        return p >= PROBE_PHASE_WRITE_SEQUENTIAL && p < _PROBE_PHASE_MAX;
}

const char *probe_phase_label(ProbePhase p) {
        return p >= 0 && p < _PROBE_PHASE_MAX ? probe_phase_label_table[p] : NULL;
}

static int bad(ProbeParam which, int error, ProbeParam *ret_bad) {
        if (ret_bad)
                *ret_bad = which;
        return error;
}

static bool block_size_ok(uint32_t bs) {
        return bs >= 512 && bs <= PROBE_BLOCK_SIZE_MAX && bs % 512 == 0;
}

int probe_params_validate(const ProbeParams *p, ProbeParam *ret_bad) {
        if (!p)
                return -EINVAL;
        if (p->seq_bytes > PROBE_SEQ_BYTES_MAX)
                return bad(PROBE_PARAM_SEQ_BYTES, -ERANGE, ret_bad);
        if (p->seq_bytes > 0) {
                if (!block_size_ok(p->seq_block_size))
                        return bad(PROBE_PARAM_SEQ_BLOCK_SIZE, -ERANGE, ret_bad);
                if (p->seq_queue_depth == 0 || p->seq_queue_depth > PROBE_QUEUE_DEPTH_MAX)
                        return bad(PROBE_PARAM_SEQ_QUEUE_DEPTH, -ERANGE, ret_bad);
                if ((uint64_t) p->seq_queue_depth * p->seq_block_size >
                    PROBE_ENGINE_MAX_BUFFER_BYTES)
                        return bad(PROBE_PARAM_SEQ_QUEUE_DEPTH, -ERANGE, ret_bad);
        }
        if (p->rand_queue_depth > PROBE_QUEUE_DEPTH_MAX ||
            p->rand_deep_queue_depth > PROBE_QUEUE_DEPTH_MAX ||
            (p->rand_queue_depth == 0 && p->rand_deep_queue_depth > 0))
                return bad(PROBE_PARAM_RAND_QUEUE_DEPTH, -ERANGE, ret_bad);
        if (p->rand_queue_depth > 0) {
                if (!block_size_ok(p->rand_block_size))
                        return bad(PROBE_PARAM_RAND_BLOCK_SIZE, -ERANGE, ret_bad);
                if ((uint64_t) MAX(p->rand_queue_depth, p->rand_deep_queue_depth) *
                            p->rand_block_size >
                    PROBE_ENGINE_MAX_BUFFER_BYTES)
                        return bad(PROBE_PARAM_RAND_QUEUE_DEPTH, -ERANGE, ret_bad);
                if (p->rand_count == 0 &&
                    (p->rand_duration_usec == 0 || p->rand_duration_usec > PROBE_DURATION_MAX_USEC))
                        return bad(PROBE_PARAM_RAND_DURATION, -ERANGE, ret_bad);
                if (p->rand_count > PROBE_SEQ_BYTES_MAX)
                        return bad(PROBE_PARAM_RAND_COUNT, -ERANGE, ret_bad);
        }
        if (p->timeout_usec == 0 || p->timeout_usec > PROBE_DURATION_MAX_USEC)
                return bad(PROBE_PARAM_TIMEOUT, -ERANGE, ret_bad);
        if (p->write &&
            (p->write_file_bytes < PROBE_WRITE_FILE_MIN ||
             p->write_file_bytes > PROBE_WRITE_FILE_MAX || p->write_file_bytes % 4096 != 0))
                return bad(PROBE_PARAM_WRITE_SIZE, -ERANGE, ret_bad);
        return 0;
}

int probe_params_validate_for_target(const ProbeParams *p, uint32_t logical_block_size,
                                     ProbeParam *ret_bad) {
        if (!p || logical_block_size == 0)
                return -EINVAL;
        if (p->seq_bytes > 0 && p->seq_block_size % logical_block_size != 0)
                return bad(PROBE_PARAM_SEQ_BLOCK_SIZE, -EINVAL, ret_bad);
        if (p->rand_queue_depth > 0 && p->rand_block_size % logical_block_size != 0)
                return bad(PROBE_PARAM_RAND_BLOCK_SIZE, -EINVAL, ret_bad);
        return 0;
}

double probe_phase_bytes_per_second(const ProbePhaseResult *r) {
        if (!r->ran || r->elapsed_ns == 0)
                return 0;
        return (double) r->bytes * (double) NSEC_PER_SEC / (double) r->elapsed_ns;
}

double probe_phase_iops(const ProbePhaseResult *r) {
        if (!r->ran || r->elapsed_ns == 0)
                return 0;
        return (double) r->ios * (double) NSEC_PER_SEC / (double) r->elapsed_ns;
}

/* splitmix64: tiny, fast, full-period; offsets only need to be uniform, not secret. */
static uint64_t rng_next(uint64_t *state) {
        uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));

        z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
        return z ^ (z >> 31);
}

/* Uniform in [0, n) (Lemire's multiply-shift; the bias is < n / 2^64, negligible). */
static uint64_t rng_below(uint64_t *state, uint64_t n) {
        return (uint64_t) (((unsigned __int128) rng_next(state) * n) >> 64);
}

typedef struct Slot {
        uint64_t offset;
        uint32_t length;
        unsigned retries;
        nsec_t submit_ns;
} Slot;

typedef struct Phase {
        ProbeEngine *e;
        ProbePhase which;
        ProbePhaseResult *res;
        ProbeResult *total;
        probe_progress_t progress;
        void *userdata;

        bool sequential;
        bool write; /* writes instead of reads */
        bool sync;  /* fdatasync() after each write (depth 1) */
        uint32_t bs;
        unsigned depth;
        uint64_t nblocks, next_block, rng;
        uint64_t issued, to_issue; /* to_issue == 0: duration-based */
        nsec_t start_ns, stop_ns, deadline_ns, next_progress_ns;
        unsigned max_errors;
        bool stop_issuing;

        Slot *slots;
        uint32_t *free_slots;
        unsigned n_free, inflight;
        ProbeIo *pending;
        unsigned n_pending;
        ProbeCompletion *events;
} Phase;

static void phase_free(Phase *ph) {
        free(ph->slots);
        free(ph->free_slots);
        free(ph->pending);
        free(ph->events);
}

static void record_error(Phase *ph, uint64_t offset, int code) {
        ProbeResult *t = ph->total;

        ph->res->errors++;
        t->errors++;
        if (t->n_error_offsets < PROBE_ERROR_OFFSETS_MAX) {
                t->error_offsets[t->n_error_offsets] = offset;
                t->error_codes[t->n_error_offsets] = code;
                t->n_error_offsets++;
        }
        if (ph->res->errors >= ph->max_errors)
                ph->stop_issuing = true;
}

static bool want_more(const Phase *ph, nsec_t now_ns) {
        if (ph->stop_issuing)
                return false;
        if (ph->to_issue > 0)
                return ph->issued < ph->to_issue;
        return now_ns < ph->stop_ns;
}

static void queue_read(Phase *ph, uint32_t slot, uint64_t offset) {
        ph->slots[slot] = (Slot){ .offset = offset, .length = ph->bs };
        ph->pending[ph->n_pending++] = (ProbeIo){
                .offset = offset,
                .length = ph->bs,
                .slot = slot,
                .write = ph->write,
        };
}

static void refill(Phase *ph, nsec_t now_ns) {
        while (ph->n_free > 0 && want_more(ph, now_ns)) {
                uint64_t block;

                if (ph->sequential) {
                        block = ph->next_block;
                        ph->next_block = ph->next_block + 1 >= ph->nblocks ? 0 : ph->next_block + 1;
                } else
                        block = rng_below(&ph->rng, ph->nblocks);
                queue_read(ph, ph->free_slots[--ph->n_free], block * ph->bs);
                ph->issued++;
        }
}

static void drop_pending_head(Phase *ph) {
        ph->free_slots[ph->n_free++] = ph->pending[0].slot;
        memmove(ph->pending, ph->pending + 1, --ph->n_pending * sizeof(*ph->pending));
}

/* Hand the pending batch to the engine. Stops early (pending kept) when the engine pushes back
 * with -EAGAIN/-EINTR while reads are in flight: reaping makes room. */
static void flush_pending(Phase *ph) {
        unsigned refused = 0;

        while (ph->n_pending > 0) {
                nsec_t t = probe_engine_now_ns(ph->e);
                int r = probe_engine_submit(ph->e, ph->pending, ph->n_pending);

                if (r > 0) {
                        unsigned n = MIN((unsigned) r, ph->n_pending);

                        for (unsigned i = 0; i < n; i++)
                                ph->slots[ph->pending[i].slot].submit_ns = t;
                        ph->inflight += n;
                        ph->n_pending -= n;
                        if (ph->n_pending > 0)
                                memmove(ph->pending, ph->pending + n,
                                        ph->n_pending * sizeof(*ph->pending));
                        refused = 0;
                } else if (ERRNO_IS_TRANSIENT(r) && refused < PROBE_MAX_RETRIES) {
                        ph->res->retries++;
                        refused++;
                        if (ph->inflight > 0)
                                return;
                } else {
                        /* The engine refused the first read for good (or r == 0, which an
                         * engine must not return for n > 0): count it and move on. */
                        record_error(ph, ph->pending[0].offset, r < 0 ? r : -EIO);
                        drop_pending_head(ph);
                        refused = 0;
                }
        }
}

/* Keep the queue full. Loops because a refused read frees its slot again; terminates since each
 * round either puts reads in flight, leaves them pending for after a reap, or counts an error
 * (and max_errors stops issuing). */
static void issue(Phase *ph, nsec_t now_ns) {
        do {
                refill(ph, now_ns);
                flush_pending(ph);
        } while (ph->n_pending == 0 && ph->n_free > 0 && want_more(ph, now_ns));
}

/* write_sync: the write landed (depth 1, so nothing else is in flight); make it durable and
 * time only the fdatasync(). */
static void complete_sync(Phase *ph, const Slot *s, nsec_t now_ns) {
        int r = probe_engine_sync(ph->e);
        nsec_t t = probe_engine_now_ns(ph->e);

        ph->res->bytes += s->length;
        if (r < 0) {
                record_error(ph, s->offset, r);
                return;
        }
        ph->res->ios++;
        latency_histogram_add(&ph->res->latency, t > now_ns ? t - now_ns : 0);
}

static void complete(Phase *ph, const ProbeCompletion *c, nsec_t now_ns) {
        Slot *s = &ph->slots[c->slot];

        ph->inflight--;
        if (c->res == (int64_t) s->length && ph->sync)
                complete_sync(ph, s, now_ns);
        else if (c->res == (int64_t) s->length) {
                ph->res->ios++;
                ph->res->bytes += s->length;
                latency_histogram_add(&ph->res->latency,
                                      now_ns > s->submit_ns ? now_ns - s->submit_ns : 0);
        } else if (c->res >= 0) {
                ph->res->bytes += (uint64_t) MIN(c->res, (int64_t) s->length);
                ph->res->short_reads++;
                record_error(ph, s->offset, 0);
        } else if (ERRNO_IS_TRANSIENT((int) c->res) && s->retries < PROBE_MAX_RETRIES) {
                /* Resubmit the same read into the same slot. */
                unsigned retries = s->retries + 1;

                ph->res->retries++;
                queue_read(ph, c->slot, s->offset);
                ph->slots[c->slot].retries = retries;
                return;
        } else
                record_error(ph, s->offset, (int) c->res);
        ph->free_slots[ph->n_free++] = c->slot;
}

static void report_progress(Phase *ph, nsec_t now_ns, bool force) {
        ProbeProgress pr;

        if (!ph->progress || (!force && now_ns < ph->next_progress_ns))
                return;
        ph->next_progress_ns = now_ns + PROBE_PROGRESS_INTERVAL_NS;
        pr = (ProbeProgress){
                .phase = ph->which,
                .ios = ph->res->ios,
                .bytes = ph->res->bytes,
                .errors = ph->res->errors,
        };
        if (force) {
                pr.fraction = 1.0;
                pr.done = true;
        } else if (ph->to_issue > 0)
                pr.fraction = (double) ph->issued / (double) ph->to_issue;
        else if (ph->stop_ns > ph->start_ns)
                pr.fraction =
                        (double) (now_ns - ph->start_ns) / (double) (ph->stop_ns - ph->start_ns);
        pr.fraction = CLAMP(pr.fraction, 0.0, 1.0);
        ph->progress(&pr, ph->userdata);
}

/* Runs one phase to completion, error stop or the deadline. Returns 0 (state in ph->res) or a
 * hard -errno from the engine. */
static int phase_run(Phase *ph) {
        nsec_t now_ns, last_reap_ns;

        ph->slots = calloc(ph->depth, sizeof(*ph->slots));
        ph->free_slots = calloc(ph->depth, sizeof(*ph->free_slots));
        ph->pending = calloc(ph->depth, sizeof(*ph->pending));
        ph->events = calloc(ph->depth, sizeof(*ph->events));
        if (!ph->slots || !ph->free_slots || !ph->pending || !ph->events)
                return -ENOMEM;
        for (unsigned i = 0; i < ph->depth; i++)
                ph->free_slots[ph->n_free++] = ph->depth - 1 - i;

        ph->res->ran = true;
        ph->res->block_size = ph->bs;
        ph->res->queue_depth = ph->depth;
        latency_histogram_init(&ph->res->latency);

        now_ns = last_reap_ns = ph->start_ns = probe_engine_now_ns(ph->e);
        if (ph->to_issue == 0)
                ph->stop_ns = ph->start_ns + ph->stop_ns; /* stop_ns held the duration */
        ph->next_progress_ns = ph->start_ns + PROBE_PROGRESS_INTERVAL_NS;

        issue(ph, now_ns);
        while (ph->inflight > 0 || ph->n_pending > 0) {
                int n;

                if (now_ns >= ph->deadline_ns) {
                        ph->res->state = PROBE_STATE_STALLED;
                        break;
                }
                if (ph->inflight == 0) {
                        /* Only pending reads the engine keeps refusing: flush_pending() bounds
                         * its retries, so this terminates. */
                        flush_pending(ph);
                        now_ns = probe_engine_now_ns(ph->e);
                        continue;
                }
                n = probe_engine_getevents(ph->e, 1, ph->inflight, ph->events,
                                           ph->deadline_ns - now_ns);
                now_ns = probe_engine_now_ns(ph->e);
                if (n < 0) {
                        if (ERRNO_IS_TRANSIENT(n)) {
                                ph->res->retries++;
                                continue;
                        }
                        return n;
                }
                if (n == 0)
                        continue; /* timed out: the deadline check above ends it */
                for (int i = 0; i < n; i++)
                        complete(ph, &ph->events[i], now_ns);
                if (ph->sync) /* the fdatasync() took time too */
                        now_ns = probe_engine_now_ns(ph->e);
                last_reap_ns = now_ns;
                issue(ph, now_ns);
                report_progress(ph, now_ns, false);
        }

        ph->res->elapsed_ns = last_reap_ns - ph->start_ns;
        if (ph->res->state != PROBE_STATE_STALLED) {
                ph->res->state = ph->res->errors > 0 ? PROBE_STATE_ERROR : PROBE_STATE_OK;
                report_progress(ph, now_ns, true);
        }
        return 0;
}

typedef struct PhasePlan {
        uint32_t bs[_PROBE_PHASE_MAX];
        unsigned depth[_PROBE_PHASE_MAX]; /* 0: the phase does not run */
        unsigned max_depth;
        uint64_t max_buffer_bytes;
} PhasePlan;

/* Block size and depth of each phase (block sizes clamped to the target), and the largest
 * engine buffer any of them needs. */
static void plan_phases(const ProbeParams *p, uint64_t size_bytes, uint32_t logical_block_size,
                        uint32_t mem_align, PhasePlan *ret) {
        uint32_t max_bs = (uint32_t) MIN((uint64_t) PROBE_BLOCK_SIZE_MAX,
                                         size_bytes / logical_block_size * logical_block_size);

        *ret = (PhasePlan){};
        for (ProbePhase which = 0; which < _PROBE_PHASE_MAX; which++) {
                if (probe_phase_is_write(which) != p->write)
                        continue;
                switch (which) {
                case PROBE_PHASE_SEQUENTIAL:
                case PROBE_PHASE_WRITE_SEQUENTIAL:
                        if (p->seq_bytes == 0)
                                continue;
                        ret->bs[which] = MIN(p->seq_block_size, max_bs);
                        ret->depth[which] = p->seq_queue_depth;
                        break;
                case PROBE_PHASE_RANDOM:
                case PROBE_PHASE_RANDOM_DEEP:
                case PROBE_PHASE_WRITE_RANDOM:
                        ret->depth[which] = which == PROBE_PHASE_RANDOM_DEEP
                                                    ? p->rand_deep_queue_depth
                                                    : p->rand_queue_depth;
                        ret->bs[which] = MIN(p->rand_block_size, max_bs);
                        break;
                case PROBE_PHASE_WRITE_SYNC:
                        ret->depth[which] = p->rand_queue_depth > 0 ? 1 : 0;
                        ret->bs[which] = MIN(p->rand_block_size, max_bs);
                        break;
                case _PROBE_PHASE_MAX:
                case _PROBE_PHASE_INVALID:
                        continue;
                }
                if (ret->depth[which] == 0)
                        continue;
                ret->max_depth = MAX(ret->max_depth, ret->depth[which]);
                ret->max_buffer_bytes =
                        MAX(ret->max_buffer_bytes,
                            ret->depth[which] * PROBE_ENGINE_SLOT_BYTES(ret->bs[which], mem_align));
        }
}

/* The reads of one phase: how many of which size and depth, from where (a sequential phase from
 * a random block on, the random phases each with a seed of their own from *rng). */
static void phase_plan_io(Phase *ph, const ProbeParams *p, uint64_t size_bytes, uint32_t bs,
                          unsigned depth, uint64_t *rng) {
        ph->write = probe_phase_is_write(ph->which);
        ph->sync = ph->which == PROBE_PHASE_WRITE_SYNC;
        if (ph->which == PROBE_PHASE_SEQUENTIAL || ph->which == PROBE_PHASE_WRITE_SEQUENTIAL) {
                ph->sequential = true;
                /* Never more than the target once: a second pass would re-read what a
                 * controller or drive cache now holds and report the cache. */
                ph->to_issue = MIN((p->seq_bytes + bs - 1) / bs, size_bytes / bs);
        } else {
                ph->to_issue = p->rand_count;
                ph->stop_ns = p->rand_duration_usec * NSEC_PER_USEC;
        }
        ph->bs = bs;
        ph->depth = depth;
        ph->nblocks = size_bytes / bs;
        ph->rng = rng_next(rng);
        if (ph->sequential)
                ph->next_block = rng_below(&ph->rng, ph->nblocks);
}

int probe_run(ProbeEngine *e, uint64_t size_bytes, uint32_t logical_block_size, uint32_t mem_align,
              int fd, const ProbeParams *p, probe_progress_t progress, void *userdata,
              ProbeResult *ret) {
        _cleanup_free_ ProbeResult *res = NULL;
        PhasePlan plan;
        usec_t u0, s0, u1, s1;
        nsec_t w0, w1;
        uint64_t rng;
        nsec_t start_ns, deadline_ns;
        int r;

        if (!e || !p || !ret || logical_block_size == 0)
                return -EINVAL;
        r = probe_params_validate(p, NULL);
        if (r < 0)
                return r;
        r = probe_params_validate_for_target(p, logical_block_size, NULL);
        if (r < 0)
                return r;
        if (size_bytes < logical_block_size)
                return -ENODATA;

        plan_phases(p, size_bytes, logical_block_size, mem_align, &plan);

        res = calloc(1, sizeof(*res));
        if (!res)
                return -ENOMEM;
        /* One buffer and one io context for every phase: reserve the largest first (before
         * the clock starts: mapping and touching the buffer is not the device's time). */
        if (plan.max_depth > 0) {
                r = probe_engine_reserve(e, plan.max_depth, plan.max_buffer_bytes, mem_align);
                if (r < 0)
                        return r;
        }
        rng = p->seed;
        probe_engine_cpu_usec(e, &u0, &s0);
        w0 = probe_engine_cpu_wait_ns(e);
        start_ns = probe_engine_now_ns(e);
        deadline_ns = start_ns + p->timeout_usec * NSEC_PER_USEC;

        for (ProbePhase which = 0; which < _PROBE_PHASE_MAX; which++) {
                uint32_t bs = plan.bs[which];
                unsigned depth = plan.depth[which];
                Phase ph = {
                        .e = e,
                        .which = which,
                        .res = &res->phases[which],
                        .total = res,
                        .progress = progress,
                        .userdata = userdata,
                        .deadline_ns = deadline_ns,
                        .max_errors = p->max_errors > 0 ? p->max_errors : PROBE_MAX_ERRORS_DEFAULT,
                };

                if (depth == 0)
                        continue;
                phase_plan_io(&ph, p, size_bytes, bs, depth, &rng);
                r = probe_engine_setup(e, fd, depth, bs, mem_align);
                if (r >= 0)
                        r = phase_run(&ph);
                phase_free(&ph);
                if (r < 0)
                        return r;

                res->state = MAX(res->state, ph.res->state);
                if (ph.res->state == PROBE_STATE_STALLED)
                        break;
        }

        res->elapsed_ns = probe_engine_now_ns(e) - start_ns;
        probe_engine_cpu_usec(e, &u1, &s1);
        res->cpu_user_usec = u1 - u0;
        res->cpu_sys_usec = s1 - s0;
        w1 = probe_engine_cpu_wait_ns(e);
        res->cpu_wait_ns =
                w0 != NSEC_INFINITY && w1 != NSEC_INFINITY && w1 >= w0 ? w1 - w0 : NSEC_INFINITY;
        memcpy(ret, res, sizeof(*res));
        return 0;
}

/* SPDX-License-Identifier: MIT */
/* The scripted probe engine: a deterministic stand-in for a device, so the probe logic above it
 * is tested exactly (bytes/s, IOPS and percentiles follow from the script, not from a machine).
 * Time is virtual: it moves only when submit() charges submit_cost_ns and when getevents() waits,
 * and then it jumps straight to the completion being waited for (or by the whole timeout when
 * nothing can complete in it, e.g. a hung read). Faults from the script fire on 1-based ordinals
 * of reads offered to submit(), of reaped completions, or of getevents() calls. The engine also
 * records what it was asked to do (alignment, range, slot reuse, peak depth) for the tests. */

#include <string.h>

#include "probe/probe-engine.h"

typedef struct ScriptSlot {
        bool inflight, hang;
        nsec_t done_at;
        uint64_t ordinal; /* 1-based submission number, tie-breaker for equal done_at */
        uint32_t length;
} ScriptSlot;

typedef struct ScriptEngine {
        const ProbeScript *script;
        uint64_t range_bytes;
        nsec_t now;
        unsigned depth, inflight;
        ScriptSlot *slots;
        uint64_t offered, getevents_calls;
        ProbeScriptStats stats;
} ScriptEngine;

static const ProbeFault *find_fault(const ScriptEngine *s, ProbeFaultWhen when, uint64_t nth) {
        for (size_t i = 0; i < s->script->n_faults; i++) {
                const ProbeFault *f = &s->script->faults[i];

                if (f->when == when && f->nth == nth &&
                    (when != PROBE_FAULT_COMPLETION || f->action != PROBE_FAULT_HANG))
                        return f;
        }
        return NULL;
}

static bool is_hang(const ScriptEngine *s, uint64_t submitted_nth) {
        for (size_t i = 0; i < s->script->n_faults; i++) {
                const ProbeFault *f = &s->script->faults[i];

                if (f->when == PROBE_FAULT_COMPLETION && f->action == PROBE_FAULT_HANG &&
                    f->nth == submitted_nth)
                        return true;
        }
        return false;
}

static int script_reserve(void *userdata, unsigned max_depth, uint64_t max_buffer_bytes,
                          uint32_t mem_align) {
        ScriptEngine *s = userdata;

        if (max_depth == 0 || max_buffer_bytes == 0)
                return -EINVAL;
        s->stats.reserves++;
        s->stats.reserved_depth = max_depth;
        s->stats.reserved_bytes = max_buffer_bytes;
        return 0;
}

static int script_setup(void *userdata, int fd, unsigned depth, uint32_t max_io_bytes,
                        uint32_t mem_align) {
        ScriptEngine *s = userdata;

        s->stats.setups++;
        if (s->stats.reserves > 0 &&
            (depth > s->stats.reserved_depth ||
             depth * PROBE_ENGINE_SLOT_BYTES(max_io_bytes, mem_align) > s->stats.reserved_bytes))
                s->stats.setups_beyond_reserve++;

        if (depth == 0 || max_io_bytes == 0)
                return -EINVAL;
        if ((uint64_t) depth * max_io_bytes > PROBE_ENGINE_MAX_BUFFER_BYTES)
                return -E2BIG;
        if (s->inflight > 0)
                return -EBUSY;
        free(s->slots);
        s->slots = calloc(depth, sizeof(*s->slots));
        if (!s->slots)
                return -ENOMEM;
        s->depth = depth;
        return 0;
}

static int script_submit(void *userdata, const ProbeIo *ios, unsigned n) {
        ScriptEngine *s = userdata;

        s->now += s->script->submit_cost_ns;
        for (unsigned i = 0; i < n; i++) {
                const ProbeFault *f = find_fault(s, PROBE_FAULT_SUBMIT, ++s->offered);
                ScriptSlot *slot;
                nsec_t lat;

                if (f)
                        return i > 0 ? (int) i : -f->error;
                if (ios[i].slot >= s->depth || s->slots[ios[i].slot].inflight) {
                        s->stats.reused_slot++;
                        return i > 0 ? (int) i : -EINVAL;
                }
                if (ios[i].offset % 512 != 0 || ios[i].length % 512 != 0 || ios[i].length == 0)
                        s->stats.misaligned++;
                if (s->range_bytes > 0 && (ios[i].offset >= s->range_bytes ||
                                           ios[i].length > s->range_bytes - ios[i].offset))
                        s->stats.out_of_range++;
                if (s->stats.submitted < ELEMENTSOF(s->stats.first_offsets))
                        s->stats.first_offsets[s->stats.submitted] = ios[i].offset;

                lat = s->script->n_latencies > 0
                              ? s->script->latencies_ns[s->stats.submitted % s->script->n_latencies]
                              : 0;
                s->stats.submitted++;
                s->stats.writes += ios[i].write;
                slot = &s->slots[ios[i].slot];
                *slot = (ScriptSlot){
                        .inflight = true,
                        .hang = is_hang(s, s->stats.submitted),
                        .done_at = s->now + lat,
                        .ordinal = s->stats.submitted,
                        .length = ios[i].length,
                };
                s->inflight++;
                s->stats.max_inflight = MAX(s->stats.max_inflight, s->inflight);
        }
        return (int) n;
}

/* The in-flight, completable slot that completes first (ties: submitted first), or -1. Only
 * slots done at or before `limit` count. */
static int next_done(const ScriptEngine *s, nsec_t limit) {
        int best = -1;

        for (unsigned i = 0; i < s->depth; i++) {
                const ScriptSlot *c = &s->slots[i];

                if (!c->inflight || c->hang || c->done_at > limit)
                        continue;
                if (best < 0 || c->done_at < s->slots[best].done_at ||
                    (c->done_at == s->slots[best].done_at && c->ordinal < s->slots[best].ordinal))
                        best = (int) i;
        }
        return best;
}

static int script_getevents(void *userdata, unsigned min, unsigned max, ProbeCompletion *ret,
                            nsec_t timeout_ns) {
        ScriptEngine *s = userdata;
        const ProbeFault *f;
        nsec_t deadline;
        unsigned n = 0;

        f = find_fault(s, PROBE_FAULT_GETEVENTS, ++s->getevents_calls);
        if (f)
                return -f->error;

        deadline = timeout_ns > UINT64_MAX - s->now ? UINT64_MAX : s->now + timeout_ns;
        while (n < max) {
                /* Already done by now: reap without moving the clock. Else, if min not yet
                 * reached, move the clock to the next completion within the deadline. */
                int i = next_done(s, s->now);

                if (i < 0) {
                        if (n >= min)
                                break;
                        i = next_done(s, deadline);
                        if (i < 0) {
                                s->now = deadline;
                                break;
                        }
                        s->now = s->slots[i].done_at;
                }

                ScriptSlot *c = &s->slots[i];
                int64_t res = c->length;

                f = find_fault(s, PROBE_FAULT_COMPLETION, ++s->stats.completed);
                if (f && f->action == PROBE_FAULT_ERROR)
                        res = -f->error;
                else if (f && f->action == PROBE_FAULT_SHORT)
                        res = (c->length / 2) / 512 * 512;
                c->inflight = false;
                s->inflight--;
                ret[n++] = (ProbeCompletion){ .slot = (uint32_t) i, .res = res };
        }
        return (int) n;
}

static int script_sync(void *userdata) {
        ScriptEngine *s = userdata;

        if (s->inflight > 0)
                return -EBUSY; /* a probe bug: sync() is only called with nothing in flight */
        s->stats.syncs++;
        s->now += s->script->sync_ns;
        return 0;
}

static nsec_t script_now_ns(void *userdata) {
        ScriptEngine *s = userdata;

        return s->now;
}

static void script_cpu_usec(void *userdata, usec_t *ret_user, usec_t *ret_sys) {
        ScriptEngine *s = userdata;

        *ret_user = s->stats.submitted * s->script->cpu_user_usec_per_io;
        *ret_sys = s->stats.submitted * s->script->cpu_sys_usec_per_io;
}

static nsec_t script_cpu_wait_ns(void *userdata) {
        ScriptEngine *s = userdata;

        return s->stats.submitted * s->script->cpu_wait_ns_per_io;
}

static void script_destroy(void *userdata) {
        ScriptEngine *s = userdata;

        if (!s)
                return;
        free(s->slots);
        free(s);
}

static const ProbeEngineOps script_ops = {
        .name = "scripted",
        .reserve = script_reserve,
        .setup = script_setup,
        .submit = script_submit,
        .getevents = script_getevents,
        .sync = script_sync,
        .now_ns = script_now_ns,
        .cpu_usec = script_cpu_usec,
        .cpu_wait_ns = script_cpu_wait_ns,
        .destroy = script_destroy,
};

int probe_engine_new_scripted(const ProbeScript *script, uint64_t range_bytes, ProbeEngine **ret) {
        ScriptEngine *s;
        ProbeEngine *e;

        if (!script || !ret || (script->n_latencies > 0 && !script->latencies_ns) ||
            (script->n_faults > 0 && !script->faults))
                return -EINVAL;
        s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        e = calloc(1, sizeof(*e));
        if (!e) {
                free(s);
                return -ENOMEM;
        }
        s->script = script;
        s->range_bytes = range_bytes;
        s->now = script->start_ns;
        e->ops = &script_ops;
        e->userdata = s;
        *ret = e;
        return 0;
}

int probe_engine_scripted_stats(ProbeEngine *e, ProbeScriptStats *ret) {
        ScriptEngine *s;

        if (!e || e->ops != &script_ops || !ret)
                return -EINVAL;
        s = e->userdata;
        *ret = s->stats;
        return 0;
}

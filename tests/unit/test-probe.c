/* SPDX-License-Identifier: MIT */
/* probe.c over the scripted engine: results follow exactly from the script (virtual time), so
 * bytes/s, IOPS and percentiles are asserted exactly; faults are injected on the Nth submit,
 * completion or getevents call. */

#include <string.h>

#include "probe/probe.h"
#include "tap.h"

#define MiB (UINT64_C(1) << 20)
#define KiB (UINT64_C(1) << 10)
#define MS  NSEC_PER_MSEC
#define US  NSEC_PER_USEC

static ProbeParams only_seq(uint64_t bytes, uint32_t bs, unsigned qd) {
        ProbeParams p = PROBE_PARAMS_DEFAULT;

        p.seq_bytes = bytes;
        p.seq_block_size = bs;
        p.seq_queue_depth = qd;
        p.rand_queue_depth = 0;
        p.rand_deep_queue_depth = 0;
        p.seed = 42;
        return p;
}

static ProbeParams only_rand(uint32_t bs, unsigned qd, uint64_t count) {
        ProbeParams p = PROBE_PARAMS_DEFAULT;

        p.seq_bytes = 0;
        p.rand_block_size = bs;
        p.rand_queue_depth = qd;
        p.rand_deep_queue_depth = 0;
        p.rand_count = count;
        p.seed = 7;
        return p;
}

/* Run p over a scripted engine; returns probe_run()'s result, fills *res and *st. */
static int run(const ProbeScript *s, uint64_t size, uint32_t lbs, const ProbeParams *p,
               ProbeResult *res, ProbeScriptStats *st) {
        _cleanup_(probe_engine_freep) ProbeEngine *e = NULL;
        int r;

        r = probe_engine_new_scripted(s, size, &e);
        if (r < 0)
                return r;
        r = probe_run(e, size, lbs, 4096, 3, p, NULL, NULL, res);
        if (st)
                (void) probe_engine_scripted_stats(e, st);
        return r;
}

static void test_sequential_exact(void) {
        static const nsec_t lat[] = { 1 * MS };
        ProbeScript s = { .latencies_ns = lat, .n_latencies = 1 };
        ProbeParams p = only_seq(16 * MiB, 1 * MiB, 4);
        static ProbeResult res;
        ProbeScriptStats st;
        const ProbePhaseResult *ph = &res.phases[PROBE_PHASE_SEQUENTIAL];

        is_int(run(&s, 64 * MiB, 512, &p, &res, &st), 0, "seq: probe runs");
        is_int(res.state, PROBE_STATE_OK, "seq: state ok");
        ok(ph->ran && !res.phases[PROBE_PHASE_RANDOM].ran, "seq: only the sequential phase ran");
        is_u64(ph->ios, 16, "seq: 16 reads of 1 MiB");
        is_u64(ph->bytes, 16 * MiB, "seq: 16 MiB read");
        /* 16 reads, 4 in flight, 1 ms each: 4 waves = 4 ms. */
        is_u64(ph->elapsed_ns, 4 * MS, "seq: elapsed 4 ms of virtual time");
        is_double(probe_phase_bytes_per_second(ph), 16.0 * MiB / 0.004, 1e-3, "seq: bytes/s");
        is_u64(latency_histogram_percentile(&ph->latency, 50), 1 * MS, "seq: p50 1 ms");
        is_u64(ph->latency.max_ns, 1 * MS, "seq: max 1 ms");
        is_int(st.max_inflight, 4, "seq: queue depth 4 reached");
        is_u64(st.misaligned + st.out_of_range + st.reused_slot, 0, "seq: all reads sane");
        is_int(ph->block_size, 1 * MiB, "seq: block size reported");
        is_int(ph->queue_depth, 4, "seq: queue depth reported");
        is_u64(res.errors, 0, "seq: no errors");
}

static void test_sequential_wraps(void) {
        static const nsec_t lat[] = { 10 * US };
        ProbeScript s = { .latencies_ns = lat, .n_latencies = 1 };
        ProbeParams p = only_seq(8 * MiB, 1 * MiB, 1);
        static ProbeResult res;
        ProbeScriptStats st;
        bool consecutive = true;

        is_int(run(&s, 4 * MiB, 512, &p, &res, &st), 0, "wrap: runs");
        is_u64(st.submitted, 4, "clamp: 8 MiB asked of a 4 MiB target: 4 reads, each block once");
        is_u64(res.phases[PROBE_PHASE_SEQUENTIAL].bytes, 4 * MiB, "clamp: 4 MiB read");
        for (unsigned i = 0; i + 1 < 4; i++)
                if (st.first_offsets[i + 1] != (st.first_offsets[i] + 1 * MiB) % (4 * MiB))
                        consecutive = false;
        ok(consecutive, "wrap: offsets consecutive, wrapping at the end");
        is_u64(st.out_of_range, 0, "wrap: nothing past the end");
        ok(st.first_offsets[0] % MiB == 0, "wrap: start offset block aligned");
}

static void test_sequential_start_is_random(void) {
        static const nsec_t lat[] = { 10 * US };
        ProbeScript s = { .latencies_ns = lat, .n_latencies = 1 };
        ProbeParams p = only_seq(1 * MiB, 1 * MiB, 1);
        static ProbeResult res;
        ProbeScriptStats a, b, c;
        unsigned distinct = 0;
        uint64_t seen[8];

        is_int(run(&s, 1024 * MiB, 512, &p, &res, &a), 0, "start: run 1");
        is_int(run(&s, 1024 * MiB, 512, &p, &res, &b), 0, "start: run 2 same seed");
        is_u64(a.first_offsets[0], b.first_offsets[0], "start: same seed, same start");
        for (unsigned i = 0; i < 8; i++) {
                bool dup = false;

                p.seed = 1000 + i;
                (void) run(&s, 1024 * MiB, 512, &p, &res, &c);
                seen[i] = c.first_offsets[0];
                for (unsigned j = 0; j < i; j++)
                        dup = dup || seen[j] == seen[i];
                distinct += !dup;
        }
        ok(distinct >= 6, "start: 8 seeds give >= 6 distinct start offsets (got %u)", distinct);
}

static void test_random_qd1_exact(void) {
        static const nsec_t lat[] = { 100 * US, 200 * US, 300 * US, 400 * US };
        ProbeScript s = { .latencies_ns = lat, .n_latencies = 4 };
        ProbeParams p = only_rand(4096, 1, 1000);
        static ProbeResult res;
        ProbeScriptStats st;
        const ProbePhaseResult *ph = &res.phases[PROBE_PHASE_RANDOM];
        nsec_t p50, p90;
        bool aligned = true;

        is_int(run(&s, 1024 * MiB, 512, &p, &res, &st), 0, "rand: runs");
        is_int(res.state, PROBE_STATE_OK, "rand: ok");
        is_u64(ph->ios, 1000, "rand: 1000 reads");
        /* 250 rounds of 100+200+300+400 us = 250 ms -> 4000 IOPS. */
        is_u64(ph->elapsed_ns, 250 * MS, "rand: 250 ms");
        is_double(probe_phase_iops(ph), 4000.0, 1e-6, "rand: 4000 IOPS");
        p50 = latency_histogram_percentile(&ph->latency, 50);
        p90 = latency_histogram_percentile(&ph->latency, 90);
        is_double((double) p50, 200e3, 200e3 * 0.0079, "rand: p50 = 200 us within 0.79%%");
        is_double((double) p90, 400e3, 400e3 * 0.0079, "rand: p90 = 400 us within 0.79%%");
        is_u64(ph->latency.max_ns, 400 * US, "rand: max exact");
        is_u64(ph->latency.min_ns, 100 * US, "rand: min exact");
        is_double(latency_histogram_mean_ns(&ph->latency), 250e3, 1e-6, "rand: mean 250 us");
        is_int(st.max_inflight, 1, "rand: QD1 never exceeds 1");
        for (unsigned i = 0; i < ELEMENTSOF(st.first_offsets); i++)
                aligned = aligned && st.first_offsets[i] % 4096 == 0;
        ok(aligned, "rand: offsets aligned to the block size");
        is_u64(st.misaligned + st.out_of_range + st.reused_slot, 0, "rand: all reads sane");
}

static void test_random_duration_and_deep(void) {
        static const nsec_t lat[] = { 1 * MS };
        ProbeScript s = { .latencies_ns = lat, .n_latencies = 1 };
        ProbeParams p = only_rand(4096, 1, 0);
        static ProbeResult res;
        ProbeScriptStats st;

        p.rand_duration_usec = 1 * USEC_PER_SEC;
        p.rand_deep_queue_depth = 32;
        is_int(run(&s, 1024 * MiB, 4096, &p, &res, &st), 0, "duration: runs");
        is_u64(res.phases[PROBE_PHASE_RANDOM].ios, 1000, "duration: 1 s of 1 ms reads at QD1");
        is_double(probe_phase_iops(&res.phases[PROBE_PHASE_RANDOM]), 1000.0, 1e-6,
                  "duration: 1000 IOPS");
        is_u64(res.phases[PROBE_PHASE_RANDOM_DEEP].ios, 32000, "deep: 32 x 1000 reads in 1 s");
        is_double(probe_phase_iops(&res.phases[PROBE_PHASE_RANDOM_DEEP]), 32000.0, 1e-6,
                  "deep: 32000 IOPS");
        is_int(res.phases[PROBE_PHASE_RANDOM_DEEP].queue_depth, 32, "deep: depth reported");
        is_int(st.max_inflight, 32, "deep: 32 in flight");
        is_u64(res.elapsed_ns, 2 * NSEC_PER_SEC, "duration: whole probe 2 s");
}

static void test_fault_completion_eio(void) {
        static const nsec_t lat[] = { 1 * MS };
        static const ProbeFault f[] = {
                { PROBE_FAULT_COMPLETION, PROBE_FAULT_ERROR, 3, EIO },
        };
        ProbeScript s = { .latencies_ns = lat, .n_latencies = 1, .faults = f, .n_faults = 1 };
        ProbeParams p = only_seq(8 * MiB, 1 * MiB, 1);
        static ProbeResult res;
        ProbeScriptStats st;

        is_int(run(&s, 64 * MiB, 512, &p, &res, &st), 0, "eio: probe still returns a result");
        is_int(res.state, PROBE_STATE_ERROR, "eio: state error");
        is_u64(res.errors, 1, "eio: one error");
        is_u64(res.phases[PROBE_PHASE_SEQUENTIAL].ios, 7, "eio: 7 good reads");
        is_int(res.n_error_offsets, 1, "eio: one offset kept");
        is_u64(res.error_offsets[0], st.first_offsets[2], "eio: offset of the 3rd read");
        is_int(res.error_codes[0], -EIO, "eio: code -EIO");
        is_u64(res.phases[PROBE_PHASE_SEQUENTIAL].latency.count, 7, "eio: failed read not timed");
}

static void test_fault_submit_eio(void) {
        static const nsec_t lat[] = { 1 * MS };
        static const ProbeFault f[] = {
                { PROBE_FAULT_SUBMIT, PROBE_FAULT_ERROR, 2, EIO },
        };
        ProbeScript s = { .latencies_ns = lat, .n_latencies = 1, .faults = f, .n_faults = 1 };
        ProbeParams p = only_seq(4 * MiB, 1 * MiB, 1);
        static ProbeResult res;
        ProbeScriptStats st;

        is_int(run(&s, 64 * MiB, 512, &p, &res, &st), 0, "submit eio: runs");
        is_u64(res.errors, 1, "submit eio: one error");
        is_u64(st.submitted, 3, "submit eio: 3 of 4 reads accepted");
        is_u64(res.error_offsets[0], (st.first_offsets[0] + MiB) % (64 * MiB),
               "submit eio: offset of the refused 2nd read");
        is_u64(st.first_offsets[1], (st.first_offsets[0] + 2 * MiB) % (64 * MiB),
               "submit eio: sequence continues after the refused read");
}

static void test_transient_retried(void) {
        static const nsec_t lat[] = { 1 * MS };
        static const ProbeFault f[] = {
                { PROBE_FAULT_SUBMIT, PROBE_FAULT_ERROR, 2, EAGAIN },
                { PROBE_FAULT_SUBMIT, PROBE_FAULT_ERROR, 5, EINTR },
                { PROBE_FAULT_COMPLETION, PROBE_FAULT_ERROR, 4, EAGAIN },
                { PROBE_FAULT_COMPLETION, PROBE_FAULT_ERROR, 6, EINTR },
                { PROBE_FAULT_GETEVENTS, PROBE_FAULT_ERROR, 3, EINTR },
        };
        ProbeScript s = { .latencies_ns = lat, .n_latencies = 1, .faults = f, .n_faults = 5 };
        ProbeParams p = only_rand(4096, 1, 20);
        static ProbeResult res;
        const ProbePhaseResult *ph = &res.phases[PROBE_PHASE_RANDOM];

        is_int(run(&s, 64 * MiB, 512, &p, &res, NULL), 0, "transient: runs");
        is_int(res.state, PROBE_STATE_OK, "transient: ok, nothing lost");
        is_u64(res.errors, 0, "transient: no errors");
        is_u64(ph->ios, 20, "transient: all 20 reads done");
        is_u64(ph->retries, 5, "transient: 5 retries counted");
}

static void test_transient_gives_up(void) {
        static const nsec_t lat[] = { 1 * MS };
        static ProbeFault f[PROBE_MAX_RETRIES + 1];
        ProbeScript s = { .latencies_ns = lat, .n_latencies = 1, .faults = f };
        ProbeParams p = only_rand(4096, 1, 3);
        static ProbeResult res;

        /* The first read completes with -EAGAIN on every attempt. */
        for (unsigned i = 0; i < ELEMENTSOF(f); i++)
                f[i] = (ProbeFault){ PROBE_FAULT_COMPLETION, PROBE_FAULT_ERROR, i + 1, EAGAIN };
        s.n_faults = ELEMENTSOF(f);
        is_int(run(&s, 64 * MiB, 512, &p, &res, NULL), 0, "give up: runs");
        is_u64(res.phases[PROBE_PHASE_RANDOM].retries, PROBE_MAX_RETRIES,
               "give up: retried PROBE_MAX_RETRIES times");
        is_u64(res.errors, 1, "give up: then counted as an error");
        is_int(res.error_codes[0], -EAGAIN, "give up: code -EAGAIN");
        is_u64(res.phases[PROBE_PHASE_RANDOM].ios, 2, "give up: the other reads done");
}

static void test_short_read(void) {
        static const nsec_t lat[] = { 1 * MS };
        static const ProbeFault f[] = {
                { PROBE_FAULT_COMPLETION, PROBE_FAULT_SHORT, 2, 0 },
        };
        ProbeScript s = { .latencies_ns = lat, .n_latencies = 1, .faults = f, .n_faults = 1 };
        ProbeParams p = only_seq(4 * MiB, 1 * MiB, 1);
        static ProbeResult res;
        ProbeScriptStats st;
        const ProbePhaseResult *ph = &res.phases[PROBE_PHASE_SEQUENTIAL];

        is_int(run(&s, 64 * MiB, 512, &p, &res, &st), 0, "short: runs");
        is_u64(ph->short_reads, 1, "short: counted");
        is_u64(res.errors, 1, "short: is an error");
        is_int(res.error_codes[0], 0, "short: code 0");
        is_u64(res.error_offsets[0], st.first_offsets[1], "short: offset of the 2nd read");
        is_u64(ph->bytes, 3 * MiB + MiB / 2, "short: its half block counted");
        is_u64(st.submitted, 4, "short: not resubmitted");
        is_int(res.state, PROBE_STATE_ERROR, "short: state error");
}

static void test_hang_stalls(void) {
        static const nsec_t lat[] = { 1 * MS };
        static const ProbeFault f[] = {
                { PROBE_FAULT_COMPLETION, PROBE_FAULT_HANG, 5, 0 },
        };
        ProbeScript s = { .latencies_ns = lat, .n_latencies = 1, .faults = f, .n_faults = 1 };
        ProbeParams p = only_rand(4096, 1, 100);
        static ProbeResult res;

        p.rand_deep_queue_depth = 8;
        p.timeout_usec = 3 * USEC_PER_SEC;
        is_int(run(&s, 64 * MiB, 512, &p, &res, NULL), 0, "hang: returns");
        is_int(res.state, PROBE_STATE_STALLED, "hang: stalled");
        is_int(res.phases[PROBE_PHASE_RANDOM].state, PROBE_STATE_STALLED, "hang: phase stalled");
        is_u64(res.phases[PROBE_PHASE_RANDOM].ios, 4, "hang: 4 reads before the hung one");
        ok(!res.phases[PROBE_PHASE_RANDOM_DEEP].ran, "hang: later phases skipped");
        is_u64(res.elapsed_ns, 3 * NSEC_PER_SEC, "hang: ended exactly at the timeout");
}

static void test_max_errors(void) {
        static const nsec_t lat[] = { 1 * MS };
        static ProbeFault f[200];
        ProbeScript s = { .latencies_ns = lat, .n_latencies = 1, .faults = f };
        ProbeParams p = only_rand(4096, 4, 1000);
        static ProbeResult res;

        for (unsigned i = 0; i < ELEMENTSOF(f); i++)
                f[i] = (ProbeFault){ PROBE_FAULT_COMPLETION, PROBE_FAULT_ERROR, i + 1, EIO };
        s.n_faults = ELEMENTSOF(f);
        p.max_errors = 10;
        is_int(run(&s, 64 * MiB, 512, &p, &res, NULL), 0, "max errors: runs");
        ok(res.errors >= 10 && res.errors <= 13, "max errors: stops issuing after 10 (got %llu)",
           (unsigned long long) res.errors);
        is_int(res.n_error_offsets,
               PROBE_ERROR_OFFSETS_MAX > res.errors ? res.errors : PROBE_ERROR_OFFSETS_MAX,
               "max errors: offsets kept");
        is_u64(res.phases[PROBE_PHASE_RANDOM].ios, 0, "max errors: none succeeded");
}

static void test_small_target(void) {
        static const nsec_t lat[] = { 1 * MS };
        ProbeScript s = { .latencies_ns = lat, .n_latencies = 1 };
        ProbeParams p = PROBE_PARAMS_DEFAULT;
        static ProbeResult res;
        ProbeScriptStats st;

        p.rand_count = 10;
        p.seq_bytes = 1 * MiB;
        is_int(run(&s, 3 * 512, 512, &p, &res, &st), 0, "small: 1.5 KiB target probes");
        is_int(res.phases[PROBE_PHASE_SEQUENTIAL].block_size, 1536, "small: seq block clamped");
        is_int(res.phases[PROBE_PHASE_RANDOM].block_size, 1536, "small: rand block clamped");
        is_u64(st.out_of_range + st.misaligned, 0, "small: never past the end");
        res.state = _PROBE_STATE_INVALID;
        is_int(run(&s, 511, 512, &p, &res, NULL), -ENODATA, "small: below one block refused");
        is_int(res.state, _PROBE_STATE_INVALID, "small: result untouched on failure");
}

static void test_cpu_and_progress_cb(const ProbeProgress *pr, void *userdata) {
        unsigned *calls = userdata;

        calls[pr->phase]++;
        if (pr->done)
                calls[_PROBE_PHASE_MAX]++;
}

static void test_cpu_and_progress(void) {
        static const nsec_t lat[] = { 1 * MS };
        ProbeScript s = { .latencies_ns = lat,
                          .n_latencies = 1,
                          .cpu_user_usec_per_io = 5,
                          .cpu_sys_usec_per_io = 2,
                          .cpu_wait_ns_per_io = 300 * 1000 };
        ProbeParams p = only_rand(4096, 1, 1000);
        _cleanup_(probe_engine_freep) ProbeEngine *e = NULL;
        unsigned calls[_PROBE_PHASE_MAX + 1] = {};
        static ProbeResult res;

        is_int(probe_engine_new_scripted(&s, 0, &e), 0, "cpu: engine");
        is_int(probe_run(e, 64 * MiB, 512, 4096, 3, &p, test_cpu_and_progress_cb, calls, &res), 0,
               "cpu: runs");
        is_u64(res.cpu_user_usec, 5000, "cpu: user time from the engine");
        is_u64(res.cpu_sys_usec, 2000, "cpu: system time from the engine");
        is_u64(res.cpu_wait_ns, 300 * MS, "cpu: wait for a CPU from the engine (300 us per read)");
        /* 1 s of virtual time, a report every 100 ms plus the final one. */
        ok(calls[PROBE_PHASE_RANDOM] >= 9 && calls[PROBE_PHASE_RANDOM] <= 11,
           "progress: ~10 reports (got %u)", calls[PROBE_PHASE_RANDOM]);
        is_int(calls[_PROBE_PHASE_MAX], 1, "progress: one final report");
}

static void test_validation(void) {
        ProbeParams p;
        ProbeParam badp;
        static ProbeResult res;
        static const nsec_t lat[] = { 1 * MS };
        ProbeScript s = { .latencies_ns = lat, .n_latencies = 1 };

        p = PROBE_PARAMS_DEFAULT;
        is_int(probe_params_validate(&p, &badp), 0, "valid: defaults");
        is_int(probe_params_validate_for_target(&p, 4096, &badp), 0, "valid: defaults on 4Kn");

#define EXPECT_BAD(field, value, which, desc)                                                      \
        do {                                                                                       \
                p = PROBE_PARAMS_DEFAULT;                                                          \
                p.field = value;                                                                   \
                badp = _PROBE_PARAM_INVALID;                                                       \
                ok(probe_params_validate(&p, &badp) < 0, "invalid: " desc);                        \
                is_str(probe_param_to_string(badp), probe_param_to_string(which),                  \
                       "invalid: " desc " names the option");                                      \
        } while (0)
        EXPECT_BAD(seq_queue_depth, 0, PROBE_PARAM_SEQ_QUEUE_DEPTH, "zero queue depth");
        EXPECT_BAD(seq_queue_depth, 1025, PROBE_PARAM_SEQ_QUEUE_DEPTH, "queue depth > 1024");
        EXPECT_BAD(seq_block_size, 1000, PROBE_PARAM_SEQ_BLOCK_SIZE, "block size not 512n");
        EXPECT_BAD(seq_block_size, 0, PROBE_PARAM_SEQ_BLOCK_SIZE, "zero block size");
        EXPECT_BAD(seq_block_size, (1U << 30) + 512, PROBE_PARAM_SEQ_BLOCK_SIZE,
                   "block size > 1 GiB");
        EXPECT_BAD(seq_bytes, (UINT64_C(1) << 50) + 1, PROBE_PARAM_SEQ_BYTES, "seq bytes absurd");
        EXPECT_BAD(rand_block_size, 100, PROBE_PARAM_RAND_BLOCK_SIZE, "rand block size 100");
        EXPECT_BAD(rand_deep_queue_depth, 5000, PROBE_PARAM_RAND_QUEUE_DEPTH, "deep depth 5000");
        EXPECT_BAD(rand_duration_usec, 0, PROBE_PARAM_RAND_DURATION, "zero duration");
        EXPECT_BAD(timeout_usec, 0, PROBE_PARAM_TIMEOUT, "zero timeout");
        EXPECT_BAD(seq_block_size, 512U << 20, PROBE_PARAM_SEQ_QUEUE_DEPTH,
                   "4 x 512 MiB buffers too much memory");

        p = PROBE_PARAMS_DEFAULT;
        p.rand_block_size = 512;
        ok(probe_params_validate(&p, &badp) == 0, "valid: 512 B random reads on 512n");
        ok(probe_params_validate_for_target(&p, 4096, &badp) < 0 &&
                   badp == PROBE_PARAM_RAND_BLOCK_SIZE,
           "invalid: 512 B random reads on a 4Kn target name rand-block-size");
        res.state = _PROBE_STATE_INVALID;
        is_int(run(&s, 64 * MiB, 4096, &p, &res, NULL), -EINVAL, "invalid: probe_run refuses");
        is_int(res.state, _PROBE_STATE_INVALID, "invalid: result untouched");

        p = PROBE_PARAMS_DEFAULT;
        p.seq_block_size = 6144;
        ok(probe_params_validate_for_target(&p, 4096, &badp) < 0 &&
                   badp == PROBE_PARAM_SEQ_BLOCK_SIZE,
           "invalid: 6 KiB seq blocks on a 4Kn target name block-size");
}

static void test_strings(void) {
        for (ProbeState i = 0; i < _PROBE_STATE_MAX; i++)
                is_int(probe_state_from_string(probe_state_to_string(i)), i, "state %d round trip",
                       i);
        for (ProbePhase i = 0; i < _PROBE_PHASE_MAX; i++)
                is_int(probe_phase_from_string(probe_phase_to_string(i)), i, "phase %d round trip",
                       i);
        for (ProbeParam i = 0; i < _PROBE_PARAM_MAX; i++)
                is_int(probe_param_from_string(probe_param_to_string(i)), i, "param %d round trip",
                       i);
        is_int(probe_state_from_string("bogus"), -EINVAL, "unknown state");
        is_int(probe_state_from_string(NULL), -EINVAL, "NULL state");
        ok(probe_state_to_string(_PROBE_STATE_MAX) == NULL, "out of range state");
}

/* probe_run() reserves the largest buffer of its phases once, before any setup(), so an engine
 * can keep one buffer (and one io context) across phases. */
static void test_reserve_once(void) {
        static const nsec_t lat[] = { 50 * US };
        ProbeScript s = { .latencies_ns = lat, .n_latencies = 1 };
        ProbeParams p = PROBE_PARAMS_DEFAULT;
        static ProbeResult res;
        ProbeScriptStats st;

        p.rand_count = 100;
        p.seed = 3;
        is_int(run(&s, 64 * MiB, 512, &p, &res, &st), 0, "reserve: default probe runs");
        is_int(st.reserves, 1, "reserve: called once");
        is_int(st.reserved_depth, 32, "reserve: the deepest phase (QD32)");
        /* seq 4 x 1 MiB beats random_deep 32 x 4 KiB. */
        is_u64(st.reserved_bytes, 4 * MiB, "reserve: the largest buffer (seq 4 x 1 MiB)");
        is_int(st.setups, 3, "reserve: one setup per phase");
        is_int(st.setups_beyond_reserve, 0, "reserve: no phase needs more than reserved");

        p = only_rand(4 * KiB, 1, 50);
        p.rand_deep_queue_depth = 64;
        is_int(run(&s, 64 * MiB, 512, &p, &res, &st), 0, "reserve: random-only probe runs");
        is_int(st.reserved_depth, 64, "reserve: random-only: depth 64");
        is_u64(st.reserved_bytes, 64 * 4 * KiB, "reserve: random-only: 64 x 4 KiB");
        is_int(st.setups_beyond_reserve, 0, "reserve: random-only: every setup fits");

        /* Slots are rounded up to the buffer alignment (here 4096): 512-byte reads at QD8. */
        p = only_rand(512, 8, 20);
        is_int(run(&s, 64 * MiB, 512, &p, &res, &st), 0, "reserve: 512 B reads run");
        is_u64(st.reserved_bytes, 8 * 4 * KiB, "reserve: 512 B slots take a page each");
        is_int(st.setups_beyond_reserve, 0, "reserve: 512 B: setup fits");
}

/* A write probe: only the three write phases run, every I/O is a write, write_sync calls sync()
 * once per write with nothing in flight and times only the sync (2 ms scripted, the write 1 ms):
 * 10 cycles of 3 ms are 333 cycles/s. */
static void test_write_phases(void) {
        static const nsec_t lat[] = { 1 * MS };
        ProbeScript s = { .latencies_ns = lat, .n_latencies = 1, .sync_ns = 2 * MS };
        ProbeParams p = only_rand(4096, 1, 10);
        static ProbeResult res;
        ProbeScriptStats st;
        const ProbePhaseResult *sync = &res.phases[PROBE_PHASE_WRITE_SYNC];

        p.seq_bytes = 4 * MiB;
        p.seq_block_size = 1 * MiB;
        p.seq_queue_depth = 2;
        p.rand_deep_queue_depth = 32; /* not a write phase: ignored */
        p.write = true;
        is_int(run(&s, 64 * MiB, 512, &p, &res, &st), 0, "write: runs");
        ok(!res.phases[PROBE_PHASE_SEQUENTIAL].ran && !res.phases[PROBE_PHASE_RANDOM].ran &&
                   !res.phases[PROBE_PHASE_RANDOM_DEEP].ran,
           "write: no read phase ran");
        is_u64(res.phases[PROBE_PHASE_WRITE_SEQUENTIAL].bytes, 4 * MiB, "write: 4 MiB written");
        is_u64(res.phases[PROBE_PHASE_WRITE_RANDOM].ios, 10, "write: 10 random writes");
        is_u64(st.submitted, 4 + 10 + 10, "write: 24 I/Os submitted");
        is_u64(st.writes, st.submitted, "write: every I/O was a write");
        is_u64(st.syncs, 10, "write: one sync per write_sync write");
        is_int(sync->queue_depth, 1, "write_sync: depth 1");
        is_u64(sync->ios, 10, "write_sync: 10 cycles");
        is_u64(sync->latency.min_ns, 2 * MS, "write_sync: latency is the sync alone (min)");
        is_u64(sync->latency.max_ns, 2 * MS, "write_sync: latency is the sync alone (max)");
        is_double(probe_phase_iops(sync), 1e9 / (3.0 * MS), 1e-6, "write_sync: 333 cycles/s");
        is_u64(res.phases[PROBE_PHASE_WRITE_RANDOM].latency.max_ns, 1 * MS,
               "write_random: the write's latency");

        /* A read probe never writes nor syncs. */
        p.write = false;
        is_int(run(&s, 64 * MiB, 512, &p, &res, &st), 0, "read: runs");
        ok(st.writes == 0 && st.syncs == 0, "read: no write, no sync");
        ok(!res.phases[PROBE_PHASE_WRITE_SEQUENTIAL].ran && !sync->ran, "read: no write phase");
        ok(probe_phase_is_write(PROBE_PHASE_WRITE_SYNC) &&
                   !probe_phase_is_write(PROBE_PHASE_RANDOM),
           "probe_phase_is_write");
        is_str(probe_phase_label(PROBE_PHASE_WRITE_SYNC), "sync", "label: sync");
        is_str(probe_phase_label(PROBE_PHASE_WRITE_RANDOM), "random", "label: random");

        /* The scratch file's size is checked when writing. */
        p.write = true;
        p.write_file_bytes = 4096;
        is_int(probe_params_validate(&p, NULL), -ERANGE, "write: a 4 KiB scratch file refused");
        p.write_file_bytes = PROBE_WRITE_FILE_MIN + 512;
        is_int(probe_params_validate(&p, NULL), -ERANGE, "write: size not a multiple of 4 KiB");
}

int main(void) {
        test_write_phases();
        test_reserve_once();
        test_sequential_exact();
        test_sequential_wraps();
        test_sequential_start_is_random();
        test_random_qd1_exact();
        test_random_duration_and_deep();
        test_fault_completion_eio();
        test_fault_submit_eio();
        test_transient_retried();
        test_transient_gives_up();
        test_short_read();
        test_hang_stalls();
        test_max_errors();
        test_small_target();
        test_cpu_and_progress();
        test_validation();
        test_strings();
        return tap_done();
}

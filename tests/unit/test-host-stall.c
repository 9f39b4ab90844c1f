/* SPDX-License-Identifier: MIT */
/* Host stalls (analysis/host-stall): a watch timer of 100 ms ticking through probe windows. A
 * host stall (the timer fires 800 ms late in the middle of a 2 s probe) makes the run starved;
 * a slow device or a throttled volume (every tick on time, the probe itself 10x longer) does
 * not; a loaded but running machine (ticks 45 ms late) does not, nor a short stall; a stall just
 * outside the window, or overlapping it partly, counts only for its overlap; the ring keeps the
 * newest 64. */

#include "analysis/host-stall.h"
#include "tap.h"

#define MS USEC_PER_MSEC

/* Tick the watch from t0 to t1; late_at/late: one firing that late (0: none); jitter added to
 * every tick. Returns the time reached. */
static usec_t tick(HostStall *h, const HostStallConfig *c, usec_t t0, usec_t t1, usec_t late_at,
                   usec_t late, usec_t jitter) {
        usec_t t = t0;

        while (t < t1) {
                usec_t due = t + c->interval_usec, fired = due + jitter;

                if (late && due >= late_at && due < late_at + c->interval_usec)
                        fired = due + late;
                (void) host_stall_note(h, c, due, fired);
                t = fired;
        }
        return t;
}

int main(void) {
        const HostStallConfig c = HOST_STALL_CONFIG_DEFAULT;
        HostStall h;
        usec_t end;

        /* host stall: 800 ms in the middle of a 2 s probe */
        host_stall_init(&h);
        end = tick(&h, &c, 0, 2000 * MS, 1000 * MS, 800 * MS, 2 * MS);
        is_int(h.stalls, 1, "one late firing noted");
        is_int(host_stall_late_in(&h, 0, end), 800 * MS, "800 ms of stall in the window");
        ok(host_stall_starved(&c, host_stall_late_in(&h, 0, end), end), "host stall: starved");

        /* slow device / throttled volume: the probe takes 20 s, every tick on time */
        host_stall_init(&h);
        end = tick(&h, &c, 0, 20000 * MS, 0, 0, 1 * MS);
        is_int(h.stalls, 0, "slow device: no stall");
        ok(!host_stall_starved(&c, host_stall_late_in(&h, 0, end), end), "slow device: judged");

        /* a loaded machine whose loop still runs: every tick 45 ms late */
        host_stall_init(&h);
        end = tick(&h, &c, 0, 5000 * MS, 0, 0, 45 * MS);
        is_int(h.stalls, 0, "45 ms late ticks are no stall");
        ok(!host_stall_starved(&c, host_stall_late_in(&h, 0, end), end), "loaded: judged");

        /* a short stall in a long probe: 300 ms in 4 s is under 25% */
        host_stall_init(&h);
        end = tick(&h, &c, 0, 4000 * MS, 2000 * MS, 300 * MS, 0);
        ok(!host_stall_starved(&c, host_stall_late_in(&h, 0, end), end),
           "300 ms of 4 s: judged as it is");
        ok(host_stall_starved(&c, 300 * MS, 1000 * MS), "300 ms of 1 s: starved");
        ok(!host_stall_starved(&c, 160 * MS, 1070 * MS), "160 ms of 1.07 s (TCG): judged");
        ok(!host_stall_starved(&c, 200 * MS, 400 * MS), "under min_usec: not starved");

        /* windows: a stall [1200, 2000] ms against windows before, across and after it */
        host_stall_init(&h);
        ok(host_stall_note(&h, &c, 1200 * MS, 2000 * MS), "800 ms late: a stall");
        is_int(host_stall_late_in(&h, 0, 1000 * MS), 0, "window before it: none");
        is_int(host_stall_late_in(&h, 1500 * MS, 3000 * MS), 500 * MS, "partial overlap");
        is_int(host_stall_late_in(&h, 2000 * MS, 3000 * MS), 0, "window after it: none");
        ok(!host_stall_note(&h, &c, 3000 * MS, 2999 * MS), "early firing: no stall");

        /* the ring keeps the newest HOST_STALL_RING */
        host_stall_init(&h);
        for (unsigned i = 0; i < HOST_STALL_RING + 10; i++)
                (void) host_stall_note(&h, &c, i * 1000 * MS, i * 1000 * MS + 100 * MS);
        is_int(h.n, HOST_STALL_RING, "ring full");
        is_int(h.stalls, HOST_STALL_RING + 10, "all counted");
        is_int(host_stall_late_in(&h, 0, 10000 * MS), 0, "the oldest dropped");
        is_int(host_stall_late_in(&h, 73000 * MS, 73500 * MS), 100 * MS, "the newest kept");
        is_int(h.max_late_usec, 100 * MS, "max");
        return tap_done();
}

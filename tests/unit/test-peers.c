/* SPDX-License-Identifier: MIT */
/* Fail-slow peers: the HDFS limit against a hand calculation, a 4-member array with one member
 * +20 ms (suspect after exactly k_slow runs, normal after m_normal), a two-member array falling
 * back to the own baselines, passive await (with too few reads ignored), a flapping member that
 * never reaches k_slow, and the error paths. */

#include <math.h>
#include <string.h>

#include "analysis/peers.h"
#include "tap.h"

static void test_limit(void) {
        const double v[] = { 1, 1.2, 0.9, 1.1, 30, NAN };
        double med, mad, lim;

        /* median 1.1; |dev| .1 .1 .2 0 28.9 -> median .1, scaled .14826; 3 x 1.1 = 3.3. */
        lim = peers_limit(v, 6, 5, 3, 3, &med, &mad);
        is_double(med, 1.1, 1e-9, "median over the finite values");
        is_double(mad, 0.1 * BASELINE_MAD_SCALE, 1e-9, "scaled MAD");
        is_double(lim, 5, 1e-12, "floor wins");
        lim = peers_limit(v, 6, 0, 3, 3, NULL, NULL);
        is_double(lim, 3.3, 1e-9, "3 x median wins without the floor");
        const double w[] = { 10, 20, 30, 40, 50 }; /* median 30, MAD 10 x 1.4826 */
        lim = peers_limit(w, 5, 0, 1, 3, NULL, NULL);
        is_double(lim, 30 + 3 * 10 * BASELINE_MAD_SCALE, 1e-9, "median + 3 MAD wins");
        ok(isnan(peers_limit(v + 5, 1, 5, 3, 3, NULL, NULL)), "no values: NAN");
}

static int feed4(PeerGroup *g, const PeerConfig *c, double slow_ms, PeerEvent *ev) {
        const char *names[] = { "vdb", "vdc", "vdd", "vde" };
        const double base[] = { 0.8, 1.0, 0.9, 1.1 };
        PeerSample s[4];

        for (int i = 0; i < 4; i++) {
                peer_sample_init(&s[i], names[i]);
                s[i].value_ms[PEER_SOURCE_PROBE] = base[i] + (i == 2 ? slow_ms : 0);
        }
        return peers_feed(g, c, s, 4, ev, 8);
}

static void test_four_members(void) {
        PeerConfig c = PEER_CONFIG_DEFAULT;
        PeerEvent ev[8];
        PeerGroup g;
        char buf[256];

        peer_group_init(&g);
        for (int i = 0; i < 10; i++)
                is_int(feed4(&g, &c, 0, ev), 0, "healthy run %d: no event", i);
        ok(peer_group_slowing(&g) == NULL, "healthy: no member slowing");
        is_int(feed4(&g, &c, 20, ev), 0, "first slow run: not yet");
        ok(peer_group_suspect(&g) == NULL, "no suspect after one slow run");
        is_str(peer_group_slowing(&g), "vdd", "but vdd slowing");
        is_int(feed4(&g, &c, 20, ev), 1, "second slow run: SLOW");
        is_int(ev[0].type, PEER_EVENT_SLOW, "slow event");
        is_str(ev[0].member, "vdd", "the slow member named");
        ok(!ev[0].by_own_baseline, "judged against the peers");
        is_double(ev[0].reference_ms, 1.05, 1e-9, "peers' median (1.0 + 1.1) / 2");
        is_str(peer_group_suspect(&g), "vdd", "group suspect");
        peer_event_format(&ev[0], buf, sizeof(buf));
        tap_diag("%s", buf);
        ok(strstr(buf, "member vdd slow: probe latency 20.90 ms") == buf, "text: %s", buf);
        ok(peer_group_find(&g, "vdb") && !peer_group_find(&g, "vdb")->suspect, "others fine");
        is_int(feed4(&g, &c, 20, ev), 0, "still slow: no repeat");
        is_int(feed4(&g, &c, 0, ev), 0, "normal 1");
        ok(peer_group_slowing(&g) == NULL, "a normal run ends the streak");
        is_int(feed4(&g, &c, 0, ev), 0, "normal 2");
        is_int(feed4(&g, &c, 0, ev), 1, "normal 3: NORMAL");
        is_int(ev[0].type, PEER_EVENT_NORMAL, "normal event");
        ok(peer_group_suspect(&g) == NULL, "no suspect left");
        /* +3 ms on a 1 ms member: 3.9 ms is under the 5 ms floor, not slow. */
        for (int i = 0; i < 5; i++)
                is_int(feed4(&g, &c, 3, ev), 0, "below the floor %d", i);
}

static void test_two_members(void) {
        PeerConfig c = PEER_CONFIG_DEFAULT;
        PeerSample s[2];
        PeerEvent ev[4];
        PeerGroup g;

        peer_group_init(&g);
        peer_sample_init(&s[0], "sda");
        peer_sample_init(&s[1], "sdb");
        s[0].value_ms[PEER_SOURCE_PROBE] = 0.5;
        s[1].value_ms[PEER_SOURCE_PROBE] = 21;
        /* No own baselines: nothing to compare with. */
        is_int(peers_feed(&g, &c, s, 2, ev, 4), 0, "two members without baselines");
        is_int(peers_feed(&g, &c, s, 2, ev, 4), 0, "still nothing");
        ok(!peer_group_find(&g, "sdb") || peer_group_find(&g, "sdb")->judged == 0, "not judged");
        for (int i = 0; i < 2; i++)
                s[i].own[PEER_SOURCE_PROBE] =
                        (BaselineStat){ .ready = true, .n = 32, .median = 0.5, .mad = 0.05 };
        is_int(peers_feed(&g, &c, s, 2, ev, 4), 0, "first judged slow run");
        is_int(peers_feed(&g, &c, s, 2, ev, 4), 1, "own baseline: SLOW");
        is_str(ev[0].member, "sdb", "sdb named");
        ok(ev[0].by_own_baseline, "by its own baseline");
        is_double(ev[0].limit_ms, 5, 1e-9, "limit max(5, 1.5, 0.65)");
}

static void test_await(void) {
        PeerConfig c = PEER_CONFIG_DEFAULT;
        PeerSample s[3];
        PeerEvent ev[6];
        PeerGroup g;
        const double aw[] = { 2, 2.5, 60 };

        peer_group_init(&g);
        for (int i = 0; i < 3; i++) {
                peer_sample_init(&s[i], (const char *[]){ "sda", "sdb", "sdc" }[i]);
                s[i].value_ms[PEER_SOURCE_AWAIT] = aw[i];
                s[i].await_ios = 5;
        }
        is_int(peers_feed(&g, &c, s, 3, ev, 6), 0, "too few reads: ignored");
        is_int(peers_feed(&g, &c, s, 3, ev, 6), 0, "ignored again");
        ok(peer_group_find(&g, "sdc") == NULL || peer_group_find(&g, "sdc")->judged == 0,
           "never judged");
        for (int i = 0; i < 3; i++)
                s[i].await_ios = 500;
        is_int(peers_feed(&g, &c, s, 3, ev, 6), 0, "await slow 1");
        is_int(peers_feed(&g, &c, s, 3, ev, 6), 1, "await slow 2: SLOW");
        is_int(ev[0].source, PEER_SOURCE_AWAIT, "by passive await");
        is_double(ev[0].limit_ms, 20, 1e-9, "await floor 20 ms");
}

/* Write await (issue 26): members are never written by a probe, but a write probe above the
 * array writes to each of them; the member whose writes take 50 ms while its peers' take 1-2 ms
 * (a write-only slowdown: its reads are fine) is found by passive write await, needing 16 writes
 * like the read await needs reads, and the message says so. */
static void test_write_await(void) {
        PeerConfig c = PEER_CONFIG_DEFAULT;
        PeerSample s[3];
        PeerEvent ev[6];
        PeerGroup g;
        const double aw[] = { 1, 1.5, 50 };
        char buf[256];

        peer_group_init(&g);
        for (int i = 0; i < 3; i++) {
                peer_sample_init(&s[i], (const char *[]){ "dm-0", "dm-1", "dm-2" }[i]);
                s[i].value_ms[PEER_SOURCE_AWAIT] = 0.5; /* reads: all alike */
                s[i].await_ios = 100;
                s[i].value_ms[PEER_SOURCE_WRITE_AWAIT] = aw[i];
                s[i].write_await_ios = 10;
        }
        is_int(peers_feed(&g, &c, s, 3, ev, 6), 0, "write await: too few writes, reads normal");
        is_int(peers_feed(&g, &c, s, 3, ev, 6), 0, "write await: still too few writes");
        for (int i = 0; i < 3; i++)
                s[i].write_await_ios = 40;
        is_int(peers_feed(&g, &c, s, 3, ev, 6), 0, "write await slow 1");
        is_int(peers_feed(&g, &c, s, 3, ev, 6), 1, "write await slow 2: SLOW");
        is_str(ev[0].member, "dm-2", "write await: the slow member");
        is_int(ev[0].source, PEER_SOURCE_WRITE_AWAIT, "by passive write await");
        is_double(ev[0].limit_ms, 20, 1e-9, "write await floor 20 ms");
        ok(strstr(peer_event_format(&ev[0], buf, sizeof(buf)), "write await 50.00 ms"),
           "message: %s", buf);
        is_str(peer_source_to_string(PEER_SOURCE_WRITE_AWAIT), "write-await", "source name");
}

/* The CI case: a member +20 ms, probed slow in round 1; a statistics tick between the rounds
 * averages mostly the reads from before the fault (await 5 ms, normal); round 2 is slow again.
 * The probe's streak is its own: SLOW at round 2, not 3. It is normal again only after m_normal
 * normal probe runs, however normal the await reads. */
static void probe3(PeerGroup *g, const PeerConfig *c, double slow_ms, PeerEvent *ev, int want,
                   const char *what) {
        PeerSample s[3];

        for (int i = 0; i < 3; i++) {
                peer_sample_init(&s[i], (const char *[]){ "dm-0", "dm-1", "dm-2" }[i]);
                s[i].value_ms[PEER_SOURCE_PROBE] = 0.14 + (i == 1 ? slow_ms : 0);
        }
        is_int(peers_feed(g, c, s, 3, ev, 6), want, "%s", what);
}

static void await3(PeerGroup *g, const PeerConfig *c, double dm1_ms, PeerEvent *ev, int want,
                   const char *what) {
        PeerSample s[3];

        for (int i = 0; i < 3; i++) {
                peer_sample_init(&s[i], (const char *[]){ "dm-0", "dm-1", "dm-2" }[i]);
                s[i].value_ms[PEER_SOURCE_AWAIT] = i == 1 ? dm1_ms : 0.15;
                s[i].await_ios = 120;
        }
        is_int(peers_feed(g, c, s, 3, ev, 6), want, "%s", what);
}

static void test_sources_streak_apart(void) {
        PeerConfig c = PEER_CONFIG_DEFAULT;
        PeerEvent ev[6];
        PeerGroup g;

        peer_group_init(&g);
        for (int i = 0; i < 5; i++)
                probe3(&g, &c, 0, ev, 0, "healthy round");
        probe3(&g, &c, 24, ev, 0, "round 1 slow: not yet");
        await3(&g, &c, 5, ev, 0, "a tick over mostly healthy reads: normal await");
        probe3(&g, &c, 24, ev, 1,
               "round 2 slow: SLOW (the await did not break the probe's streak)");
        is_int(ev[0].type, PEER_EVENT_SLOW, "slow event");
        is_int(ev[0].runs, 2, "for 2 runs");
        is_int(ev[0].source, PEER_SOURCE_PROBE, "by the probe");
        for (int i = 0; i < 4; i++)
                await3(&g, &c, 0.2, ev, 0, "normal await ticks do not clear a probe's verdict");
        is_str(peer_group_suspect(&g), "dm-1", "still suspect");
        probe3(&g, &c, 0, ev, 0, "probe normal 1");
        probe3(&g, &c, 0, ev, 0, "probe normal 2");
        probe3(&g, &c, 0, ev, 1, "probe normal 3: NORMAL");
        is_int(ev[0].type, PEER_EVENT_NORMAL, "normal event");
        is_int(ev[0].runs, 3, "for 3 runs");
        ok(peer_group_suspect(&g) == NULL, "no suspect");
}

/* The vm-perf case of issue 26 (perf-fail-slow beside a busy host): a RAID1 of three dm-delay
 * members, one +20 ms; the probe finds it slow and so do two 30 s await ticks over the probes'
 * own reads. The delay removed, the probe reads it like its peers, but the array has no
 * foreground: no tick counts 16 reads on three members again, the await never reads normal.
 * The healed member is normal again after m_normal normal probe runs all the same (a source
 * that stopped reading does not hold a verdict), whichever source raised it. */
static void test_healed_without_await(void) {
        PeerConfig c = PEER_CONFIG_DEFAULT;
        PeerEvent ev[6];
        PeerGroup g;

        peer_group_init(&g);
        for (int i = 0; i < 5; i++)
                probe3(&g, &c, 0, ev, 0, "healthy round");
        probe3(&g, &c, 20, ev, 0, "probe slow 1");
        await3(&g, &c, 20.4, ev, 0, "await slow 1");
        probe3(&g, &c, 20, ev, 1, "probe slow 2: SLOW");
        is_int(ev[0].source, PEER_SOURCE_PROBE, "raised by the probe");
        await3(&g, &c, 20.4, ev, 0, "await slow 2");
        probe3(&g, &c, 0, ev, 0, "healed: probe normal 1");
        probe3(&g, &c, 0, ev, 0, "probe normal 2");
        probe3(&g, &c, 0, ev, 1, "probe normal 3: NORMAL (the await read nothing since)");
        is_int(ev[0].type, PEER_EVENT_NORMAL, "normal event");
        ok(peer_group_suspect(&g) == NULL, "no suspect");

        /* raised by the await: the probe's normal runs clear it too */
        peer_group_init(&g);
        for (int i = 0; i < 5; i++)
                probe3(&g, &c, 0, ev, 0, "healthy round");
        await3(&g, &c, 20.4, ev, 0, "await slow 1");
        await3(&g, &c, 20.4, ev, 1, "await slow 2: SLOW");
        is_int(ev[0].source, PEER_SOURCE_AWAIT, "raised by the await");
        probe3(&g, &c, 20, ev, 0, "probe slow");
        probe3(&g, &c, 0, ev, 0, "healed: probe normal 1");
        probe3(&g, &c, 0, ev, 0, "probe normal 2");
        probe3(&g, &c, 0, ev, 1, "probe normal 3: NORMAL");
        is_int(ev[0].type, PEER_EVENT_NORMAL, "normal event");
        ok(peer_group_suspect(&g) == NULL, "no suspect");

        /* a slow await among the probe's normal runs holds the verdict: the count of normal
         * runs starts again after it */
        peer_group_init(&g);
        for (int i = 0; i < 5; i++)
                probe3(&g, &c, 0, ev, 0, "healthy round");
        probe3(&g, &c, 24, ev, 0, "slow 1");
        probe3(&g, &c, 24, ev, 1, "slow 2: SLOW");
        probe3(&g, &c, 0, ev, 0, "probe normal 1");
        probe3(&g, &c, 0, ev, 0, "probe normal 2");
        await3(&g, &c, 60, ev, 0, "await slow between them");
        probe3(&g, &c, 0, ev, 0, "probe normal 1 after the slow await");
        probe3(&g, &c, 0, ev, 0, "probe normal 2 after the slow await");
        is_str(peer_group_suspect(&g), "dm-1", "still suspect (await slow 2 probe runs ago)");
        probe3(&g, &c, 0, ev, 1, "probe normal 3 after the slow await: NORMAL");
}

static void test_flapping(void) {
        PeerConfig c = PEER_CONFIG_DEFAULT;
        PeerEvent ev[8];
        PeerGroup g;
        int flaps = 0, slows = 0;

        peer_group_init(&g);
        for (int i = 0; i < 12; i++) {
                int n = feed4(&g, &c, i % 2 ? 20 : 0, ev);

                for (int k = 0; k < n; k++) {
                        flaps += ev[k].type == PEER_EVENT_FLAPPING;
                        slows += ev[k].type == PEER_EVENT_SLOW;
                        if (ev[k].type == PEER_EVENT_FLAPPING)
                                is_int(i, 5, "flapping on the third slow stretch (run 5)");
                }
        }
        is_int(flaps, 1, "flapping reported once");
        is_int(slows, 0, "never suspect: no two slow runs in a row");
        ok(peer_group_find(&g, "vdd")->flapping, "flapping flag");
        /* 32 quiet runs later the history forgets the stretches. */
        for (int i = 0; i < 32; i++)
                (void) feed4(&g, &c, 0, ev);
        ok(!peer_group_find(&g, "vdd")->flapping, "flapping clears");
}

static void test_errors(void) {
        PeerConfig c = PEER_CONFIG_DEFAULT;
        PeerSample s[PEERS_MAX + 1];
        PeerEvent ev[1];
        PeerGroup g, before;

        is_int(peer_config_validate(&c), 0, "defaults valid");
        c.k_slow = 0;
        is_int(peer_config_validate(&c), -EINVAL, "k 0 invalid");
        c = (PeerConfig) PEER_CONFIG_DEFAULT;
        peer_group_init(&g);
        for (size_t i = 0; i < ELEMENTSOF(s); i++)
                peer_sample_init(&s[i], "x");
        is_int(peers_feed(&g, &c, s, PEERS_MAX + 1, ev, 1), -E2BIG, "too many members");
        is_int(peers_feed(NULL, &c, s, 1, ev, 1), -EINVAL, "NULL group");

        /* Two members slow at once (5 members, 2 slow) but room for one event: -ENOBUFS,
         * group unchanged. */
        PeerSample u[5];
        for (int i = 0; i < 5; i++) {
                peer_sample_init(&u[i], (const char *[]){ "a", "b", "c", "d", "e" }[i]);
                u[i].value_ms[PEER_SOURCE_PROBE] = i < 3 ? 1 : 50;
        }
        is_int(peers_feed(&g, &c, u, 5, ev, 1), 0, "first slow run");
        before = g;
        is_int(peers_feed(&g, &c, u, 5, ev, 1), -ENOBUFS, "two events, room for one");
        ok(memcmp(&before, &g, sizeof(g)) == 0, "group unchanged on error");
}

int main(void) {
        test_write_await();
        test_limit();
        test_four_members();
        test_two_members();
        test_await();
        test_sources_streak_apart();
        test_healed_without_await();
        test_flapping();
        test_errors();
        return tap_done();
}

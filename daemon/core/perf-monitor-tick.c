/* SPDX-License-Identifier: MIT */
/* The performance monitor's tick (perf-monitor.h): every volume with a peer group reads its own
 * and its members' block stat (through the inventory), compares the members' passive await, and
 * an md or dm-raid array's rebuild speed is checked against its floor and ETA. Runs on the
 * daemon's loop; the clock comes in. */

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/perf-monitor-internal.h"
#include "model/blockstat.h"
#include "model/md.h"

/* Read v's stat and update its passive figures; returns true with the delta when there was a
 * previous reading. */
static bool tick_stat(const Inventory *inv, PerfVolume *p, const Volume *v, usec_t now_usec,
                      BlockStatDelta *ret) {
        BlockStat st;
        bool have = false;

        if (inventory_read_stat(inv, v, &st) < 0) {
                p->have_stat = false;
                return false;
        }
        if (p->have_stat && now_usec > p->stat_usec &&
            blockstat_delta(&p->stat, &st, now_usec - p->stat_usec, ret) >= 0) {
                p->util[1] = p->util[0];
                p->util_end_usec[1] = p->util_end_usec[0];
                p->util[0] = ret->utilization;
                p->util_end_usec[0] = now_usec;
                p->fg_bytes_per_sec = ret->read_bytes_per_sec + ret->write_bytes_per_sec;
                p->fg_iops = ret->read_iops + ret->write_iops;
                have = true;
        }
        p->stat = st;
        p->stat_usec = now_usec;
        p->have_stat = true;
        return have;
}

static int tick_group(PerfMonitor *pm, const Inventory *inv, const Volume *v, usec_t now_usec,
                      int *count) {
        PeerSample s[PEERS_MAX];
        size_t n = 0, judged = 0, judged_w = 0;

        for (size_t i = 0; v->members && v->members[i] && n < PEERS_MAX; i++) {
                const Volume *w = inventory_get(inv, v->members[i]);
                PerfVolume *mp = perf_monitor_get_vol(pm, v->members[i]);
                BlockStatDelta d;

                if (!mp)
                        return -ENOMEM;
                peer_sample_init(&s[n], v->members[i]);
                if (w && tick_stat(inv, mp, w, now_usec, &d)) {
                        double dt = (double) (mp->util_end_usec[0] - mp->util_end_usec[1]);
                        /* I/Os behind a figure: rate x interval (the first interval's length is
                         * unknown: count it as one second) */
                        double sec = mp->util_end_usec[1] > 0 && dt > 0 ? dt / USEC_PER_SEC : 1.0;

                        s[n].value_ms[PEER_SOURCE_AWAIT] = d.read_await_ms;
                        s[n].await_ios =
                                isfinite(d.read_await_ms) ? (uint64_t) (d.read_iops * sec) : 0;
                        s[n].value_ms[PEER_SOURCE_WRITE_AWAIT] = d.write_await_ms;
                        s[n].write_await_ios =
                                isfinite(d.write_await_ms) ? (uint64_t) (d.write_iops * sec) : 0;
                        judged += s[n].await_ios >= pm->cfg.peers.min_await_ios;
                        judged_w += s[n].write_await_ios >= pm->cfg.peers.min_await_ios;
                }
                n++;
        }
        /* Passive await is compared between peers only: with fewer than three members under a
         * real workload there is no baseline of await to fall back to. */
        if (judged < 3 && judged_w < 3)
                return 0;
        return perf_monitor_feed_peers(pm, v, s, n, count);
}

static void tick_rebuild(PerfMonitor *pm, const MdMonitor *mon, PerfVolume *p, const Volume *v,
                         usec_t now_usec, int *count) {
        RebuildSlowInput in = {
                .sync_speed_min_kib = REBUILD_UNKNOWN,
                .sync_speed_max_kib = REBUILD_UNKNOWN,
                .foreground_bytes_per_sec = p->fg_bytes_per_sec,
                .foreground_iops = p->fg_iops,
        };
        RebuildSlowEvent ev;
        PerfEvent e;
        char text[220];

        if (!mon || md_monitor_get_status(mon, v->name, now_usec, &in.status) < 0)
                return;
        if (v->md) {
                if (v->md->sync_speed_min.kib_per_sec != MD_UNSET)
                        in.sync_speed_min_kib = v->md->sync_speed_min.kib_per_sec;
                if (v->md->sync_speed_max.kib_per_sec != MD_UNSET)
                        in.sync_speed_max_kib = v->md->sync_speed_max.kib_per_sec;
        }
        if (rebuild_slow_feed(&p->rs, &pm->cfg.rebuild, &in, now_usec, &ev) <= 0)
                return;
        perf_event_init(&e, PERF_EVENT_REBUILD_SLOW, v, NULL);
        rebuild_slow_event_format(&ev, text, sizeof(text));
        snprintf(e.message, sizeof(e.message), "%s: %s", v->name, text);
        perf_event_field(&e, "STORPULSE_REASON=%s", rebuild_slow_reason_to_string(ev.reason));
        perf_event_field(&e, "STORPULSE_SPEED_BYTES_PER_SEC=%.0f", ev.speed_bytes_per_sec);
        perf_event_field(&e, "STORPULSE_ETA_SECONDS=%.0f", ev.eta_sec);
        if (ev.sync_speed_min_kib != REBUILD_UNKNOWN)
                perf_event_field(&e, "STORPULSE_SYNC_SPEED_MIN_KIB=%" PRIu64,
                                 ev.sync_speed_min_kib);
        if (ev.sync_speed_max_kib != REBUILD_UNKNOWN)
                perf_event_field(&e, "STORPULSE_SYNC_SPEED_MAX_KIB=%" PRIu64,
                                 ev.sync_speed_max_kib);
        perf_event_field(&e, "STORPULSE_FOREGROUND_IO=%s", ev.competing ? "yes" : "no");
        perf_monitor_emit(pm, &e, count);
}

int perf_monitor_tick(PerfMonitor *pm, const Inventory *inv, const MdMonitor *mon, usec_t now_usec,
                      usec_t now_real) {
        const Volume *v;
        int count = 0, r;

        if (!pm || !inv)
                return -EINVAL;
        INVENTORY_FOREACH(v, inv) {
                PerfVolume *p;
                BlockStatDelta d;

                if (v->hidden || !perf_volume_has_peer_group(v))
                        continue;
                p = perf_monitor_get_vol(pm, v->name);
                if (!p)
                        return -ENOMEM;
                (void) tick_stat(inv, p, v, now_usec, &d);
                r = tick_group(pm, inv, v, now_usec, &count);
                if (r < 0)
                        return r;
                if (v->kind == VOLUME_MD || (v->dm_target && strcmp(v->dm_target, "raid") == 0))
                        tick_rebuild(pm, mon, p, v, now_usec, &count);
        }
        return count;
}

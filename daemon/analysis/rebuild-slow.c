/* SPDX-License-Identifier: MIT */
/* Slow-rebuild detection: a condition (ETA over the limit, or speed under the floor without
 * competing foreground I/O) that must hold for a sustained time, reported once per operation;
 * plus the hardware-controller hint. The header says why these conditions and defaults. */

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "analysis/rebuild-slow.h"
#include "basic/format-util.h"
#include "basic/string-table.h"

static const char *const rebuild_slow_reason_table[_REBUILD_SLOW_REASON_MAX] = {
        [REBUILD_SLOW_ETA] = "eta",
        [REBUILD_SLOW_SPEED] = "speed",
};
DEFINE_STRING_TABLE_LOOKUP(rebuild_slow_reason, RebuildSlowReason, rebuild_slow_reason_table);

int rebuild_slow_config_validate(const RebuildSlowConfig *c) {
        if (!c)
                return -EINVAL;
        if (!(c->eta_limit_sec > 0) || !(c->speed_floor_bytes_per_sec >= 0) ||
            !isfinite(c->speed_floor_bytes_per_sec))
                return -EINVAL;
        if (!(c->busy_bytes_per_sec >= 0) || !(c->busy_iops >= 0))
                return -EINVAL;
        if (c->sustain_usec == USEC_INFINITY)
                return -EINVAL;
        return 0;
}

void rebuild_slow_tracker_init(RebuildSlowTracker *t) {
        *t = (RebuildSlowTracker){ .op = REBUILD_OP_IDLE, .slow_since_usec = USEC_INFINITY };
}

static double effective_floor(const RebuildSlowConfig *c, const RebuildSlowInput *in) {
        double floor = c->speed_floor_bytes_per_sec;

        if (in->sync_speed_max_kib != REBUILD_UNKNOWN && in->sync_speed_max_kib > 0)
                floor = MIN(floor, 0.8 * (double) in->sync_speed_max_kib * 1024);
        return floor;
}

int rebuild_slow_feed(RebuildSlowTracker *t, const RebuildSlowConfig *c, const RebuildSlowInput *in,
                      usec_t now_usec, RebuildSlowEvent *ret) {
        const RebuildStatus *st;
        bool competing, eta_slow, speed_slow;
        double floor;

        if (!t || !c || !in || !ret)
                return -EINVAL;
        st = &in->status;
        if (st->phase != REBUILD_PHASE_RUNNING || st->operation == REBUILD_OP_IDLE ||
            st->operation == REBUILD_OP_FROZEN || st->operation != t->op) {
                rebuild_slow_tracker_init(t);
                if (st->phase == REBUILD_PHASE_RUNNING)
                        t->op = st->operation;
                if (st->phase != REBUILD_PHASE_RUNNING || st->operation == REBUILD_OP_IDLE ||
                    st->operation == REBUILD_OP_FROZEN)
                        return 0;
        }

        competing = (isfinite(in->foreground_bytes_per_sec) &&
                     in->foreground_bytes_per_sec > c->busy_bytes_per_sec) ||
                    (isfinite(in->foreground_iops) && in->foreground_iops > c->busy_iops);
        t->competing = competing;
        floor = effective_floor(c, in);
        eta_slow = st->eta_sec >= 0 && st->eta_sec > c->eta_limit_sec;
        speed_slow = st->speed_bytes_per_sec >= 0 && st->speed_bytes_per_sec < floor && !competing;

        if (!eta_slow && !speed_slow) {
                t->slow_since_usec = USEC_INFINITY;
                return 0;
        }
        if (t->slow_since_usec == USEC_INFINITY || now_usec < t->slow_since_usec)
                t->slow_since_usec = now_usec;
        if (t->reported || now_usec - t->slow_since_usec < c->sustain_usec)
                return 0;

        t->reported = true;
        *ret = (RebuildSlowEvent){
                .operation = st->operation,
                .reason = eta_slow ? REBUILD_SLOW_ETA : REBUILD_SLOW_SPEED,
                .speed_bytes_per_sec = st->speed_bytes_per_sec,
                .eta_sec = st->eta_sec,
                .progress = st->progress,
                .eta_limit_sec = c->eta_limit_sec,
                .floor_bytes_per_sec = floor,
                .sync_speed_min_kib = in->sync_speed_min_kib,
                .sync_speed_max_kib = in->sync_speed_max_kib,
                .foreground_bytes_per_sec = in->foreground_bytes_per_sec,
                .foreground_iops = in->foreground_iops,
                .competing = competing,
                .slow_for_usec = now_usec - t->slow_since_usec,
        };
        return 1;
}

static void format_kib(char *buf, size_t size, uint64_t v) {
        if (v == REBUILD_UNKNOWN)
                snprintf(buf, size, "unknown");
        else
                snprintf(buf, size, "%" PRIu64 " KiB/s", v);
}

char *rebuild_slow_event_format(const RebuildSlowEvent *e, char *buf, size_t size) {
        char eta[32], limit[32], min[32], max[32], speed[32], fg[96];
        const char *op = rebuild_operation_to_string(e->operation) ?: "rebuild";

        format_duration(eta, sizeof(eta), e->eta_sec, true);
        format_duration(limit, sizeof(limit), e->eta_limit_sec, true);
        format_kib(min, sizeof(min), e->sync_speed_min_kib);
        format_kib(max, sizeof(max), e->sync_speed_max_kib);
        if (e->speed_bytes_per_sec >= 0)
                snprintf(speed, sizeof(speed), "%.1f MiB/s", e->speed_bytes_per_sec / 1048576);
        else
                snprintf(speed, sizeof(speed), "speed unknown");
        if (e->competing)
                snprintf(fg, sizeof(fg), "foreground I/O competing (%.1f MiB/s, %.0f IOPS)",
                         isfinite(e->foreground_bytes_per_sec)
                                 ? e->foreground_bytes_per_sec / 1048576
                                 : 0.0,
                         isfinite(e->foreground_iops) ? e->foreground_iops : 0.0);
        else
                snprintf(fg, sizeof(fg), "no foreground I/O competing");
        snprintf(buf, size,
                 "%s slow: %s (floor %.1f MiB/s), ETA %s (limit %s), sync_speed_min %s, "
                 "sync_speed_max %s, %s",
                 op, speed, e->floor_bytes_per_sec / 1048576, eta, limit, min, max, fg);
        return buf;
}

int hw_rebuild_hint_feed(HwRebuildHint *h, double tput, double lat) {
        if (!isfinite(tput) || !isfinite(lat))
                return 0;
        if (tput < HW_REBUILD_HINT_TPUT_RATIO_MAX && lat > HW_REBUILD_HINT_LAT_RATIO_MIN) {
                h->streak++;
                if (!h->active && h->streak >= HW_REBUILD_HINT_RUNS) {
                        h->active = true;
                        return 1;
                }
                return 0;
        }
        h->streak = 0;
        if (h->active) {
                h->active = false;
                return -1;
        }
        return 0;
}

char *hw_rebuild_hint_format(double tput, double lat, char *buf, size_t size) {
        snprintf(buf, size,
                 "throughput %.0f%% of baseline while latency %.1fx baseline: possible background "
                 "rebuild or consistency check on the controller (no vendor CLI to confirm)",
                 tput * 100, lat);
        return buf;
}

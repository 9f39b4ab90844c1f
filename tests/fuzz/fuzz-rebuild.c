/* SPDX-License-Identifier: MIT */
/* Fuzz the rebuild tracker: the input is a sequence of 12-byte observations (operation byte, flag
 * byte, signed time step, done/total pairs, degraded, mismatches), garbage included: operations
 * outside the enum, done > total, total 0, time going backwards, random failure flags. The tracker
 * must never crash, and every event and status it gives must be sane (no NaN, progress <= 1,
 * percent <= 100, a bounded number of events). An invariant broken aborts, which the replay and
 * libFuzzer both report. */

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/rebuild.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t value(uint8_t b) {
        /* small values, huge ones and "unknown" */
        if (b == 0xff)
                return REBUILD_UNKNOWN;
        if (b == 0xfe)
                return UINT64_MAX - 1;
        return (uint64_t) b * 1000;
}

static void check_sane(double v, bool ratio) {
        if (isnan(v) || isinf(v) || v < -1.0 || (ratio && v > 1.0))
                abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        RebuildTracker t;
        usec_t now = 1000 * USEC_PER_SEC;

        rebuild_tracker_init(&t);
        for (size_t off = 0; off + 12 <= size; off += 12) {
                const uint8_t *p = data + off;
                RebuildEvent ev[REBUILD_EVENTS_MAX];
                RebuildObservation o;
                RebuildStatus st;
                int16_t step;
                int n;

                rebuild_observation_init(&o);
                o.operation = (RebuildOperation) ((int) (p[0] % 9) - 1); /* -1 .. 7: invalid too */
                o.delayed = p[1] & 1;
                o.member_failed = p[1] & 2;
                o.completed = (p[1] >> 2) % 3 - 1;
                memcpy(&step, p + 2, sizeof(step));
                now = step < 0 && (usec_t) -step * USEC_PER_MSEC * 100 > now
                              ? 0
                              : now + (int64_t) step * (int64_t) USEC_PER_MSEC * 100;
                o.coarse_done_sectors = value(p[4]);
                o.coarse_total_sectors = value(p[5]);
                o.fine_done_sectors = value(p[6]);
                o.fine_total_sectors = value(p[7]);
                o.kernel_speed_bytes_per_sec = value(p[8]);
                o.degraded = p[9] == 0xff ? REBUILD_UNKNOWN : p[9] % 4;
                o.mismatch_count = value(p[10]);
                if (p[11] & 1) /* fine progress absent */
                        o.fine_done_sectors = o.fine_total_sectors = REBUILD_UNKNOWN;

                n = rebuild_tracker_feed(&t, now, &o, ev, (p[11] >> 1) % 2 ? 2 : ELEMENTSOF(ev));
                if (n < 0) {
                        if (n != -EINVAL && n != -ENOBUFS)
                                abort();
                        continue;
                }
                if (n > REBUILD_EVENTS_MAX)
                        abort();
                for (int i = 0; i < n; i++) {
                        char msg[256];

                        check_sane(ev[i].progress, true);
                        check_sane(ev[i].speed_bytes_per_sec, false);
                        check_sane(ev[i].eta_sec, false);
                        if (ev[i].percent > 100 || (int) ev[i].type < 0 ||
                            ev[i].type >= _REBUILD_EVENT_TYPE_MAX || (int) ev[i].severity < 0 ||
                            ev[i].severity >= _REBUILD_SEVERITY_MAX)
                                abort();
                        if (!rebuild_event_format(&ev[i], msg, sizeof(msg))[0])
                                abort();
                }
                rebuild_tracker_get_status(&t, now + (usec_t) p[3] * USEC_PER_SEC, &st);
                check_sane(st.progress, true);
                check_sane(st.speed_bytes_per_sec, false);
                check_sane(st.eta_sec, false);
        }
        return 0;
}

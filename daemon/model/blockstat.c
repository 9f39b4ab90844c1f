/* SPDX-License-Identifier: MIT */
/* /sys/block/X/stat parser and interval arithmetic (iostat's r/s, w/s, rkB/s, r_await, w_await,
 * aqu-sz and %util, computed the same way).
 *
 * Why the wrap rules are what they are: genhd.c part_stat_show() prints the I/O, merge and sector
 * counters as unsigned long and the four *_ticks, io_ticks and time_in_queue as unsigned int. So a
 * time counter wraps at 2^32 ms on every kernel, while the I/O counters do not wrap in practice on
 * 64-bit. A time counter smaller than before is therefore read modulo 2^32, but an I/O or sector
 * counter smaller than before can only mean a new device (same name, fresh counters) or a reset,
 * and the interval is meaningless: -ESTALE, and the caller starts over from cur. */

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "model/blockstat.h"
#include "basic/macro.h"
#include "basic/parse-util.h"

#define BLOCKSTAT_MAX_FIELDS 17U
#define SECTOR_BYTES         512.0

int blockstat_parse(const char *s, BlockStat *ret) {
        uint64_t v[BLOCKSTAT_MAX_FIELDS] = {};
        unsigned n = 0;

        if (!s)
                return -EINVAL;

        for (const char *p = s;;) {
                char buf[32];
                size_t l = 0;
                int r;

                while (isspace((unsigned char) *p))
                        p++;
                if (!*p)
                        break;
                while (p[l] && !isspace((unsigned char) p[l])) {
                        if (!isdigit((unsigned char) p[l]))
                                return -EINVAL;
                        l++;
                }
                if (l >= sizeof(buf))
                        return -ERANGE; /* more than 31 digits cannot fit in 64 bits */
                if (n < BLOCKSTAT_MAX_FIELDS) {
                        memcpy(buf, p, l);
                        buf[l] = 0;
                        r = safe_atou64(buf, &v[n]);
                        if (r < 0)
                                return r;
                }
                n++;
                p += l;
        }

        if (n != 11 && n != 15 && n < 17)
                return -EINVAL;

        *ret = (BlockStat){
                .read_ios = v[0],
                .read_merges = v[1],
                .read_sectors = v[2],
                .read_ticks_ms = v[3],
                .write_ios = v[4],
                .write_merges = v[5],
                .write_sectors = v[6],
                .write_ticks_ms = v[7],
                .in_flight = v[8],
                .io_ticks_ms = v[9],
                .time_in_queue_ms = v[10],
                .discard_ios = v[11],
                .discard_merges = v[12],
                .discard_sectors = v[13],
                .discard_ticks_ms = v[14],
                .flush_ios = v[15],
                .flush_ticks_ms = v[16],
                .n_fields = MIN(n, BLOCKSTAT_MAX_FIELDS),
        };
        return 0;
}

/* Difference of a 32-bit millisecond counter as printed by the kernel: modulo 2^32 when it went
 * backwards. Values above 2^32 (a future kernel printing 64 bits) are taken as they are, and a
 * 64-bit counter that went backwards is treated like a reset by the caller's check. */
static uint64_t ms_delta(uint64_t prev, uint64_t cur, bool *reset) {
        if (cur >= prev)
                return cur - prev;
        if (prev <= UINT32_MAX && cur <= UINT32_MAX)
                return (uint64_t) UINT32_MAX + 1 - prev + cur;
        *reset = true;
        return 0;
}

int blockstat_delta(const BlockStat *prev, const BlockStat *cur, usec_t elapsed_usec,
                    BlockStatDelta *ret) {
        uint64_t d_rios, d_wios, d_dios, d_fios, d_rsec, d_wsec;
        uint64_t d_rticks, d_wticks, d_io_ticks, d_queue;
        unsigned fields;
        bool reset = false;
        double secs, ms;

        if (!prev || !cur || elapsed_usec == 0)
                return -EINVAL;

        if (cur->read_ios < prev->read_ios || cur->write_ios < prev->write_ios ||
            cur->read_sectors < prev->read_sectors || cur->write_sectors < prev->write_sectors ||
            cur->read_merges < prev->read_merges || cur->write_merges < prev->write_merges)
                return -ESTALE;

        fields = MIN(prev->n_fields, cur->n_fields);
        d_dios = d_fios = 0;
        if (fields >= 15) {
                if (cur->discard_ios < prev->discard_ios ||
                    cur->discard_sectors < prev->discard_sectors)
                        return -ESTALE;
                d_dios = cur->discard_ios - prev->discard_ios;
        }
        if (fields >= 17) {
                if (cur->flush_ios < prev->flush_ios)
                        return -ESTALE;
                d_fios = cur->flush_ios - prev->flush_ios;
        }

        d_rios = cur->read_ios - prev->read_ios;
        d_wios = cur->write_ios - prev->write_ios;
        d_rsec = cur->read_sectors - prev->read_sectors;
        d_wsec = cur->write_sectors - prev->write_sectors;
        d_rticks = ms_delta(prev->read_ticks_ms, cur->read_ticks_ms, &reset);
        d_wticks = ms_delta(prev->write_ticks_ms, cur->write_ticks_ms, &reset);
        d_io_ticks = ms_delta(prev->io_ticks_ms, cur->io_ticks_ms, &reset);
        d_queue = ms_delta(prev->time_in_queue_ms, cur->time_in_queue_ms, &reset);
        if (reset)
                return -ESTALE;

        secs = (double) elapsed_usec / (double) USEC_PER_SEC;
        ms = (double) elapsed_usec / (double) USEC_PER_MSEC;

        *ret = (BlockStatDelta){
                .read_iops = (double) d_rios / secs,
                .write_iops = (double) d_wios / secs,
                .discard_iops = (double) d_dios / secs,
                .flush_iops = (double) d_fios / secs,
                .read_bytes_per_sec = (double) d_rsec * SECTOR_BYTES / secs,
                .write_bytes_per_sec = (double) d_wsec * SECTOR_BYTES / secs,
                .utilization = CLAMP((double) d_io_ticks / ms, 0.0, 1.0),
                .avg_queue_depth = (double) d_queue / ms,
                .read_await_ms = d_rios > 0 ? (double) d_rticks / (double) d_rios : NAN,
                .write_await_ms = d_wios > 0 ? (double) d_wticks / (double) d_wios : NAN,
                .in_flight = cur->in_flight,
        };
        return 0;
}

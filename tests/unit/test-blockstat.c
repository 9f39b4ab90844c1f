/* SPDX-License-Identifier: MIT */
/* /sys/block/X/stat: parsing of the 11/15/17-field layouts (Documentation/block/stat.rst) and of
 * two real samples of this machine's vda (tests/fixtures/parsers/blockstat, see README there),
 * garbage and huge numbers; the delta arithmetic by hand-computed examples, including a 32-bit
 * wrap of the millisecond counters, a device reset (-ESTALE) and intervals without I/O (NaN await).
 */

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/blockstat.h"
#include "basic/fileio.h"
#include "basic/macro.h"
#include "tap.h"

static int load(const char *name, BlockStat *ret) {
        const char *base = getenv("STORPULSE_FIXTURES");
        _cleanup_free_ char *text = NULL;
        char path[PATH_MAX];
        int r;

        if (!base)
                base = "tests/fixtures";
        snprintf(path, sizeof(path), "%s/parsers/blockstat/%s", base, name);
        r = read_full_file_at(-100 /* AT_FDCWD */, path, &text, NULL);
        if (r < 0)
                return r;
        return blockstat_parse(text, ret);
}

static void test_parse(void) {
        static const struct {
                const char *in;
                int r;
                unsigned n;
                uint64_t first, in_flight, last;
        } t[] = {
                { "       1        2        3        4        5        6        7        8        "
                  "9       10       11\n",
                  0, 11, 1, 9, 11 },
                { "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15", 0, 15, 1, 9, 15 },
                { "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n", 0, 17, 1, 9, 17 },
                { "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18", 0, 17, 1, 9, 17 },
                { "18446744073709551615 0 0 0 0 0 0 0 0 0 0", 0, 11, UINT64_MAX, 0, 0 },
                { "\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\t11\t", 0, 11, 1, 9, 11 },
                { "", -EINVAL },
                { "\n", -EINVAL },
                { "1 2 3 4 5 6 7 8 9 10", -EINVAL },
                { "1 2 3 4 5 6 7 8 9 10 11 12", -EINVAL },
                { "1 2 3 4 5 6 7 8 9 10 11 12 13 14", -EINVAL },
                { "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16", -EINVAL },
                { "1 2 x 4 5 6 7 8 9 10 11", -EINVAL },
                { "-1 2 3 4 5 6 7 8 9 10 11", -EINVAL },
                { "1 2 3 4 5 6 7 8 9 10 11abc", -EINVAL },
                { "1.5 2 3 4 5 6 7 8 9 10 11", -EINVAL },
                { "18446744073709551616 0 0 0 0 0 0 0 0 0 0", -ERANGE },
                { "1 2 3 4 5 6 7 8 9 10 1234567890123456789012345678901234567890", -ERANGE },
        };

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                BlockStat s = { .n_fields = 99 };
                int r = blockstat_parse(t[i].in, &s);

                is_int(r, t[i].r, "parse #%zu r", i);
                if (r < 0) {
                        is_int(s.n_fields, 99, "parse #%zu untouched", i);
                        continue;
                }
                is_int(s.n_fields, t[i].n, "parse #%zu fields", i);
                is_u64(s.read_ios, t[i].first, "parse #%zu read_ios", i);
                is_u64(s.in_flight, t[i].in_flight, "parse #%zu in_flight", i);
                is_u64(t[i].n == 11   ? s.time_in_queue_ms
                       : t[i].n == 15 ? s.discard_ticks_ms
                                      : s.flush_ticks_ms,
                       t[i].last, "parse #%zu last field", i);
                if (t[i].n == 11)
                        ok(s.discard_ios == 0 && s.flush_ios == 0, "parse #%zu: absent fields 0",
                           i);
        }
        is_int(blockstat_parse(NULL, &(BlockStat){ 0 }), -EINVAL, "NULL");

        {
                BlockStat s;
                is_int(blockstat_parse("1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17", &s), 0,
                       "field order");
                ok(s.read_ios == 1 && s.read_merges == 2 && s.read_sectors == 3 &&
                           s.read_ticks_ms == 4 && s.write_ios == 5 && s.write_merges == 6 &&
                           s.write_sectors == 7 && s.write_ticks_ms == 8 && s.in_flight == 9 &&
                           s.io_ticks_ms == 10 && s.time_in_queue_ms == 11 && s.discard_ios == 12 &&
                           s.discard_merges == 13 && s.discard_sectors == 14 &&
                           s.discard_ticks_ms == 15 && s.flush_ios == 16 && s.flush_ticks_ms == 17,
                   "fields in stat.rst order");
        }
}

static void test_fixtures(void) {
        BlockStat a, b, z, l;
        BlockStatDelta d;

        is_int(load("vda-a.stat", &a), 0, "vda-a parses");
        is_int(load("vda-b.stat", &b), 0, "vda-b parses");
        is_int(load("loop7-idle.stat", &z), 0, "loop7 parses");
        is_int(load("loop0-reads.stat", &l), 0, "loop0 parses");
        is_int(a.n_fields, 17, "vda-a: 17 fields (Linux 6.18)");
        is_u64(a.read_ios, 1700830, "vda-a read_ios");
        is_u64(a.flush_ticks_ms, 2207, "vda-a flush_ticks");
        is_u64(z.read_ios + z.write_ios + z.io_ticks_ms, 0, "loop7 idle");
        ok(l.read_ios > 0 && l.write_ios == 0, "loop0: reads only");
        is_int(blockstat_delta(&z, &l, USEC_PER_SEC, &d), 0, "zero to loop0 delta");
        ok(isnan(d.write_await_ms) && d.read_await_ms > 0, "reads only: write await NaN");

        /* Expected values computed by hand from the two captured lines, 3 s apart. */
        is_int(blockstat_delta(&a, &b, 3 * USEC_PER_SEC, &d), 0, "vda delta");
        is_double(d.read_iops, 36091.0 / 3.0, 1e-6, "read IOPS");
        is_double(d.write_iops, 4.0 / 3.0, 1e-9, "write IOPS");
        is_double(d.read_bytes_per_sec, 549328.0 * 512.0 / 3.0, 1e-3, "read bytes/s");
        is_double(d.write_bytes_per_sec, 1168.0 * 512.0 / 3.0, 1e-3, "write bytes/s");
        is_double(d.read_await_ms, 2668.0 / 36091.0, 1e-9, "read await");
        is_double(d.write_await_ms, 6.0 / 4.0, 1e-9, "write await");
        is_double(d.utilization, 1720.0 / 3000.0, 1e-9, "utilisation");
        is_double(d.avg_queue_depth, 2674.0 / 3000.0, 1e-9, "queue depth");
        is_double(d.discard_iops, 0, 0, "no discards");
        is_double(d.flush_iops, 0, 0, "no flushes");
        is_u64(d.in_flight, 1, "in flight from cur");

        is_int(blockstat_delta(&b, &a, 3 * USEC_PER_SEC, &d), -ESTALE, "backwards: reset");
        is_int(blockstat_delta(&a, &a, 0, &d), -EINVAL, "elapsed 0");
        is_int(blockstat_delta(NULL, &a, 1, &d), -EINVAL, "NULL prev");
}

/* intervals without I/O and time counters that wrapped at 32 bits (or went back above them) */
static void test_delta_idle_and_wrap(void) {
        BlockStat p = { .n_fields = 17 }, c;
        BlockStatDelta d = { .read_iops = 123 };

        /* No I/O: rates 0, awaits NaN. */
        c = p;
        is_int(blockstat_delta(&p, &c, USEC_PER_SEC, &d), 0, "idle interval");
        ok(isnan(d.read_await_ms) && isnan(d.write_await_ms), "idle: await NaN");
        is_double(d.read_iops + d.write_iops + d.utilization, 0, 0, "idle: zero rates");

        /* 32-bit wrap of the ms counters (genhd.c prints them as unsigned int). */
        p.read_ios = 100;
        p.read_ticks_ms = 4294967000ULL;
        p.io_ticks_ms = 4294967200ULL;
        p.time_in_queue_ms = 4294967295ULL;
        c = p;
        c.read_ios = 110;
        c.read_ticks_ms = 200;    /* 296 + 200 = 496 ms */
        c.io_ticks_ms = 404;      /* 96 + 404 = 500 ms */
        c.time_in_queue_ms = 999; /* 1 + 999 = 1000 ms */
        is_int(blockstat_delta(&p, &c, USEC_PER_SEC, &d), 0, "wrapped time counters");
        is_double(d.read_await_ms, 49.6, 1e-9, "await across the wrap");
        is_double(d.utilization, 0.5, 1e-9, "utilisation across the wrap");
        is_double(d.avg_queue_depth, 1.0, 1e-9, "queue depth across the wrap");
        is_double(d.read_iops, 10.0, 1e-9, "10 reads in 1 s");

        /* A time counter above 32 bits going backwards is not a wrap. */
        p = (BlockStat){ .n_fields = 17, .read_ticks_ms = 1ULL << 40 };
        c = p;
        c.read_ticks_ms = 5;
        d.read_iops = 123;
        is_int(blockstat_delta(&p, &c, USEC_PER_SEC, &d), -ESTALE, "64-bit ticks backwards");
        is_double(d.read_iops, 123, 0, "output untouched on -ESTALE");
}

/* Device re-created: I/O counters restart. */
static void test_delta_resets(void) {
        BlockStat p, c;
        BlockStatDelta d;

        p = (BlockStat){ .n_fields = 17, .write_ios = 1000, .write_sectors = 8000 };
        c = (BlockStat){ .n_fields = 17, .write_ios = 3, .write_sectors = 24 };
        is_int(blockstat_delta(&p, &c, USEC_PER_SEC, &d), -ESTALE, "write_ios reset");
        p = (BlockStat){ .n_fields = 17, .discard_ios = 5 };
        c = (BlockStat){ .n_fields = 17, .discard_ios = 1 };
        is_int(blockstat_delta(&p, &c, USEC_PER_SEC, &d), -ESTALE, "discard reset");
        p = (BlockStat){ .n_fields = 17, .flush_ios = 5 };
        c = (BlockStat){ .n_fields = 17, .flush_ios = 1 };
        is_int(blockstat_delta(&p, &c, USEC_PER_SEC, &d), -ESTALE, "flush reset");
        p = (BlockStat){ .n_fields = 11, .read_merges = 5 };
        c = (BlockStat){ .n_fields = 11, .read_merges = 4 };
        is_int(blockstat_delta(&p, &c, USEC_PER_SEC, &d), -ESTALE, "merges reset");
}

/* the captured fail-slow member, a clamped utilisation, mixed layouts and huge counters */
static void test_delta_rates(void) {
        BlockStat p, c;
        BlockStatDelta d;

        /* The fail-slow member of the VM capture (vm-testbed.md 4a): dm-delay under md2 went from
         * 54 writes / 12 ms to 108 writes / 5632 ms while its mirror loop0 went 53/13 -> 105/32. */
        p = (BlockStat){ .n_fields = 17, .write_ios = 54, .write_ticks_ms = 12 };
        c = (BlockStat){ .n_fields = 17, .write_ios = 108, .write_ticks_ms = 5632 };
        is_int(blockstat_delta(&p, &c, 5495 * USEC_PER_MSEC, &d), 0, "slow member delta");
        is_double(d.write_await_ms, 5620.0 / 54.0, 1e-9, "slow member: ~104 ms per write");
        p = (BlockStat){ .n_fields = 17, .write_ios = 53, .write_ticks_ms = 13 };
        c = (BlockStat){ .n_fields = 17, .write_ios = 105, .write_ticks_ms = 32 };
        is_int(blockstat_delta(&p, &c, 5495 * USEC_PER_MSEC, &d), 0, "fast member delta");
        is_double(d.write_await_ms, 19.0 / 52.0, 1e-9, "fast member: ~0.37 ms per write");

        /* Utilisation is clamped (io_ticks may run ahead of the caller's clock). */
        p = (BlockStat){ .n_fields = 11, .io_ticks_ms = 0 };
        c = (BlockStat){ .n_fields = 11, .io_ticks_ms = 1500 };
        is_int(blockstat_delta(&p, &c, USEC_PER_SEC, &d), 0, "io_ticks ahead");
        is_double(d.utilization, 1.0, 0, "utilisation clamped to 1");

        /* Mixed layouts: fields only one sample has give 0. */
        p = (BlockStat){ .n_fields = 11 };
        c = (BlockStat){ .n_fields = 17, .discard_ios = 50, .flush_ios = 70 };
        is_int(blockstat_delta(&p, &c, 2 * USEC_PER_SEC, &d), 0, "11 vs 17 fields");
        is_double(d.discard_iops + d.flush_iops, 0, 0, "absent fields give 0");
        p.n_fields = 17;
        is_int(blockstat_delta(&p, &c, 2 * USEC_PER_SEC, &d), 0, "17 vs 17 fields");
        is_double(d.discard_iops, 25, 1e-9, "discard IOPS");
        is_double(d.flush_iops, 35, 1e-9, "flush IOPS");

        /* Huge counters: no overflow in the arithmetic. */
        p = (BlockStat){ .n_fields = 11, .read_ios = UINT64_MAX - 10, .read_sectors = 0 };
        c = (BlockStat){ .n_fields = 11, .read_ios = UINT64_MAX, .read_sectors = UINT64_MAX };
        is_int(blockstat_delta(&p, &c, USEC_PER_SEC, &d), 0, "huge counters");
        is_double(d.read_iops, 10, 1e-9, "huge: 10 IOPS");
        ok(d.read_bytes_per_sec > 0 && isfinite(d.read_bytes_per_sec), "huge: finite bytes/s");
}

int main(void) {
        test_parse();
        test_fixtures();
        test_delta_idle_and_wrap();
        test_delta_resets();
        test_delta_rates();
        return tap_done();
}

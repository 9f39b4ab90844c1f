/* SPDX-License-Identifier: MIT */
/* analysis/backoff: foreign I/O from stat counters, shared disks, standby words, retry delays
 * and the budget, the allowance of a running slice. Expectations by hand from the counter values.
 */

#include <math.h>

#include "analysis/backoff.h"
#include "tap.h"

#define DAY_USEC (24 * 3600 * USEC_PER_SEC)

/* a write slice: a..w wrote 8 sectors and read 2048, b..w wrote 8 */
static void test_write_slice(const BlockStat *a, const BlockStat *b, const BlockStat *w) {
        is_u64(backoff_foreign_sectors_written(a, w, 8), 2048,
               "write slice: own writes are not foreign, reads are");
        is_u64(backoff_foreign_sectors_written(b, w, 8), 0, "write slice: only own writes: 0");
        is_u64(backoff_foreign_sectors_written(b, w, 4), 4,
               "write slice: writes beyond ours are foreign");
        is_double(backoff_foreign_share_written(b, w, 4), 0.5, 1e-12,
                  "write slice: share 4 / (4 + 4)");
        ok(isnan(backoff_foreign_share_written(b, b, 0)), "write slice: nothing moved: NAN");
}

/* foreign I/O of a read slice: a..b read 2048 sectors, a..w also wrote 8 */
static void test_foreign_sectors(const BlockStat *a, const BlockStat *b, const BlockStat *w) {
        BlockStat back = { .read_sectors = 10, .write_sectors = 0 };

        is_u64(backoff_stat_sectors(a, b), 2048, "sectors read in the slice");
        is_u64(backoff_foreign_sectors(a, b, 2048), 0, "own reads are not foreign");
        is_u64(backoff_foreign_sectors(a, b, 1024), 1024, "reads beyond ours are foreign");
        is_u64(backoff_foreign_sectors(a, w, 2048), 8, "writes are always foreign");
        is_u64(backoff_stat_sectors(b, &back), 0, "counters going backwards give 0");
        test_write_slice(a, b, w);
        ok(!backoff_slice_foreign((BlockStat[]){ *a, *a }, (BlockStat[]){ *b, *b }, 2, 2048, 0),
           "probe's own reads on device and member: no back-off");
        ok(backoff_slice_foreign((BlockStat[]){ *a, *a }, (BlockStat[]){ *b, *w }, 2, 2048, 0),
           "a write on a member: back off");
        ok(!backoff_slice_foreign((BlockStat[]){ *a, *a }, (BlockStat[]){ *b, *w }, 2, 2048, 8),
           "8 sectors within an 8-sector threshold");
}

/* foreign share: 2048 own, 2048 foreign on the device = 0.5; the busiest device wins; a device
 * without both readings or where nothing moved gives no figure */
static void test_foreign_share(const BlockStat *a, const BlockStat *b, const BlockStat *w) {
        BlockStat f = { .read_sectors = 1000 + 4096, .write_sectors = 50 };
        bool both[] = { true, true }, none[] = { false, false }, one[] = { false, true };

        is_double(backoff_foreign_share(a, &f, both, 1, 2048), 0.5, 1e-12,
                  "half the sectors someone else's");
        is_double(backoff_foreign_share(a, b, both, 1, 2048), 0.0, 1e-12, "own reads only: 0");
        is_double(backoff_foreign_share((BlockStat[]){ *a, *a }, (BlockStat[]){ *b, f }, both, 2,
                                        2048),
                  0.5, 1e-12, "the busiest device");
        is_double(backoff_foreign_share((BlockStat[]){ *a, *a }, (BlockStat[]){ f, *w }, one, 2,
                                        2048),
                  8.0 / 2056, 1e-12, "only devices with both readings");
        ok(isnan(backoff_foreign_share(a, &f, none, 1, 2048)), "no readings: NAN");
        ok(isnan(backoff_foreign_share(a, a, both, 1, 0)), "nothing moved: NAN");
        is_double(backoff_foreign_share(a, w, both, 1, 0), 1.0, 1e-12,
                  "nothing read by the probe: all foreign");
        ok(isnan(backoff_foreign_share(NULL, a, both, 1, 0)), "NULL: NAN");
}

static void test_progress_allowance(void) {
        /* 1 MiB reported + 256 KiB per interval + 4 x 64 KiB in flight = 1.5 MiB = 3072 */
        is_u64(backoff_progress_allowance(1 << 20, 256 << 10, 4, 64 << 10), 3072,
               "reported + one interval + in flight");
        is_u64(backoff_progress_allowance(0, 0, 1, 4096), 8, "nothing reported yet: in flight");
        is_u64(backoff_progress_allowance(513, 0, 0, 0), 2, "partial sector rounds up");
        is_u64(backoff_progress_allowance(UINT64_MAX - 10, 100, 2, UINT64_MAX),
               UINT64_MAX / 512 + 1, "saturates instead of wrapping");
}

static void test_shared_disks_and_standby(void) {
        char *d1[] = { "sda", "sdb", NULL }, *d2[] = { "sdc", "sdb", NULL },
             *d3[] = { "sdd", NULL };

        ok(backoff_disks_intersect(d1, d2), "sdb shared");
        ok(!backoff_disks_intersect(d1, d3), "no disk shared");
        ok(!backoff_disks_intersect(NULL, d3), "NULL is empty");

        ok(backoff_runtime_status_is_standby("suspended"), "suspended");
        ok(backoff_runtime_status_is_standby("suspending"), "suspending");
        ok(!backoff_runtime_status_is_standby("active"), "active");
        ok(!backoff_runtime_status_is_standby("unsupported"), "unsupported");
        ok(!backoff_runtime_status_is_standby(NULL), "missing attribute");
}

static void test_retry_and_budget(void) {
        is_u64(backoff_retry_delay(30, 600, 0), 30, "attempt 0");
        is_u64(backoff_retry_delay(30, 600, 3), 240, "attempt 3 doubles thrice");
        is_u64(backoff_retry_delay(30, 600, 10), 600, "capped");
        is_u64(backoff_retry_delay(30, 600, 1000), 600, "capped, huge attempt");

        ok(backoff_budget_allows(0, 1000, 1000), "no budget");
        ok(backoff_budget_allows(100, 40, 60), "fits exactly");
        ok(!backoff_budget_allows(100, 41, 60), "does not fit");
        ok(!backoff_budget_allows(100, 200, 0), "spent");
}

static void test_deferral(void) {
        ok(!backoff_deferral_expired(0, 5 * DAY_USEC, DAY_USEC), "not deferred");
        ok(!backoff_deferral_expired(1000, 1000 + DAY_USEC - 1, DAY_USEC),
           "deferred a microsecond short of the limit");
        ok(backoff_deferral_expired(1000, 1000 + DAY_USEC, DAY_USEC), "deferred the limit");
        ok(backoff_deferral_expired(1000, 1000 + 7 * DAY_USEC, DAY_USEC), "long deferred");
        ok(!backoff_deferral_expired(1000, 1000 + 7 * DAY_USEC, 0), "MaxDeferral=0: never");
        ok(!backoff_deferral_expired(1000, 1000 + 7 * DAY_USEC, USEC_INFINITY),
           "MaxDeferral=infinity: never");
        ok(!backoff_deferral_expired(5 * DAY_USEC, DAY_USEC, DAY_USEC),
           "clock set back before the deferral: no time passed");
}

int main(void) {
        BlockStat a = { .read_sectors = 1000, .write_sectors = 50 };
        BlockStat b = { .read_sectors = 1000 + 2048, .write_sectors = 50 };
        BlockStat w = { .read_sectors = 1000 + 2048, .write_sectors = 50 + 8 };

        test_foreign_sectors(&a, &b, &w);
        test_foreign_share(&a, &b, &w);
        test_progress_allowance();
        test_shared_disks_and_standby();
        test_retry_and_budget();
        test_deferral();

        is_str(probe_skip_reason_to_string(PROBE_SKIP_STANDBY), "standby", "reason name");
        is_int(probe_skip_reason_from_string("foreign-io"), PROBE_SKIP_FOREIGN_IO, "reason");
        return tap_done();
}

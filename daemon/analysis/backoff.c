/* SPDX-License-Identifier: MIT */
/* Probe back-off decisions (see backoff.h): md's is_mddev_idle() idea applied to a probe. The
 * manager measures, this file only compares numbers, so every rule is a unit test. */

#include <math.h>
#include <string.h>

#include "analysis/backoff.h"
#include "basic/string-table.h"

static const char *const probe_skip_reason_table[_PROBE_SKIP_REASON_MAX] = {
        [PROBE_SKIP_FOREIGN_IO] = "foreign-io", [PROBE_SKIP_SHARED_DISK] = "shared-disk",
        [PROBE_SKIP_STANDBY] = "standby",       [PROBE_SKIP_BUDGET] = "budget",
        [PROBE_SKIP_UNUSABLE] = "unusable",     [PROBE_SKIP_RETRIES] = "retries",
};

DEFINE_STRING_TABLE_LOOKUP(probe_skip_reason, ProbeSkipReason, probe_skip_reason_table);

bool backoff_runtime_status_is_standby(const char *runtime_status) {
        if (!runtime_status)
                return false;
        /* "suspending" goes to sleep, "suspended" sleeps; both would be woken by a read. */
        return strncmp(runtime_status, "suspend", 7) == 0;
}

static uint64_t sub0(uint64_t a, uint64_t b) {
        return a > b ? a - b : 0;
}

uint64_t backoff_stat_sectors(const BlockStat *before, const BlockStat *after) {
        if (!before || !after)
                return 0;
        return sub0(after->read_sectors, before->read_sectors) +
               sub0(after->write_sectors, before->write_sectors) +
               sub0(after->discard_sectors, before->discard_sectors);
}

uint64_t backoff_foreign_sectors(const BlockStat *before, const BlockStat *after,
                                 uint64_t own_sectors) {
        uint64_t s = backoff_stat_sectors(before, after);

        /* Writes are never ours (the probe only reads): they count in full. */
        uint64_t w = sub0(after->write_sectors, before->write_sectors) +
                     sub0(after->discard_sectors, before->discard_sectors);
        uint64_t r = s - w;

        return w + sub0(r, own_sectors);
}

uint64_t backoff_foreign_sectors_written(const BlockStat *before, const BlockStat *after,
                                         uint64_t own_sectors) {
        uint64_t s = backoff_stat_sectors(before, after);
        uint64_t w = before && after ? sub0(after->write_sectors, before->write_sectors) : 0;

        return (s - w) + sub0(w, own_sectors);
}

double backoff_foreign_share_written(const BlockStat *before, const BlockStat *after,
                                     uint64_t own_sectors) {
        uint64_t f;

        if (!before || !after)
                return NAN;
        f = backoff_foreign_sectors_written(before, after, own_sectors);
        if (f == 0 && own_sectors == 0)
                return NAN;
        return (double) f / ((double) f + (double) own_sectors);
}

bool backoff_slice_foreign(const BlockStat *before, const BlockStat *after, size_t n,
                           uint64_t own_sectors, uint64_t threshold_sectors) {
        for (size_t i = 0; i < n; i++)
                if (backoff_foreign_sectors(&before[i], &after[i], own_sectors) > threshold_sectors)
                        return true;
        return false;
}

double backoff_foreign_share(const BlockStat *before, const BlockStat *after, const bool *have,
                             size_t n, uint64_t own_sectors) {
        double share = NAN;

        if (!before || !after || !have)
                return NAN;
        for (size_t i = 0; i < n; i++) {
                uint64_t f;
                double s;

                if (!have[i])
                        continue;
                f = backoff_foreign_sectors(&before[i], &after[i], own_sectors);
                if (f == 0 && own_sectors == 0)
                        continue; /* nothing moved: no figure */
                s = (double) f / ((double) f + (double) own_sectors);
                if (isnan(share) || s > share)
                        share = s;
        }
        return share;
}

static uint64_t add_sat(uint64_t a, uint64_t b) {
        return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

uint64_t backoff_progress_allowance(uint64_t own_bytes, uint64_t interval_bytes,
                                    unsigned queue_depth, uint64_t block_size) {
        /* saturating: absurd inputs give "everything is ours", never a wrapped small number */
        uint64_t inflight = queue_depth > 0 && block_size > UINT64_MAX / queue_depth
                                    ? UINT64_MAX
                                    : (uint64_t) queue_depth * block_size;
        uint64_t sum = add_sat(add_sat(own_bytes, interval_bytes), inflight);

        return sum / 512 + (sum % 512 != 0);
}

bool backoff_disks_intersect(char *const *a, char *const *b) {
        for (size_t i = 0; a && a[i]; i++)
                for (size_t j = 0; b && b[j]; j++)
                        if (strcmp(a[i], b[j]) == 0)
                                return true;
        return false;
}

usec_t backoff_retry_delay(usec_t base_usec, usec_t max_usec, unsigned attempt) {
        usec_t d = base_usec;

        for (unsigned i = 0; i < attempt && d < max_usec; i++)
                d = d > max_usec / 2 ? max_usec : d * 2;
        return MIN(d, max_usec);
}

bool backoff_deferral_expired(usec_t deferred_usec, usec_t now_usec, usec_t max_usec) {
        if (deferred_usec == 0 || max_usec == 0 || max_usec == USEC_INFINITY ||
            now_usec < deferred_usec)
                return false;
        return now_usec - deferred_usec >= max_usec;
}

bool backoff_budget_allows(usec_t budget_usec, usec_t used_usec, usec_t cost_usec) {
        if (budget_usec == 0 || budget_usec == USEC_INFINITY)
                return true;
        if (used_usec >= budget_usec)
                return false;
        return cost_usec <= budget_usec - used_usec;
}

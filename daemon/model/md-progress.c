/* SPDX-License-Identifier: MIT */
/* One progress/speed/ETA computation for md arrays (see include/model/md-progress.h). */

#include <string.h>

#include "basic/string-table.h"
#include "model/md-progress.h"
#include "model/md.h"
#include "model/mdstat.h"

static const char *const md_progress_source_table[_MD_PROGRESS_SOURCE_MAX] = {
        [MD_PROGRESS_SOURCE_NONE] = "none",
        [MD_PROGRESS_SOURCE_MDSTAT] = "mdstat",
        [MD_PROGRESS_SOURCE_SYNC_COMPLETED] = "sync_completed",
};

DEFINE_STRING_TABLE_LOOKUP(md_progress_source, MdProgressSource, md_progress_source_table)

/* md_do_sync() sets curr_resync to MD_RESYNC_DELAYED (sync_completed "delayed", mdstat
 * "resync=DELAYED") at the start of every operation while it looks for another array on the
 * same disks whose operation runs (curr_resync != 0); with none it goes on at once. A queue is
 * only possible while another array shows an operation (running or itself queued). */
static bool other_array_syncing(const Mdstat *all, const MdstatArray *self) {
        for (size_t i = 0; i < all->n_arrays; i++) {
                const MdstatArray *o = &all->arrays[i];

                if (o == self ||
                    (self && self->name && o->name && strcmp(o->name, self->name) == 0))
                        continue;
                if (o->progress.kind == MDSTAT_PROGRESS_RUNNING ||
                    o->progress.kind == MDSTAT_PROGRESS_DELAYED)
                        return true;
        }
        return false;
}

void md_progress_compute(const MdArray *a, const MdstatArray *m, const Mdstat *all,
                         MdProgress *ret) {
        MdProgress p = {
                .source = MD_PROGRESS_SOURCE_NONE,
                .ratio = -1.0,
                .coarse_done_sectors = MD_PROGRESS_UNSET,
                .coarse_total_sectors = MD_PROGRESS_UNSET,
                .fine_done_sectors = MD_PROGRESS_UNSET,
                .fine_total_sectors = MD_PROGRESS_UNSET,
        };
        const MdstatProgress *mp = m ? &m->progress : NULL;
        uint64_t remaining;

        if (!a) {
                *ret = p;
                return;
        }
        p.delayed = a->sync_completed.kind == MD_SYNC_COMPLETED_DELAYED ||
                    (mp &&
                     (mp->kind == MDSTAT_PROGRESS_DELAYED || mp->kind == MDSTAT_PROGRESS_PENDING));
        if (p.delayed && all && !(mp && mp->kind == MDSTAT_PROGRESS_PENDING) &&
            !other_array_syncing(all, m))
                p.delayed = false; /* md's own start of the operation, not a queue */
        p.running = !p.delayed && a->sync_action != MD_SYNC_ACTION_IDLE &&
                    a->sync_action != MD_SYNC_ACTION_FROZEN &&
                    a->sync_action != _MD_SYNC_ACTION_INVALID;

        /* the raw sources, as printed (a tracker judges them itself) */
        if (a->sync_completed.kind == MD_SYNC_COMPLETED_PROGRESS &&
            a->sync_completed.total_sectors > 0 &&
            !(a->sync_completed.done_sectors == 0 && a->sync_speed_kib_per_sec == MD_UNSET)) {
                p.coarse_done_sectors = a->sync_completed.done_sectors;
                p.coarse_total_sectors = a->sync_completed.total_sectors;
        }
        if (mp && mp->kind == MDSTAT_PROGRESS_RUNNING && mp->done_kib != MD_UNSET &&
            mp->total_kib != MD_UNSET && mp->total_kib > 0 && mp->total_kib <= UINT64_MAX / 2) {
                uint64_t done = MIN(mp->done_kib, mp->total_kib) * 2, total = mp->total_kib * 2;
                bool cleanup = done >= total && p.coarse_total_sectors != MD_PROGRESS_UNSET &&
                               p.coarse_done_sectors < p.coarse_total_sectors;

                if (!cleanup) {
                        p.fine_done_sectors = done;
                        p.fine_total_sectors = total;
                }
        }

        if (!p.running) {
                *ret = p;
                return;
        }

        if (p.fine_total_sectors != MD_PROGRESS_UNSET) {
                p.source = MD_PROGRESS_SOURCE_MDSTAT;
                p.done_sectors = p.fine_done_sectors;
                p.total_sectors = p.fine_total_sectors;
        } else if (p.coarse_total_sectors != MD_PROGRESS_UNSET) {
                p.source = MD_PROGRESS_SOURCE_SYNC_COMPLETED;
                p.done_sectors = MIN(p.coarse_done_sectors, p.coarse_total_sectors);
                p.total_sectors = p.coarse_total_sectors;
        }
        if (p.source != MD_PROGRESS_SOURCE_NONE)
                p.ratio = CLAMP((double) p.done_sectors / (double) p.total_sectors, 0.0, 1.0);

        if (a->sync_speed_kib_per_sec != MD_UNSET && a->sync_speed_kib_per_sec > 0 &&
            a->sync_speed_kib_per_sec < UINT64_MAX / 1024)
                p.speed_bytes_per_sec = a->sync_speed_kib_per_sec * 1024;
        if (p.source != MD_PROGRESS_SOURCE_NONE && p.speed_bytes_per_sec > 0) {
                remaining = MIN(p.total_sectors - p.done_sectors, UINT64_MAX / 512) * 512;
                p.has_eta = true;
                p.eta_sec = remaining / p.speed_bytes_per_sec;
        }
        *ret = p;
}

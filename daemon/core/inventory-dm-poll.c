/* SPDX-License-Identifier: MIT */
/* Polling device-mapper status (contract in include/core/inventory.h): dm targets send no uevent
 * when a dm-raid leg fails, a thin pool runs out of space, a snapshot turns invalid or a
 * multipath path fails. inventory_refresh_dm_raid() re-reads every polled volume (the slow safety
 * net, which also moves figures no event tells of: pool usage, snapshot usage, resync progress);
 * inventory_refresh_dm_live() re-reads only those whose dm event counter moved, or whose resync
 * is running, from one DM_LIST_DEVICES ioctl for all of them (the fast path). */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/inventory-internal.h"
#include "model/dm-judge.h"

/* What a status refresh of a dm-raid or judged dm volume can change, to compare afterwards. */
typedef struct RaidFigures {
        VolumeHealth health;
        int raid_disks, degraded;
        char *level;
        VolumeSync sync;
        DmJudgement judgement; /* zeroed when the volume has none */
} RaidFigures;

static int raid_figures_get(const Volume *v, RaidFigures *ret) {
        *ret = (RaidFigures){ .health = v->health,
                              .raid_disks = v->raid_disks,
                              .degraded = v->degraded };
        if (v->dm_judgement)
                ret->judgement = *v->dm_judgement;
        if (v->level && !(ret->level = strdup(v->level)))
                return -ENOMEM;
        if (inventory_sync_copy(&ret->sync, &v->sync) < 0) {
                free(ret->level);
                return -ENOMEM;
        }
        return 0;
}

static unsigned raid_figures_diff(RaidFigures *f, const Volume *v) {
        unsigned what = 0;

        if (f->health != v->health)
                what |= INVENTORY_CHANGE_HEALTH;
        /* a judge's reason (which paths failed), figures (pool usage) and flags (needs_check
         * under a read-only pool) move within one health */
        if (v->dm_judgement && !dm_judgement_equal(&f->judgement, v->dm_judgement))
                what |= INVENTORY_CHANGE_OTHER;
        if (f->raid_disks != v->raid_disks || f->degraded != v->degraded)
                what |= INVENTORY_CHANGE_MEMBERS;
        if (!inventory_sync_equal(&f->sync, &v->sync))
                what |= INVENTORY_CHANGE_SYNC;
        if (!f->level != !v->level || (f->level && strcmp(f->level, v->level) != 0))
                what |= INVENTORY_CHANGE_OTHER;
        free(f->level);
        free(f->sync.action);
        return what;
}

static int refresh_one_dm_raid(Inventory *inv, Volume *v) {
        RaidFigures f;
        bool legs_changed = false;
        unsigned what;
        int r;

        r = raid_figures_get(v, &f);
        if (r < 0)
                return r;
        r = inventory_read_dm_status(inv, v, NULL);
        if (r > 0)
                r = inventory_link_dm_raid_legs(inv, v, &legs_changed);
        what = raid_figures_diff(&f, v) | (legs_changed ? INVENTORY_CHANGE_MEMBERS : 0);
        if (r < 0)
                return r;
        if (what && inventory_record_change(inv, v, INVENTORY_VOLUME_CHANGED, what) < 0)
                return -ENOMEM;
        return 0;
}

static bool dm_sync_running(const Volume *v) {
        const char *a = v->sync.action;

        return a && strcmp(a, "idle") != 0 && strcmp(a, "frozen") != 0;
}

/* Re-read every polled dm volume (all) or only those whose resync runs. */
static int refresh_polled(Inventory *inv, bool all) {
        int n = 0, r;

        for (size_t i = 0; i < inv->n_volumes; i++) {
                Volume *v = inv->volumes[i];

                if (!v->dm_name || !inventory_dm_is_polled(v) || (!all && !dm_sync_running(v)))
                        continue;
                r = refresh_one_dm_raid(inv, v);
                if (r < 0)
                        return r;
                n++;
        }
        return n;
}

int inventory_refresh_dm_raid(Inventory *inv) {
        if (!inv)
                return -EINVAL;
        return refresh_polled(inv, true);
}

/* Every dm device's number and event counter in one 64-bit FNV-1a hash: any event anywhere,
 * and any device created or removed, changes it. */
static uint64_t events_signature(const DmListEntry *l, size_t n) {
        uint64_t h = 0xcbf29ce484222325ULL;

        for (size_t i = 0; i < n; i++) {
                const uint32_t w[3] = { l[i].major, l[i].minor, l[i].event_nr };

                for (size_t k = 0; k < ELEMENTSOF(w); k++)
                        for (unsigned b = 0; b < 32; b += 8) {
                                h ^= (w[k] >> b) & 0xff;
                                h *= 0x100000001b3ULL;
                        }
        }
        return h;
}

/* Events are rare and a volume's verdict may come from another device's status (a thin-pool LV
 * from its hidden -tpool layer), so an event anywhere re-reads every polled volume; between
 * events only those whose resync runs are re-read, for their progress. */
int inventory_refresh_dm_live(Inventory *inv) {
        _cleanup_free_ DmListEntry *l = NULL;
        uint64_t sig;
        bool all;
        int n_list;

        if (!inv)
                return -EINVAL;
        if (!inv->dm.list)
                return -EOPNOTSUPP;
        n_list = inv->dm.list(inv->dm.userdata, &l);
        if (n_list < 0)
                return n_list;
        /* the counters read before the statuses: an event after the list is seen next time */
        sig = events_signature(l, (size_t) n_list);
        all = !inv->dm_events_known || sig != inv->dm_events;
        inv->dm_events = sig;
        inv->dm_events_known = true;
        return refresh_polled(inv, all);
}

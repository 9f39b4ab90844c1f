/* SPDX-License-Identifier: MIT */
/* What md and dm-raid say, as one RebuildObservation for the rebuild tracker (rebuild.c): the
 * operation, the progress pairs and the kernel's speed (the same md_progress_compute() that
 * `volumes` shows), degraded and failed members, the mismatch count, and for an operation that
 * just ended the kernel's hint whether it completed (replace, reshape, resync, check/repair).
 * Pure: sysfs and mdstat text were read by the caller. */

#include "analysis/rebuild.h"
#include "model/md-progress.h"
#include "model/raid-health.h"

static RebuildOperation operation_from_md(MdSyncAction a) {
        switch (a) {
        case MD_SYNC_ACTION_RESYNC:
                return REBUILD_OP_RESYNC;
        case MD_SYNC_ACTION_RECOVER:
                return REBUILD_OP_RECOVERY;
        case MD_SYNC_ACTION_CHECK:
                return REBUILD_OP_CHECK;
        case MD_SYNC_ACTION_REPAIR:
                return REBUILD_OP_REPAIR;
        case MD_SYNC_ACTION_RESHAPE:
                return REBUILD_OP_RESHAPE;
        case MD_SYNC_ACTION_FROZEN:
                return REBUILD_OP_FROZEN;
        case MD_SYNC_ACTION_IDLE:
        case MD_SYNC_ACTION_UNKNOWN: /* a word we cannot track */
        case _MD_SYNC_ACTION_MAX:
        case _MD_SYNC_ACTION_INVALID: /* raid0/linear: no sync_action */
                break;
        }
        return REBUILD_OP_IDLE;
}

/* -1 unknown, 0 aborted, 1 completed: see rebuild_observation_from_md() in rebuild.h. */
static int md_end_hint(const RebuildTracker *t, const MdArray *a, uint64_t sync_min_sectors) {
        switch (t->op) {
        case REBUILD_OP_RESYNC:
                return a->resync_start_sectors == MD_UNSET;
        case REBUILD_OP_CHECK:
        case REBUILD_OP_REPAIR:
                if (sync_min_sectors == REBUILD_UNKNOWN)
                        return -1;
                if (sync_min_sectors > 0)
                        return 0;
                if (t->total_sectors > 0 &&
                    (unsigned __int128) t->done_sectors * 8 >= (unsigned __int128) t->total_sectors)
                        return 1;
                return -1;
        case REBUILD_OP_RESHAPE:
                return a->reshape_position_sectors == MD_UNSET;
        case REBUILD_OP_REPLACE: {
                bool replaced = false, wanted = false;
                for (size_t i = 0; i < a->n_members; i++) {
                        if (md_member_was_replaced(&a->members[i]))
                                replaced = true;
                        else if (a->members[i].state &
                                 MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_WANT_REPLACEMENT))
                                wanted = true;
                }
                if (replaced && !wanted && (a->degraded == 0 || a->degraded == MD_UNSET))
                        return 1;
                return wanted ? 0 : -1;
        }
        case REBUILD_OP_RECOVERY: /* the tracker watches degraded */
        case REBUILD_OP_IDLE:
        case REBUILD_OP_FROZEN:
        case _REBUILD_OP_MAX:
        case _REBUILD_OP_INVALID:
                break;
        }
        return -1;
}

/* True unless every member is known and none is in a slot without being in sync. */
static bool md_has_recovery_target(const MdArray *a) {
        if (a->n_members == 0)
                return true; /* members not read: no evidence either way */
        for (size_t i = 0; i < a->n_members; i++) {
                const MdMember *mb = &a->members[i];

                if (mb->state == 0 || (mb->state & MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_UNKNOWN)) ||
                    mb->slot == MD_SLOT_UNKNOWN)
                        return true;
                if ((mb->state & MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_SPARE)) && mb->slot >= 0)
                        return true;
        }
        return false;
}

void rebuild_observation_from_md(const RebuildTracker *t, const MdArray *a, const MdstatArray *m,
                                 const Mdstat *all, uint64_t sync_min_sectors,
                                 RebuildObservation *ret) {
        RebuildObservation o;
        bool replacing = false, replaced = false;
        MdProgress p;

        rebuild_observation_init(&o);
        o.operation = operation_from_md(a->sync_action);
        /* the figures `volumes` shows come from the same computation */
        md_progress_compute(a, m, all, &p);
        o.delayed = p.delayed;
        if (p.coarse_total_sectors != MD_PROGRESS_UNSET) {
                o.coarse_done_sectors = p.coarse_done_sectors;
                o.coarse_total_sectors = p.coarse_total_sectors;
        }
        if (p.fine_total_sectors != MD_PROGRESS_UNSET) {
                o.fine_done_sectors = p.fine_done_sectors;
                o.fine_total_sectors = p.fine_total_sectors;
        }
        if (p.speed_bytes_per_sec > 0)
                o.kernel_speed_bytes_per_sec = p.speed_bytes_per_sec;
        if (a->degraded != MD_UNSET)
                o.degraded = a->degraded;
        if (a->mismatch_cnt != MD_UNSET)
                o.mismatch_count = a->mismatch_cnt;
        for (size_t i = 0; i < a->n_members; i++) {
                unsigned st = a->members[i].state;
                bool was_replaced = md_member_was_replaced(&a->members[i]) &&
                                    (a->degraded == 0 || a->degraded == MD_UNSET);

                if ((st & MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_FAULTY)) && !was_replaced)
                        o.member_failed = true;
                replaced = replaced || was_replaced;
                if (!(st & MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_FAULTY)) &&
                    (st & (MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_WANT_REPLACEMENT) |
                           MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_REPLACEMENT))))
                        replacing = true;
        }
        /* the tail of a replace: md swapped the members before sync_action went idle */
        if (o.operation == REBUILD_OP_RECOVERY && (replacing || replaced))
                o.operation = REBUILD_OP_REPLACE;
        /* "recover" with no member to recover is md_check_recovery() looking for work (right
         * after a member failed, and once more after every recovery): it finds none and goes
         * idle. A recovery always has its target in a slot and not in_sync ("spare", slot >= 0;
         * remove_and_add_spares() gives it the slot before the sync thread starts). A running
         * recovery whose target just failed stays a recovery: its end is judged as usual. */
        if (o.operation == REBUILD_OP_RECOVERY && (!t || t->phase != REBUILD_PHASE_RUNNING) &&
            !md_has_recovery_target(a))
                o.operation = REBUILD_OP_IDLE;
        if (t && t->phase == REBUILD_PHASE_RUNNING && o.operation != t->op)
                o.completed = md_end_hint(t, a, sync_min_sectors);
        *ret = o;
}

static RebuildOperation operation_from_dm(DmRaidSyncAction a) {
        switch (a) {
        case DM_RAID_SYNC_ACTION_RESYNC:
        case DM_RAID_SYNC_ACTION_INIT: /* old name of the initial sync */
                return REBUILD_OP_RESYNC;
        case DM_RAID_SYNC_ACTION_RECOVER:
                return REBUILD_OP_RECOVERY;
        case DM_RAID_SYNC_ACTION_CHECK:
                return REBUILD_OP_CHECK;
        case DM_RAID_SYNC_ACTION_REPAIR:
                return REBUILD_OP_REPAIR;
        case DM_RAID_SYNC_ACTION_RESHAPE:
                return REBUILD_OP_RESHAPE;
        case DM_RAID_SYNC_ACTION_FROZEN:
                return REBUILD_OP_FROZEN;
        case DM_RAID_SYNC_ACTION_IDLE:
        case DM_RAID_SYNC_ACTION_UNDEF:
        case DM_RAID_SYNC_ACTION_UNKNOWN:
        case _DM_RAID_SYNC_ACTION_MAX:
        case _DM_RAID_SYNC_ACTION_INVALID:
                break;
        }
        return REBUILD_OP_IDLE;
}

void rebuild_observation_from_dm(const RebuildTracker *t, const DmRaidStatus *s,
                                 RebuildObservation *ret) {
        RebuildObservation o;
        unsigned dead = 0, absent = 0, syncing = 0;

        for (unsigned i = 0; i < s->n_devices && i < DM_RAID_MAX_DEVICES && s->health[i]; i++)
                switch (dm_raid_health_from_char(s->health[i])) {
                case DM_RAID_HEALTH_DEAD:
                        dead++;
                        break;
                case DM_RAID_HEALTH_ABSENT:
                        absent++;
                        break;
                case DM_RAID_HEALTH_ALIVE_NOT_IN_SYNC:
                        syncing++;
                        break;
                case DM_RAID_HEALTH_ALIVE_IN_SYNC:
                case _DM_RAID_HEALTH_MAX:
                case _DM_RAID_HEALTH_INVALID:
                        break;
                }

        rebuild_observation_init(&o);
        o.operation = operation_from_dm(s->sync_action);
        if (s->sync_total_sectors > 0 && s->sync_total_sectors != DM_UNSET &&
            s->sync_done_sectors != DM_UNSET) {
                o.fine_done_sectors = MIN(s->sync_done_sectors, s->sync_total_sectors);
                o.fine_total_sectors = s->sync_total_sectors;
        }
        o.degraded = dead + absent;
        o.member_failed = dead > 0;
        if (s->mismatch_cnt != DM_UNSET)
                o.mismatch_count = s->mismatch_cnt;
        if (t && t->phase == REBUILD_PHASE_RUNNING && o.operation != t->op &&
            (t->op == REBUILD_OP_RESYNC || t->op == REBUILD_OP_RECOVERY))
                o.completed = syncing == 0 && dead == 0;
        *ret = o;
}

/* SPDX-License-Identifier: MIT */
/* The inventory's change set: one merged record per Volume handle since the owner last cleared
 * them, and the comparison of two readings of one device that says what changed. Records are
 * kept in the order handles first changed; removed handles stay allocated (in inv->removed) until
 * the clear, so a record never points to freed memory. A new handle's record is appended without
 * a search (a coldplug of thousands of devices stays linear); other records search the list. */

#include <stdlib.h>
#include <string.h>

#include "basic/string-table.h"
#include "basic/sysfs.h"
#include "core/inventory-internal.h"

static const char *const inventory_change_type_table[] = {
        [INVENTORY_VOLUME_ADDED] = "added",
        [INVENTORY_VOLUME_CHANGED] = "changed",
        [INVENTORY_VOLUME_REMOVED] = "removed",
};

DEFINE_STRING_TABLE_LOOKUP(inventory_change_type, InventoryChangeType, inventory_change_type_table)

static InventoryChange *find_record(Inventory *inv, const Volume *v) {
        for (size_t i = inv->n_changes; i > 0; i--)
                if (inv->changes[i - 1].volume == v)
                        return &inv->changes[i - 1];
        return NULL;
}

static void drop_record(Inventory *inv, InventoryChange *c) {
        size_t i = (size_t) (c - inv->changes);

        memmove(inv->changes + i, inv->changes + i + 1,
                (inv->n_changes - i - 1) * sizeof(inv->changes[0]));
        inv->n_changes--;
}

int inventory_record_change(Inventory *inv, Volume *v, InventoryChangeType type, unsigned what) {
        InventoryChange *c = type == INVENTORY_VOLUME_ADDED ? NULL : find_record(inv, v);

        if (c) {
                switch (type) {
                case INVENTORY_VOLUME_ADDED: /* not reached: a new handle has no record */
                case INVENTORY_VOLUME_CHANGED:
                        if (c->type != INVENTORY_VOLUME_REMOVED)
                                c->what |= c->type == INVENTORY_VOLUME_ADDED ? 0 : what;
                        return 0;
                case INVENTORY_VOLUME_REMOVED:
                        if (c->type == INVENTORY_VOLUME_ADDED)
                                drop_record(inv, c); /* came and went: nothing to tell */
                        else
                                *c = (InventoryChange){ INVENTORY_VOLUME_REMOVED, 0, v };
                        return 0;
                case _INVENTORY_CHANGE_TYPE_MAX:
                case _INVENTORY_CHANGE_TYPE_INVALID:
                        break;
                }
                return -EINVAL;
        }
        if (type < 0 || type >= _INVENTORY_CHANGE_TYPE_MAX)
                return -EINVAL;
        if (inv->n_changes == inv->n_changes_allocated) {
                size_t n = MAX(inv->n_changes_allocated * 2, (size_t) 16);
                InventoryChange *l = reallocarray(inv->changes, n, sizeof(*l));
                if (!l)
                        return -ENOMEM;
                inv->changes = l;
                inv->n_changes_allocated = n;
        }
        inv->changes[inv->n_changes++] = (InventoryChange){
                .type = type,
                .what = type == INVENTORY_VOLUME_ADDED     ? INVENTORY_CHANGE_ALL
                        : type == INVENTORY_VOLUME_REMOVED ? 0
                                                           : what,
                .volume = v,
        };
        return 0;
}

const InventoryChange *inventory_get_changes(const Inventory *inv, size_t *ret_n) {
        size_t n = inv ? inv->n_changes : 0;

        if (ret_n)
                *ret_n = n;
        return n > 0 ? inv->changes : NULL;
}

void inventory_clear_changes(Inventory *inv) {
        if (!inv)
                return;
        inv->n_changes = 0;
        for (size_t i = 0; i < inv->n_removed; i++)
                volume_free(inv->removed[i]);
        inv->n_removed = 0;
}

/* ---- comparing readings ------------------------------------------------------------------- */

static bool str_eq(const char *a, const char *b) {
        return a == b || (a && b && strcmp(a, b) == 0);
}

bool inventory_strv_equal(char *const *a, char *const *b) {
        size_t n = strv_length(a);

        if (n != strv_length(b))
                return false;
        for (size_t i = 0; i < n; i++)
                if (strcmp(a[i], b[i]) != 0)
                        return false;
        return true;
}

bool inventory_sync_equal(const VolumeSync *a, const VolumeSync *b) {
        return str_eq(a->action, b->action) && a->delayed == b->delayed &&
               a->has_progress == b->has_progress &&
               (!a->has_progress || a->progress == b->progress) &&
               a->done_sectors == b->done_sectors && a->total_sectors == b->total_sectors &&
               a->speed_bytes_per_second == b->speed_bytes_per_second && a->has_eta == b->has_eta &&
               (!a->has_eta || a->eta_seconds == b->eta_seconds) &&
               a->has_mismatch_count == b->has_mismatch_count &&
               (!a->has_mismatch_count || a->mismatch_count == b->mismatch_count);
}

int inventory_sync_copy(VolumeSync *dst, const VolumeSync *src) {
        char *action = NULL;

        if (src->action) {
                action = strdup(src->action);
                if (!action)
                        return -ENOMEM;
        }
        *dst = *src;
        dst->action = action;
        return 0;
}

bool inventory_array_members_equal(const VolumeMember *a, size_t n_a, const VolumeMember *b,
                                   size_t n_b) {
        if (n_a != n_b)
                return false;
        for (size_t i = 0; i < n_a; i++)
                if (!str_eq(a[i].name, b[i].name) || !str_eq(a[i].state, b[i].state) ||
                    a[i].slot != b[i].slot || a[i].errors != b[i].errors)
                        return false;
        return true;
}

static bool identity_equal(const Volume *a, const Volume *b) {
        return a->kind == b->kind && str_eq(a->path, b->path) && str_eq(a->syspath, b->syspath) &&
               a->major == b->major && a->minor == b->minor && a->rotational == b->rotational &&
               a->read_only == b->read_only && a->removable == b->removable &&
               str_eq(a->sub_lv_of, b->sub_lv_of) && str_eq(a->level, b->level) &&
               (a->md != NULL) == (b->md != NULL) && (a->dm_raid != NULL) == (b->dm_raid != NULL);
}

static bool dm_and_device_equal(const Volume *a, const Volume *b) {
        return str_eq(a->dm_name, b->dm_name) && str_eq(a->dm_uuid, b->dm_uuid) &&
               str_eq(a->vg_name, b->vg_name) && str_eq(a->lv_name, b->lv_name) &&
               str_eq(a->dm_target, b->dm_target) &&
               str_eq(a->dm_table_params, b->dm_table_params) && str_eq(a->vendor, b->vendor) &&
               str_eq(a->model, b->model) && str_eq(a->serial, b->serial) &&
               str_eq(a->rev, b->rev) && str_eq(a->transport, b->transport) &&
               str_eq(a->scsi_host, b->scsi_host) && str_eq(a->driver, b->driver);
}

static bool cli_equal(const Volume *a, const Volume *b) {
        return a->has_cli == b->has_cli && str_eq(a->cli_name, b->cli_name) &&
               str_eq(a->cli_volume_id, b->cli_volume_id) && str_eq(a->cli_state, b->cli_state) &&
               str_eq(a->cli_state_raw, b->cli_state_raw);
}

static bool speed_limit_equal(const MdSpeedLimit *a, const MdSpeedLimit *b) {
        return a->kib_per_sec == b->kib_per_sec && a->source == b->source;
}

/* The md figures a reading shows beyond health, members and sync (which have their own bits):
 * geometry, speed limits, identity. Without them a changed speed limit or a finished reshape's
 * old geometry stayed in every published view until something else changed. */
static bool md_details_equal(const MdArray *a, const MdArray *b) {
        if (!a || !b)
                return a == b;
        return a->level == b->level && a->raid_disks_old == b->raid_disks_old &&
               str_eq(a->array_state_raw, b->array_state_raw) &&
               a->last_sync_action == b->last_sync_action &&
               speed_limit_equal(&a->sync_speed_min, &b->sync_speed_min) &&
               speed_limit_equal(&a->sync_speed_max, &b->sync_speed_max) &&
               a->chunk_size_bytes == b->chunk_size_bytes &&
               a->chunk_size_old_bytes == b->chunk_size_old_bytes && a->layout == b->layout &&
               a->layout_old == b->layout_old && a->level_new == b->level_new &&
               a->component_size_kib == b->component_size_kib &&
               a->reshape_position_sectors == b->reshape_position_sectors &&
               a->resync_start_sectors == b->resync_start_sectors && str_eq(a->uuid, b->uuid) &&
               str_eq(a->metadata_version, b->metadata_version);
}

unsigned inventory_reading_diff(const Volume *old, const Volume *nv) {
        unsigned what = 0;

        if (old->health != nv->health)
                what |= INVENTORY_CHANGE_HEALTH;
        if (!str_eq(old->state, nv->state) || old->dm_suspended != nv->dm_suspended ||
            old->mdmon_missing != nv->mdmon_missing)
                what |= INVENTORY_CHANGE_STATE;
        if (old->raid_disks != nv->raid_disks || old->degraded != nv->degraded)
                what |= INVENTORY_CHANGE_MEMBERS;
        /* md members come from the reader; dm-raid legs are compared by inventory_link(). */
        if ((old->kind == VOLUME_MD || nv->kind == VOLUME_MD) &&
            !inventory_array_members_equal(old->array_members, old->n_array_members,
                                           nv->array_members, nv->n_array_members))
                what |= INVENTORY_CHANGE_MEMBERS;
        if (!inventory_sync_equal(&old->sync, &nv->sync))
                what |= INVENTORY_CHANGE_SYNC;
        if (old->size_bytes != nv->size_bytes || old->logical_block_size != nv->logical_block_size)
                what |= INVENTORY_CHANGE_SIZE;
        if (!inventory_strv_equal(old->raw_slaves, nv->raw_slaves) ||
            !inventory_strv_equal(old->raw_holders, nv->raw_holders) ||
            !str_eq(old->parent, nv->parent) || old->partition_number != nv->partition_number)
                what |= INVENTORY_CHANGE_LINKS;
        if (!identity_equal(old, nv) || !dm_and_device_equal(old, nv) || !cli_equal(old, nv) ||
            !md_details_equal(old->md, nv->md))
                what |= INVENTORY_CHANGE_OTHER;
        return what;
}

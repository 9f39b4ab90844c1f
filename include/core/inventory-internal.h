/* SPDX-License-Identifier: MIT */
#pragma once

/* Private to the inventory's own files (daemon/core/inventory*.c); nothing else includes it.
 * The inventory is split along its seams: inventory.c (object, queue, batches, refreshes,
 * queries), inventory-read.c (reading one device per kind: disk, partition, md, dm),
 * inventory-link.c (the stack graph, recomputed once per batch), inventory-change.c (the change
 * set and the comparison of two readings of one volume), inventory-cli.c (vendor CLI data). */

#include <stdbool.h>
#include <stddef.h>

#include "core/inventory.h"
#include "model/dm.h"
#include "model/md.h"
#include "model/mdstat.h"

struct udev;

/* One queued name. Flags say what the flush does, in this order. */
typedef struct InventoryQueued {
        char *name;
        bool remove_first; /* a remove event was queued: drop the handle */
        bool read;         /* an add/change came (after it): read the device */
} InventoryQueued;

struct Inventory {
        int root_fd;
        DmStatusProvider dm;
        bool dm_events_known; /* dm_events holds the last live refresh's signature */
        uint64_t dm_events;   /* every dm device's number and event counter, hashed */
        UdevPropsProvider udev;
        struct udev *udev_ctx; /* the live udev provider's context; owned */
        unsigned controller_flags;

        Volume **volumes; /* sorted by kernel name, names unique; the Volumes never move */
        size_t n_volumes;
        Mdstat *mdstat;

        InventoryChange *changes; /* merged records, one per handle */
        size_t n_changes, n_changes_allocated;
        Volume **removed; /* removed handles, freed by inventory_clear_changes() */
        size_t n_removed;

        InventoryQueued *queue; /* sorted by name, names unique */
        size_t n_queue;

        bool live; /* made by inventory_new_for_root() over the running system */
        sd_event_source *post, *defer; /* inventory_attach_event() */
        size_t budget;
        InventoryChangesHandler handler;
        void *handler_userdata;
};

/* ---- inventory.c -------------------------------------------------------------------------- */

/* Binary search in volumes[]: true and the index, or false and the insertion point. */
bool inventory_find_index(const Inventory *inv, const char *name, size_t *ret_idx);

/* A kernel device name usable as one path component. */
bool inventory_name_is_valid(const char *name) _pure_;

/* Replace *dst by a copy of s (NULL allowed). 0 or -ENOMEM (then *dst is unchanged). */
int inventory_strdup_to(char **dst, const char *s);

/* ---- inventory-read.c --------------------------------------------------------------------- */

/* Read one device from scratch into a new Volume (links, hidden and legs of dm-raid are left to
 * inventory_link()). -ENOENT if the device is not (or no longer) in sysfs, -ENOMEM; any other
 * unreadable part leaves its fields unknown. */
int inventory_read_device(Inventory *inv, const char *name, Volume **ret);

/* Sync figures of an md volume from its md/ reading and the /proc/mdstat text (may be NULL). */
void inventory_md_fill_sync(Volume *v, const MdArray *a, const Mdstat *mdstat);
/* inventory-read-md.c: fill v (kind md) from its md/ below dev_fd. 0 or -errno. */
int inventory_read_md(Inventory *inv, Volume *v, int dev_fd);

/* Set verdict, reason, replacing and the VolumeHealth that follows from a RaidHealth. */
void inventory_apply_verdict(Volume *v, const RaidHealth *h);

/* Judge `v` from scratch by its dm table (`table`, or queried when NULL) and status (by device
 * number): a "raid" target replaces v->dm_raid and refreshes health, degraded, level and sync; a
 * target with a judge (model/dm-judge.h) replaces v->dm_judgement, verdict and health; an
 * unreadable or unparsable status makes the health unknown. Returns 1 if v has a raid status
 * now, 0 if not, -ENOMEM. */
int inventory_read_dm_status(Inventory *inv, Volume *v, const char *table);

/* ---- inventory-link.c --------------------------------------------------------------------- */

/* Recompute the graph (folding, members, holders, dm-raid legs) of every volume from the raw
 * sysfs lists and record a CHANGED record (LINKS, or MEMBERS for legs) for each volume whose
 * links differ from before. 0 or -ENOMEM. */
int inventory_link(Inventory *inv);

/* Recompute the legs (array_members) of one dm-raid volume from its status and the graph; *ret
 * tells whether they differ from before. 0 or -ENOMEM. */
int inventory_link_dm_raid_legs(Inventory *inv, Volume *v, bool *ret_changed);

/* ---- inventory-cli.c ---------------------------------------------------------------------- */

/* A re-read controller volume `nv` keeps what the vendor CLI said about `old` (the previous
 * reading of the same device): cli_*, level, sync, and the CLI's weight on the health. 0 or
 * -ENOMEM. */
int inventory_cli_carry_over(Volume *nv, const Volume *old);

/* ---- inventory-change.c ------------------------------------------------------------------- */

/* Record a change of `v` and merge it with an earlier record of the same handle (see
 * inventory_get_changes()). 0 or -ENOMEM. */
int inventory_record_change(Inventory *inv, Volume *v, InventoryChangeType type, unsigned what);

/* Which INVENTORY_CHANGE_* bits differ between two readings of one device (fields a reader
 * fills; links and dm-raid legs are compared by inventory_link()). Pure. */
unsigned inventory_reading_diff(const Volume *old, const Volume *nv) _pure_;

bool inventory_strv_equal(char *const *a, char *const *b) _pure_;
bool inventory_sync_equal(const VolumeSync *a, const VolumeSync *b) _pure_;
bool inventory_array_members_equal(const VolumeMember *a, size_t n_a, const VolumeMember *b,
                                   size_t n_b) _pure_;

/* Deep copy of a VolumeSync into *dst (whose old content is not freed). 0 or -ENOMEM. */
int inventory_sync_copy(VolumeSync *dst, const VolumeSync *src);

/* Free the array members of v and leave none. */
void inventory_array_members_clear(Volume *v);

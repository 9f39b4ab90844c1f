/* SPDX-License-Identifier: MIT */
#pragma once

/* One verdict rule for every array storpulse reads: md arrays (sysfs md/), dm-raid targets (LVM
 * raid LVs) and the plain device-mapper tables of linear and striped LVs. Pure: no I/O, no
 * allocation.
 *
 * The rule, checked against drivers/md/md.c, raid1.c, raid5.c, raid10.c of Linux 6.1:
 *  - An array has FAILED when its data is gone: more slots lost than the level tolerates
 *    (linear/raid0: none; raid1: n-1; raid4/5: 1; raid6: 2; raid10: some stripe lost every
 *    copy, judged like raid10.c _enough() from the layout's copies and which slots are gone),
 *    or array_state `broken`, or no working member left at all, whatever array_state says
 *    (md prints `broken` only when the state would otherwise be `clean`: an array being
 *    written reads `active`/`write-pending` although MD_BROKEN is set).
 *    A member whose block device no longer exists (deleted disk; md still says in_sync for a
 *    raid0/linear member until I/O reaches it) is not a working member, nor is one md shows
 *    `blocked` (writes to it held) or `write_error` (writes to it failed).
 *  - DEGRADED: slots lost within the tolerance.
 *  - Not every `inactive` is a failure: an IMSM/DDF container (metadata_version "external:<fmt>"
 *    without a '/', level `container`) is inactive by design: CONTAINER; an array that has
 *    members but no personality yet is being assembled (mdadm -I at boot): ASSEMBLING; `clear`
 *    is a node without an array (stopped, or opened but never set up): STOPPED.
 *  - A member being replaced (mdadm --replace: want_replacement on the old member, a
 *    `replacement` member being rebuilt) is no loss: md keeps degraded at 0 and the verdict
 *    stays OK with `replacing` set. At the end md marks the old member faulty on purpose; a
 *    faulty member whose slot has a working member is not a loss either.
 *  - A dm table of linear/striped segments that maps to a device which no longer exists, or
 *    whose segment LVM replaced by an `error` target, has lost data: FAILED. */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/macro.h"
#include "basic/string-table.h"

typedef struct MdArray MdArray;           /* model/md.h */
typedef struct DmRaidStatus DmRaidStatus; /* model/dm.h */

typedef enum RaidVerdict {
        RAID_VERDICT_OK,
        RAID_VERDICT_DEGRADED,
        RAID_VERDICT_FAILED,
        RAID_VERDICT_CONTAINER,  /* IMSM/DDF container: holds member arrays, serves no data */
        RAID_VERDICT_ASSEMBLING, /* inactive with members: being assembled (or short of members) */
        RAID_VERDICT_STOPPED,    /* md `clear`: no array behind the node */
        /* ASSEMBLING for longer than the owner's grace period: never set here (no clock), only
         * by inventory_mark_not_assembled() */
        RAID_VERDICT_NOT_ASSEMBLED,
        RAID_VERDICT_UNKNOWN, /* not enough known to judge */
        _RAID_VERDICT_MAX,
        _RAID_VERDICT_INVALID = -EINVAL,
} RaidVerdict;

DECLARE_STRING_TABLE_LOOKUP(raid_verdict, RaidVerdict);

/* The redundancy a level has. RAID_LEVEL_OTHER: unknown level (then only "no working member
 * left" fails it). */
typedef enum RaidLevel {
        RAID_LEVEL_LINEAR,
        RAID_LEVEL_RAID0,
        RAID_LEVEL_RAID1,
        RAID_LEVEL_RAID4,
        RAID_LEVEL_RAID5,
        RAID_LEVEL_RAID6,
        RAID_LEVEL_RAID10,
        RAID_LEVEL_OTHER,
        _RAID_LEVEL_MAX,
        _RAID_LEVEL_INVALID = -EINVAL,
} RaidLevel;

/* Most slots a verdict looks at (md allows more, dm-raid 253; beyond this: UNKNOWN). */
#define RAID_SLOTS_MAX 256U

typedef struct RaidGeometry {
        RaidLevel level;
        unsigned n_slots;     /* raid_disks */
        unsigned near_copies; /* raid10 only (md layout & 0xff; dm-raid raid10 = raid10_near 2) */
        unsigned far_copies;  /* raid10 only ((layout >> 8) & 0xff), 1 for near layouts */
} RaidGeometry;

/* Slots a level survives losing in any combination; -1 for raid10 (depends on which) and
 * unknown levels. */
int raid_level_tolerance(RaidLevel level, unsigned n_slots) _const_;

/* Whether the data survives with the given slots lost (lost[i] for slot i < g->n_slots): per
 * level tolerance, raid10 stripe by stripe. n_slots 0 or > RAID_SLOTS_MAX: false. */
bool raid_data_survives(const RaidGeometry *g, const bool *lost);

/* raid10 copies from md's layout number (raid10.c setup_geo()): near = layout & 0xff, far =
 * (layout >> 8) & 0xff. -EINVAL for a layout with 0 copies. */
int raid10_copies_from_layout(uint64_t layout, unsigned *ret_near, unsigned *ret_far);

typedef struct RaidHealth {
        RaidVerdict verdict;
        unsigned lost;      /* slots without a working member */
        unsigned working;   /* in-sync members counted (md) / 'A' legs (dm) */
        int tolerance;      /* raid_level_tolerance(), -1 see there */
        bool broken;        /* md array_state `broken` */
        bool replacing;     /* a replacement is being rebuilt for a member */
        bool replaced;      /* a member was replaced: faulty, its slot served by another */
        const char *reason; /* static text, why FAILED/DEGRADED/... ("" for OK) */
} RaidHealth;

/* md array from md_array_load(): level, raid_disks, layout, array_state, degraded,
 * metadata_version and every member's state and slot. */
void raid_health_from_md(const MdArray *a, RaidHealth *ret);

/* A member md marked faulty at the end of mdadm --replace: on Linux 6.1 its state reads plain
 * "faulty" with slot "none" (want_replacement is cleared by then; "faulty,want_replacement" is
 * accepted too). Only meaningful when the array's RaidHealth.replaced is set, i.e. degraded is 0
 * and no slot is lost: its slot is served by another member. The kernel keeps no marker that
 * tells a finished replace from a hot spare's finished recovery, so both read as replaced; a
 * member that fails makes the array degraded and is never "replaced". */
typedef struct MdMember MdMember;
bool md_member_was_replaced(const MdMember *m) _pure_;

/* dm-raid status (the "raid" target's status): raid_type, legs 'A'/'a'/'D'/'-'. A leg being
 * rebuilt ('a' during `recover`) counts as lost, as md counts a recovering member. */
void raid_health_from_dm_raid(const DmRaidStatus *s, RaidHealth *ret);

/* The same with the dm-raid table's parameters (the part after "raid ", may be NULL): a raid10's
 * copies and layout (raid10_copies, raid10_format near|far|offset) come from there, not assumed
 * near 2. A leg 'a' while sync_action is `recover` is being rebuilt: lost, as md counts it; a dead
 * journal ('D') makes an otherwise whole array DEGRADED. */
void raid_health_from_dm_raid_table(const DmRaidStatus *s, const char *table, RaidHealth *ret);

/* RaidLevel of a dm-raid raid_type ("raid1", "raid5_ls", "raid6_zr", "raid10", "raid0"...). */
RaidLevel raid_level_from_dm_raid_type(const char *raid_type) _pure_;

/* Verdict of a device-mapper table (the whole table text, one target line each, as
 * DM_DEVICE_TABLE returns it) for a linear/striped device: FAILED if a segment is an `error`
 * target or maps to a device for which device_exists() returns false (devices written "MAJ:MIN"
 * as the kernel prints them); OK otherwise; UNKNOWN if the text does not parse. Other targets
 * are not judged (OK). ret_missing, if not NULL, receives the first missing "MAJ:MIN" or
 * "error" (size n_missing). */
RaidVerdict dm_table_verdict(const char *table,
                             bool (*device_exists)(unsigned major, unsigned minor, void *ud),
                             void *userdata, char *ret_missing, size_t n_missing);

/* SPDX-License-Identifier: MIT */
#pragma once

/* Pure parsers for device-mapper text: target lines of a table or status
 * ("<start> <length> <target_type> <params...>", as DM_DEVICE_TABLE/STATUS return them through
 * libdevmapper's dm_get_next_target(), or as `dmsetup table|status NAME` prints them), the dm-raid
 * status parameters (Documentation/admin-guide/device-mapper/dm-raid.rst, dm-raid.c
 * raid_status()), and LVM's naming conventions for dm devices (DM_UUID "LVM-<vg uuid><lv uuid>",
 * dm names "vg-lv" with '-' doubled inside names, hidden sub-LVs "_rimage_N" etc.).
 *
 * No I/O and no allocation except where a function says so. A word we do not know (a future target
 * type or sync action) is valid and maps to the _UNKNOWN value. */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/macro.h"
#include "basic/string-table.h"

/* dm-raid's MAX_RAID_DEVICES. */
#define DM_RAID_MAX_DEVICES 253U

/* "No value" for optional numeric fields (older dm-raid versions print fewer fields). */
#define DM_UNSET UINT64_MAX

typedef enum DmTargetType {
        DM_TARGET_LINEAR,
        DM_TARGET_STRIPED,
        DM_TARGET_RAID,
        DM_TARGET_MIRROR,
        DM_TARGET_SNAPSHOT,
        DM_TARGET_SNAPSHOT_ORIGIN,
        DM_TARGET_SNAPSHOT_MERGE,
        DM_TARGET_THIN,
        DM_TARGET_THIN_POOL,
        DM_TARGET_CACHE,
        DM_TARGET_WRITECACHE,
        DM_TARGET_CRYPT,
        DM_TARGET_INTEGRITY,
        DM_TARGET_VERITY,
        DM_TARGET_MULTIPATH,
        DM_TARGET_VDO,
        DM_TARGET_DELAY,
        DM_TARGET_FLAKEY,
        DM_TARGET_ERROR,
        DM_TARGET_ZERO,
        DM_TARGET_UNKNOWN, /* any other well-formed name */
        _DM_TARGET_TYPE_MAX,
        _DM_TARGET_TYPE_INVALID = -EINVAL,
} DmTargetType;

/* One line of a table or status. Pointers point INTO the parsed string (no allocation): valid as
 * long as that string is. target_type is copied (kernel limit DM_MAX_TYPE_NAME = 16). */
typedef struct DmTargetLine {
        uint64_t start_sectors;
        uint64_t length_sectors;
        char target_type_name[16];
        DmTargetType target_type;
        const char
                *params; /* rest of the line after the type and its separating space; may be "" */
} DmTargetLine;

/* dm-raid sync_action words (dm-raid.c sync_str(); "init" in the doc's old example, "undef"). */
typedef enum DmRaidSyncAction {
        DM_RAID_SYNC_ACTION_IDLE,
        DM_RAID_SYNC_ACTION_FROZEN,
        DM_RAID_SYNC_ACTION_RESYNC,
        DM_RAID_SYNC_ACTION_RECOVER,
        DM_RAID_SYNC_ACTION_CHECK,
        DM_RAID_SYNC_ACTION_REPAIR,
        DM_RAID_SYNC_ACTION_RESHAPE,
        DM_RAID_SYNC_ACTION_INIT,
        DM_RAID_SYNC_ACTION_UNDEF,
        DM_RAID_SYNC_ACTION_UNKNOWN,
        _DM_RAID_SYNC_ACTION_MAX,
        _DM_RAID_SYNC_ACTION_INVALID = -EINVAL,
} DmRaidSyncAction;

/* Health of one leg or the journal, one char each in the status line. */
typedef enum DmRaidHealth {
        DM_RAID_HEALTH_ALIVE_IN_SYNC,     /* 'A' */
        DM_RAID_HEALTH_ALIVE_NOT_IN_SYNC, /* 'a' */
        DM_RAID_HEALTH_DEAD,              /* 'D' */
        DM_RAID_HEALTH_ABSENT,            /* '-' (leg passed as "- -", or no journal) */
        _DM_RAID_HEALTH_MAX,
        _DM_RAID_HEALTH_INVALID = -EINVAL,
} DmRaidHealth;

typedef struct DmRaidStatus {
        char raid_type[32]; /* "raid1", "raid5_ls", "raid6_zr", "raid10", "raid0", ... */
        unsigned n_devices;
        char health[DM_RAID_MAX_DEVICES + 1]; /* n_devices chars of A/a/D/-, NUL-terminated */
        uint64_t sync_done_sectors;
        uint64_t sync_total_sectors;
        DmRaidSyncAction sync_action;
        char sync_action_raw[16];
        uint64_t mismatch_cnt;        /* DM_UNSET before dm-raid 1.5.0 */
        uint64_t data_offset_sectors; /* DM_UNSET before 1.9.0 */
        char journal;                 /* 'A', 'a', 'D', '-', or 0 before 1.10.0 */
} DmRaidStatus;

DECLARE_STRING_TABLE_LOOKUP(dm_target_type, DmTargetType);
DECLARE_STRING_TABLE_LOOKUP(dm_raid_sync_action, DmRaidSyncAction);
DECLARE_STRING_TABLE_LOOKUP(dm_raid_health, DmRaidHealth); /* "alive", "alive-not-in-sync",... */
/* 'A' -> ALIVE_IN_SYNC etc.; _DM_RAID_HEALTH_INVALID for any other char. */
DmRaidHealth dm_raid_health_from_char(char c) _const_;

/* Parse "<start> <length> <type> [params]" (table or status line; leading/trailing whitespace and
 * a trailing newline accepted; `dmsetup`'s "name: " prefix is NOT accepted). -EINVAL if malformed,
 * -ERANGE for numbers beyond 64 bits or a type name >= 16 chars. ret->params points into line. */
int dm_parse_target_line(const char *line, DmTargetLine *ret);

/* Parse dm-raid status PARAMS (the part after "raid "), e.g. "raid1 2 AA 245760/245760 idle 0 0 -"
 * or the older "raid4 5 AAAAA 2/490221568 init 0" and "raid1 2 AA 100/200 idle". The health string
 * must have exactly #devices chars of A/a/D/-; extra trailing fields are ignored. -EINVAL on
 * malformed text, -ERANGE on numbers beyond 64 bits or more than DM_RAID_MAX_DEVICES devices. */
int dm_raid_status_parse(const char *params, DmRaidStatus *ret);

/* Number of legs in the given health state. */
unsigned dm_raid_status_count(const DmRaidStatus *s, DmRaidHealth h) _pure_;

/* Sync ratio 0..1 (clamped), -1.0 when total is 0. */
double dm_raid_status_sync_ratio(const DmRaidStatus *s) _pure_;

/* LVM's DM_UUID: "LVM-" + 32-char VG uuid + 32-char LV uuid, optionally "-<layer>" (e.g. "-real",
 * "-cow", "-tpool", "-pool"). */
typedef struct LvmUuid {
        char vg_uuid[33];
        char lv_uuid[33];  /* "" when the uuid names only a VG (LV part absent) */
        const char *layer; /* points into the input after '-', or NULL */
} LvmUuid;

/* -EINVAL if dm_uuid is not an LVM uuid (no "LVM-" prefix, wrong length, chars outside LVM's
 * [A-Za-z0-9!#]). ret->layer points into dm_uuid. */
int lvm_uuid_split(const char *dm_uuid, LvmUuid *ret);

/* Split an LVM dm name "vg-lv[-layer]" where '-' inside a name is doubled ("my--vg-my--lv" ->
 * "my-vg", "my-lv"). Allocates *ret_vg, *ret_lv and *ret_layer (NULL when no layer; ret_layer may
 * be NULL to ignore it). -EINVAL if there is no single '-' separating two non-empty names. */
int lvm_name_split(const char *dm_name, char **ret_vg, char **ret_lv, char **ret_layer);

/* If lv_name is a hidden sub-LV (r1_rimage_0, r1_rmeta_1, m_mimage_0, m_mlog, pool_tdata,
 * pool_tmeta, c_cdata, c_cmeta, c_cpool, c_corig, r1_rimage_0_imeta, r1_rimage_0_iorig,
 * vdopool_vdata, lv_wcorig, lv_vorigin, ...), store the name of the top-level LV it belongs to in
 * *ret_parent (allocated) and return 1; nested sub-LVs resolve to the outermost LV
 * (r1_rimage_0_imeta -> r1). Return 0 (and leave *ret_parent alone) for a normal LV name, and for
 * hidden LVs without a parent such as "lvol0_pmspare". -ENOMEM on allocation failure. */
int lvm_sub_lv_parent(const char *lv_name, char **ret_parent);

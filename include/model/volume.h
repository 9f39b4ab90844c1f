/* SPDX-License-Identifier: MIT */
#pragma once

/* A Volume is one block device as storpulse sees it: an md array, an LVM logical volume, another
 * device-mapper device, a hardware-RAID controller volume, a plain disk (sd, nvme, virtio, loop)
 * or a partition. It is plain data, filled by the inventory from sysfs, the udev database and
 * device-mapper status text; the inventory owns every Volume and links them into the stack
 * graph by name (members = what this volume sits on, holders = what sits on it).
 *
 * Field conventions: strings are NULL when unknown, numbers that can be unknown say how (-1,
 * UINT64_MAX or a has_ flag). Sizes are bytes, speeds bytes/s, times seconds. */

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "basic/macro.h"
#include "basic/string-table.h"
#include "model/raid-health.h"

typedef struct MdArray MdArray;           /* include/md.h */
typedef struct DmRaidStatus DmRaidStatus; /* include/dm.h */
typedef struct DmJudgement DmJudgement;   /* include/dm-judge.h */

typedef enum VolumeKind {
        VOLUME_MD,         /* md array (/sys/block/mdX/md exists) */
        VOLUME_LVM,        /* dm device with an "LVM-" uuid (sub-LVs are folded, see hidden) */
        VOLUME_DM,         /* any other device-mapper device (crypt, delay, multipath, ...) */
        VOLUME_CONTROLLER, /* SCSI disk behind a hardware-RAID driver: a controller volume */
        VOLUME_DISK,       /* whole disk: sd, nvme namespace, virtio, loop, nullb, ... */
        VOLUME_PARTITION,  /* partition of a disk (sysfs "partition" attribute) */
        _VOLUME_KIND_MAX,
        _VOLUME_KIND_INVALID = -EINVAL,
} VolumeKind;

DECLARE_STRING_TABLE_LOOKUP(volume_kind, VolumeKind);

/* Overall health the kernel shows for this volume itself (not its members). */
typedef enum VolumeHealth {
        VOLUME_HEALTH_OK,       /* nothing wrong visible */
        VOLUME_HEALTH_DEGRADED, /* redundancy reduced: md degraded>0, dm-raid leg 'D'/'-' */
        VOLUME_HEALTH_FAILED,   /* data unavailable: md "broken"/"inactive", dm-raid with too many
                                   dead legs */
        VOLUME_HEALTH_UNKNOWN,  /* could not be read */
        _VOLUME_HEALTH_MAX,
        _VOLUME_HEALTH_INVALID = -EINVAL,
} VolumeHealth;

DECLARE_STRING_TABLE_LOOKUP(volume_health, VolumeHealth);

/* One leg / member of an array as the array sees it (md dev-X/, dm-raid health chars). */
typedef struct VolumeMember {
        char *name;     /* kernel name of the member device ("vdb", "dm-6"); for a dm-raid leg the
                         * device below its rimage sub-LV, or the sub-LV's name if it has none */
        char *state;    /* md: the dev-X/state text ("in_sync", "faulty", "spare",
                         * "in_sync,write_mostly"), or "replaced": a faulty member (slot none)
                         * of an array with no slot lost and degraded 0, as md leaves the old
                         * disk at the end of a replace (or a spare's finished recovery). dm-raid:
                         * "in_sync" (A), "syncing" (a), "faulty" (D),    "missing" (-) */
        int slot;       /* md slot / dm-raid leg index; -1 for none (spare, faulty) */
        int64_t errors; /* md dev-X/errors; -1 unknown */
} VolumeMember;

/* A running (or just-completed) resync/recovery/check/repair/reshape, as a one-shot reading. */
typedef struct VolumeSync {
        char *action;          /* "idle", "resync", "recover", "check", "repair", "reshape",
                                * "frozen"; NULL when the volume has no sync machinery */
        bool delayed;          /* md sync_completed reads "delayed" (queued behind another array) */
        bool has_progress;     /* progress is meaningful */
        double progress;       /* 0..1: /proc/mdstat's figure when present, else done/total */
        uint64_t done_sectors; /* per sync_completed / dm-raid sync ratio; 0 when unknown */
        uint64_t total_sectors;
        uint64_t speed_bytes_per_second; /* md sync_speed * 1024; 0 = unknown (dm-raid one-shot) */
        bool has_eta;
        uint64_t eta_seconds;    /* remaining sectors * 512 / speed */
        uint64_t mismatch_count; /* md mismatch_cnt / dm-raid mismatch count */
        bool has_mismatch_count;
} VolumeSync;

typedef struct Volume {
        char *name; /* kernel name: "md0", "dm-4", "sda1", "nvme0n1" (unique key) */
        VolumeKind kind;
        char *path;    /* "/dev/<name>" */
        char *syspath; /* device directory relative to the root: "sys/devices/virtual/block/md0" */
        unsigned major, minor;
        uint64_t size_bytes;
        bool size_unknown; /* sysfs "size" unreadable or absurd: size_bytes is 0, JSON null */
        uint32_t logical_block_size; /* 0 unknown */
        int rotational;              /* 1, 0, -1 unknown */
        bool read_only;
        bool removable;

        VolumeHealth health;
        char *state; /* human state word: md array_state ("clean", "active", "broken", ...),
                      * dm "active"/"suspended", disks "running"/"offline" or "ok" */
        bool hidden; /* an LVM sub-LV (_rimage_, _rmeta_, ...) folded into `folded_into` */
        char *folded_into;
        char *sub_lv_of; /* LVM sub-LVs: the LV name they belong to ("r1" for r1_rimage_0) */

        char **members;     /* NULL-terminated names of the volumes this one sits on (after folding
                             * sub-LVs: a raid1 LV lists the devices below its rimages; a partition
                             * lists its disk) */
        char **holders;     /* names of the volumes sitting on this one (incl. partitions of a disk;
                             * hidden sub-LVs are replaced by the LV holding them) */
        char **raw_slaves;  /* sysfs slaves/ exactly as read */
        char **raw_holders; /* sysfs holders/ exactly as read */
        VolumeMember *array_members; /* md members / dm-raid legs */
        size_t n_array_members;
        char **container_arrays; /* an IMSM/DDF container: its member arrays (the arrays whose
                                  * metadata_version names it), NULL-terminated; else NULL */
        char *parent;            /* partitions: the whole disk's name */
        int partition_number;    /* partitions: number; else 0 */

        /* arrays (md, dm-raid LVs) */
        char *level;    /* "raid1", "raid5", "raid0", "linear", ... */
        int raid_disks; /* -1 unknown */
        int degraded;   /* missing devices count (md degraded; dm-raid dead legs); -1 unknown */
        VolumeSync sync;
        RaidVerdict verdict;        /* model/raid-health's verdict for md arrays, dm-raid and
                                     * linear/striped dm tables; RAID_VERDICT_UNKNOWN otherwise */
        const char *verdict_reason; /* static text explaining the verdict, or NULL */
        bool replacing;             /* md: a member is being replaced (mdadm --replace) */
        bool mdmon_missing;         /* md: an array of an IMSM/DDF container (metadata_version
                                     * "external:/mdX/N") whose mdmon does not run (no
                                     * run/mdadm/mdX.pid naming a live process): writes to it block */
        MdArray *md;                /* md only; owned */

        /* device-mapper */
        char *dm_name, *dm_uuid;
        char *vg_name, *lv_name; /* LVM: udev DM_VG_NAME/DM_LV_NAME, else split from dm_name */
        char *dm_target;         /* first table target type: "linear", "striped", "raid", ... */
        char *dm_table_params;   /* the first table line's parameters (after the target type) */
        bool dm_suspended;
        bool dm_event_known;       /* dm_event_nr holds the counter of the last status read */
        uint32_t dm_event_nr;      /* DM_LIST_DEVICES event counter (model/dm-list.h) */
        DmRaidStatus *dm_raid;     /* dm "raid" target status, parsed; owned */
        DmJudgement *dm_judgement; /* the target judge's verdict, reason and figures (thin-pool,
                                    * snapshot, multipath, striped, mirror, ...); owned; the
                                    * verdict_reason points into it */

        /* disks and controller volumes */
        char *vendor, *model, *serial, *rev;
        char *transport; /* "scsi", "ata", "nvme", "virtio", "loop", "nullb", "mmc", ... or NULL */
        char *scsi_host; /* "host0" when the device path runs through a SCSI host */
        char *driver;    /* the SCSI host's proc_name ("megaraid_sas", "ahci") */

        /* controller volumes: the vendor CLI's view, when a CLI is installed and was asked
         * (inventory_apply_controller_cli()); has_cli false otherwise */
        bool has_cli;
        char *cli_name;      /* "storcli", "ssacli", "arcconf" */
        char *cli_volume_id; /* "c0/v239": the CLI's controller and volume numbers */
        char *cli_state;     /* controller_volume_state_to_string(): "optimal", "degraded", ... */
        char *cli_state_raw; /* the CLI's own word ("Optl", "Dgrd", "Interim Recovery Mode") */

        /* set by analysis layers above (peers / detector); the inventory never sets it */
        bool slow;
} Volume;

/* Allocate an empty volume named `name` (kind VOLUME_DISK, health unknown). */
int volume_new(const char *name, Volume **ret);

/* Free the volume and everything it owns; accepts NULL, returns NULL. */
Volume *volume_free(Volume *v);
DEFINE_TRIVIAL_CLEANUP_FUNC(Volume *, volume_free);

/* True if the volume is an array (md, or an LV/dm device with a dm "raid" target). */
bool volume_is_array(const Volume *v) _pure_;

/* True if the volume is listed in every output (volumes, status, /metrics, /api): not a hidden
 * sub-LV, and not an unconfigured whole disk: size 0 with nothing on it and no failure shown
 * (an unbound loop device, zram with disksize 0, an nbd not connected: lsblk leaves those out,
 * and they would read "ok"). */
bool volume_is_listed(const Volume *v) _pure_;

/* The member's state as every interface shows it (JSON, the CLI, /metrics): the state text, but
 * a "spare" that md has given a slot is being rebuilt into it, "rebuilding" (mdadm's "spare
 * rebuilding"; dev-X/slot set, recovery_start below the size), "rebuilding,replacement" for a
 * --replace target; a spare with slot none stays "spare". NULL when unknown. */
const char *volume_member_state(const VolumeMember *m) _pure_;

/* True if this volume itself shows a problem: health degraded/failed, a faulty array member, an
 * external-metadata array without its mdmon, or the `slow` flag. */
bool volume_has_problem(const Volume *v) _pure_;

/* The JSON object of `storpulsectl volumes --json` for one volume (see ctl-volumes.c for the
 * schema). Returns 0 and a new reference in *ret, or -ENOMEM. */
int volume_to_json(const Volume *v, json_object **ret);

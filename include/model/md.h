/* SPDX-License-Identifier: MIT */
#pragma once

/* Model of one md (Linux software RAID) array as the kernel shows it in /sys/block/mdX/md/
 * (Documentation/admin-guide/md.rst, checked against drivers/md/md.c). Every attribute has a pure
 * parser taking the attribute's text; md_array_load() is the only function doing I/O, and only
 * reads files below a directory fd the caller opened (the injected root).
 *
 * Robustness rule (node_exporter's `sync_completed = delayed` outage is the lesson): a word we do
 * not know is VALID. It is kept as the _UNKNOWN value of its enum plus the raw text, and never
 * fails the array. A missing or unparseable attribute leaves that one field "unset" (enum
 * _INVALID, number MD_UNSET) and the rest of the array still loads. */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/macro.h"
#include "basic/string-table.h"

/* "No value": attribute absent, `none`, empty, garbage, or a number that does not fit in 64 bits.
 * (The kernel never prints UINT64_MAX for the numbers we read.) */
#define MD_UNSET UINT64_MAX

typedef enum MdLevel {
        MD_LEVEL_LINEAR,
        MD_LEVEL_RAID0,
        MD_LEVEL_RAID1,
        MD_LEVEL_RAID4,
        MD_LEVEL_RAID5,
        MD_LEVEL_RAID6,
        MD_LEVEL_RAID10,
        MD_LEVEL_MULTIPATH,
        MD_LEVEL_FAULTY,
        MD_LEVEL_CONTAINER,
        MD_LEVEL_UNKNOWN, /* a word we do not know (raw text kept) */
        _MD_LEVEL_MAX,
        _MD_LEVEL_INVALID = -EINVAL,
} MdLevel;

typedef enum MdArrayState {
        MD_ARRAY_STATE_CLEAR,
        MD_ARRAY_STATE_INACTIVE,
        MD_ARRAY_STATE_SUSPENDED,
        MD_ARRAY_STATE_READONLY,
        MD_ARRAY_STATE_READ_AUTO,
        MD_ARRAY_STATE_CLEAN,
        MD_ARRAY_STATE_ACTIVE,
        MD_ARRAY_STATE_WRITE_PENDING,
        MD_ARRAY_STATE_ACTIVE_IDLE,
        MD_ARRAY_STATE_BROKEN, /* raid0/linear lost a member (md.c, not in md.rst) */
        MD_ARRAY_STATE_UNKNOWN,
        _MD_ARRAY_STATE_MAX,
        _MD_ARRAY_STATE_INVALID = -EINVAL,
} MdArrayState;

/* md.c action_name[] order. */
typedef enum MdSyncAction {
        MD_SYNC_ACTION_RESYNC,
        MD_SYNC_ACTION_RECOVER,
        MD_SYNC_ACTION_CHECK,
        MD_SYNC_ACTION_REPAIR,
        MD_SYNC_ACTION_RESHAPE,
        MD_SYNC_ACTION_FROZEN,
        MD_SYNC_ACTION_IDLE,
        MD_SYNC_ACTION_UNKNOWN,
        _MD_SYNC_ACTION_MAX,
        _MD_SYNC_ACTION_INVALID = -EINVAL,
} MdSyncAction;

typedef enum MdSyncCompletedKind {
        MD_SYNC_COMPLETED_NONE,     /* "none": no sync thread running */
        MD_SYNC_COMPLETED_DELAYED,  /* "delayed": queued behind another array on the same disks */
        MD_SYNC_COMPLETED_PROGRESS, /* "N / M" sectors */
        MD_SYNC_COMPLETED_UNKNOWN,  /* another single word */
        _MD_SYNC_COMPLETED_KIND_MAX,
        _MD_SYNC_COMPLETED_KIND_INVALID = -EINVAL,
} MdSyncCompletedKind;

typedef struct MdSyncCompleted {
        MdSyncCompletedKind kind;
        uint64_t done_sectors;  /* PROGRESS only, else 0 */
        uint64_t total_sectors; /* PROGRESS only, else 0; may be 0 (then no ratio) */
} MdSyncCompleted;

typedef enum MdSpeedLimitSource {
        MD_SPEED_LIMIT_SYSTEM, /* "(system)": the /proc/sys/dev/raid default */
        MD_SPEED_LIMIT_LOCAL,  /* "(local)": set for this array */
        _MD_SPEED_LIMIT_SOURCE_MAX,
        _MD_SPEED_LIMIT_SOURCE_INVALID = -EINVAL, /* no or unknown suffix */
} MdSpeedLimitSource;

typedef struct MdSpeedLimit {
        uint64_t kib_per_sec; /* MD_UNSET when not read */
        MdSpeedLimitSource source;
} MdSpeedLimit;

/* Member state words, md.c state_show() order. The bitmask uses MD_MEMBER_STATE_FLAG(x). */
typedef enum MdMemberState {
        MD_MEMBER_STATE_FAULTY,
        MD_MEMBER_STATE_IN_SYNC,
        MD_MEMBER_STATE_JOURNAL,
        MD_MEMBER_STATE_WRITE_MOSTLY, /* "write_mostly"; md.rst's "writemostly" also accepted */
        MD_MEMBER_STATE_BLOCKED,
        MD_MEMBER_STATE_SPARE, /* not faulty/in_sync/journal: includes a member being recovered */
        MD_MEMBER_STATE_WRITE_ERROR,
        MD_MEMBER_STATE_WANT_REPLACEMENT,
        MD_MEMBER_STATE_REPLACEMENT,
        MD_MEMBER_STATE_EXTERNAL_BBL,
        MD_MEMBER_STATE_FAILFAST,
        MD_MEMBER_STATE_UNKNOWN, /* set when at least one word was not recognised */
        _MD_MEMBER_STATE_MAX,
        _MD_MEMBER_STATE_INVALID = -EINVAL,
} MdMemberState;

#define MD_MEMBER_STATE_FLAG(s) (1U << (s))

/* Slot values besides an index >= 0. */
#define MD_SLOT_NONE    (-1) /* "none": not an active member (spare, faulty) */
#define MD_SLOT_UNKNOWN (-2) /* absent or unparseable */

typedef struct MdMember {
        char *name;     /* "vda" for dev-vda; kernel name of the component device */
        unsigned state; /* MD_MEMBER_STATE_FLAG() bits; 0 if unreadable, UNKNOWN bit if malformed */
        char *state_raw; /* text as read (trailing newline stripped), NULL if unreadable */
        int slot;        /* >= 0, MD_SLOT_NONE or MD_SLOT_UNKNOWN */
        uint64_t errors; /* corrected read errors; MD_UNSET if not read */
        uint64_t recovery_start_sectors; /* sectors known good while recovering; MD_UNSET for
                                          * "none" (in sync) or not read */
        bool device_gone; /* the component's block device no longer exists (dev-X/block leads
                           * nowhere: the disk was deleted while md still holds the rdev; md
                           * keeps saying in_sync for a raid0/linear member until I/O hits it) */
} MdMember;

typedef struct MdArray {
        MdLevel level;
        char *level_raw;
        uint64_t raid_disks;     /* "new" value during a reshape; MD_UNSET if unknown */
        uint64_t raid_disks_old; /* "old" during a reshape, else == raid_disks */
        MdArrayState array_state;
        char *array_state_raw;
        uint64_t degraded;        /* missing devices; MD_UNSET on levels without redundancy */
        MdSyncAction sync_action; /* _MD_SYNC_ACTION_INVALID when absent (raid0, linear) */
        char *sync_action_raw;
        MdSyncAction last_sync_action;   /* what ran last ("check" after a check ended); 6.1+, else
                                          * _MD_SYNC_ACTION_INVALID */
        MdSyncCompleted sync_completed;  /* kind _INVALID when absent or garbage */
        uint64_t sync_speed_kib_per_sec; /* ~30 s average; MD_UNSET for "none" */
        MdSpeedLimit sync_speed_min;
        MdSpeedLimit sync_speed_max;
        uint64_t mismatch_cnt;             /* sectors */
        uint64_t chunk_size_bytes;         /* new value during a reshape */
        uint64_t chunk_size_old_bytes;     /* == chunk_size_bytes outside a reshape */
        uint64_t layout;                   /* md/layout (raid5 algorithm, raid10 copies); new
                                            * value during a reshape; MD_UNSET if absent */
        uint64_t layout_old;               /* == layout outside a reshape */
        MdLevel level_new;                 /* md/new_level during a level change (5 -> 6), else
                                            * == level; _MD_LEVEL_INVALID if absent */
        uint64_t component_size_kib;       /* per-member size used; md.c prints dev_sectors/2 */
        uint64_t reshape_position_sectors; /* MD_UNSET for "none" */
        uint64_t resync_start_sectors;     /* MD_UNSET for "none" (clean) */
        char *uuid;                        /* "dfa195bb-fada-b83b-..." as printed, or NULL */
        char *metadata_version;            /* "1.2", "0.90", "external:/md127/0", "none", NULL */
        MdMember *members;                 /* sorted by name */
        size_t n_members;
} MdArray;

DECLARE_STRING_TABLE_LOOKUP(md_level, MdLevel);
DECLARE_STRING_TABLE_LOOKUP(md_array_state, MdArrayState);
DECLARE_STRING_TABLE_LOOKUP(md_sync_action, MdSyncAction);
DECLARE_STRING_TABLE_LOOKUP(md_sync_completed_kind, MdSyncCompletedKind);
DECLARE_STRING_TABLE_LOOKUP(md_speed_limit_source, MdSpeedLimitSource);
/* The *_UNKNOWN values map to "unknown" and back; the from_string() functions return
 * _X_INVALID for any other word (exact match, no whitespace trimming). */
DECLARE_STRING_TABLE_LOOKUP(md_member_state, MdMemberState); /* "writemostly" too */

/* Per-attribute parsers. Input is the attribute text as read (one trailing newline and surrounding
 * whitespace are accepted). Return 0 on success, -EINVAL for empty or malformed text, -ERANGE for a
 * number that does not fit; outputs are written only on success.
 * The word parsers (level, array_state, sync_action) map an unknown but well-formed word
 * (non-empty, no spaces or control characters) to the _UNKNOWN value and return 0. A numeric level
 * (printed while an array is assembled: "-1", "0", "1", "4", "5", "6", "10", "-4", "-5") maps to
 * its level. */
int md_parse_level(const char *s, MdLevel *ret);
int md_parse_array_state(const char *s, MdArrayState *ret);
int md_parse_sync_action(const char *s, MdSyncAction *ret);

/* "none", "delayed", "32768 / 522240" (also without the spaces). Another single word gives kind
 * UNKNOWN. done > total is accepted as printed (the kernel does not promise otherwise). */
int md_parse_sync_completed(const char *s, MdSyncCompleted *ret);

/* "1000 (system)", "2000 (local)"; a bare number gives source _INVALID. */
int md_parse_speed_limit(const char *s, MdSpeedLimit *ret);

/* "N" or, during a reshape, "new (old)" as raid_disks, chunk_size and layout print. For "N" both
 * outputs are N. */
int md_parse_new_old(const char *s, uint64_t *ret_new, uint64_t *ret_old);

/* Comma-separated member state words, e.g. "in_sync,write_mostly"; "" gives 0. Unknown words set
 * MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_UNKNOWN) and are otherwise ignored. -EINVAL for an empty
 * word (",," or leading/trailing comma) or a word with spaces/control characters. */
int md_parse_member_state(const char *s, unsigned *ret_flags);

/* Slot: "none" -> MD_SLOT_NONE, else a non-negative int. */
int md_parse_slot(const char *s, int *ret);

/* A plain unsigned number or "none" (-> MD_UNSET): sync_speed, reshape_position, resync_start.
 * UINT64_MAX itself gives -ERANGE (it would read as MD_UNSET). */
int md_parse_u64_or_none(const char *s, uint64_t *ret);

/* Read one array. md_dir_fd is an open directory fd of <sysroot>/block/mdX/md (the caller owns it
 * and keeps it open). Reads the attributes listed in MdArray and every dev-* subdirectory. Missing
 * optional files and garbage in one attribute leave that field unset (see top of file); only
 * -ENOMEM, a failure to list the directory, and -EBADF/-ENOTDIR on md_dir_fd itself fail the
 * whole load. On success *ret is a new MdArray owned by the caller (md_array_free()). */
int md_array_load(int md_dir_fd, MdArray **ret);

/* Frees the array and its members; accepts NULL, returns NULL. */
MdArray *md_array_free(MdArray *a);
DEFINE_TRIVIAL_CLEANUP_FUNC(MdArray *, md_array_free);

/* Member lookup by kernel name ("vda"); NULL if not a member. */
const MdMember *md_array_find_member(const MdArray *a, const char *name);

/* An IMSM/DDF container: level "container" or metadata "external:imsm" (its member arrays read
 * "external:/md127/0"). */
bool md_array_is_container(const MdArray *a) _pure_;

/* An IMSM/DDF member array's container, from its metadata_version "external:/md127/0": writes
 * "md127" to buf and returns true; false (buf "") for any other array. */
bool md_array_container_name(const MdArray *a, char *buf, size_t size);

/* sync_completed as a ratio 0..1 (clamped), or -1.0 when unknown (not PROGRESS, or total 0). */
double md_sync_completed_ratio(const MdSyncCompleted *c);

/* The array's data size once a running reshape ends, in bytes, from the new geometry
 * (raid_disks, new_level, layout) and component_size: raid1 1 member, raid4/5 n-1, raid6 n-2,
 * raid0 n, raid10 n / copies. 0 when unknown or for other levels. */
uint64_t md_array_size_after_reshape(const MdArray *a) _pure_;

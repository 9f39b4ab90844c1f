/* SPDX-License-Identifier: MIT */
#pragma once

/* Parser for the text of /proc/mdstat (drivers/md/md.c md_seq_show()/status_resync()). Pure: the
 * caller reads the file (from its injected root) and passes the text. /proc/mdstat is the
 * fine-grained progress source: sysfs sync_completed moves only every ~1/16 of the device.
 *
 * What one array looks like (real capture, Debian 6.1 kernel):
 *   md1 : active raid5 vde[3] vdd[1](F) vdc[0]
 *         522240 blocks super 1.2 level 5, 64k chunk, algorithm 2 [3/2] [U_U]
 *         [=>...................]  recovery =  9.5% (25216/261120) finish=0.6min speed=6304K/sec
 *         bitmap: 3/4 pages [12KB], 65536KB chunk
 * Lines we do not understand are skipped, never fatal; an array whose header line is malformed is
 * skipped as a whole. Numbers too large for 64 bits leave their field unset (MD_UNSET). */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/macro.h"
#include "basic/string-table.h"
#include "model/md.h" /* MdSyncAction, MD_UNSET */

/* Member suffix flags, as md_seq_show() prints them after "name[N]". */
typedef enum MdstatMemberFlag {
        MDSTAT_MEMBER_WRITE_MOSTLY, /* (W) */
        MDSTAT_MEMBER_JOURNAL,      /* (J) */
        MDSTAT_MEMBER_FAULTY,       /* (F) */
        MDSTAT_MEMBER_SPARE,        /* (S) */
        MDSTAT_MEMBER_REPLACEMENT,  /* (R) */
        MDSTAT_MEMBER_UNKNOWN,      /* any other (X) */
        _MDSTAT_MEMBER_FLAG_MAX,
        _MDSTAT_MEMBER_FLAG_INVALID = -EINVAL,
} MdstatMemberFlag;

#define MDSTAT_MEMBER_FLAG(f) (1U << (f))

typedef struct MdstatMember {
        char *name;       /* "vdb", "sda1", "dm-6" */
        unsigned desc_nr; /* the [N]: md's descriptor number, NOT the raid slot (see sysfs slot) */
        unsigned flags;   /* MDSTAT_MEMBER_FLAG() bits */
} MdstatMember;

typedef enum MdstatProgressKind {
        MDSTAT_PROGRESS_NONE,    /* no progress line */
        MDSTAT_PROGRESS_RUNNING, /* "[==>..]  recovery = 8.6% (22528/261120) finish=... speed=..."
                                  */
        MDSTAT_PROGRESS_DELAYED, /* "resync=DELAYED" */
        MDSTAT_PROGRESS_PENDING, /* "resync=PENDING" */
        MDSTAT_PROGRESS_OTHER, /* another "word=WORD" (e.g. md-cluster's resync=REMOTE), raw kept */
        _MDSTAT_PROGRESS_KIND_MAX,
        _MDSTAT_PROGRESS_KIND_INVALID = -EINVAL,
} MdstatProgressKind;

typedef struct MdstatProgress {
        MdstatProgressKind kind;
        /* RUNNING only. mdstat words map as: resync -> RESYNC (also used for repair), recovery ->
         * RECOVER, check -> CHECK, reshape -> RESHAPE, anything else -> UNKNOWN. */
        MdSyncAction action;
        unsigned permille;          /* 86 for "8.6%"; 0..1000 */
        uint64_t done_kib;          /* (done/total) in KiB (sectors/2), per member for recovery */
        uint64_t total_kib;         /* MD_UNSET if unreadable */
        uint64_t finish_sec;        /* "finish=1.0min" -> 60; resolution 6 s; MD_UNSET if absent */
        uint64_t speed_kib_per_sec; /* "speed=3754K/sec"; MD_UNSET if absent */
        char *raw;                  /* OTHER (and DELAYED/PENDING): the "resync=DELAYED" token */
} MdstatProgress;

typedef struct MdstatArray {
        char *name;          /* "md0" */
        bool active;         /* "active" vs "inactive" */
        bool read_only;      /* "(read-only)" */
        bool auto_read_only; /* "(auto-read-only)" */
        char *personality;   /* "raid1", "raid5", "linear", ...; NULL when inactive */
        MdstatMember *members;
        size_t n_members;
        uint64_t blocks_kib; /* "261120 blocks": array size (active) or sum of members (inactive) */
        char *super;         /* "1.2", "external:imsm", "non-persistent"; NULL = 0.90 or absent */
        uint64_t disks_total; /* [n/m]: n = raid_disks; MD_UNSET when not printed (raid0, linear) */
        uint64_t disks_up;    /*        m = working members */
        char *health;         /* "UU_"; NULL when not printed */
        MdstatProgress progress;
        bool has_bitmap;
        uint64_t bitmap_pages_used, bitmap_pages_total; /* "bitmap: 3/4 pages" */
        uint64_t bitmap_chunk_kib;                      /* "65536KB chunk" */
} MdstatArray;

typedef struct Mdstat {
        char **personalities; /* "raid1", "raid6", ... (NULL-terminated; may be empty) */
        MdstatArray *arrays;  /* in file order */
        size_t n_arrays;
} Mdstat;

DECLARE_STRING_TABLE_LOOKUP(mdstat_member_flag, MdstatMemberFlag); /* "W", "J", "F", ... */
DECLARE_STRING_TABLE_LOOKUP(mdstat_progress_kind, MdstatProgressKind);

/* Parse the whole text of /proc/mdstat. Never fails on content: unknown lines are skipped. Returns
 * -ENOMEM, or -EINVAL if text is NULL. An empty text gives zero arrays. *ret is owned by the caller
 * (mdstat_free()). */
int mdstat_parse(const char *text, Mdstat **ret);

/* Parse one progress line's text (leading whitespace allowed), e.g.
 * "[=>....]  recovery =  8.6% (22528/261120) finish=1.0min speed=3754K/sec" or "resync=DELAYED".
 * Returns -EINVAL if it is not a progress line. On success the caller frees ret->raw. */
int mdstat_parse_progress(const char *line, MdstatProgress *ret);

Mdstat *mdstat_free(Mdstat *m);
DEFINE_TRIVIAL_CLEANUP_FUNC(Mdstat *, mdstat_free);

/* Array by name ("md0"); NULL if not present. */
const MdstatArray *mdstat_find(const Mdstat *m, const char *name);

/* Progress as a ratio 0..1 from done/total (finer than permille), -1.0 if not RUNNING/unknown. */
double mdstat_progress_ratio(const MdstatProgress *p);

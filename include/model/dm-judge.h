/* SPDX-License-Identifier: MIT */
#pragma once

/* A judge per device-mapper target: the verdict a dm device's status text (and, where the status
 * alone does not tell, its table) gives, with the figures worth a metric. Pure: no I/O, no
 * allocation; the kernel's text comes in as strings, names of devices through a callback.
 *
 * Judged targets, formats from the kernel's Documentation/admin-guide/device-mapper and the
 * targets' *_status() functions of Linux 6.1:
 *  - thin-pool: "Fail"/"Error", mode `ro` or `out_of_data_space`: FAILED (writes fail or, with
 *    queue_if_no_space, hang); `needs_check`: DEGRADED; data and metadata usage as figures.
 *  - thin: "Fail": FAILED.
 *  - snapshot, snapshot-merge: "Invalid" (the COW store overflowed or failed: the snapshot's
 *    data is gone) and "Merge failed": FAILED; "Overflow": DEGRADED; COW usage as a figure.
 *  - multipath: some paths `F`: DEGRADED naming them; every path `F` (or none): FAILED, saying
 *    whether I/O is queued (queue_if_no_path in the table, or the status's queue_io flag).
 *  - striped: a stripe `D` (I/O errors on its device): FAILED naming it.
 *  - mirror: a leg not `A`: DEGRADED naming it, every leg: FAILED; a disk log not `A`: DEGRADED.
 *  - cache: "Fail"/"Error": FAILED; metadata `ro` or `needs_check`: DEGRADED.
 *  - writecache: a non-zero error indicator: FAILED (every write fails; 6.1 prints 1, the
 *    documentation says an error number).
 *  - integrity: mismatches > 0: DEGRADED (reads of those sectors fail with EILSEQ).
 *  - verity: `C` (corruption seen): FAILED.
 * Other targets (linear, crypt, zero, ...) print no health: OK. The raid target has its own rule
 * (model/raid-health.h). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/dm.h"
#include "model/raid-health.h"

/* Name of the device MAJ:MIN for a reason text ("dm-3"), written into buf (size n); returns buf,
 * or NULL to print "MAJ:MIN". */
typedef const char *(*DmDeviceNameFunc)(unsigned major, unsigned minor, void *userdata, char *buf,
                                        size_t n);

typedef struct DmJudgement {
        RaidVerdict verdict;   /* OK, DEGRADED, FAILED; UNKNOWN when the text does not parse */
        char reason[192];      /* why, "" when OK */
        DmTargetType target;   /* the judged (first) target */
        double data_usage;     /* 0..1: thin-pool data, snapshot COW store; < 0 unknown */
        double metadata_usage; /* 0..1: thin-pool metadata; < 0 unknown */
        bool queueing;         /* multipath without a path, or out-of-space thin pool, queueing */
        unsigned paths, paths_failed; /* multipath */
        uint64_t mismatches;          /* integrity; DM_UNSET when not an integrity target */
        /* the kernel's words behind the verdict, for the JSON (dm.<target>, docs/json.md) */
        bool failed;            /* thin-pool, thin, cache: the status is "Fail" or "Error" */
        bool read_only;         /* thin-pool mode `ro`, cache metadata `ro` */
        bool out_of_data_space; /* thin-pool mode `out_of_data_space` */
        bool needs_check;       /* thin-pool, cache: `needs_check` */
        bool invalid, merge_failed, overflow; /* snapshot: "Invalid", "Merge failed", "Overflow" */
        bool corrupted;                       /* verity: `C` */
        int writecache_error;                 /* writecache's error indicator, 0 none */
} DmJudgement;

/* Whether a and b hold the same verdict, reason and figures (a re-read changed nothing). */
bool dm_judgement_equal(const DmJudgement *a, const DmJudgement *b) _pure_;

/* Whether a target's status carries health that dm_judge() reads (all above but raid). */
bool dm_target_is_judged(DmTargetType t) _const_;

/* Judge the status text of one dm device (every line as DM_DEVICE_STATUS returns them) with its
 * table text (may be NULL: then multipath's queue_if_no_path is known only from queue_io).
 * Lines of different segments are judged each, the worst verdict wins. name_of may be NULL.
 * Always fills *ret. */
void dm_judge(const char *status, const char *table, DmDeviceNameFunc name_of, void *userdata,
              DmJudgement *ret);

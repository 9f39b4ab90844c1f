/* SPDX-License-Identifier: MIT */
/* Rebuild observations from the kernel (analysis/rebuild-observe.c): hand-built md sysfs and
 * /proc/mdstat values and dm-raid status lines as RebuildObservations, then fed to the tracker in
 * the sequences the real kernel shows (tests/vm, Debian 6.1): check/abort/recovery/resync/reshape
 * ends, replace (and the kernel's own tail of one), the mdadm --fail blip and the start moment of
 * a recovery. Event strings as in test-rebuild.c (test-rebuild-events.h). */

#include <stdio.h>
#include <string.h>

#include "analysis/rebuild.h"
#include "model/md-progress.h"
#include "tap.h"
#include "test-rebuild-events.h"

/* md mapping: hand-built MdArray/MdstatArray values as md_array_load()/mdstat_parse() give them,
 * with the figures of the VM runs (64 MiB RAID1: 64512 KiB per member, 129024 sectors). */
static MdArray md_idle(void) {
        return (MdArray){
                .sync_action = MD_SYNC_ACTION_IDLE,
                .sync_completed = { MD_SYNC_COMPLETED_NONE, 0, 0 },
                .sync_speed_kib_per_sec = MD_UNSET,
                .degraded = 0,
                .mismatch_cnt = 0,
                .reshape_position_sectors = MD_UNSET,
                .resync_start_sectors = MD_UNSET,
        };
}

static MdArray md_running(MdSyncAction action, uint64_t coarse_done, uint64_t speed_kib) {
        MdArray a = md_idle();

        a.sync_action = action;
        a.sync_completed = (MdSyncCompleted){ MD_SYNC_COMPLETED_PROGRESS, coarse_done, 129024 };
        a.sync_speed_kib_per_sec = speed_kib;
        return a;
}

static MdstatArray mdstat_at(uint64_t done_kib) {
        return (MdstatArray){ .progress = { .kind = MDSTAT_PROGRESS_RUNNING,
                                            .action = MD_SYNC_ACTION_CHECK,
                                            .done_kib = done_kib,
                                            .total_kib = 64512 } };
}

static void feed_md(RebuildTracker *t, double sec, const MdArray *a, const MdstatArray *m,
                    uint64_t sync_min, const char *expect, const char *what) {
        RebuildObservation o;
        RebuildEvent ev[REBUILD_EVENTS_MAX];
        char got[1024];
        int n;

        rebuild_observation_from_md(t, a, m, NULL, sync_min, &o);
        n = rebuild_tracker_feed(t, (usec_t) (sec * USEC_PER_SEC), &o, ev, ELEMENTSOF(ev));
        if (n < 0) {
                ok(0, "%s: fed (%d)", what, n);
                return;
        }
        events_to_string(ev, n, got, sizeof(got));
        is_str(got, expect, "%s", what);
}

static int feed_md_quiet(RebuildTracker *t, double sec, const MdArray *a, const MdstatArray *m) {
        RebuildObservation o;
        RebuildEvent ev[REBUILD_EVENTS_MAX];

        rebuild_observation_from_md(t, a, m, NULL, REBUILD_UNKNOWN, &o);
        return rebuild_tracker_feed(t, (usec_t) (sec * USEC_PER_SEC), &o, ev, ELEMENTSOF(ev));
}

static void test_md_mapping(void) {
        MdArray a = md_running(MD_SYNC_ACTION_CHECK, 32768, 5376);
        MdstatArray m = mdstat_at(21504);
        MdMember members[2] = {
                { .name = (char *) "vda", .state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_IN_SYNC) },
                { .name = (char *) "vdb", .state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_IN_SYNC) }
        };
        RebuildObservation o;

        a.members = members;
        a.n_members = 2;
        rebuild_observation_from_md(NULL, &a, &m, NULL, 0, &o);
        is_int(o.operation, REBUILD_OP_CHECK, "md: check");
        ok(!o.delayed, "md: not delayed");
        is_u64(o.coarse_done_sectors, 32768, "md: coarse done");
        is_u64(o.coarse_total_sectors, 129024, "md: coarse total");
        is_u64(o.fine_done_sectors, 43008, "md: fine done = KiB * 2");
        is_u64(o.fine_total_sectors, 129024, "md: fine total = KiB * 2");
        is_u64(o.kernel_speed_bytes_per_sec, 5376 * 1024, "md: sync_speed KiB/s -> bytes/s");
        is_u64(o.degraded, 0, "md: degraded");
        is_u64(o.mismatch_count, 0, "md: mismatches");
        ok(!o.member_failed, "md: no faulty member");
        is_int(o.completed, -1, "md: no end hint while nothing ended");

        /* md's cleanup window: mdstat 100% while sync_completed holds the real checkpoint */
        m = mdstat_at(64512);
        a.sync_completed.done_sectors = 12288;
        rebuild_observation_from_md(NULL, &a, &m, NULL, 0, &o);
        is_u64(o.fine_done_sectors, REBUILD_UNKNOWN, "md: cleanup-window 100%% dropped");
        is_u64(o.coarse_done_sectors, 12288, "md: checkpoint kept");
        a.sync_completed.done_sectors = 129024;
        rebuild_observation_from_md(NULL, &a, &m, NULL, 0, &o);
        is_u64(o.fine_done_sectors, 129024, "md: 100%% kept when sync_completed agrees");

        a.sync_speed_kib_per_sec = 0;
        members[1].state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_FAULTY);
        rebuild_observation_from_md(NULL, &a, NULL, NULL, REBUILD_UNKNOWN, &o);
        is_u64(o.kernel_speed_bytes_per_sec, REBUILD_UNKNOWN, "md: sync_speed 0 is no figure");
        ok(o.member_failed, "md: faulty member");
        is_u64(o.fine_done_sectors, REBUILD_UNKNOWN, "md: no mdstat, no fine progress");

        a.sync_completed = (MdSyncCompleted){ MD_SYNC_COMPLETED_DELAYED, 0, 0 };
        rebuild_observation_from_md(NULL, &a, NULL, NULL, 0, &o);
        ok(o.delayed, "md: sync_completed delayed");
        a = md_running(MD_SYNC_ACTION_RESYNC, 0, MD_UNSET);
        m = (MdstatArray){ .progress = { .kind = MDSTAT_PROGRESS_PENDING } };
        rebuild_observation_from_md(NULL, &a, &m, NULL, 0, &o);
        ok(o.delayed, "md: mdstat resync=PENDING");
        a.sync_action = _MD_SYNC_ACTION_INVALID; /* raid0 */
        rebuild_observation_from_md(NULL, &a, NULL, NULL, 0, &o);
        is_int(o.operation, REBUILD_OP_IDLE, "md: no sync_action -> idle");
        a.sync_action = MD_SYNC_ACTION_UNKNOWN;
        rebuild_observation_from_md(NULL, &a, NULL, NULL, 0, &o);
        is_int(o.operation, REBUILD_OP_IDLE, "md: unknown word -> idle");
}

/* The sequences seen on the real kernel (tests/vm, Debian 6.1): what went wrong before the md end
 * hints, now right. One function per sequence below. */

/* From idle, a check started and fed up to 95% in one look: the events of its first 95%. Names
 * the checks "WHO: idle", "WHO: started", "WHO: 95%". */
static void check_to_95(RebuildTracker *t, const MdArray *idle, MdArray *a, MdstatArray *m,
                        const char *who) {
        char what[3][32];

        (void) snprintf(what[0], sizeof(what[0]), "%s: idle", who);
        (void) snprintf(what[1], sizeof(what[1]), "%s: started", who);
        (void) snprintf(what[2], sizeof(what[2]), "%s: 95%%", who);
        feed_md(t, 0, idle, NULL, 0, "", what[0]);
        *a = md_running(MD_SYNC_ACTION_CHECK, 0, 0);
        *m = mdstat_at(0);
        feed_md(t, 1, a, m, 0, "started:check:info", what[1]);
        a->sync_completed.done_sectors = 122880;
        *m = mdstat_at(61440);
        feed_md(t, 8, a, m, 0,
                "progress:check:info@10 progress:check:info@20 progress:check:info@30 "
                "progress:check:info@40 progress:check:info@50 progress:check:info@60 "
                "progress:check:info@70 progress:check:info@80 progress:check:info@90",
                what[2]);
}

/* A fast check that completes: last look at 95%, then idle right away (no time for the
 * speed extrapolation); sync_min back to 0 says it completed. */
static void test_md_check_completes(void) {
        RebuildTracker t;
        MdArray a, idle = md_idle();
        MdstatArray m;

        rebuild_tracker_init(&t);
        check_to_95(&t, &idle, &a, &m, "check");
        idle.mismatch_cnt = 8192;
        feed_md(&t, 8.05, &idle, NULL, 0, "finished:check:warning=8192",
                "check: completed (sync_min 0), mismatches -> warning");
}

/* The same, aborted with idle at 95%: md keeps the checkpoint in sync_min. */
static void test_md_check_aborted(void) {
        RebuildTracker t;
        MdArray a, idle;
        MdstatArray m;

        rebuild_tracker_init(&t);
        idle = md_idle();
        check_to_95(&t, &idle, &a, &m, "abort");
        /* cleanup window: mdstat says 100%, the checkpoint says otherwise */
        m = mdstat_at(64512);
        feed_md(&t, 8.01, &a, &m, 122880, "", "abort: cleanup window, no false 100%");
        feed_md(&t, 8.05, &idle, NULL, 122880, "interrupted:check:info:stopped=0",
                "abort: sync_min kept the checkpoint -> interrupted");
}

/* Recovery whose target member fails: md cleans up (mdstat 100%) with the faulty member
 * already listed; reported as interrupted at the checkpoint, not at 100%. */
static void test_md_recovery_member_fails(void) {
        RebuildTracker t;
        MdArray a, idle;
        MdstatArray m;
        MdMember members[1] = { { .name = (char *) "vdb",
                                  .state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_FAULTY) } };
        RebuildObservation o;
        RebuildEvent ev[REBUILD_EVENTS_MAX];
        int n;

        rebuild_tracker_init(&t);
        idle = md_idle();
        idle.degraded = 1;
        feed_md(&t, 0, &idle, NULL, 0, "", "recovery: degraded idle");
        a = md_running(MD_SYNC_ACTION_RECOVER, 0, 0);
        a.degraded = 1;
        m = mdstat_at(3072);
        feed_md(&t, 1, &a, &m, 0, "started:recovery:warning", "recovery: started");
        a.members = members;
        a.n_members = 1;
        a.sync_completed.done_sectors = 8192;
        m = mdstat_at(64512);
        rebuild_observation_from_md(&t, &a, &m, NULL, 0, &o);
        n = rebuild_tracker_feed(&t, 6 * USEC_PER_SEC, &o, ev, ELEMENTSOF(ev));
        is_int(n, 1, "recovery: one event when the member fails");
        if (n == 1) {
                is_str(rebuild_reason_to_string(ev[0].reason), "member-failed",
                       "recovery: interrupted, member failed");
                is_int(ev[0].severity, REBUILD_SEVERITY_ERROR, "recovery: error");
                is_double(ev[0].progress, 8192.0 / 129024, 1e-9,
                          "recovery: progress at the checkpoint, not 100%%");
        }
}

/* Resync end: resync_start "none" = completed; a number = aborted (warning). */
static void test_md_resync_end(void) {
        RebuildTracker t;
        MdArray a, idle;

        rebuild_tracker_init(&t);
        idle = md_idle();
        feed_md(&t, 0, &idle, NULL, 0, "", "resync: idle");
        a = md_running(MD_SYNC_ACTION_RESYNC, 0, 0);
        feed_md(&t, 1, &a, NULL, 0, "started:resync:notice", "resync: started");
        feed_md(&t, 2, &idle, NULL, 0, "finished:resync:info", "resync: resync_start none");
        a = md_running(MD_SYNC_ACTION_RESYNC, 0, 0);
        feed_md(&t, 3, &a, NULL, 0, "started:resync:notice", "resync again");
        idle.resync_start_sectors = 32768;
        feed_md(&t, 4, &idle, NULL, 0, "interrupted:resync:warning:stopped",
                "resync: resync_start kept a checkpoint");
}

/* Reshape end: reshape_position "none" = completed. */
static void test_md_reshape_end(void) {
        RebuildTracker t;
        MdArray a, idle;

        rebuild_tracker_init(&t);
        idle = md_idle();
        feed_md(&t, 0, &idle, NULL, 0, "", "reshape: idle");
        a = md_running(MD_SYNC_ACTION_RESHAPE, 0, 0);
        a.reshape_position_sectors = 0;
        feed_md(&t, 1, &a, NULL, 0, "started:reshape:notice", "reshape: started");
        feed_md(&t, 2, &idle, NULL, 0, "finished:reshape:notice", "reshape: position none");
}

static void feed_dm(RebuildTracker *t, double sec, const char *status, const char *expect) {
        DmRaidStatus st;
        RebuildObservation o;
        RebuildEvent ev[REBUILD_EVENTS_MAX];
        char got[1024];
        int n;

        if (dm_raid_status_parse(status, &st) < 0) {
                ok(0, "dm: parse \"%s\"", status);
                return;
        }
        rebuild_observation_from_dm(t, &st, &o);
        n = rebuild_tracker_feed(t, (usec_t) (sec * USEC_PER_SEC), &o, ev, ELEMENTSOF(ev));
        if (n < 0) {
                ok(0, "dm: fed (%d)", n);
                return;
        }
        events_to_string(ev, n, got, sizeof(got));
        is_str(got, expect, "dm: %s", status);
}

/* dm-raid status lines as the VM capture shows them (vm-testbed.md section 3), plus variants. */
static void test_dm(void) {
        RebuildTracker t;
        DmRaidStatus st;
        RebuildObservation o;

        is_int(dm_raid_status_parse("raid1 2 aa 30976/245760 resync 0 0 -", &st), 0, "parse");
        rebuild_observation_from_dm(NULL, &st, &o);
        is_int(o.operation, REBUILD_OP_RESYNC, "dm: resync");
        is_u64(o.fine_done_sectors, 30976, "dm: ratio is the fine progress");
        is_u64(o.fine_total_sectors, 245760, "dm: total");
        is_u64(o.degraded, 0, "dm: lower-case a is not degraded");
        ok(!o.member_failed, "dm: no dead leg");
        is_u64(o.mismatch_count, 0, "dm: mismatches");

        rebuild_tracker_init(&t);
        feed_dm(&t, 0, "raid1 2 AA 245760/245760 idle 0 0 -", "");
        feed_dm(&t, 1, "raid1 2 aa 0/245760 resync 0 0 -", "started:resync:notice");
        feed_dm(&t, 10, "raid1 2 aa 30976/245760 resync 0 0 -", "progress:resync:info@10");
        feed_dm(&t, 11, "raid1 2 AA 245760/245760 idle 0 0 -", "finished:resync:info");
        feed_dm(&t, 20, "raid1 2 AA 15488/245760 check 0 0 -", "started:check:info");
        feed_dm(&t, 21, "raid1 2 AA 245760/245760 idle 0 0 -",
                "interrupted:check:info:stopped=0"); /* idle ratio is not the check's */
        feed_dm(&t, 30, "raid1 2 AA 0/245760 check 0 0 -", "started:check:info:restarted");
        feed_dm(&t, 40, "raid1 2 AD 24576/245760 check 0 0 -",
                "interrupted:check:error:member-failed=0");
        feed_dm(&t, 50, "raid1 2 Aa 0/245760 recover 0 0 -", "started:recovery:warning");
        feed_dm(&t, 51, "raid1 2 Aa 24576/245760 recover 0 0 -", "progress:recovery:info@10");
        feed_dm(&t, 52, "raid1 2 Aa 245760/245760 idle 0 0 -",
                "interrupted:recovery:error:stopped"); /* a leg still not in sync */
        feed_dm(&t, 60, "raid1 2 Aa 49152/245760 recover 0 0 -", "resumed:recovery:notice");
        feed_dm(&t, 70, "raid1 2 AA 245760/245760 idle 0 0 -", "finished:recovery:notice");
        feed_dm(&t, 80, "raid4 5 AAAAA 2/490221568 init 0", "started:resync:notice");
}

/* mdadm --replace vdb --with vdd on a RAID1 with write-mostly vdc (md of 6.1): vdb carries
 * want_replacement, vdd replacement while sync_action reads "recover" and degraded stays 0; at
 * the end md marks vdb "faulty,want_replacement" on purpose. A replace of its own, never
 * "redundancy reduced", and its successful end is info, not an interrupted recovery. */
static void test_md_replace(void) {
        RebuildTracker t;
        MdArray idle = md_idle(), a;
        MdstatArray m;
        MdMember before[2] = {
                { .name = (char *) "vdb",
                  .state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_IN_SYNC),
                  .slot = 0 },
                { .name = (char *) "vdc",
                  .state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_IN_SYNC) |
                           MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_WRITE_MOSTLY),
                  .slot = 1 },
        };
        MdMember during[3] = {
                { .name = (char *) "vdb",
                  .state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_IN_SYNC) |
                           MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_WANT_REPLACEMENT),
                  .slot = 0 },
                before[1],
                { .name = (char *) "vdd",
                  .state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_REPLACEMENT),
                  .slot = 0 },
        };
        MdMember after[3] = {
                { .name = (char *) "vdb",
                  .state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_FAULTY), /* as on 6.1 */
                  .slot = MD_SLOT_NONE },
                before[1],
                { .name = (char *) "vdd",
                  .state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_IN_SYNC),
                  .slot = 0 },
        };
        RebuildObservation o;

        rebuild_tracker_init(&t);
        idle.members = before;
        idle.n_members = 2;
        feed_md(&t, 0, &idle, NULL, REBUILD_UNKNOWN, "", "replace: idle before");
        a = md_running(MD_SYNC_ACTION_RECOVER, 0, 1000);
        a.members = during;
        a.n_members = 3;
        rebuild_observation_from_md(&t, &a, NULL, NULL, REBUILD_UNKNOWN, &o);
        is_str(rebuild_operation_to_string(o.operation), "replace", "want_replacement: a replace");
        ok(!o.member_failed, "no member failed");
        m = mdstat_at(0);
        feed_md(&t, 1, &a, &m, REBUILD_UNKNOWN, "started:replace:notice",
                "replace started: notice");
        m = mdstat_at(32256);
        a.sync_completed.done_sectors = 64512;
        feed_md(&t, 30, &a, &m, REBUILD_UNKNOWN,
                "progress:replace:info@10 progress:replace:info@20 progress:replace:info@30 "
                "progress:replace:info@40 progress:replace:info@50",
                "replace: progress marks");
        /* md swapped the members before sync_action went idle */
        a.members = after;
        feed_md(&t, 31, &a, &m, REBUILD_UNKNOWN, "", "old member faulty on purpose: no failure");
        idle.members = after;
        idle.n_members = 3;
        feed_md(&t, 32, &idle, NULL, REBUILD_UNKNOWN, "finished:replace:info",
                "replace finished: info");
}

/* The members of a RAID1 vda + write-mostly vdb while vda is replaced by vdc, at each stage of
 * the kernel's replace tail (see test_md_replace_kernel_tail()). */
typedef struct ReplaceTailMembers {
        MdMember before[3], during[3], swapped[3], after[3];
} ReplaceTailMembers;

static void replace_tail_members(ReplaceTailMembers *r) {
        MdMember before[3] = {
                { .name = (char *) "vda",
                  .state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_IN_SYNC),
                  .slot = 0 },
                { .name = (char *) "vdb",
                  .state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_IN_SYNC) |
                           MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_WRITE_MOSTLY),
                  .slot = 1 },
                { .name = (char *) "vdc",
                  .state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_SPARE),
                  .slot = MD_SLOT_NONE },
        };
        MdMember during[3] = {
                { .name = (char *) "vda",
                  .state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_IN_SYNC) |
                           MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_WANT_REPLACEMENT),
                  .slot = 0 },
                before[1],
                { .name = (char *) "vdc",
                  .state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_SPARE) |
                           MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_REPLACEMENT),
                  .slot = 0 },
        };
        /* raid1_spare_active() done (vda Faulty, WantReplacement kept), raid1_remove_disk()
         * (clears WantReplacement and the Replacement of vdc, slot -1) not yet */
        MdMember swapped[3] = {
                { .name = (char *) "vda",
                  .state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_FAULTY) |
                           MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_WANT_REPLACEMENT),
                  .slot = 0 },
                before[1],
                { .name = (char *) "vdc",
                  .state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_IN_SYNC) |
                           MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_REPLACEMENT),
                  .slot = 0 },
        };
        MdMember after[3] = {
                { .name = (char *) "vda",
                  .state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_FAULTY),
                  .slot = MD_SLOT_NONE },
                before[1],
                { .name = (char *) "vdc",
                  .state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_IN_SYNC),
                  .slot = 0 },
        };

        memcpy(r->before, before, sizeof(before));
        memcpy(r->during, during, sizeof(during));
        memcpy(r->swapped, swapped, sizeof(swapped));
        memcpy(r->after, after, sizeof(after));
}

/* The end of a replace on the real kernel, state by state, copied from the trace verdict-replace
 * writes (tests/vm: mdadm --replace vda --with vdc on a RAID1 of vda + write-mostly vdb,
 * sync_speed_max 3000 until the end, Linux 6.1.0-57, TCG). Running: sync_action recover, vda
 * "in_sync,want_replacement" slot 0, vdc "spare,replacement" slot 0, degraded 0. The tail
 * (md.c/raid1.c of 6.1 say why):
 *  1. md_do_sync() returned (curr_resync 0): sync_completed "129024 / 129024", sync_speed
 *     "none", mdstat still "(64512/64512)";
 *  2. md_reap_sync_thread() -> raid1_spare_active(): vdc "in_sync,replacement", vda
 *     "faulty,want_replacement", both slot 0; no mdstat line;
 *  3. the next md_check_recovery() pass zeroes curr_resync_completed and sets RUNNING (RECOVER is
 *     still set) before it finds nothing to do: "recover", "0 / 129024", speed "none". This
 *     reading once gave "replace interrupted (stopped) at 98%" + "replace restarted";
 *  4. raid1_remove_disk() and idle: "idle", "none", vda "faulty" slot none, vdc "in_sync" 0. */
static void test_md_replace_kernel_tail(void) {
        RebuildTracker t;
        MdArray idle = md_idle(), a;
        MdstatArray m;
        ReplaceTailMembers r;
        MdProgress p;

        replace_tail_members(&r);
        rebuild_tracker_init(&t);
        idle.members = r.before;
        idle.n_members = 3;
        feed_md(&t, 0, &idle, NULL, REBUILD_UNKNOWN, "", "kernel replace: idle before");
        a = md_running(MD_SYNC_ACTION_RECOVER, 0, MD_UNSET); /* md_check_recovery() started it */
        a.members = r.during;
        a.n_members = 3;
        feed_md(&t, 2, &a, NULL, REBUILD_UNKNOWN, "started:replace:notice",
                "kernel replace: started");
        a = md_running(MD_SYNC_ACTION_RECOVER, 16384, 5120);
        a.members = r.during;
        a.n_members = 3;
        m = mdstat_at(7424);
        m.progress.action = MD_SYNC_ACTION_RECOVER;
        feed_md(&t, 4, &a, &m, REBUILD_UNKNOWN, "progress:replace:info@10",
                "kernel replace: 11.0%");
        a = md_running(MD_SYNC_ACTION_RECOVER, 122880, 4726);
        a.members = r.during;
        a.n_members = 3;
        m.progress.done_kib = 61440;
        feed_md(&t, 15, &a, &m, REBUILD_UNKNOWN,
                "progress:replace:info@20 progress:replace:info@30 progress:replace:info@40 "
                "progress:replace:info@50 progress:replace:info@60 progress:replace:info@70 "
                "progress:replace:info@80 progress:replace:info@90",
                "kernel replace: 94.4%");
        a = md_running(MD_SYNC_ACTION_RECOVER, 129024, MD_UNSET); /* 1. */
        a.members = r.during;
        a.n_members = 3;
        m.progress.done_kib = 64512;
        feed_md(&t, 15.3, &a, &m, REBUILD_UNKNOWN, "", "kernel replace tail 1: sync thread done");
        a.members = r.swapped; /* 2. */
        feed_md(&t, 15.31, &a, NULL, REBUILD_UNKNOWN, "",
                "kernel replace tail 2: vda faulty on purpose, no failure");
        a = md_running(MD_SYNC_ACTION_RECOVER, 0, MD_UNSET); /* 3. */
        a.members = r.swapped;
        a.n_members = 3;
        md_progress_compute(&a, NULL, NULL, &p);
        is_str(md_progress_source_to_string(p.source), "none",
               "kernel replace tail 3: 0 / N with speed none is no figure");
        feed_md(&t, 15.32, &a, NULL, REBUILD_UNKNOWN, "",
                "kernel replace tail 3: no interruption, no restart");
        idle.members = r.after; /* 4. */
        feed_md(&t, 15.33, &idle, NULL, REBUILD_UNKNOWN, "finished:replace:info",
                "kernel replace tail 4: finished, info");
}

/* the same tail after a plain recovery: finished, not restarted (idle as the replace above
 * left it: vda faulty, vdc in sync). */
static void test_md_recovery_kernel_tail(void) {
        RebuildTracker t;
        MdArray idle = md_idle(), a;
        MdstatArray m;
        ReplaceTailMembers r;

        replace_tail_members(&r);
        idle.members = r.after;
        idle.n_members = 3;
        rebuild_tracker_init(&t);
        a = md_running(MD_SYNC_ACTION_RECOVER, 16384, 5120);
        a.degraded = 1;
        m = mdstat_at(8320);
        m.progress.action = MD_SYNC_ACTION_RECOVER;
        feed_md(&t, 0, &idle, NULL, REBUILD_UNKNOWN, "", "recovery tail: idle before");
        feed_md(&t, 1, &a, &m, REBUILD_UNKNOWN, "started:recovery:warning",
                "recovery tail: started");
        m.progress.done_kib = 61440;
        a.sync_completed.done_sectors = 114688;
        (void) feed_md_quiet(&t, 5, &a, &m);
        a = md_running(MD_SYNC_ACTION_RECOVER, 0, MD_UNSET);
        a.degraded = 0;
        feed_md(&t, 5.02, &a, NULL, REBUILD_UNKNOWN, "", "recovery tail: no restart");
        idle.degraded = 0;
        feed_md(&t, 5.04, &idle, NULL, REBUILD_UNKNOWN, "finished:recovery:notice",
                "recovery tail: finished");
}

/* mdadm --fail on a RAID1 of two, as 6.1 shows it (bench/event-latency's trace): md_error()
 * makes md_check_recovery() look for work, and sync_action reads "recover" for a moment with
 * no member to recover (vda in_sync, vdb faulty, no spare in a slot), then "idle". That is no
 * recovery: no started/interrupted pair. The real one after mdadm --add (vdb back as a spare in
 * slot 1) starts at once, as "started", not "resumed". */
static void test_md_fail_blip(void) {
        RebuildTracker t;
        MdArray a = md_idle();
        MdMember members[2] = {
                { .name = (char *) "vda",
                  .state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_IN_SYNC),
                  .slot = 0 },
                { .name = (char *) "vdb",
                  .state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_IN_SYNC),
                  .slot = 1 },
        };

        rebuild_tracker_init(&t);
        a.members = members;
        a.n_members = 2;
        feed_md(&t, 0, &a, NULL, 0, "", "fail blip: clean idle");
        members[1].state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_FAULTY);
        a.degraded = 1;
        a.sync_action = MD_SYNC_ACTION_RECOVER;
        a.sync_completed = (MdSyncCompleted){ MD_SYNC_COMPLETED_NONE, 0, 0 };
        feed_md(&t, 1, &a, NULL, 0, "", "fail blip: recover with nothing to recover, no event");
        a.sync_action = MD_SYNC_ACTION_IDLE;
        members[1].slot = MD_SLOT_NONE;
        feed_md(&t, 1.01, &a, NULL, 0, "", "fail blip: idle again, no interrupted");
        /* mdadm --remove, --add: vdb a spare, given slot 1, recovery running */
        members[1].state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_SPARE);
        members[1].slot = 1;
        a.sync_action = MD_SYNC_ACTION_RECOVER;
        a.sync_completed = (MdSyncCompleted){ MD_SYNC_COMPLETED_PROGRESS, 0, 129024 };
        a.sync_speed_kib_per_sec = MD_UNSET;
        feed_md(&t, 5, &a, NULL, 0, "started:recovery:warning",
                "fail blip: the real recovery after --add starts at once");
        is_int(t.phase, REBUILD_PHASE_RUNNING, "fail blip: running");
}

/* mdadm --add on a one-array machine: md reads "delayed" for a moment (md_do_sync() looking for
 * an array to wait for) before its recovery shows progress. Without another array in
 * /proc/mdstat that is the recovery's start, reported once as started, never as delayed; with
 * another array resyncing it is a real queue. */
static void test_md_start_moment(void) {
        MdstatArray self = { .name = (char *) "md0",
                             .progress = { .kind = MDSTAT_PROGRESS_DELAYED } };
        MdstatArray other = { .name = (char *) "md1", .progress = mdstat_at(1024).progress };
        MdstatArray both[2] = { self, other };
        Mdstat alone = { .arrays = &self, .n_arrays = 1 },
               shared = { .arrays = both, .n_arrays = 2 };
        MdArray idle = md_idle(), start = md_idle(), run;
        RebuildObservation o;
        RebuildEvent ev[REBUILD_EVENTS_MAX];
        RebuildTracker t;
        char got[1024];
        int n;

        idle.degraded = 1;
        start.degraded = 1;
        start.sync_action = MD_SYNC_ACTION_RECOVER;
        start.sync_completed = (MdSyncCompleted){ MD_SYNC_COMPLETED_DELAYED, 0, 0 };
        run = md_running(MD_SYNC_ACTION_RECOVER, 0, 6000);
        run.degraded = 1;

        rebuild_tracker_init(&t);
        rebuild_observation_from_md(&t, &idle, NULL, &alone, 0, &o);
        is_int(rebuild_tracker_feed(&t, 0, &o, ev, ELEMENTSOF(ev)), 0, "start moment: idle first");
        rebuild_observation_from_md(&t, &start, &self, &alone, 0, &o);
        ok(!o.delayed, "alone: not delayed");
        n = rebuild_tracker_feed(&t, USEC_PER_SEC, &o, ev, ELEMENTSOF(ev));
        events_to_string(ev, n, got, sizeof(got));
        is_str(got, "started:recovery:warning", "alone: the start moment is the recovery's start");
        self.progress = mdstat_at(2048).progress;
        rebuild_observation_from_md(&t, &run, &self, &alone, 0, &o);
        n = rebuild_tracker_feed(&t, 2 * USEC_PER_SEC, &o, ev, ELEMENTSOF(ev));
        is_int(n, 0, "alone: its progress is no second start");

        rebuild_tracker_init(&t);
        rebuild_observation_from_md(&t, &idle, NULL, &shared, 0, &o);
        (void) rebuild_tracker_feed(&t, 0, &o, ev, ELEMENTSOF(ev));
        rebuild_observation_from_md(&t, &start, &both[0], &shared, 0, &o);
        ok(o.delayed, "md1 resyncing: delayed");
        n = rebuild_tracker_feed(&t, USEC_PER_SEC, &o, ev, ELEMENTSOF(ev));
        events_to_string(ev, n, got, sizeof(got));
        is_str(got, "delayed:recovery:info", "md1 resyncing: reported as delayed");
}

int main(void) {
        test_md_mapping();
        test_md_start_moment();
        test_md_check_completes();
        test_md_check_aborted();
        test_md_recovery_member_fails();
        test_md_resync_end();
        test_md_reshape_end();
        test_md_replace();
        test_md_replace_kernel_tail();
        test_md_recovery_kernel_tail();
        test_md_fail_blip();
        test_dm();
        return tap_done();
}

/* SPDX-License-Identifier: MIT */
/* model/md-progress: the one progress/speed/ETA reading, from the real /proc/mdstat text and
 * sysfs values of a 6.1 kernel: the fine mdstat counters win over sync_completed, the coarse
 * counter is used when mdstat has no line, md's clean-up 100% is dropped, and a delayed, frozen
 * or idle array has no figure at all. */

#include <stdlib.h>
#include <string.h>

#include "model/md-progress.h"
#include "model/md.h"
#include "model/mdstat.h"
#include "tap.h"

static const char *MDSTAT_RECOVER =
        "Personalities : [raid6] [raid5] [raid4]\n"
        "md1 : active raid5 vde[3] vdd[1](F) vdc[0]\n"
        "      522240 blocks super 1.2 level 5, 64k chunk, algorithm 2 [3/2] [U_U]\n"
        "      [=>...................]  recovery =  9.5% (25216/261120) finish=0.6min "
        "speed=6304K/sec\n"
        "      \n"
        "unused devices: <none>\n";

static const char *MDSTAT_DELAYED =
        "Personalities : [raid1]\n"
        "md1 : active raid1 sdb2[1] sda2[0]\n"
        "      1046528 blocks super 1.2 [2/2] [UU]\n"
        "        resync=DELAYED\n"
        "      \n"
        "md0 : active raid1 sdb1[1] sda1[0]\n"
        "      1046528 blocks super 1.2 [2/2] [UU]\n"
        "      [==>..................]  resync = 12.5% (131072/1046528) finish=1.2min "
        "speed=12000K/sec\n"
        "      \n"
        "unused devices: <none>\n";

static MdArray array(MdSyncAction act, MdSyncCompleted sc, uint64_t speed) {
        return (MdArray){ .sync_action = act,
                          .sync_completed = sc,
                          .sync_speed_kib_per_sec = speed,
                          .degraded = 1,
                          .mismatch_cnt = 0 };
}

static void test_fine_wins(void) {
        _cleanup_(mdstat_freep) Mdstat *m = NULL;
        MdProgress p;
        /* sync_completed lags at md's last checkpoint (32768 of 522240 sectors) */
        MdArray a = array(MD_SYNC_ACTION_RECOVER,
                          (MdSyncCompleted){ MD_SYNC_COMPLETED_PROGRESS, 32768, 522240 }, 6304);

        ok(mdstat_parse(MDSTAT_RECOVER, &m) == 0, "mdstat parses");
        md_progress_compute(&a, mdstat_find(m, "md1"), NULL, &p);
        ok(p.running && !p.delayed, "recovery running");
        is_str(md_progress_source_to_string(p.source), "mdstat", "fine source used");
        is_u64(p.done_sectors, 25216 * 2, "done = mdstat 25216 KiB");
        is_u64(p.total_sectors, 261120 * 2, "total = mdstat 261120 KiB");
        is_double(p.ratio, 25216.0 / 261120.0, 1e-9, "ratio 9.66%% (mdstat rounds to 9.5)");
        is_u64(p.speed_bytes_per_sec, 6304 * 1024, "speed = sync_speed 6304 KiB/s");
        ok(p.has_eta, "eta known");
        /* (261120-25216) KiB / 6304 KiB/s = 37.4 s; mdstat prints finish=0.6min */
        is_u64(p.eta_sec, (261120 - 25216) / 6304, "eta 37 s (mdstat: 0.6min)");
        is_u64(p.coarse_done_sectors, 32768, "coarse kept for the tracker");
}

static void test_coarse_fallback(void) {
        MdProgress p;
        MdArray a = array(MD_SYNC_ACTION_CHECK,
                          (MdSyncCompleted){ MD_SYNC_COMPLETED_PROGRESS, 131072, 1048576 }, 1000);

        md_progress_compute(&a, NULL, NULL, &p);
        is_str(md_progress_source_to_string(p.source), "sync_completed", "no mdstat: coarse");
        is_double(p.ratio, 0.125, 1e-12, "ratio 1/8");
        is_u64(p.eta_sec, (1048576 - 131072) * 512 / (1000 * 1024), "eta from coarse");
}

static void test_cleanup_100(void) {
        _cleanup_(mdstat_freep) Mdstat *m = NULL;
        MdProgress p;
        const char *t = "md0 : active raid1 vdb[1] vda[0]\n"
                        "      261120 blocks super 1.2 [2/2] [UU]\n"
                        "      [====================]  check =100.0% (261120/261120) "
                        "finish=0.0min speed=1000K/sec\n";
        MdArray a = array(MD_SYNC_ACTION_CHECK,
                          (MdSyncCompleted){ MD_SYNC_COMPLETED_PROGRESS, 65536, 522240 }, 1000);

        ok(mdstat_parse(t, &m) == 0, "mdstat parses");
        md_progress_compute(&a, mdstat_find(m, "md0"), NULL, &p);
        is_str(md_progress_source_to_string(p.source), "sync_completed",
               "md cleaning up (mdstat 100%%, sync_completed not): coarse used");
        is_u64(p.done_sectors, 65536, "checkpoint kept");
}

static void test_no_figure(void) {
        _cleanup_(mdstat_freep) Mdstat *m = NULL;
        MdProgress p;
        MdArray d = array(MD_SYNC_ACTION_RESYNC, (MdSyncCompleted){ MD_SYNC_COMPLETED_DELAYED },
                          MD_UNSET);
        MdArray i = array(MD_SYNC_ACTION_IDLE,
                          (MdSyncCompleted){ MD_SYNC_COMPLETED_PROGRESS, 10, 100 }, 500);
        MdArray f = array(MD_SYNC_ACTION_FROZEN,
                          (MdSyncCompleted){ MD_SYNC_COMPLETED_PROGRESS, 10, 100 }, 500);
        MdArray r = array(MD_SYNC_ACTION_RESYNC,
                          (MdSyncCompleted){ MD_SYNC_COMPLETED_PROGRESS, 262144, 2093056 }, 12000);

        ok(mdstat_parse(MDSTAT_DELAYED, &m) == 0, "mdstat parses");
        md_progress_compute(&d, mdstat_find(m, "md1"), NULL, &p);
        ok(p.delayed && !p.running, "md1 delayed, not running");
        is_str(md_progress_source_to_string(p.source), "none", "delayed: no figure");
        ok(!p.has_eta && p.speed_bytes_per_sec == 0, "delayed: no speed, no eta");
        /* a stale sync_speed on a delayed array (sync_completed still says delayed) */
        d.sync_speed_kib_per_sec = 3000;
        md_progress_compute(&d, mdstat_find(m, "md1"), NULL, &p);
        ok(p.speed_bytes_per_sec == 0 && p.ratio < 0, "delayed: stale speed ignored");
        md_progress_compute(&r, mdstat_find(m, "md0"), NULL, &p);
        ok(p.running, "md0 beside it runs");
        is_u64(p.done_sectors, 131072 * 2, "md0 from mdstat");
        md_progress_compute(&i, NULL, NULL, &p);
        ok(!p.running && p.source == MD_PROGRESS_SOURCE_NONE && !p.has_eta, "idle: no figure");
        md_progress_compute(&f, NULL, NULL, &p);
        ok(!p.running && p.source == MD_PROGRESS_SOURCE_NONE, "frozen: no figure");
        /* sync_completed delayed while mdstat shows nothing (no mdstat at all) */
        md_progress_compute(&d, NULL, NULL, &p);
        ok(p.delayed && p.ratio < 0, "delayed from sync_completed alone");
}

/* mdadm --add on a 6.1 guest under TCG: md_do_sync() shows MD_RESYNC_DELAYED for a moment while
 * it looks for an array to wait for. With no other array syncing nothing can queue md0. */
static const char *MDSTAT_START = "Personalities : [raid1]\n"
                                  "md0 : active raid1 vdb[2] vda[0]\n"
                                  "      32704 blocks super 1.2 [2/1] [U_]\n"
                                  "        resync=DELAYED\n"
                                  "      \n"
                                  "unused devices: <none>\n";

static const char *MDSTAT_BOTH_QUEUED = "Personalities : [raid1]\n"
                                        "md1 : active raid1 sdb2[1] sda2[0]\n"
                                        "      1046528 blocks super 1.2 [2/2] [UU]\n"
                                        "        resync=DELAYED\n"
                                        "      \n"
                                        "md0 : active raid1 sdb1[1] sda1[0]\n"
                                        "      1046528 blocks super 1.2 [2/2] [UU]\n"
                                        "        resync=DELAYED\n"
                                        "      \n"
                                        "unused devices: <none>\n";

static const char *MDSTAT_PENDING = "Personalities : [raid1]\n"
                                    "md0 : active (auto-read-only) raid1 vdb[1] vda[0]\n"
                                    "      32704 blocks super 1.2 [2/2] [UU]\n"
                                    "        resync=PENDING\n"
                                    "      \n"
                                    "unused devices: <none>\n";

static void test_delayed_needs_another_array(void) {
        _cleanup_(mdstat_freep) Mdstat *start = NULL, *both = NULL, *pending = NULL, *queued = NULL;
        MdProgress p;
        MdArray rec = array(MD_SYNC_ACTION_RECOVER, (MdSyncCompleted){ MD_SYNC_COMPLETED_DELAYED },
                            MD_UNSET);
        MdArray res = array(MD_SYNC_ACTION_RESYNC, (MdSyncCompleted){ MD_SYNC_COMPLETED_DELAYED },
                            MD_UNSET);

        ok(mdstat_parse(MDSTAT_START, &start) == 0 &&
                   mdstat_parse(MDSTAT_BOTH_QUEUED, &both) == 0 &&
                   mdstat_parse(MDSTAT_PENDING, &pending) == 0 &&
                   mdstat_parse(MDSTAT_DELAYED, &queued) == 0,
           "mdstat texts parse");
        md_progress_compute(&rec, mdstat_find(start, "md0"), start, &p);
        ok(!p.delayed && p.running, "alone: md's start moment is a running recovery");
        ok(p.source == MD_PROGRESS_SOURCE_NONE && p.ratio < 0 && !p.has_eta,
           "alone: no figure yet");
        md_progress_compute(&rec, mdstat_find(start, "md0"), NULL, &p);
        ok(p.delayed && !p.running, "mdstat unread: delayed believed");
        md_progress_compute(&rec, NULL, start, &p);
        ok(p.delayed, "its own mdstat line missing: any queued array counts as another");
        md_progress_compute(&res, mdstat_find(queued, "md1"), queued, &p);
        ok(p.delayed && !p.running, "md0 resyncs beside it: md1 queued");
        md_progress_compute(&res, mdstat_find(both, "md1"), both, &p);
        ok(p.delayed, "md0 queued too: md1 may wait for it");
        md_progress_compute(&res, mdstat_find(pending, "md0"), pending, &p);
        ok(p.delayed && !p.running, "PENDING (auto-read-only) stays queued when alone");
}

static void test_tables(void) {
        for (int i = 0; i < _MD_PROGRESS_SOURCE_MAX; i++)
                is_int(md_progress_source_from_string(md_progress_source_to_string(i)), i,
                       "source %d round trip", i);
        md_progress_compute(NULL, NULL, NULL, &(MdProgress){});
        ok(true, "NULL array does not crash");
}

int main(void) {
        test_fine_wins();
        test_coarse_fallback();
        test_cleanup_100();
        test_no_figure();
        test_delayed_needs_another_array();
        test_tables();
        return tap_done();
}

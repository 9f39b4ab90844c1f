/* SPDX-License-Identifier: MIT */
/* model/raid-health: the one verdict rule, case by case from the kernel's own numbers (level,
 * raid_disks, layout, array_state, degraded, members' state and slot as drivers/md of 6.1 prints
 * them), the raid10 stripe rule against raid10.c _enough() by hand, dm-raid legs and dm tables. */

#include <stdlib.h>
#include <string.h>

#include "model/dm.h"
#include "model/md.h"
#include "model/raid-health.h"
#include "tap.h"

#define F(x) MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_##x)

typedef struct M {
        const char *name;
        unsigned state;
        int slot;
} M;

/* An MdArray as md_array_load() fills it; members given as (name, state bits, slot). */
static void judge(MdLevel level, uint64_t raid_disks, uint64_t layout, MdArrayState st,
                  uint64_t degraded, const char *metadata, const M *m, size_t n, RaidHealth *h) {
        MdMember mem[16] = {};
        MdArray a = {
                .level = level,
                .raid_disks = raid_disks,
                .raid_disks_old = raid_disks,
                .layout = layout,
                .layout_old = layout,
                .array_state = st,
                .degraded = degraded,
                .metadata_version = (char *) metadata,
                .members = mem,
                .n_members = n,
        };
        for (size_t i = 0; i < n && i < 16; i++)
                mem[i] = (MdMember){ .name = (char *) m[i].name,
                                     .state = m[i].state,
                                     .state_raw = (char *) "x",
                                     .slot = m[i].slot };
        raid_health_from_md(&a, h);
}

#define V(h, want, ...) is_str(raid_verdict_to_string((h).verdict), want, __VA_ARGS__)

static void test_tolerance(void) {
        is_int(raid_level_tolerance(RAID_LEVEL_LINEAR, 2), 0, "linear tolerates none");
        is_int(raid_level_tolerance(RAID_LEVEL_RAID0, 4), 0, "raid0 tolerates none");
        is_int(raid_level_tolerance(RAID_LEVEL_RAID1, 3), 2, "raid1 of 3 tolerates 2");
        is_int(raid_level_tolerance(RAID_LEVEL_RAID5, 4), 1, "raid5 tolerates 1");
        is_int(raid_level_tolerance(RAID_LEVEL_RAID4, 4), 1, "raid4 tolerates 1");
        is_int(raid_level_tolerance(RAID_LEVEL_RAID6, 5), 2, "raid6 tolerates 2");
        is_int(raid_level_tolerance(RAID_LEVEL_RAID10, 4), -1, "raid10: by which members");
        for (int i = 0; i < _RAID_VERDICT_MAX; i++)
                is_int(raid_verdict_from_string(raid_verdict_to_string(i)), i, "verdict %d", i);
}

static void test_raid10_stripes(void) {
        /* near=2 on 4 slots: stripes {0,1} {2,3} */
        RaidGeometry g = {
                .level = RAID_LEVEL_RAID10, .n_slots = 4, .near_copies = 2, .far_copies = 1
        };
        bool l02[4] = { true, false, true, false }, l01[4] = { true, true, false, false },
             l12[4] = { false, true, true, false };
        ok(raid_data_survives(&g, l02), "n2 x4: slots 0+2 lost, every pair keeps a copy");
        ok(!raid_data_survives(&g, l01), "n2 x4: slots 0+1 lost = both copies of a stripe");
        ok(raid_data_survives(&g, l12), "n2 x4: slots 1+2 lost, pairs {0,1} {2,3} survive");
        /* near=2 on 3 slots: copies wrap: stripes start 0,2,1 -> {0,1} {2,0} {1,2} */
        RaidGeometry g3 = {
                .level = RAID_LEVEL_RAID10, .n_slots = 3, .near_copies = 2, .far_copies = 1
        };
        bool a0[3] = { true, false, false }, a01[3] = { true, true, false };
        ok(raid_data_survives(&g3, a0), "n2 x3: one lost survives");
        ok(!raid_data_survives(&g3, a01), "n2 x3: any two lost is data loss");
        /* far=2 (f2) on 4 slots: copies = 2 consecutive, stepping by near (1): {0,1} {1,2}
         * {2,3} {3,0}: any two adjacent slots lost is loss, 0+2 is not */
        RaidGeometry gf = {
                .level = RAID_LEVEL_RAID10, .n_slots = 4, .near_copies = 1, .far_copies = 2
        };
        ok(raid_data_survives(&gf, l02), "f2 x4: slots 0+2 lost survive");
        ok(!raid_data_survives(&gf, l12), "f2 x4: slots 1+2 lost is loss");
        unsigned n, f;
        is_int(raid10_copies_from_layout(0x102, &n, &f), 0, "layout 258 parses");
        ok(n == 2 && f == 1, "layout 258 (mdadm n2) = near 2 far 1");
        is_int(raid10_copies_from_layout(0x201, &n, &f), 0, "layout 513 parses");
        ok(n == 1 && f == 2, "layout 513 (f2) = near 1 far 2");
        is_int(raid10_copies_from_layout(0, &n, &f), -EINVAL, "layout 0: no copies");
}

/* parity: raid5 and raid6, judged by how many slots are gone against the tolerance */
static void test_md_parity(void) {
        RaidHealth h;

        /* raid5 of 4, two faulty: mdstat [4/2] [UU__], degraded 2 */
        M r5[] = { { "vdb", F(IN_SYNC), 0 },
                   { "vdc", F(IN_SYNC), 1 },
                   { "vdd", F(FAULTY), MD_SLOT_NONE },
                   { "vde", F(FAULTY), MD_SLOT_NONE } };
        judge(MD_LEVEL_RAID5, 4, 2, MD_ARRAY_STATE_CLEAN, 2, "1.2", r5, 4, &h);
        V(h, "failed", "raid5 4 with 2 dead (degraded 2 >= tolerance 1+1)");
        is_int(h.lost, 2, "raid5: 2 lost");
        M r5b[] = { { "vdb", F(IN_SYNC), 0 },
                    { "vdc", F(IN_SYNC), 1 },
                    { "vdd", F(FAULTY), MD_SLOT_NONE },
                    { "vde", F(IN_SYNC), 3 } };
        judge(MD_LEVEL_RAID5, 4, 2, MD_ARRAY_STATE_ACTIVE, 1, "1.2", r5b, 4, &h);
        V(h, "degraded", "raid5 4 with 1 dead");

        /* raid6 of 5 with two gone: degraded, three: failed */
        M r6[] = { { "a", F(IN_SYNC), 0 }, { "b", F(IN_SYNC), 1 }, { "c", F(IN_SYNC), 2 } };
        judge(MD_LEVEL_RAID6, 5, 2, MD_ARRAY_STATE_CLEAN, 2, "1.2", r6, 3, &h);
        V(h, "degraded", "raid6 5 with 2 missing");
        judge(MD_LEVEL_RAID6, 5, 2, MD_ARRAY_STATE_CLEAN, 3, "1.2", r6, 2, &h);
        V(h, "failed", "raid6 5 with 3 missing");
}

/* mirrors: raid1 keeps data while one copy is left, raid10 while every stripe keeps one */
static void test_md_mirrors(void) {
        RaidHealth h;

        /* raid1 of 3: two gone is still data */
        M r1[] = { { "vda", F(IN_SYNC), 0 } };
        judge(MD_LEVEL_RAID1, 3, MD_UNSET, MD_ARRAY_STATE_CLEAN, 2, "1.2", r1, 1, &h);
        V(h, "degraded", "raid1 3 with 2 missing");

        /* raid10 n2 of 4 */
        M r10a[] = { { "a", F(IN_SYNC), 1 }, { "b", F(IN_SYNC), 3 } };
        judge(MD_LEVEL_RAID10, 4, 0x102, MD_ARRAY_STATE_CLEAN, 2, "1.2", r10a, 2, &h);
        V(h, "degraded", "raid10 n2 4, slots 0 and 2 gone: each pair keeps one");
        M r10b[] = { { "a", F(IN_SYNC), 2 }, { "b", F(IN_SYNC), 3 } };
        judge(MD_LEVEL_RAID10, 4, 0x102, MD_ARRAY_STATE_CLEAN, 2, "1.2", r10b, 2, &h);
        V(h, "failed", "raid10 n2 4, slots 0 and 1 gone: a stripe lost both copies");
}

/* raid0 with a member whose disk was deleted: md still says in_sync, the array is active */
static void judge_raid0_device_gone(RaidHealth *h) {
        MdMember mem[2] = { { .name = (char *) "vdc",
                              .state = F(IN_SYNC),
                              .state_raw = (char *) "in_sync",
                              .slot = 0 },
                            { .name = (char *) "vdd",
                              .state = F(IN_SYNC),
                              .state_raw = (char *) "in_sync",
                              .slot = 1,
                              .device_gone = true } };
        MdArray a = { .level = MD_LEVEL_RAID0,
                      .raid_disks = 2,
                      .layout = MD_UNSET,
                      .array_state = MD_ARRAY_STATE_ACTIVE,
                      .degraded = MD_UNSET,
                      .members = mem,
                      .n_members = 2 };
        raid_health_from_md(&a, h);
}

/* striped and linear: any member lost is the data lost */
static void test_md_striped(void) {
        RaidHealth h;

        /* raid0: no degraded attribute; broken is the kernel's word for a lost member */
        M r0[] = { { "vdc", F(IN_SYNC), 0 }, { "vdd", F(IN_SYNC), 1 } };
        judge(MD_LEVEL_RAID0, 2, MD_UNSET, MD_ARRAY_STATE_BROKEN, MD_UNSET, "1.2", r0, 2, &h);
        V(h, "failed", "raid0 broken");
        ok(h.broken, "raid0 broken flag");
        judge(MD_LEVEL_RAID0, 2, MD_UNSET, MD_ARRAY_STATE_CLEAN, MD_UNSET, "1.2", r0, 2, &h);
        V(h, "ok", "raid0 clean, both members in sync");
        judge(MD_LEVEL_RAID0, 2, MD_UNSET, MD_ARRAY_STATE_CLEAN, MD_UNSET, "1.2", r0, 1, &h);
        V(h, "failed", "raid0 with one member directory gone");
        judge_raid0_device_gone(&h);
        V(h, "failed", "raid0 active, a member's disk deleted (md still says in_sync)");
        judge(MD_LEVEL_LINEAR, 2, MD_UNSET, MD_ARRAY_STATE_BROKEN, MD_UNSET, "1.2", r0, 2, &h);
        V(h, "failed", "linear broken");
}

/* every member faulty, the last member failed, a member recovering, no member information */
static void test_md_failed_and_recovering(void) {
        RaidHealth h;
        M r1[] = { { "vda", F(IN_SYNC), 0 } };

        /* no working member left while array_state says active (md prints broken only for
         * an otherwise clean array) */
        M dead[] = { { "vda", F(FAULTY), MD_SLOT_NONE }, { "vdb", F(FAULTY), MD_SLOT_NONE } };
        judge(MD_LEVEL_RAID1, 2, MD_UNSET, MD_ARRAY_STATE_WRITE_PENDING, 1, "1.2", dead, 2, &h);
        V(h, "failed", "raid1 write-pending with every member faulty");
        is_str(h.reason, "no working member left", "reason");
        judge(MD_LEVEL_RAID1, 2, MD_UNSET, MD_ARRAY_STATE_BROKEN, 1, "1.2", r1, 1, &h);
        V(h, "failed", "raid1 broken (MD_BROKEN: last member failed)");

        /* a recovering member is not in sync: the slot is lost until it is */
        M rec[] = { { "vda", F(IN_SYNC), 0 }, { "vdc", F(SPARE), 1 } };
        judge(MD_LEVEL_RAID1, 2, MD_UNSET, MD_ARRAY_STATE_CLEAN, 1, "1.2", rec, 2, &h);
        V(h, "degraded", "raid1 recovering onto vdc");
        is_int(h.lost, 1, "one slot lost while recovering");

        /* unknown state text: trust md's degraded */
        judge(MD_LEVEL_RAID5, 3, 2, MD_ARRAY_STATE_CLEAN, 0, "1.2", NULL, 0, &h);
        V(h, "ok", "raid5 without member info, degraded 0");
}

static void test_md_inactive(void) {
        RaidHealth h;
        M m[] = { { "vdb", 0, MD_SLOT_NONE }, { "vdc", 0, MD_SLOT_NONE } };

        /* IMSM container: metadata_version external:imsm, level container, inactive */
        judge(MD_LEVEL_CONTAINER, 0, MD_UNSET, MD_ARRAY_STATE_INACTIVE, MD_UNSET, "external:imsm",
              m, 2, &h);
        V(h, "container", "IMSM container is a container");
        judge(_MD_LEVEL_INVALID, 0, MD_UNSET, MD_ARRAY_STATE_INACTIVE, MD_UNSET, "external:ddf", m,
              2, &h);
        V(h, "container", "DDF container without a level word");
        /* its member array: external:/md127/0 is judged as an array */
        M r1[] = { { "vdb", F(IN_SYNC), 0 }, { "vdc", F(IN_SYNC), 1 } };
        judge(MD_LEVEL_RAID1, 2, MD_UNSET, MD_ARRAY_STATE_ACTIVE, 0, "external:/md127/0", r1, 2,
              &h);
        V(h, "ok", "IMSM member array ok");
        judge(MD_LEVEL_RAID1, 2, MD_UNSET, MD_ARRAY_STATE_ACTIVE, 1, "external:/md127/0", r1, 1,
              &h);
        V(h, "degraded", "IMSM member array degraded");
        /* assembling: inactive with members */
        judge(MD_LEVEL_RAID1, 2, MD_UNSET, MD_ARRAY_STATE_INACTIVE, MD_UNSET, "1.2", m, 1, &h);
        V(h, "assembling", "inactive with a member: assembling");
        judge(_MD_LEVEL_INVALID, 0, MD_UNSET, MD_ARRAY_STATE_INACTIVE, MD_UNSET, "none", m, 0, &h);
        V(h, "stopped", "inactive without members");
        judge(_MD_LEVEL_INVALID, 0, MD_UNSET, MD_ARRAY_STATE_CLEAR, MD_UNSET, NULL, NULL, 0, &h);
        V(h, "stopped", "clear: phantom node");
}

/* md.c state_show(): "blocked" (writes held until the error is acknowledged) and
 * "write_error" (WriteErrorSeen) beside in_sync: the member does not carry the data. */
static void test_md_blocked(void) {
        RaidHealth h;
        M blocked[] = { { "vdb", F(IN_SYNC), 0 }, { "vdc", F(IN_SYNC) | F(BLOCKED), 1 } };
        M werr[] = { { "vdb", F(IN_SYNC), 0 }, { "vdc", F(IN_SYNC) | F(WRITE_ERROR), 1 } };
        M both[] = { { "vdb", F(IN_SYNC) | F(WRITE_ERROR), 0 },
                     { "vdc", F(IN_SYNC) | F(BLOCKED), 1 } };

        judge(MD_LEVEL_RAID1, 2, MD_UNSET, MD_ARRAY_STATE_ACTIVE, 0, "1.2", blocked, 2, &h);
        V(h, "degraded", "raid1 with a blocked member: degraded (md's degraded still 0)");
        is_int(h.working, 1, "blocked member not working");
        judge(MD_LEVEL_RAID1, 2, MD_UNSET, MD_ARRAY_STATE_ACTIVE, 0, "1.2", werr, 2, &h);
        V(h, "degraded", "raid1 with a write_error member: degraded");
        judge(MD_LEVEL_RAID1, 2, MD_UNSET, MD_ARRAY_STATE_ACTIVE, 0, "1.2", both, 2, &h);
        V(h, "failed", "raid1 with both members blocked/write_error: failed");
        judge(MD_LEVEL_RAID0, 2, MD_UNSET, MD_ARRAY_STATE_CLEAN, 0, "1.2", blocked, 2, &h);
        V(h, "failed", "raid0 with a blocked member: failed");
}

static void test_md_replace(void) {
        RaidHealth h;

        /* mdadm --replace vdb --with vdd: want_replacement + replacement, degraded stays 0 */
        M during[] = { { "vdb", F(IN_SYNC) | F(WANT_REPLACEMENT), 0 },
                       { "vdc", F(IN_SYNC) | F(WRITE_MOSTLY), 1 },
                       { "vdd", F(REPLACEMENT), 0 } };
        judge(MD_LEVEL_RAID1, 2, MD_UNSET, MD_ARRAY_STATE_CLEAN, 0, "1.2", during, 3, &h);
        V(h, "ok", "replace running: ok");
        ok(h.replacing, "replace running: replacing");
        ok(!h.replaced, "replace running: not yet replaced");
        /* the end: md marks vdb faulty on purpose (want_replacement kept), vdd in_sync */
        /* as observed on 6.1: plain "faulty", slot none */
        M after[] = { { "vdb", F(FAULTY), MD_SLOT_NONE },
                      { "vdc", F(IN_SYNC) | F(WRITE_MOSTLY), 1 },
                      { "vdd", F(IN_SYNC), 0 } };
        judge(MD_LEVEL_RAID1, 2, MD_UNSET, MD_ARRAY_STATE_CLEAN, 0, "1.2", after, 3, &h);
        V(h, "ok", "replace done: ok");
        ok(h.replaced, "replace done: vdb replaced");
        ok(!h.replacing, "replace done: no longer replacing");
}

static void test_dm_raid(void) {
        DmRaidStatus s;
        RaidHealth h;

        ok(dm_raid_status_parse("raid1 2 AD 245760/245760 idle 0 0 -", &s) == 0, "parse");
        raid_health_from_dm_raid(&s, &h);
        V(h, "degraded", "dm raid1 AD");
        ok(dm_raid_status_parse("raid5_ls 4 AADD 0/100 idle 0 0 -", &s) == 0, "parse");
        raid_health_from_dm_raid(&s, &h);
        V(h, "failed", "dm raid5 with 2 dead legs");
        ok(dm_raid_status_parse("raid10 4 DADA 0/100 idle 0 0 -", &s) == 0, "parse");
        raid_health_from_dm_raid(&s, &h);
        V(h, "degraded", "dm raid10 legs 0,2 dead");
        ok(dm_raid_status_parse("raid10 4 DDAA 0/100 idle 0 0 -", &s) == 0, "parse");
        raid_health_from_dm_raid(&s, &h);
        V(h, "failed", "dm raid10 legs 0,1 dead");
        ok(dm_raid_status_parse("raid0 2 AD 0/100 idle 0 0 -", &s) == 0, "parse");
        raid_health_from_dm_raid(&s, &h);
        V(h, "failed", "dm raid0 with a dead leg");
        /* issue 23: a leg rebuilt during `recover` is not a working leg (md: degraded 1) */
        ok(dm_raid_status_parse("raid1 2 Aa 100/245760 recover 0 0 -", &s) == 0, "parse");
        raid_health_from_dm_raid(&s, &h);
        V(h, "degraded", "dm raid1 leg being recovered (a) is lost");
        ok(dm_raid_status_parse("raid1 2 aa 100/245760 resync 0 0 -", &s) == 0, "parse");
        raid_health_from_dm_raid(&s, &h);
        V(h, "ok", "dm raid1 legs being written by an initial resync (a) are not lost");
        ok(dm_raid_status_parse("raid5_ls 3 AAA 245760/245760 idle 0 0 D", &s) == 0, "parse");
        raid_health_from_dm_raid(&s, &h);
        V(h, "degraded", "dm raid5 with a dead journal");
        ok(dm_raid_status_parse("raid5_ls 3 AAA 245760/245760 idle 0 0 A", &s) == 0, "parse");
        raid_health_from_dm_raid(&s, &h);
        V(h, "ok", "dm raid5 with a live journal");
        /* raid10 over 4 legs, by hand after raid10.c _enough(): near 2 stripes {0,1} {2,3};
         * offset 2 (near 1, far 2) stripes {0,1} {1,2} {2,3} {3,0}; near 3 {0,1,2} {3,0,1}
         * {2,3,0} {1,2,3}. Legs 1 and 2 dead: near 2 survives, offset loses {1,2}. */
        ok(dm_raid_status_parse("raid10 4 ADDA 0/100 idle 0 0 -", &s) == 0, "parse");
        raid_health_from_dm_raid_table(&s, "raid10 1 128 4 - 8:1 - 8:2 - 8:3 - 8:4", &h);
        V(h, "degraded", "dm raid10 near 2 (table default), legs 1,2 dead");
        raid_health_from_dm_raid_table(
                &s, "raid10 3 128 raid10_format offset 4 - 8:1 - 8:2 - 8:3 - 8:4", &h);
        V(h, "failed", "dm raid10 offset from the table, legs 1,2 dead");
        ok(dm_raid_status_parse("raid10_offset 4 ADDA 0/100 idle 0 0 -", &s) == 0, "parse");
        raid_health_from_dm_raid(&s, &h);
        V(h, "failed", "dm raid10_offset named by the status, legs 1,2 dead");
        ok(dm_raid_status_parse("raid10 4 DDAA 0/100 idle 0 0 -", &s) == 0, "parse");
        raid_health_from_dm_raid_table(&s, "raid10 3 128 raid10_copies 3 4 - 8:1 - 8:2 - 8:3 - 8:4",
                                       &h);
        V(h, "degraded", "dm raid10 near 3 from the table, legs 0,1 dead");
}

static bool exists_8_16(unsigned maj, unsigned min, void *ud) {
        (void) ud;
        return maj == 8 && min == 16;
}

static void test_dm_table(void) {
        char miss[32];

        is_str(raid_verdict_to_string(dm_table_verdict("0 2048 linear 8:16 2048\n", exists_8_16,
                                                       NULL, miss, sizeof(miss))),
               "ok", "linear on a present device");
        is_str(raid_verdict_to_string(dm_table_verdict("0 2048 linear 8:16 2048\n"
                                                       "2048 4096 linear 8:32 2048\n",
                                                       exists_8_16, NULL, miss, sizeof(miss))),
               "failed", "second segment on a vanished device");
        is_str(miss, "8:32", "missing device named");
        is_str(raid_verdict_to_string(dm_table_verdict("0 8192 striped 2 128 8:16 2048 8:48 2048",
                                                       exists_8_16, NULL, miss, sizeof(miss))),
               "failed", "striped over a vanished device");
        is_str(miss, "8:48", "missing stripe named");
        is_str(raid_verdict_to_string(dm_table_verdict("0 2048 linear 8:16 2048\n2048 2048 error\n",
                                                       exists_8_16, NULL, miss, sizeof(miss))),
               "failed", "LVM replaced a segment by error");
        is_str(miss, "error", "error target named");
        is_str(raid_verdict_to_string(dm_table_verdict("garbage", exists_8_16, NULL, NULL, 0)),
               "unknown", "garbage table");
}

int main(void) {
        test_tolerance();
        test_raid10_stripes();
        test_md_parity();
        test_md_mirrors();
        test_md_striped();
        test_md_failed_and_recovering();
        test_md_inactive();
        test_md_blocked();
        test_md_replace();
        test_dm_raid();
        test_dm_table();
        return tap_done();
}

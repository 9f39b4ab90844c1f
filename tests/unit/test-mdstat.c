/* SPDX-License-Identifier: MIT */
/* /proc/mdstat parser on inline texts, for the formats the captures (test-mdstat-captures.c) do
 * not show, written after drivers/md/md.c md_seq_show()/status_resync() and the raid
 * personalities' status(): DELAYED / PENDING / REMOTE, reshape, bitmap lines, inactive
 * containers, read-only, raid0 (no [n/m]), 0.90 metadata (no "super"), member flags, and
 * garbage; plus the string tables and the progress line parser by table. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"
#include "model/mdstat.h"
#include "tap.h"
#include "test-md-flags.h"

static void test_tables(void) {
        for (int i = 0; i < _MDSTAT_MEMBER_FLAG_MAX; i++)
                is_int(mdstat_member_flag_from_string(mdstat_member_flag_to_string(i)), i,
                       "member flag %d round trip", i);
        for (int i = 0; i < _MDSTAT_PROGRESS_KIND_MAX; i++)
                is_int(mdstat_progress_kind_from_string(mdstat_progress_kind_to_string(i)), i,
                       "progress kind %d round trip", i);
        ok(!mdstat_member_flag_to_string(_MDSTAT_MEMBER_FLAG_MAX), "flag out of range");
        is_int(mdstat_member_flag_from_string("X"), _MDSTAT_MEMBER_FLAG_INVALID, "unknown flag");
}

/* progress lines after md.c status_resync(), and lines that are not progress lines */
static const struct {
        const char *in;
        int r;
        MdstatProgressKind kind;
        MdSyncAction action;
        unsigned permille;
        uint64_t done, total, finish, speed;
} progress_lines[] = {
        { "      [=>...................]  recovery =  8.6% (22528/261120) finish=1.0min "
          "speed=3754K/sec",
          0, MDSTAT_PROGRESS_RUNNING, MD_SYNC_ACTION_RECOVER, 86, 22528, 261120, 60, 3754 },
        { "[==>..................]  resync = 12.1% (31872/261120) finish=1.1min "
          "speed=3187K/sec\n",
          0, MDSTAT_PROGRESS_RUNNING, MD_SYNC_ACTION_RESYNC, 121, 31872, 261120, 66, 3187 },
        { "[====================>]  check =100.0% (261120/261120) finish=0.0min "
          "speed=9000K/sec",
          0, MDSTAT_PROGRESS_RUNNING, MD_SYNC_ACTION_CHECK, 1000, 261120, 261120, 0, 9000 },
        { "[>....................]  reshape =  1.5% (16384/1046528) finish=5.2min "
          "speed=3276K/sec",
          0, MDSTAT_PROGRESS_RUNNING, MD_SYNC_ACTION_RESHAPE, 15, 16384, 1046528, 312, 3276 },
        /* no bar, unknown word, no finish/speed, extra tokens ignored */
        { "  frobnicate =  0.0% (0/100) wibble=3", 0, MDSTAT_PROGRESS_RUNNING,
          MD_SYNC_ACTION_UNKNOWN, 0, 0, 100, MD_UNSET, MD_UNSET },
        { "  recovery = 50.0% (1/2) finish=99999999999999999999min speed=junk", 0,
          MDSTAT_PROGRESS_RUNNING, MD_SYNC_ACTION_RECOVER, 500, 1, 2, MD_UNSET, MD_UNSET },
        { "  resync = 5.0% (99999999999999999999999/2)", 0, MDSTAT_PROGRESS_RUNNING,
          MD_SYNC_ACTION_RESYNC, 50, MD_UNSET, 2, MD_UNSET, MD_UNSET },
        /* md.c: seq_printf(seq, "\tresync=DELAYED") / "\tresync=PENDING" */
        { "      \tresync=DELAYED", 0, MDSTAT_PROGRESS_DELAYED, MD_SYNC_ACTION_RESYNC, 0, MD_UNSET,
          MD_UNSET, MD_UNSET, MD_UNSET },
        { "\tresync=PENDING\n", 0, MDSTAT_PROGRESS_PENDING, MD_SYNC_ACTION_RESYNC, 0, MD_UNSET,
          MD_UNSET, MD_UNSET, MD_UNSET },
        { "\tresync=REMOTE", 0, MDSTAT_PROGRESS_OTHER, MD_SYNC_ACTION_RESYNC, 0, MD_UNSET, MD_UNSET,
          MD_UNSET, MD_UNSET },
        /* found by libFuzzer: a \r between tokens used to loop forever */
        { "  recovery = 1.0% (1/2) \r finish=1.0min\v\fspeed=5K/sec\r\n", 0,
          MDSTAT_PROGRESS_RUNNING, MD_SYNC_ACTION_RECOVER, 10, 1, 2, 60, 5 },
        /* not progress lines */
        { "", -EINVAL },
        { "      ", -EINVAL },
        { "bitmap: 1/1 pages [4KB], 65536KB chunk", -EINVAL },
        { "261120 blocks super 1.2 [2/2] [UU]", -EINVAL },
        { "[=>..x]  resync = 1.0% (1/2)", -EINVAL },
        { "[=>...  resync = 1.0% (1/2)", -EINVAL },
        { "resync = 101.0% (1/2)", -EINVAL },
        { "resync = 100.5% (1/2)", -EINVAL },
        { "resync = 1.% (1/2)", -EINVAL },
        { "resync = 1.0 (1/2)", -EINVAL },
        { "resync = 1.0% (1-2)", -EINVAL },
        { "resync = 1.0% (1/2", -EINVAL },
        { "resync=DELAYED now", -EINVAL },
        { "resync =", -EINVAL },
        { "= 1.0%", -EINVAL },
};

static void test_progress_lines(void) {
        for (size_t i = 0; i < ELEMENTSOF(progress_lines); i++) {
                MdstatProgress p = { .kind = 77 };
                int r = mdstat_parse_progress(progress_lines[i].in, &p);

                is_int(r, progress_lines[i].r, "progress #%zu r", i);
                if (r < 0) {
                        is_int(p.kind, 77, "progress #%zu untouched", i);
                        continue;
                }
                is_int(p.kind, progress_lines[i].kind, "progress #%zu kind", i);
                is_int(p.action, progress_lines[i].action, "progress #%zu action", i);
                is_int(p.permille, progress_lines[i].permille, "progress #%zu permille", i);
                is_u64(p.done_kib, progress_lines[i].done, "progress #%zu done", i);
                is_u64(p.total_kib, progress_lines[i].total, "progress #%zu total", i);
                is_u64(p.finish_sec, progress_lines[i].finish, "progress #%zu finish", i);
                is_u64(p.speed_kib_per_sec, progress_lines[i].speed, "progress #%zu speed", i);
                ok((p.raw != NULL) == (progress_lines[i].kind != MDSTAT_PROGRESS_RUNNING),
                   "progress #%zu raw", i);
                free(p.raw);
        }
        is_int(mdstat_parse_progress(NULL, &(MdstatProgress){ 0 }), -EINVAL, "NULL line");
}

/* the raw text of a line that is not a running operation, and the ratio of a progress */
static void test_progress_ratio(void) {
        MdstatProgress p;

        is_int(mdstat_parse_progress("resync=DELAYED", &p), 0, "raw kept");
        is_str(p.raw, "resync=DELAYED", "raw text");
        free(p.raw);
        is_double(mdstat_progress_ratio(&(MdstatProgress){ .kind = MDSTAT_PROGRESS_RUNNING,
                                                           .permille = 86,
                                                           .done_kib = 22528,
                                                           .total_kib = 261120 }),
                  22528.0 / 261120.0, 1e-12, "ratio from done/total");
        is_double(mdstat_progress_ratio(&(MdstatProgress){ .kind = MDSTAT_PROGRESS_RUNNING,
                                                           .permille = 86,
                                                           .done_kib = MD_UNSET,
                                                           .total_kib = MD_UNSET }),
                  0.086, 1e-12, "ratio falls back to permille");
        is_double(mdstat_progress_ratio(&(MdstatProgress){ .kind = MDSTAT_PROGRESS_DELAYED }), -1.0,
                  0, "delayed: no ratio");
        is_double(mdstat_progress_ratio(NULL), -1.0, 0, "NULL: no ratio");
}

/* Shapes after md.c md_seq_show(): "%s : %sactive", " (read-only)"/" (auto-read-only)",
 * " %pg[%d]" then (W)(J)(F)(S)(R); "\n      %llu blocks", " super %d.%d" (nothing for
 * 0.90), " super external:%s"; raid0 " %dk chunks"; raid5 " level %d, %dk chunk,
 * algorithm %d [%d/%d] [U_]"; status_resync() "\tresync=DELAYED"; bitmap status
 * "bitmap: %lu/%lu pages [%luKB], %lu%s chunk". */
static const char inline_text[] =
        "Personalities : [raid1] [raid0] [raid6] [raid5] [raid4] [linear] \n"
        "md127 : inactive sdb[1](S) sda[0](S)\n"
        "      10402 blocks super external:imsm\n"
        "       \n"
        "md126 : active (auto-read-only) raid1 sda[1] sdb[0]\n"
        "      976759808 blocks super external:/md127/0 [2/2] [UU]\n"
        "      \tresync=PENDING\n"
        "      \n"
        "md5 : active raid5 sde[4] sdd[2] sdc[1](W) sdb[0] nvme0n1[5](J) sdf[6](S) "
        "sdg[7](R) sdh[8](F)(W) bogus[x] [3]\n"
        "      2093056 blocks super 1.2 level 5, 512k chunk, algorithm 2 [4/4] [UUUU]\n"
        "      [>....................]  reshape =  1.5% (16384/1046528) finish=5.2min "
        "speed=3276K/sec\n"
        "      bitmap: 3/4 pages [12KB], 65536KB chunk\n"
        "\n"
        "md4 : active (read-only) raid1 sdb1[1] sda1[0]\n"
        "      104320 blocks [2/2] [UU]\n"
        "      \tresync=DELAYED\n"
        "      bitmap: 0/1 pages [0KB], 65536KB chunk, file: /var/md4.bitmap\n"
        "\n"
        "md3 : active raid0 sdb1[1] sda1[0]\n"
        "      1953262592 blocks super 1.2 512k chunks\n"
        "      \n"
        "md2 : broken header line\n"
        "      123 blocks super 1.2 [2/2] [UU]\n"
        "md1 : active raid1 vda[0]\n"
        "      99999999999999999999999 blocks super 1.2 [2/99999999999999999999999] [U_]\n"
        "unused devices: sdz[0]\n"
        "md0 : active linear sdx[0]"; /* no trailing newline */

/* an inactive IMSM container: spares, external metadata, no [n/m] */
static void check_inline_md127(const Mdstat *m) {
        const MdstatArray *a = mdstat_find(m, "md127");

        ok(a, "md127 found");
        if (a) {
                ok(!a->active, "md127 inactive");
                ok(!a->personality, "md127 no personality");
                is_int(a->n_members, 2, "md127 two members");
                if (a->n_members == 2)
                        is_int(a->members[0].flags, MF(SPARE), "md127 (S)");
                is_u64(a->blocks_kib, 10402, "md127 blocks");
                is_str(a->super, "external:imsm", "md127 super");
                is_u64(a->disks_total, MD_UNSET, "md127 no [n/m]");
                ok(!a->health, "md127 no health");
        }
}

/* an auto-read-only member array of the container, its resync PENDING */
static void check_inline_md126(const Mdstat *m) {
        const MdstatArray *a = mdstat_find(m, "md126");

        ok(a, "md126 found");
        if (a) {
                ok(a->active && a->auto_read_only && !a->read_only, "md126 auto-read-only");
                is_str(a->personality, "raid1", "md126 raid1");
                is_str(a->super, "external:/md127/0", "md126 super");
                is_int(a->progress.kind, MDSTAT_PROGRESS_PENDING, "md126 PENDING");
        }
}

/* the members of md5 in inline_text, in order */
static const struct {
        const char *name;
        unsigned nr, flags;
} md5_members[] = {
        { "sde", 4, 0 },
        { "sdd", 2, 0 },
        { "sdc", 1, MF(WRITE_MOSTLY) },
        { "sdb", 0, 0 },
        { "nvme0n1", 5, MF(JOURNAL) },
        { "sdf", 6, MF(SPARE) },
        { "sdg", 7, MF(REPLACEMENT) },
        { "sdh", 8, MF(FAULTY) | MF(WRITE_MOSTLY) },
};

/* raid5 reshaping, every member flag, malformed member tokens, a bitmap */
static void check_inline_md5(const Mdstat *m) {
        const MdstatArray *a = mdstat_find(m, "md5");

        ok(a, "md5 found");
        if (a) {
                is_int(a->n_members, ELEMENTSOF(md5_members),
                       "md5 members (malformed tokens skipped)");
                for (size_t i = 0; i < ELEMENTSOF(md5_members) && i < a->n_members; i++) {
                        is_str(a->members[i].name, md5_members[i].name, "md5 member %zu", i);
                        is_int(a->members[i].desc_nr, md5_members[i].nr, "md5 %s nr",
                               md5_members[i].name);
                        is_int(a->members[i].flags, md5_members[i].flags, "md5 %s flags",
                               md5_members[i].name);
                }
                is_u64(a->disks_total, 4, "md5 [4/4]");
                is_str(a->health, "UUUU", "md5 health");
                is_int(a->progress.kind, MDSTAT_PROGRESS_RUNNING, "md5 running");
                is_int(a->progress.action, MD_SYNC_ACTION_RESHAPE, "md5 reshape");
                is_int(a->progress.permille, 15, "md5 1.5%%");
                is_u64(a->progress.finish_sec, 312, "md5 finish 5.2min");
                ok(a->has_bitmap, "md5 bitmap");
                is_u64(a->bitmap_pages_used, 3, "md5 bitmap used");
                is_u64(a->bitmap_pages_total, 4, "md5 bitmap total");
                is_u64(a->bitmap_chunk_kib, 65536, "md5 bitmap chunk");
        }
}

/* 0.90 metadata (no "super"), read-only, resync DELAYED, a file bitmap */
static void check_inline_md4(const Mdstat *m) {
        const MdstatArray *a = mdstat_find(m, "md4");

        ok(a, "md4 found");
        if (a) {
                ok(a->read_only && !a->auto_read_only, "md4 read-only");
                ok(!a->super, "md4 0.90: no super");
                is_u64(a->blocks_kib, 104320, "md4 blocks");
                is_str(a->health, "UU", "md4 health");
                is_int(a->progress.kind, MDSTAT_PROGRESS_DELAYED, "md4 DELAYED");
                ok(a->has_bitmap && a->bitmap_pages_used == 0 && a->bitmap_chunk_kib == 65536,
                   "md4 file bitmap");
        }
}

/* raid0: no [n/m], no health, no progress */
static void check_inline_md3(const Mdstat *m) {
        const MdstatArray *a = mdstat_find(m, "md3");

        ok(a, "md3 found");
        if (a) {
                is_str(a->personality, "raid0", "md3 raid0");
                is_u64(a->disks_total, MD_UNSET, "md3 raid0 has no [n/m]");
                ok(!a->health, "md3 no health");
                is_int(a->progress.kind, MDSTAT_PROGRESS_NONE, "md3 no progress");
        }
}

/* numbers too big for their fields: unset, not wrapped */
static void check_inline_md1(const Mdstat *m) {
        const MdstatArray *a = mdstat_find(m, "md1");

        ok(a, "md1 found");
        if (a) {
                is_u64(a->blocks_kib, MD_UNSET, "md1 huge blocks unset, not wrapped");
                is_u64(a->disks_up, MD_UNSET, "md1 huge [n/m] unset");
                is_str(a->health, "U_", "md1 health");
        }
}

/* the last line, without a newline */
static void check_inline_md0(const Mdstat *m) {
        const MdstatArray *a = mdstat_find(m, "md0");

        ok(a, "md0 (last line, no newline) found");
        if (a) {
                is_str(a->personality, "linear", "md0 linear");
                is_u64(a->blocks_kib, MD_UNSET, "md0 no status line");
        }
}

static void test_inline_formats(void) {
        _cleanup_(mdstat_freep) Mdstat *m = NULL;

        is_int(mdstat_parse(inline_text, &m), 0, "inline text parses");
        if (!m)
                return;
        is_int(m->n_arrays, 7, "seven arrays (md2 skipped)");
        ok(m->personalities[5] && strcmp(m->personalities[5], "linear") == 0 &&
                   !m->personalities[6],
           "six personalities");

        check_inline_md127(m);
        check_inline_md126(m);
        check_inline_md5(m);
        check_inline_md4(m);
        check_inline_md3(m);
        ok(!mdstat_find(m, "md2"), "md2 (malformed header) skipped");
        check_inline_md1(m);
        check_inline_md0(m);
}

static void test_garbage(void) {
        static const char *const texts[] = {
                "",
                "\n\n\n",
                "garbage\n",
                "Personalities : \nunused devices: <none>\n",
                "md0 : \n",
                "md0 : active\n",
                " : active raid1 sda[0]\n",
                "md0 : active raid1 sda[99999999999999999999]\n",
                "      261120 blocks super 1.2 [2/2] [UU]\n", /* status without header */
                "md0 : active raid1 sda[0]\n      blocks\n      [=>...] resync\n      bitmap:\n",
                "\xff\xfe : active \x01\n",
        };

        for (size_t i = 0; i < ELEMENTSOF(texts); i++) {
                _cleanup_(mdstat_freep) Mdstat *m = NULL;
                is_int(mdstat_parse(texts[i], &m), 0, "garbage #%zu parses without failing", i);
                ok(m && m->personalities, "garbage #%zu result", i);
        }
        {
                _cleanup_(mdstat_freep) Mdstat *m = NULL;
                is_int(mdstat_parse("", &m), 0, "empty");
                is_int(m ? m->n_arrays : 99, 0, "empty: no arrays");
                ok(m && !m->personalities[0], "empty: no personalities");
        }
        {
                _cleanup_(mdstat_freep) Mdstat *m = NULL;
                is_int(mdstat_parse("md0 : active\n", &m), 0, "header without personality");
                is_int(m ? m->n_arrays : 99, 1, "an active array without personality is kept");
        }
        {
                _cleanup_(mdstat_freep) Mdstat *m = NULL;
                is_int(mdstat_parse("md0 : active raid1 sda[99999999999999999999]\n", &m), 0,
                       "huge desc_nr");
                is_int(m && m->n_arrays == 1 ? m->arrays[0].n_members : 99, 0,
                       "member with huge desc_nr skipped");
        }
        {
                /* found by libFuzzer: a second Personalities line leaked the first one's words */
                _cleanup_(mdstat_freep) Mdstat *m = NULL;
                is_int(mdstat_parse("Personalities : [raid1]\nPersonalities : [raid5] [raid6]\n",
                                    &m),
                       0, "two Personalities lines");
                ok(m && m->personalities[0] && m->personalities[1] && m->personalities[2] &&
                           !m->personalities[3] && strcmp(m->personalities[2], "raid6") == 0,
                   "personalities of both lines kept");
        }
        {
                Mdstat *m = (Mdstat *) 0x1;
                is_int(mdstat_parse(NULL, &m), -EINVAL, "NULL text");
                ok(m == (Mdstat *) 0x1, "NULL text: output untouched");
        }
        ok(mdstat_free(NULL) == NULL, "free(NULL)");
        ok(!mdstat_find(NULL, "md0"), "find in NULL");
}

int main(void) {
        test_tables();
        test_progress_lines();
        test_progress_ratio();
        test_inline_formats();
        test_garbage();
        return tap_done();
}

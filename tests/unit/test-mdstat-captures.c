/* SPDX-License-Identifier: MIT */
/* /proc/mdstat parser against every capture from the real kernel (tests/fixtures/parsers/mdstat,
 * see README there): the first VM capture array by array and member by member, the second
 * (reshape, check, frozen, raid0), resync=DELAYED and a broken raid0, RAID10 and RAID6. The
 * formats no capture shows are in test-mdstat.c. */

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "basic/fileio.h"
#include "basic/macro.h"
#include "model/mdstat.h"
#include "tap.h"
#include "test-md-flags.h"

typedef struct ExpMember {
        const char *name;
        unsigned desc_nr, flags;
} ExpMember;

typedef struct ExpArray {
        const char *name, *personality, *health;
        uint64_t blocks, total, up;
        MdstatProgressKind kind;
        MdSyncAction action;
        unsigned permille;
        uint64_t done, all, finish, speed;
        ExpMember m[4];
} ExpArray;

static const struct {
        const char *file;
        ExpArray a[3];
} captures[] = {
        { "raid1-resync",
          { { "md0",
              "raid1",
              "UU",
              261120,
              2,
              2,
              MDSTAT_PROGRESS_RUNNING,
              MD_SYNC_ACTION_RESYNC,
              78,
              20608,
              261120,
              30,
              6869,
              { { "vdb", 1, 0 }, { "vda", 0, 0 } } } } },
        { "raid1-resync-local-limit",
          { { "md0",
              "raid1",
              "UU",
              261120,
              2,
              2,
              MDSTAT_PROGRESS_RUNNING,
              MD_SYNC_ACTION_RESYNC,
              78,
              20608,
              261120,
              66,
              3434,
              { { "vdb", 1, 0 }, { "vda", 0, 0 } } } } },
        { "raid1-idle",
          { { "md0",
              "raid1",
              "UU",
              261120,
              2,
              2,
              MDSTAT_PROGRESS_NONE,
              0,
              0,
              0,
              0,
              0,
              0,
              { { "vdb", 1, 0 }, { "vda", 0, 0 } } } } },
        { "raid1-degraded-faulty",
          { { "md0",
              "raid1",
              "U_",
              261120,
              2,
              1,
              MDSTAT_PROGRESS_NONE,
              0,
              0,
              0,
              0,
              0,
              0,
              { { "vdb", 1, MF(FAULTY) }, { "vda", 0, 0 } } } } },
        { "raid1-degraded-removed",
          { { "md0",
              "raid1",
              "U_",
              261120,
              2,
              1,
              MDSTAT_PROGRESS_NONE,
              0,
              0,
              0,
              0,
              0,
              0,
              { { "vda", 0, 0 } } } } },
        { "raid1-recover",
          { { "md0",
              "raid1",
              "U_",
              261120,
              2,
              1,
              MDSTAT_PROGRESS_RUNNING,
              MD_SYNC_ACTION_RECOVER,
              86,
              22528,
              261120,
              60,
              3754,
              { { "vdb", 2, 0 }, { "vda", 0, 0 } } } } },
        { "raid1-recover-later",
          { { "md0",
              "raid1",
              "U_",
              261120,
              2,
              1,
              MDSTAT_PROGRESS_RUNNING,
              MD_SYNC_ACTION_RECOVER,
              121,
              31872,
              261120,
              66,
              3187,
              { { "vdb", 2, 0 }, { "vda", 0, 0 } } } } },
        { "raid1-check",
          { { "md0",
              "raid1",
              "UU",
              261120,
              2,
              2,
              MDSTAT_PROGRESS_RUNNING,
              MD_SYNC_ACTION_CHECK,
              82,
              21504,
              261120,
              42,
              5376,
              { { "vdb", 2, 0 }, { "vda", 0, 0 } } } } },
        { "raid1-check-aborted",
          { { "md0",
              "raid1",
              "UU",
              261120,
              2,
              2,
              MDSTAT_PROGRESS_NONE,
              0,
              0,
              0,
              0,
              0,
              0,
              { { "vdb", 2, 0 }, { "vda", 0, 0 } } } } },
        { "raid5-initial-build",
          { { "md1",
              "raid5",
              "UU_",
              522240,
              3,
              2,
              MDSTAT_PROGRESS_RUNNING,
              MD_SYNC_ACTION_RECOVER,
              95,
              25216,
              261120,
              36,
              6304,
              { { "vde", 3, 0 }, { "vdd", 1, 0 }, { "vdc", 0, 0 } } },
            { "md0",
              "raid1",
              "UU",
              261120,
              2,
              2,
              MDSTAT_PROGRESS_NONE,
              0,
              0,
              0,
              0,
              0,
              0,
              { { "vdb", 2, 0 }, { "vda", 0, 0 } } } } },
        { "raid5-degraded-faulty",
          { { "md1",
              "raid5",
              "U_U",
              522240,
              3,
              2,
              MDSTAT_PROGRESS_NONE,
              0,
              0,
              0,
              0,
              0,
              0,
              { { "vde", 3, 0 }, { "vdd", 1, MF(FAULTY) }, { "vdc", 0, 0 } } },
            { "md0",
              "raid1",
              "UU",
              261120,
              2,
              2,
              MDSTAT_PROGRESS_NONE,
              0,
              0,
              0,
              0,
              0,
              0,
              { { "vdb", 2, 0 }, { "vda", 0, 0 } } } } },
        { "raid5-recover",
          { { "md1",
              "raid5",
              "U_U",
              522240,
              3,
              2,
              MDSTAT_PROGRESS_RUNNING,
              MD_SYNC_ACTION_RECOVER,
              95,
              25472,
              261120,
              42,
              5094,
              { { "vdd", 4, 0 }, { "vde", 3, 0 }, { "vdc", 0, 0 } } },
            { "md0",
              "raid1",
              "UU",
              261120,
              2,
              2,
              MDSTAT_PROGRESS_NONE,
              0,
              0,
              0,
              0,
              0,
              0,
              { { "vdb", 2, 0 }, { "vda", 0, 0 } } } } },
        { "raid1-three-arrays",
          { { "md2",
              "raid1",
              "UU",
              130048,
              2,
              2,
              MDSTAT_PROGRESS_NONE,
              0,
              0,
              0,
              0,
              0,
              0,
              { { "loop0", 1, 0 }, { "dm-6", 0, 0 } } },
            { "md1",
              "raid5",
              "UUU",
              522240,
              3,
              3,
              MDSTAT_PROGRESS_NONE,
              0,
              0,
              0,
              0,
              0,
              0,
              { { "vdd", 4, 0 }, { "vde", 3, 0 }, { "vdc", 0, 0 } } },
            { "md0",
              "raid1",
              "UU",
              261120,
              2,
              2,
              MDSTAT_PROGRESS_NONE,
              0,
              0,
              0,
              0,
              0,
              0,
              { { "vdb", 2, 0 }, { "vda", 0, 0 } } } } },
};

static void check_array(const char *tag, const MdstatArray *a, const ExpArray *e) {
        size_t n = 0;

        is_str(a->name, e->name, "%s: name", tag);
        ok(a->active, "%s %s: active", tag, e->name);
        ok(!a->read_only && !a->auto_read_only, "%s %s: read-write", tag, e->name);
        is_str(a->personality, e->personality, "%s %s: personality", tag, e->name);
        is_str(a->super, "1.2", "%s %s: super", tag, e->name);
        is_u64(a->blocks_kib, e->blocks, "%s %s: blocks", tag, e->name);
        is_u64(a->disks_total, e->total, "%s %s: disks total", tag, e->name);
        is_u64(a->disks_up, e->up, "%s %s: disks up", tag, e->name);
        is_str(a->health, e->health, "%s %s: health", tag, e->name);
        ok(!a->has_bitmap, "%s %s: no bitmap", tag, e->name);
        is_int(a->progress.kind, e->kind, "%s %s: progress kind", tag, e->name);
        if (e->kind == MDSTAT_PROGRESS_RUNNING) {
                is_int(a->progress.action, e->action, "%s %s: action", tag, e->name);
                is_int(a->progress.permille, e->permille, "%s %s: permille", tag, e->name);
                is_u64(a->progress.done_kib, e->done, "%s %s: done", tag, e->name);
                is_u64(a->progress.total_kib, e->all, "%s %s: total", tag, e->name);
                is_u64(a->progress.finish_sec, e->finish, "%s %s: finish", tag, e->name);
                is_u64(a->progress.speed_kib_per_sec, e->speed, "%s %s: speed", tag, e->name);
        }
        while (n < ELEMENTSOF(e->m) && e->m[n].name)
                n++;
        is_int(a->n_members, n, "%s %s: member count", tag, e->name);
        for (size_t j = 0; j < n && j < a->n_members; j++) {
                is_str(a->members[j].name, e->m[j].name, "%s %s: member %zu", tag, e->name, j);
                is_int(a->members[j].desc_nr, e->m[j].desc_nr, "%s %s: %s desc_nr", tag, e->name,
                       e->m[j].name);
                is_int(a->members[j].flags, e->m[j].flags, "%s %s: %s flags", tag, e->name,
                       e->m[j].name);
        }
}

static void test_captures(void) {
        const char *base = getenv("STORPULSE_FIXTURES");

        if (!base)
                base = "tests/fixtures";
        for (size_t i = 0; i < ELEMENTSOF(captures); i++) {
                _cleanup_(mdstat_freep) Mdstat *m = NULL;
                _cleanup_free_ char *text = NULL;
                char path[PATH_MAX];
                size_t n = 0;
                int r;

                snprintf(path, sizeof(path), "%s/parsers/mdstat/%s.txt", base, captures[i].file);
                r = read_full_file_at(-100 /* AT_FDCWD */, path, &text, NULL);
                is_int(r, 0, "%s: read", captures[i].file);
                if (r < 0)
                        continue;
                r = mdstat_parse(text, &m);
                is_int(r, 0, "%s: parses", captures[i].file);
                if (r < 0)
                        continue;
                ok(m->personalities && m->personalities[0] && m->personalities[3] &&
                           !m->personalities[4],
                   "%s: four personalities", captures[i].file);
                if (m->personalities[0] && m->personalities[3]) {
                        is_str(m->personalities[0], "raid1", "%s: first personality",
                               captures[i].file);
                        is_str(m->personalities[3], "raid4", "%s: last personality",
                               captures[i].file);
                }
                while (n < ELEMENTSOF(captures[i].a) && captures[i].a[n].name)
                        n++;
                is_int(m->n_arrays, n, "%s: array count", captures[i].file);
                for (size_t j = 0; j < n && j < m->n_arrays; j++) {
                        check_array(captures[i].file, &m->arrays[j], &captures[i].a[j]);
                        ok(mdstat_find(m, captures[i].a[j].name) == &m->arrays[j], "%s: find %s",
                           captures[i].file, captures[i].a[j].name);
                }
                ok(!mdstat_find(m, "md99"), "%s: find unknown", captures[i].file);
        }
}

/* Second VM capture (tests/fixtures/parsers/commands/): reshape, check, frozen, raid0. */
static void test_captures2(void) {
        static const struct {
                const char *file, *name, *personality, *health;
                uint64_t blocks, total;
                MdstatProgressKind kind;
                MdSyncAction action;
                unsigned permille;
                uint64_t done, all, finish, speed;
                size_t n_members;
        } t[] = {
                { "raid5-reshape-grow", "md12", "raid5", "UUUU", 129024, 4, MDSTAT_PROGRESS_RUNNING,
                  MD_SYNC_ACTION_RESHAPE, 125, 8576, 64512, 42, 1225, 4 },
                { "raid1-check-small", "md10", "raid1", "UU", 31232, 2, MDSTAT_PROGRESS_RUNNING,
                  MD_SYNC_ACTION_CHECK, 161, 5504, 31232, 18, 1100, 2 },
                { "raid1-frozen", "md10", "raid1", "UU", 31232, 2, MDSTAT_PROGRESS_NONE, 0, 0, 0, 0,
                  0, 0, 2 },
                { "raid0-clean", "md13", "raid0", NULL, 129024, MD_UNSET, MDSTAT_PROGRESS_NONE, 0,
                  0, 0, 0, 0, 0, 2 },
        };
        const char *base = getenv("STORPULSE_FIXTURES");

        if (!base)
                base = "tests/fixtures";
        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                _cleanup_(mdstat_freep) Mdstat *m = NULL;
                _cleanup_free_ char *text = NULL;
                const MdstatArray *a;
                char path[PATH_MAX];
                const char *f = t[i].file;

                snprintf(path, sizeof(path), "%s/parsers/mdstat/%s.txt", base, f);
                is_int(read_full_file_at(-100 /* AT_FDCWD */, path, &text, NULL), 0, "%s: read", f);
                if (!text || mdstat_parse(text, &m) < 0) {
                        ok(false, "%s: parses", f);
                        continue;
                }
                ok(m->personalities[5] && !m->personalities[6] &&
                           strcmp(m->personalities[0], "raid0") == 0 &&
                           strcmp(m->personalities[5], "raid10") == 0,
                   "%s: six personalities", f);
                is_int(m->n_arrays, 1, "%s: one array", f);
                a = mdstat_find(m, t[i].name);
                ok(a, "%s: %s found", f, t[i].name);
                if (!a)
                        continue;
                is_str(a->personality, t[i].personality, "%s: personality", f);
                is_str(a->health, t[i].health, "%s: health", f);
                is_u64(a->blocks_kib, t[i].blocks, "%s: blocks", f);
                is_u64(a->disks_total, t[i].total, "%s: disks", f);
                is_int(a->n_members, t[i].n_members, "%s: members", f);
                is_int(a->progress.kind, t[i].kind, "%s: progress kind", f);
                if (t[i].kind != MDSTAT_PROGRESS_RUNNING)
                        continue;
                is_int(a->progress.action, t[i].action, "%s: action", f);
                is_int(a->progress.permille, t[i].permille, "%s: permille", f);
                is_u64(a->progress.done_kib, t[i].done, "%s: done", f);
                is_u64(a->progress.total_kib, t[i].all, "%s: total", f);
                is_u64(a->progress.finish_sec, t[i].finish, "%s: finish", f);
                is_u64(a->progress.speed_kib_per_sec, t[i].speed, "%s: speed", f);
        }
}

static void test_captures_delayed_broken(void) {
        const char *base = getenv("STORPULSE_FIXTURES");
        char path[PATH_MAX];

        if (!base)
                base = "tests/fixtures";
        {
                _cleanup_(mdstat_freep) Mdstat *m = NULL;
                _cleanup_free_ char *text = NULL;
                const MdstatArray *a;

                snprintf(path, sizeof(path), "%s/parsers/mdstat/raid1-delayed.txt", base);
                is_int(read_full_file_at(-100 /* AT_FDCWD */, path, &text, NULL), 0,
                       "delayed: read");
                is_int(text ? mdstat_parse(text, &m) : -1, 0, "delayed: parses");
                if (!m)
                        return;
                is_int(m->n_arrays, 2, "delayed: two arrays");
                a = mdstat_find(m, "md11");
                ok(a, "md11 found");
                if (a) {
                        is_int(a->progress.kind, MDSTAT_PROGRESS_DELAYED, "md11: resync=DELAYED");
                        is_str(a->progress.raw, "resync=DELAYED", "md11: raw");
                        is_int(a->progress.action, MD_SYNC_ACTION_RESYNC, "md11: action resync");
                        is_str(a->health, "UU", "md11: health");
                        is_int(a->n_members, 2, "md11: members");
                        if (a->n_members == 2)
                                is_str(a->members[0].name, "vdb2", "md11: partition member");
                }
                a = mdstat_find(m, "md10");
                ok(a, "md10 found");
                if (a) {
                        is_int(a->progress.kind, MDSTAT_PROGRESS_RUNNING, "md10 running");
                        is_int(a->progress.permille, 64, "md10 6.4%%");
                        is_u64(a->progress.done_kib, 2048, "md10 done");
                        is_u64(a->progress.total_kib, 31232, "md10 total");
                        is_u64(a->progress.finish_sec, 84, "md10 finish 1.4min");
                        is_u64(a->progress.speed_kib_per_sec, 341, "md10 speed");
                }
        }
        {
                _cleanup_(mdstat_freep) Mdstat *m = NULL;
                _cleanup_free_ char *text = NULL;
                const MdstatArray *a;

                snprintf(path, sizeof(path), "%s/parsers/mdstat/raid0-broken.txt", base);
                is_int(read_full_file_at(-100 /* AT_FDCWD */, path, &text, NULL), 0,
                       "broken: read");
                is_int(text ? mdstat_parse(text, &m) : -1, 0, "broken: parses");
                a = m ? mdstat_find(m, "md13") : NULL;
                ok(a, "md13 found");
                if (a) {
                        ok(a->active, "broken raid0 still 'active' in mdstat");
                        is_str(a->personality, "raid0", "md13 raid0");
                        is_int(a->n_members, 2, "md13 lists both members");
                        is_int(a->progress.kind, MDSTAT_PROGRESS_NONE, "md13 no progress");
                }
        }
}

/* RAID10/RAID6 from the VM suite's own run log (see README: build-vm/meson-logs/vm-md/test.log). */
static void test_captures_raid10_raid6(void) {
        static const struct {
                const char *file, *personality, *health;
                uint64_t up;
                unsigned faulty_members, n_members;
                MdstatProgressKind kind;
                MdSyncAction action;
                unsigned permille;
                uint64_t done, total, finish, speed;
        } t[] = {
                { "raid10-resync", "raid10", "UUUU", 4, 0, 4, MDSTAT_PROGRESS_RUNNING,
                  MD_SYNC_ACTION_RESYNC, 106, 14080, 129024, 36, 2816 },
                { "raid10-idle", "raid10", "UUUU", 4, 0, 4, MDSTAT_PROGRESS_NONE },
                { "raid10-degraded-faulty", "raid10", "U_UU", 3, 1, 4, MDSTAT_PROGRESS_NONE },
                { "raid10-recover", "raid10", "U_UU", 3, 0, 4, MDSTAT_PROGRESS_RUNNING,
                  MD_SYNC_ACTION_RECOVER, 62, 4224, 64512, 12, 4224 },
                { "raid6-resync", "raid6", "UUUU", 4, 0, 4, MDSTAT_PROGRESS_RUNNING,
                  MD_SYNC_ACTION_RESYNC, 94, 6272, 64512, 18, 3136 },
                { "raid6-idle", "raid6", "UUUU", 4, 0, 4, MDSTAT_PROGRESS_NONE },
                { "raid6-degraded-faulty", "raid6", "U_UU", 3, 1, 4, MDSTAT_PROGRESS_NONE },
                { "raid6-recover", "raid6", "U_UU", 3, 0, 4, MDSTAT_PROGRESS_RUNNING,
                  MD_SYNC_ACTION_RECOVER, 102, 6656, 64512, 24, 2218 },
        };
        const char *base = getenv("STORPULSE_FIXTURES");

        if (!base)
                base = "tests/fixtures";
        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                _cleanup_(mdstat_freep) Mdstat *m = NULL;
                _cleanup_free_ char *text = NULL;
                const MdstatArray *a;
                char path[PATH_MAX];
                const char *f = t[i].file;
                unsigned faulty = 0;

                snprintf(path, sizeof(path), "%s/parsers/mdstat/%s.txt", base, f);
                is_int(read_full_file_at(-100 /* AT_FDCWD */, path, &text, NULL), 0, "%s: read", f);
                a = text && mdstat_parse(text, &m) == 0 ? mdstat_find(m, "md0") : NULL;
                ok(a, "%s: md0 parsed", f);
                if (!a)
                        continue;
                is_str(a->personality, t[i].personality, "%s: personality", f);
                is_u64(a->blocks_kib, 129024, "%s: blocks", f);
                is_u64(a->disks_total, 4, "%s: [4/n]", f);
                is_u64(a->disks_up, t[i].up, "%s: [n/%u]", f, (unsigned) t[i].up);
                is_str(a->health, t[i].health, "%s: health", f);
                is_int(a->n_members, t[i].n_members, "%s: members", f);
                for (size_t j = 0; j < a->n_members; j++)
                        if (a->members[j].flags & MDSTAT_MEMBER_FLAG(MDSTAT_MEMBER_FAULTY))
                                faulty++;
                is_int(faulty, t[i].faulty_members, "%s: (F) members", f);
                is_int(a->progress.kind, t[i].kind, "%s: progress kind", f);
                if (t[i].kind != MDSTAT_PROGRESS_RUNNING)
                        continue;
                is_int(a->progress.action, t[i].action, "%s: action", f);
                is_int(a->progress.permille, t[i].permille, "%s: permille", f);
                is_u64(a->progress.done_kib, t[i].done, "%s: done", f);
                is_u64(a->progress.total_kib, t[i].total, "%s: total", f);
                is_u64(a->progress.finish_sec, t[i].finish, "%s: finish", f);
                is_u64(a->progress.speed_kib_per_sec, t[i].speed, "%s: speed", f);
        }
}

int main(void) {
        test_captures();
        test_captures2();
        test_captures_delayed_broken();
        test_captures_raid10_raid6();
        return tap_done();
}

/* SPDX-License-Identifier: MIT */
/* device-mapper parsers: target lines and dm-raid status from the real capture
 * (tests/fixtures/parsers/dm, see README there), the dm-raid.rst/dm-raid.c formats the capture does
 * not show (the doc's old "init" line, lines before mismatch/data_offset/journal existed, dead and
 * absent legs, journal chars), garbage and huge numbers; LVM uuid/name splitting and sub-LV
 * folding. */

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "model/dm.h"
#include "basic/fileio.h"
#include "basic/macro.h"
#include "tap.h"

static char *fixture(const char *name) {
        const char *base = getenv("STORPULSE_FIXTURES");
        char path[PATH_MAX];
        char *text = NULL;

        if (!base)
                base = "tests/fixtures";
        snprintf(path, sizeof(path), "%s/parsers/dm/%s", base, name);
        if (read_full_file_at(-100 /* AT_FDCWD */, path, &text, NULL) < 0)
                return NULL;
        return text;
}

static void test_tables(void) {
        for (int i = 0; i < _DM_TARGET_TYPE_MAX; i++)
                is_int(dm_target_type_from_string(dm_target_type_to_string(i)), i,
                       "target type %d round trip", i);
        for (int i = 0; i < _DM_RAID_SYNC_ACTION_MAX; i++)
                is_int(dm_raid_sync_action_from_string(dm_raid_sync_action_to_string(i)), i,
                       "sync action %d round trip", i);
        for (int i = 0; i < _DM_RAID_HEALTH_MAX; i++)
                is_int(dm_raid_health_from_string(dm_raid_health_to_string(i)), i,
                       "health %d round trip", i);
        is_int(dm_raid_health_from_char('A'), DM_RAID_HEALTH_ALIVE_IN_SYNC, "A");
        is_int(dm_raid_health_from_char('a'), DM_RAID_HEALTH_ALIVE_NOT_IN_SYNC, "a");
        is_int(dm_raid_health_from_char('D'), DM_RAID_HEALTH_DEAD, "D");
        is_int(dm_raid_health_from_char('-'), DM_RAID_HEALTH_ABSENT, "-");
        is_int(dm_raid_health_from_char('d'), _DM_RAID_HEALTH_INVALID, "d invalid");
        is_int(dm_raid_health_from_char(0), _DM_RAID_HEALTH_INVALID, "NUL invalid");
        ok(!dm_target_type_to_string(_DM_TARGET_TYPE_MAX), "out of range");
        is_int(dm_target_type_from_string("nosuch"), _DM_TARGET_TYPE_INVALID, "unknown word");
}

static void test_target_lines(void) {
        static const struct {
                const char *in;
                int r;
                uint64_t start, len;
                const char *type_name;
                DmTargetType type;
                const char *params;
        } t[] = {
                { "0 245760 raid raid1 2 AA 245760/245760 idle 0 0 -", 0, 0, 245760, "raid",
                  DM_TARGET_RAID, "raid1 2 AA 245760/245760 idle 0 0 -" },
                { "0 65536 linear 254:96 256000\n", 0, 0, 65536, "linear", DM_TARGET_LINEAR,
                  "254:96 256000\n" },
                { "0 65536 linear", 0, 0, 65536, "linear", DM_TARGET_LINEAR, "" },
                { "  0   100   striped  2 8 8:0 0 8:16 0  ", 0, 0, 100, "striped",
                  DM_TARGET_STRIPED, "2 8 8:0 0 8:16 0  " },
                { "2048 100 thin-pool 1 2/3 -", 0, 2048, 100, "thin-pool", DM_TARGET_THIN_POOL,
                  "1 2/3 -" },
                { "0 100 snapshot-origin 253:1", 0, 0, 100, "snapshot-origin",
                  DM_TARGET_SNAPSHOT_ORIGIN, "253:1" },
                { "0 100 flakey 8:0 0 5 5", 0, 0, 100, "flakey", DM_TARGET_FLAKEY, "8:0 0 5 5" },
                { "0 100 newtarget x", 0, 0, 100, "newtarget", DM_TARGET_UNKNOWN, "x" },
                { "0 100 unknown", 0, 0, 100, "unknown", DM_TARGET_UNKNOWN, "" },
                { "18446744073709551615 18446744073709551615 zero", 0, UINT64_MAX, UINT64_MAX,
                  "zero", DM_TARGET_ZERO, "" },
                { "0 18446744073709551616 linear", -ERANGE },
                { "0 100 averyveryverylongtargetname", -ERANGE },
                { "", -EINVAL },
                { "0", -EINVAL },
                { "0 100", -EINVAL },
                { "0 100 \n", -EINVAL },
                { "a 100 linear", -EINVAL },
                { "-1 100 linear", -EINVAL },
                { "0 1e3 linear", -EINVAL },
                { "0 100 lin/ear", -EINVAL },
                { "vg0-r1: 0 245760 raid raid1", -EINVAL }, /* dmsetup's prefix is not ours */
        };

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                DmTargetLine l = { .start_sectors = 7 };
                int r = dm_parse_target_line(t[i].in, &l);

                is_int(r, t[i].r, "target line #%zu r", i);
                if (r < 0) {
                        is_u64(l.start_sectors, 7, "target line #%zu untouched", i);
                        continue;
                }
                is_u64(l.start_sectors, t[i].start, "target line #%zu start", i);
                is_u64(l.length_sectors, t[i].len, "target line #%zu length", i);
                is_str(l.target_type_name, t[i].type_name, "target line #%zu type name", i);
                is_int(l.target_type, t[i].type, "target line #%zu type", i);
                is_str(l.params, t[i].params, "target line #%zu params", i);
        }
        is_int(dm_parse_target_line(NULL, &(DmTargetLine){ 0 }), -EINVAL, "NULL line");
}

static void test_fixture_lines(void) {
        static const struct {
                const char *file;
                DmTargetType type;
                uint64_t len;
        } t[] = {
                { "raid1-resync.status", DM_TARGET_RAID, 245760 },
                { "raid1-resync-later.status", DM_TARGET_RAID, 245760 },
                { "raid1-idle.status", DM_TARGET_RAID, 245760 },
                { "raid1-check.status", DM_TARGET_RAID, 245760 },
                { "linear.status", DM_TARGET_LINEAR, 65536 },
                { "delay.status", DM_TARGET_DELAY, 524288 },
                { "raid1.table", DM_TARGET_RAID, 245760 },
                { "linear.table", DM_TARGET_LINEAR, 65536 },
                { "rimage.table", DM_TARGET_LINEAR, 245760 },
                { "rmeta.table", DM_TARGET_LINEAR, 8192 },
                { "delay.table", DM_TARGET_DELAY, 524288 },
                { "raid1-dead-leg.status", DM_TARGET_RAID, 49152 },
                { "raid1-dead-leg.table", DM_TARGET_RAID, 49152 },
                { "raid1-small-insync.status", DM_TARGET_RAID, 49152 },
                { "error.table", DM_TARGET_ERROR, 49152 },
                { "error.status", DM_TARGET_ERROR, 49152 },
        };

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                _cleanup_free_ char *text = fixture(t[i].file);
                DmTargetLine l;

                ok(text, "%s: fixture present", t[i].file);
                if (!text)
                        continue;
                is_int(dm_parse_target_line(text, &l), 0, "%s: parses", t[i].file);
                is_int(l.target_type, t[i].type, "%s: type", t[i].file);
                is_u64(l.start_sectors, 0, "%s: start", t[i].file);
                is_u64(l.length_sectors, t[i].len, "%s: length", t[i].file);
        }
}

typedef struct ExpRaid {
        const char *in;
        int r;
        const char *type, *health;
        unsigned n;
        uint64_t done, total;
        DmRaidSyncAction action;
        uint64_t mismatch, data_offset;
        char journal;
} ExpRaid;

static void check_raid(const char *tag, const char *in, const ExpRaid *e) {
        DmRaidStatus s = { .n_devices = 4242 };
        int r = dm_raid_status_parse(in, &s);

        is_int(r, e->r, "%s r", tag);
        if (r < 0) {
                is_int(s.n_devices, 4242, "%s untouched", tag);
                return;
        }
        is_str(s.raid_type, e->type, "%s raid type", tag);
        is_int(s.n_devices, e->n, "%s devices", tag);
        is_str(s.health, e->health, "%s health", tag);
        is_u64(s.sync_done_sectors, e->done, "%s done", tag);
        is_u64(s.sync_total_sectors, e->total, "%s total", tag);
        is_int(s.sync_action, e->action, "%s action", tag);
        is_u64(s.mismatch_cnt, e->mismatch, "%s mismatch", tag);
        is_u64(s.data_offset_sectors, e->data_offset, "%s data_offset", tag);
        is_int(s.journal, e->journal, "%s journal", tag);
}

/* the captured dm-raid status lines, through their target lines */
static const ExpRaid raid_fixtures[] = {
        { "raid1-resync.status", 0, "raid1", "aa", 2, 30976, 245760, DM_RAID_SYNC_ACTION_RESYNC, 0,
          0, '-' },
        { "raid1-resync-later.status", 0, "raid1", "aa", 2, 75520, 245760,
          DM_RAID_SYNC_ACTION_RESYNC, 0, 0, '-' },
        { "raid1-idle.status", 0, "raid1", "AA", 2, 245760, 245760, DM_RAID_SYNC_ACTION_IDLE, 0, 0,
          '-' },
        { "raid1-check.status", 0, "raid1", "AA", 2, 15488, 245760, DM_RAID_SYNC_ACTION_CHECK, 0, 0,
          '-' },
        /* second capture: the second image's table replaced by "error", then written */
        { "raid1-small-insync.status", 0, "raid1", "AA", 2, 49152, 49152, DM_RAID_SYNC_ACTION_IDLE,
          0, 0, '-' },
        { "raid1-dead-leg.status", 0, "raid1", "AD", 2, 49152, 49152, DM_RAID_SYNC_ACTION_IDLE, 0,
          0, '-' },
};

/* the dm-raid.rst/dm-raid.c formats the capture does not show, and garbage */
static const ExpRaid raid_lines[] = {
        /* dm-raid.rst example (pre-1.9: no data_offset, no journal) */
        { "raid4 5 AAAAA 2/490221568 init 0", 0, "raid4", "AAAAA", 5, 2, 490221568,
          DM_RAID_SYNC_ACTION_INIT, 0, DM_UNSET, 0 },
        /* before 1.5.0: no mismatch count */
        { "raid1 2 AA 100/200 idle", 0, "raid1", "AA", 2, 100, 200, DM_RAID_SYNC_ACTION_IDLE,
          DM_UNSET, DM_UNSET, 0 },
        { "raid5_ls 3 ADA 10/20 recover 0 0 -\n", 0, "raid5_ls", "ADA", 3, 10, 20,
          DM_RAID_SYNC_ACTION_RECOVER, 0, 0, '-' },
        { "raid1 2 A- 1/1 idle 0 0 -", 0, "raid1", "A-", 2, 1, 1, DM_RAID_SYNC_ACTION_IDLE, 0, 0,
          '-' },
        { "raid6_zr 4 AAAa 1/2 recover 5 2048 a", 0, "raid6_zr", "AAAa", 4, 1, 2,
          DM_RAID_SYNC_ACTION_RECOVER, 5, 2048, 'a' },
        { "raid5_ls 3 AAA 3/3 check 128 0 D", 0, "raid5_ls", "AAA", 3, 3, 3,
          DM_RAID_SYNC_ACTION_CHECK, 128, 0, 'D' },
        { "raid10 4 AAAA 0/8 reshape 0 0 A", 0, "raid10", "AAAA", 4, 0, 8,
          DM_RAID_SYNC_ACTION_RESHAPE, 0, 0, 'A' },
        { "raid1 2 AA 1/2 frozen 0 0 -", 0, "raid1", "AA", 2, 1, 2, DM_RAID_SYNC_ACTION_FROZEN, 0,
          0, '-' },
        { "raid1 2 AA 1/2 repair 0 0 -", 0, "raid1", "AA", 2, 1, 2, DM_RAID_SYNC_ACTION_REPAIR, 0,
          0, '-' },
        { "raid1 2 AA 1/2 undef 0 0 -", 0, "raid1", "AA", 2, 1, 2, DM_RAID_SYNC_ACTION_UNDEF, 0, 0,
          '-' },
        { "raid1 2 AA 1/2 frobnicate", 0, "raid1", "AA", 2, 1, 2, DM_RAID_SYNC_ACTION_UNKNOWN,
          DM_UNSET, DM_UNSET, 0 },
        { "raid1 2 AA 1/2 idle 0 0 - future fields", 0, "raid1", "AA", 2, 1, 2,
          DM_RAID_SYNC_ACTION_IDLE, 0, 0, '-' },
        { "raid1 2 AA 18446744073709551615/18446744073709551615 idle", 0, "raid1", "AA", 2,
          UINT64_MAX, UINT64_MAX, DM_RAID_SYNC_ACTION_IDLE, DM_UNSET, DM_UNSET, 0 },
        /* garbage */
        { "", -EINVAL },
        { "raid1", -EINVAL },
        { "raid1 2", -EINVAL },
        { "raid1 3 AA 1/2 idle", -EINVAL },
        { "raid1 2 AAA 1/2 idle", -EINVAL },
        { "raid1 2 AX 1/2 idle", -EINVAL },
        { "raid1 0  1/2 idle", -EINVAL },
        { "raid1 254 AA 1/2 idle", -ERANGE },
        { "raid1 99999999999999999999999 AA 1/2 idle", -ERANGE },
        { "raid1 two AA 1/2 idle", -EINVAL },
        { "raid1 2 AA 1-2 idle", -EINVAL },
        { "raid1 2 AA 1/ idle", -EINVAL },
        { "raid1 2 AA /2 idle", -EINVAL },
        { "raid1 2 AA 18446744073709551616/1 idle", -ERANGE },
        { "raid1 2 AA 1/2", -EINVAL },
        { "raid1 2 AA 1/2 id/le", -EINVAL },
        { "raid1 2 AA 1/2 idle x", -EINVAL },
        { "raid1 2 AA 1/2 idle 0 x", -EINVAL },
        { "raid1 2 AA 1/2 idle 0 0 AA", -EINVAL },
        { "raid1 2 AA 1/2 idle 0 0 x", -EINVAL },
        { "raid1 2 AA 1/2 idle 999999999999999999999999999999999", -ERANGE },
};

static void test_raid_status_fixtures(void) {
        for (size_t i = 0; i < ELEMENTSOF(raid_fixtures); i++) {
                _cleanup_free_ char *text = fixture(raid_fixtures[i].in);
                DmTargetLine l;

                ok(text, "%s: fixture present", raid_fixtures[i].in);
                if (!text || dm_parse_target_line(text, &l) < 0)
                        continue;
                check_raid(raid_fixtures[i].in, l.params, &raid_fixtures[i]);
        }
}

static void test_raid_status_lines(void) {
        for (size_t i = 0; i < ELEMENTSOF(raid_lines); i++) {
                char tag[64];
                snprintf(tag, sizeof(tag), "raid status #%zu", i);
                check_raid(tag, raid_lines[i].in, &raid_lines[i]);
        }
        is_int(dm_raid_status_parse(NULL, &(DmRaidStatus){ 0 }), -EINVAL, "NULL params");
}

/* the captured dead leg */
static void test_raid_dead_leg(void) {
        _cleanup_free_ char *text = fixture("raid1-dead-leg.status");
        DmTargetLine l;
        DmRaidStatus st = {};

        ok(text && dm_parse_target_line(text, &l) == 0 && dm_raid_status_parse(l.params, &st) == 0,
           "dead leg parses");
        if (text) {
                is_int(dm_raid_status_count(&st, DM_RAID_HEALTH_DEAD), 1, "one dead leg");
                is_int(dm_raid_health_from_char(st.health[1]), DM_RAID_HEALTH_DEAD,
                       "second leg dead");
        }
}

/* the maximum: 253 legs */
static void test_raid_max_legs(void) {
        char line[600];
        DmRaidStatus s;
        int o = snprintf(line, sizeof(line), "raid1 253 ");

        for (int i = 0; i < 253; i++)
                line[o++] = i == 7 ? 'D' : 'A';
        snprintf(line + o, sizeof(line) - (size_t) o, " 5/10 recover 0 0 -");
        is_int(dm_raid_status_parse(line, &s), 0, "253 legs parse");
        is_int(dm_raid_status_count(&s, DM_RAID_HEALTH_DEAD), 1, "one dead of 253");
        is_int(dm_raid_status_count(&s, DM_RAID_HEALTH_ALIVE_IN_SYNC), 252, "252 alive");
        is_double(dm_raid_status_sync_ratio(&s), 0.5, 1e-12, "ratio 5/10");
}

/* one leg of each health, and no total: no ratio */
static void test_raid_mixed_legs(void) {
        DmRaidStatus s;

        is_int(dm_raid_status_parse("raid5_ls 4 AaD- 3/0 recover 0 0 -", &s), 0, "mixed legs");
        is_int(dm_raid_status_count(&s, DM_RAID_HEALTH_ALIVE_IN_SYNC), 1, "count A");
        is_int(dm_raid_status_count(&s, DM_RAID_HEALTH_ALIVE_NOT_IN_SYNC), 1, "count a");
        is_int(dm_raid_status_count(&s, DM_RAID_HEALTH_DEAD), 1, "count D");
        is_int(dm_raid_status_count(&s, DM_RAID_HEALTH_ABSENT), 1, "count -");
        is_double(dm_raid_status_sync_ratio(&s), -1.0, 0, "total 0: no ratio");
        is_int(dm_raid_status_count(NULL, DM_RAID_HEALTH_DEAD), 0, "count NULL");
}

static void test_lvm_uuid(void) {
        LvmUuid u;

        is_int(lvm_uuid_split(
                       "LVM-K6PnjH5LzKW3tWClA6OYBmtvNm9LVgkIj3w7a3LtJVtDC6lhVosHCDKZuIJXaDqa", &u),
               0, "vg0-r1 uuid");
        is_str(u.vg_uuid, "K6PnjH5LzKW3tWClA6OYBmtvNm9LVgkI", "vg uuid");
        is_str(u.lv_uuid, "j3w7a3LtJVtDC6lhVosHCDKZuIJXaDqa", "lv uuid");
        ok(!u.layer, "no layer");

        is_int(lvm_uuid_split(
                       "LVM-K6PnjH5LzKW3tWClA6OYBmtvNm9LVgkIj3w7a3LtJVtDC6lhVosHCDKZuIJXaDqa-"
                       "real",
                       &u),
               0, "uuid with layer");
        is_str(u.layer, "real", "layer");
        is_int(lvm_uuid_split("LVM-K6PnjH5LzKW3tWClA6OYBmtvNm9LVgkI", &u), 0, "VG-only uuid");
        is_str(u.lv_uuid, "", "VG-only: empty lv uuid");
        is_int(lvm_uuid_split(
                       "LVM-abcdefghijklmnopqrstuvwxyz!#0123ABCDEFGHIJKLMNOPQRSTUVWXYZ!#0123", &u),
               0, "! and # are LVM id chars");

        {
                static const char *const bad[] = {
                        NULL,
                        "",
                        "LVM-",
                        "LVM-short",
                        "CRYPT-LUKS2-0123456789abcdef0123456789abcdef-luks",
                        "lvm-K6PnjH5LzKW3tWClA6OYBmtvNm9LVgkIj3w7a3LtJVtDC6lhVosHCDKZuIJXaDqa",
                        "LVM-K6PnjH5LzKW3tWClA6OYBmtvNm9LVgkIj3w7a3LtJVtDC6lhVosHCDKZuIJXaDq_",
                        "LVM-K6PnjH5LzKW3tWClA6OYBmtvNm9LVgkIj3w7a3LtJVtDC6lhVosHCDKZuIJXaDqa-",
                        "LVM-K6PnjH5LzKW3tWClA6OYBmtvNm9LVgkIj3w7a3LtJVtDC6lhVosHCDKZuIJXaDqaX",
                        "LVM-K6PnjH5LzKW3tWClA6OYBmtvNm9LVgk",
                };
                for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                        LvmUuid v = { .vg_uuid = "x" };
                        is_int(lvm_uuid_split(bad[i], &v), -EINVAL, "bad uuid #%zu", i);
                        is_str(v.vg_uuid, "x", "bad uuid #%zu untouched", i);
                }
        }
}

static void test_lvm_names(void) {
        static const struct {
                const char *in;
                int r;
                const char *vg, *lv, *layer;
        } t[] = {
                { "vg0-r1", 0, "vg0", "r1", NULL },
                { "vg0-r1_rimage_0", 0, "vg0", "r1_rimage_0", NULL },
                { "my--vg-my--lv", 0, "my-vg", "my-lv", NULL },
                { "vg-pool-tpool", 0, "vg", "pool", "tpool" },
                { "vg-lv-real", 0, "vg", "lv", "real" },
                { "a---b", 0, "a-", "b", NULL },
                { "vg-a--b-cow", 0, "vg", "a-b", "cow" },
                { "novgsep", -EINVAL },
                { "-lv", -EINVAL },
                { "vg-", -EINVAL },
                { "vg--", -EINVAL },
                { "vg-lv-", -EINVAL },
                { "", -EINVAL },
        };

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                char *vg = NULL, *lv = NULL, *layer = NULL;
                int r = lvm_name_split(t[i].in, &vg, &lv, &layer);

                is_int(r, t[i].r, "name \"%s\" r", t[i].in);
                if (r == 0) {
                        is_str(vg, t[i].vg, "name \"%s\" vg", t[i].in);
                        is_str(lv, t[i].lv, "name \"%s\" lv", t[i].in);
                        is_str(layer, t[i].layer, "name \"%s\" layer", t[i].in);
                } else
                        ok(!vg && !lv && !layer, "name \"%s\" outputs untouched", t[i].in);
                free(vg);
                free(lv);
                free(layer);
        }
        {
                char *vg, *lv;
                is_int(lvm_name_split("vg-lv-real", &vg, &lv, NULL), 0, "layer may be ignored");
                free(vg);
                free(lv);
        }
        is_int(lvm_name_split(NULL, &(char *){ NULL }, &(char *){ NULL }, NULL), -EINVAL,
               "NULL name");
}

static void test_sub_lv(void) {
        static const struct {
                const char *in;
                int r;
                const char *parent;
        } t[] = {
                { "r1_rimage_0", 1, "r1" },
                { "r1_rmeta_1", 1, "r1" },
                { "r1_rimage_10", 1, "r1" },
                { "my_lv_rimage_0", 1, "my_lv" },
                { "m_mimage_0", 1, "m" },
                { "m_mlog", 1, "m" },
                { "lvol_mimagetmp_3", 1, "lvol" },
                { "pool_tdata", 1, "pool" },
                { "pool_tmeta", 1, "pool" },
                { "c_cdata", 1, "c" },
                { "c_cmeta", 1, "c" },
                { "c_cpool", 1, "c" },
                { "c_corig", 1, "c" },
                { "r1_rimage_0_imeta", 1, "r1" },
                { "r1_rimage_0_iorig", 1, "r1" },
                { "vdopool_vdata", 1, "vdopool" },
                { "lv_wcorig", 1, "lv" },
                { "snap_vorigin", 1, "snap" },
                { "pool_tmeta_rimage_1", 1, "pool" },
                { "lvol0_pmspare", 0, NULL },
                { "r1", 0, NULL },
                { "lin", 0, NULL },
                { "data_rimage", 0, NULL },
                { "x_rimage_", 0, NULL },
                { "my_rimage_0x", 0, NULL },
                { "_rimage_0", 0, NULL },
                { "_tdata", 0, NULL },
                { "", 0, NULL },
        };

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                char *p = NULL;
                int r = lvm_sub_lv_parent(t[i].in, &p);

                is_int(r, t[i].r, "sub-LV \"%s\" r", t[i].in);
                is_str(p, t[i].parent, "sub-LV \"%s\" parent", t[i].in);
                free(p);
        }
        is_int(lvm_sub_lv_parent(NULL, &(char *){ NULL }), -EINVAL, "NULL name");
}

static void test_capture_names(void) {
        _cleanup_free_ char *text = fixture("names.txt");
        char *line, *next;
        unsigned n = 0, hidden = 0;

        ok(text, "names.txt present");
        if (!text)
                return;
        for (line = text; line && *line; line = next) {
                char *sp, *vg = NULL, *lv = NULL, *parent = NULL;
                LvmUuid u;

                next = strchr(line, '\n');
                if (next)
                        *next++ = 0;
                sp = strchr(line, ' ');
                if (!sp)
                        continue;
                *sp = 0;
                n++;
                is_int(lvm_name_split(line, &vg, &lv, NULL), 0, "%s splits", line);
                is_str(vg, "vg0", "%s: vg0", line);
                is_int(lvm_uuid_split(sp + 1, &u), 0, "%s: uuid splits", line);
                is_str(u.vg_uuid, "K6PnjH5LzKW3tWClA6OYBmtvNm9LVgkI", "%s: same VG uuid", line);
                if (lv && lvm_sub_lv_parent(lv, &parent) == 1) {
                        hidden++;
                        is_str(parent, "r1", "%s: folds into r1", line);
                }
                free(vg);
                free(lv);
                free(parent);
        }
        is_int(n, 6, "six dm devices in the capture");
        is_int(hidden, 4, "four of them hidden sub-LVs");
}

int main(void) {
        test_tables();
        test_target_lines();
        test_fixture_lines();
        test_raid_status_fixtures();
        test_raid_status_lines();
        test_raid_dead_leg();
        test_raid_max_legs();
        test_raid_mixed_legs();
        test_lvm_uuid();
        test_lvm_names();
        test_sub_lv();
        test_capture_names();
        return tap_done();
}

/* SPDX-License-Identifier: MIT */
/* Inventory over the fixture trees in tests/fixtures/: per scenario the hand-written `expect`
 * file (from the kernel's numbers recorded beside it), field assertions whose expected values are
 * the captured kernel figures, the stack graph (sub-LV folding, LVM on md, partitions), problem
 * attribution, the hotplug add/change/remove path, and garbage trees that must not crash. */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sources/dm-status.h"
#include "basic/fileio.h"
#include "core/inventory.h"
#include "basic/macro.h"
#include "model/md.h"
#include "basic/sysfs.h"
#include "tap.h"

static const char *fixtures(void) {
        const char *e = getenv("STORPULSE_FIXTURES");
        return e ? e : "tests/fixtures";
}

static Inventory *scan(const char *scenario) {
        char path[4096];
        Inventory *inv = NULL;
        int r;

        (void) snprintf(path, sizeof(path), "%s/%s", fixtures(), scenario);
        r = inventory_new_for_root(path, &inv);
        if (r < 0) {
                tap_diag("cannot open %s: %d", path, r);
                return NULL;
        }
        r = inventory_scan(inv);
        if (r < 0) {
                tap_diag("scan of %s failed: %d", path, r);
                return inventory_free(inv);
        }
        return inv;
}

static const VolumeMember *member(const Volume *v, const char *name) {
        for (size_t i = 0; v && i < v->n_array_members; i++)
                if (v->array_members[i].name && strcmp(v->array_members[i].name, name) == 0)
                        return &v->array_members[i];
        return NULL;
}

/* A JSON value as the expect files write it: strings bare, arrays joined by ",", null. */
static void value_text(json_object *j, char *buf, size_t size) {
        size_t o = 0;

        if (!j) {
                (void) snprintf(buf, size, "null");
                return;
        }
        switch (json_object_get_type(j)) {
        case json_type_string:
                (void) snprintf(buf, size, "%s", json_object_get_string(j));
                return;
        case json_type_array:
                buf[0] = 0;
                for (size_t i = 0; i < json_object_array_length(j) && o + 1 < size; i++)
                        o += (size_t) snprintf(
                                buf + o, size - o, "%s%s", i ? "," : "",
                                json_object_get_string(json_object_array_get_idx(j, i)));
                return;
        default:
                (void) snprintf(buf, size, "%s", json_object_to_json_string(j));
        }
}

/* Dotted path ("md.array_state", "member_states.vdb") below a volume object; *found false when
 * a key is absent (an absent key is not the same as null). */
static json_object *lookup(json_object *o, const char *path, bool *found) {
        char key[128];
        const char *dot;

        *found = true;
        while (o && (dot = strchr(path, '.'))) {
                (void) snprintf(key, sizeof(key), "%.*s", (int) (dot - path), path);
                if (!json_object_object_get_ex(o, key, &o)) {
                        *found = false;
                        return NULL;
                }
                path = dot + 1;
        }
        if (!o || !json_object_object_get_ex(o, path, &o)) {
                *found = false;
                return NULL;
        }
        return o;
}

static json_object *volume_json(json_object *all, const char *name) {
        for (size_t i = 0; all && i < json_object_array_length(all); i++) {
                json_object *v = json_object_array_get_idx(all, i), *n;
                if (json_object_object_get_ex(v, "name", &n) &&
                    strcmp(json_object_get_string(n), name) == 0)
                        return v;
        }
        return NULL;
}

/* One line of an expect file: "volumes A B ..." (every listed volume, in order) or
 * "NAME key=value ...". Returns the number of failed checks. */
static unsigned check_expect_line(const char *scenario, json_object *all, char *line) {
        char *save = NULL, *tok, *name = strtok_r(line, " \t", &save);
        unsigned failed = 0;

        if (!name)
                return 0;
        if (strcmp(name, "volumes") == 0) {
                char want[1024] = "", got[1024] = "";
                size_t o = 0;

                while ((tok = strtok_r(NULL, " \t", &save)))
                        o += (size_t) snprintf(want + o, sizeof(want) - MIN(o, sizeof(want)),
                                               "%s%s", o ? " " : "", tok);
                o = 0;
                for (size_t i = 0; i < json_object_array_length(all); i++) {
                        json_object *n;
                        if (json_object_object_get_ex(json_object_array_get_idx(all, i), "name",
                                                      &n))
                                o += (size_t) snprintf(got + o, sizeof(got) - MIN(o, sizeof(got)),
                                                       "%s%s", o ? " " : "",
                                                       json_object_get_string(n));
                }
                is_str(got, want, "%s: the volumes listed", scenario);
                return strcmp(got, want) != 0;
        }
        json_object *v = volume_json(all, name);
        ok(v != NULL, "%s: %s listed", scenario, name);
        if (!v)
                return 1;
        while ((tok = strtok_r(NULL, " \t", &save))) {
                char *eq = strchr(tok, '='), got[1024];
                bool found;
                json_object *j;

                if (!eq) {
                        ok(0, "%s: malformed expectation '%s'", scenario, tok);
                        failed++;
                        continue;
                }
                *eq = 0;
                j = lookup(v, tok, &found);
                if (!found) {
                        ok(0, "%s: %s has no key %s", scenario, name, tok);
                        failed++;
                        continue;
                }
                value_text(j, got, sizeof(got));
                is_str(got, eq + 1, "%s: %s %s", scenario, name, tok);
                failed += strcmp(got, eq + 1) != 0;
        }
        return failed;
}

/* tests/fixtures/<s>/expect: expectations written by hand from the kernel's own numbers recorded
 * in the tree (mdstat text, degraded, raid_disks, member states, dm status), never from
 * storpulse's output (see tests/fixtures/README.md). */
static void test_expect(void) {
        _cleanup_close_ int dfd = -EBADF;
        _cleanup_strv_free_ char **names = NULL;
        size_t n = 0, checked = 0;

        dfd = open(fixtures(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        ok(dfd >= 0, "open fixtures dir %s", fixtures());
        if (dfd < 0)
                return;
        ok(sysfs_list_dir(dfd, ".", &names, &n) == 0, "list fixtures");
        for (size_t i = 0; i < n; i++) {
                _cleanup_(inventory_freep) Inventory *inv = NULL;
                _cleanup_free_ char *text = NULL;
                char path[512], *line, *save = NULL;
                json_object *got = NULL;
                unsigned failed = 0;
                size_t sz;

                (void) snprintf(path, sizeof(path), "%s/expect", names[i]);
                if (read_full_file_at(dfd, path, &text, &sz) < 0)
                        continue;
                checked++;
                inv = scan(names[i]);
                ok(inv != NULL, "%s: scan", names[i]);
                if (inv)
                        is_int(inventory_to_json(inv, &got), 0, "%s: to_json", names[i]);
                for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
                        if (line[0] != '#')
                                failed += check_expect_line(names[i], got, line);
                if (failed)
                        tap_diag("got: %s", json_object_to_json_string_ext(got, 0));
                json_object_put(got);
        }
        ok(checked >= 25, "expect files checked: %zu", checked);
}

static void test_md_raid1(void) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        const Volume *md, *where = NULL;
        const char *bad = NULL;

        /* recover: capture "recovery = 8.6% (22528/261120) ... speed=3754K/sec", sync_speed 3754 */
        inv = scan("md-raid1-recover");
        md = inventory_get(inv, "md0");
        ok(md != NULL, "recover: md0 present");
        if (!md)
                return;
        is_int(md->kind, VOLUME_MD, "md0 is md");
        is_str(md->level, "raid1", "level");
        is_int(md->health, VOLUME_HEALTH_DEGRADED, "degraded during recovery (degraded=1)");
        is_str(md->sync.action, "recover", "sync_action");
        ok(md->sync.has_progress, "progress known");
        is_double(md->sync.progress, 22528.0 / 261120.0, 1e-9, "progress from /proc/mdstat");
        is_u64(md->sync.speed_bytes_per_second, 3754 * 1024, "speed = sync_speed KiB/s * 1024");
        ok(md->sync.has_eta, "eta known");
        is_u64(md->sync.eta_seconds, (261120 - 22528) * 1024ULL / (3754 * 1024ULL), "eta");
        is_str(member(md, "vdb") ? member(md, "vdb")->state : NULL, "spare", "vdb spare");
        is_int(member(md, "vda") ? member(md, "vda")->slot : -9, 0, "vda slot 0");
        is_int(strv_length(md->members), 2, "two members");
        ok(strv_contains(inventory_get(inv, "vda")->holders, "md0"), "vda held by md0");
        ok(inventory_is_top_level(inv, md), "md0 top level");
        ok(!inventory_is_top_level(inv, inventory_get(inv, "vda")), "vda not top level");
        is_str(inventory_get(inv, "vda")->transport, "virtio", "virtio transport");
        is_u64(md->size_bytes, 261120ULL * 1024, "md0 size");
        inv = inventory_free(inv);

        inv = scan("md-raid1-resync");
        md = inventory_get(inv, "md0");
        ok(md && md->sync.has_progress, "resync: progress");
        if (md) {
                is_double(md->sync.progress, 20608.0 / 261120.0, 1e-9, "resync progress");
                is_u64(md->sync.speed_bytes_per_second, 6869 * 1024, "resync speed");
                is_int(md->health, VOLUME_HEALTH_OK, "resync of a new array is not degraded");
        }
        inv = inventory_free(inv);

        inv = scan("md-raid1-idle");
        md = inventory_get(inv, "md0");
        ok(md && !md->sync.has_progress && !md->sync.has_eta, "idle: no progress, no eta");
        is_str(md ? md->sync.action : NULL, "idle", "idle action");
        is_int(md ? md->health : -1, VOLUME_HEALTH_OK, "idle ok");
        is_int(inventory_attribute_problem(inv, md, &where, &bad), 0, "idle: no problem");
        inv = inventory_free(inv);

        inv = scan("md-raid1-check");
        md = inventory_get(inv, "md0");
        is_str(md ? md->sync.action : NULL, "check", "check action");
        is_int(md ? md->health : -1, VOLUME_HEALTH_OK, "a check is not an alarm");
        is_double(md ? md->sync.progress : -1, 21504.0 / 261120.0, 1e-9, "check progress");
        inv = inventory_free(inv);

        inv = scan("md-raid1-degraded");
        md = inventory_get(inv, "md0");
        is_int(md ? md->health : -1, VOLUME_HEALTH_DEGRADED, "degraded");
        is_str(md && member(md, "vdb") ? member(md, "vdb")->state : NULL, "faulty", "vdb faulty");
        is_int(md && member(md, "vdb") ? member(md, "vdb")->slot : -9, -1, "faulty slot none");
        is_int(inventory_attribute_problem(inv, md, &where, &bad), 1, "degraded: a problem");
        ok(where == md, "attributed to md0 itself (the disk shows nothing)");
        is_str(bad, "vdb", "faulty member named");
        inv = inventory_free(inv);

        inv = scan("md-raid1-removed");
        md = inventory_get(inv, "md0");
        is_int(md ? (long long) strv_length(md->members) : -1, 1, "removed: one member left");
        is_int(md ? md->degraded : -1, 1, "removed: degraded=1");
        is_int(strv_length(inventory_get(inv, "vdb")->holders), 0, "vdb holds nothing");
        ok(inventory_is_top_level(inv, inventory_get(inv, "vdb")), "vdb is top level again");
}

/* A tree captured from a real kernel by tests/vm/capture-fixtures. */
static void test_captured(void) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        const Volume *md, *v;

        inv = scan("captured-md-raid1-idle");
        md = inventory_get(inv, "md0");
        ok(md != NULL, "captured: md0");
        if (!md)
                return;
        is_str(md->level, "raid1", "captured: raid1");
        is_int(md->health, VOLUME_HEALTH_OK, "captured: ok");
        is_str(md->sync.action, "idle", "captured: idle");
        is_str(member(md, "vda") ? member(md, "vda")->state : NULL, "in_sync", "vda in_sync");
        is_str(member(md, "vdb") ? member(md, "vdb")->state : NULL, "in_sync", "vdb in_sync");
        v = inventory_get(inv, "vdc");
        ok(v && inventory_is_top_level(inv, v), "unused vdc is top level");
        ok(v && !v->vendor, "virtio's PCI vendor id is not taken for a vendor name");
        is_str(v ? v->serial : NULL, "vmdisk3", "serial from udev");
        is_str(v ? v->transport : NULL, "virtio", "virtio");
}

/* LVM raid1 + linear captured from a real kernel; live.json there came from libdevmapper. */
static void test_captured_lvm(void) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        const Volume *lv;

        inv = scan("captured-lvm-raid1-insync");
        lv = inventory_get(inv, "dm-4");
        ok(lv != NULL, "captured lvm: dm-4");
        if (!lv)
                return;
        is_str(lv->vg_name, "vg0", "vg0");
        is_str(lv->lv_name, "r1", "r1");
        is_str(lv->level, "raid1", "raid1 from the captured status line");
        is_int(lv->health, VOLUME_HEALTH_OK, "in sync: ok");
        ok(lv->n_array_members == 2 && strcmp(lv->array_members[0].state, "in_sync") == 0 &&
                   strcmp(lv->array_members[1].state, "in_sync") == 0,
           "both legs in_sync");
        ok(strv_contains(lv->members, "vda") && strv_contains(lv->members, "vdb"),
           "members are the PVs below the rimages");
        for (int i = 0; i < 4; i++) {
                char n[8];
                (void) snprintf(n, sizeof(n), "dm-%d", i);
                ok(inventory_get(inv, n) && inventory_get(inv, n)->hidden, "captured %s hidden", n);
        }
        is_str(inventory_get(inv, "dm-5") ? inventory_get(inv, "dm-5")->lv_name : NULL, "lin",
               "linear LV");
}

static void test_md_other(void) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        const Volume *md;

        inv = scan("md-raid5-recover");
        md = inventory_get(inv, "md1");
        is_str(md ? md->level : NULL, "raid5", "raid5 level");
        is_int(md ? md->raid_disks : -1, 3, "raid5 raid_disks");
        is_double(md ? md->sync.progress : -1, 25472.0 / 261120.0, 1e-9, "raid5 progress");
        is_u64(md ? md->sync.speed_bytes_per_second : 0, 5094 * 1024, "raid5 speed");
        is_u64(md && md->md ? 1 : 0, 1, "MdArray attached");
        ok(inventory_get(inv, "md0") == NULL, "md0 only in mdstat is not a volume");
        inv = inventory_free(inv);

        inv = scan("md-raid1-delayed");
        md = inventory_get(inv, "md1");
        ok(md && md->sync.delayed, "md1 delayed");
        ok(md && !md->sync.has_progress && !md->sync.has_eta, "delayed: no progress figure");
        md = inventory_get(inv, "md0");
        ok(md && md->sync.has_progress && !md->sync.delayed, "md0 resyncing, not delayed");
        ok(strv_contains(md ? md->members : NULL, "sda1"), "md0 on sda1");
        ok(strv_contains(inventory_get(inv, "sda1")->members, "sda"), "sda1 sits on sda");
        ok(strv_contains(inventory_get(inv, "sda")->holders, "sda1"), "sda holds sda1");
        is_str(inventory_get(inv, "sda")->driver, "ahci", "ahci driver");
        is_int(inventory_get(inv, "sda")->kind, VOLUME_DISK, "ahci disk is a disk");
        inv = inventory_free(inv);

        inv = scan("md-raid1-repair");
        md = inventory_get(inv, "md0");
        is_str(md ? md->sync.action : NULL, "repair", "repair action (mdstat says resync)");
        is_double(md ? md->sync.progress : -1, 23808.0 / 261120.0, 1e-9, "repair progress");
        ok(md && md->sync.has_mismatch_count && md->sync.mismatch_count == 128, "mismatch_cnt 128");
        is_int(md ? md->health : -1, VOLUME_HEALTH_OK, "repair is not an alarm by itself");
        inv = inventory_free(inv);

        inv = scan("md-raid1-frozen");
        md = inventory_get(inv, "md0");
        is_str(md ? md->sync.action : NULL, "frozen", "frozen");
        ok(md && !md->sync.has_progress, "frozen: no progress");
        is_int(md ? md->health : -1, VOLUME_HEALTH_DEGRADED, "frozen recovery: still degraded");
        inv = inventory_free(inv);

        inv = scan("md-raid1-spare");
        md = inventory_get(inv, "md0");
        is_int(md ? md->health : -1, VOLUME_HEALTH_OK, "a hot spare is healthy");
        ok(md && !volume_has_problem(md), "no problem with a spare");
        is_int(md && member(md, "vdc") ? member(md, "vdc")->slot : -9, -1, "spare slot none");
        is_int(md ? (long long) strv_length(md->members) : -1, 3, "spare listed as member");
        inv = inventory_free(inv);

        inv = scan("md-raid5-reshape");
        md = inventory_get(inv, "md1");
        is_str(md ? md->sync.action : NULL, "reshape", "reshape");
        is_int(md ? md->raid_disks : -1, 4, "raid_disks new value");
        ok(md && md->md && md->md->raid_disks_old == 3, "raid_disks old value 3");
        is_double(md ? md->sync.progress : -1, 32256.0 / 261120.0, 1e-9, "reshape progress");
        inv = inventory_free(inv);

        inv = scan("md-raid6-idle");
        md = inventory_get(inv, "md1");
        is_str(md ? md->level : NULL, "raid6", "raid6");
        is_int(md ? md->health : -1, VOLUME_HEALTH_OK, "raid6 ok");
        inv = inventory_free(inv);

        inv = scan("md-raid10-degraded");
        md = inventory_get(inv, "md2");
        {
                const Volume *where = NULL;
                const char *bad = NULL;
                is_int(md ? md->health : -1, VOLUME_HEALTH_DEGRADED, "raid10 degraded");
                is_int(inventory_attribute_problem(inv, md, &where, &bad), 1, "raid10 problem");
                is_str(bad, "vde", "raid10 faulty member vde");
        }
        inv = inventory_free(inv);

        inv = scan("md-raid0-broken");
        md = inventory_get(inv, "md2");
        is_int(md ? md->health : -1, VOLUME_HEALTH_FAILED, "broken raid0 failed");
        ok(md && !md->sync.action, "raid0 has no sync_action");
}

/* an LVM raid1 LV in its initial sync: its sub-LVs folded into it, the PVs its members */
static void test_lvm_raid1_syncing(void) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        const Volume *lv;

        inv = scan("lvm-raid1-syncing");
        lv = inventory_get(inv, "dm-4");
        ok(lv != NULL, "dm-4 present");
        if (!lv)
                return;
        is_int(lv->kind, VOLUME_LVM, "lvm kind");
        is_str(lv->vg_name, "vg0", "vg");
        is_str(lv->lv_name, "r1", "lv");
        is_str(lv->dm_target, "raid", "raid target");
        is_str(lv->level, "raid1", "raid1");
        is_int(lv->health, VOLUME_HEALTH_OK, "initial sync is not degraded");
        is_double(lv->sync.progress, 30976.0 / 245760.0, 1e-9, "dm-raid progress");
        is_u64(lv->sync.speed_bytes_per_second, 0, "no speed from one reading");
        ok(!lv->sync.has_eta, "no eta from one reading");
        is_int(strv_length(lv->members), 2, "members are the PVs");
        ok(strv_contains(lv->members, "vdg") && strv_contains(lv->members, "vdh"), "vdg, vdh");
        for (int i = 0; i < 4; i++) {
                char n[8];
                (void) snprintf(n, sizeof(n), "dm-%d", i);
                ok(inventory_get(inv, n) && inventory_get(inv, n)->hidden, "%s hidden", n);
                is_str(inventory_get(inv, n) ? inventory_get(inv, n)->folded_into : NULL, "dm-4",
                       "%s folded into dm-4", n);
        }
        is_int(strv_length(inventory_get(inv, "vdg")->holders), 2, "vdg holders: r1 and lin");
        ok(strv_contains(inventory_get(inv, "vdg")->holders, "dm-4") &&
                   strv_contains(inventory_get(inv, "vdg")->holders, "dm-5"),
           "vdg held by dm-4, dm-5 (sub-LVs folded)");
        is_str(lv->array_members[1].state, "syncing", "leg 1 'a' = syncing");
        ok(inventory_is_top_level(inv, lv), "r1 top level");
        ok(!inventory_is_top_level(inv, inventory_get(inv, "dm-1")), "rimage not top level");
        is_str(inventory_get(inv, "dm-5")->dm_target, "linear", "lin is linear");
        ok(!volume_is_array(inventory_get(inv, "dm-5")), "lin is no array");
        inv = inventory_free(inv);
}

/* an LV in sync, with a dead leg, striped, a plain dm-raid, an LV on md */
static void test_lvm_states(void) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        const Volume *lv, *where = NULL;
        const char *bad = NULL;

        inv = scan("lvm-raid1-insync");
        lv = inventory_get(inv, "dm-4");
        ok(lv && !lv->sync.has_progress, "in sync: no progress");
        is_str(lv ? lv->array_members[0].state : NULL, "in_sync", "A = in_sync");
        inv = inventory_free(inv);

        inv = scan("lvm-raid1-dead-leg");
        lv = inventory_get(inv, "dm-4");
        is_int(lv ? lv->health : -1, VOLUME_HEALTH_DEGRADED, "dead leg: degraded");
        is_int(lv ? lv->degraded : -1, 1, "one dead leg");
        is_int(inventory_attribute_problem(inv, lv, &where, &bad), 1, "problem found");
        ok(where == lv, "attributed to the LV");
        is_str(bad, "vdh", "dead leg is vdh");
        inv = inventory_free(inv);

        inv = scan("lvm-striped");
        lv = inventory_get(inv, "dm-0");
        is_str(lv ? lv->dm_target : NULL, "striped", "striped target");
        ok(lv && strv_contains(lv->members, "vdg") && strv_contains(lv->members, "vdh"),
           "striped over vdg, vdh");
        ok(lv && !volume_is_array(lv), "striped is no redundant array");
        inv = inventory_free(inv);

        inv = scan("dm-raid1-plain");
        lv = inventory_get(inv, "dm-0");
        is_int(lv ? lv->kind : -1, VOLUME_DM, "plain dm-raid is kind dm");
        ok(lv && !lv->dm_uuid, "empty dm uuid is no uuid");
        is_int(lv ? lv->health : -1, VOLUME_HEALTH_DEGRADED, "one dead leg of two: degraded");
        is_str(lv && lv->n_array_members == 2 ? lv->array_members[1].name : NULL, "vdb",
               "leg 1 named from the table's data device 254:16");
        is_str(lv && lv->n_array_members == 2 ? lv->array_members[1].state : NULL, "faulty",
               "leg 1 dead");
        inv = inventory_free(inv);

        inv = scan("lvm-on-md");
        lv = inventory_get(inv, "dm-0");
        ok(lv && strv_contains(lv->members, "md0"), "LV sits on md0");
        ok(strv_contains(inventory_get(inv, "md0")->holders, "dm-0"), "md0 held by LV");
        ok(inventory_is_top_level(inv, lv) &&
                   !inventory_is_top_level(inv, inventory_get(inv, "md0")),
           "LV on top");
        is_int(inventory_attribute_problem(inv, lv, &where, &bad), 1, "LV on degraded md: problem");
        is_str(where ? where->name : NULL, "md0", "attributed to md0, the lowest layer showing it");
        is_str(bad, "vdb", "member vdb");
}

static void test_disks(void) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        const Volume *v;

        inv = scan("megaraid-sas");
        v = inventory_get(inv, "sda");
        is_int(v ? v->kind : -1, VOLUME_CONTROLLER,
               "megaraid LD (channel 2) is a controller volume");
        is_str(v ? v->driver : NULL, "megaraid_sas", "driver");
        is_str(v ? v->scsi_host : NULL, "host0", "host");
        is_str(v ? v->vendor : NULL, "AVAGO", "vendor padding stripped");
        is_str(v ? v->model : NULL, "MR9361-8i", "model padding stripped");
        is_int(v ? v->rotational : -1, 1, "rotational");
        v = inventory_get(inv, "sdb");
        is_int(v ? v->kind : -1, VOLUME_DISK, "JBOD disk (channel 0) is a disk");
        v = inventory_get(inv, "sda2");
        is_int(v ? v->kind : -1, VOLUME_PARTITION, "sda2 partition");
        is_str(v ? v->parent : NULL, "sda", "parent");
        is_int(v ? v->partition_number : -1, 2, "partition number");
        ok(v && strv_contains(v->members, "sda"), "partition sits on its disk");

        {
                ControllerVolume cv = {
                        .controller = (char *) "0",
                        .volume_id = (char *) "239",
                        .raid_level = (char *) "RAID1",
                        .size_bytes = CONTROLLER_SIZE_UNKNOWN,
                        .state = CONTROLLER_VOLUME_REBUILDING,
                        .state_raw = (char *) "Rbld",
                        .os_device = (char *) "/dev/sda",
                        .operation = (char *) "Rebuild",
                        .progress = 0.42,
                        .eta_usec = 600 * USEC_PER_SEC,
                };
                ControllerVolumeList l = { .volumes = &cv, .n = 1 };

                is_int(inventory_apply_controller_cli(inv, CONTROLLER_CLI_STORCLI, &l), 1,
                       "CLI volume matched by OS device");
                v = inventory_get(inv, "sda");
                ok(v && v->has_cli && volume_is_array(v), "controller volume has CLI data");
                is_int(v ? v->health : -1, VOLUME_HEALTH_DEGRADED, "rebuilding -> degraded");
                is_str(v ? v->sync.action : NULL, "rebuild", "operation lower-cased");
                is_double(v ? v->sync.progress : -1, 0.42, 1e-9, "CLI progress");
                is_u64(v && v->sync.has_eta ? v->sync.eta_seconds : 0, 600, "CLI eta");
                is_str(v ? v->cli_volume_id : NULL, "c0/v239", "CLI volume id");
                is_str(v ? v->level : NULL, "RAID1", "level from the CLI");

                cv.os_device = (char *) "/dev/sdb";
                is_int(inventory_apply_controller_cli(inv, CONTROLLER_CLI_STORCLI, &l), 0,
                       "a JBOD disk never takes CLI volume data");
                cv.os_device = NULL;
                cv.state = CONTROLLER_VOLUME_FAILED;
                is_int(inventory_apply_controller_cli(inv, CONTROLLER_CLI_STORCLI, &l), 1,
                       "lone CLI volume matches the lone controller volume");
                is_int(inventory_get(inv, "sda")->health, VOLUME_HEALTH_FAILED, "failed");
                is_int(inventory_apply_controller_cli(inv, CONTROLLER_CLI_SSACLI, &l), 0,
                       "ssacli does not read megaraid_sas volumes");
        }
        {
                BlockStat st;
                v = inventory_get(inv, "sda1");
                is_int(inventory_read_stat(inv, v, &st), 0, "stat of a partition");
                is_u64(st.read_ios, 100, "read_ios from the stat file");
                is_u64(st.write_ticks_ms, 10, "write_ticks");
                is_int(st.n_fields, 17, "17 fields");
        }
        inv = inventory_free(inv);

        inv = scan("nvme-partitions");
        v = inventory_get(inv, "nvme0n1");
        is_str(v ? v->transport : NULL, "nvme", "nvme transport");
        is_str(v ? v->model : NULL, "QEMU NVMe Ctrl", "nvme model");
        is_str(v ? v->serial : NULL, "deadbeef", "serial from udev ID_SERIAL_SHORT");
        is_int(v ? v->logical_block_size : 0, 4096, "lbs");
        v = inventory_get(inv, "nvme0n1p1");
        is_int(v ? v->logical_block_size : 0, 4096, "partition lbs from its disk's queue");
        is_u64(v ? v->size_bytes : 0, 204800ULL * 512, "partition size");
}

static int mkfile(int dfd, const char *path, const char *content) {
        char buf[512], *slash;

        (void) snprintf(buf, sizeof(buf), "%s", path);
        for (slash = strchr(buf, '/'); slash; slash = strchr(slash + 1, '/')) {
                *slash = 0;
                (void) mkdirat(dfd, buf, 0755);
                *slash = '/';
        }
        return write_file_atomic_at(dfd, path, content, strlen(content));
}

/* devices added, changed and removed one by one, then a rescan */
static void test_hotplug(void) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        char path[4096];

        (void) snprintf(path, sizeof(path), "%s/md-raid1-degraded", fixtures());
        ok(inventory_new_for_root(path, &inv) == 0, "new");
        is_int(inventory_size(inv), 0, "empty before add");
        is_int(inventory_device_add(inv, "vdb"), 1, "add vdb: new");
        is_int(inventory_size(inv), 1, "one volume");
        is_int(strv_length(inventory_get(inv, "vdb")->holders), 0, "md0 unknown yet: not a holder");
        is_int(inventory_device_add(inv, "md0"), 1, "add md0: new");
        ok(strv_contains(inventory_get(inv, "vdb")->holders, "md0"), "vdb now held by md0");
        is_int(inventory_device_change(inv, "md0"), 0, "change md0: known");
        is_int(inventory_device_add(inv, "nope"), -ENOENT, "absent device -ENOENT");
        is_int(inventory_device_add(inv, "../etc"), -EINVAL, "path-like name refused");
        is_int(inventory_device_add(inv, ""), -EINVAL, "empty name refused");
        is_int(inventory_device_remove(inv, "md0"), 1, "remove md0");
        is_int(inventory_device_remove(inv, "md0"), 0, "remove again: unknown");
        is_int(strv_length(inventory_get(inv, "vdb")->holders), 0, "vdb holder gone");
        is_int(inventory_scan(inv), 0, "rescan");
        is_int(inventory_size(inv), 3, "rescan finds md0, vda, vdb");
        inv = inventory_free(inv);
}

/* A tree full of garbage: every file of it malformed, out of range or hostile. */
static const struct {
        const char *path, *content;
} garbage_tree[] = {
        { "sys/class/block/x/dev", "garbage\n" },
        { "sys/class/block/x/size", "99999999999999999999999999\n" },
        { "sys/class/block/x/ro", "\n" },
        { "sys/class/block/x/partition", "-1\n" },
        { "sys/class/block/md9/dev", "9:9\n" },
        { "sys/class/block/md9/md/level", "\n" },
        { "sys/class/block/md9/md/sync_completed", "7 / 0\n" },
        { "sys/class/block/md9/md/sync_action", "recover\n" },
        { "sys/class/block/md9/md/sync_speed", "18446744073709551615\n" },
        { "sys/class/block/md9/md/dev-zz/state", ",,,\n" },
        { "sys/class/block/dm-9/dev", "252:9\n" },
        { "sys/class/block/dm-9/dm/name", "../../etc/passwd\n" },
        { "sys/class/block/dm-9/dm/uuid", "LVM-short\n" },
        { "sys/class/block/dm-8/dm/name", "vg-lv\n" },
        { "sys/class/block/dm-8/dm/uuid", "LVM-x\n" },
        { "dm/vg-lv.status", "0 10 raid raid1 2 ZZ 1/0 idle\n" },
        { "dm/vg-lv.table", "garbage\n" },
        { "run/udev/data/b252:9", "E:DM_LV_NAME=x_rimage_0\nE:noequals\nE:=\n" },
        { "proc/mdstat", "md9 : active raid1 zz[0]\n [====] recovery = 999.9% (5/0)\n" },
        { "sys/class/block/nvme0c0n1/hidden", "1\n" },
        { "sys/class/block/nvme0c0n1/dev", "259:9\n" },
};

/* the dm status files of a garbage tree: names that are paths, a bad query, an absent file */
static void test_dm_status_files(int fd) {
        char *s = NULL;
        DmStatusProvider p = { .get = dm_status_get_files, .userdata = &fd };

        is_int(p.get(p.userdata, &(DmDeviceId){ "../x", 252, 9 }, DM_QUERY_STATUS, &s), -EINVAL,
               "dm name with /");
        is_int(p.get(p.userdata, &(DmDeviceId){ ".hidden", 252, 9 }, DM_QUERY_TABLE, &s), -EINVAL,
               "dotted name");
        is_int(p.get(p.userdata, &(DmDeviceId){ "vg-lv", 252, 8 }, _DM_QUERY_INVALID, &s), -EINVAL,
               "bad query");
        is_int(p.get(p.userdata, &(DmDeviceId){ "absent", 252, 7 }, DM_QUERY_TABLE, &s), -ENOENT,
               "absent file");
        ok(s == NULL, "output untouched on failure");
}

static void test_garbage(void) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        char tmpl[] = "/tmp/test-inventory-XXXXXX";
        _cleanup_close_ int dfd = -EBADF;
        int r;

        ok(mkdtemp(tmpl) != NULL, "mkdtemp");
        dfd = open(tmpl, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        ok(inventory_new_for_root(tmpl, &inv) == 0, "new over empty dir");
        ok(inventory_scan(inv) < 0, "empty root: scan fails (no sys/class/block)");
        for (size_t i = 0; i < ELEMENTSOF(garbage_tree); i++)
                mkfile(dfd, garbage_tree[i].path, garbage_tree[i].content);
        r = inventory_scan(inv);
        is_int(r, 0, "garbage tree scans");
        is_int(inventory_size(inv), 4, "all four entries listed, the hidden gendisk not");
        ok(!inventory_get(inv, "nvme0c0n1"), "hidden NVMe path device skipped");
        ok(inventory_get(inv, "x") && inventory_get(inv, "x")->size_bytes == 0,
           "overflowing size is unknown");
        ok(inventory_get(inv, "md9") && inventory_get(inv, "md9")->kind == VOLUME_MD, "md9 is md");
        ok(inventory_get(inv, "dm-8") && inventory_get(inv, "dm-8")->dm_raid == NULL,
           "bad dm-raid status is not parsed");
        {
                json_object *j = NULL;
                is_int(inventory_to_json(inv, &j), 0, "garbage renders");
                json_object_put(j);
        }
        test_dm_status_files(dfd);
        (void) unlinkat(dfd, "x", 0);
        {
                char cmd[256];
                (void) snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpl);
                (void) system(cmd);
        }
}

int main(void) {
        test_expect();
        test_md_raid1();
        test_md_other();
        test_captured();
        test_captured_lvm();
        test_lvm_raid1_syncing();
        test_lvm_states();
        test_disks();
        test_hotplug();
        test_garbage();
        return tap_done();
}

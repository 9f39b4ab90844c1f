/* SPDX-License-Identifier: MIT */
/* The inventory as a daemon holds it: a copy of a fixture tree (captured from a real kernel, see
 * each tree's SOURCE) is changed between steps the way the kernel would change sysfs, and a fake
 * discovery backend delivers the matching uevents through the real Discovery ordering logic into
 * the queueing handler. Checked: the change set of every step (added / changed with which bits /
 * removed), the handles keeping their address, one flush applying a batch within its budget,
 * monitor-before-enumerate (an event arriving while the coldplug enumeration runs is not lost;
 * the fake backend drops events while it is not started, as a netlink socket would), a device
 * re-created under the same name being a new handle, a holder appearing changing the links of
 * the device below without an event of its own, inventory_refresh_mdstat() moving the md figures,
 * inventory_refresh_dm_raid() following a dm-raid status, vendor CLI data surviving a sysfs
 * re-read, and 1000 add/remove events keeping every live handle intact (this suite runs under
 * ASan in the dev build, which turns a stale handle into a failure). */

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/macro.h"
#include "basic/sysfs.h"
#include "core/discovery.h"
#include "core/inventory.h"
#include "tap.h"

static char root[] = "/tmp/test-inventory-events-XXXXXX";
static int root_fd = -EBADF;

static void sh(const char *fmt, ...) _printf_(1, 2);
static void sh(const char *fmt, ...) {
        char cmd[1024];
        va_list ap;

        va_start(ap, fmt);
        (void) vsnprintf(cmd, sizeof(cmd), fmt, ap);
        va_end(ap);
        if (system(cmd) != 0) {
                ok(0, "command failed: %s", cmd);
                exit(1);
        }
}

static void use_fixture(const char *scenario) {
        const char *fixtures = getenv("STORPULSE_FIXTURES");
        char src[512];

        (void) snprintf(src, sizeof(src), "%s/%s", fixtures ? fixtures : "tests/fixtures",
                        scenario);
        sh("find '%s' -mindepth 1 -delete", root); /* keep the directory: root_fd */
        sh("cp -a '%s/.' '%s/'", src, root);
}

static void put(const char *path, const char *text) {
        char buf[512], *slash;

        (void) snprintf(buf, sizeof(buf), "%s", path);
        for (slash = strchr(buf, '/'); slash; slash = strchr(slash + 1, '/')) {
                *slash = 0;
                (void) mkdirat(root_fd, buf, 0755);
                *slash = '/';
        }
        if (write_file_atomic_at(root_fd, path, text, strlen(text)) < 0) {
                ok(0, "write %s", path);
                exit(1);
        }
}

/* As put(), without the fsync of an atomic write: for the many small files of hotplug loops. */
static void put_fast(const char *path, const char *text) {
        _cleanup_close_ int fd =
                openat(root_fd, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

        if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t) strlen(text)) {
                ok(0, "write %s", path);
                exit(1);
        }
}

/* A plain virtio-like disk "name" with device number 254:minor. */
static void add_disk(const char *name, unsigned minor) {
        char path[256], dev[32];

        (void) snprintf(dev, sizeof(dev), "254:%u\n", minor);
        (void) snprintf(path, sizeof(path), "sys/class/block/%s", name);
        (void) mkdirat(root_fd, path, 0755);
        (void) snprintf(path, sizeof(path), "sys/class/block/%s/dev", name);
        put_fast(path, dev);
        (void) snprintf(path, sizeof(path), "sys/class/block/%s/size", name);
        put_fast(path, "131072\n");
}

static void remove_disk(const char *name) {
        char path[256];

        (void) snprintf(path, sizeof(path), "sys/class/block/%s/dev", name);
        (void) unlinkat(root_fd, path, 0);
        (void) snprintf(path, sizeof(path), "sys/class/block/%s/size", name);
        (void) unlinkat(root_fd, path, 0);
        (void) snprintf(path, sizeof(path), "sys/class/block/%s", name);
        if (unlinkat(root_fd, path, AT_REMOVEDIR) < 0) {
                ok(0, "remove %s", path);
                exit(1);
        }
}

/* ---- a fake discovery backend --------------------------------------------------------------- */

typedef struct FakeEvent {
        DiscoveryAction action;
        char name[64];
} FakeEvent;

typedef struct Fake {
        bool started;
        FakeEvent events[64];
        size_t n_events, next;
        /* called by enumerate() after the first device was fed (the race window) */
        void (*during_enumerate)(struct Fake *f);
        bool fail_start;
} Fake;

/* What the kernel does: an event is delivered only to a socket that is listening. */
static void fake_event(Fake *f, DiscoveryAction a, const char *name) {
        if (!f->started || f->n_events >= ELEMENTSOF(f->events))
                return;
        f->events[f->n_events].action = a;
        (void) snprintf(f->events[f->n_events].name, sizeof(f->events[0].name), "%s", name);
        f->n_events++;
}

static int fake_start(void *p) {
        Fake *f = p;

        if (f->fail_start)
                return -EPROTONOSUPPORT;
        f->started = true;
        return 0;
}

static int fake_enumerate(void *p, Discovery *d, DiscoveryFeedFunc feed) {
        _cleanup_strv_free_ char **names = NULL;
        Fake *f = p;
        size_t n;
        int r;

        /* the device list is a snapshot, as udev_enumerate_scan_devices() takes one */
        r = sysfs_list_dir(root_fd, "sys/class/block", &names, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                feed(d, names[i]);
                if (i == 0 && f->during_enumerate)
                        f->during_enumerate(f);
        }
        return (int) n;
}

static int fake_receive(void *p, DiscoveryAction *ret_action, char **ret_name) {
        Fake *f = p;

        if (f->next >= f->n_events)
                return 0;
        *ret_name = strdup(f->events[f->next].name);
        if (!*ret_name)
                return -ENOMEM;
        *ret_action = f->events[f->next++].action;
        return 1;
}

static int fake_get_fd(void *p) {
        return -EBADF;
}

static void fake_stop(void *p) {
        ((Fake *) p)->started = false;
}

static void fake_free(void *p) {
}

static const DiscoveryBackend fake_ops = {
        .start = fake_start,
        .enumerate = fake_enumerate,
        .receive = fake_receive,
        .get_fd = fake_get_fd,
        .stop = fake_stop,
        .free = fake_free,
};

/* ---- helpers over the change set ------------------------------------------------------------ */

static const InventoryChange *change_of(Inventory *inv, const char *name) {
        size_t n;
        const InventoryChange *c = inventory_get_changes(inv, &n);

        for (size_t i = 0; i < n; i++)
                if (strcmp(c[i].volume->name, name) == 0)
                        return &c[i];
        return NULL;
}

static size_t n_changes(Inventory *inv) {
        size_t n;

        (void) inventory_get_changes(inv, &n);
        return n;
}

static void during_coldplug(Fake *f) {
        /* a disk hot-added after the enumeration took its list, before it finished */
        add_disk("vdc", 32);
        fake_event(f, DISCOVERY_ADD, "vdc");
}

/* coldplug: the enumeration's snapshot and the event that came while it ran; the handles of
 * md0 and vda for the steps after */
static void seq_coldplug(Inventory *inv, Discovery *d, Fake *fake, Volume **ret_md0,
                         Volume **ret_vda) {
        const InventoryChange *c;

        is_int(discovery_start(d), 0, "start: monitor, then enumerate");
        is_int((int) inventory_queued(inv), 3, "the enumeration's snapshot queued md0 vda vdb");
        is_int(inventory_size(inv), 0, "queueing reads nothing");
        is_int(discovery_process(d), 1, "the event that came during the enumeration is there");
        is_int((int) inventory_queued(inv), 4, "vdc queued too");
        is_int(inventory_flush(inv, 0), 0, "flush all: nothing left");
        is_int(inventory_size(inv), 4, "md0 vda vdb vdc");
        ok(inventory_get(inv, "vdc") != NULL, "monitor-before-enumerate: vdc not lost");
        is_int((int) n_changes(inv), 4, "four records");
        c = change_of(inv, "md0");
        ok(c && c->type == INVENTORY_VOLUME_ADDED && c->what == INVENTORY_CHANGE_ALL,
           "md0 added (all bits)");
        ok(strv_contains(inventory_get(inv, "vda")->holders, "md0"), "one relink: vda held by md0");
        *ret_md0 = inventory_get(inv, "md0");
        *ret_vda = inventory_get(inv, "vda");
        inventory_clear_changes(inv);
        is_int((int) n_changes(inv), 0, "cleared");
        fake->during_enumerate = NULL;
}

/* the same enumeration again (safety net): nothing changed, nothing reported */
static void seq_reenumerate(Inventory *inv, Discovery *d, Volume *md0, Volume *vda) {
        is_int(discovery_enumerate(d), 4, "re-enumerate");
        is_int(inventory_flush(inv, 0), 0, "flush");
        is_int((int) n_changes(inv), 0, "unchanged devices are not reported");
        ok(inventory_get(inv, "md0") == md0 && inventory_get(inv, "vda") == vda,
           "re-read in place: same handles");
}

/* vdb fails: md shows it faulty, degraded 1; a change uevent of md0 */
static void seq_member_fails(Inventory *inv, Discovery *d, Fake *fake, Volume *md0) {
        const InventoryChange *c;

        put("sys/devices/virtual/block/md0/md/dev-vdb/state", "faulty\n");
        put("sys/devices/virtual/block/md0/md/degraded", "1\n");
        fake_event(fake, DISCOVERY_CHANGE, "md0");
        fake_event(fake, DISCOVERY_CHANGE, "md0");
        is_int(discovery_process(d), 2, "two change events");
        is_int((int) inventory_queued(inv), 1, "coalesced into one queued name");
        is_int(inventory_flush(inv, 0), 0, "flush");
        c = change_of(inv, "md0");
        ok(c && c->type == INVENTORY_VOLUME_CHANGED, "md0 changed");
        ok(c && (c->what & INVENTORY_CHANGE_HEALTH) && (c->what & INVENTORY_CHANGE_MEMBERS),
           "health and members bits");
        ok(c && !(c->what &
                  (INVENTORY_CHANGE_SIZE | INVENTORY_CHANGE_LINKS | INVENTORY_CHANGE_SYNC)),
           "no size/links/sync bits (what=0x%x)", c ? c->what : 0);
        is_int((int) n_changes(inv), 1, "only md0 reported");
        ok(inventory_get(inv, "md0") == md0, "md0 keeps its handle");
        is_int(md0->health, VOLUME_HEALTH_DEGRADED, "the handle shows the new reading");
        inventory_clear_changes(inv);
}

/* a holder appears on md0 (an LV): md0's links change without an event of md0 */
static void seq_holder_appears(Inventory *inv, Discovery *d, Fake *fake, Volume *md0) {
        const InventoryChange *c;

        put("sys/class/block/dm-9/dev", "253:9\n");
        put("sys/class/block/dm-9/slaves/md0", "");
        fake_event(fake, DISCOVERY_ADD, "dm-9");
        (void) discovery_process(d);
        is_int(inventory_flush(inv, 0), 0, "flush");
        c = change_of(inv, "md0");
        ok(c && c->type == INVENTORY_VOLUME_CHANGED && c->what == INVENTORY_CHANGE_LINKS,
           "md0 changed: links only");
        ok(strv_contains(md0->holders, "dm-9"), "md0 held by dm-9");
        c = change_of(inv, "dm-9");
        ok(c && c->type == INVENTORY_VOLUME_ADDED, "dm-9 added");
        inventory_clear_changes(inv);
}

/* vdc unplugged: the handle stays readable until the clear */
static void seq_unplug(Inventory *inv, Discovery *d, Fake *fake) {
        const InventoryChange *c;

        remove_disk("vdc");
        fake_event(fake, DISCOVERY_REMOVE, "vdc");
        (void) discovery_process(d);
        is_int(inventory_flush(inv, 0), 0, "flush");
        c = change_of(inv, "vdc");
        ok(c && c->type == INVENTORY_VOLUME_REMOVED && c->what == 0, "vdc removed");
        is_str(c ? c->volume->name : NULL, "vdc", "removed handle still readable");
        ok(!inventory_get(inv, "vdc"), "vdc no longer in the inventory");
        inventory_clear_changes(inv);
}

/* md0 stopped and re-created under the same name in one batch: a new handle */
static void seq_recreate(Inventory *inv, Discovery *d, Fake *fake, Volume *md0) {
        const InventoryChange *l;
        bool removed_old = false, added_new = false;
        size_t n;

        fake_event(fake, DISCOVERY_REMOVE, "md0");
        fake_event(fake, DISCOVERY_ADD, "md0");
        (void) discovery_process(d);
        is_int(inventory_flush(inv, 0), 0, "flush");
        l = inventory_get_changes(inv, &n);
        for (size_t i = 0; i < n; i++) {
                if (l[i].volume == md0 && l[i].type == INVENTORY_VOLUME_REMOVED)
                        removed_old = true;
                if (l[i].volume != md0 && strcmp(l[i].volume->name, "md0") == 0 &&
                    l[i].type == INVENTORY_VOLUME_ADDED)
                        added_new = true;
        }
        ok(removed_old && added_new, "old md0 handle removed, new one added");
        ok(inventory_get(inv, "md0") && inventory_get(inv, "md0") != md0,
           "inventory_get gives the new handle");
        inventory_clear_changes(inv);
}

/* added and gone within one batch: nothing to tell */
static void seq_added_and_gone(Inventory *inv, Discovery *d, Fake *fake) {
        add_disk("vdx", 99);
        fake_event(fake, DISCOVERY_ADD, "vdx");
        (void) discovery_process(d);
        ok(inventory_device_add(inv, "vdx") == 1, "vdx read at once");
        remove_disk("vdx");
        is_int(inventory_device_remove(inv, "vdx"), 1, "and forgotten");
        ok(!change_of(inv, "vdx"), "added then removed: no record");
        is_int(inventory_flush(inv, 0), 0, "the queued add finds nothing");
        ok(!change_of(inv, "vdx") && !inventory_get(inv, "vdx"), "still nothing");
        inventory_clear_changes(inv);
}

static void test_uevent_sequence(void) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        _cleanup_(discovery_freep) Discovery *d = NULL;
        Fake fake = { .during_enumerate = during_coldplug };
        Volume *md0, *vda;

        use_fixture("md-raid1-idle");
        is_int(inventory_new_for_root(root, &inv), 0, "inventory over a copy of md-raid1-idle");
        is_int(discovery_new_with_backend(&fake_ops, &fake, discovery_inventory_queue_handler, inv,
                                          &d),
               0, "discovery over the fake backend");

        seq_coldplug(inv, d, &fake, &md0, &vda);
        seq_reenumerate(inv, d, md0, vda);
        seq_member_fails(inv, d, &fake, md0);
        seq_holder_appears(inv, d, &fake, md0);
        seq_unplug(inv, d, &fake);
        seq_recreate(inv, d, &fake, md0);
        seq_added_and_gone(inv, d, &fake);
}

static void test_start_failure_and_budget(void) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        _cleanup_(discovery_freep) Discovery *d = NULL;
        Fake fake = { .fail_start = true };
        char name[16];

        use_fixture("md-raid1-idle");
        is_int(inventory_new_for_root(root, &inv), 0, "new");
        is_int(discovery_new_with_backend(&fake_ops, &fake, discovery_inventory_queue_handler, inv,
                                          &d),
               0, "discovery");
        is_int(discovery_start(d), -EPROTONOSUPPORT, "a backend that cannot start fails start");
        is_int((int) inventory_queued(inv), 0, "and nothing was enumerated");
        is_int(discovery_process(d), -EINVAL, "not started");
        is_int(discovery_new_with_backend(NULL, NULL, discovery_inventory_queue_handler, inv,
                                          &(Discovery *){ NULL }),
               -EINVAL, "no backend");

        for (unsigned i = 0; i < 5; i++) {
                (void) snprintf(name, sizeof(name), "loop%u", i);
                add_disk(name, 100 + i);
                is_int(inventory_queue_device(inv, name), 0, "queue %s", name);
        }
        is_int(inventory_queue_device(inv, "../x"), -EINVAL, "path-like name refused");
        is_int(inventory_queue_remove(inv, ""), -EINVAL, "empty name refused");
        is_int(inventory_flush(inv, 2), 3, "budget 2: three left");
        is_int(inventory_size(inv), 2, "two read");
        is_int(inventory_flush(inv, 2), 1, "one left");
        is_int(inventory_flush(inv, 2), 0, "done");
        is_int(inventory_size(inv), 5, "all five");
        is_int((int) n_changes(inv), 5, "five added records over three flushes");
        inventory_clear_changes(inv);
        is_int(inventory_queue_rescan(inv), 8, "rescan queues the 8 names of sys/class/block");
        is_int(inventory_flush(inv, 0), 0, "flush");
        is_int(inventory_size(inv), 8, "md0 vda vdb and five loops");
        is_int((int) n_changes(inv), 3, "three new, five unchanged");
}

static void test_refresh_mdstat(void) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        const InventoryChange *c;
        Volume *md0;

        /* captured: recovery = 8.6% (22528/261120), sync_speed 3754 */
        use_fixture("md-raid1-recover");
        is_int(inventory_new_for_root(root, &inv), 0, "new");
        is_int(inventory_scan(inv), 0, "scan");
        md0 = inventory_get(inv, "md0");
        ok(md0 != NULL, "md0");
        if (!md0)
                return;
        is_double(md0->sync.progress, 22528.0 / 261120.0, 1e-9, "progress from the capture");
        inventory_clear_changes(inv);

        is_int(inventory_refresh_mdstat(inv), 0, "refresh, mdstat unchanged");
        is_int((int) n_changes(inv), 0, "no change");

        put("proc/mdstat", "Personalities : [raid1] [raid6] [raid5] [raid4] \n"
                           "md0 : active raid1 vdb[2] vda[0]\n"
                           "      261120 blocks super 1.2 [2/1] [U_]\n"
                           "      [=========>...........]  recovery = 50.0% (130560/261120) "
                           "finish=0.5min speed=3754K/sec\n"
                           "      \n"
                           "unused devices: <none>\n");
        is_int(inventory_refresh_mdstat(inv), 0, "refresh after the text moved");
        c = change_of(inv, "md0");
        ok(c && c->type == INVENTORY_VOLUME_CHANGED && c->what == INVENTORY_CHANGE_SYNC,
           "md0 changed: sync only");
        ok(inventory_get(inv, "md0") == md0, "same handle");
        is_double(md0->sync.progress, 0.5, 1e-9, "progress 130560/261120");
        is_u64(md0->sync.done_sectors, 130560 * 2, "done = 130560 KiB in sectors");
        /* ETA: (261120 - 130560) KiB at the md0 sync_speed of 3754 KiB/s */
        is_u64(md0->sync.eta_seconds, 130560ULL * 1024 / (3754ULL * 1024), "eta follows");
        ok(inventory_get_mdstat(inv) != NULL, "mdstat kept");

        (void) unlinkat(root_fd, "proc/mdstat", 0);
        is_int(inventory_refresh_mdstat(inv), 0, "no /proc/mdstat: no md, not an error");
        ok(inventory_get_mdstat(inv) == NULL, "mdstat dropped");
        ok(!md0->sync.has_progress || md0->sync.progress != 0.5,
           "figures follow the missing text (sync_completed only)");
}

static void test_refresh_dm_raid(void) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        const InventoryChange *c;
        Volume *lv;

        /* captured: "0 245760 raid raid1 2 aa 30976/245760 resync 0 0 -" */
        use_fixture("lvm-raid1-syncing");
        is_int(inventory_new_for_root(root, &inv), 0, "new");
        is_int(inventory_scan(inv), 0, "scan");
        lv = inventory_get(inv, "dm-4");
        ok(lv && lv->dm_raid, "dm-4 is a dm-raid");
        if (!lv)
                return;
        inventory_clear_changes(inv);
        is_int(inventory_refresh_dm_raid(inv), 1, "one dm-raid volume polled");
        is_int((int) n_changes(inv), 0, "status unchanged: nothing");

        /* leg 1 dies (the lvm-raid1-dead-leg capture's status line) */
        put("dm/vg0-r1.status", "0 245760 raid raid1 2 AD 245760/245760 idle 0 0 -\n");
        is_int(inventory_refresh_dm_raid(inv), 1, "polled again");
        c = change_of(inv, "dm-4");
        ok(c && c->type == INVENTORY_VOLUME_CHANGED, "dm-4 changed");
        ok(c && (c->what & INVENTORY_CHANGE_HEALTH) && (c->what & INVENTORY_CHANGE_MEMBERS) &&
                   (c->what & INVENTORY_CHANGE_SYNC),
           "health, members, sync (what=0x%x)", c ? c->what : 0);
        ok(inventory_get(inv, "dm-4") == lv, "same handle");
        is_int(lv->health, VOLUME_HEALTH_DEGRADED, "one dead leg of two: degraded");
        is_int(lv->degraded, 1, "degraded 1");
        is_str(lv->n_array_members == 2 ? lv->array_members[1].state : NULL, "faulty",
               "leg 1 faulty");
        is_str(lv->sync.action, "idle", "idle");

        (void) unlinkat(root_fd, "dm/vg0-r1.status", 0);
        inventory_clear_changes(inv);
        is_int(inventory_refresh_dm_raid(inv), 1, "status gone");
        is_int(lv->health, VOLUME_HEALTH_UNKNOWN, "unreadable status: health unknown");
        c = change_of(inv, "dm-4");
        ok(c && (c->what & INVENTORY_CHANGE_HEALTH), "health change recorded");
}

/* inventory_refresh_dm_live(): every polled volume re-read when any device's event counter moved
 * (or on the first call), between events only those whose resync runs. */
static void test_refresh_dm_live(void) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        Volume *lv;

        use_fixture("lvm-raid1-syncing");
        is_int(inventory_new_for_root(root, &inv), 0, "new");
        is_int(inventory_scan(inv), 0, "scan");
        lv = inventory_get(inv, "dm-4");
        ok(lv && lv->dm_raid, "dm-4 is a dm-raid");
        if (!lv)
                return;
        is_int(inventory_refresh_dm_live(inv), -EOPNOTSUPP, "no event counters: not supported");
        put("dm/events", "253:0 0\n253:4 1\n");
        is_int(inventory_refresh_dm_live(inv), 1, "first call: every polled volume");
        /* the resync ends without an event seen yet: it runs, so it is re-read anyway */
        put("dm/vg0-r1.status", "0 245760 raid raid1 2 AA 245760/245760 idle 0 0 -\n");
        is_int(inventory_refresh_dm_live(inv), 1, "counters unchanged: the running resync re-read");
        is_str(lv->sync.action, "idle", "its end seen");
        is_int(inventory_refresh_dm_live(inv), 0, "counters unchanged, nothing runs: none re-read");
        put("dm/vg0-r1.status", "0 245760 raid raid1 2 AD 245760/245760 idle 0 0 -\n");
        is_int(inventory_refresh_dm_live(inv), 0, "a leg dies, its event not yet counted");
        is_int(lv->health, VOLUME_HEALTH_OK, "not read: still ok");
        put("dm/events", "253:0 0\n253:4 2\n");
        is_int(inventory_refresh_dm_live(inv), 1, "the event counted: every polled volume");
        is_int(lv->health, VOLUME_HEALTH_DEGRADED, "one dead leg of two: degraded");
        put("dm/events", "253:0 0\n253:4 2\n253:7 0\n");
        is_int(inventory_refresh_dm_live(inv), 1, "a device created: every polled volume");
        put("dm/events", "253:4 two\n");
        is_int(inventory_refresh_dm_live(inv), -EBADMSG, "a malformed counter line refused");
}

static void test_cli_survives_reread(void) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
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
        const InventoryChange *c;
        Volume *sda;

        use_fixture("megaraid-sas");
        is_int(inventory_new_for_root(root, &inv), 0, "new");
        is_int(inventory_scan(inv), 0, "scan");
        inventory_clear_changes(inv);
        is_int(inventory_apply_controller_cli(inv, CONTROLLER_CLI_STORCLI, &l), 1, "CLI applied");
        c = change_of(inv, "sda");
        ok(c && (c->what & INVENTORY_CHANGE_HEALTH) && (c->what & INVENTORY_CHANGE_SYNC) &&
                   (c->what & INVENTORY_CHANGE_OTHER),
           "CLI data recorded as health, sync, other");
        inventory_clear_changes(inv);
        is_int(inventory_apply_controller_cli(inv, CONTROLLER_CLI_STORCLI, &l), 1, "again");
        is_int((int) n_changes(inv), 0, "the same CLI answer changes nothing");

        sda = inventory_get(inv, "sda");
        is_int(inventory_device_change(inv, "sda"), 0, "uevent re-read of sda");
        ok(inventory_get(inv, "sda") == sda, "same handle");
        ok(sda->has_cli, "CLI data kept over the sysfs re-read");
        is_int(sda->health, VOLUME_HEALTH_DEGRADED, "still degraded by the CLI's word");
        is_double(sda->sync.progress, 0.42, 1e-9, "CLI progress kept");
        is_str(sda->level, "RAID1", "CLI level kept");
        is_int((int) n_changes(inv), 0, "and the re-read is no change");
}

typedef struct Dispatch {
        size_t calls, sizes[8];
        bool add_in_handler;
} Dispatch;

static void on_changes(Inventory *inv, const InventoryChange *changes, size_t n, void *userdata) {
        Dispatch *d = userdata;

        if (d->calls < ELEMENTSOF(d->sizes))
                d->sizes[d->calls] = n;
        d->calls++;
        for (size_t i = 0; i < n; i++)
                if (changes[i].type != INVENTORY_VOLUME_ADDED || !changes[i].volume->name)
                        d->calls += 100; /* only additions expected here */
        if (d->add_in_handler) {
                d->add_in_handler = false;
                add_disk("loop9", 109);
                (void) inventory_device_add(inv, "loop9"); /* alters the inventory mid-dispatch */
        }
}

/* inventory_attach_event(): one flush of at most `budget` devices per loop iteration, each change
 * set handed over once; what a handler records is handed over on a later iteration. */
static void test_attach_event(void) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        Dispatch d = {};
        sd_event *e = NULL;
        char name[16];

        use_fixture("md-raid1-idle");
        is_int(inventory_new_for_root(root, &inv), 0, "new");
        ok(sd_event_new(&e) >= 0, "event loop");
        is_int(inventory_attach_event(inv, e, 2, on_changes, &d), 0, "attach, budget 2");
        is_int(inventory_attach_event(inv, e, 2, on_changes, &d), -EBUSY, "once");
        for (unsigned i = 0; i < 5; i++) {
                (void) snprintf(name, sizeof(name), "loop%u", i);
                add_disk(name, 100 + i);
                (void) inventory_queue_device(inv, name);
        }
        d.add_in_handler = true;
        for (int i = 0; i < 10; i++)
                (void) sd_event_run(e, 10 * USEC_PER_MSEC);
        is_int((int) d.calls, 3, "three dispatches");
        is_int((int) d.sizes[0], 2, "iteration 1: two devices");
        is_int((int) d.sizes[1], 3, "iteration 2: the one the handler added, and two more");
        is_int((int) d.sizes[2], 1, "iteration 3: the last one");
        is_int((int) inventory_queued(inv), 0, "queue drained");
        is_int(inventory_size(inv), 6, "five loops and loop9");
        is_int((int) n_changes(inv), 0, "every set handed over and cleared");
        inv = inventory_free(inv); /* releases its sources before the loop goes */
        sd_event_unref(e);
}

/* 1000 hotplug events over a few names, flushed in small batches: every live handle must stay
 * the one its ADDED record gave, readable, and every REMOVED record must name the handle that
 * was live. ASan (dev build) catches any use of a freed handle. */
static void test_stable_handles(void) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        Volume *live[8] = {}, *md0, *vda;
        bool present[8] = {};
        unsigned seed = 12345, events = 0, bad = 0;
        char name[16];

        use_fixture("md-raid1-idle");
        is_int(inventory_new_for_root(root, &inv), 0, "new");
        is_int(inventory_scan(inv), 0, "scan");
        md0 = inventory_get(inv, "md0");
        vda = inventory_get(inv, "vda");
        inventory_clear_changes(inv);

        while (events < 1000) {
                size_t n;
                const InventoryChange *c;

                for (int k = 0; k < 5 && events < 1000; k++, events++) {
                        unsigned i;

                        seed = seed * 1103515245 + 12345;
                        i = (seed >> 16) % ELEMENTSOF(live);
                        (void) snprintf(name, sizeof(name), "loop%u", i);
                        if (present[i]) {
                                remove_disk(name);
                                (void) inventory_queue_remove(inv, name);
                        } else {
                                add_disk(name, 200 + i);
                                (void) inventory_queue_device(inv, name);
                        }
                        present[i] = !present[i];
                }
                while (inventory_flush(inv, 3) > 0)
                        ;
                c = inventory_get_changes(inv, &n);
                for (size_t j = 0; j < n; j++) {
                        unsigned i;

                        if (sscanf(c[j].volume->name, "loop%u", &i) != 1 || i >= ELEMENTSOF(live)) {
                                if (c[j].what != INVENTORY_CHANGE_LINKS)
                                        bad++;
                                continue;
                        }
                        if (c[j].type == INVENTORY_VOLUME_ADDED) {
                                if (live[i])
                                        bad++;
                                live[i] = c[j].volume;
                        } else if (c[j].type == INVENTORY_VOLUME_REMOVED) {
                                if (live[i] != c[j].volume)
                                        bad++;
                                live[i] = NULL;
                        }
                }
                for (unsigned i = 0; i < ELEMENTSOF(live); i++) {
                        (void) snprintf(name, sizeof(name), "loop%u", i);
                        if (inventory_get(inv, name) != live[i] || (live[i] && !present[i]) ||
                            (live[i] && strcmp(live[i]->name, name) != 0))
                                bad++;
                }
                if (inventory_get(inv, "md0") != md0 || inventory_get(inv, "vda") != vda ||
                    strcmp(md0->name, "md0") != 0 || !strv_contains(vda->holders, "md0"))
                        bad++;
                inventory_clear_changes(inv);
        }
        is_int((int) events, 1000, "1000 add/remove events");
        is_int((int) bad, 0, "every handle stable and accounted for");
}

int main(void) {
        if (!mkdtemp(root))
                return tap_skip_all("mkdtemp failed");
        root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (root_fd < 0)
                return tap_skip_all("cannot open the temp dir");

        test_uevent_sequence();
        test_start_failure_and_budget();
        test_refresh_mdstat();
        test_refresh_dm_raid();
        test_refresh_dm_live();
        test_cli_survives_reread();
        test_attach_event();
        test_stable_handles();

        safe_close(root_fd);
        sh("rm -rf '%s'", root);
        return tap_done();
}

/* SPDX-License-Identifier: MIT */
/* The library's md monitor over an Inventory, on copies of captured fixture trees (see each
 * tree's SOURCE): md-raid1-delayed has md0 resyncing at 12.5% and md1 queued behind it, so
 * following both must give md0 "started resync" (already running) and md1 "delayed"; the filter
 * follows only the named array; the inventory's change set drives what is followed (REMOVED ->
 * dropped, ADDED -> watched again); a stale handle in a change set is ignored. With
 * MD_MONITOR_DM_RAID, lvm-raid1-syncing's LV is tracked from inventory_refresh_dm_raid(): its
 * captured resync at 30976/245760 is "started", and the status of the in-sync capture
 * ("AA 245760/245760 idle") finishes it. Fixture files are regular files, so md-watch sees them
 * through its safety-net interval here; EPOLLPRI is covered by the VM suite. The live timer:
 * a running resync and a frozen one are re-read with no notification (test_live, test_frozen). */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/macro.h"
#include "basic/sysfs.h"
#include "core/inventory.h"
#include "core/md-monitor.h"
#include "tap.h"

static char root[] = "/tmp/test-md-monitor-XXXXXX";

typedef struct Seen {
        char lines[64][96];
        size_t n;
} Seen;

static void on_event(MdMonitor *m, const MdMonitorEvent *ev, void *userdata) {
        Seen *s = userdata;

        if (s->n >= ELEMENTSOF(s->lines))
                return;
        if (ev->type == MD_MONITOR_REBUILD)
                (void) snprintf(s->lines[s->n++], sizeof(s->lines[0]), "%s %s %s", ev->array,
                                rebuild_event_type_to_string(ev->rebuild->type),
                                rebuild_operation_to_string(ev->rebuild->operation));
        else
                (void) snprintf(s->lines[s->n++], sizeof(s->lines[0]), "%s %s", ev->array,
                                md_monitor_event_type_to_string(ev->type));
}

static bool seen(const Seen *s, const char *line) {
        for (size_t i = 0; i < s->n; i++)
                if (strcmp(s->lines[i], line) == 0)
                        return true;
        return false;
}

/* Run the loop until `line` was seen (max ~5 s). */
static bool run_until(sd_event *e, const Seen *s, const char *line) {
        for (int i = 0; i < 250 && !seen(s, line); i++)
                (void) sd_event_run(e, 20 * USEC_PER_MSEC);
        return seen(s, line);
}

static void use_fixture(const char *scenario) {
        const char *fixtures = getenv("STORPULSE_FIXTURES");
        char cmd[1024];

        (void) snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir '%s' && cp -a '%s/%s/.' '%s/'",
                        root, root, fixtures ? fixtures : "tests/fixtures", scenario, root);
        if (system(cmd) != 0) {
                ok(0, "%s", cmd);
                exit(1);
        }
}

static Inventory *scan(void) {
        Inventory *inv = NULL;

        if (inventory_new_for_root(root, &inv) < 0 || inventory_scan(inv) < 0) {
                ok(0, "scan %s", root);
                exit(1);
        }
        return inv;
}

/* md0 resyncing and md1 delayed behind it, both followed from the inventory */
static void md_follow_both(sd_event *e, MdMonitor *m, Seen *s) {
        RebuildStatus st;

        is_int((int) md_monitor_size(m), 0, "nothing followed before sync");
        is_int(md_monitor_sync(m), 2, "sync: md0 and md1 from the inventory");
        ok(run_until(e, s, "md0 watched"), "md0 watched");
        ok(run_until(e, s, "md1 watched"), "md1 watched");
        ok(run_until(e, s, "md0 started resync"), "md0: resync already running");
        ok(run_until(e, s, "md1 delayed resync"), "md1: delayed");
        is_int(md_monitor_get_status(m, "md0", now(CLOCK_MONOTONIC), &st), 0, "status of md0");
        is_int(st.phase, REBUILD_PHASE_RUNNING, "md0 running");
        is_int(st.operation, REBUILD_OP_RESYNC, "md0 resync");
        is_double(st.progress, 32640.0 / 261120.0, 1e-9, "progress from /proc/mdstat");
        is_int(md_monitor_get_status(m, "sda", 0, &st), -ENOENT, "a disk is not followed");
}

/* md1 vanishes from the inventory: the change set drops it; it comes back: watched again */
static void md_remove_and_readd(sd_event *e, Inventory *inv, MdMonitor *m, Seen *s) {
        const InventoryChange *c;
        size_t n;

        inventory_clear_changes(inv);
        is_int(inventory_device_remove(inv, "md1"), 1, "inventory forgets md1");
        c = inventory_get_changes(inv, &n);
        is_int(md_monitor_apply_changes(m, c, n), 0, "apply the change set");
        ok(seen(s, "md1 dropped"), "md1 dropped");
        is_int((int) md_monitor_size(m), 1, "one followed");
        inventory_clear_changes(inv);

        /* and comes back: watched again */
        is_int(inventory_device_add(inv, "md1"), 1, "md1 read again");
        c = inventory_get_changes(inv, &n);
        is_int(md_monitor_apply_changes(m, c, n), 0, "apply");
        is_int((int) md_monitor_size(m), 2, "two followed");
        s->n = 0;
        ok(run_until(e, s, "md1 watched"), "md1 watched again");
        ok(run_until(e, s, "md1 delayed resync"), "its fresh tracker reports the delay again");
        inventory_clear_changes(inv);
}

/* md0 without progress in /proc/mdstat (md1's resync delayed behind it) */
static const char MDSTAT_MD0_IDLE[] = "Personalities : [raid1] \n"
                                      "md1 : active raid1 sdb2[1] sda2[0]\n"
                                      "      261120 blocks super 1.2 [2/2] [UU]\n"
                                      "        resync=DELAYED\n      \n"
                                      "md0 : active raid1 sdb1[1] sda1[0]\n"
                                      "      261120 blocks super 1.2 [2/2] [UU]\n      \n"
                                      "unused devices: <none>\n";

/* the end of md0's resync as the kernel shows it: sync_action idle, mdstat without progress */
static bool write_md0_finished(void) {
        _cleanup_close_ int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        const char *mdstat = MDSTAT_MD0_IDLE;

        return fd >= 0 && write_file_atomic_at(fd, "proc/mdstat", mdstat, strlen(mdstat)) >= 0 &&
               write_file_atomic_at(fd, "sys/class/block/md0/md/sync_completed", "none\n", 5) >=
                       0 &&
               write_file_atomic_at(fd, "sys/class/block/md0/md/resync_start", "none\n", 5) >= 0 &&
               write_file_atomic_at(fd, "sys/class/block/md0/md/sync_action", "idle\n", 5) >= 0;
}

/* the resync of md0 ends */
static void md_resync_finishes(sd_event *e, Inventory *inv, MdMonitor *m, Seen *s) {
        const InventoryChange *c;
        size_t n;

        s->n = 0;
        ok(write_md0_finished(), "md0 finishes");
        ok(run_until(e, s, "md0 finished resync"), "md0's resync finished (resync_start none)");
        ok(!seen(s, "md0 interrupted resync"), "not taken for an interruption");
        ok(inventory_get(inv, "md0") && inventory_get(inv, "md0")->sync.action &&
                   strcmp(inventory_get(inv, "md0")->sync.action, "idle") == 0,
           "the inventory's md0 shows the reading the tracker saw");
        c = inventory_get_changes(inv, &n);
        ok(n > 0, "the monitor's re-read is in the inventory's change set");
        is_int(md_monitor_apply_changes(m, c, n), 0, "handing it back changes nothing");
        inventory_clear_changes(inv);
}

/* a filter naming md1: md0 left alone */
static void md_filter(sd_event *e, Inventory *inv, Seen *s) {
        _cleanup_(md_monitor_freep) MdMonitor *m = NULL;

        s->n = 0;
        is_int(md_monitor_new(e, inv, 50 * USEC_PER_MSEC, (char *[]){ (char *) "md1", NULL }, 0,
                              on_event, s, &m),
               0, "new, only md1");
        is_int(md_monitor_sync(m), 1, "only md1 followed");
        ok(run_until(e, s, "md1 watched") && !seen(s, "md0 watched"), "md0 left alone");
}

static void test_md(void) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        _cleanup_(md_monitor_freep) MdMonitor *m = NULL;
        sd_event *e = NULL;
        Seen s = {};

        use_fixture("md-raid1-delayed");
        inv = scan();
        ok(sd_event_new(&e) >= 0, "event loop");
        is_int(md_monitor_new(NULL, inv, 0, NULL, 0, on_event, &s, &m), -EINVAL, "loop required");
        is_int(md_monitor_new(e, inv, 50 * USEC_PER_MSEC, NULL, 0, on_event, &s, &m), 0, "new");
        md_follow_both(e, m, &s);
        md_remove_and_readd(e, inv, m, &s);
        md_resync_finishes(e, inv, m, &s);
        m = md_monitor_free(m);
        md_filter(e, inv, &s);
        sd_event_unref(e);
}

static void test_dm_raid(void) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        _cleanup_(md_monitor_freep) MdMonitor *m = NULL;
        const char *insync = "0 245760 raid raid1 2 AA 245760/245760 idle 0 0 -\n";
        const InventoryChange *c;
        sd_event *e = NULL;
        Seen s = {};
        size_t n;
        int fd;

        use_fixture("lvm-raid1-syncing");
        inv = scan();
        ok(sd_event_new(&e) >= 0, "event loop");
        is_int(md_monitor_new(e, inv, 0, NULL, MD_MONITOR_DM_RAID, on_event, &s, &m), 0, "new");
        is_int(md_monitor_sync(m), 1, "dm-4 followed (its sub-LVs and the linear LV not)");
        ok(seen(&s, "dm-4 watched") && seen(&s, "dm-4 started resync"), "dm-4 resync started");
        inventory_clear_changes(inv);

        fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        ok(fd >= 0 && write_file_atomic_at(fd, "dm/vg0-r1.status", insync, strlen(insync)) >= 0,
           "dm-4's status: in sync");
        safe_close(fd);
        is_int(inventory_refresh_dm_raid(inv), 1, "poll dm-raid");
        c = inventory_get_changes(inv, &n);
        is_int(md_monitor_apply_changes(m, c, n), 0, "apply");
        ok(seen(&s, "dm-4 finished resync"), "resync finished");
        inventory_clear_changes(inv);

        m = md_monitor_free(m);
        s.n = 0;
        is_int(md_monitor_new(e, inv, 0, NULL, 0, on_event, &s, &m), 0, "new without the flag");
        is_int(md_monitor_sync(m), 0, "dm-raid not followed without MD_MONITOR_DM_RAID");
        m = md_monitor_free(m);
        sd_event_unref(e);
}

/* The live view: md notifies at checkpoints only, /proc/mdstat's progress moves in between. With
 * no safety net at all (interval 0), a running resync is still re-read: its progress follows the
 * mdstat text within the live period. */
static void test_live(void) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        _cleanup_(md_monitor_freep) MdMonitor *m = NULL;
        _cleanup_close_ int fd = -EBADF;
        sd_event *e = NULL;
        Seen s = {};
        const Volume *v;
        const char *mdstat = "Personalities : [raid1] \n"
                             "md1 : active raid1 sdb2[1] sda2[0]\n"
                             "      261120 blocks super 1.2 [2/2] [UU]\n"
                             "        resync=DELAYED\n      \n"
                             "md0 : active raid1 sdb1[1] sda1[0]\n"
                             "      261120 blocks super 1.2 [2/2] [UU]\n"
                             "      [=====>...............]  resync = 25.0% (65280/261120) "
                             "finish=0.5min speed=6528K/sec\n      \n"
                             "unused devices: <none>\n";

        use_fixture("md-raid1-delayed");
        fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        ok(fd >= 0, "fixture root");
        inv = scan();
        ok(sd_event_new(&e) >= 0, "event loop");
        is_int(md_monitor_new(e, inv, 0, NULL, 0, on_event, &s, &m), 0, "new, no safety net");
        is_int(md_monitor_sync(m), 2, "md0 and md1 followed");
        ok(run_until(e, &s, "md0 started resync"), "md0 resyncing");
        v = inventory_get(inv, "md0");
        is_double(v ? v->sync.progress : -1, 32640.0 / 261120.0, 1e-9, "progress as captured");
        ok(write_file_atomic_at(fd, "proc/mdstat", mdstat, strlen(mdstat)) >= 0,
           "mdstat moves on, no notification");
        for (int i = 0; i < 100; i++) {
                v = inventory_get(inv, "md0");
                if (v && v->sync.progress > 0.2)
                        break;
                (void) sd_event_run(e, 20 * USEC_PER_MSEC);
        }
        v = inventory_get(inv, "md0");
        is_double(v ? v->sync.progress : -1, 0.25, 1e-9,
                  "the running resync re-read: a quarter done");

        /* a speed limit is shown like the rest: its change is a change of the reading */
        {
                const InventoryChange *c;
                size_t n = 0;
                bool md1 = false;

                inventory_clear_changes(inv);
                ok(write_file_atomic_at(fd, "sys/class/block/md1/md/sync_speed_max",
                                        "4000 (local)\n", 13) >= 0,
                   "md1's sync_speed_max set");
                is_int(inventory_device_change(inv, "md1"), 0, "md1 re-read");
                c = inventory_get_changes(inv, &n);
                for (size_t i = 0; i < n; i++)
                        md1 = md1 || (c[i].type == INVENTORY_VOLUME_CHANGED &&
                                      strcmp(c[i].volume->name, "md1") == 0);
                ok(md1, "the new speed limit is a change of md1 (so the daemon publishes it)");
                inventory_clear_changes(inv);
        }
        m = md_monitor_free(m);
        sd_event_unref(e);
}

/* Run the loop for `usec` of wall time. */
static void run_for(sd_event *e, usec_t usec) {
        usec_t end = now(CLOCK_MONOTONIC) + usec;

        while (now(CLOCK_MONOTONIC) < end)
                (void) sd_event_run(e, 20 * USEC_PER_MSEC);
}

/* A frozen array (an administrator wrote "frozen" to sync_action mid-resync) can move at any
 * moment: it is re-read like a running one, past the settle window of its last notification, so
 * the resync resuming shows within the live period even if no notification is seen. */
static void test_frozen(void) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        _cleanup_(md_monitor_freep) MdMonitor *m = NULL;
        _cleanup_close_ int fd = -EBADF;
        sd_event *e = NULL;
        Seen s = {};
        const Volume *v;
        const char *md = "sys/class/block/md0/md/";
        const char *frozen = MDSTAT_MD0_IDLE;
        const char *resumed = "Personalities : [raid1] \n"
                              "md1 : active raid1 sdb2[1] sda2[0]\n"
                              "      261120 blocks super 1.2 [2/2] [UU]\n"
                              "        resync=DELAYED\n      \n"
                              "md0 : active raid1 sdb1[1] sda1[0]\n"
                              "      261120 blocks super 1.2 [2/2] [UU]\n"
                              "      [=====>...............]  resync = 25.0% (65280/261120) "
                              "finish=0.5min speed=6528K/sec\n      \n"
                              "unused devices: <none>\n";
        char p[128];

        use_fixture("md-raid1-delayed");
        fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        ok(fd >= 0, "fixture root");
        inv = scan();
        ok(sd_event_new(&e) >= 0, "event loop");
        is_int(md_monitor_new(e, inv, 0, NULL, 0, on_event, &s, &m), 0, "new, no safety net");
        is_int(md_monitor_sync(m), 2, "md0 and md1 followed");
        ok(run_until(e, &s, "md0 started resync"), "md0 resyncing");
        (void) snprintf(p, sizeof(p), "%ssync_action", md);
        ok(write_file_atomic_at(fd, p, "frozen\n", 7) >= 0, "md0 frozen");
        (void) snprintf(p, sizeof(p), "%ssync_completed", md);
        ok(write_file_atomic_at(fd, p, "none\n", 5) >= 0 &&
                   write_file_atomic_at(fd, "proc/mdstat", frozen, strlen(frozen)) >= 0,
           "no progress while frozen");
        is_int(inventory_device_change(inv, "md0"), 0, "md0 re-read (as on its notification)");
        v = inventory_get(inv, "md0");
        is_str(v && v->sync.action ? v->sync.action : "?", "frozen", "md0 shown frozen");
        /* past the settle window of every notification so far (MD_MONITOR_SETTLE_USEC, 3 s) */
        run_for(e, 3500 * USEC_PER_MSEC);
        (void) snprintf(p, sizeof(p), "%ssync_action", md);
        ok(write_file_atomic_at(fd, p, "resync\n", 7) >= 0, "md0 unfrozen, no notification");
        (void) snprintf(p, sizeof(p), "%ssync_completed", md);
        ok(write_file_atomic_at(fd, p, "130560 / 522240\n", 16) >= 0 &&
                   write_file_atomic_at(fd, "proc/mdstat", resumed, strlen(resumed)) >= 0,
           "the resync resumes at a quarter");
        for (int i = 0; i < 75; i++) {
                v = inventory_get(inv, "md0");
                if (v && v->sync.action && strcmp(v->sync.action, "resync") == 0)
                        break;
                (void) sd_event_run(e, 20 * USEC_PER_MSEC);
        }
        v = inventory_get(inv, "md0");
        is_str(v && v->sync.action ? v->sync.action : "?", "resync",
               "the frozen array was re-read: resync shown again");
        is_double(v ? v->sync.progress : -1, 0.25, 1e-9, "at a quarter");
        m = md_monitor_free(m);
        sd_event_unref(e);
}

int main(void) {
        char cmd[128];

        if (!mkdtemp(root))
                return tap_skip_all("mkdtemp failed");
        test_md();
        test_dm_raid();
        test_live();
        test_frozen();
        (void) snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
        is_int(system(cmd), 0, "cleanup");
        return tap_done();
}

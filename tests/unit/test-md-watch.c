/* SPDX-License-Identifier: MIT */
/* md-watch against a fake md sysfs tree in a temp dir. Regular files cannot be registered with
 * epoll (EPERM), so here every attribute takes the documented safety-net path (re-open by path,
 * compare text); the test checks that fallback and the change detection: attribute changes
 * (coalesced per pass), members appearing/leaving, arrays appearing/vanishing, reports only from
 * the event loop, and no reading at all when the interval is off. The EPOLLPRI path itself needs
 * a real md kernel: tests/vm runs `storpulsectl watch` against real arrays. */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/macro.h"
#include "sources/md-watch.h"
#include "basic/sysfs.h"
#include "tap.h"

static char log_buf[4096];
static unsigned n_reports;

static void handler(MdWatch *w, const char *array, MdWatchChange change, unsigned attrs,
                    void *userdata) {
        size_t len = strlen(log_buf);

        n_reports++;
        (void) snprintf(log_buf + len, sizeof(log_buf) - len, "%s%s:%s:%02x", len ? " " : "",
                        md_watch_change_to_string(change), array, attrs);
}

static void log_reset(void) {
        log_buf[0] = 0;
        n_reports = 0;
}

/* Run the loop until at least one report arrived (or ~2 s passed), then a little more so that
 * anything else pending is delivered too. */
static void run_until_reports(sd_event *e, unsigned n) {
        for (int i = 0; i < 200 && n_reports < n; i++)
                (void) sd_event_run(e, 10 * USEC_PER_MSEC);
        for (int i = 0; i < 5; i++)
                (void) sd_event_run(e, 10 * USEC_PER_MSEC);
}

static void run_until_report(sd_event *e) {
        run_until_reports(e, 1);
}

/* Run the loop for a while (several safety-net periods). */
static void run_for(sd_event *e, int iterations) {
        for (int i = 0; i < iterations; i++)
                (void) sd_event_run(e, 10 * USEC_PER_MSEC);
}

static void put(int root, const char *path, const char *text) {
        if (write_file_atomic_at(root, path, text, strlen(text)) < 0) {
                ok(0, "write %s", path);
                exit(1);
        }
}

/* Overwrite in place (same inode), as opposed to put()'s rename. */
static void put_in_place(int root, const char *path, const char *text) {
        int fd = openat(root, path, O_WRONLY | O_TRUNC | O_CLOEXEC);

        if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t) strlen(text)) {
                ok(0, "write in place %s", path);
                exit(1);
        }
        close(fd);
}

static void make_array(int root, const char *name, const char *const *members) {
        char p[256];

        (void) snprintf(p, sizeof(p), "sys/class/block/%s", name);
        (void) mkdirat(root, p, 0755);
        (void) snprintf(p, sizeof(p), "sys/class/block/%s/md", name);
        (void) mkdirat(root, p, 0755);
#define ATTR(a, v)                                                                                 \
        do {                                                                                       \
                (void) snprintf(p, sizeof(p), "sys/class/block/%s/md/" a, name);                   \
                put(root, p, v);                                                                   \
        } while (0)
        ATTR("array_state", "clean\n");
        ATTR("sync_action", "idle\n");
        ATTR("degraded", "0\n");
        ATTR("sync_completed", "none\n");
        ATTR("level", "raid1\n");
#undef ATTR
        for (size_t i = 0; members && members[i]; i++) {
                (void) snprintf(p, sizeof(p), "sys/class/block/%s/md/dev-%s", name, members[i]);
                (void) mkdirat(root, p, 0755);
                (void) snprintf(p, sizeof(p), "sys/class/block/%s/md/dev-%s/state", name,
                                members[i]);
                put(root, p, "in_sync\n");
        }
}

static int rm_rf(const char *path) {
        char cmd[512];

        (void) snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
        return system(cmd);
}

/* discovery: md0 found (not the disk), reported from the loop only, with its counts */
static void test_discovery_added(sd_event *e, MdWatch *w) {
        unsigned attrs = 0, pollable = 99;

        run_until_report(e);
        is_str(log_buf, "added:md0:3f", "ADDED md0 with all attribute bits");
        is_int(md_watch_get_counts(w, "md0", &attrs, &pollable), 0, "counts");
        is_int(attrs, 6, "4 array attributes + 2 member states");
        is_int(pollable, 0, "regular files: none registered for EPOLLPRI (safety-net fallback)");
        ok(!md_watch_mdstat_pollable(w), "regular-file mdstat not pollable");
        ok(md_watch_get_md_dir_fd(w, "md0") >= 0, "md dir fd available");
        is_int(md_watch_get_md_dir_fd(w, "md9"), -ENOENT, "unknown array: -ENOENT");
}

/* attribute changes: coalesced per pass, rename-replaced or in place; a same value is none */
static void test_attribute_changes(sd_event *e, int root) {
        log_reset();
        run_for(e, 10);
        is_str(log_buf, "", "nothing changed: no report");

        /* Two attributes change together: one coalesced report (rename-replaced files). */
        put(root, "sys/class/block/md0/md/sync_action", "check\n");
        put(root, "sys/class/block/md0/md/sync_completed", "0 / 522240\n");
        run_until_report(e);
        is_str(log_buf, "changed:md0:0a", "sync_action + sync_completed in one report");

        log_reset();
        put_in_place(root, "sys/class/block/md0/md/array_state", "active\n");
        run_until_report(e);
        is_str(log_buf, "changed:md0:01", "array_state changed in place");

        log_reset();
        put(root, "sys/class/block/md0/md/array_state", "active\n");
        run_for(e, 10);
        is_str(log_buf, "", "same value rewritten: no report");
}

/* A member appears, changes state, another leaves. */
static void test_members(sd_event *e, int root, const char *tmpl, MdWatch *w) {
        unsigned attrs = 0;
        char p[512];

        log_reset();
        (void) mkdirat(root, "sys/class/block/md0/md/dev-vdc", 0755);
        put(root, "sys/class/block/md0/md/dev-vdc/state", "spare\n");
        run_until_report(e);
        is_str(log_buf, "changed:md0:20", "new member dev-vdc");
        is_int(md_watch_get_counts(w, "md0", &attrs, NULL), 0, "counts again");
        is_int(attrs, 7, "member state watched");

        log_reset();
        put(root, "sys/class/block/md0/md/dev-vdc/state", "in_sync\n");
        put(root, "sys/class/block/md0/md/degraded", "0\n"); /* unchanged value */
        run_until_report(e);
        is_str(log_buf, "changed:md0:10", "member state changed");

        log_reset();
        (void) snprintf(p, sizeof(p), "%s/sys/class/block/md0/md/dev-vdb", tmpl);
        is_int(rm_rf(p), 0, "remove dev-vdb");
        run_until_report(e);
        is_str(log_buf, "changed:md0:20", "member left");
        is_int(md_watch_get_counts(w, "md0", &attrs, NULL), 0, "counts after removal");
        is_int(attrs, 6, "its state no longer watched");
}

/* Arrays appear and vanish; explicit removal, and names md_watch_add() refuses. */
static void test_arrays(sd_event *e, int root, const char *tmpl, MdWatch *w) {
        char p[512];

        log_reset();
        make_array(root, "md1", NULL);
        run_until_report(e);
        is_str(log_buf, "added:md1:3f", "md1 discovered");

        log_reset();
        (void) snprintf(p, sizeof(p), "%s/sys/class/block/md0", tmpl);
        is_int(rm_rf(p), 0, "remove md0");
        run_until_report(e);
        is_str(log_buf, "removed:md0:00", "md0 vanished");
        is_int((int) md_watch_size(w), 1, "one array left");
        is_int(md_watch_get_md_dir_fd(w, "md0"), -ENOENT, "md0 no longer watched");

        log_reset();
        is_int(md_watch_remove(w, "md1"), 1, "remove md1 explicitly");
        is_int(md_watch_remove(w, "md1"), 0, "second remove: 0");
        run_until_reports(e, 2);
        /* With discovery on, the next pass finds the still existing array again. */
        is_str(log_buf, "removed:md1:00 added:md1:3f",
               "REMOVED reported for md_watch_remove(), then rediscovered");
        is_int(md_watch_add(w, "md7"), -ENOENT, "add of a missing array: -ENOENT");
        is_int(md_watch_add(w, "../md1"), -EINVAL, "path in name: -EINVAL");
        is_int(md_watch_add(w, ""), -EINVAL, "empty name: -EINVAL");
}

/* md_watch with discovery and a 20 ms safety net over the md0 tree */
static void test_discovery(sd_event *e, int root, const char *tmpl) {
        _cleanup_(md_watch_freep) MdWatch *w = NULL;

        is_int(md_watch_new(e, root, 20 * USEC_PER_MSEC, true, handler, NULL, &w), 0,
               "md_watch_new with discovery");
        is_int((int) md_watch_size(w), 1, "discovered one array (not the disk)");
        is_str(log_buf, "", "no report before the loop runs");
        test_discovery_added(e, w);
        test_attribute_changes(e, root);
        test_members(e, root, tmpl, w);
        test_arrays(e, root, tmpl, w);
}

/* A raid0-like array without sync_action/degraded still works; with the interval off
 * nothing is ever re-read until md_watch_recheck(): the interval is the only polling. */
static void test_no_interval(sd_event *e, int root) {
        _cleanup_(md_watch_freep) MdWatch *w = NULL;
        unsigned attrs = 0;

        log_reset();
        make_array(root, "md2", NULL);
        (void) unlinkat(root, "sys/class/block/md2/md/sync_action", 0);
        (void) unlinkat(root, "sys/class/block/md2/md/degraded", 0);
        is_int(md_watch_new(e, root, USEC_INFINITY, false, handler, NULL, &w), 0,
               "md_watch_new, no interval, no discovery");
        is_int((int) md_watch_size(w), 0, "no discovery: nothing watched");
        is_int(md_watch_add(w, "md2"), 1, "add md2");
        is_int(md_watch_add(w, "md2"), 0, "add md2 again: 0");
        is_int(md_watch_get_counts(w, "md2", &attrs, NULL), 0, "md2 counts");
        is_int(attrs, 2, "array_state + sync_completed only");
        run_until_report(e);
        is_str(log_buf, "added:md2:3f", "md2 added");
        log_reset();
        put(root, "sys/class/block/md2/md/array_state", "broken\n");
        run_for(e, 20);
        is_str(log_buf, "", "interval off: no polling");
        is_int(md_watch_recheck(w), 0, "explicit recheck");
        run_until_report(e);
        is_str(log_buf, "changed:md2:01", "recheck finds the change");
        log_reset();
        is_int(md_watch_set_interval(w, 20 * USEC_PER_MSEC), 0, "turn the interval on");
        put(root, "sys/class/block/md2/md/array_state", "clean\n");
        run_until_report(e);
        is_str(log_buf, "changed:md2:01", "interval on: change seen");
        /* Attributes that appear after the watch started (md creates sync_action and degraded
         * once an array being assembled runs) are picked up, and that is a change. */
        log_reset();
        put(root, "sys/class/block/md2/md/sync_action", "resync\n");
        put(root, "sys/class/block/md2/md/degraded", "0\n");
        run_until_report(e);
        is_str(log_buf, "changed:md2:06", "attributes that appeared: a change");
        is_int(md_watch_get_counts(w, "md2", &attrs, NULL), 0, "md2 counts again");
        is_int(attrs, 4, "all four array attributes watched now");
        log_reset();
        put(root, "sys/class/block/md2/md/sync_action", "idle\n");
        run_until_report(e);
        is_str(log_buf, "changed:md2:02", "a change of the new attribute is seen");
}

/* Nothing watched and no discovery: after one pass the safety net sleeps (an idle daemon
 * without md arrays has no timer for it), and the first array added wakes it again. */
static void test_idle_safety_net(sd_event *e, int root) {
        _cleanup_(md_watch_freep) MdWatch *w = NULL;
        int dispatched = 0;

        log_reset();
        is_int(md_watch_new(e, root, 20 * USEC_PER_MSEC, false, handler, NULL, &w), 0,
               "md_watch_new, 20 ms, nothing watched");
        run_for(e, 10);
        for (int i = 0; i < 5; i++)
                dispatched += sd_event_run(e, 30 * USEC_PER_MSEC) > 0;
        is_int(dispatched, 0, "no array: nothing wakes the loop");
        make_array(root, "md3", NULL);
        is_int(md_watch_add(w, "md3"), 1, "add md3");
        run_until_report(e);
        log_reset();
        put(root, "sys/class/block/md3/md/array_state", "broken\n");
        run_until_report(e);
        is_str(log_buf, "changed:md3:01", "the added array woke the safety net");
}

/* A real kernfs file (this kernel has no md, so any block device's "ro" stands in for
 * array_state): it must be registered for EPOLLPRI, and a registered attribute that does
 * not change must not wake the loop (kernfs only reports a change since the last read). */
static void test_kernfs_attribute(sd_event *e, int root) {
        _cleanup_(md_watch_freep) MdWatch *w = NULL;
        unsigned attrs = 0, pollable = 99;
        _cleanup_strv_free_ char **devs = NULL;
        _cleanup_close_ int slash = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        size_t n_devs = 0;
        char target[300];
        int dispatched = 0;

        if (sysfs_list_dir(slash, "sys/class/block", &devs, &n_devs) < 0 || n_devs == 0)
                ok(1, "# SKIP no /sys/class/block entries on this machine");
        else {
                make_array(root, "md3", NULL);
                (void) unlinkat(root, "sys/class/block/md3/md/array_state", 0);
                (void) snprintf(target, sizeof(target), "/sys/class/block/%s/ro", devs[0]);
                is_int(symlinkat(target, root, "sys/class/block/md3/md/array_state"), 0,
                       "array_state -> %s", target);
                log_reset();
                is_int(md_watch_new(e, root, USEC_INFINITY, false, handler, NULL, &w), 0,
                       "md_watch_new over a tree with one kernfs attribute");
                is_int(md_watch_add(w, "md3"), 1, "add md3");
                is_int(md_watch_get_counts(w, "md3", &attrs, &pollable), 0, "counts");
                is_int(pollable, 1, "the kernfs attribute is event-driven (EPOLLPRI)");
                is_int(attrs, 4, "the other three are safety-net only");
                run_until_report(e);
                is_str(log_buf, "added:md3:3f", "md3 added");
                log_reset();
                for (int i = 0; i < 20; i++)
                        dispatched += sd_event_run(e, 10 * USEC_PER_MSEC) > 0;
                is_int(dispatched, 0, "no wake-ups from the registered, unchanged attribute");
                is_str(log_buf, "", "and no report");
        }
}

static void test_change_strings(void) {
        is_str(md_watch_change_to_string(MD_WATCH_ARRAY_REMOVED), "removed", "to_string");
        is_int(md_watch_change_from_string("added"), MD_WATCH_ARRAY_ADDED, "from_string");
        is_int(md_watch_change_from_string("x"), -EINVAL, "from_string unknown");
        ok(md_watch_change_to_string(_MD_WATCH_CHANGE_MAX) == NULL, "to_string out of range");
}

int main(void) {
        static const char *const md0_members[] = { "vda", "vdb", NULL };
        char tmpl[] = "/tmp/test-md-watch-XXXXXX";
        _cleanup_close_ int root = -EBADF;
        sd_event *e = NULL;

        ok(mkdtemp(tmpl) != NULL, "mkdtemp");
        root = open(tmpl, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        ok(root >= 0, "open temp root");
        (void) mkdirat(root, "sys", 0755);
        (void) mkdirat(root, "sys/class", 0755);
        (void) mkdirat(root, "sys/class/block", 0755);
        (void) mkdirat(root, "sys/class/block/vda", 0755); /* a disk, not an array */
        (void) mkdirat(root, "proc", 0755);
        put(root, "proc/mdstat", "Personalities : [raid1]\nunused devices: <none>\n");
        make_array(root, "md0", md0_members);

        is_int(sd_event_new(&e), 0, "sd_event_new");
        test_discovery(e, root, tmpl);
        test_no_interval(e, root);
        test_idle_safety_net(e, root);
        test_kernfs_attribute(e, root);
        test_change_strings();

        sd_event_unref(e);
        is_int(rm_rf(tmpl), 0, "cleanup");
        return tap_done();
}

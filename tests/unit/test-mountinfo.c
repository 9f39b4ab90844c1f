/* SPDX-License-Identifier: MIT */
/* mountinfo_find() over a table written by hand in proc(5)'s format: the longest mount point by
 * whole components wins, stacked mounts resolve to the top one, escapes are undone, and lines
 * of another shape are skipped rather than trusted. SOURCE: proc(5), "/proc/pid/mountinfo". */

#include "model/mountinfo.h"
#include "tap.h"

static const char table[] =
        "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
        "30 22 9:0 / /srv rw,relatime shared:7 - ext4 /dev/md0 rw\n"
        "31 30 253:2 / /srv/data rw,relatime shared:8 master:3 - xfs /dev/mapper/vg-data rw\n"
        "32 22 0:45 / /tmp rw - tmpfs tmpfs rw\n"
        "33 22 9:1 / /srv/my\\040files rw - ext4 /dev/md1 rw\n"
        "34 22 9:2 / /stacked rw - ext4 /dev/md2 rw\n"
        "35 34 9:3 / /stacked rw - ext4 /dev/md3 rw\n"
        "36 22 7:0 / /broken rw ext4 /dev/loop0 rw\n"   /* no " - " separator: skipped */
        "37 22 x:y / /bad rw - ext4 /dev/x rw\n"        /* no major:minor: skipped */
        "38 22 9:4 / /esc\\09 rw - ext4 /dev/md4 rw\n"  /* a bad escape: skipped */
        "39 22 9:5 /sub /bind rw - ext4 /dev/md5 rw\n"; /* a bind mount of a subdirectory */

static void expect(const char *path, unsigned major, unsigned minor, const char *fstype) {
        MountinfoEntry e = {};

        is_int(mountinfo_find(table, path, &e), 0, "%s: found", path);
        ok(e.major == major && e.minor == minor, "%s: %u:%u (got %u:%u)", path, major, minor,
           e.major, e.minor);
        is_str(e.fstype, fstype, "%s: fstype", path);
}

int main(void) {
        MountinfoEntry e;

        expect("/", 8, 1, "ext4");
        expect("/srv", 9, 0, "ext4");
        expect("/srv/", 9, 0, "ext4");
        expect("/srv/other/dir", 9, 0, "ext4");
        expect("/srv/data", 253, 2, "xfs");
        expect("/srv/data/deep/er", 253, 2, "xfs");
        expect("/srvx", 8, 1, "ext4"); /* not below /srv: a component must end */
        expect("/tmp/x", 0, 45, "tmpfs");
        expect("/srv/my files/x", 9, 1, "ext4");
        expect("/stacked/a", 9, 3, "ext4"); /* the later mount is on top */
        expect("/broken", 8, 1, "ext4");
        expect("/bad", 8, 1, "ext4");
        expect("/esc\t", 8, 1, "ext4");
        expect("/bind/x", 9, 5, "ext4");
        is_int(mountinfo_find(table, "relative/path", &e), -EINVAL, "a relative path: -EINVAL");
        is_int(mountinfo_find("", "/srv", &e), -ENOENT, "an empty table: -ENOENT");
        is_int(mountinfo_find("garbage\nmore garbage - x\n", "/", &e), -ENOENT,
               "garbage only: -ENOENT");
        return tap_done();
}

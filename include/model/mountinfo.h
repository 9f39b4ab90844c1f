/* SPDX-License-Identifier: MIT */
#pragma once

/* /proc/self/mountinfo (proc(5)): which mounted filesystem, and so which block device, holds a
 * directory, found by its path without touching the filesystem (a stat() of a directory on a
 * hung filesystem blocks; the mount table does not). Pure: text in, answer out. */

#include <errno.h>

#include "basic/macro.h"

typedef struct MountinfoEntry {
        unsigned major, minor; /* st_dev of the filesystem (0:N for one without a device) */
        char fstype[32];
} MountinfoEntry;

/* The mount holding the absolute path `path`: the longest mount point equal to path or a parent
 * of it by whole components ("/srv" holds "/srv/data", not "/srvx"); of mounts stacked on one
 * point the last line wins (it is on top). Mount points are unescaped (\040 space, \011 tab,
 * \012 newline, \134 backslash) before matching; malformed lines are skipped. Returns 0 and
 * *ret, -ENOENT when no line matches, -EINVAL for a path that is not absolute. */
int mountinfo_find(const char *text, const char *path, MountinfoEntry *ret);

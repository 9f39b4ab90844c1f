/* SPDX-License-Identifier: MIT */
#pragma once

/* Where a block device's udev properties (DM_NAME, DM_VG_NAME, ID_SERIAL, ...) come from. The
 * inventory asks a UdevPropsProvider by device number, so the same code runs on the live system
 * (libudev: udev_device_new_from_devnum() and its properties list; libudev alone knows the
 * database format) and on a fixture tree, where the "E:KEY=value" lines of
 * <root>/run/udev/data/b<major>:<minor> are read. That private file format is known only to the
 * fixture provider. Neither provider opens a block device. */

#include "basic/macro.h"

/* Properties of block device major:minor as a NULL-terminated strv of "KEY=value" (no
 * duplicates), or NULL (returning 0) when udev knows nothing about it. Returns 0 or -errno
 * (-ENOMEM; a provider-specific failure to read). *ret is written only on success. */
typedef int (*UdevPropsGetFunc)(void *userdata, unsigned major, unsigned minor, char ***ret);

typedef struct UdevPropsProvider {
        UdevPropsGetFunc get;
        void *userdata;
} UdevPropsProvider;

/* Fixture provider: userdata points to an int holding a root directory fd; parses
 * run/udev/data/b<major>:<minor> below it. A missing file is "nothing known" (0, *ret NULL). */
int udev_props_get_files(void *userdata, unsigned major, unsigned minor, char ***ret);

/* Live provider: userdata is a `struct udev *` (from udev_new(), owned by the caller). A device
 * libudev cannot find (gone since the sysfs read) is "nothing known". Uses only libudev's own
 * database reader; never opens the device. */
int udev_props_get_libudev(void *userdata, unsigned major, unsigned minor, char ***ret);

/* The value of `key` in a "KEY=value" strv as returned above, NULL if absent or empty. Pure. */
const char *udev_props_get_value(char *const *props, const char *key) _pure_;

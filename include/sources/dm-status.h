/* SPDX-License-Identifier: MIT */
#pragma once

/* Where device-mapper table and status text comes from. The inventory asks a DmStatusProvider
 * for "dmsetup status NAME"- and "dmsetup table NAME"-style text (one line per target:
 * "<start> <length> <target> <params>"), so the same code runs on a live system (libdevmapper
 * ioctls on /dev/mapper/control, never a shell-out, never I/O to the mapped device) and on a
 * fixture tree (files <root>/dm/<name>.status and <root>/dm/<name>.table). */

#include "basic/macro.h"
#include "basic/string-table.h"
#include "model/dm-list.h"

typedef enum DmQuery {
        DM_QUERY_STATUS, /* DM_DEVICE_STATUS */
        DM_QUERY_TABLE,  /* DM_DEVICE_TABLE */
        _DM_QUERY_MAX,
        _DM_QUERY_INVALID = -EINVAL,
} DmQuery;

DECLARE_STRING_TABLE_LOOKUP(dm_query, DmQuery);

/* Which dm device a query is about: the kernel's device number (what sysfs showed) and the dm
 * name read with it. The live provider looks the device up by major:minor only, so a rename
 * between the sysfs read and the ioctl can never return another device's text; the fixture
 * provider, which has no device numbers, uses the name. */
typedef struct DmDeviceId {
        const char *name; /* dm name ("vg0-r1"), for the fixture files */
        unsigned major, minor;
} DmDeviceId;

/* Fetch the text for one dm device. Returns 0 and a malloc'd NUL-terminated text (lines ending in
 * '\n', possibly empty for a device without a table) in *ret; -ENOENT if the device or file does
 * not exist, -ENODEV if device-mapper is unavailable, -EINVAL for a bad id or query, other
 * -errno. *ret is written only on success. */
typedef int (*DmStatusGetFunc)(void *userdata, const DmDeviceId *id, DmQuery q, char **ret);

/* Every dm device's event counter (model/dm-list.h): the number of entries with *ret malloc'd,
 * -EOPNOTSUPP where there are none to be had (a fixture, a kernel before 4.14), other -errno. */
typedef int (*DmStatusListFunc)(void *userdata, DmListEntry **ret);

typedef struct DmStatusProvider {
        DmStatusGetFunc get;
        DmStatusListFunc list; /* NULL: not supported */
        void *userdata;
} DmStatusProvider;

/* Live provider: libdevmapper DM_DEVICE_STATUS / DM_DEVICE_TABLE by id->major:minor (no flush,
 * no open count check; id->name is not used). libdevmapper's global log handler is replaced by a
 * silent one once per process (pthread_once), never per call. userdata is unused. The ioctl is on
 * the control node, not the device, and returns without touching a suspended device. */
int dm_status_get_libdm(void *userdata, const DmDeviceId *id, DmQuery q, char **ret);

/* Live event counters: one DM_LIST_DEVICES ioctl on /dev/mapper/control (no device is opened,
 * none is waited on), the buffer grown while the kernel says it is too small. userdata unused. */
int dm_status_list_ioctl(void *userdata, DmListEntry **ret);

/* Fixture provider: userdata is a pointer to an int holding a root directory fd; reads
 * dm/<id->name>.status or dm/<id->name>.table below it (the device number is not used). Names
 * containing '/' or starting with '.' are refused with -EINVAL. */
int dm_status_get_files(void *userdata, const DmDeviceId *id, DmQuery q, char **ret);

/* Fixture event counters: dm/events below the root fd in userdata, one "MAJOR:MINOR EVENT_NR"
 * line per device. -EOPNOTSUPP without the file (as a kernel without the counters), -EBADMSG for
 * a line of another form. */
int dm_status_list_files(void *userdata, DmListEntry **ret);

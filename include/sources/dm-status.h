/* SPDX-License-Identifier: MIT */
#pragma once

/* Where device-mapper table and status text comes from. The inventory asks a DmStatusProvider
 * for "dmsetup status NAME"- and "dmsetup table NAME"-style text (one line per target:
 * "<start> <length> <target> <params>"), so the same code runs on a live system (libdevmapper
 * ioctls on /dev/mapper/control, never a shell-out, never I/O to the mapped device) and on a
 * fixture tree (files <root>/dm/<name>.status and <root>/dm/<name>.table). */

#include "basic/macro.h"

typedef enum DmQuery {
        DM_QUERY_STATUS, /* DM_DEVICE_STATUS */
        DM_QUERY_TABLE,  /* DM_DEVICE_TABLE */
        _DM_QUERY_MAX,
        _DM_QUERY_INVALID = -EINVAL,
} DmQuery;

const char *dm_query_to_string(DmQuery q) _const_;
DmQuery dm_query_from_string(const char *s) _pure_;

/* Fetch the text for one dm device by its dm name. Returns 0 and a malloc'd NUL-terminated
 * text (lines ending in '\n', possibly empty for a device without a table) in *ret; -ENOENT if
 * the device or file does not exist, -ENODEV if device-mapper is unavailable, other -errno. */
typedef int (*DmStatusGetFunc)(void *userdata, const char *dm_name, DmQuery q, char **ret);

typedef struct DmStatusProvider {
        DmStatusGetFunc get;
        void *userdata;
} DmStatusProvider;

/* Live provider: libdevmapper DM_DEVICE_STATUS / DM_DEVICE_TABLE by name (no flush, no
 * open count check). libdevmapper's own logging is silenced. userdata is unused. The ioctl is
 * on the control node, not the device, and returns without touching a suspended device. */
int dm_status_get_libdm(void *userdata, const char *dm_name, DmQuery q, char **ret);

/* Fixture provider: userdata is a pointer to an int holding a root directory fd; reads
 * dm/<dm_name>.status or dm/<dm_name>.table below it. Names containing '/' or starting with '.'
 * are refused with -EINVAL. */
int dm_status_get_files(void *userdata, const char *dm_name, DmQuery q, char **ret);

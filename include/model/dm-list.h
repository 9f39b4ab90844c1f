/* SPDX-License-Identifier: MIT */
#pragma once

/* The reply of device-mapper's DM_LIST_DEVICES ioctl: every dm device with its event counter.
 * The counter goes up whenever a target raises a dm event (a dm-raid leg failed or a resync
 * ended, a thin pool crossed its low-water mark or ran out of space, a snapshot became invalid,
 * a multipath path failed or came back, a table was loaded): one ioctl tells which devices'
 * status is worth reading again. Pure: parses a buffer, no I/O. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The dm driver version (4.x) whose DM_LIST_DEVICES carries event numbers (Linux 4.14). */
#define DM_LIST_EVENT_NR_MINOR 37

typedef struct DmListEntry {
        unsigned major, minor;
        uint32_t event_nr;
} DmListEntry;

/* Parse a DM_LIST_DEVICES reply: buf is the whole ioctl buffer (struct dm_ioctl, then the
 * dm_name_list records from its data_start to its data_size), size the bytes the caller owns.
 * Every offset is checked against both. Returns the number of entries (0: no dm device) with
 * *ret a malloc'd array (NULL when 0); -EOPNOTSUPP when the driver is older than 4.37 (no event
 * numbers), -ENOBUFS when the kernel flagged the buffer too small, -EBADMSG for a malformed
 * reply, -ENOMEM. */
int dm_list_parse(const void *buf, size_t size, DmListEntry **ret);

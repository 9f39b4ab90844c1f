/* SPDX-License-Identifier: MIT */
#pragma once

/* Rebuild tracking for every md array the inventory knows, driven the same way by
 * `storpulsectl watch` and by the daemon. The Inventory is the one source of truth for which
 * arrays exist: the monitor follows its change set (an md volume ADDED -> watched, REMOVED ->
 * dropped) and never scans sysfs for arrays itself. Each watched array gets an MdWatch entry
 * (EPOLLPRI on md/array_state, sync_action, degraded, sync_completed, dev-X/state and
 * /proc/mdstat; the interval is only the safety net) and a RebuildTracker. When md-watch reports
 * a change, the monitor re-reads the array through the inventory (inventory_device_change(), so
 * the Volume's figures and the change set follow the same reading), builds an observation from
 * the Volume's MdArray, the inventory's /proc/mdstat entry and md/sync_min, feeds the tracker and
 * passes every resulting RebuildEvent to the handler.
 *
 * Optionally (MD_MONITOR_DM_RAID) dm-raid LVs are tracked too, from the change set alone: dm-raid
 * sends no uevents, so their observations come from the owner's inventory_refresh_dm_raid() timer.
 *
 * The inventory is borrowed and must outlive the monitor. The monitor alters the inventory only
 * through inventory_device_change(); the changes that records stay in the inventory's change set
 * for the owner to dispatch (and, if it likes, to hand back through md_monitor_apply_changes(),
 * which ignores what it has already seen). Handler calls come from sd-event callbacks and from
 * md_monitor_apply_changes(); the handler may call any md_monitor_*() function except
 * md_monitor_free(). Modules don't log: problems reach the handler as READ_FAILED events. */

#include <stdbool.h>
#include <systemd/sd-event.h>

#include "analysis/rebuild.h"
#include "basic/macro.h"
#include "basic/string-table.h"
#include "basic/time-util.h"
#include "core/inventory.h"

typedef struct MdMonitor MdMonitor;

/* Flags of md_monitor_new(). */
#define MD_MONITOR_DM_RAID (1U << 0) /* also track dm-raid volumes (LVM raid LVs) */

typedef enum MdMonitorEventType {
        MD_MONITOR_ARRAY_WATCHED, /* an array is now followed; n_attrs/n_pollable say how */
        MD_MONITOR_ARRAY_DROPPED, /* no longer followed (gone from the inventory or its md/) */
        MD_MONITOR_REBUILD,       /* `rebuild` is one event of the array's tracker */
        MD_MONITOR_READ_FAILED,   /* re-reading the array failed with `error`; tracking goes on */
        _MD_MONITOR_EVENT_TYPE_MAX,
        _MD_MONITOR_EVENT_TYPE_INVALID = -EINVAL,
} MdMonitorEventType;

DECLARE_STRING_TABLE_LOOKUP(md_monitor_event_type, MdMonitorEventType);

typedef struct MdMonitorEvent {
        MdMonitorEventType type;
        const char *array;            /* kernel name ("md0", "dm-4"); valid during the call */
        const Volume *volume;         /* the inventory's handle; NULL for DROPPED */
        const RebuildEvent *rebuild;  /* REBUILD only */
        unsigned n_attrs, n_pollable; /* WATCHED (md): attributes watched, of them EPOLLPRI */
        bool mdstat_pollable;         /* WATCHED (md): /proc/mdstat registered for EPOLLPRI */
        int error;                    /* READ_FAILED: -errno */
} MdMonitorEvent;

typedef void (*MdMonitorHandler)(MdMonitor *m, const MdMonitorEvent *ev, void *userdata);

/* New monitor on event loop `e` (a reference is taken) over `inv` (borrowed). interval_usec is
 * md-watch's safety-net re-read period (0 or USEC_INFINITY: none). `only`, if not NULL, is a
 * NULL-terminated list of kernel names to follow (copied); others are ignored. flags: MD_MONITOR_*.
 * Nothing is watched until md_monitor_sync(). Returns 0 or -errno. */
int md_monitor_new(sd_event *e, Inventory *inv, usec_t interval_usec, char *const *only,
                   unsigned flags, MdMonitorHandler handler, void *userdata, MdMonitor **ret);

/* Stops every watch; pending md-watch reports are discarded. Accepts NULL, returns NULL. */
MdMonitor *md_monitor_free(MdMonitor *m);
DEFINE_TRIVIAL_CLEANUP_FUNC(MdMonitor *, md_monitor_free);

/* Make the followed set equal to the inventory's md volumes (and dm-raid volumes with
 * MD_MONITOR_DM_RAID) that pass the filter: start following new ones, drop vanished ones. For the
 * start and after a change set was lost. Returns the number followed, or -ENOMEM. An md volume
 * whose md/ cannot be watched (yet) is retried at its next CHANGED record. */
int md_monitor_sync(MdMonitor *m);

/* Follow an inventory change set (inventory_get_changes()): ADDED md volume -> follow, REMOVED ->
 * drop, CHANGED -> follow if not yet (md/ appeared late), and for dm-raid volumes feed the
 * tracker. Records of other volumes are ignored. Returns 0 or -ENOMEM. */
int md_monitor_apply_changes(MdMonitor *m, const InventoryChange *changes, size_t n);

/* The tracker's figures of one followed array at `now` (CLOCK_MONOTONIC). -ENOENT if not
 * followed. */
int md_monitor_get_status(const MdMonitor *m, const char *array, usec_t now, RebuildStatus *ret);

/* Number of arrays followed. */
size_t md_monitor_size(const MdMonitor *m) _pure_;

/* SPDX-License-Identifier: MIT */
#pragma once

/* Event-driven watching of md arrays. md sends no uevents for state changes; instead the kernel
 * notifies pollers of md/array_state, md/sync_action, md/degraded, md/sync_completed and each
 * md/dev-X/state (kernfs: read, poll for EPOLLPRI/EPOLLERR, then re-read from offset 0), and of
 * /proc/mdstat on md's "new event" (array started/stopped, member added/removed/failed, sync
 * started/ended). MdWatch opens those files below an injected root, reads them once, registers
 * each with sd-event for EPOLLPRI, and calls a handler with the array's name whenever a value
 * actually changed, an array appeared (discovery) or vanished.
 *
 * Safety net: every `interval` (the only polling; may be huge or USEC_INFINITY) every attribute is
 * re-read and the member list and, with discovery, the array list re-scanned. An attribute that
 * cannot be polled (epoll refuses regular files with EPERM, as in a fixture tree) is watched by
 * that safety net only: it is re-opened by path and read on each pass, so a fixture file replaced
 * by rename is seen too. Only sysfs/procfs reads are done; nothing here can block on a device.
 *
 * Handler calls are coalesced: all changes seen in one event-loop iteration are reported once per
 * array, from a deferred event source (never from inside md_watch_add() or the like), so the
 * handler may call any md_watch_*() function. Modules don't log: errors are returned or shown as
 * REMOVED reports. */

#include <stdbool.h>
#include <systemd/sd-event.h>

#include "basic/macro.h"
#include "basic/string-table.h"
#include "basic/time-util.h"

typedef struct MdWatch MdWatch;

typedef enum MdWatchChange {
        MD_WATCH_ARRAY_ADDED,   /* now watched (md_watch_add() or discovery); attrs = all read */
        MD_WATCH_ARRAY_CHANGED, /* attrs says what changed */
        MD_WATCH_ARRAY_REMOVED, /* gone (ENOENT/ENODEV) or md_watch_remove(); watch dropped */
        _MD_WATCH_CHANGE_MAX,
        _MD_WATCH_CHANGE_INVALID = -EINVAL,
} MdWatchChange;

/* Bits of the `attrs` argument of the handler. */
#define MD_WATCH_ATTR_ARRAY_STATE    (1U << 0)
#define MD_WATCH_ATTR_SYNC_ACTION    (1U << 1)
#define MD_WATCH_ATTR_DEGRADED       (1U << 2)
#define MD_WATCH_ATTR_SYNC_COMPLETED (1U << 3)
#define MD_WATCH_ATTR_MEMBER_STATE   (1U << 4) /* some dev-X/state changed */
#define MD_WATCH_ATTR_MEMBERS        (1U << 5) /* a dev-X appeared or disappeared */

typedef void (*MdWatchHandler)(MdWatch *w, const char *array, MdWatchChange change, unsigned attrs,
                               void *userdata);

DECLARE_STRING_TABLE_LOOKUP(md_watch_change, MdWatchChange);

/* New watcher on event loop `e` (a reference is taken) for arrays below `root_fd` (a directory fd
 * of "/" or a fixture tree, dup'd): it reads <root>/sys/class/block/<array>/md/... and
 * <root>/proc/mdstat (optional: missing is fine). interval_usec: safety-net re-read period;
 * 0 or USEC_INFINITY disables it. With `discover`, arrays (sys/class/block/md* with an md/
 * directory) are found by md_watch_scan(), on every /proc/mdstat event and on each safety-net pass.
 * Returns 0 or -errno; *ret owned by the caller (md_watch_free()). */
int md_watch_new(sd_event *e, int root_fd, usec_t interval_usec, bool discover,
                 MdWatchHandler handler, void *userdata, MdWatch **ret);

/* Stops all watches, closes every fd, drops the event loop reference. Accepts NULL, returns
 * NULL. Pending reports are discarded. */
MdWatch *md_watch_free(MdWatch *w);
DEFINE_TRIVIAL_CLEANUP_FUNC(MdWatch *, md_watch_free);

/* Watch one array by kernel name ("md0"). Returns 1 if newly watched (an ADDED report follows),
 * 0 if already watched, -ENOENT if <root>/sys/class/block/<array>/md does not exist, -EINVAL for a
 * name with '/' or "..", other -errno. */
int md_watch_add(MdWatch *w, const char *array);

/* Stop watching one array (a REMOVED report follows). Returns 1 if it was watched, else 0.
 * With discovery on, an array that still exists is found again by the next scan. */
int md_watch_remove(MdWatch *w, const char *array);

/* Discover now: add every md array below sys/class/block not yet watched, drop watched arrays whose
 * md/ directory is gone. Works with or without `discover`. Returns the number of arrays watched
 * afterwards, or -errno if sys/class/block cannot be listed. */
int md_watch_scan(MdWatch *w);

/* Re-read everything now, exactly like one safety-net pass. Returns 0 or -errno. */
int md_watch_recheck(MdWatch *w);

/* Change the safety-net period (0 or USEC_INFINITY: off); restarts the period. */
int md_watch_set_interval(MdWatch *w, usec_t interval_usec);

/* The open directory fd of <root>/sys/class/block/<array>/md, borrowed (valid until the array is
 * removed), e.g. for md_array_load(). -ENOENT if the array is not watched. */
int md_watch_get_md_dir_fd(MdWatch *w, const char *array);

/* Diagnostics: number of attributes watched for `array` and how many of them are event-driven
 * (registered for EPOLLPRI) rather than safety-net only. -ENOENT if not watched. */
int md_watch_get_counts(MdWatch *w, const char *array, unsigned *ret_attrs, unsigned *ret_pollable);

/* Whether <root>/proc/mdstat is registered for EPOLLPRI (false: missing or a regular file). */
bool md_watch_mdstat_pollable(const MdWatch *w) _pure_;

/* Number of arrays watched. */
size_t md_watch_size(const MdWatch *w) _pure_;

/* SPDX-License-Identifier: MIT */
#pragma once

/* Block device discovery through libudev. Coldplug replays the hotplug path: the monitor is
 * enabled FIRST, then subsystem "block" is enumerated, and both feed the same handler with
 * add/change/remove and the kernel name, so no device appearing in between is lost (it may be
 * reported twice, which the handler must tolerate: inventory_device_add is idempotent and
 * inventory_queue_device coalesces). Devices udev has not initialised yet are skipped; their
 * "add" event follows once udev is done.
 *
 * The event source is a DiscoveryBackend: libudev on the live system (discovery_new()), or one a
 * test injects (discovery_new_with_backend()) to replay a scripted sequence of events, including
 * events that arrive while the coldplug enumeration runs. Fixture scans without events use
 * inventory_scan() instead. Never blocks: discovery_process() drains what is queued on the
 * non-blocking monitor. For sd-event, watch discovery_get_fd() for EPOLLIN or use
 * discovery_attach_event(). The periodic full re-read (safety net) is discovery_enumerate(),
 * driven by the manager's timer. */

#include <systemd/sd-event.h>

#include "basic/string-table.h"
#include "core/inventory.h"
#include "basic/macro.h"

typedef enum DiscoveryAction {
        DISCOVERY_ADD,
        DISCOVERY_CHANGE,
        DISCOVERY_REMOVE,
        _DISCOVERY_ACTION_MAX,
        _DISCOVERY_ACTION_INVALID = -EINVAL,
} DiscoveryAction;

DECLARE_STRING_TABLE_LOOKUP(discovery_action, DiscoveryAction);

/* Map a udev ACTION ("add", "change", "remove", "bind", "unbind", "online", "offline", "move")
 * to ours: bind/unbind/online/offline are changes; "move" is handled by the caller as remove of
 * the old name + add of the new. Unknown or NULL: _DISCOVERY_ACTION_INVALID. Pure. */
DiscoveryAction discovery_action_from_udev(const char *udev_action) _pure_;

/* Called for every device event; name is the kernel name ("sda1", "dm-4"). A negative return is
 * remembered (the first one is returned by discovery_process/enumerate) but does not stop the
 * stream. */
typedef int (*DiscoveryHandler)(DiscoveryAction action, const char *name, void *userdata);

typedef struct Discovery Discovery;

/* Called by a backend's enumerate() once per initialised device present now. */
typedef void (*DiscoveryFeedFunc)(Discovery *d, const char *name);

/* The seam between the ordering logic here and where events come from. All calls get the
 * backend's own pointer. */
typedef struct DiscoveryBackend {
        /* Start receiving events: from this call on, every event must be kept for receive().
         * Returns 0 or -errno (then nothing is enabled). */
        int (*start)(void *backend);
        /* Feed every initialised device present now through feed(d, name). Returns the number
         * fed or -errno. */
        int (*enumerate)(void *backend, Discovery *d, DiscoveryFeedFunc feed);
        /* Take the next received event: 1 with *ret_action and *ret_name (malloc'd), 0 when
         * nothing is queued, -ENOBUFS when events were lost (discovery then re-enumerates),
         * other -errno. A rename ("move") is returned as REMOVE of the old name, then ADD. Never
         * blocks. */
        int (*receive)(void *backend, DiscoveryAction *ret_action, char **ret_name);
        /* The pollable fd of the event source, or -EBADF when not started / none. */
        int (*get_fd)(void *backend);
        /* Undo start; harmless when not started. */
        void (*stop)(void *backend);
        /* Release the backend (after stop). */
        void (*free)(void *backend);
} DiscoveryBackend;

/* New, not yet started, over libudev: udev-processed events of initialised devices. Returns 0 or
 * -ENOMEM. */
int discovery_new(DiscoveryHandler handler, void *userdata, Discovery **ret);

/* The same over the kernel's own uevents (libudev's "kernel" netlink group), for a system without
 * udevd: nobody initialises devices there, so every device and event counts, as soon as the
 * kernel sends it. No udevd is needed for these. Returns as discovery_new(). */
int discovery_new_kernel(DiscoveryHandler handler, void *userdata, Discovery **ret);

/* New over an injected backend (`ops` is copied; `backend` is owned from now on, released through
 * ops->free, also on failure). Returns 0 or -EINVAL/-ENOMEM. */
int discovery_new_with_backend(const DiscoveryBackend *ops, void *backend, DiscoveryHandler handler,
                               void *userdata, Discovery **ret);

/* Enable the monitor (netlink: udev-processed or kernel events, subsystem block), then enumerate
 * and feed every initialised block device (every one, for discovery_new_kernel()) as
 * DISCOVERY_ADD. Returns 0 or -errno (e.g.
 * -EPERM/-EPROTONOSUPPORT when netlink is unavailable); on failure nothing stays enabled. */
int discovery_start(Discovery *d);

/* The monitor's fd (non-blocking, CLOEXEC), -EBADF before start. Readable = events queued. */
int discovery_get_fd(const Discovery *d) _pure_;

/* Drain all queued monitor events through the handler. Returns the number of events handled
 * (>= 0) or the first handler/receive error. Never blocks. */
int discovery_process(Discovery *d);

/* Full re-read: feed every initialised block device as DISCOVERY_ADD (the periodic safety net).
 * Returns the number of devices fed or -errno. */
int discovery_enumerate(Discovery *d);

/* Add an sd-event I/O source on the monitor fd that calls discovery_process(). The source is
 * owned by the Discovery (released in discovery_free). Returns 0 or -errno. */
int discovery_attach_event(Discovery *d, sd_event *e);

Discovery *discovery_free(Discovery *d);
DEFINE_TRIVIAL_CLEANUP_FUNC(Discovery *, discovery_free);

/* A DiscoveryHandler that applies events to an Inventory at once (userdata = Inventory*): add
 * and change call inventory_device_add(), remove calls inventory_device_remove(). A device that
 * vanished between event and read (-ENOENT) is not an error. One relink per event: for one-shot
 * callers and tests. */
int discovery_inventory_handler(DiscoveryAction action, const char *name, void *userdata);

/* The daemon's DiscoveryHandler (userdata = Inventory*): queues the event
 * (inventory_queue_device() / inventory_queue_remove()); nothing is read until the owner calls
 * inventory_flush(). Returns 0 or -EINVAL/-ENOMEM. */
int discovery_inventory_queue_handler(DiscoveryAction action, const char *name, void *userdata);

/* SPDX-License-Identifier: MIT */
#pragma once

/* Block device discovery through libudev. Coldplug replays the hotplug path: the monitor is
 * enabled FIRST, then subsystem "block" is enumerated, and both feed the same handler with
 * add/change/remove and the kernel name, so no device appearing in between is lost (it may be
 * reported twice, which the handler must tolerate: inventory_device_add is idempotent). Devices
 * udev has not initialised yet are skipped; their "add" event follows once udev is done.
 *
 * Works on the live system only (libudev reads the real /sys and /run/udev); tests and fixture
 * scans use inventory_scan() instead. Never blocks: discovery_process() drains what is queued on
 * the non-blocking monitor socket. For sd-event, watch discovery_get_fd() for EPOLLIN or use
 * discovery_attach_event(). The periodic full re-read (safety net) is discovery_enumerate(),
 * driven by the manager's timer. */

#include <systemd/sd-event.h>

#include "core/inventory.h"
#include "basic/macro.h"

typedef enum DiscoveryAction {
        DISCOVERY_ADD,
        DISCOVERY_CHANGE,
        DISCOVERY_REMOVE,
        _DISCOVERY_ACTION_MAX,
        _DISCOVERY_ACTION_INVALID = -EINVAL,
} DiscoveryAction;

const char *discovery_action_to_string(DiscoveryAction a) _const_;
DiscoveryAction discovery_action_from_string(const char *s) _pure_;

/* Map a udev ACTION ("add", "change", "remove", "bind", "unbind", "online", "offline", "move")
 * to ours: bind/unbind/online/offline are changes; "move" is handled by the caller as remove of
 * the old name + add of the new. Unknown or NULL: _DISCOVERY_ACTION_INVALID. Pure. */
DiscoveryAction discovery_action_from_udev(const char *udev_action) _pure_;

/* Called for every device event; name is the kernel name ("sda1", "dm-4"). A negative return is
 * remembered (the first one is returned by discovery_process/enumerate) but does not stop the
 * stream. */
typedef int (*DiscoveryHandler)(DiscoveryAction action, const char *name, void *userdata);

typedef struct Discovery Discovery;

/* New, not yet started. Returns 0 or -ENOMEM. */
int discovery_new(DiscoveryHandler handler, void *userdata, Discovery **ret);

/* Enable the monitor (netlink, udev-processed events, subsystem block), then enumerate and feed
 * every initialised block device as DISCOVERY_ADD. Returns 0 or -errno (e.g.
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

/* A DiscoveryHandler that applies events to an Inventory (userdata = Inventory*): add and
 * change call inventory_device_add(), remove calls inventory_device_remove(). A device that
 * vanished between event and read (-ENOENT) is not an error. */
int discovery_inventory_handler(DiscoveryAction action, const char *name, void *userdata);

/* SPDX-License-Identifier: MIT */
/* libudev discovery of block devices: monitor first, then enumerate, one handler for both (see
 * include/discovery.h). The monitor receives udev-processed ("udev" netlink group) events, so a
 * device reaches us only after udev has written its database (DM_*, ID_* properties); enumeration
 * matches initialised devices only, for the same reason. This module keeps no device state: the
 * Inventory does. */

#include <errno.h>
#include <libudev.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "core/discovery.h"

struct Discovery {
        struct udev *udev;
        struct udev_monitor *monitor;
        sd_event_source *io;
        DiscoveryHandler handler;
        void *userdata;
};

static const char *const discovery_action_table[_DISCOVERY_ACTION_MAX] = {
        [DISCOVERY_ADD] = "add",
        [DISCOVERY_CHANGE] = "change",
        [DISCOVERY_REMOVE] = "remove",
};

const char *discovery_action_to_string(DiscoveryAction a) {
        if (a < 0 || a >= _DISCOVERY_ACTION_MAX)
                return NULL;
        return discovery_action_table[a];
}

DiscoveryAction discovery_action_from_string(const char *s) {
        if (!s)
                return _DISCOVERY_ACTION_INVALID;
        for (size_t i = 0; i < _DISCOVERY_ACTION_MAX; i++)
                if (strcmp(s, discovery_action_table[i]) == 0)
                        return (DiscoveryAction) i;
        return _DISCOVERY_ACTION_INVALID;
}

DiscoveryAction discovery_action_from_udev(const char *a) {
        if (!a)
                return _DISCOVERY_ACTION_INVALID;
        if (strcmp(a, "add") == 0)
                return DISCOVERY_ADD;
        if (strcmp(a, "remove") == 0)
                return DISCOVERY_REMOVE;
        if (strcmp(a, "change") == 0 || strcmp(a, "bind") == 0 || strcmp(a, "unbind") == 0 ||
            strcmp(a, "online") == 0 || strcmp(a, "offline") == 0)
                return DISCOVERY_CHANGE;
        return _DISCOVERY_ACTION_INVALID;
}

int discovery_new(DiscoveryHandler handler, void *userdata, Discovery **ret) {
        Discovery *d;

        if (!handler || !ret)
                return -EINVAL;
        d = calloc(1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        d->handler = handler;
        d->userdata = userdata;
        *ret = d;
        return 0;
}

Discovery *discovery_free(Discovery *d) {
        if (!d)
                return NULL;
        sd_event_source_disable_unref(d->io);
        udev_monitor_unref(d->monitor);
        udev_unref(d->udev);
        free(d);
        return NULL;
}

int discovery_get_fd(const Discovery *d) {
        if (!d || !d->monitor)
                return -EBADF;
        return udev_monitor_get_fd(d->monitor);
}

static void feed(Discovery *d, DiscoveryAction a, const char *name, int *first_error) {
        int r;

        if (!name || !*name)
                return;
        r = d->handler(a, name, d->userdata);
        if (r < 0 && *first_error == 0)
                *first_error = r;
}

int discovery_enumerate(Discovery *d) {
        struct udev_enumerate *e;
        struct udev_list_entry *item;
        int first_error = 0, n = 0, r;

        if (!d || !d->udev)
                return -EINVAL;
        e = udev_enumerate_new(d->udev);
        if (!e)
                return -ENOMEM;
        r = udev_enumerate_add_match_subsystem(e, "block");
        if (r >= 0)
                r = udev_enumerate_add_match_is_initialized(e);
        if (r >= 0)
                r = udev_enumerate_scan_devices(e);
        if (r < 0) {
                udev_enumerate_unref(e);
                return r;
        }
        udev_list_entry_foreach(item, udev_enumerate_get_list_entry(e)) {
                struct udev_device *dev =
                        udev_device_new_from_syspath(d->udev, udev_list_entry_get_name(item));
                if (!dev)
                        continue; /* gone since the scan */
                if (udev_device_get_is_initialized(dev) > 0) {
                        feed(d, DISCOVERY_ADD, udev_device_get_sysname(dev), &first_error);
                        n++;
                }
                udev_device_unref(dev);
        }
        udev_enumerate_unref(e);
        return first_error < 0 ? first_error : n;
}

int discovery_start(Discovery *d) {
        int r;

        if (!d)
                return -EINVAL;
        if (d->monitor)
                return -EBUSY;
        d->udev = udev_new();
        if (!d->udev)
                return -ENOMEM;
        d->monitor = udev_monitor_new_from_netlink(d->udev, "udev");
        if (!d->monitor) {
                r = errno > 0 ? -errno : -EPROTONOSUPPORT;
                goto out_unref_udev;
        }
        /* A coldplug storm (hundreds of disks) must not overflow the socket; failure to enlarge
         * it is not fatal, lost events are caught by the re-enumeration below. */
        (void) udev_monitor_set_receive_buffer_size(d->monitor, 16 * 1024 * 1024);
        r = udev_monitor_filter_add_match_subsystem_devtype(d->monitor, "block", NULL);
        if (r >= 0)
                r = udev_monitor_enable_receiving(d->monitor);
        if (r < 0)
                goto out_unref_monitor;

        /* Monitor first, then coldplug: anything appearing in between is seen at least once. */
        r = discovery_enumerate(d);
        if (r < 0 && r != -ENOMEM)
                r = 0; /* a handler error on one device is not a failure to start */
        if (r < 0)
                goto out_unref_monitor;
        return 0;

out_unref_monitor:
        d->monitor = udev_monitor_unref(d->monitor);
out_unref_udev:
        d->udev = udev_unref(d->udev);
        return r;
}

int discovery_process(Discovery *d) {
        int first_error = 0, n = 0;
        bool resynced = false;

        if (!d || !d->monitor)
                return -EINVAL;
        for (;;) {
                struct udev_device *dev;
                const char *name, *action;
                DiscoveryAction a;

                errno = 0;
                dev = udev_monitor_receive_device(d->monitor);
                if (!dev) {
                        /* ENOBUFS: the kernel dropped events; re-read everything instead. */
                        if (errno == ENOBUFS && !resynced) {
                                int k;

                                resynced = true;
                                k = discovery_enumerate(d);
                                if (k < 0 && first_error == 0)
                                        first_error = k;
                                continue;
                        }
                        break; /* EAGAIN: drained (or a malformed message was dropped) */
                }
                name = udev_device_get_sysname(dev);
                action = udev_device_get_action(dev);
                if (action && strcmp(action, "move") == 0) {
                        const char *old = udev_device_get_property_value(dev, "DEVPATH_OLD");
                        const char *slash = old ? strrchr(old, '/') : NULL;
                        if (slash)
                                feed(d, DISCOVERY_REMOVE, slash + 1, &first_error);
                        a = DISCOVERY_ADD;
                } else
                        a = discovery_action_from_udev(action);
                if (a >= 0 && (a == DISCOVERY_REMOVE || udev_device_get_is_initialized(dev) > 0)) {
                        feed(d, a, name, &first_error);
                        n++;
                }
                udev_device_unref(dev);
        }
        return first_error < 0 ? first_error : n;
}

static int on_monitor(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        /* Errors are per device and already remembered by the handler's owner; keep going. */
        (void) discovery_process(userdata);
        return 0;
}

int discovery_attach_event(Discovery *d, sd_event *e) {
        int fd;

        if (!d || !e)
                return -EINVAL;
        if (d->io)
                return -EBUSY;
        fd = discovery_get_fd(d);
        if (fd < 0)
                return fd;
        return sd_event_add_io(e, &d->io, fd, EPOLLIN, on_monitor, d);
}

int discovery_inventory_handler(DiscoveryAction action, const char *name, void *userdata) {
        Inventory *inv = userdata;
        int r;

        if (!inv || !name)
                return -EINVAL;
        switch (action) {
        case DISCOVERY_ADD:
        case DISCOVERY_CHANGE:
                r = inventory_device_add(inv, name);
                return r == -ENOENT ? 0 : r;
        case DISCOVERY_REMOVE:
                return inventory_device_remove(inv, name);
        case _DISCOVERY_ACTION_MAX:
        case _DISCOVERY_ACTION_INVALID:
                break;
        }
        return -EINVAL;
}

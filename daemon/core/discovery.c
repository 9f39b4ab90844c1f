/* SPDX-License-Identifier: MIT */
/* Discovery of block devices: monitor first, then enumerate, one handler for both (see
 * include/core/discovery.h). The ordering logic is backend-neutral; the libudev backend below is
 * the live one. With udevd running its monitor receives udev-processed ("udev" netlink group)
 * events, so a device reaches us only after udev has written its database (DM_*, ID_*
 * properties); enumeration matches initialised devices only, for the same reason. Without udevd
 * (containers, minimal hosts) nobody initialises a device and nothing is sent on the "udev"
 * group: the monitor then listens to the kernel's own uevents ("kernel" group, which needs no
 * udevd) and every device counts as ready. This module keeps no device state: the Inventory
 * does. */

#include <errno.h>
#include <libudev.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "basic/string-table.h"
#include "core/discovery.h"

struct Discovery {
        DiscoveryBackend ops;
        void *backend;
        bool started;
        sd_event_source *io;
        DiscoveryHandler handler;
        void *userdata;
        int enumerate_error; /* first handler error of the running enumeration */
        int enumerate_count;
};

static const char *const discovery_action_table[] = {
        [DISCOVERY_ADD] = "add",
        [DISCOVERY_CHANGE] = "change",
        [DISCOVERY_REMOVE] = "remove",
};

DEFINE_STRING_TABLE_LOOKUP(discovery_action, DiscoveryAction, discovery_action_table)

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

/* ---- the libudev backend ------------------------------------------------------------------ */

typedef struct UdevBackend {
        bool kernel; /* the "kernel" netlink group: no udevd, no initialised state */
        struct udev *udev;
        struct udev_monitor *monitor;
        char *pending_add; /* second half of a "move": the new name */
} UdevBackend;

static void udev_backend_stop(void *p) {
        UdevBackend *b = p;

        b->monitor = udev_monitor_unref(b->monitor);
        b->udev = udev_unref(b->udev);
        free(b->pending_add);
        b->pending_add = NULL;
}

static void udev_backend_free(void *p) {
        UdevBackend *b = p;

        if (!b)
                return;
        udev_backend_stop(b);
        free(b);
}

static int udev_backend_start(void *p) {
        UdevBackend *b = p;
        int r;

        b->udev = udev_new();
        if (!b->udev)
                return -ENOMEM;
        b->monitor = udev_monitor_new_from_netlink(b->udev, b->kernel ? "kernel" : "udev");
        if (!b->monitor) {
                r = errno > 0 ? -errno : -EPROTONOSUPPORT;
                udev_backend_stop(b);
                return r;
        }
        /* A coldplug storm (hundreds of disks) must not overflow the socket; failure to enlarge
         * it is not fatal, lost events are caught by re-enumerating (-ENOBUFS). */
        (void) udev_monitor_set_receive_buffer_size(b->monitor, 16 * 1024 * 1024);
        r = udev_monitor_filter_add_match_subsystem_devtype(b->monitor, "block", NULL);
        if (r >= 0)
                r = udev_monitor_enable_receiving(b->monitor);
        if (r < 0) {
                udev_backend_stop(b);
                return r;
        }
        return 0;
}

/* Whether udev is done with the device (always, without udevd: nobody else will be). */
static bool udev_backend_ready(const UdevBackend *b, struct udev_device *dev) {
        return b->kernel || udev_device_get_is_initialized(dev) > 0;
}

static int udev_backend_enumerate(void *p, Discovery *d, DiscoveryFeedFunc feed) {
        UdevBackend *b = p;
        struct udev_enumerate *e;
        struct udev_list_entry *item;
        int n = 0, r;

        if (!b->udev)
                return -EINVAL;
        e = udev_enumerate_new(b->udev);
        if (!e)
                return -ENOMEM;
        r = udev_enumerate_add_match_subsystem(e, "block");
        if (r >= 0 && !b->kernel)
                r = udev_enumerate_add_match_is_initialized(e);
        if (r >= 0)
                r = udev_enumerate_scan_devices(e);
        if (r < 0) {
                udev_enumerate_unref(e);
                return r;
        }
        udev_list_entry_foreach(item, udev_enumerate_get_list_entry(e)) {
                struct udev_device *dev =
                        udev_device_new_from_syspath(b->udev, udev_list_entry_get_name(item));
                if (!dev)
                        continue; /* gone since the scan */
                if (udev_backend_ready(b, dev)) {
                        feed(d, udev_device_get_sysname(dev));
                        n++;
                }
                udev_device_unref(dev);
        }
        udev_enumerate_unref(e);
        return n;
}

/* One udev event as ours: 1 and the action/name, 0 to skip it, -ENOMEM. */
static int udev_backend_convert(UdevBackend *b, struct udev_device *dev, DiscoveryAction *ret_a,
                                char **ret_name) {
        const char *name = udev_device_get_sysname(dev), *action = udev_device_get_action(dev);
        DiscoveryAction a = discovery_action_from_udev(action);
        char *n;

        if (!name || !*name)
                return 0;
        if (action && strcmp(action, "move") == 0) {
                const char *old = udev_device_get_property_value(dev, "DEVPATH_OLD");
                const char *slash = old ? strrchr(old, '/') : NULL;

                a = DISCOVERY_ADD;
                if (slash && slash[1]) {
                        /* the old name goes first; the new one follows if udev is done with it */
                        if (udev_backend_ready(b, dev)) {
                                b->pending_add = strdup(name);
                                if (!b->pending_add)
                                        return -ENOMEM;
                        }
                        a = DISCOVERY_REMOVE;
                        name = slash + 1;
                }
        }
        if (a < 0 || (a != DISCOVERY_REMOVE && !udev_backend_ready(b, dev)))
                return 0;
        n = strdup(name);
        if (!n)
                return -ENOMEM;
        *ret_a = a;
        *ret_name = n;
        return 1;
}

static int udev_backend_receive(void *p, DiscoveryAction *ret_action, char **ret_name) {
        UdevBackend *b = p;

        if (!b->monitor)
                return -EINVAL;
        if (b->pending_add) {
                *ret_action = DISCOVERY_ADD;
                *ret_name = TAKE_PTR(b->pending_add);
                return 1;
        }
        for (;;) {
                struct udev_device *dev;
                int r;

                errno = 0;
                dev = udev_monitor_receive_device(b->monitor);
                if (!dev)
                        /* ENOBUFS: the kernel dropped events. Else EAGAIN: drained (or a malformed
                         * message was dropped). */
                        return errno == ENOBUFS ? -ENOBUFS : 0;
                r = udev_backend_convert(b, dev, ret_action, ret_name);
                udev_device_unref(dev);
                if (r != 0)
                        return r;
        }
}

static int udev_backend_get_fd(void *p) {
        UdevBackend *b = p;

        return b->monitor ? udev_monitor_get_fd(b->monitor) : -EBADF;
}

static const DiscoveryBackend udev_backend_ops = {
        .start = udev_backend_start,
        .enumerate = udev_backend_enumerate,
        .receive = udev_backend_receive,
        .get_fd = udev_backend_get_fd,
        .stop = udev_backend_stop,
        .free = udev_backend_free,
};

/* ---- ordering logic ----------------------------------------------------------------------- */

int discovery_new_with_backend(const DiscoveryBackend *ops, void *backend, DiscoveryHandler handler,
                               void *userdata, Discovery **ret) {
        Discovery *d;

        if (!ops || !ops->start || !ops->enumerate || !ops->receive || !ops->get_fd || !ops->stop ||
            !ops->free || !handler || !ret) {
                if (ops && ops->free)
                        ops->free(backend);
                return -EINVAL;
        }
        d = calloc(1, sizeof(*d));
        if (!d) {
                ops->free(backend);
                return -ENOMEM;
        }
        d->ops = *ops;
        d->backend = backend;
        d->handler = handler;
        d->userdata = userdata;
        *ret = d;
        return 0;
}

static int new_udev(bool kernel, DiscoveryHandler handler, void *userdata, Discovery **ret) {
        UdevBackend *b;

        if (!handler || !ret)
                return -EINVAL;
        b = calloc(1, sizeof(*b));
        if (!b)
                return -ENOMEM;
        b->kernel = kernel;
        return discovery_new_with_backend(&udev_backend_ops, b, handler, userdata, ret);
}

int discovery_new(DiscoveryHandler handler, void *userdata, Discovery **ret) {
        return new_udev(false, handler, userdata, ret);
}

int discovery_new_kernel(DiscoveryHandler handler, void *userdata, Discovery **ret) {
        return new_udev(true, handler, userdata, ret);
}

Discovery *discovery_free(Discovery *d) {
        if (!d)
                return NULL;
        sd_event_source_disable_unref(d->io);
        d->ops.stop(d->backend);
        d->ops.free(d->backend);
        free(d);
        return NULL;
}

int discovery_get_fd(const Discovery *d) {
        if (!d || !d->started)
                return -EBADF;
        return d->ops.get_fd(d->backend);
}

static void feed(Discovery *d, DiscoveryAction a, const char *name, int *first_error) {
        int r;

        if (!name || !*name)
                return;
        r = d->handler(a, name, d->userdata);
        if (r < 0 && *first_error == 0)
                *first_error = r;
}

static void enumerate_feed(Discovery *d, const char *name) {
        feed(d, DISCOVERY_ADD, name, &d->enumerate_error);
}

int discovery_enumerate(Discovery *d) {
        int r;

        if (!d || !d->started)
                return -EINVAL;
        d->enumerate_error = 0;
        r = d->ops.enumerate(d->backend, d, enumerate_feed);
        if (r < 0)
                return r;
        return d->enumerate_error < 0 ? d->enumerate_error : r;
}

int discovery_start(Discovery *d) {
        int r;

        if (!d)
                return -EINVAL;
        if (d->started)
                return -EBUSY;
        r = d->ops.start(d->backend);
        if (r < 0)
                return r;
        d->started = true;

        /* Monitor first, then coldplug: anything appearing in between is seen at least once. */
        r = discovery_enumerate(d);
        if (r < 0 && r != -ENOMEM)
                r = 0; /* a handler error on one device is not a failure to start */
        if (r < 0) {
                d->ops.stop(d->backend);
                d->started = false;
                return r;
        }
        return 0;
}

int discovery_process(Discovery *d) {
        int first_error = 0, n = 0;
        bool resynced = false;

        if (!d || !d->started)
                return -EINVAL;
        for (;;) {
                _cleanup_free_ char *name = NULL;
                DiscoveryAction a;
                int r;

                r = d->ops.receive(d->backend, &a, &name);
                if (r == -ENOBUFS && !resynced) {
                        /* events were lost: re-read everything instead */
                        resynced = true;
                        r = discovery_enumerate(d);
                        if (r < 0 && first_error == 0)
                                first_error = r;
                        continue;
                }
                if (r <= 0) {
                        if (r < 0 && r != -ENOBUFS && first_error == 0)
                                first_error = r;
                        break;
                }
                feed(d, a, name, &first_error);
                n++;
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

int discovery_inventory_queue_handler(DiscoveryAction action, const char *name, void *userdata) {
        Inventory *inv = userdata;

        if (!inv || !name)
                return -EINVAL;
        switch (action) {
        case DISCOVERY_ADD:
        case DISCOVERY_CHANGE:
                return inventory_queue_device(inv, name);
        case DISCOVERY_REMOVE:
                return inventory_queue_remove(inv, name);
        case _DISCOVERY_ACTION_MAX:
        case _DISCOVERY_ACTION_INVALID:
                break;
        }
        return -EINVAL;
}

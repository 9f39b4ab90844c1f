/* SPDX-License-Identifier: MIT */
/* discovery: the udev action mapping, argument checks, the inventory handler over a fixture, and
 * a live start/process/enumerate where the machine allows a udev netlink monitor (without udevd
 * nothing is initialised, so nothing may be fed; with it, every fed name must exist in sysfs). */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/discovery.h"
#include "core/inventory.h"
#include "tap.h"

static unsigned fed, fed_bad;

static int count_handler(DiscoveryAction a, const char *name, void *userdata) {
        char path[512];

        fed++;
        (void) snprintf(path, sizeof(path), "/sys/class/block/%s", name);
        if (a == DISCOVERY_ADD && access(path, F_OK) < 0)
                fed_bad++;
        return 0;
}

int main(void) {
        static const struct {
                const char *udev;
                DiscoveryAction want;
        } map[] = {
                { "add", DISCOVERY_ADD },
                { "change", DISCOVERY_CHANGE },
                { "remove", DISCOVERY_REMOVE },
                { "bind", DISCOVERY_CHANGE },
                { "unbind", DISCOVERY_CHANGE },
                { "online", DISCOVERY_CHANGE },
                { "offline", DISCOVERY_CHANGE },
                { "move", _DISCOVERY_ACTION_INVALID },
                { "", _DISCOVERY_ACTION_INVALID },
                { "ADD", _DISCOVERY_ACTION_INVALID },
                { NULL, _DISCOVERY_ACTION_INVALID },
        };
        _cleanup_(discovery_freep) Discovery *d = NULL;
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        const char *fx = getenv("STORPULSE_FIXTURES");
        char path[4096];
        int r;

        for (size_t i = 0; i < ELEMENTSOF(map); i++)
                is_int(discovery_action_from_udev(map[i].udev), map[i].want, "udev action '%s'",
                       map[i].udev ? map[i].udev : "(null)");
        for (int a = 0; a < _DISCOVERY_ACTION_MAX; a++)
                is_int(discovery_action_from_string(discovery_action_to_string(a)), a,
                       "action %d round trip", a);
        ok(discovery_action_to_string(_DISCOVERY_ACTION_MAX) == NULL, "out of range");

        is_int(discovery_new(NULL, NULL, &d), -EINVAL, "handler required");
        is_int(discovery_new(count_handler, NULL, &d), 0, "new");
        is_int(discovery_get_fd(d), -EBADF, "no fd before start");
        is_int(discovery_process(d), -EINVAL, "process before start");

        /* The inventory handler, on a fixture tree. */
        (void) snprintf(path, sizeof(path), "%s/md-raid1-idle", fx ? fx : "tests/fixtures");
        is_int(inventory_new_for_root(path, &inv), 0, "inventory over fixture");
        is_int(discovery_inventory_handler(DISCOVERY_ADD, "vda", inv), 1, "add vda");
        is_int(discovery_inventory_handler(DISCOVERY_ADD, "md0", inv), 1, "add md0");
        is_int(discovery_inventory_handler(DISCOVERY_CHANGE, "md0", inv), 0, "change md0");
        ok(inventory_get(inv, "vda") && inventory_get(inv, "vda")->holders &&
                   inventory_get(inv, "vda")->holders[0] &&
                   strcmp(inventory_get(inv, "vda")->holders[0], "md0") == 0,
           "vda held by md0 after hotplug adds");
        is_int(discovery_inventory_handler(DISCOVERY_ADD, "gone", inv), 0,
               "a device that vanished is not an error");
        is_int(discovery_inventory_handler(DISCOVERY_REMOVE, "md0", inv), 1, "remove md0");
        is_int(discovery_inventory_handler(_DISCOVERY_ACTION_INVALID, "vda", inv), -EINVAL,
               "invalid action");

        r = discovery_start(d);
        if (r < 0) {
                tap_diag("udev monitor unavailable here (%d), live part skipped", r);
                ok(discovery_get_fd(d) == -EBADF, "failed start leaves nothing enabled");
        } else {
                ok(discovery_get_fd(d) >= 0, "monitor fd");
                is_int(discovery_start(d), -EBUSY, "second start refused");
                ok(discovery_process(d) >= 0, "process drains without blocking");
                ok(discovery_enumerate(d) >= 0, "enumerate");
                is_int(fed_bad, 0, "every fed device exists in /sys/class/block (fed %u)", fed);
        }
        return tap_done();
}

/* SPDX-License-Identifier: MIT */
/* Fuzz the inventory scan: the input is split at NUL bytes into the contents of the files an
 * md array, an LVM raid LV with a sub-LV and a disk show (sysfs attributes, /proc/mdstat, the udev
 * database, dm status/table text) in a small fixed tree; scanning it and rendering JSON must never
 * crash, whatever the kernel (or a corrupt fixture) writes there. */

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sources/dm-status.h"
#include "basic/fileio.h"
#include "core/inventory.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const files[] = {
        "sys/devices/virtual/block/md0/md/level",
        "sys/devices/virtual/block/md0/md/raid_disks",
        "sys/devices/virtual/block/md0/md/array_state",
        "sys/devices/virtual/block/md0/md/degraded",
        "sys/devices/virtual/block/md0/md/sync_action",
        "sys/devices/virtual/block/md0/md/sync_completed",
        "sys/devices/virtual/block/md0/md/sync_speed",
        "sys/devices/virtual/block/md0/md/mismatch_cnt",
        "sys/devices/virtual/block/md0/md/dev-vda/state",
        "sys/devices/virtual/block/md0/md/dev-vda/slot",
        "proc/mdstat",
        "sys/devices/virtual/block/dm-1/dm/name",
        "sys/devices/virtual/block/dm-1/dm/uuid",
        "dm/vg-lv.status",
        "dm/vg-lv.table",
        "run/udev/data/b252:1",
        "run/udev/data/b252:0",
        "sys/devices/virtual/block/dm-0/dm/name",
        "sys/devices/virtual/block/md0/size",
        "sys/devices/virtual/block/dm-1/dev",
        "sys/devices/virtual/block/vda/device/vendor",
        "sys/class/scsi_host/host0/proc_name",
};

static char root[] = "/tmp/fuzz-inventory-XXXXXX";
static int root_fd = -1;

static void mkparents(const char *path) {
        char buf[256], *slash;

        (void) snprintf(buf, sizeof(buf), "%s", path);
        for (slash = strchr(buf, '/'); slash; slash = strchr(slash + 1, '/')) {
                *slash = 0;
                (void) mkdirat(root_fd, buf, 0755);
                *slash = '/';
        }
}

static void put(const char *path, const char *text) {
        mkparents(path);
        (void) write_file_atomic_at(root_fd, path, text, strlen(text));
}

static void cleanup(void) {
        char cmd[64];

        if (root_fd < 0)
                return;
        (void) snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
        (void) system(cmd);
}

static int setup(void) {
        static const char *const links[][2] = {
                { "sys/class/block/md0", "../../devices/virtual/block/md0" },
                { "sys/class/block/dm-0", "../../devices/virtual/block/dm-0" },
                { "sys/class/block/dm-1", "../../devices/virtual/block/dm-1" },
                { "sys/class/block/vda",
                  "../../devices/pci0000:00/host0/target0:2:0/0:2:0:0/block/vda" },
        };

        if (!mkdtemp(root))
                return -1;
        root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (root_fd < 0)
                return -1;
        atexit(cleanup);
        for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
                mkparents(links[i][0]);
                (void) symlinkat(links[i][1], root_fd, links[i][0]);
        }
        put("sys/devices/virtual/block/md0/dev", "9:0\n");
        put("sys/devices/virtual/block/md0/slaves/vda", "");
        put("sys/devices/virtual/block/md0/holders/dm-0", "");
        put("sys/devices/virtual/block/dm-0/dev", "252:0\n");
        put("sys/devices/virtual/block/dm-0/dm/uuid",
            "LVM-K6PnjH5LzKW3tWClA6OYBmtvNm9LVgkIj3w7a3LtJVtDC6lhVosHCDKZuIJXaDqa\n");
        put("sys/devices/virtual/block/dm-0/slaves/dm-1", "");
        put("sys/devices/virtual/block/dm-1/slaves/md0", "");
        put("sys/devices/virtual/block/dm-1/holders/dm-0", "");
        put("sys/devices/pci0000:00/host0/target0:2:0/0:2:0:0/block/vda/dev", "254:0\n");
        put("sys/devices/pci0000:00/host0/target0:2:0/0:2:0:0/block/vda/holders/md0", "");
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        Inventory *inv = NULL;
        json_object *j = NULL;
        const uint8_t *p = data, *end = data + size;
        DmStatusProvider dm = { .get = dm_status_get_files, .userdata = &root_fd };

        if (root_fd < 0 && setup() < 0)
                return 0;
        for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
                const uint8_t *nul = p < end ? memchr(p, 0, (size_t) (end - p)) : NULL;
                size_t n = nul ? (size_t) (nul - p) : (size_t) (end - p);
                char *text = malloc(n + 1);

                if (!text)
                        return 0;
                memcpy(text, p, n);
                text[n] = 0;
                put(files[i], text);
                free(text);
                p = nul ? nul + 1 : end;
        }
        if (inventory_new(root_fd, &dm, &inv) < 0)
                return 0;
        inventory_set_controller_flags(inv, 1);
        (void) inventory_scan(inv);
        (void) inventory_device_change(inv, "dm-0");
        if (inventory_to_json(inv, &j) >= 0)
                json_object_put(j);
        {
                const Volume *where;
                const char *member;
                Volume *v = inventory_get(inv, "dm-0");
                if (v)
                        (void) inventory_attribute_problem(inv, v, &where, &member);
        }
        (void) inventory_device_remove(inv, "md0");
        /* the daemon's path: batches, refreshes, the change set */
        (void) inventory_queue_rescan(inv);
        (void) inventory_queue_remove(inv, "vda");
        while (inventory_flush(inv, 2) > 0)
                ;
        (void) inventory_refresh_dm_raid(inv);
        (void) inventory_refresh_mdstat(inv);
        {
                size_t n;
                const InventoryChange *c = inventory_get_changes(inv, &n);
                for (size_t i = 0; i < n; i++)
                        if (!c[i].volume || !c[i].volume->name)
                                abort();
        }
        inventory_clear_changes(inv);
        inventory_free(inv);
        return 0;
}

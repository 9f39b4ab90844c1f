/* SPDX-License-Identifier: MIT */
#pragma once

/* The inventory: the set of Volumes below an injected root and the stack graph between them
 * (LV -> md -> member disks -> controller), built from sysfs slaves/ and holders/. Coldplug and
 * hotplug share one path: a full scan calls the same per-device add as a udev event does.
 * Hidden LVM sub-LVs (_rimage_N, _rmeta_N, ...) are kept but marked hidden and folded into the
 * LV that holds them. The inventory reads sysfs, the udev database (<root>/run/udev/data) and
 * /proc/mdstat below the root, and dm text through an injected DmStatusProvider; it never opens
 * a block device and never logs. Not thread-safe; one owner (the manager or the CLI). */

#include <stdbool.h>
#include <stddef.h>

#include "model/blockstat.h"
#include "model/controller-cli.h"
#include "sources/dm-status.h"
#include "basic/macro.h"
#include "model/volume.h"

typedef struct Inventory Inventory;

/* New, empty inventory over `root_fd` (a directory fd of "/" or a fixture tree; it is dup'd,
 * the caller keeps its own). dm text comes from `dm` (copied; NULL = no dm text: dm volumes
 * then have no target type). Returns 0 or -errno. */
int inventory_new(int root_fd, const DmStatusProvider *dm, Inventory **ret);

/* Convenience for the edges: open `root` (a path; "/" for the live system) and pick the
 * provider: libdevmapper for "/", the dm/ files below the root otherwise. */
int inventory_new_for_root(const char *root, Inventory **ret);

/* Flags for controller_lookup() (include/controller.h): CONTROLLER_ALLOW_TEST lets the VM suite
 * treat scsi_debug hosts as controllers. Default 0. Takes effect at the next read. */
void inventory_set_controller_flags(Inventory *inv, unsigned flags);

Inventory *inventory_free(Inventory *inv);
DEFINE_TRIVIAL_CLEANUP_FUNC(Inventory *, inventory_free);

/* The (dup'd) root directory fd; owned by the inventory. For watchers that open attributes:
 * openat(inventory_root_fd(inv), v->syspath, ...). */
int inventory_root_fd(const Inventory *inv) _pure_;

/* Full re-read: (re)adds every entry of <root>/sys/class/block, removes volumes that are gone,
 * re-reads /proc/mdstat and rebuilds the graph. Safe to call periodically (the safety net).
 * Returns 0 or -errno if <root>/sys/class/block cannot be listed; a single unreadable device is
 * skipped (it is not an error of the scan). */
int inventory_scan(Inventory *inv);

/* Hotplug path: read (or re-read) one device by kernel name ("md0", "dm-4", "sda1") and update
 * the graph. add and change are the same operation (change of an unknown device adds it).
 * Returns 1 if the volume is new, 0 if it was known, -ENOENT if the device is not in sysfs
 * (then any old entry is removed), other -errno. */
int inventory_device_add(Inventory *inv, const char *name);
int inventory_device_change(Inventory *inv, const char *name);

/* Forget one device. Returns 1 if it was known, 0 otherwise. */
int inventory_device_remove(Inventory *inv, const char *name);

/* Re-read /proc/mdstat below the root (fine-grained md progress) and refresh the md volumes'
 * sync figures; done by scan and by add/change of md devices as well. */
int inventory_refresh_mdstat(Inventory *inv);

/* Number of volumes (hidden ones included), and the i-th in name order (NULL if out of range).
 * Pointers stay valid until the next add/change/remove/scan. */
size_t inventory_size(const Inventory *inv) _pure_;
Volume *inventory_get_nth(const Inventory *inv, size_t i);
#define INVENTORY_FOREACH(v, inv) for (size_t _i_ = 0; ((v) = inventory_get_nth((inv), _i_)); _i_++)

/* Look a volume up by kernel name; NULL if unknown. */
Volume *inventory_get(const Inventory *inv, const char *name);

/* True if v is a top of the tree: not hidden and no visible holder. */
bool inventory_is_top_level(const Inventory *inv, const Volume *v);

/* Attach what a vendor CLI reported (controller_cli_query(), run by the caller off the main
 * loop) to the controller volumes: a CLI volume matches the volume named by its OS device
 * ("/dev/sda" -> sda); without an OS device, a lone CLI volume matches the lone controller volume
 * of a driver read by `cli`. Sets has_cli, cli_*, level, health (optimal -> ok, degraded and
 * rebuilding -> degraded, failed and offline -> failed) and sync (operation, progress, ETA).
 * Returns the number of volumes matched. Pure apart from the inventory's own data. */
int inventory_apply_controller_cli(Inventory *inv, ControllerCli cli,
                                   const ControllerVolumeList *l);

/* Passive load: read and parse <root>/<v->syspath>/stat (Documentation/block/stat.rst; the
 * kernel's own counters, no I/O to the device). Feed two readings to blockstat_delta() for
 * utilisation and await. Returns 0, -ENOENT if the device is gone, -EINVAL for garbage. */
int inventory_read_stat(const Inventory *inv, const Volume *v, BlockStat *ret);

/* The `storpulsectl volumes --json` document: a JSON array of volume_to_json() objects for every
 * visible (not hidden) volume, in name order. Returns 0 and a new reference, or -ENOMEM. */
int inventory_to_json(const Inventory *inv, json_object **ret);

/* Attribute the problem of `v` to the lowest layer that shows it: walks v's members downwards
 * and returns the lowest volume that itself has a problem (volume_has_problem()), preferring a
 * faulty/missing array member's own volume when the array names one. *ret_member, if not NULL,
 * gets the name of the array member the lowest problem volume reports as faulty (or NULL).
 * Returns 1 and *ret if something below or at v has a problem, 0 (and *ret untouched) if all is
 * well. Cycles in a corrupt graph are cut. */
int inventory_attribute_problem(const Inventory *inv, const Volume *v, const Volume **ret,
                                const char **ret_member);

/* SPDX-License-Identifier: MIT */
#pragma once

/* The inventory: the set of Volumes below an injected root and the stack graph between them
 * (LV -> md -> member disks -> controller), built from sysfs slaves/ and holders/. Coldplug and
 * hotplug share one path: a full scan reads every device the same way a udev event does.
 * Hidden LVM sub-LVs (_rimage_N, _rmeta_N, ...) are kept but marked hidden and folded into the
 * LV that holds them. The inventory reads sysfs and /proc/mdstat below the root, udev properties
 * through a UdevPropsProvider and dm text through a DmStatusProvider; it never opens a block
 * device and never logs. Not thread-safe; one owner (the manager or the CLI).
 *
 * Held by a daemon:
 *  - Stable handles. A Volume is allocated once per kernel device and keeps its address for as
 *    long as the device exists: re-reading it (a uevent, a rescan, a refresh) updates the object
 *    in place, and adding, changing or removing other devices never moves it. A removed volume
 *    is reported in the change set and stays readable (not linked into the graph any more) until
 *    inventory_clear_changes() or inventory_free(). A device removed and re-created under the
 *    same name is a new Volume (REMOVED for the old handle, ADDED for the new one).
 *  - A change set. Every call that alters the inventory (flush, scan, device add/change/remove,
 *    the refresh calls, inventory_apply_controller_cli) records, per volume, whether it was
 *    added, changed (and what: INVENTORY_CHANGE_* bits) or removed. Records accumulate and merge
 *    until the owner takes them (inventory_get_changes()) and clears them.
 *  - Batches. Device events are queued (inventory_queue_*: no I/O, no relink) and applied by
 *    inventory_flush(), which reads at most `budget` devices and relinks the graph once, so a
 *    coldplug storm of hundreds of uevents costs one relink per loop iteration, not one each.
 *
 * Daemon wiring (sd-event): discovery_inventory_queue_handler() queues the uevents, a timer calls
 * inventory_queue_rescan() (the safety net) and inventory_refresh_dm_raid(), and
 * inventory_attach_event() flushes in bounded steps, one per loop iteration, and hands each change
 * set to the owner's handler (which passes it on to md_monitor_apply_changes() and the reports). */

#include <stdbool.h>
#include <stddef.h>
#include <systemd/sd-event.h>

#include "basic/macro.h"
#include "basic/string-table.h"
#include "model/blockstat.h"
#include "model/controller-cli.h"
#include "model/mdstat.h"
#include "model/volume.h"
#include "sources/dm-status.h"
#include "sources/udev-props.h"

typedef struct Inventory Inventory;

/* ---- lifecycle ---------------------------------------------------------------------------- */

/* New, empty inventory over `root_fd` (a directory fd of "/" or a fixture tree; it is dup'd,
 * the caller keeps its own). dm text comes from `dm` (copied; NULL = no dm text: dm volumes
 * then have no target type). udev properties come from the fixture provider below the root
 * (run/udev/data) until inventory_set_udev_provider() says otherwise. Returns 0 or -errno. */
int inventory_new(int root_fd, const DmStatusProvider *dm, Inventory **ret);

/* Convenience for the edges: open `root` (a path; "/" for the live system) and pick the
 * providers: libdevmapper (by device number) and libudev for the live root, the dm/ and
 * run/udev/data files below the root otherwise. */
int inventory_new_for_root(const char *root, Inventory **ret);

/* Replace the udev property provider (copied; NULL = no udev properties). Takes effect at the
 * next read of a device. */
void inventory_set_udev_provider(Inventory *inv, const UdevPropsProvider *udev);

/* Flags for controller_lookup() (model/controller.h): CONTROLLER_ALLOW_TEST lets the VM suite
 * treat scsi_debug hosts as controllers. Default 0. Takes effect at the next read. */
void inventory_set_controller_flags(Inventory *inv, unsigned flags);

/* Frees every volume (removed ones still held for the change set included) and the queue.
 * Accepts NULL, returns NULL. */
Inventory *inventory_free(Inventory *inv);
DEFINE_TRIVIAL_CLEANUP_FUNC(Inventory *, inventory_free);

/* True if the inventory was made by inventory_new_for_root() over the running system's "/" (then
 * the libudev and libdevmapper providers are in use, and uevents can be had through Discovery). */
bool inventory_is_live(const Inventory *inv) _pure_;

/* The (dup'd) root directory fd; owned by the inventory. For watchers that open attributes:
 * openat(inventory_root_fd(inv), v->syspath, ...). */
int inventory_root_fd(const Inventory *inv) _pure_;

/* ---- change set --------------------------------------------------------------------------- */

/* What changed in a volume (bits of InventoryChange.what). */
#define INVENTORY_CHANGE_HEALTH  (1U << 0) /* health */
#define INVENTORY_CHANGE_STATE   (1U << 1) /* state text, dm suspended */
#define INVENTORY_CHANGE_MEMBERS (1U << 2) /* array members (names, states, slots, errors), */
                                           /* raid_disks, degraded */
#define INVENTORY_CHANGE_SYNC  (1U << 3)   /* the sync figures (action, progress, speed, ...) */
#define INVENTORY_CHANGE_SIZE  (1U << 4)   /* size_bytes, logical_block_size */
#define INVENTORY_CHANGE_LINKS (1U << 5)   /* stack graph: members, holders, hidden, folding */
#define INVENTORY_CHANGE_OTHER (1U << 6)   /* anything else: kind, level, names, vendor data, */
                                           /* CLI data, the parsed MdArray / dm-raid status */
#define INVENTORY_CHANGE_ALL ((1U << 7) - 1)

typedef enum InventoryChangeType {
        INVENTORY_VOLUME_ADDED,   /* new handle; `what` is INVENTORY_CHANGE_ALL */
        INVENTORY_VOLUME_CHANGED, /* `what` says what differs from the last reading */
        INVENTORY_VOLUME_REMOVED, /* gone; the handle is readable until the changes are cleared */
        _INVENTORY_CHANGE_TYPE_MAX,
        _INVENTORY_CHANGE_TYPE_INVALID = -EINVAL,
} InventoryChangeType;

DECLARE_STRING_TABLE_LOOKUP(inventory_change_type, InventoryChangeType);

typedef struct InventoryChange {
        InventoryChangeType type;
        unsigned what;  /* INVENTORY_CHANGE_* bits; 0 for REMOVED */
        Volume *volume; /* the handle (owned by the inventory) */
} InventoryChange;

/* The changes recorded since the last inventory_clear_changes(), at most one per handle, in the
 * order each handle first changed. Merged: ADDED then CHANGED stays ADDED; ADDED then REMOVED
 * disappears (the handle is still kept until the clear); CHANGED then REMOVED is REMOVED; two
 * CHANGED or their bits together. A volume whose reading did not change is not listed. The array
 * is owned by the inventory and valid until the next call that alters the inventory. *ret_n may
 * be NULL. Never fails; NULL and *ret_n = 0 when empty. */
const InventoryChange *inventory_get_changes(const Inventory *inv, size_t *ret_n);

/* Forget the recorded changes and free the removed volumes they held. */
void inventory_clear_changes(Inventory *inv);

/* ---- batched events (the daemon's path) --------------------------------------------------- */

/* Queue an add or change event of one device by kernel name ("md0", "dm-4", "sda1"): it is
 * (re)read at the next inventory_flush(). Repeated events of one name coalesce. No I/O. Returns
 * 0, -EINVAL for a name that is not a plain file name, -ENOMEM. */
int inventory_queue_device(Inventory *inv, const char *name);

/* Queue a remove event: at the flush the handle is dropped (REMOVED) without asking sysfs. An add
 * or change queued after it in the same batch re-reads the device as a new handle. Returns as
 * inventory_queue_device(). */
int inventory_queue_remove(Inventory *inv, const char *name);

/* Queue the safety net: list <root>/sys/class/block now, queue every entry as a change and a
 * removal of every known volume not listed. Returns the number of names queued, or -errno if the
 * directory cannot be listed (nothing queued then). */
int inventory_queue_rescan(Inventory *inv);

/* Number of device names waiting for a flush. */
size_t inventory_queued(const Inventory *inv) _pure_;

/* Apply up to `budget` queued names (0 = all), in name order: re-read /proc/mdstat once if an md
 * device is among them, read each device (one that is gone from sysfs is removed), then relink
 * the graph once and record the changes, including volumes whose links changed because of their
 * neighbours. A device that cannot be read (other than gone) keeps its previous reading. Returns
 * the number of names still queued (> 0: flush again, e.g. on the next loop iteration) or -ENOMEM
 * (the inventory stays consistent: what was applied is linked). */
int inventory_flush(Inventory *inv, size_t budget);

/* Called with the change set taken out of the inventory (so the handler may alter the inventory:
 * that starts a new set, dispatched on a later iteration). The records and the removed handles
 * they hold are valid during the call and freed after it. */
typedef void (*InventoryChangesHandler)(Inventory *inv, const InventoryChange *changes, size_t n,
                                        void *userdata);

/* Drive the batches from sd-event loop `e`: after every loop iteration that dispatched something
 * (a post source), if names are queued or changes recorded, a one-shot defer source runs on the
 * next iteration: inventory_flush(inv, budget) (0 = all), then `handler` with the change set if it
 * is not empty, then the set is cleared; while names remain, it runs again on the following
 * iteration, so one iteration reads at most `budget` devices. Changes recorded by direct calls
 * (scan, refreshes, device add) are dispatched the same way. One attachment per inventory; the
 * sources are released by inventory_free(). Returns 0, -EBUSY if attached already, or -errno. */
int inventory_attach_event(Inventory *inv, sd_event *e, size_t budget,
                           InventoryChangesHandler handler, void *userdata);

/* ---- immediate operations (one-shot callers, tests) --------------------------------------- */

/* Full re-read, applied at once: inventory_queue_rescan() + inventory_flush(inv, 0). Safe to call
 * periodically (the safety net). Returns 0 or -errno if <root>/sys/class/block cannot be listed; a
 * single unreadable device is skipped (it is not an error of the scan). */
int inventory_scan(Inventory *inv);

/* Read (or re-read) one device now and relink: add and change are the same operation (change of
 * an unknown device adds it). Anything already queued stays queued. Returns 1 if the volume is
 * new, 0 if it was known, -ENOENT if the device is not in sysfs (then any old entry is removed),
 * other -errno. */
int inventory_device_add(Inventory *inv, const char *name);
int inventory_device_change(Inventory *inv, const char *name);

/* Forget one device now and relink. Returns 1 if it was known, 0 otherwise. */
int inventory_device_remove(Inventory *inv, const char *name);

/* Re-read <root>/proc/mdstat (fine-grained md progress) and refresh every md volume's sync
 * figures from it and the array's last md/ reading (no other sysfs read, no relink); changed
 * figures are recorded as INVENTORY_CHANGE_SYNC. A missing /proc/mdstat is no md at all (0).
 * Returns 0 or -errno (then the previous mdstat text is dropped too). */
int inventory_refresh_mdstat(Inventory *inv);

/* The last /proc/mdstat reading, NULL if there is none. Owned by the inventory; valid until the
 * next flush, scan, md add/change or refresh. */
const Mdstat *inventory_get_mdstat(const Inventory *inv) _pure_;

/* dm-raid sends no uevent when a leg fails or a resync moves, nor does a thin pool running out
 * of space, a snapshot turning invalid or a multipath path failing: re-query the table and status
 * (DM_DEVICE_TABLE/STATUS ioctls by device number, no flush, never waiting on a suspended device)
 * of every volume inventory_dm_is_polled() names, and refresh its health, verdict, degraded count,
 * legs, sync figures and judge figures; changes are recorded (HEALTH/MEMBERS/SYNC/OTHER). No
 * sysfs read, no relink. Cheap enough for a timer of a few seconds. Returns the number of volumes
 * refreshed or -ENOMEM; a status that cannot be read makes that volume's health unknown. */
int inventory_refresh_dm_raid(Inventory *inv);

/* The fast path of the refresh above: one DM_LIST_DEVICES ioctl gives every dm device's event
 * counter, and only the polled volumes whose counter moved since their last read here (or never
 * read here), or whose resync/recovery runs, are re-read, as above. Cheap enough for a timer of
 * half a second however many dm devices there are. Returns the number re-read, -EOPNOTSUPP when
 * the provider has no counters (fixtures, a kernel before 4.14: the slow refresh is all there
 * is), other -errno from the ioctl, -ENOMEM. */
int inventory_refresh_dm_live(Inventory *inv);

/* Whether v is a dm device whose status the refresh above polls: a "raid" target or one with a
 * judge (model/dm-judge.h: thin-pool, thin, snapshot, multipath, striped, mirror, ...). */
bool inventory_dm_is_polled(const Volume *v) _pure_;

/* The owner's clock says an md array read as assembling (RAID_VERDICT_ASSEMBLING: inactive with
 * members) has stayed so past its grace period: judge it RAID_VERDICT_NOT_ASSEMBLED, health
 * failed (its data is not served), and keep that through re-reads while the kernel still shows it
 * inactive with members. Records a HEALTH change. Returns 1 if marked, 0 if v is not assembling,
 * -EINVAL, -ENOMEM. */
int inventory_mark_not_assembled(Inventory *inv, Volume *v);

/* ---- queries ------------------------------------------------------------------------------ */

/* Number of volumes (hidden ones included, removed ones not), and the i-th in name order (NULL if
 * out of range). The index of a volume moves when others come and go; its pointer does not. */
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
 * rebuilding -> degraded, failed and offline -> failed) and sync (operation, progress, ETA); a
 * later re-read of the device from sysfs keeps them until the next call. Changes are recorded.
 * Returns the number of volumes matched. Pure apart from the inventory's own data. */
int inventory_apply_controller_cli(Inventory *inv, ControllerCli cli,
                                   const ControllerVolumeList *l);

/* Passive load: read and parse <root>/<v->syspath>/stat (Documentation/block/stat.rst; the
 * kernel's own counters, no I/O to the device). Feed two readings to blockstat_delta() for
 * utilisation and await. Returns 0, -ENOENT if the device is gone, -EINVAL for garbage. */
int inventory_read_stat(const Inventory *inv, const Volume *v, BlockStat *ret);

/* The `storpulsectl volumes --json` document: a JSON array of volume_to_json() objects for every
 * visible (not hidden) volume, in name order, each with its health through the stack
 * (`effective_state`, `effective_cause`: core/stack-health.h). Returns 0 and a new reference, or
 * -ENOMEM. */
int inventory_to_json(const Inventory *inv, json_object **ret);

/* Attribute the problem of `v` to the lowest layer that shows it: walks v's members downwards
 * and returns the lowest volume that itself has a problem (volume_has_problem()), preferring a
 * faulty/missing array member's own volume when the array names one. *ret_member, if not NULL,
 * gets the name of the array member the lowest problem volume reports as faulty (or NULL).
 * Returns 1 and *ret if something below or at v has a problem, 0 (and *ret untouched) if all is
 * well. Cycles in a corrupt graph are cut. */
int inventory_attribute_problem(const Inventory *inv, const Volume *v, const Volume **ret,
                                const char **ret_member);

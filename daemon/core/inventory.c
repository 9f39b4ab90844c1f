/* SPDX-License-Identifier: MIT */
/* The inventory: every block device below an injected root and the stack graph between them,
 * held for as long as the owner likes (see include/core/inventory.h for what a holder may rely
 * on). This file is the object itself: lifecycle, the event queue and its batches, the refresh
 * calls and the queries. Reading one device is inventory-read.c's, the graph inventory-link.c's,
 * the change set inventory-change.c's, vendor CLI data inventory-cli.c's.
 *
 * Invariants: volumes[] is sorted by kernel name and names are unique; a Volume, once in it,
 * never moves (a re-read swaps the new reading into the existing object, keeping what is not part
 * of a reading: links, the `slow` flag of upper layers, the vendor CLI's data); a removed Volume
 * goes to removed[] until the change set is cleared. Per-device reads are the only way a volume
 * enters, so coldplug (scan) and hotplug share one path; every batch ends in one relink. */

#include <errno.h>
#include <fcntl.h>
#include <libudev.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "basic/fileio.h"
#include "basic/sort-util.h"
#include "basic/sysfs.h"
#include "core/inventory-internal.h"
#include "model/dm-judge.h"
#include "core/stack-health.h"
#include "model/md.h"
#include "model/mdstat.h"

int inventory_new(int root_fd, const DmStatusProvider *dm, Inventory **ret) {
        Inventory *inv;

        if (root_fd < 0 || !ret)
                return -EINVAL;
        inv = calloc(1, sizeof(*inv));
        if (!inv)
                return -ENOMEM;
        inv->root_fd = fcntl(root_fd, F_DUPFD_CLOEXEC, 3);
        if (inv->root_fd < 0) {
                int r = -errno;
                free(inv);
                return r;
        }
        if (dm)
                inv->dm = *dm;
        inv->udev = (UdevPropsProvider){ .get = udev_props_get_files, .userdata = &inv->root_fd };
        *ret = inv;
        return 0;
}

static bool is_live_root(int fd) {
        struct stat a, b;

        return stat("/", &a) >= 0 && fstat(fd, &b) >= 0 && a.st_dev == b.st_dev &&
               a.st_ino == b.st_ino;
}

int inventory_new_for_root(const char *root, Inventory **ret) {
        _cleanup_close_ int fd = -EBADF;
        Inventory *inv;
        int r;

        if (!root || !ret)
                return -EINVAL;
        fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        r = inventory_new(fd, NULL, &inv);
        if (r < 0)
                return r;
        if (is_live_root(fd)) {
                inv->live = true;
                inv->dm = (DmStatusProvider){ .get = dm_status_get_libdm,
                                              .list = dm_status_list_ioctl };
                inv->udev_ctx = udev_new();
                if (!inv->udev_ctx) {
                        inventory_free(inv);
                        return -ENOMEM;
                }
                inv->udev = (UdevPropsProvider){ .get = udev_props_get_libudev,
                                                 .userdata = inv->udev_ctx };
        } else
                inv->dm = (DmStatusProvider){ .get = dm_status_get_files,
                                              .list = dm_status_list_files,
                                              .userdata = &inv->root_fd };
        *ret = inv;
        return 0;
}

void inventory_set_udev_provider(Inventory *inv, const UdevPropsProvider *udev) {
        if (inv)
                inv->udev = udev ? *udev : (UdevPropsProvider){};
}

void inventory_set_controller_flags(Inventory *inv, unsigned flags) {
        if (inv)
                inv->controller_flags = flags;
}

Inventory *inventory_free(Inventory *inv) {
        if (!inv)
                return NULL;
        sd_event_source_disable_unref(inv->post);
        sd_event_source_disable_unref(inv->defer);
        for (size_t i = 0; i < inv->n_volumes; i++)
                volume_free(inv->volumes[i]);
        free(inv->volumes);
        inventory_clear_changes(inv);
        free(inv->changes);
        free(inv->removed);
        for (size_t i = 0; i < inv->n_queue; i++)
                free(inv->queue[i].name);
        free(inv->queue);
        mdstat_free(inv->mdstat);
        udev_unref(inv->udev_ctx);
        safe_close(inv->root_fd);
        free(inv);
        return NULL;
}

bool inventory_is_live(const Inventory *inv) {
        return inv && inv->live;
}

int inventory_root_fd(const Inventory *inv) {
        return inv ? inv->root_fd : -EBADF;
}

/* ---- lookup ------------------------------------------------------------------------------- */

size_t inventory_size(const Inventory *inv) {
        return inv ? inv->n_volumes : 0;
}

Volume *inventory_get_nth(const Inventory *inv, size_t i) {
        if (!inv || i >= inv->n_volumes)
                return NULL;
        return inv->volumes[i];
}

static int volume_cmp(const void *key, const void *element) {
        return strcmp(key, (*(Volume *const *) element)->name);
}

bool inventory_find_index(const Inventory *inv, const char *name, size_t *ret_idx) {
        return bsearch_index(name, inv->volumes, inv->n_volumes, sizeof(Volume *), volume_cmp,
                             ret_idx);
}

Volume *inventory_get(const Inventory *inv, const char *name) {
        size_t i;

        if (!inv || !name)
                return NULL;
        return inventory_find_index(inv, name, &i) ? inv->volumes[i] : NULL;
}

const Mdstat *inventory_get_mdstat(const Inventory *inv) {
        return inv ? inv->mdstat : NULL;
}

bool inventory_name_is_valid(const char *name) {
        return name && *name && name[0] != '.' && !strchr(name, '/') && strlen(name) < NAME_MAX;
}

int inventory_strdup_to(char **dst, const char *s) {
        char *t = NULL;

        if (s) {
                t = strdup(s);
                if (!t)
                        return -ENOMEM;
        }
        free(*dst);
        *dst = t;
        return 0;
}

/* ---- applying one reading ----------------------------------------------------------------- */

/* Move the handle out of volumes[] into removed[] and record it. */
static int remove_volume(Inventory *inv, const char *name) {
        Volume **l;
        Volume *v;
        size_t idx;

        if (!inventory_find_index(inv, name, &idx))
                return 0;
        l = reallocarray(inv->removed, inv->n_removed + 1, sizeof(Volume *));
        if (!l)
                return -ENOMEM;
        inv->removed = l;
        v = inv->volumes[idx];
        memmove(inv->volumes + idx, inv->volumes + idx + 1,
                (inv->n_volumes - idx - 1) * sizeof(Volume *));
        inv->n_volumes--;
        inv->removed[inv->n_removed++] = v;
        /* unlinked: a removed handle sits on nothing and holds nothing any more */
        v->members = strv_free(v->members);
        v->holders = strv_free(v->holders);
        v->container_arrays = strv_free(v->container_arrays);
        if (inventory_record_change(inv, v, INVENTORY_VOLUME_REMOVED, 0) < 0)
                return -ENOMEM;
        return 1;
}

#define SWAP(a, b)                                                                                 \
        do {                                                                                       \
                typeof(a) _t_ = (a);                                                               \
                (a) = (b);                                                                         \
                (b) = _t_;                                                                         \
        } while (0)

/* Put the new reading `nv` into the existing handle `old` (which keeps its address), then free
 * what is left of the old reading. Links and dm-raid legs stay for inventory_link() to compare. */
static void take_reading(Volume *old, Volume *nv) {
        SWAP(*old, *nv); /* old: the new reading; nv: the previous one */
        SWAP(old->members, nv->members);
        SWAP(old->holders, nv->holders);
        SWAP(old->container_arrays, nv->container_arrays);
        SWAP(old->folded_into, nv->folded_into);
        old->hidden = nv->hidden;
        old->slow = nv->slow;
        if (old->kind != VOLUME_MD) {
                SWAP(old->array_members, nv->array_members);
                SWAP(old->n_array_members, nv->n_array_members);
        }
        volume_free(nv);
}

static const char not_assembled_reason[] =
        "inactive with members for longer than the grace period: not assembled";

static void apply_not_assembled(Volume *v) {
        v->verdict = RAID_VERDICT_NOT_ASSEMBLED;
        v->verdict_reason = not_assembled_reason;
        v->health = VOLUME_HEALTH_FAILED;
}

int inventory_mark_not_assembled(Inventory *inv, Volume *v) {
        if (!inv || !v)
                return -EINVAL;
        if (v->verdict != RAID_VERDICT_ASSEMBLING)
                return 0;
        apply_not_assembled(v);
        return inventory_record_change(inv, v, INVENTORY_VOLUME_CHANGED, INVENTORY_CHANGE_HEALTH) <
                               0
                       ? -ENOMEM
                       : 1;
}

/* Read `name` and apply it: 1 new handle, 0 known (updated in place), -ENOENT gone (removed). */
static int device_read_apply(Inventory *inv, const char *name) {
        _cleanup_(volume_freep) Volume *nv = NULL;
        Volume **l;
        size_t idx;
        int r;

        r = inventory_read_device(inv, name, &nv);
        if (r == -ENOENT) {
                int k = remove_volume(inv, name);
                return k < 0 ? k : r;
        }
        if (r < 0)
                return r;
        if (inventory_find_index(inv, name, &idx)) {
                Volume *old = inv->volumes[idx];
                unsigned what;

                r = inventory_cli_carry_over(nv, old);
                if (r < 0)
                        return r;
                /* the owner's judgement holds while the kernel still shows the same */
                if (old->verdict == RAID_VERDICT_NOT_ASSEMBLED &&
                    nv->verdict == RAID_VERDICT_ASSEMBLING)
                        apply_not_assembled(nv);
                what = inventory_reading_diff(old, nv);
                take_reading(old, TAKE_PTR(nv));
                if (what && inventory_record_change(inv, old, INVENTORY_VOLUME_CHANGED, what) < 0)
                        return -ENOMEM;
                return 0;
        }
        l = reallocarray(inv->volumes, inv->n_volumes + 1, sizeof(Volume *));
        if (!l)
                return -ENOMEM;
        inv->volumes = l;
        memmove(inv->volumes + idx + 1, inv->volumes + idx,
                (inv->n_volumes - idx) * sizeof(Volume *));
        inv->volumes[idx] = nv;
        inv->n_volumes++;
        if (inventory_record_change(inv, TAKE_PTR(nv), INVENTORY_VOLUME_ADDED, 0) < 0)
                return -ENOMEM;
        return 1;
}

/* ---- the queue and its batches ------------------------------------------------------------ */

static int queued_cmp(const void *key, const void *element) {
        return strcmp(key, ((const InventoryQueued *) element)->name);
}

static bool queue_find(const Inventory *inv, const char *name, size_t *ret_idx) {
        return bsearch_index(name, inv->queue, inv->n_queue, sizeof(InventoryQueued), queued_cmp,
                             ret_idx);
}

static InventoryQueued *queue_get(Inventory *inv, const char *name) {
        InventoryQueued *l;
        size_t idx;
        char *n;

        if (queue_find(inv, name, &idx))
                return &inv->queue[idx];
        n = strdup(name);
        if (!n)
                return NULL;
        l = reallocarray(inv->queue, inv->n_queue + 1, sizeof(*l));
        if (!l) {
                free(n);
                return NULL;
        }
        inv->queue = l;
        memmove(l + idx + 1, l + idx, (inv->n_queue - idx) * sizeof(*l));
        l[idx] = (InventoryQueued){ .name = n };
        inv->n_queue++;
        return &l[idx];
}

/* A device to read again (remove == false), or one to drop first and read again only if a later
 * event asks: a remove overtakes an earlier add/change, a later add/change sets read again. */
static int queue_mark(Inventory *inv, const char *name, bool remove) {
        InventoryQueued *q;

        if (!inv || !inventory_name_is_valid(name))
                return -EINVAL;
        q = queue_get(inv, name);
        if (!q)
                return -ENOMEM;
        if (remove)
                q->remove_first = true;
        q->read = !remove;
        return 0;
}

int inventory_queue_device(Inventory *inv, const char *name) {
        return queue_mark(inv, name, false);
}

int inventory_queue_remove(Inventory *inv, const char *name) {
        return queue_mark(inv, name, true);
}

size_t inventory_queued(const Inventory *inv) {
        return inv ? inv->n_queue : 0;
}

int inventory_queue_rescan(Inventory *inv) {
        _cleanup_strv_free_ char **names = NULL;
        size_t n;
        int r, queued = 0;

        if (!inv)
                return -EINVAL;
        r = sysfs_list_dir(inv->root_fd, "sys/class/block", &names, &n);
        if (r < 0)
                return r;
        if (faccessat(inv->root_fd, "sys/class/block", F_OK, 0) < 0)
                return -errno; /* sysfs_list_dir() takes a missing directory for an empty one */

        for (size_t i = 0; i < inv->n_volumes; i++)
                if (!strv_contains(names, inv->volumes[i]->name)) {
                        r = inventory_queue_remove(inv, inv->volumes[i]->name);
                        if (r < 0)
                                return r;
                        queued++;
                }
        for (size_t i = 0; i < n; i++) {
                if (!inventory_name_is_valid(names[i]))
                        continue;
                r = inventory_queue_device(inv, names[i]);
                if (r < 0)
                        return r;
                queued++;
        }
        return queued;
}

static bool batch_has_md(const InventoryQueued *q, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (q[i].read && strncmp(q[i].name, "md", 2) == 0)
                        return true;
        return false;
}

/* Apply a batch taken off the queue (owned by the caller), without relinking. */
static int apply_batch(Inventory *inv, const InventoryQueued *q, size_t n, bool read_mdstat) {
        int r = 0;

        if (read_mdstat && batch_has_md(q, n))
                (void) inventory_refresh_mdstat(inv);
        for (size_t i = 0; i < n; i++) {
                int k = 0;

                if (q[i].remove_first)
                        k = remove_volume(inv, q[i].name);
                if (k >= 0 && q[i].read)
                        k = device_read_apply(inv, q[i].name);
                if (k == -ENOMEM && r == 0)
                        r = k; /* go on: what is applied gets linked */
        }
        return r;
}

static int flush_internal(Inventory *inv, size_t budget, bool read_mdstat) {
        InventoryQueued *batch;
        size_t n;
        int r, k;

        n = budget == 0 || budget > inv->n_queue ? inv->n_queue : budget;
        batch = inv->queue;
        if (n == inv->n_queue) {
                inv->queue = NULL;
                inv->n_queue = 0;
        } else {
                batch = malloc(n * sizeof(*batch));
                if (!batch)
                        return -ENOMEM;
                memcpy(batch, inv->queue, n * sizeof(*batch));
                memmove(inv->queue, inv->queue + n, (inv->n_queue - n) * sizeof(*batch));
                inv->n_queue -= n;
        }
        r = apply_batch(inv, batch, n, read_mdstat);
        for (size_t i = 0; i < n; i++)
                free(batch[i].name);
        free(batch);
        k = inventory_link(inv);
        if (r < 0 || k < 0)
                return -ENOMEM;
        return (int) MIN(inv->n_queue, (size_t) INT_MAX);
}

int inventory_flush(Inventory *inv, size_t budget) {
        if (!inv)
                return -EINVAL;
        return flush_internal(inv, budget, true);
}

/* ---- the sd-event driver ------------------------------------------------------------------ */

static int on_defer(sd_event_source *s, void *userdata) {
        Inventory *inv = userdata;
        InventoryChange *changes;
        Volume **removed;
        size_t n, n_removed;

        if (inv->n_queue > 0)
                (void) inventory_flush(inv, inv->budget); /* -ENOMEM: what was applied is linked */
        if (inv->n_queue > 0)
                (void) sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
        if (inv->n_changes == 0)
                return 0;

        /* Take the set out: records made by the handler start a new one. */
        changes = TAKE_PTR(inv->changes);
        n = inv->n_changes;
        removed = TAKE_PTR(inv->removed);
        n_removed = inv->n_removed;
        inv->n_changes = inv->n_changes_allocated = inv->n_removed = 0;
        if (inv->handler)
                inv->handler(inv, changes, n, inv->handler_userdata);
        free(changes);
        for (size_t i = 0; i < n_removed; i++)
                volume_free(removed[i]);
        free(removed);
        return 0;
}

static int on_post(sd_event_source *s, void *userdata) {
        Inventory *inv = userdata;

        if (inv->n_queue > 0 || inv->n_changes > 0)
                (void) sd_event_source_set_enabled(inv->defer, SD_EVENT_ONESHOT);
        return 0;
}

int inventory_attach_event(Inventory *inv, sd_event *e, size_t budget,
                           InventoryChangesHandler handler, void *userdata) {
        int r;

        if (!inv || !e)
                return -EINVAL;
        if (inv->defer)
                return -EBUSY;
        r = sd_event_add_defer(e, &inv->defer, on_defer, inv);
        if (r < 0)
                return r;
        r = sd_event_add_post(e, &inv->post, on_post, inv);
        if (r < 0) {
                inv->defer = sd_event_source_disable_unref(inv->defer);
                return r;
        }
        /* the first iteration dispatches what is there already */
        (void) sd_event_source_set_enabled(inv->defer, SD_EVENT_ONESHOT);
        inv->budget = budget;
        inv->handler = handler;
        inv->handler_userdata = userdata;
        return 0;
}

/* ---- immediate operations ----------------------------------------------------------------- */

int inventory_scan(Inventory *inv) {
        int r;

        if (!inv)
                return -EINVAL;
        r = inventory_queue_rescan(inv);
        if (r < 0)
                return r;
        (void) inventory_refresh_mdstat(inv);
        r = flush_internal(inv, 0, false);
        return r < 0 ? r : 0;
}

int inventory_device_add(Inventory *inv, const char *name) {
        int r, k;

        if (!inv || !inventory_name_is_valid(name))
                return -EINVAL;
        if (strncmp(name, "md", 2) == 0)
                (void) inventory_refresh_mdstat(inv);
        r = device_read_apply(inv, name);
        k = inventory_link(inv);
        if (r < 0)
                return r;
        return k < 0 ? k : r;
}

int inventory_device_change(Inventory *inv, const char *name) {
        return inventory_device_add(inv, name);
}

int inventory_device_remove(Inventory *inv, const char *name) {
        int r, k;

        if (!inv || !name)
                return -EINVAL;
        r = remove_volume(inv, name);
        k = inventory_link(inv);
        if (r < 0)
                return r;
        return k < 0 ? k : r;
}

/* ---- refreshes without uevents ------------------------------------------------------------ */

int inventory_refresh_mdstat(Inventory *inv) {
        _cleanup_free_ char *text = NULL;
        Mdstat *m = NULL;
        size_t n;
        int r;

        if (!inv)
                return -EINVAL;
        r = read_full_file_at(inv->root_fd, "proc/mdstat", &text, &n);
        if (r >= 0)
                r = mdstat_parse(text, &m);
        mdstat_free(inv->mdstat);
        inv->mdstat = m;

        /* the figures follow the text, as volumes and watch both read them */
        for (size_t i = 0; i < inv->n_volumes; i++) {
                Volume *v = inv->volumes[i];
                VolumeSync old;

                if (v->kind != VOLUME_MD || !v->md)
                        continue;
                if (inventory_sync_copy(&old, &v->sync) < 0)
                        return -ENOMEM;
                inventory_md_fill_sync(v, v->md, inv->mdstat);
                if (!inventory_sync_equal(&old, &v->sync) &&
                    inventory_record_change(inv, v, INVENTORY_VOLUME_CHANGED,
                                            INVENTORY_CHANGE_SYNC) < 0) {
                        free(old.action);
                        return -ENOMEM;
                }
                free(old.action);
        }
        if (r == -ENOENT)
                return 0;
        return r < 0 ? r : 0;
}

/* ---- queries ------------------------------------------------------------------------------ */

static bool volume_is_visible(const Volume *v) {
        return v && !v->hidden;
}

bool inventory_is_top_level(const Inventory *inv, const Volume *v) {
        if (!v || v->hidden)
                return false;
        for (size_t i = 0; v->holders && v->holders[i]; i++)
                if (volume_is_visible(inventory_get(inv, v->holders[i])))
                        return false;
        return true;
}

static void find_lowest(const Inventory *inv, const Volume *v, unsigned depth, bool *visited,
                        const Volume **best, unsigned *best_depth) {
        size_t idx;

        if (!v || depth > 32 || !inventory_find_index(inv, v->name, &idx) || visited[idx])
                return;
        visited[idx] = true;
        if (volume_has_problem(v) && (!*best || depth > *best_depth)) {
                *best = v;
                *best_depth = depth;
        }
        for (size_t i = 0; v->members && v->members[i]; i++)
                find_lowest(inv, inventory_get(inv, v->members[i]), depth + 1, visited, best,
                            best_depth);
}

static bool state_is_bad(const char *s) {
        return s && (strstr(s, "faulty") || strstr(s, "missing") || strstr(s, "blocked") ||
                     strstr(s, "write_error"));
}

int inventory_attribute_problem(const Inventory *inv, const Volume *v, const Volume **ret,
                                const char **ret_member) {
        _cleanup_free_ bool *visited = NULL;
        const Volume *best = NULL;
        unsigned best_depth = 0;

        if (!inv || !v || !ret)
                return -EINVAL;
        visited = calloc(inv->n_volumes + 1, sizeof(bool));
        if (!visited)
                return -ENOMEM;
        find_lowest(inv, v, 0, visited, &best, &best_depth);
        if (!best)
                return 0;
        if (ret_member) {
                *ret_member = NULL;
                for (size_t i = 0; i < best->n_array_members; i++)
                        if (state_is_bad(best->array_members[i].state)) {
                                *ret_member = best->array_members[i].name;
                                break;
                        }
        }
        *ret = best;
        return 1;
}

int inventory_to_json(const Inventory *inv, json_object **ret) {
        _cleanup_free_ StackHealth *sh = NULL;
        json_object *a;

        if (!inv || !ret)
                return -EINVAL;
        sh = calloc(inv->n_volumes + 1, sizeof(*sh));
        if (!sh || stack_health_compute(inv, sh, inv->n_volumes) < 0)
                return -ENOMEM;
        a = json_object_new_array();
        if (!a)
                return -ENOMEM;
        for (size_t i = 0; i < inv->n_volumes; i++) {
                json_object *o;

                if (!volume_is_listed(inv->volumes[i]))
                        continue;
                if (volume_to_json(inv->volumes[i], &o) < 0)
                        goto out_nomem;
                if (stack_health_add_json(&sh[i], o) < 0) {
                        json_object_put(o);
                        goto out_nomem;
                }
                if (json_object_array_add(a, o) < 0) {
                        json_object_put(o);
                        goto out_nomem;
                }
        }
        *ret = a;
        return 0;

out_nomem:
        json_object_put(a);
        return -ENOMEM;
}

int inventory_read_stat(const Inventory *inv, const Volume *v, BlockStat *ret) {
        _cleanup_free_ char *text = NULL, *path = NULL;
        size_t n;
        int r;

        if (!inv || !v || !v->syspath || !ret)
                return -EINVAL;
        if (asprintf(&path, "%s/stat", v->syspath) < 0) {
                path = NULL;
                return -ENOMEM;
        }
        r = read_full_file_at(inv->root_fd, path, &text, &n);
        if (r < 0)
                return r;
        return blockstat_parse(text, ret);
}

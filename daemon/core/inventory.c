/* SPDX-License-Identifier: MIT */
/* The inventory: every block device below an injected root, read from sysfs (plus the udev
 * database, /proc/mdstat and dm text through a provider), and the stack graph between them.
 *
 * Invariants: volumes[] is sorted by kernel name and names are unique. Per-device reads
 * (inventory_device_add) are the only way a volume enters, so coldplug (inventory_scan) and
 * hotplug share one path. The graph (members, holders, folding of hidden LVM sub-LVs, dm-raid
 * legs) is derived data: it is recomputed from the raw sysfs slaves/holders lists after every
 * change, so it can never go stale against them, and a device whose neighbours changed without a
 * uevent of its own (md sends none for member changes) is still linked correctly.
 *
 * Nothing here opens a block device: it reads small text files and asks the dm provider, which
 * uses dm ioctls on the control node. A missing attribute leaves its field unknown; only a
 * device missing from sysfs altogether fails its read. */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/controller.h"
#include "model/dm.h"
#include "basic/fileio.h"
#include "core/inventory.h"
#include "model/md.h"
#include "model/mdstat.h"
#include "basic/parse-util.h"
#include "basic/sysfs.h"

struct Inventory {
        int root_fd;
        DmStatusProvider dm;
        bool dm_files; /* provider reads <root>/dm/: userdata is &root_fd */
        unsigned controller_flags;
        Volume **volumes;
        size_t n_volumes;
        Mdstat *mdstat;
};

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
        *ret = inv;
        return 0;
}

int inventory_new_for_root(const char *root, Inventory **ret) {
        _cleanup_close_ int fd = -EBADF;
        Inventory *inv;
        struct stat a, b;
        bool live;
        int r;

        if (!root || !ret)
                return -EINVAL;
        fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        live = stat("/", &a) >= 0 && fstat(fd, &b) >= 0 && a.st_dev == b.st_dev &&
               a.st_ino == b.st_ino;
        r = inventory_new(fd, NULL, &inv);
        if (r < 0)
                return r;
        if (live)
                inv->dm = (DmStatusProvider){ .get = dm_status_get_libdm };
        else {
                inv->dm =
                        (DmStatusProvider){ .get = dm_status_get_files, .userdata = &inv->root_fd };
                inv->dm_files = true;
        }
        *ret = inv;
        return 0;
}

Inventory *inventory_free(Inventory *inv) {
        if (!inv)
                return NULL;
        for (size_t i = 0; i < inv->n_volumes; i++)
                volume_free(inv->volumes[i]);
        free(inv->volumes);
        mdstat_free(inv->mdstat);
        safe_close(inv->root_fd);
        free(inv);
        return NULL;
}

int inventory_root_fd(const Inventory *inv) {
        return inv ? inv->root_fd : -EBADF;
}

void inventory_set_controller_flags(Inventory *inv, unsigned flags) {
        if (inv)
                inv->controller_flags = flags;
}

size_t inventory_size(const Inventory *inv) {
        return inv ? inv->n_volumes : 0;
}

Volume *inventory_get_nth(const Inventory *inv, size_t i) {
        if (!inv || i >= inv->n_volumes)
                return NULL;
        return inv->volumes[i];
}

/* Binary search; *ret_idx is the match or the insertion point. */
static bool find_index(const Inventory *inv, const char *name, size_t *ret_idx) {
        size_t lo = 0, hi = inv->n_volumes;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                int c = strcmp(inv->volumes[mid]->name, name);
                if (c == 0) {
                        *ret_idx = mid;
                        return true;
                }
                if (c < 0)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        *ret_idx = lo;
        return false;
}

Volume *inventory_get(const Inventory *inv, const char *name) {
        size_t i;

        if (!inv || !name)
                return NULL;
        return find_index(inv, name, &i) ? inv->volumes[i] : NULL;
}

static bool name_is_valid(const char *name) {
        return name && *name && name[0] != '.' && !strchr(name, '/') && strlen(name) < NAME_MAX;
}

static char *mfree(char *p) {
        free(p);
        return NULL;
}

static int strdup_to(char **dst, const char *s) {
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

/* ---- udev database ------------------------------------------------------------------------ */

/* The "E:KEY=value" lines of run/udev/data/b<maj>:<min> as a strv of "KEY=value". Missing file:
 * empty list. */
static int udev_db_read(int root_fd, unsigned major, unsigned minor, char ***ret) {
        _cleanup_free_ char *text = NULL;
        _cleanup_strv_free_ char **l = NULL;
        char path[64];
        size_t n;
        int r;

        (void) snprintf(path, sizeof(path), "run/udev/data/b%u:%u", major, minor);
        r = read_full_file_at(root_fd, path, &text, &n);
        if (r == -ENOENT || r == -ENOTDIR) {
                *ret = NULL;
                return 0;
        }
        if (r < 0)
                return r;
        for (char *line = text, *next; line && *line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = 0;
                if (strncmp(line, "E:", 2) != 0 || !strchr(line + 2, '='))
                        continue;
                r = strv_extend_unique(&l, line + 2);
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(l);
        return 0;
}

static const char *udev_get(char *const *props, const char *key) {
        size_t k = strlen(key);

        for (size_t i = 0; props && props[i]; i++)
                if (strncmp(props[i], key, k) == 0 && props[i][k] == '=')
                        return props[i][k + 1] ? props[i] + k + 1 : NULL;
        return NULL;
}

/* ---- per-kind readers --------------------------------------------------------------------- */

static void md_fill_sync(Volume *v, const MdArray *a, const Mdstat *mdstat) {
        const MdstatArray *ma = mdstat ? mdstat_find(mdstat, v->name) : NULL;
        const MdstatProgress *p =
                ma && ma->progress.kind == MDSTAT_PROGRESS_RUNNING ? &ma->progress : NULL;
        VolumeSync *s = &v->sync;
        uint64_t remaining_bytes = 0;
        bool running;

        free(s->action);
        *s = (VolumeSync){};
        if (a->sync_action != _MD_SYNC_ACTION_INVALID && a->sync_action_raw)
                s->action = strdup(a->sync_action_raw);
        s->delayed = a->sync_completed.kind == MD_SYNC_COMPLETED_DELAYED ||
                     (ma && ma->progress.kind == MDSTAT_PROGRESS_DELAYED);
        running =
                a->sync_action != MD_SYNC_ACTION_IDLE && a->sync_action != _MD_SYNC_ACTION_INVALID;

        if (a->mismatch_cnt != MD_UNSET) {
                s->has_mismatch_count = true;
                s->mismatch_count = a->mismatch_cnt;
        }
        if (!running)
                return;

        if (a->sync_completed.kind == MD_SYNC_COMPLETED_PROGRESS &&
            a->sync_completed.total_sectors > 0) {
                s->done_sectors = a->sync_completed.done_sectors;
                s->total_sectors = a->sync_completed.total_sectors;
                s->has_progress = true;
                s->progress = md_sync_completed_ratio(&a->sync_completed);
                if (s->done_sectors < s->total_sectors)
                        remaining_bytes =
                                MIN(s->total_sectors - s->done_sectors, UINT64_MAX / 512) * 512;
        }
        /* /proc/mdstat moves continuously, sync_completed only every ~1/16 of the device. */
        if (p && mdstat_progress_ratio(p) >= 0) {
                s->has_progress = true;
                s->progress = mdstat_progress_ratio(p);
                if (p->total_kib != MD_UNSET && p->done_kib <= p->total_kib &&
                    p->total_kib < UINT64_MAX / 1024) {
                        remaining_bytes = (p->total_kib - p->done_kib) * 1024;
                        s->done_sectors = p->done_kib * 2;
                        s->total_sectors = p->total_kib * 2;
                }
        }
        if (s->has_progress)
                s->progress = CLAMP(s->progress, 0.0, 1.0);
        if (a->sync_speed_kib_per_sec != MD_UNSET && a->sync_speed_kib_per_sec > 0 &&
            a->sync_speed_kib_per_sec < UINT64_MAX / 1024)
                s->speed_bytes_per_second = a->sync_speed_kib_per_sec * 1024;
        if (s->has_progress && s->speed_bytes_per_second > 0) {
                s->has_eta = true;
                s->eta_seconds = remaining_bytes / s->speed_bytes_per_second;
        }
}

static int read_md(Inventory *inv, Volume *v, int dev_fd) {
        _cleanup_close_ int md_fd = -EBADF;
        _cleanup_(md_array_freep) MdArray *a = NULL;
        int r;

        md_fd = openat(dev_fd, "md", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (md_fd < 0)
                return -errno;
        r = md_array_load(md_fd, &a);
        if (r < 0)
                return r;

        v->kind = VOLUME_MD;
        if (strdup_to(&v->level, a->level_raw) < 0 || strdup_to(&v->state, a->array_state_raw) < 0)
                return -ENOMEM;
        v->raid_disks =
                a->raid_disks != MD_UNSET && a->raid_disks <= INT_MAX ? (int) a->raid_disks : -1;
        v->degraded = a->degraded != MD_UNSET && a->degraded <= INT_MAX ? (int) a->degraded : -1;

        switch (a->array_state) {
        case MD_ARRAY_STATE_CLEAR:
        case MD_ARRAY_STATE_INACTIVE:
        case MD_ARRAY_STATE_BROKEN:
                v->health = VOLUME_HEALTH_FAILED;
                break;
        case MD_ARRAY_STATE_SUSPENDED:
        case MD_ARRAY_STATE_READONLY:
        case MD_ARRAY_STATE_READ_AUTO:
        case MD_ARRAY_STATE_CLEAN:
        case MD_ARRAY_STATE_ACTIVE:
        case MD_ARRAY_STATE_WRITE_PENDING:
        case MD_ARRAY_STATE_ACTIVE_IDLE:
        case MD_ARRAY_STATE_UNKNOWN:
                if (v->degraded > 0)
                        v->health = v->raid_disks > 0 && v->degraded >= v->raid_disks
                                            ? VOLUME_HEALTH_FAILED
                                            : VOLUME_HEALTH_DEGRADED;
                else
                        v->health = a->array_state == MD_ARRAY_STATE_UNKNOWN ? VOLUME_HEALTH_UNKNOWN
                                                                             : VOLUME_HEALTH_OK;
                break;
        case _MD_ARRAY_STATE_MAX:
        case _MD_ARRAY_STATE_INVALID:
                v->health = VOLUME_HEALTH_UNKNOWN;
                break;
        }

        v->array_members = calloc(a->n_members ? a->n_members : 1, sizeof(VolumeMember));
        if (!v->array_members)
                return -ENOMEM;
        for (size_t i = 0; i < a->n_members; i++) {
                VolumeMember *m = &v->array_members[v->n_array_members++];
                m->name = strdup(a->members[i].name);
                m->state = a->members[i].state_raw ? strdup(a->members[i].state_raw) : NULL;
                if (!m->name || (a->members[i].state_raw && !m->state))
                        return -ENOMEM;
                m->slot = a->members[i].slot >= 0 ? a->members[i].slot : -1;
                m->errors = a->members[i].errors != MD_UNSET && a->members[i].errors <= INT64_MAX
                                    ? (int64_t) a->members[i].errors
                                    : -1;
        }

        md_fill_sync(v, a, inv->mdstat);
        md_array_free(v->md);
        v->md = TAKE_PTR(a);
        return 0;
}

/* How many dead legs a dm-raid type survives; -1 when unknown (then only "all dead" fails). */
static int dm_raid_tolerance(const char *raid_type, unsigned n) {
        if (strncmp(raid_type, "raid0", 5) == 0)
                return 0;
        if (strcmp(raid_type, "raid1") == 0)
                return n > 0 ? (int) n - 1 : 0;
        if (strncmp(raid_type, "raid4", 5) == 0 || strncmp(raid_type, "raid5", 5) == 0)
                return 1;
        if (strncmp(raid_type, "raid6", 5) == 0)
                return 2;
        return -1;
}

static void dm_fill_raid(Volume *v, DmRaidStatus *st) {
        unsigned dead = dm_raid_status_count(st, DM_RAID_HEALTH_DEAD) +
                        dm_raid_status_count(st, DM_RAID_HEALTH_ABSENT);
        int tol = dm_raid_tolerance(st->raid_type, st->n_devices);
        VolumeSync *s = &v->sync;

        (void) strdup_to(&v->level, st->raid_type);
        v->raid_disks = (int) st->n_devices;
        v->degraded = (int) dead;
        if (dead == 0)
                v->health = VOLUME_HEALTH_OK;
        else if (dead >= st->n_devices || (tol >= 0 && dead > (unsigned) tol))
                v->health = VOLUME_HEALTH_FAILED;
        else
                v->health = VOLUME_HEALTH_DEGRADED;

        free(s->action);
        *s = (VolumeSync){};
        s->action = strdup(st->sync_action_raw);
        if (st->mismatch_cnt != DM_UNSET) {
                s->has_mismatch_count = true;
                s->mismatch_count = st->mismatch_cnt;
        }
        if (st->sync_action != DM_RAID_SYNC_ACTION_IDLE &&
            st->sync_action != DM_RAID_SYNC_ACTION_FROZEN && st->sync_total_sectors > 0) {
                s->has_progress = true;
                s->progress = CLAMP(dm_raid_status_sync_ratio(st), 0.0, 1.0);
                s->done_sectors = st->sync_done_sectors;
                s->total_sectors = st->sync_total_sectors;
        }
        /* One status line gives no speed: speed and ETA need two readings (rebuild tracker). */
}

static int dm_query_first_line(Inventory *inv, const Volume *v, DmQuery q, char **ret_text,
                               DmTargetLine *ret_line) {
        DmDeviceId id = { .name = v->dm_name, .major = v->major, .minor = v->minor };
        _cleanup_free_ char *text = NULL;
        char *nl;
        int r;

        if (!inv->dm.get)
                return -ENODEV;
        r = inv->dm.get(inv->dm.userdata, &id, q, &text);
        if (r < 0)
                return r;
        nl = strchr(text, '\n');
        if (nl)
                *nl = 0;
        r = dm_parse_target_line(text, ret_line);
        if (r < 0)
                return r;
        *ret_text = TAKE_PTR(text);
        return 0;
}

static int read_dm(Inventory *inv, Volume *v, int dev_fd, char *const *props) {
        _cleanup_free_ char *table = NULL, *status = NULL, *suspended = NULL;
        _cleanup_free_ char *vg = NULL, *lv = NULL, *layer = NULL, *parent = NULL;
        DmTargetLine tl, sl;
        const char *s;
        int r;

        (void) sysfs_read_string(dev_fd, "dm/name", &v->dm_name);
        (void) sysfs_read_string(dev_fd, "dm/uuid", &v->dm_uuid);
        if (!v->dm_name && (s = udev_get(props, "DM_NAME")) && strdup_to(&v->dm_name, s) < 0)
                return -ENOMEM;
        if (v->dm_uuid && !*v->dm_uuid) /* no uuid: the kernel prints an empty line */
                v->dm_uuid = mfree(v->dm_uuid);
        if (!v->dm_uuid && (s = udev_get(props, "DM_UUID")) && strdup_to(&v->dm_uuid, s) < 0)
                return -ENOMEM;
        if (sysfs_read_string(dev_fd, "dm/suspended", &suspended) >= 0)
                v->dm_suspended = strcmp(suspended, "0") != 0;

        v->kind = v->dm_uuid && strncmp(v->dm_uuid, "LVM-", 4) == 0 ? VOLUME_LVM : VOLUME_DM;
        if (v->kind == VOLUME_LVM) {
                if (v->dm_name && lvm_name_split(v->dm_name, &vg, &lv, &layer) >= 0) {
                        v->vg_name = TAKE_PTR(vg);
                        v->lv_name = TAKE_PTR(lv);
                }
                /* udev's names are authoritative (no '-' unescaping guesswork). */
                if ((s = udev_get(props, "DM_VG_NAME")) && strdup_to(&v->vg_name, s) < 0)
                        return -ENOMEM;
                if ((s = udev_get(props, "DM_LV_NAME")) && strdup_to(&v->lv_name, s) < 0)
                        return -ENOMEM;
                if (!layer && (s = udev_get(props, "DM_LV_LAYER")) && *s) {
                        layer = strdup(s);
                        if (!layer)
                                return -ENOMEM;
                }
                if (v->lv_name) {
                        r = lvm_sub_lv_parent(v->lv_name, &parent);
                        if (r < 0)
                                return r;
                        if (r > 0)
                                v->sub_lv_of = TAKE_PTR(parent);
                        else if (layer && strdup_to(&v->sub_lv_of, v->lv_name) < 0)
                                return -ENOMEM;
                }
        }

        (void) strdup_to(&v->state, v->dm_suspended ? "suspended" : "active");
        v->health = VOLUME_HEALTH_OK;

        if (!v->dm_name)
                return 0;
        if (dm_query_first_line(inv, v, DM_QUERY_TABLE, &table, &tl) >= 0 &&
            (strdup_to(&v->dm_target, tl.target_type_name) < 0 ||
             strdup_to(&v->dm_table_params, tl.params) < 0))
                return -ENOMEM;
        r = dm_query_first_line(inv, v, DM_QUERY_STATUS, &status, &sl);
        if (r >= 0 && !v->dm_target && strdup_to(&v->dm_target, sl.target_type_name) < 0)
                return -ENOMEM;
        if (r >= 0 && sl.target_type == DM_TARGET_RAID) {
                DmRaidStatus *st = calloc(1, sizeof(*st));
                if (!st)
                        return -ENOMEM;
                if (dm_raid_status_parse(sl.params, st) < 0) {
                        free(st);
                        v->health = VOLUME_HEALTH_UNKNOWN;
                        return 0;
                }
                free(v->dm_raid);
                v->dm_raid = st;
                dm_fill_raid(v, st);
        } else if (r < 0 && v->dm_target && strcmp(v->dm_target, "raid") == 0)
                v->health = VOLUME_HEALTH_UNKNOWN;
        return 0;
}

/* Path components of the link target: the SCSI host ("host0") and address ("0:2:0:0"). */
static void parse_device_path(const char *target, char **ret_host, int *ret_channel) {
        const char *p = target;

        *ret_channel = -1;
        while (p && *p) {
                size_t n = strcspn(p, "/");
                unsigned h, c, t, l;
                char buf[64];
                int end = 0;

                if (n > 0 && n < sizeof(buf)) {
                        memcpy(buf, p, n);
                        buf[n] = 0;
                        if (strncmp(buf, "host", 4) == 0 && buf[4] >= '0' && buf[4] <= '9' &&
                            strspn(buf + 4, "0123456789") == n - 4) {
                                free(*ret_host);
                                *ret_host = strdup(buf);
                        } else if (sscanf(buf, "%u:%u:%u:%u%n", &h, &c, &t, &l, &end) == 4 &&
                                   (size_t) end == n && c <= INT_MAX)
                                *ret_channel = (int) c;
                }
                p += n;
                if (*p == '/')
                        p++;
        }
}

static const char *transport_from(const Volume *v, const char *target) {
        if (strncmp(v->name, "nvme", 4) == 0)
                return "nvme";
        if (strncmp(v->name, "loop", 4) == 0)
                return "loop";
        if (strncmp(v->name, "nullb", 5) == 0)
                return "nullb";
        if (strncmp(v->name, "mmcblk", 6) == 0)
                return "mmc";
        if (strncmp(v->name, "zram", 4) == 0)
                return "zram";
        if (target && strstr(target, "/virtio") && strncmp(v->name, "vd", 2) == 0)
                return "virtio";
        if (v->driver &&
            (strcmp(v->driver, "ahci") == 0 || strncmp(v->driver, "ata_", 4) == 0 ||
             strncmp(v->driver, "pata_", 5) == 0 || strncmp(v->driver, "sata_", 5) == 0))
                return "ata";
        if (v->scsi_host)
                return "scsi";
        return NULL;
}

static int read_disk(Inventory *inv, Volume *v, int dev_fd, const char *target,
                     char *const *props) {
        _cleanup_free_ char *raid_level = NULL;
        const ControllerDriver *drv = NULL;
        const char *s;
        int channel = -1;

        if (target)
                parse_device_path(target, &v->scsi_host, &channel);
        if (v->scsi_host) {
                char path[128];
                (void) snprintf(path, sizeof(path), "sys/class/scsi_host/%s/proc_name",
                                v->scsi_host);
                (void) sysfs_read_string(inv->root_fd, path, &v->driver);
        }
        (void) strdup_to(&v->transport, transport_from(v, target));

        (void) sysfs_read_stripped(dev_fd, "device/vendor", &v->vendor);
        /* virtio's device/ is the virtio device, whose "vendor" is a PCI id ("0x1af4"), not a
         * name (seen in a VM capture); only names are kept. */
        if (v->vendor && strncmp(v->vendor, "0x", 2) == 0)
                v->vendor = mfree(v->vendor);
        (void) sysfs_read_stripped(dev_fd, "device/model", &v->model);
        (void) sysfs_read_stripped(dev_fd, "device/rev", &v->rev);
        if (sysfs_read_stripped(dev_fd, "device/serial", &v->serial) < 0)
                (void) sysfs_read_stripped(dev_fd, "serial", &v->serial);
        if (!v->vendor && (s = udev_get(props, "ID_VENDOR")) && strdup_to(&v->vendor, s) < 0)
                return -ENOMEM;
        if (!v->model && (s = udev_get(props, "ID_MODEL")) && strdup_to(&v->model, s) < 0)
                return -ENOMEM;
        if ((s = udev_get(props, "ID_SERIAL_SHORT")) ||
            (!v->serial && (s = udev_get(props, "ID_SERIAL"))))
                if (strdup_to(&v->serial, s) < 0)
                        return -ENOMEM;

        (void) sysfs_read_string(dev_fd, "device/state", &v->state);
        if (v->state && (strcmp(v->state, "offline") == 0 || strcmp(v->state, "dead") == 0 ||
                         strcmp(v->state, "transport-offline") == 0))
                v->health = VOLUME_HEALTH_FAILED;
        else
                v->health = VOLUME_HEALTH_OK;

        v->kind = VOLUME_DISK;
        if (v->driver)
                drv = controller_lookup(v->driver, inv->controller_flags);
        if (drv) {
                char path[128];
                ControllerDeviceInfo info = {
                        .channel = channel,
                        .vendor = v->vendor,
                        .model = v->model,
                };
                ControllerDeviceRole role;
                const char *addr = target ? strstr(target, "/target") : NULL;

                (void) sysfs_read_string(dev_fd, "device/raid_level", &raid_level);
                info.raid_level = raid_level;
                if (addr && (addr = strchr(addr + 1, '/'))) {
                        size_t n = strcspn(addr + 1, "/");
                        if (n < 64) {
                                (void) snprintf(path, sizeof(path), "sys/class/raid_devices/%.*s",
                                                (int) n, addr + 1);
                                info.raid_class = faccessat(inv->root_fd, path, F_OK, 0) >= 0;
                        }
                }
                role = controller_device_role(drv, &info);
                if (role == CONTROLLER_DEVICE_VOLUME ||
                    (role == CONTROLLER_DEVICE_UNKNOWN && drv->kind != CONTROLLER_KIND_HBA_IR))
                        v->kind = VOLUME_CONTROLLER;
        }
        return 0;
}

/* Read one device from scratch into a new Volume. */
static int read_device(Inventory *inv, const char *name, Volume **ret) {
        _cleanup_(volume_freep) Volume *v = NULL;
        _cleanup_strv_free_ char **props = NULL;
        _cleanup_close_ int dev_fd = -EBADF;
        char link[PATH_MAX], path[NAME_MAX + 32];
        const char *target = NULL;
        uint64_t u;
        bool b;
        ssize_t n;
        int r;

        if (!name_is_valid(name))
                return -EINVAL;
        (void) snprintf(path, sizeof(path), "sys/class/block/%s", name);
        dev_fd = openat(inv->root_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dev_fd < 0)
                return errno == ENOTDIR ? -ENOENT : -errno;

        /* Hidden gendisks (NVMe multipath paths such as nvme0c0n1) are not usable volumes. */
        if (sysfs_read_bool(dev_fd, "hidden", &b) >= 0 && b)
                return -ENOENT;

        r = volume_new(name, &v);
        if (r < 0)
                return r;
        n = readlinkat(inv->root_fd, path, link, sizeof(link) - 1);
        if (n > 0) {
                link[n] = 0;
                target = link;
                if (strncmp(link, "../../devices/", 14) == 0) {
                        if (asprintf(&v->syspath, "sys/%s", link + 6) < 0)
                                return -ENOMEM;
                }
        }
        if (!v->syspath) {
                v->syspath = strdup(path);
                if (!v->syspath)
                        return -ENOMEM;
        }
        if (asprintf(&v->path, "/dev/%s", name) < 0) {
                v->path = NULL;
                return -ENOMEM;
        }

        if (sysfs_read_devnum(dev_fd, "dev", &v->major, &v->minor) >= 0) {
                r = udev_db_read(inv->root_fd, v->major, v->minor, &props);
                if (r < 0 && r != -ENOMEM)
                        props = NULL;
                else if (r < 0)
                        return r;
        }
        if (sysfs_read_u64(dev_fd, "size", &u) >= 0 && u <= UINT64_MAX / 512)
                v->size_bytes = u * 512;
        if (sysfs_read_bool(dev_fd, "ro", &b) >= 0)
                v->read_only = b;
        if (sysfs_read_bool(dev_fd, "removable", &b) >= 0)
                v->removable = b;

        r = sysfs_list_dir(dev_fd, "slaves", &v->raw_slaves, NULL);
        if (r < 0)
                return r;
        r = sysfs_list_dir(dev_fd, "holders", &v->raw_holders, NULL);
        if (r < 0)
                return r;

        if (sysfs_read_u64(dev_fd, "partition", &u) >= 0) {
                v->kind = VOLUME_PARTITION;
                v->partition_number = u <= INT_MAX ? (int) u : 0;
                if (target) {
                        /* .../block/sda/sda1: the parent is the second-to-last component. */
                        const char *last = strrchr(target, '/');
                        if (last && last > target) {
                                const char *prev = last - 1;
                                while (prev > target && prev[-1] != '/')
                                        prev--;
                                v->parent = strndup(prev, last - prev);
                                if (!v->parent)
                                        return -ENOMEM;
                        }
                }
                if (sysfs_read_u64(dev_fd, "../queue/logical_block_size", &u) >= 0 &&
                    u <= UINT32_MAX)
                        v->logical_block_size = (uint32_t) u;
                if (sysfs_read_bool(dev_fd, "../queue/rotational", &b) >= 0)
                        v->rotational = b;
                v->health = VOLUME_HEALTH_OK;
        } else {
                if (sysfs_read_u64(dev_fd, "queue/logical_block_size", &u) >= 0 && u <= UINT32_MAX)
                        v->logical_block_size = (uint32_t) u;
                if (sysfs_read_bool(dev_fd, "queue/rotational", &b) >= 0)
                        v->rotational = b;

                if (faccessat(dev_fd, "md", F_OK, 0) >= 0)
                        r = read_md(inv, v, dev_fd);
                else if (faccessat(dev_fd, "dm", F_OK, 0) >= 0 || udev_get(props, "DM_NAME"))
                        r = read_dm(inv, v, dev_fd, props);
                else
                        r = read_disk(inv, v, dev_fd, target, props);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        v->health = VOLUME_HEALTH_UNKNOWN;
        }

        *ret = TAKE_PTR(v);
        return 0;
}

/* ---- graph -------------------------------------------------------------------------------- */

static bool volume_is_visible(const Volume *v) {
        return v && !v->hidden;
}

/* Append the visible devices below `name` to *l: hidden sub-LVs are looked through. */
static int add_lower(const Inventory *inv, char ***l, const char *name, unsigned depth) {
        const Volume *s = inventory_get(inv, name);
        int r;

        if (depth > 16)
                return 0;
        if (!s || !s->hidden)
                return strv_extend_unique(l, name) < 0 ? -ENOMEM : 0;
        for (size_t i = 0; s->raw_slaves && s->raw_slaves[i]; i++) {
                r = add_lower(inv, l, s->raw_slaves[i], depth + 1);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The visible volume standing for `name` upwards: a hidden sub-LV is replaced by its LV. */
static const char *visible_upper(const Inventory *inv, const char *name) {
        const Volume *h = inventory_get(inv, name);

        for (unsigned depth = 0; h && h->hidden && depth < 16; depth++) {
                if (!h->folded_into)
                        return NULL;
                name = h->folded_into;
                h = inventory_get(inv, name);
        }
        return name;
}

static void resolve_folding(Inventory *inv, Volume *v) {
        v->hidden = false;
        free(v->folded_into);
        v->folded_into = NULL;
        if (v->kind != VOLUME_LVM || !v->sub_lv_of)
                return;
        for (size_t i = 0; i < inv->n_volumes; i++) {
                Volume *o = inv->volumes[i];
                if (o != v && o->kind == VOLUME_LVM && !o->sub_lv_of && o->lv_name &&
                    strcmp(o->lv_name, v->sub_lv_of) == 0 && o->vg_name && v->vg_name &&
                    strcmp(o->vg_name, v->vg_name) == 0) {
                        v->folded_into = strdup(o->name);
                        v->hidden = v->folded_into != NULL;
                        return;
                }
        }
        /* No LV of that name: fold into whatever holds us, if anything does. */
        if (v->raw_holders && v->raw_holders[0]) {
                v->folded_into = strdup(v->raw_holders[0]);
                v->hidden = v->folded_into != NULL;
        }
}

static Volume *find_by_devnum_text(const Inventory *inv, const char *tok, size_t n) {
        char buf[32];
        unsigned maj, min;
        int end = 0;

        if (n == 0 || n >= sizeof(buf))
                return NULL;
        memcpy(buf, tok, n);
        buf[n] = 0;
        if (sscanf(buf, "%u:%u%n", &maj, &min, &end) != 2 || (size_t) end != n)
                return NULL;
        for (size_t i = 0; i < inv->n_volumes; i++)
                if (inv->volumes[i]->major == maj && inv->volumes[i]->minor == min)
                        return inv->volumes[i];
        return NULL;
}

/* Table of a dm "raid" target: "<raid_type> <#params> <params>... <#devs> <meta> <data>...".
 * Returns the volume holding leg `leg`'s data device (looked through hidden sub-LVs), or NULL
 * ("-" or unknown). Never fails on malformed text. */
static const char *dm_raid_leg_from_table(const Inventory *inv, const char *params, unsigned leg) {
        const char *p = params, *tok[2 * 256 + 64];
        size_t len[ELEMENTSOF(tok)], n = 0;
        unsigned nparams, ndevs;
        Volume *d;

        while (p && *p && n < ELEMENTSOF(tok)) {
                p += strspn(p, " \t");
                if (!*p)
                        break;
                tok[n] = p;
                len[n] = strcspn(p, " \t");
                p += len[n++];
        }
        if (n < 2 || sscanf(tok[1], "%u", &nparams) != 1 || nparams > n || 2 + nparams >= n)
                return NULL;
        if (sscanf(tok[2 + nparams], "%u", &ndevs) != 1 || leg >= ndevs ||
            3 + nparams + 2 * (size_t) leg + 1 >= n)
                return NULL;
        d = find_by_devnum_text(inv, tok[3 + nparams + 2 * leg + 1],
                                len[3 + nparams + 2 * leg + 1]);
        if (!d)
                return NULL;
        if (d->hidden && d->raw_slaves && d->raw_slaves[0])
                return d->raw_slaves[0];
        return d->name;
}

/* dm-raid legs: leg i is the sub-LV "<lv>_rimage_<i>"; its member is the device below it. */
static int link_dm_raid_legs(Inventory *inv, Volume *v) {
        const DmRaidStatus *st = v->dm_raid;

        for (size_t i = 0; i < v->n_array_members; i++) {
                free(v->array_members[i].name);
                free(v->array_members[i].state);
        }
        free(v->array_members);
        v->array_members = calloc(st->n_devices ? st->n_devices : 1, sizeof(VolumeMember));
        v->n_array_members = 0;
        if (!v->array_members)
                return -ENOMEM;

        for (unsigned leg = 0; leg < st->n_devices; leg++) {
                VolumeMember *m = &v->array_members[v->n_array_members++];
                const char *name = NULL;
                char want[NAME_MAX + 32];

                m->slot = (int) leg;
                m->errors = -1;
                switch (dm_raid_health_from_char(st->health[leg])) {
                case DM_RAID_HEALTH_ALIVE_IN_SYNC:
                        m->state = strdup("in_sync");
                        break;
                case DM_RAID_HEALTH_ALIVE_NOT_IN_SYNC:
                        m->state = strdup("syncing");
                        break;
                case DM_RAID_HEALTH_DEAD:
                        m->state = strdup("faulty");
                        break;
                case DM_RAID_HEALTH_ABSENT:
                        m->state = strdup("missing");
                        break;
                case _DM_RAID_HEALTH_MAX:
                case _DM_RAID_HEALTH_INVALID:
                        m->state = strdup("unknown");
                        break;
                }
                if (!m->state)
                        return -ENOMEM;

                (void) snprintf(want, sizeof(want), "%s_rimage_%u", v->lv_name ? v->lv_name : "",
                                leg);
                for (size_t i = 0; v->lv_name && v->raw_slaves && v->raw_slaves[i]; i++) {
                        const Volume *s = inventory_get(inv, v->raw_slaves[i]);
                        if (s && s->lv_name && strcmp(s->lv_name, want) == 0) {
                                name = s->raw_slaves && s->raw_slaves[0] ? s->raw_slaves[0]
                                                                         : s->name;
                                break;
                        }
                }
                if (!name && v->dm_table_params)
                        name = dm_raid_leg_from_table(inv, v->dm_table_params, leg);
                if (name) {
                        m->name = strdup(name);
                        if (!m->name)
                                return -ENOMEM;
                }
        }
        return 0;
}

static int inventory_link(Inventory *inv) {
        int r;

        for (size_t i = 0; i < inv->n_volumes; i++)
                resolve_folding(inv, inv->volumes[i]);

        for (size_t i = 0; i < inv->n_volumes; i++) {
                Volume *v = inv->volumes[i];

                v->members = strv_free(v->members);
                v->holders = strv_free(v->holders);
                v->members = calloc(1, sizeof(char *));
                v->holders = calloc(1, sizeof(char *));
                if (!v->members || !v->holders)
                        return -ENOMEM;

                if (v->kind == VOLUME_PARTITION && v->parent &&
                    strv_extend_unique(&v->members, v->parent) < 0)
                        return -ENOMEM;
                for (size_t j = 0; v->raw_slaves && v->raw_slaves[j]; j++) {
                        r = v->hidden ? strv_extend_unique(&v->members, v->raw_slaves[j])
                                      : add_lower(inv, &v->members, v->raw_slaves[j], 0);
                        if (r < 0)
                                return -ENOMEM;
                }
                if (v->dm_raid) {
                        r = link_dm_raid_legs(inv, v);
                        if (r < 0)
                                return r;
                }
        }

        /* holders = the kernel's holders/ (of known devices) plus the reverse of everyone's
         * members, so a holder whose own uevent we have not seen yet is still linked. */
        for (size_t i = 0; i < inv->n_volumes; i++) {
                Volume *v = inv->volumes[i];

                for (size_t j = 0; v->raw_holders && v->raw_holders[j]; j++) {
                        const char *h = v->hidden ? v->raw_holders[j]
                                                  : visible_upper(inv, v->raw_holders[j]);
                        if (h && strcmp(h, v->name) != 0 && inventory_get(inv, h) &&
                            strv_extend_unique(&v->holders, h) < 0)
                                return -ENOMEM;
                }
        }
        for (size_t i = 0; i < inv->n_volumes; i++) {
                Volume *v = inv->volumes[i];

                if (v->hidden)
                        continue;
                for (size_t j = 0; v->members && v->members[j]; j++) {
                        Volume *lower = inventory_get(inv, v->members[j]);
                        if (lower && lower != v && strv_extend_unique(&lower->holders, v->name) < 0)
                                return -ENOMEM;
                }
        }
        return 0;
}

/* ---- add / change / remove / scan --------------------------------------------------------- */

static int insert_or_replace(Inventory *inv, Volume *v) {
        size_t idx;

        if (find_index(inv, v->name, &idx)) {
                volume_free(inv->volumes[idx]);
                inv->volumes[idx] = v;
                return 0;
        }
        Volume **nv = reallocarray(inv->volumes, inv->n_volumes + 1, sizeof(Volume *));
        if (!nv)
                return -ENOMEM;
        inv->volumes = nv;
        memmove(inv->volumes + idx + 1, inv->volumes + idx,
                (inv->n_volumes - idx) * sizeof(Volume *));
        inv->volumes[idx] = v;
        inv->n_volumes++;
        return 1;
}

static bool remove_volume(Inventory *inv, const char *name) {
        size_t idx;

        if (!find_index(inv, name, &idx))
                return false;
        volume_free(inv->volumes[idx]);
        memmove(inv->volumes + idx, inv->volumes + idx + 1,
                (inv->n_volumes - idx - 1) * sizeof(Volume *));
        inv->n_volumes--;
        return true;
}

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
        if (r == -ENOENT)
                return 0;
        return r < 0 ? r : 0;
}

static int device_add_one(Inventory *inv, const char *name) {
        Volume *v = NULL;
        int r;

        r = read_device(inv, name, &v);
        if (r == -ENOENT) {
                (void) remove_volume(inv, name);
                return r;
        }
        if (r < 0)
                return r;
        r = insert_or_replace(inv, v);
        if (r < 0)
                volume_free(v);
        return r;
}

int inventory_device_add(Inventory *inv, const char *name) {
        int r, k;

        if (!inv || !name_is_valid(name))
                return -EINVAL;
        if (strncmp(name, "md", 2) == 0)
                (void) inventory_refresh_mdstat(inv);
        r = device_add_one(inv, name);
        k = inventory_link(inv);
        if (r < 0)
                return r;
        return k < 0 ? k : r;
}

int inventory_device_change(Inventory *inv, const char *name) {
        return inventory_device_add(inv, name);
}

int inventory_device_remove(Inventory *inv, const char *name) {
        bool was;
        int r;

        if (!inv || !name)
                return -EINVAL;
        was = remove_volume(inv, name);
        r = inventory_link(inv);
        if (r < 0)
                return r;
        return was;
}

int inventory_scan(Inventory *inv) {
        _cleanup_strv_free_ char **names = NULL;
        size_t n;
        int r;

        if (!inv)
                return -EINVAL;
        r = sysfs_list_dir(inv->root_fd, "sys/class/block", &names, &n);
        if (r < 0)
                return r;
        if (faccessat(inv->root_fd, "sys/class/block", F_OK, 0) < 0)
                return -errno;

        (void) inventory_refresh_mdstat(inv);

        /* Forget what is gone, then (re)read what is there. */
        for (size_t i = inv->n_volumes; i > 0; i--)
                if (!strv_contains(names, inv->volumes[i - 1]->name))
                        (void) remove_volume(inv, inv->volumes[i - 1]->name);
        for (size_t i = 0; i < n; i++) {
                r = device_add_one(inv, names[i]);
                if (r == -ENOMEM)
                        return r;
        }
        return inventory_link(inv);
}

/* ---- queries ------------------------------------------------------------------------------ */

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

        if (!v || depth > 32 || !find_index(inv, v->name, &idx) || visited[idx])
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
        json_object *a;

        if (!inv || !ret)
                return -EINVAL;
        a = json_object_new_array();
        if (!a)
                return -ENOMEM;
        for (size_t i = 0; i < inv->n_volumes; i++) {
                json_object *o;

                if (inv->volumes[i]->hidden)
                        continue;
                if (volume_to_json(inv->volumes[i], &o) < 0)
                        goto out_nomem;
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

static bool driver_uses_cli(const Inventory *inv, const Volume *v, ControllerCli cli) {
        const ControllerDriver *d =
                v->driver ? controller_lookup(v->driver, inv->controller_flags) : NULL;

        for (size_t i = 0; d && i < CONTROLLER_CLI_PER_DRIVER; i++)
                if (d->cli[i] == cli)
                        return true;
        return false;
}

static int apply_cli_volume(Volume *v, ControllerCli cli, const ControllerVolume *cv) {
        char id[64];

        (void) snprintf(id, sizeof(id), "c%s/v%s", cv->controller ? cv->controller : "?",
                        cv->volume_id ? cv->volume_id : "?");
        v->has_cli = true;
        if (strdup_to(&v->cli_name, controller_cli_to_string(cli)) < 0 ||
            strdup_to(&v->cli_volume_id, id) < 0 ||
            strdup_to(&v->cli_state, controller_volume_state_to_string(cv->state)) < 0 ||
            strdup_to(&v->cli_state_raw, cv->state_raw) < 0)
                return -ENOMEM;
        if (cv->raid_level && strdup_to(&v->level, cv->raid_level) < 0)
                return -ENOMEM;

        switch (cv->state) {
        case CONTROLLER_VOLUME_OPTIMAL:
                break;
        case CONTROLLER_VOLUME_DEGRADED:
        case CONTROLLER_VOLUME_REBUILDING:
                if (v->health != VOLUME_HEALTH_FAILED)
                        v->health = VOLUME_HEALTH_DEGRADED;
                break;
        case CONTROLLER_VOLUME_FAILED:
        case CONTROLLER_VOLUME_OFFLINE:
                v->health = VOLUME_HEALTH_FAILED;
                break;
        case CONTROLLER_VOLUME_UNKNOWN:
        case _CONTROLLER_VOLUME_STATE_MAX:
        case _CONTROLLER_VOLUME_STATE_INVALID:
                break;
        }

        free(v->sync.action);
        v->sync = (VolumeSync){};
        if (cv->operation) {
                v->sync.action = strdup(cv->operation);
                if (!v->sync.action)
                        return -ENOMEM;
                for (char *p = v->sync.action; *p; p++)
                        if (*p >= 'A' && *p <= 'Z')
                                *p = (char) (*p - 'A' + 'a');
        } else if (!(v->sync.action = strdup("idle")))
                return -ENOMEM;
        if (cv->operation && cv->progress >= 0) {
                v->sync.has_progress = true;
                v->sync.progress = CLAMP(cv->progress, 0.0, 1.0);
        }
        if (cv->operation && cv->eta_usec != USEC_INFINITY) {
                v->sync.has_eta = true;
                v->sync.eta_seconds = cv->eta_usec / USEC_PER_SEC;
        }
        return 0;
}

int inventory_apply_controller_cli(Inventory *inv, ControllerCli cli,
                                   const ControllerVolumeList *l) {
        Volume *lone = NULL;
        size_t n_candidates = 0;
        int matched = 0, r;

        if (!inv || !l)
                return -EINVAL;
        for (size_t i = 0; i < inv->n_volumes; i++)
                if (inv->volumes[i]->kind == VOLUME_CONTROLLER &&
                    driver_uses_cli(inv, inv->volumes[i], cli)) {
                        lone = inv->volumes[i];
                        n_candidates++;
                }

        for (size_t i = 0; i < l->n; i++) {
                const ControllerVolume *cv = &l->volumes[i];
                Volume *v = NULL;

                if (cv->os_device && strncmp(cv->os_device, "/dev/", 5) == 0)
                        v = inventory_get(inv, cv->os_device + 5);
                else if (!cv->os_device && l->n == 1 && n_candidates == 1)
                        v = lone;
                if (!v || v->kind != VOLUME_CONTROLLER)
                        continue;
                r = apply_cli_volume(v, cli, cv);
                if (r < 0)
                        return r;
                matched++;
        }
        return matched;
}

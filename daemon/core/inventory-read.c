/* SPDX-License-Identifier: MIT */
/* Reading one block device below the inventory's root into a new Volume: the attributes every
 * device has (sysfs dev, size, ro, slaves/, holders/, udev properties), then the part of its kind
 * (partition, md array, device-mapper device, disk or controller volume). A reader only fills
 * fields of the one device; the graph between devices (members, holders, folding of hidden
 * sub-LVs, dm-raid legs) is inventory-link.c's, recomputed once per batch.
 *
 * Nothing here opens a block device: it reads small text files, asks the udev provider by device
 * number and the dm provider, which uses dm ioctls on the control node. A missing attribute
 * leaves its field unknown; only a device missing from sysfs altogether fails its read. */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/parse-util.h"
#include "basic/sysfs.h"
#include "core/inventory-internal.h"
#include "model/controller.h"
#include "model/dm.h"
#include "model/dm-judge.h"
#include "model/md.h"
#include "model/md-progress.h"
#include "model/mdstat.h"
#include "model/raid-health.h"
#include "sources/udev-props.h"

/* ---- md ----------------------------------------------------------------------------------- */

/* VolumeHealth of a verdict: what is not a failure is not reported as one. */
static VolumeHealth health_of_verdict(RaidVerdict r) {
        switch (r) {
        case RAID_VERDICT_OK:
        case RAID_VERDICT_CONTAINER: /* serves no data itself; its member arrays are judged */
                return VOLUME_HEALTH_OK;
        case RAID_VERDICT_DEGRADED:
                return VOLUME_HEALTH_DEGRADED;
        case RAID_VERDICT_FAILED:
        case RAID_VERDICT_NOT_ASSEMBLED: /* its data is not served and will not be by itself */
                return VOLUME_HEALTH_FAILED;
        case RAID_VERDICT_ASSEMBLING:
        case RAID_VERDICT_STOPPED:
        case RAID_VERDICT_UNKNOWN:
        case _RAID_VERDICT_MAX:
        case _RAID_VERDICT_INVALID:
                break;
        }
        return VOLUME_HEALTH_UNKNOWN;
}

void inventory_apply_verdict(Volume *v, const RaidHealth *h) {
        v->verdict = h->verdict;
        v->verdict_reason = h->reason;
        v->replacing = h->replacing;
        v->health = health_of_verdict(h->verdict);
}

/* ---- device-mapper ------------------------------------------------------------------------ */

static void dm_fill_raid(Volume *v, DmRaidStatus *st) {
        unsigned dead = dm_raid_status_count(st, DM_RAID_HEALTH_DEAD) +
                        dm_raid_status_count(st, DM_RAID_HEALTH_ABSENT);
        VolumeSync *s = &v->sync;
        RaidHealth h;

        (void) inventory_strdup_to(&v->level, st->raid_type);
        v->raid_disks = (int) st->n_devices;
        v->degraded = (int) dead;
        raid_health_from_dm_raid_table(st, v->dm_table_params, &h);
        inventory_apply_verdict(v, &h);

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

/* The whole table text (every segment) and its first line parsed. */
static int dm_query_table(Inventory *inv, const Volume *v, char **ret_text,
                          DmTargetLine *ret_line) {
        DmDeviceId id = { .name = v->dm_name, .major = v->major, .minor = v->minor };
        _cleanup_free_ char *text = NULL, *first = NULL;
        int r;

        if (!inv->dm.get)
                return -ENODEV;
        r = inv->dm.get(inv->dm.userdata, &id, DM_QUERY_TABLE, &text);
        if (r < 0)
                return r;
        first = strndup(text, strcspn(text, "\n"));
        if (!first)
                return -ENOMEM;
        r = dm_parse_target_line(first, ret_line);
        if (r < 0)
                return r;
        /* params must outlive `first`: point them into the whole text instead */
        ret_line->params = text + (ret_line->params - first);
        *ret_text = TAKE_PTR(text);
        return 0;
}

typedef struct DevExists {
        Inventory *inv;
        bool has_dev_dir; /* <root>/sys/dev/block exists (a live system; fixtures may lack it) */
} DevExists;

/* Whether MAJ:MIN is a block device now: sys/dev/block/MAJ:MIN, or in a tree without
 * sys/dev/block (a fixture) some sys/class/block/X/dev holding that number. */
static bool dev_exists(unsigned major, unsigned minor, void *userdata) {
        DevExists *d = userdata;
        _cleanup_strv_free_ char **names = NULL;
        char path[64];

        if (d->has_dev_dir) {
                (void) snprintf(path, sizeof(path), "sys/dev/block/%u:%u", major, minor);
                return faccessat(d->inv->root_fd, path, F_OK, 0) >= 0;
        }
        if (sysfs_list_dir(d->inv->root_fd, "sys/class/block", &names, NULL) < 0)
                return true; /* cannot tell: not a loss */
        for (size_t i = 0; names && names[i]; i++) {
                unsigned ma, mi;
                (void) snprintf(path, sizeof(path), "sys/class/block/%.40s", names[i]);
                _cleanup_close_ int fd =
                        openat(d->inv->root_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (fd >= 0 && sysfs_read_devnum(fd, "dev", &ma, &mi) >= 0 && ma == major &&
                    mi == minor)
                        return true;
        }
        return false;
}

/* A linear/striped LV that lost a PV: its table maps to a vanished device, or LVM replaced the
 * segment by an `error` target. */
static void judge_dm_table(Inventory *inv, Volume *v, const char *table) {
        DevExists d = { .inv = inv };
        char missing[72];
        RaidVerdict r;

        if (!v->dm_target ||
            (strcmp(v->dm_target, "linear") != 0 && strcmp(v->dm_target, "striped") != 0 &&
             strcmp(v->dm_target, "error") != 0))
                return;
        d.has_dev_dir = faccessat(inv->root_fd, "sys/dev/block", F_OK, 0) >= 0;
        r = dm_table_verdict(table, dev_exists, &d, missing, sizeof(missing));
        if (r != RAID_VERDICT_FAILED) {
                v->verdict = r == RAID_VERDICT_OK ? RAID_VERDICT_OK : v->verdict;
                return;
        }
        v->verdict = RAID_VERDICT_FAILED;
        v->verdict_reason = strcmp(missing, "error") == 0
                                    ? "a segment is an error target (its PV is missing)"
                                    : "the table maps to a device that no longer exists";
        v->health = VOLUME_HEALTH_FAILED;
}

/* LVM names: VG and LV from udev (authoritative) or split from the dm name; a sub-LV
 * (_rimage_N, _rmeta_N, a layer such as _tdata) names the LV it belongs to. */
static int read_lvm_names(Volume *v, char *const *props) {
        _cleanup_free_ char *vg = NULL, *lv = NULL, *layer = NULL, *parent = NULL;
        const char *s;
        int r;

        if (v->dm_name && lvm_name_split(v->dm_name, &vg, &lv, &layer) >= 0) {
                v->vg_name = TAKE_PTR(vg);
                v->lv_name = TAKE_PTR(lv);
        }
        /* udev's names are authoritative (no '-' unescaping guesswork). */
        if ((s = udev_props_get_value(props, "DM_VG_NAME")) &&
            inventory_strdup_to(&v->vg_name, s) < 0)
                return -ENOMEM;
        if ((s = udev_props_get_value(props, "DM_LV_NAME")) &&
            inventory_strdup_to(&v->lv_name, s) < 0)
                return -ENOMEM;
        if (!layer && (s = udev_props_get_value(props, "DM_LV_LAYER")) && *s) {
                layer = strdup(s);
                if (!layer)
                        return -ENOMEM;
        }
        if (!v->lv_name)
                return 0;
        r = lvm_sub_lv_parent(v->lv_name, &parent);
        if (r < 0)
                return r;
        if (r > 0)
                v->sub_lv_of = TAKE_PTR(parent);
        else if (layer && inventory_strdup_to(&v->sub_lv_of, v->lv_name) < 0)
                return -ENOMEM;
        return 0;
}

/* Kernel name of MAJ:MIN for a judge's reason: the sys/dev/block link's last component. */
static const char *dm_dev_name(unsigned major, unsigned minor, void *userdata, char *buf,
                               size_t n) {
        Inventory *inv = userdata;
        char path[64], link[PATH_MAX];
        const char *base;
        ssize_t l;

        (void) snprintf(path, sizeof(path), "sys/dev/block/%u:%u", major, minor);
        l = readlinkat(inv->root_fd, path, link, sizeof(link) - 1);
        if (l <= 0)
                return NULL;
        link[l] = 0;
        base = strrchr(link, '/');
        (void) snprintf(buf, n, "%s", base ? base + 1 : link);
        return buf;
}

/* The target judge's verdict on the whole status (and table) text; a FAILED table verdict
 * (judge_dm_table()) stands. */
static int dm_apply_judgement(Inventory *inv, Volume *v, const char *status, const char *table) {
        DmJudgement *j = calloc(1, sizeof(*j));

        if (!j)
                return -ENOMEM;
        dm_judge(status, table, dm_dev_name, inv, j);
        free(v->dm_judgement);
        v->dm_judgement = j;
        if (j->target == DM_TARGET_MULTIPATH)
                v->degraded = (int) j->paths_failed;
        if (v->verdict == RAID_VERDICT_FAILED)
                return 0;
        v->verdict = j->verdict;
        v->verdict_reason = j->reason;
        v->health = health_of_verdict(j->verdict);
        return 0;
}

/* Judge the status of device `id` (v itself, or the layer that carries v's target) into v. */
static int dm_judge_device(Inventory *inv, Volume *v, const DmDeviceId *id, const char *table) {
        _cleanup_free_ char *all = NULL;
        int r;

        r = inv->dm.get(inv->dm.userdata, id, DM_QUERY_STATUS, &all);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                v->health = VOLUME_HEALTH_UNKNOWN;
                return 0;
        }
        r = dm_apply_judgement(inv, v, all, table);
        return r < 0 ? r : 0;
}

/* Whether v's table is one linear segment onto the dm device named "<v's dm name>-tpool" (how
 * LVM activates a thin-pool LV): 1 with *ret_id naming that device (*ret_name owns its name), 0
 * if not, -ENOMEM. */
static int dm_thin_pool_layer(Inventory *inv, const Volume *v, const char *table,
                              DmDeviceId *ret_id, char **ret_name) {
        _cleanup_free_ char *want = NULL, *name = NULL;
        const char *nl = strchr(table, '\n');
        unsigned ma, mi;
        char path[96];
        int end = 0;

        if (v->kind != VOLUME_LVM || v->sub_lv_of || !v->dm_name || (nl && nl[1] != 0))
                return 0;
        if (sscanf(table, "%*u %*u linear %u:%u %*u%n", &ma, &mi, &end) != 2 || end == 0)
                return 0;
        if (asprintf(&want, "%s-tpool", v->dm_name) < 0)
                return -ENOMEM;
        (void) snprintf(path, sizeof(path), "sys/dev/block/%u:%u/dm/name", ma, mi);
        if (sysfs_read_string(inv->root_fd, path, &name) < 0 || strcmp(name, want) != 0)
                return 0;
        *ret_id = (DmDeviceId){ .name = want, .major = ma, .minor = mi };
        *ret_name = TAKE_PTR(want);
        return 1;
}

bool inventory_dm_is_polled(const Volume *v) {
        DmTargetType t;

        if (!v || !v->dm_target)
                return false;
        t = dm_target_type_from_string(v->dm_target);
        /* a thin-pool LV is a linear mapping judged by its -tpool layer's status */
        return t == DM_TARGET_RAID || (t >= 0 && dm_target_is_judged(t)) ||
               (v->dm_judgement && v->dm_judgement->target == DM_TARGET_THIN_POOL);
}

int inventory_read_dm_status(Inventory *inv, Volume *v, const char *table) {
        _cleanup_free_ char *status = NULL, *own_table = NULL;
        DmTargetLine sl, tl;
        DmRaidStatus *st;
        int r;

        /* from scratch: what the table says, then what the status says */
        v->health = VOLUME_HEALTH_OK;
        v->verdict = RAID_VERDICT_UNKNOWN;
        v->verdict_reason = NULL;
        if (!table && dm_query_table(inv, v, &own_table, &tl) == -ENOMEM)
                return -ENOMEM;
        table = table ?: own_table;
        if (table)
                judge_dm_table(inv, v, table);

        r = dm_query_first_line(inv, v, DM_QUERY_STATUS, &status, &sl);
        if (r == -ENOMEM)
                return r;
        if (r >= 0 && !v->dm_target && inventory_strdup_to(&v->dm_target, sl.target_type_name) < 0)
                return -ENOMEM;
        if (r >= 0 && dm_target_is_judged(sl.target_type)) {
                DmDeviceId id = { .name = v->dm_name, .major = v->major, .minor = v->minor };
                return dm_judge_device(inv, v, &id, table);
        }
        if (r >= 0 && table && sl.target_type == DM_TARGET_LINEAR) {
                /* LVM's public thin-pool LV: a linear mapping of its hidden "-tpool" layer,
                 * which holds the thin-pool target; the pool is judged on the LV users know */
                _cleanup_free_ char *pool_name = NULL;
                DmDeviceId id = {};

                r = dm_thin_pool_layer(inv, v, table, &id, &pool_name);
                if (r == -ENOMEM)
                        return r;
                if (r > 0)
                        return dm_judge_device(inv, v, &id, NULL);
        }
        if (r < 0 || sl.target_type != DM_TARGET_RAID) {
                if (r < 0 && v->dm_target && strcmp(v->dm_target, "raid") == 0)
                        v->health = VOLUME_HEALTH_UNKNOWN;
                return 0;
        }
        st = calloc(1, sizeof(*st));
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
        return 1;
}

static int read_dm(Inventory *inv, Volume *v, int dev_fd, char *const *props) {
        _cleanup_free_ char *table = NULL, *suspended = NULL;
        DmTargetLine tl;
        const char *s;
        int r;

        (void) sysfs_read_string(dev_fd, "dm/name", &v->dm_name);
        (void) sysfs_read_string(dev_fd, "dm/uuid", &v->dm_uuid);
        if (!v->dm_name && (s = udev_props_get_value(props, "DM_NAME")) &&
            inventory_strdup_to(&v->dm_name, s) < 0)
                return -ENOMEM;
        if (v->dm_uuid && !*v->dm_uuid) { /* no uuid: the kernel prints an empty line */
                free(v->dm_uuid);
                v->dm_uuid = NULL;
        }
        if (!v->dm_uuid && (s = udev_props_get_value(props, "DM_UUID")) &&
            inventory_strdup_to(&v->dm_uuid, s) < 0)
                return -ENOMEM;
        if (sysfs_read_string(dev_fd, "dm/suspended", &suspended) >= 0)
                v->dm_suspended = strcmp(suspended, "0") != 0;

        v->kind = v->dm_uuid && strncmp(v->dm_uuid, "LVM-", 4) == 0 ? VOLUME_LVM : VOLUME_DM;
        if (v->kind == VOLUME_LVM) {
                r = read_lvm_names(v, props);
                if (r < 0)
                        return r;
        }

        (void) inventory_strdup_to(&v->state, v->dm_suspended ? "suspended" : "active");
        v->health = VOLUME_HEALTH_OK;

        if (!v->dm_name)
                return 0;
        r = dm_query_table(inv, v, &table, &tl);
        if (r == -ENOMEM)
                return r;
        if (r >= 0) {
                free(v->dm_table_params);
                v->dm_table_params = strndup(tl.params, strcspn(tl.params, "\n"));
                if (!v->dm_table_params ||
                    inventory_strdup_to(&v->dm_target, tl.target_type_name) < 0)
                        return -ENOMEM;
        }
        r = inventory_read_dm_status(inv, v, table);
        return r < 0 ? r : 0;
}

/* Path components of the link target: the SCSI host ("host0") and address ("0:2:0:0"). */
/* ---- disks, partitions, whole devices ----------------------------------------------------- */

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
        (void) inventory_strdup_to(&v->transport, transport_from(v, target));

        (void) sysfs_read_stripped(dev_fd, "device/vendor", &v->vendor);
        /* virtio's device/ is the virtio device, whose "vendor" is a PCI id ("0x1af4"), not a
         * name (seen in a VM capture); only names are kept. */
        if (v->vendor && strncmp(v->vendor, "0x", 2) == 0) {
                free(v->vendor);
                v->vendor = NULL;
        }
        (void) sysfs_read_stripped(dev_fd, "device/model", &v->model);
        (void) sysfs_read_stripped(dev_fd, "device/rev", &v->rev);
        if (sysfs_read_stripped(dev_fd, "device/serial", &v->serial) < 0)
                (void) sysfs_read_stripped(dev_fd, "serial", &v->serial);
        if (!v->vendor && (s = udev_props_get_value(props, "ID_VENDOR")) &&
            inventory_strdup_to(&v->vendor, s) < 0)
                return -ENOMEM;
        if (!v->model && (s = udev_props_get_value(props, "ID_MODEL")) &&
            inventory_strdup_to(&v->model, s) < 0)
                return -ENOMEM;
        if ((s = udev_props_get_value(props, "ID_SERIAL_SHORT")) ||
            (!v->serial && (s = udev_props_get_value(props, "ID_SERIAL"))))
                if (inventory_strdup_to(&v->serial, s) < 0)
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

/* Where the device lives: syspath from the sys/class/block link ("../../devices/..." ->
 * "sys/devices/..."), or the class path itself in a tree without links; and /dev/<name>. */
static int read_paths(Volume *v, const char *class_path, const char *target) {
        if (target && strncmp(target, "../../devices/", 14) == 0 &&
            asprintf(&v->syspath, "sys/%s", target + 6) < 0) {
                v->syspath = NULL;
                return -ENOMEM;
        }
        if (!v->syspath) {
                v->syspath = strdup(class_path);
                if (!v->syspath)
                        return -ENOMEM;
        }
        if (asprintf(&v->path, "/dev/%s", v->name) < 0) {
                v->path = NULL;
                return -ENOMEM;
        }
        return 0;
}

/* What every block device has: device number, udev properties, size, flags, slaves/holders. */
static int read_common(Inventory *inv, Volume *v, int dev_fd, char ***ret_props) {
        _cleanup_strv_free_ char **props = NULL;
        uint64_t u;
        bool b;
        int r;

        if (sysfs_read_devnum(dev_fd, "dev", &v->major, &v->minor) >= 0 && inv->udev.get) {
                r = inv->udev.get(inv->udev.userdata, v->major, v->minor, &props);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        props = NULL; /* unreadable database entry: fields from sysfs only */
        }
        /* 512-byte sectors; beyond 2^53 sectors (4 EiB) it is garbage, not a disk */
        if (sysfs_read_u64(dev_fd, "size", &u) >= 0 && u <= (UINT64_C(1) << 53))
                v->size_bytes = u * 512;
        else
                v->size_unknown = true;
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
        *ret_props = TAKE_PTR(props);
        return 0;
}

/* The queue/ attributes: a partition has none of its own and shows its disk's ("../queue"). */
static void read_queue(Volume *v, int dev_fd, const char *dir) {
        char attr[64];
        uint64_t u;
        bool b;

        (void) snprintf(attr, sizeof(attr), "%s/logical_block_size", dir);
        if (sysfs_read_u64(dev_fd, attr, &u) >= 0 && u <= UINT32_MAX)
                v->logical_block_size = (uint32_t) u;
        (void) snprintf(attr, sizeof(attr), "%s/rotational", dir);
        if (sysfs_read_bool(dev_fd, attr, &b) >= 0)
                v->rotational = b;
}

static int read_partition(Volume *v, int dev_fd, const char *target, uint64_t number) {
        v->kind = VOLUME_PARTITION;
        v->partition_number = number <= INT_MAX ? (int) number : 0;
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
        read_queue(v, dev_fd, "../queue");
        v->health = VOLUME_HEALTH_OK;
        return 0;
}

/* A whole device: md array, dm device or disk, by what its sysfs directory holds. */
static int read_whole(Inventory *inv, Volume *v, int dev_fd, const char *target,
                      char *const *props) {
        int r;

        read_queue(v, dev_fd, "queue");
        if (faccessat(dev_fd, "md", F_OK, 0) >= 0)
                r = inventory_read_md(inv, v, dev_fd);
        else if (faccessat(dev_fd, "dm", F_OK, 0) >= 0 || udev_props_get_value(props, "DM_NAME"))
                r = read_dm(inv, v, dev_fd, props);
        else
                r = read_disk(inv, v, dev_fd, target, props);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                v->health = VOLUME_HEALTH_UNKNOWN;
        return 0;
}

int inventory_read_device(Inventory *inv, const char *name, Volume **ret) {
        _cleanup_(volume_freep) Volume *v = NULL;
        _cleanup_strv_free_ char **props = NULL;
        _cleanup_close_ int dev_fd = -EBADF;
        char link[PATH_MAX], path[NAME_MAX + 32];
        const char *target = NULL;
        uint64_t u;
        bool b;
        ssize_t n;
        int r;

        if (!inventory_name_is_valid(name))
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
        }
        r = read_paths(v, path, target);
        if (r < 0)
                return r;
        r = read_common(inv, v, dev_fd, &props);
        if (r < 0)
                return r;
        if (sysfs_read_u64(dev_fd, "partition", &u) >= 0)
                r = read_partition(v, dev_fd, target, u);
        else
                r = read_whole(inv, v, dev_fd, target, props);
        if (r < 0)
                return r;

        *ret = TAKE_PTR(v);
        return 0;
}

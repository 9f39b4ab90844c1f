/* SPDX-License-Identifier: MIT */
/* The md part of reading one device (inventory-read.c's reader for a volume with an md/
 * directory): the array through md_array_load(), its verdict, members, sync figures from
 * /proc/mdstat, and whether an external-metadata array's mdmon runs. Split from inventory-read.c
 * under the 800-line rule; nothing here opens a block device. */

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
#include "model/md.h"
#include "model/md-progress.h"
#include "model/mdstat.h"
#include "model/raid-health.h"

void inventory_md_fill_sync(Volume *v, const MdArray *a, const Mdstat *mdstat) {
        const MdstatArray *ma = mdstat ? mdstat_find(mdstat, v->name) : NULL;
        VolumeSync *s = &v->sync;
        MdProgress p;

        free(s->action);
        *s = (VolumeSync){};
        if (a->sync_action != _MD_SYNC_ACTION_INVALID && a->sync_action_raw)
                s->action = strdup(a->sync_action_raw);
        if (a->mismatch_cnt != MD_UNSET) {
                s->has_mismatch_count = true;
                s->mismatch_count = a->mismatch_cnt;
        }
        /* the one computation the md monitor's tracker uses too */
        md_progress_compute(a, ma, mdstat, &p);
        s->delayed = p.delayed;
        if (!p.running)
                return;
        if (p.source != MD_PROGRESS_SOURCE_NONE) {
                s->has_progress = true;
                s->progress = p.ratio;
                s->done_sectors = p.done_sectors;
                s->total_sectors = p.total_sectors;
        }
        s->speed_bytes_per_second = p.speed_bytes_per_sec;
        s->has_eta = p.has_eta;
        s->eta_seconds = p.eta_sec;
}

/* A running member array of an IMSM/DDF container needs mdmon to write its metadata: without it
 * md holds every write (array_state stays write-pending). mdadm's own test (util.c
 * mdmon_running()): <MDMON_DIR>/<container>.pid, Debian's MDMON_DIR /run/mdadm, names a live
 * process; here both below the injected root. */
static bool md_mdmon_missing(Inventory *inv, const MdArray *a) {
        _cleanup_free_ char *text = NULL;
        char cont[64], path[128];
        unsigned pid;
        size_t n;

        if (!md_array_container_name(a, cont, sizeof(cont)) ||
            a->array_state == MD_ARRAY_STATE_INACTIVE || a->array_state == MD_ARRAY_STATE_CLEAR ||
            a->array_state == MD_ARRAY_STATE_READONLY)
                return false;
        (void) snprintf(path, sizeof(path), "run/mdadm/%s.pid", cont);
        if (read_full_file_at(inv->root_fd, path, &text, &n) < 0)
                return true;
        text[strcspn(text, "\n")] = 0;
        if (safe_atou(text, &pid) < 0 || pid == 0)
                return true;
        (void) snprintf(path, sizeof(path), "proc/%u", pid);
        return faccessat(inv->root_fd, path, F_OK, 0) < 0;
}

int inventory_read_md(Inventory *inv, Volume *v, int dev_fd) {
        _cleanup_close_ int md_fd = -EBADF;
        RaidHealth h;
        _cleanup_(md_array_freep) MdArray *a = NULL;
        int r;

        md_fd = openat(dev_fd, "md", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (md_fd < 0)
                return -errno;
        r = md_array_load(md_fd, &a);
        if (r < 0)
                return r;

        v->kind = VOLUME_MD;
        /* md 6.1 leaves an IMSM/DDF container's level empty: name what it is */
        if (inventory_strdup_to(&v->level,
                                (!a->level_raw || !a->level_raw[0]) && md_array_is_container(a)
                                        ? "container"
                                        : a->level_raw) < 0 ||
            inventory_strdup_to(&v->state, a->array_state_raw) < 0)
                return -ENOMEM;
        v->raid_disks =
                a->raid_disks != MD_UNSET && a->raid_disks <= INT_MAX ? (int) a->raid_disks : -1;
        v->degraded = a->degraded != MD_UNSET && a->degraded <= INT_MAX ? (int) a->degraded : -1;

        raid_health_from_md(a, &h);
        inventory_apply_verdict(v, &h);

        v->array_members = calloc(a->n_members ? a->n_members : 1, sizeof(VolumeMember));
        if (!v->array_members)
                return -ENOMEM;
        for (size_t i = 0; i < a->n_members; i++) {
                VolumeMember *m = &v->array_members[v->n_array_members++];
                m->name = strdup(a->members[i].name);
                /* md marks the old member faulty at the end of a replace on purpose */
                if (h.replaced && md_member_was_replaced(&a->members[i]))
                        m->state = strdup("replaced");
                else
                        m->state = a->members[i].state_raw ? strdup(a->members[i].state_raw) : NULL;
                if (!m->name || (a->members[i].state_raw && !m->state))
                        return -ENOMEM;
                m->slot = a->members[i].slot >= 0 ? a->members[i].slot : -1;
                m->errors = a->members[i].errors != MD_UNSET && a->members[i].errors <= INT64_MAX
                                    ? (int64_t) a->members[i].errors
                                    : -1;
        }

        v->mdmon_missing = md_mdmon_missing(inv, a);
        if (v->mdmon_missing && v->verdict == RAID_VERDICT_OK)
                v->verdict_reason = "external metadata without a running mdmon: writes block";
        inventory_md_fill_sync(v, a, inv->mdstat);
        md_array_free(v->md);
        v->md = TAKE_PTR(a);
        return 0;
}

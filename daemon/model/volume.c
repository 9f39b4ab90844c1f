/* SPDX-License-Identifier: MIT */
/* The Volume: plain data about one block device, filled by the inventory. This file holds its
 * lifecycle, the enum tables, the "does it show a problem" rule and the JSON rendering used by
 * `storpulsectl volumes --json` (and later the daemon's API), so every consumer renders a volume
 * the same way. JSON keys are stable API: documented in ctl-volumes.c, tested by golden files. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/string-table.h"
#include "model/dm-judge.h"
#include "model/dm.h"
#include "model/md.h"
#include "basic/sysfs.h"
#include "model/volume.h"

static const char *const volume_kind_table[_VOLUME_KIND_MAX] = {
        [VOLUME_MD] = "md",     [VOLUME_LVM] = "lvm",
        [VOLUME_DM] = "dm",     [VOLUME_CONTROLLER] = "controller",
        [VOLUME_DISK] = "disk", [VOLUME_PARTITION] = "partition",
};

DEFINE_STRING_TABLE_LOOKUP(volume_kind, VolumeKind, volume_kind_table)

static const char *const volume_health_table[_VOLUME_HEALTH_MAX] = {
        [VOLUME_HEALTH_OK] = "ok",
        [VOLUME_HEALTH_DEGRADED] = "degraded",
        [VOLUME_HEALTH_FAILED] = "failed",
        [VOLUME_HEALTH_UNKNOWN] = "unknown",
};

DEFINE_STRING_TABLE_LOOKUP(volume_health, VolumeHealth, volume_health_table)

int volume_new(const char *name, Volume **ret) {
        Volume *v;

        if (!name || !*name || !ret)
                return -EINVAL;
        v = calloc(1, sizeof(*v));
        if (!v)
                return -ENOMEM;
        v->name = strdup(name);
        if (!v->name) {
                free(v);
                return -ENOMEM;
        }
        v->kind = VOLUME_DISK;
        v->health = VOLUME_HEALTH_UNKNOWN;
        v->verdict = RAID_VERDICT_UNKNOWN;
        v->rotational = -1;
        v->raid_disks = -1;
        v->degraded = -1;
        *ret = v;
        return 0;
}

Volume *volume_free(Volume *v) {
        if (!v)
                return NULL;
        free(v->name);
        free(v->path);
        free(v->syspath);
        free(v->state);
        free(v->folded_into);
        free(v->sub_lv_of);
        strv_free(v->members);
        strv_free(v->holders);
        strv_free(v->raw_slaves);
        strv_free(v->raw_holders);
        strv_free(v->container_arrays);
        for (size_t i = 0; i < v->n_array_members; i++) {
                free(v->array_members[i].name);
                free(v->array_members[i].state);
        }
        free(v->array_members);
        free(v->parent);
        free(v->level);
        free(v->sync.action);
        md_array_free(v->md);
        free(v->dm_name);
        free(v->dm_uuid);
        free(v->vg_name);
        free(v->lv_name);
        free(v->dm_target);
        free(v->dm_table_params);
        free(v->dm_raid);
        free(v->dm_judgement);
        free(v->vendor);
        free(v->model);
        free(v->serial);
        free(v->rev);
        free(v->transport);
        free(v->scsi_host);
        free(v->driver);
        free(v->cli_name);
        free(v->cli_volume_id);
        free(v->cli_state);
        free(v->cli_state_raw);
        free(v);
        return NULL;
}

bool volume_is_array(const Volume *v) {
        if (!v)
                return false;
        return v->md || v->dm_raid || v->has_cli;
}

/* A member state that means "this leg does not carry data": md's faulty, dm-raid's D and -. */
static bool member_state_is_bad(const char *state) {
        const char *p;
        size_t n;

        if (!state)
                return false;
        for (p = state; *p; p += n + (p[n] == ',')) {
                n = strcspn(p, ",");
                if ((n == 6 && strncmp(p, "faulty", n) == 0) ||
                    (n == 7 && strncmp(p, "missing", n) == 0) ||
                    (n == 7 && strncmp(p, "blocked", n) == 0) ||
                    (n == 11 && strncmp(p, "write_error", n) == 0))
                        return true;
        }
        return false;
}

bool volume_is_listed(const Volume *v) {
        /* a disk the kernel marks offline or dead may read size 0: its failure stays listed */
        bool unconfigured = v->kind == VOLUME_DISK && v->size_bytes == 0 && !v->size_unknown &&
                            strv_length(v->holders) == 0 && v->health != VOLUME_HEALTH_FAILED;

        return !v->hidden && !unconfigured;
}

bool volume_has_problem(const Volume *v) {
        if (!v)
                return false;
        if (v->slow || v->mdmon_missing)
                return true;
        if (v->health == VOLUME_HEALTH_DEGRADED || v->health == VOLUME_HEALTH_FAILED)
                return true;
        for (size_t i = 0; i < v->n_array_members; i++)
                if (member_state_is_bad(v->array_members[i].state))
                        return true;
        return false;
}

const char *volume_member_state(const VolumeMember *m) {
        if (!m || !m->state)
                return NULL;
        if (m->slot >= 0 && strstr(m->state, "spare") && !strstr(m->state, "faulty"))
                /* a --replace target keeps saying so (mdadm: "spare rebuilding", "(R)") */
                return strstr(m->state, "replacement") ? "rebuilding,replacement" : "rebuilding";
        return m->state;
}

static int add_members(json_object *o, const Volume *v) {
        json_object *states, *list;
        int r;

        states = json_object_new_object();
        if (!states)
                return -ENOMEM;
        list = json_object_new_array();
        if (!list) {
                json_object_put(states);
                return -ENOMEM;
        }
        for (size_t i = 0; i < v->n_array_members; i++) {
                const VolumeMember *m = &v->array_members[i];
                json_object *e = json_object_new_object();

                if (!e || json_object_array_add(list, e) < 0) {
                        json_object_put(e);
                        goto out_nomem;
                }
                if (json_add_str(e, "name", m->name) < 0 ||
                    json_add_str(e, "state", volume_member_state(m)) < 0)
                        goto out_nomem;
                if (json_add(e, "slot", m->slot >= 0 ? json_object_new_int(m->slot) : NULL) < 0)
                        goto out_nomem;
                if (json_add(e, "errors",
                             m->errors >= 0 ? json_object_new_int64(m->errors) : NULL) < 0)
                        goto out_nomem;
                if (m->name && !json_object_object_get_ex(states, m->name, NULL) &&
                    json_add_str(states, m->name, volume_member_state(m)) < 0)
                        goto out_nomem;
        }
        r = json_add(o, "member_states", states);
        if (r < 0) {
                json_object_put(list);
                return r;
        }
        return json_add(o, "array_members", list);

out_nomem:
        json_object_put(states);
        json_object_put(list);
        return -ENOMEM;
}

static int add_array_fields(json_object *o, const Volume *v) {
        const VolumeSync *s = &v->sync;
        json_object *j;
        int r;

        r = json_add_str(o, "level", v->level);
        if (r < 0)
                return r;
        r = json_add(o, "raid_disks",
                     v->raid_disks >= 0 ? json_object_new_int(v->raid_disks) : NULL);
        if (r < 0)
                return r;
        r = json_add(o, "degraded", v->degraded >= 0 ? json_object_new_int(v->degraded) : NULL);
        if (r < 0)
                return r;
        r = json_add_str(o, "verdict", raid_verdict_to_string(v->verdict));
        if (r < 0)
                return r;
        r = json_add_str(o, "verdict_reason",
                         v->verdict_reason && *v->verdict_reason ? v->verdict_reason : NULL);
        if (r < 0)
                return r;
        r = json_add_bool(o, "replacing", v->replacing);
        if (r < 0)
                return r;
        r = json_add_str(o, "sync_action", s->action);
        if (r < 0)
                return r;
        r = json_add_bool(o, "sync_delayed", s->delayed);
        if (r < 0)
                return r;
        j = NULL;
        /* 6 decimals, so golden files do not depend on float printing */
        if (s->has_progress && !(j = json_number_new_rounded(CLAMP(s->progress, 0.0, 1.0), 6)))
                return -ENOMEM;
        r = json_add(o, "sync_progress", j);
        if (r < 0)
                return r;
        r = json_add(o, "sync_completed_sectors",
                     s->has_progress && s->total_sectors > 0
                             ? json_object_new_uint64(s->done_sectors)
                             : NULL);
        if (r < 0)
                return r;
        r = json_add(o, "sync_total_sectors",
                     s->has_progress && s->total_sectors > 0
                             ? json_object_new_uint64(s->total_sectors)
                             : NULL);
        if (r < 0)
                return r;
        r = json_add(o, "sync_speed_bytes_per_second",
                     s->speed_bytes_per_second > 0
                             ? json_object_new_uint64(s->speed_bytes_per_second)
                             : NULL);
        if (r < 0)
                return r;
        r = json_add(o, "sync_eta_seconds",
                     s->has_eta ? json_object_new_uint64(s->eta_seconds) : NULL);
        if (r < 0)
                return r;
        r = json_add(o, "mismatch_count",
                     s->has_mismatch_count ? json_object_new_uint64(s->mismatch_count) : NULL);
        if (r < 0)
                return r;
        return add_members(o, v);
}

static int add_md_fields(json_object *o, const Volume *v) {
        const MdArray *a = v->md;
        json_object *md = json_object_new_object();
        uint64_t after =
                a->reshape_position_sectors != MD_UNSET ? md_array_size_after_reshape(a) : 0;
        char container[64];
        int r;

        (void) md_array_container_name(a, container, sizeof(container));
        if (!md)
                return -ENOMEM;
        r = json_add(o, "md", md);
        if (r < 0)
                return r;
        if (json_add_str(md, "array_state", a->array_state_raw) < 0 ||
            json_add_str(md, "metadata_version", a->metadata_version) < 0 ||
            /* an IMSM/DDF member array names its container: "external:/md127/0" */
            json_add_str(md, "container", container[0] ? container : NULL) < 0 ||
            /* a container lists them back: the arrays that serve its data */
            (md_array_is_container(a) &&
             json_add_strv(md, "member_arrays", v->container_arrays) < 0) ||
            json_add_str(md, "uuid", a->uuid) < 0 ||
            /* external metadata: whether its mdmon runs (null: not such an array) */
            (container[0] && json_add_bool(md, "mdmon_running", !v->mdmon_missing) < 0) ||
            json_add_u64_if(md, "chunk_size_bytes",
                            a->chunk_size_bytes != MD_UNSET && a->chunk_size_bytes > 0,
                            a->chunk_size_bytes) < 0 ||
            json_add_u64_if(md, "raid_disks_old",
                            a->raid_disks_old != MD_UNSET && a->raid_disks_old != a->raid_disks,
                            a->raid_disks_old) < 0 ||
            json_add_u64_if(md, "chunk_size_old_bytes",
                            a->chunk_size_old_bytes != MD_UNSET &&
                                    a->chunk_size_old_bytes != a->chunk_size_bytes,
                            a->chunk_size_old_bytes) < 0 ||
            json_add_u64_if(md, "layout", a->layout != MD_UNSET, a->layout) < 0 ||
            json_add_u64_if(md, "layout_old",
                            a->layout_old != MD_UNSET && a->layout_old != a->layout,
                            a->layout_old) < 0 ||
            /* a level change (5 -> 6) under way: the level the reshape goes to */
            json_add_str(md, "level_new",
                         a->level_new >= 0 && a->level_new != a->level
                                 ? md_level_to_string(a->level_new)
                                 : NULL) < 0 ||
            json_add_u64_if(md, "size_bytes_after_reshape", after > 0, after) < 0 ||
            json_add_u64_if(md, "reshape_position_sectors", a->reshape_position_sectors != MD_UNSET,
                            a->reshape_position_sectors) < 0 ||
            json_add_u64_if(md, "sync_speed_min_kib_per_second",
                            a->sync_speed_min.kib_per_sec != MD_UNSET,
                            a->sync_speed_min.kib_per_sec) < 0 ||
            json_add_str(md, "sync_speed_min_source",
                         md_speed_limit_source_to_string(a->sync_speed_min.source)) < 0 ||
            json_add_u64_if(md, "sync_speed_max_kib_per_second",
                            a->sync_speed_max.kib_per_sec != MD_UNSET,
                            a->sync_speed_max.kib_per_sec) < 0 ||
            json_add_str(md, "sync_speed_max_source",
                         md_speed_limit_source_to_string(a->sync_speed_max.source)) < 0)
                return -ENOMEM;
        return 0;
}

static json_object *ratio_or_null(double x) {
        return x >= 0 ? json_number_new(x) : NULL;
}

/* The target judge's figures as dm.<target> (docs/json.md), named and scaled as their /metrics
 * series (report/metrics-dm.c: storpulse_thin_pool_data_usage_ratio is
 * dm.thin_pool.data_usage_ratio): ratios 0..1, null when the status has none. t is consumed;
 * targets without figures add nothing. */
static int add_dm_figures(json_object *dm, json_object *t, const DmJudgement *j) {
        const char *key = NULL;
        bool fail = false;

        switch (j->target) {
        case DM_TARGET_THIN_POOL:
                key = "thin_pool";
                fail = json_add(t, "data_usage_ratio", ratio_or_null(j->data_usage)) < 0 ||
                       json_add(t, "metadata_usage_ratio", ratio_or_null(j->metadata_usage)) < 0 ||
                       json_add_bool(t, "failed", j->failed) < 0 ||
                       json_add_bool(t, "read_only", j->read_only) < 0 ||
                       json_add_bool(t, "out_of_data_space", j->out_of_data_space) < 0 ||
                       json_add_bool(t, "needs_check", j->needs_check) < 0 ||
                       json_add_bool(t, "queueing", j->queueing) < 0;
                break;
        case DM_TARGET_THIN:
                key = "thin";
                fail = json_add_bool(t, "failed", j->failed) < 0;
                break;
        case DM_TARGET_SNAPSHOT:
        case DM_TARGET_SNAPSHOT_MERGE:
                key = "snapshot";
                fail = json_add(t, "usage_ratio", ratio_or_null(j->data_usage)) < 0 ||
                       json_add_bool(t, "invalid", j->invalid) < 0 ||
                       json_add_bool(t, "merge_failed", j->merge_failed) < 0 ||
                       json_add_bool(t, "overflow", j->overflow) < 0;
                break;
        case DM_TARGET_MULTIPATH:
                key = "multipath";
                fail = json_add_u64(t, "paths", j->paths) < 0 ||
                       json_add_u64(t, "paths_failed", j->paths_failed) < 0 ||
                       json_add_bool(t, "queueing", j->queueing) < 0;
                break;
        case DM_TARGET_INTEGRITY:
                key = "integrity";
                fail = json_add_u64_if(t, "mismatches", j->mismatches != DM_UNSET, j->mismatches) <
                       0;
                break;
        case DM_TARGET_CACHE:
                key = "cache";
                fail = json_add_bool(t, "failed", j->failed) < 0 ||
                       json_add_bool(t, "read_only", j->read_only) < 0 ||
                       json_add_bool(t, "needs_check", j->needs_check) < 0;
                break;
        case DM_TARGET_WRITECACHE:
                key = "writecache";
                fail = json_add_int(t, "error", j->writecache_error) < 0;
                break;
        case DM_TARGET_VERITY:
                key = "verity";
                fail = json_add_bool(t, "corrupted", j->corrupted) < 0;
                break;
        case DM_TARGET_LINEAR:
        case DM_TARGET_STRIPED:
        case DM_TARGET_MIRROR:
        case DM_TARGET_RAID:
        case DM_TARGET_SNAPSHOT_ORIGIN:
        case DM_TARGET_CRYPT:
        case DM_TARGET_VDO:
        case DM_TARGET_DELAY:
        case DM_TARGET_FLAKEY:
        case DM_TARGET_ERROR:
        case DM_TARGET_ZERO:
        case DM_TARGET_UNKNOWN:
        case _DM_TARGET_TYPE_MAX:
        case _DM_TARGET_TYPE_INVALID:
                break;
        }
        if (fail || !key) {
                json_object_put(t);
                return fail ? -ENOMEM : 0;
        }
        return json_add(dm, key, t);
}

static int add_dm_fields(json_object *o, const Volume *v) {
        json_object *dm = json_object_new_object();
        char journal[2] = {};
        int r;

        if (!dm)
                return -ENOMEM;
        r = json_add(o, "dm", dm);
        if (r < 0)
                return r;
        /* linear/striped tables are judged too (a lost PV); arrays say it in their fields */
        if (!volume_is_array(v) &&
            (json_add_str(o, "verdict", raid_verdict_to_string(v->verdict)) < 0 ||
             json_add_str(o, "verdict_reason",
                          v->verdict_reason && *v->verdict_reason ? v->verdict_reason : NULL) < 0))
                return -ENOMEM;
        if (json_add_str(dm, "name", v->dm_name) < 0 || json_add_str(dm, "uuid", v->dm_uuid) < 0 ||
            json_add_str(dm, "vg_name", v->vg_name) < 0 ||
            json_add_str(dm, "lv_name", v->lv_name) < 0 ||
            json_add_str(dm, "target", v->dm_target) < 0 ||
            json_add_bool(dm, "suspended", v->dm_suspended) < 0)
                return -ENOMEM;
        if (v->dm_judgement) {
                json_object *t = json_object_new_object();

                if (!t || add_dm_figures(dm, t, v->dm_judgement) < 0)
                        return -ENOMEM;
        }
        if (!v->dm_raid)
                return json_add(dm, "raid", NULL);

        json_object *raid = json_object_new_object();
        if (!raid)
                return -ENOMEM;
        r = json_add(dm, "raid", raid);
        if (r < 0)
                return r;
        journal[0] = v->dm_raid->journal;
        if (json_add_str(raid, "raid_type", v->dm_raid->raid_type) < 0 ||
            json_add_str(raid, "health", v->dm_raid->health) < 0 ||
            json_add_str(raid, "sync_action", v->dm_raid->sync_action_raw) < 0 ||
            json_add_u64(raid, "sync_done_sectors", v->dm_raid->sync_done_sectors) < 0 ||
            json_add_u64(raid, "sync_total_sectors", v->dm_raid->sync_total_sectors) < 0 ||
            json_add_str(raid, "journal", journal[0] ? journal : NULL) < 0)
                return -ENOMEM;
        return 0;
}

int volume_to_json(const Volume *v, json_object **ret) {
        json_object *o;

        if (!v || !ret)
                return -EINVAL;
        o = json_object_new_object();
        if (!o)
                return -ENOMEM;

        if (json_add_str(o, "name", v->name) < 0 ||
            json_add_str(o, "kind", volume_kind_to_string(v->kind)) < 0 ||
            json_add_str(o, "path", v->path) < 0 ||
            json_add(o, "size_bytes",
                     v->size_unknown ? NULL : json_object_new_uint64(v->size_bytes)) < 0 ||
            json_add_str(o, "state", volume_health_to_string(v->health)) < 0 ||
            json_add_str(o, "kernel_state", v->state) < 0 ||
            json_add_strv(o, "members", v->members) < 0 ||
            json_add_strv(o, "holders", v->holders) < 0 ||
            json_add_bool(o, "read_only", v->read_only) < 0)
                goto out_nomem;
        {
                char buf[32];
                (void) snprintf(buf, sizeof(buf), "%u:%u", v->major, v->minor);
                if (json_add_str(o, "major_minor", buf) < 0)
                        goto out_nomem;
        }
        if (json_add(o, "logical_block_size_bytes",
                     v->logical_block_size > 0 ? json_object_new_int64(v->logical_block_size)
                                               : NULL) < 0 ||
            json_add(o, "rotational",
                     v->rotational >= 0 ? json_object_new_boolean(v->rotational) : NULL) < 0)
                goto out_nomem;
        if (v->kind == VOLUME_PARTITION &&
            (json_add_str(o, "parent", v->parent) < 0 ||
             json_add_int(o, "partition_number", v->partition_number) < 0))
                goto out_nomem;

        if (volume_is_array(v) && add_array_fields(o, v) < 0)
                goto out_nomem;
        if (v->md && add_md_fields(o, v) < 0)
                goto out_nomem;
        if (v->dm_name && add_dm_fields(o, v) < 0)
                goto out_nomem;
        if (v->kind == VOLUME_CONTROLLER) {
                json_object *c = NULL;

                if (v->has_cli) {
                        c = json_object_new_object();
                        if (!c)
                                goto out_nomem;
                        if (json_add(o, "controller", c) < 0)
                                goto out_nomem;
                        if (json_add_str(c, "cli", v->cli_name) < 0 ||
                            json_add_str(c, "volume_id", v->cli_volume_id) < 0 ||
                            json_add_str(c, "state", v->cli_state) < 0 ||
                            json_add_str(c, "state_raw", v->cli_state_raw) < 0)
                                goto out_nomem;
                } else if (json_add(o, "controller", NULL) < 0)
                        goto out_nomem;
        }
        if (v->kind == VOLUME_DISK || v->kind == VOLUME_CONTROLLER) {
                if (json_add_str(o, "vendor", v->vendor) < 0 ||
                    json_add_str(o, "model", v->model) < 0 ||
                    json_add_str(o, "serial", v->serial) < 0 ||
                    json_add_str(o, "transport", v->transport) < 0 ||
                    json_add_str(o, "scsi_host", v->scsi_host) < 0 ||
                    json_add_str(o, "driver", v->driver) < 0)
                        goto out_nomem;
        }
        *ret = o;
        return 0;

out_nomem:
        json_object_put(o);
        return -ENOMEM;
}

/* SPDX-License-Identifier: MIT */
/* What a vendor RAID CLI (storcli, ssacli, arcconf) says about controller volumes, merged into
 * the inventory's Volumes. The CLI is run by the owner off the main loop, rarely (it can take
 * seconds); sysfs is re-read on every uevent. So a re-read of a controller volume carries the
 * CLI's data over from the previous reading (inventory_cli_carry_over()) instead of forgetting it
 * until the next CLI run, and the CLI's verdict keeps weighing on the health. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/inventory-internal.h"
#include "model/controller.h"

/* The CLI's state lowers the health sysfs shows, never raises it. */
static void cli_merge_health(Volume *v, ControllerVolumeState st) {
        switch (st) {
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
}

int inventory_cli_carry_over(Volume *nv, const Volume *old) {
        VolumeSync sync;
        int r;

        if (!old->has_cli || nv->kind != VOLUME_CONTROLLER)
                return 0;
        if (inventory_strdup_to(&nv->cli_name, old->cli_name) < 0 ||
            inventory_strdup_to(&nv->cli_volume_id, old->cli_volume_id) < 0 ||
            inventory_strdup_to(&nv->cli_state, old->cli_state) < 0 ||
            inventory_strdup_to(&nv->cli_state_raw, old->cli_state_raw) < 0)
                return -ENOMEM;
        /* sysfs gives a controller volume no level and no sync figures: those were the CLI's */
        if (old->level && inventory_strdup_to(&nv->level, old->level) < 0)
                return -ENOMEM;
        r = inventory_sync_copy(&sync, &old->sync);
        if (r < 0)
                return r;
        free(nv->sync.action);
        nv->sync = sync;
        nv->has_cli = true;
        cli_merge_health(nv, controller_volume_state_from_string(old->cli_state));
        return 0;
}

static bool driver_uses_cli(const Inventory *inv, const Volume *v, ControllerCli cli) {
        const ControllerDriver *d =
                v->driver ? controller_lookup(v->driver, inv->controller_flags) : NULL;

        for (size_t i = 0; d && i < CONTROLLER_CLI_PER_DRIVER; i++)
                if (d->cli[i] == cli)
                        return true;
        return false;
}

static int cli_sync(Volume *v, const ControllerVolume *cv) {
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

static int apply_cli_volume(Volume *v, ControllerCli cli, const ControllerVolume *cv) {
        char id[64];

        (void) snprintf(id, sizeof(id), "c%s/v%s", cv->controller ? cv->controller : "?",
                        cv->volume_id ? cv->volume_id : "?");
        v->has_cli = true;
        if (inventory_strdup_to(&v->cli_name, controller_cli_to_string(cli)) < 0 ||
            inventory_strdup_to(&v->cli_volume_id, id) < 0 ||
            inventory_strdup_to(&v->cli_state, controller_volume_state_to_string(cv->state)) < 0 ||
            inventory_strdup_to(&v->cli_state_raw, cv->state_raw) < 0)
                return -ENOMEM;
        if (cv->raid_level && inventory_strdup_to(&v->level, cv->raid_level) < 0)
                return -ENOMEM;
        cli_merge_health(v, cv->state);
        return cli_sync(v, cv);
}

/* Apply and record what changed (health, sync; the rest is OTHER). */
static int apply_and_record(Inventory *inv, Volume *v, ControllerCli cli,
                            const ControllerVolume *cv) {
        _cleanup_free_ char *level = NULL, *state = NULL, *raw = NULL, *id = NULL;
        VolumeHealth health = v->health;
        bool had_cli = v->has_cli;
        VolumeSync sync;
        unsigned what = 0;
        int r;

        r = inventory_sync_copy(&sync, &v->sync);
        if (r < 0)
                return r;
        if (inventory_strdup_to(&level, v->level) < 0 ||
            inventory_strdup_to(&state, v->cli_state) < 0 ||
            inventory_strdup_to(&raw, v->cli_state_raw) < 0 ||
            inventory_strdup_to(&id, v->cli_volume_id) < 0) {
                free(sync.action);
                return -ENOMEM;
        }
        r = apply_cli_volume(v, cli, cv);
        if (health != v->health)
                what |= INVENTORY_CHANGE_HEALTH;
        if (!inventory_sync_equal(&sync, &v->sync))
                what |= INVENTORY_CHANGE_SYNC;
        free(sync.action);
        if (!had_cli || !level != !v->level || (level && strcmp(level, v->level) != 0) ||
            !state != !v->cli_state || (state && strcmp(state, v->cli_state) != 0) ||
            !raw != !v->cli_state_raw || (raw && strcmp(raw, v->cli_state_raw) != 0) ||
            !id != !v->cli_volume_id || (id && strcmp(id, v->cli_volume_id) != 0))
                what |= INVENTORY_CHANGE_OTHER;
        if (what && inventory_record_change(inv, v, INVENTORY_VOLUME_CHANGED, what) < 0)
                return -ENOMEM;
        return r;
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
                r = apply_and_record(inv, v, cli, cv);
                if (r < 0)
                        return r;
                matched++;
        }
        return matched;
}

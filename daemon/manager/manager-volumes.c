/* SPDX-License-Identifier: MIT */
/* Per-volume records and the events derived from the inventory: every change set the inventory
 * dispatches (udev events, rescans, dm-raid polls, md re-reads) is compared with what the record
 * saw last, so a transition (degraded, failed, recovered, member failed/removed/added, spare
 * active, appeared, vanished) is raised exactly once, whichever path noticed it first. Rebuild
 * events come from the md monitor's trackers. */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/log.h"
#include "manager/manager-internal.h"

static ManagerVolume *manager_volume_free(ManagerVolume *r) {
        if (!r)
                return NULL;
        free(r->name);
        for (size_t i = 0; r->seen_members && r->seen_members[i]; i++)
                free(r->seen_members[i]);
        free(r->seen_members);
        free(r->last_outcome);
        free(r->history);
        free(r);
        return NULL;
}

ManagerVolume *manager_get_volume(const Manager *m, const char *name) {
        for (size_t i = 0; i < m->n_volumes; i++)
                if (strcmp(m->volumes[i]->name, name) == 0)
                        return m->volumes[i];
        return NULL;
}

const ManagerProbeSample *manager_volume_get_sample(const ManagerVolume *v, size_t i) {
        if (!v || i >= v->n_history)
                return NULL;
        return &v->history[(v->history_next + MANAGER_HISTORY_MAX - 1 - i) % MANAGER_HISTORY_MAX];
}

int manager_volume_add_sample(ManagerVolume *v, const ManagerProbeSample *s) {
        if (!v->history) {
                v->history = calloc(MANAGER_HISTORY_MAX, sizeof(*v->history));
                if (!v->history)
                        return -ENOMEM;
        }
        v->history[v->history_next] = *s;
        v->history_next = (v->history_next + 1) % MANAGER_HISTORY_MAX;
        if (v->n_history < MANAGER_HISTORY_MAX)
                v->n_history++;
        return 0;
}

double manager_probe_sample_cpu_wait_share(const ManagerProbeSample *s) {
        if (!s || s->cpu_wait_usec == USEC_INFINITY || s->probe_usec == 0)
                return NAN;
        return MIN(1.0, (double) s->cpu_wait_usec / (double) s->probe_usec);
}

/* "name=state" for each array member; NULL-terminated, NULL on OOM or no members. */
static char **members_snapshot(const Volume *v) {
        char **l;

        if (v->n_array_members == 0)
                return NULL;
        l = calloc(v->n_array_members + 1, sizeof(char *));
        if (!l)
                return NULL;
        for (size_t i = 0; i < v->n_array_members; i++)
                if (asprintf(&l[i], "%s=%s", v->array_members[i].name ?: "?",
                             v->array_members[i].state ?: "") < 0) {
                        l[i] = NULL;
                        break;
                }
        return l;
}

static void strv_free_local(char **l) {
        for (size_t i = 0; l && l[i]; i++)
                free(l[i]);
        free(l);
}

/* The state of member `name` in a snapshot, NULL if absent. */
static const char *snapshot_state(char **l, const char *name) {
        size_t n = strlen(name);

        for (size_t i = 0; l && l[i]; i++)
                if (strncmp(l[i], name, n) == 0 && l[i][n] == '=')
                        return l[i] + n + 1;
        return NULL;
}

static bool has_word(const char *state, const char *word) {
        size_t n = strlen(word);

        for (const char *p = state; p && *p;) {
                size_t k = strcspn(p, ",");

                if (k == n && strncmp(p, word, n) == 0)
                        return true;
                p += k;
                if (*p == ',')
                        p++;
        }
        return false;
}

static bool state_faulty(const char *s) {
        return has_word(s, "faulty") || has_word(s, "missing");
}

static void member_events(Manager *m, ManagerVolume *r, const Volume *v) {
        char **now_l = members_snapshot(v);

        for (size_t i = 0; i < v->n_array_members; i++) {
                const VolumeMember *mb = &v->array_members[i];
                const char *name = mb->name ?: "?", *st = mb->state ?: "";
                const char *was = snapshot_state(r->seen_members, name);

                if (!was) {
                        manager_event(m, MANAGER_EVENT_MEMBER_ADDED, v, name, NULL,
                                      "%s: member %s added (%s)", v->name, name, st);
                        continue;
                }
                if (state_faulty(st) && !state_faulty(was))
                        manager_event(m, MANAGER_EVENT_MEMBER_FAILED, v, name, NULL,
                                      "%s: member %s failed (%s)", v->name, name, st);
                else if (has_word(was, "spare") && has_word(st, "in_sync"))
                        manager_event(m, MANAGER_EVENT_SPARE_ACTIVE, v, name, NULL,
                                      "%s: spare %s is now an active member", v->name, name);
                if (has_word(st, "want_replacement") && !has_word(was, "want_replacement"))
                        manager_event(m, MANAGER_EVENT_REPLACEMENT_STARTED, v, name, NULL,
                                      "%s: replacement of member %s started", v->name, name);
                else if (has_word(was, "replacement") && !has_word(st, "replacement"))
                        manager_event(m, MANAGER_EVENT_REPLACEMENT_FINISHED, v, name, NULL,
                                      "%s: replacement of member %s finished", v->name, name);
        }
        for (size_t i = 0; r->seen_members && r->seen_members[i]; i++) {
                const char *e = r->seen_members[i], *eq = strchr(e, '=');
                char name[MANAGER_EVENT_NAME_MAX];
                bool found = false;

                (void) snprintf(name, sizeof(name), "%.*s", (int) (eq ? eq - e : (int) strlen(e)),
                                e);
                for (size_t j = 0; j < v->n_array_members && !found; j++)
                        found = v->array_members[j].name &&
                                strcmp(v->array_members[j].name, name) == 0;
                if (!found)
                        manager_event(m, MANAGER_EVENT_MEMBER_REMOVED, v, name, NULL,
                                      "%s: member %s removed", v->name, name);
        }
        strv_free_local(r->seen_members);
        r->seen_members = now_l;
}

static void health_event(Manager *m, ManagerVolume *r, const Volume *v, bool initial) {
        VolumeHealth was = r->seen_health, h = v->health;
        char f[64], *fields[] = { f, NULL };

        if (h == was || h == VOLUME_HEALTH_UNKNOWN)
                return;
        r->seen_health = h;
        (void) snprintf(f, sizeof(f), "STORPULSE_DEGRADED_MEMBERS=%d", v->degraded);
        /* a dm target judge names what is wrong (paths, stripes, pool space) */
        if (v->dm_judgement && v->verdict_reason && *v->verdict_reason &&
            (h == VOLUME_HEALTH_DEGRADED || h == VOLUME_HEALTH_FAILED))
                manager_event(
                        m,
                        h == VOLUME_HEALTH_DEGRADED ? MANAGER_EVENT_DEGRADED : MANAGER_EVENT_FAILED,
                        v, NULL, fields, "%s: %s %s (%s)", v->name, volume_kind_to_string(v->kind),
                        h == VOLUME_HEALTH_DEGRADED ? "is degraded" : "has failed",
                        v->verdict_reason);
        else if (h == VOLUME_HEALTH_DEGRADED)
                manager_event(m, MANAGER_EVENT_DEGRADED, v, NULL, fields,
                              "%s: %s is degraded (%d member%s missing)", v->name,
                              volume_kind_to_string(v->kind), v->degraded,
                              v->degraded == 1 ? "" : "s");
        else if (h == VOLUME_HEALTH_FAILED)
                manager_event(m, MANAGER_EVENT_FAILED, v, NULL, fields, "%s: %s has failed (%s)",
                              v->name, volume_kind_to_string(v->kind), v->state ?: "?");
        else if (h == VOLUME_HEALTH_OK && !initial &&
                 (was == VOLUME_HEALTH_DEGRADED || was == VOLUME_HEALTH_FAILED))
                manager_event(m, MANAGER_EVENT_RECOVERED, v, NULL, NULL, "%s: %s recovered",
                              v->name, volume_kind_to_string(v->kind));
}

ManagerVolume *manager_volume_ensure(Manager *m, Volume *v) {
        ManagerVolume *r = manager_get_volume(m, v->name), **a;

        if (r) {
                r->volume = v;
                return r;
        }
        a = realloc(m->volumes, (m->n_volumes + 1) * sizeof(*a));
        if (!a)
                return NULL;
        m->volumes = a;
        r = calloc(1, sizeof(*r));
        if (!r)
                return NULL;
        r->name = strdup(v->name);
        if (!r->name) {
                free(r);
                return NULL;
        }
        r->volume = v;
        r->seen_health = VOLUME_HEALTH_UNKNOWN;
        m->volumes[m->n_volumes++] = r;
        return r;
}

static void manager_volume_drop(Manager *m, const char *name) {
        for (size_t i = 0; i < m->n_volumes; i++)
                if (strcmp(m->volumes[i]->name, name) == 0) {
                        if (m->volumes[i]->probing) {
                                /* the run holds it; it forgets the handle and frees it later */
                                m->volumes[i]->volume = NULL;
                                return;
                        }
                        manager_volume_free(m->volumes[i]);
                        m->volumes[i] = m->volumes[--m->n_volumes];
                        return;
                }
}

void manager_volume_release(Manager *m, ManagerVolume *r) {
        for (size_t i = 0; i < m->n_volumes; i++)
                if (m->volumes[i] == r) {
                        manager_volume_free(r);
                        m->volumes[i] = m->volumes[--m->n_volumes];
                        return;
                }
}

static void count_problems(Manager *m) {
        manager_stack_update(m); /* the count, and problem-below events */
}

void manager_volumes_coldplug(Manager *m) {
        Volume *v;

        INVENTORY_FOREACH(v, m->inventory) {
                ManagerVolume *r = manager_volume_ensure(m, v);

                if (!r) {
                        log_oom();
                        continue;
                }
                r->seen_members = members_snapshot(v);
                r->seen_listed = volume_is_listed(v);
                /* a problem present at start is worth one event; a healthy start is not */
                if (!v->hidden)
                        health_event(m, r, v, true);
                else
                        r->seen_health = v->health;
        }
        count_problems(m);
        m->changed |= MANAGER_CHANGED_INVENTORY;
        manager_publish(m);
}

static void appeared_event(Manager *m, const Volume *v) {
        char f[128], *fields[] = { f, NULL };

        (void) snprintf(f, sizeof(f), "STORPULSE_SIZE_BYTES=%llu",
                        (unsigned long long) v->size_bytes);
        manager_event(m, MANAGER_EVENT_VOLUME_APPEARED, v, NULL, fields, "%s: %s appeared (%s)",
                      v->name, volume_kind_to_string(v->kind), v->path ?: "");
}

static void vanished_event(Manager *m, const Volume *v) {
        manager_event(m, MANAGER_EVENT_VOLUME_VANISHED, v, NULL, NULL, "%s: %s vanished", v->name,
                      volume_kind_to_string(v->kind));
}

/* Raise what changed in v against its record: idempotent (the record remembers what the last
 * event saw), so the same change may be looked at twice. */
static void volume_changed(Manager *m, Volume *v, unsigned what) {
        ManagerVolume *r = manager_volume_ensure(m, v);

        if (!r) {
                log_oom();
                return;
        }
        if (v->hidden) {
                r->seen_listed = false; /* folded into its LV: the LV stands for it, silently */
                r->seen_health = v->health;
                return;
        }
        /* A device node that stays while what it serves comes and goes: a loop device bound to
         * a file and detached again (losetup -d), which the listings hide at size 0. */
        if (volume_is_listed(v) != r->seen_listed) {
                r->seen_listed = !r->seen_listed;
                if (r->seen_listed)
                        appeared_event(m, v);
                else
                        vanished_event(m, v);
        }
        if (what & INVENTORY_CHANGE_MEMBERS)
                member_events(m, r, v);
        if (what & (INVENTORY_CHANGE_HEALTH | INVENTORY_CHANGE_MEMBERS))
                health_event(m, r, v, false);
}

void manager_on_changes(Inventory *inv, const InventoryChange *changes, size_t n, void *userdata) {
        Manager *m = userdata;

        if (md_monitor_apply_changes(m->md_monitor, changes, n) < 0)
                log_error_errno(-ENOMEM, "Out of memory following the arrays, ignoring");

        for (size_t i = 0; i < n; i++) {
                Volume *v = changes[i].volume;
                ManagerVolume *r;

                switch (changes[i].type) {
                case INVENTORY_VOLUME_ADDED:
                        r = manager_volume_ensure(m, v);
                        if (!r) {
                                log_oom();
                                break;
                        }
                        r->seen_members = members_snapshot(v);
                        r->seen_listed = volume_is_listed(v);
                        if (r->seen_listed)
                                appeared_event(m, v);
                        if (!v->hidden)
                                health_event(m, r, v, true);
                        else
                                r->seen_health = v->health;
                        break;
                case INVENTORY_VOLUME_CHANGED:
                        volume_changed(m, v, changes[i].what);
                        break;
                case INVENTORY_VOLUME_REMOVED:
                        r = manager_get_volume(m, v->name);
                        if (r && r->seen_listed)
                                vanished_event(m, v);
                        manager_volume_drop(m, v->name);
                        break;
                case _INVENTORY_CHANGE_TYPE_MAX:
                case _INVENTORY_CHANGE_TYPE_INVALID:
                        break;
                }
        }
        count_problems(m);
        (void) manager_dm_poll_update(m);
        m->changed |= MANAGER_CHANGED_INVENTORY;
        manager_publish(m);
}

static ManagerEventType rebuild_event_kind(const RebuildEvent *e) {
        switch (e->type) {
        case REBUILD_EVENT_STARTED:
                return e->operation == REBUILD_OP_RESHAPE ? MANAGER_EVENT_RESHAPE_STARTED
                                                          : MANAGER_EVENT_REBUILD_STARTED;
        case REBUILD_EVENT_PROGRESS:
                return MANAGER_EVENT_REBUILD_PROGRESS;
        case REBUILD_EVENT_FINISHED:
                if (e->operation == REBUILD_OP_RESHAPE)
                        return MANAGER_EVENT_RESHAPE_FINISHED;
                if (e->operation == REBUILD_OP_CHECK || e->operation == REBUILD_OP_REPAIR)
                        return MANAGER_EVENT_CHECK_FINISHED;
                return MANAGER_EVENT_REBUILD_FINISHED;
        case REBUILD_EVENT_INTERRUPTED:
                return MANAGER_EVENT_REBUILD_INTERRUPTED;
        case REBUILD_EVENT_RESUMED:
                return MANAGER_EVENT_REBUILD_RESUMED;
        case REBUILD_EVENT_DELAYED:
                return MANAGER_EVENT_REBUILD_DELAYED;
        case _REBUILD_EVENT_TYPE_MAX:
        case _REBUILD_EVENT_TYPE_INVALID:
                break;
        }
        return _MANAGER_EVENT_TYPE_INVALID;
}

void manager_on_md_event(MdMonitor *mon, const MdMonitorEvent *ev, void *userdata) {
        Manager *m = userdata;
        const RebuildEvent *e = ev->rebuild;
        char msg[MANAGER_EVENT_TEXT_MAX], f[5][64];
        char *fields[6] = {};
        size_t n = 0;
        ManagerEventType t;

        switch (ev->type) {
        case MD_MONITOR_ARRAY_WATCHED:
                log_debug("%s: watching %u attributes, %u event-driven", ev->array, ev->n_attrs,
                          ev->n_pollable);
                return;
        case MD_MONITOR_ARRAY_DROPPED:
                log_debug("%s: no longer watched", ev->array);
                return;
        case MD_MONITOR_READ_FAILED:
                log_warning_errno(ev->error, "%s: failed to read the array: %m, ignoring",
                                  ev->array);
                return;
        case MD_MONITOR_REBUILD:
                break;
        case _MD_MONITOR_EVENT_TYPE_MAX:
        case _MD_MONITOR_EVENT_TYPE_INVALID:
                return;
        }
        t = rebuild_event_kind(e);
        if (t < 0)
                return;
        /* The monitor re-read the array through the inventory just now; that change set is
         * dispatched on a later loop iteration. Raise its member/health transitions first, so
         * the journal reads "member added" before "recovery started" (the later dispatch finds
         * them raised already). Only CHANGED records: nothing is added or freed here. */
        {
                size_t n_ch = 0;
                const InventoryChange *ch = inventory_get_changes(m->inventory, &n_ch);

                for (size_t i = 0; i < n_ch; i++)
                        if (ch[i].type == INVENTORY_VOLUME_CHANGED)
                                volume_changed(m, ch[i].volume, ch[i].what);
        }
        (void) rebuild_event_format(e, msg, sizeof(msg));
        (void) snprintf(f[n], sizeof(f[n]), "STORPULSE_OPERATION=%s",
                        rebuild_operation_to_string(e->operation));
        fields[n] = f[n];
        n++;
        (void) snprintf(f[n], sizeof(f[n]), "STORPULSE_PERCENT=%u", e->percent);
        fields[n] = f[n];
        n++;
        if (e->duration_usec != USEC_INFINITY) {
                (void) snprintf(f[n], sizeof(f[n]), "STORPULSE_DURATION_SEC=%.3f",
                                (double) e->duration_usec / USEC_PER_SEC);
                fields[n] = f[n];
                n++;
        }
        if (e->mismatch_count != REBUILD_UNKNOWN) {
                (void) snprintf(f[n], sizeof(f[n]), "STORPULSE_MISMATCH_COUNT=%llu",
                                (unsigned long long) e->mismatch_count);
                fields[n] = f[n];
                n++;
        }
        if (e->speed_bytes_per_sec >= 0) {
                (void) snprintf(f[n], sizeof(f[n]), "STORPULSE_SPEED_BYTES_PER_SEC=%.0f",
                                e->speed_bytes_per_sec);
                fields[n] = f[n];
                n++;
        }
        manager_event_priority(m, t, rebuild_severity_to_priority(e->severity), ev->volume, NULL,
                               fields, "%s: %s", ev->array, msg);
        m->changed |= MANAGER_CHANGED_REBUILD;
        manager_publish(m);
}

void manager_volumes_free(Manager *m) {
        for (size_t i = 0; i < m->n_volumes; i++)
                manager_volume_free(m->volumes[i]);
        free(m->volumes);
        m->volumes = NULL;
        m->n_volumes = 0;
}

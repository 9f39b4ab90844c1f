/* SPDX-License-Identifier: MIT */
/* The daemon's problems: which volumes have one (their own health, a faulty member, a probe that
 * ended with read errors, stalled or could not run, until a clean probe), and health through the
 * stack (core/stack-health.h): after every change set the effective health of every listed
 * volume is computed again, and a volume whose state from below changed (another state, another
 * cause, or none any more) gets one problem-below / problem-below-cleared event naming the
 * cause. The records remember what the last event said, so a re-read raises nothing twice.
 * md arrays inactive with members (never started) are timed here too: the inventory has no clock,
 * so the daemon notes when it first read one as assembling and, past AssembleTimeout=, has the
 * inventory judge it not assembled (failed) with one not-assembled event; a timer wakes it for
 * the next one due, since an array that stays inactive sends no event at all. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "basic/log.h"
#include "core/stack-health.h"
#include "manager/manager-internal.h"

const char *manager_volume_probe_problem(const ManagerVolume *r) {
        const ManagerProbeSample *s;

        if (!r)
                return NULL;
        if (r->stalled)
                return "stalled";
        s = manager_volume_get_sample(r, 0);
        if (!s)
                return NULL;
        if (s->status == PROBE_RUNNER_STALLED || s->state == PROBE_STATE_STALLED)
                return "stalled";
        if (s->status != PROBE_RUNNER_DONE)
                return "probe-failed";
        if (s->state != PROBE_STATE_OK || s->errors > 0)
                return "read-errors";
        return NULL;
}

static bool volume_problem(const Manager *m, const Volume *v) {
        return volume_has_problem(v) ||
               manager_volume_probe_problem(manager_get_volume(m, v->name)) != NULL;
}

unsigned manager_count_problems(const Manager *m) {
        unsigned n = 0;
        Volume *v;

        INVENTORY_FOREACH(v, m->inventory)
        if (volume_is_listed(v) && volume_problem(m, v))
                n++;
        return n;
}

static void below_event(Manager *m, ManagerVolume *r, const Volume *v, const StackHealth *h) {
        VolumeHealth below = h->cause ? h->effective : VOLUME_HEALTH_OK;
        const char *cause = h->cause ? h->cause->name : "";
        char f[4][96], *fields[] = { f[0], f[1], f[2], f[3], NULL };

        if (below == r->seen_below && strcmp(cause, r->seen_cause) == 0)
                return;
        if (below == VOLUME_HEALTH_OK) {
                manager_event(m, MANAGER_EVENT_PROBLEM_BELOW_CLEARED, v, NULL, NULL,
                              "%s: no problem below it any more (was %s because of %s)", v->name,
                              volume_health_to_string(r->seen_below), r->seen_cause);
        } else {
                (void) snprintf(f[0], sizeof(f[0]), "STORPULSE_EFFECTIVE_STATE=%s",
                                volume_health_to_string(below));
                (void) snprintf(f[1], sizeof(f[1]), "STORPULSE_CAUSE=%s", cause);
                (void) snprintf(f[2], sizeof(f[2]), "STORPULSE_CAUSE_KIND=%s",
                                volume_kind_to_string(h->cause->kind));
                (void) snprintf(f[3], sizeof(f[3]), "STORPULSE_CAUSE_STATE=%s",
                                volume_health_to_string(h->cause->health));
                manager_event_priority(m, MANAGER_EVENT_PROBLEM_BELOW,
                                       below == VOLUME_HEALTH_FAILED ? LOG_CRIT : LOG_WARNING, v,
                                       NULL, fields, "%s: %s is %s because of %s below it (%s %s)",
                                       v->name, volume_kind_to_string(v->kind),
                                       volume_health_to_string(below), cause,
                                       volume_kind_to_string(h->cause->kind),
                                       volume_health_to_string(h->cause->health));
        }
        r->seen_below = below;
        (void) snprintf(r->seen_cause, sizeof(r->seen_cause), "%s", cause);
}

/* ---- md arrays that never start: inactive with members past AssembleTimeout= ------------ */

static void not_assembled_event(Manager *m, ManagerVolume *r, Volume *v) {
        char f[3][64], *fields[] = { f[0], f[1], NULL, NULL }, of[32] = "";
        double timeout_sec = (double) m->config->assemble_timeout_usec / USEC_PER_SEC;

        (void) snprintf(f[0], sizeof(f[0]), "STORPULSE_MEMBERS=%zu", v->n_array_members);
        (void) snprintf(f[1], sizeof(f[1]), "STORPULSE_TIMEOUT_SEC=%.0f", timeout_sec);
        /* md shows no raid_disks for an array that never started */
        if (v->raid_disks > 0) {
                (void) snprintf(f[2], sizeof(f[2]), "STORPULSE_RAID_DISKS=%d", v->raid_disks);
                fields[2] = f[2];
                (void) snprintf(of, sizeof(of), " of %d", v->raid_disks);
        }
        /* the failed health it now has is this event's: health_event() must not repeat it */
        r->seen_health = VOLUME_HEALTH_FAILED;
        manager_event(m, MANAGER_EVENT_NOT_ASSEMBLED, v, NULL, fields,
                      "%s: md array not assembled: inactive with %zu%s member%s for more than "
                      "%.0fs",
                      v->name, v->n_array_members, of, v->n_array_members == 1 && !of[0] ? "" : "s",
                      timeout_sec);
}

/* Mark every array assembling for AssembleTimeout= or longer; returns the earliest time another
 * one is due (CLOCK_MONOTONIC), USEC_INFINITY none. */
static usec_t assemble_check(Manager *m, usec_t now_usec) {
        usec_t next = USEC_INFINITY, grace = m->config->assemble_timeout_usec;
        Volume *v;

        INVENTORY_FOREACH(v, m->inventory) {
                ManagerVolume *r;

                if (!v->md || v->verdict != RAID_VERDICT_ASSEMBLING) {
                        if ((r = manager_get_volume(m, v->name)))
                                r->assembling_since_usec = 0;
                        continue;
                }
                r = manager_volume_ensure(m, v);
                if (!r)
                        continue;
                if (r->assembling_since_usec == 0)
                        r->assembling_since_usec = now_usec;
                if (now_usec - r->assembling_since_usec < grace) {
                        next = MIN(next, r->assembling_since_usec + grace);
                        continue;
                }
                if (inventory_mark_not_assembled(m->inventory, v) > 0)
                        not_assembled_event(m, r, v);
        }
        return next;
}

static int on_assemble_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;

        manager_stack_update(m); /* marks what is due; the change set follows on the loop */
        return 0;
}

static void assemble_arm(Manager *m, usec_t when) {
        int r;

        if (!m->assemble_timer) {
                if (when == USEC_INFINITY)
                        return;
                r = sd_event_add_time(m->event, &m->assemble_timer, CLOCK_MONOTONIC, when, 0,
                                      on_assemble_timer, m);
                if (r < 0) {
                        log_warning_errno(r, "Failed to arm the assembly timer: %m, ignoring");
                        return;
                }
                /* owned by the loop: freed with it */
                (void) sd_event_source_set_floating(m->assemble_timer, true);
                return;
        }
        if (when == USEC_INFINITY) {
                (void) sd_event_source_set_enabled(m->assemble_timer, SD_EVENT_OFF);
                return;
        }
        (void) sd_event_source_set_time(m->assemble_timer, when);
        (void) sd_event_source_set_enabled(m->assemble_timer, SD_EVENT_ONESHOT);
}

void manager_stack_update(Manager *m) {
        _cleanup_free_ StackHealth *sh = NULL;
        size_t n = inventory_size(m->inventory);
        Volume *v;

        if (m->event && m->config)
                assemble_arm(m, assemble_check(m, now(CLOCK_MONOTONIC)));
        m->n_problems = manager_count_problems(m);
        sh = calloc(n + 1, sizeof(*sh));
        if (!sh || stack_health_compute(m->inventory, sh, n) < 0) {
                log_oom();
                return;
        }
        INVENTORY_FOREACH(v, m->inventory) {
                ManagerVolume *r;

                if (!volume_is_listed(v))
                        continue;
                r = manager_volume_ensure(m, v);
                if (!r) {
                        log_oom();
                        continue;
                }
                below_event(m, r, v, &sh[_i_]);
        }
}

/* One entry of `status`'s problem list. */
static json_object *problem_json(const Manager *m, const Volume *v, const StackHealth *h) {
        json_object *o = json_object_new_object();
        const char *probe = manager_volume_probe_problem(manager_get_volume(m, v->name));

        if (!o)
                return NULL;
        if (json_object_object_add(o, "name", json_object_new_string(v->name)) < 0 ||
            json_object_object_add(o, "kind",
                                   json_object_new_string(volume_kind_to_string(v->kind))) < 0 ||
            json_object_object_add(
                    o, "state", json_object_new_string(volume_health_to_string(v->health))) < 0 ||
            json_object_object_add(o, "verdict_reason",
                                   v->verdict_reason && *v->verdict_reason
                                           ? json_object_new_string(v->verdict_reason)
                                           : NULL) < 0 ||
            json_object_object_add(o, "probe_problem",
                                   probe ? json_object_new_string(probe) : NULL) < 0 ||
            stack_health_add_json(h, o) < 0) {
                json_object_put(o);
                return NULL;
        }
        return o;
}

json_object *manager_problems_json(const Manager *m) {
        _cleanup_free_ StackHealth *sh = NULL;
        size_t n = inventory_size(m->inventory);
        json_object *a = json_object_new_array();
        Volume *v;

        sh = calloc(n + 1, sizeof(*sh));
        if (!a || !sh || stack_health_compute(m->inventory, sh, n) < 0) {
                json_object_put(a);
                return NULL;
        }
        INVENTORY_FOREACH(v, m->inventory) {
                json_object *o;

                if (!volume_is_listed(v) ||
                    (!volume_problem(m, v) && !stack_health_is_problem(&sh[_i_])))
                        continue;
                o = problem_json(m, v, &sh[_i_]);
                if (!o || json_object_array_add(a, o) < 0) {
                        json_object_put(o);
                        json_object_put(a);
                        return NULL;
                }
        }
        return a;
}

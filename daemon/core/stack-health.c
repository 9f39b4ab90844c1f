/* SPDX-License-Identifier: MIT */
/* Health through the stack (include/core/stack-health.h has the rule): one memoised walk down
 * the graph per volume, so a whole inventory costs O(volumes + links). Pure over the inventory.
 * Redundancy is judged where it lives: an array absorbs what its own member list already says
 * (a faulty member is in its own verdict), and only a member the array still counts as working
 * but which lost its data below (a failed controller volume, a broken md under a dm-raid leg)
 * adds to it; everything without redundancy passes the worst of its members up unchanged. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/inventory-internal.h"
#include "core/stack-health.h"

#define STACK_DEPTH_MAX 64

typedef struct Walk {
        const Inventory *inv;
        StackHealth *out;
        unsigned char *state; /* 0 not yet, 1 on the current path, 2 done */
} Walk;

static int rank(VolumeHealth h) {
        return h == VOLUME_HEALTH_FAILED ? 2 : h == VOLUME_HEALTH_DEGRADED ? 1 : 0;
}

static bool has_word(const char *s, const char *word) {
        size_t n = strlen(word);

        for (const char *p = s; p && *p;) {
                size_t k = strcspn(p, ",");

                if (k == n && strncmp(p, word, n) == 0)
                        return true;
                p += k + (p[k] == ',');
        }
        return false;
}

/* Whether the array counts member `name` as a working leg (absent from its list: yes, the
 * kernel did not say otherwise). */
static bool array_counts_working(const Volume *v, const char *name) {
        for (size_t i = 0; i < v->n_array_members; i++) {
                const char *s = v->array_members[i].state;

                if (!v->array_members[i].name || strcmp(v->array_members[i].name, name) != 0)
                        continue;
                return !has_word(s, "faulty") && !has_word(s, "missing") &&
                       !has_word(s, "blocked") && !has_word(s, "write_error") &&
                       !has_word(s, "replaced");
        }
        return true;
}

static bool level_has_no_redundancy(const Volume *v) {
        return v->level && (strcmp(v->level, "raid0") == 0 || strcmp(v->level, "linear") == 0);
}

static const StackHealth *walk(Walk *w, const Volume *v, unsigned depth);

/* What the members below give `v`: health and the cause it carries. */
static void from_below(Walk *w, const Volume *v, unsigned depth, StackHealth *ret) {
        bool array = volume_is_array(v);
        unsigned n_legs = 0, n_lost = 0;
        StackHealth worst = { .effective = VOLUME_HEALTH_OK }, lost_cause = {};

        for (size_t i = 0; v->members && v->members[i]; i++) {
                const Volume *m = inventory_get(w->inv, v->members[i]);
                const StackHealth *mh;
                StackHealth got;

                if (!m || m->hidden || (array && !array_counts_working(v, m->name)))
                        continue;
                mh = walk(w, m, depth + 1);
                if (!mh)
                        continue;
                n_legs++;
                got = (StackHealth){ .effective = mh->effective, .cause = mh->cause ?: m };
                if (array && got.effective == VOLUME_HEALTH_FAILED) {
                        n_lost++;
                        if (!lost_cause.cause)
                                lost_cause = got;
                        got.effective = VOLUME_HEALTH_DEGRADED;
                }
                if (rank(got.effective) > rank(worst.effective))
                        worst = got;
        }
        if (array && n_lost > 0 && (n_lost == n_legs || level_has_no_redundancy(v)))
                worst = lost_cause;
        *ret = worst;
}

static const StackHealth *walk(Walk *w, const Volume *v, unsigned depth) {
        StackHealth below, *h;
        size_t idx;

        if (!v || depth > STACK_DEPTH_MAX || !inventory_find_index(w->inv, v->name, &idx) ||
            w->state[idx] == 1)
                return NULL;
        h = &w->out[idx];
        if (w->state[idx] == 2)
                return h;
        w->state[idx] = 1;
        from_below(w, v, depth, &below);
        *h = (StackHealth){ .effective = v->health };
        if (rank(below.effective) > rank(v->health))
                *h = below;
        w->state[idx] = 2;
        return h;
}

int stack_health_compute(const Inventory *inv, StackHealth *ret, size_t n) {
        _cleanup_free_ unsigned char *state = NULL;
        Walk w;

        if (!inv || !ret || n != inventory_size(inv))
                return -EINVAL;
        state = calloc(n + 1, 1);
        if (!state)
                return -ENOMEM;
        w = (Walk){ .inv = inv, .out = ret, .state = state };
        for (size_t i = 0; i < n; i++)
                (void) walk(&w, inventory_get_nth(inv, i), 0);
        return 0;
}

int stack_health_of(const Inventory *inv, const Volume *v, StackHealth *ret) {
        _cleanup_free_ StackHealth *all = NULL;
        size_t n, idx;
        int r;

        if (!inv || !v || !ret || !inventory_find_index(inv, v->name, &idx))
                return -EINVAL;
        n = inventory_size(inv);
        all = calloc(n + 1, sizeof(*all));
        if (!all)
                return -ENOMEM;
        r = stack_health_compute(inv, all, n);
        if (r < 0)
                return r;
        *ret = all[idx];
        return 0;
}

bool stack_health_is_problem(const StackHealth *h) {
        return h && rank(h->effective) > 0;
}

int stack_health_add_json(const StackHealth *h, json_object *o) {
        json_object *c = NULL, *s;

        if (!h || !o)
                return -EINVAL;
        s = json_object_new_string(volume_health_to_string(h->effective));
        if (!s || json_object_object_add(o, "effective_state", s) < 0) {
                json_object_put(s);
                return -ENOMEM;
        }
        if (h->cause) {
                c = json_object_new_object();
                if (!c ||
                    json_object_object_add(c, "volume", json_object_new_string(h->cause->name)) <
                            0 ||
                    json_object_object_add(
                            c, "kind",
                            json_object_new_string(volume_kind_to_string(h->cause->kind))) < 0 ||
                    json_object_object_add(c, "state",
                                           json_object_new_string(volume_health_to_string(
                                                   h->cause->health))) < 0) {
                        json_object_put(c);
                        return -ENOMEM;
                }
        }
        if (json_object_object_add(o, "effective_cause", c) < 0) {
                json_object_put(c);
                return -ENOMEM;
        }
        return 0;
}

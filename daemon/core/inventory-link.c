/* SPDX-License-Identifier: MIT */
/* The stack graph: members (what a volume sits on), holders (what sits on it), the folding of
 * hidden LVM sub-LVs into their LV, and the legs of dm-raid arrays. All of it is derived from the
 * raw sysfs slaves/ and holders/ lists and the dm tables, and recomputed over the whole inventory
 * once per batch (inventory_link()), so it can never go stale against them: a device whose
 * neighbours changed without a uevent of its own (md sends none for member changes) is still
 * linked correctly. Each recomputed value is compared with the previous one, and a volume whose
 * links moved gets a CHANGED record (LINKS; MEMBERS for dm-raid legs). */

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/sysfs.h"
#include "core/inventory-internal.h"
#include "model/dm.h"
#include "model/md.h"

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

/* The name `v` folds into: the LV it is a sub-LV of, else whatever holds it; NULL if none. */
static const char *folding_target(const Inventory *inv, const Volume *v) {
        if (v->kind != VOLUME_LVM || !v->sub_lv_of)
                return NULL;
        for (size_t i = 0; i < inv->n_volumes; i++) {
                const Volume *o = inv->volumes[i];
                if (o != v && o->kind == VOLUME_LVM && !o->sub_lv_of && o->lv_name &&
                    strcmp(o->lv_name, v->sub_lv_of) == 0 && o->vg_name && v->vg_name &&
                    strcmp(o->vg_name, v->vg_name) == 0)
                        return o->name;
        }
        /* No LV of that name: fold into whatever holds us, if anything does. */
        return v->raw_holders && v->raw_holders[0] ? v->raw_holders[0] : NULL;
}

static int resolve_folding(const Inventory *inv, Volume *v, bool *changed) {
        const char *target = folding_target(inv, v);
        char *t = NULL;

        if (target ? v->folded_into && strcmp(target, v->folded_into) == 0 : !v->folded_into)
                return 0;
        if (target) {
                t = strdup(target);
                if (!t)
                        return -ENOMEM;
        }
        free(v->folded_into);
        v->folded_into = t;
        v->hidden = t != NULL;
        *changed = true;
        return 0;
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

static const char *leg_state(char health) {
        switch (dm_raid_health_from_char(health)) {
        case DM_RAID_HEALTH_ALIVE_IN_SYNC:
                return "in_sync";
        case DM_RAID_HEALTH_ALIVE_NOT_IN_SYNC:
                return "syncing";
        case DM_RAID_HEALTH_DEAD:
                return "faulty";
        case DM_RAID_HEALTH_ABSENT:
                return "missing";
        case _DM_RAID_HEALTH_MAX:
        case _DM_RAID_HEALTH_INVALID:
                break;
        }
        return "unknown";
}

/* The device below leg `leg`: the sub-LV "<lv>_rimage_<leg>"'s own slave, else the table's. */
static const char *leg_device(const Inventory *inv, const Volume *v, unsigned leg) {
        char want[NAME_MAX + 32];

        (void) snprintf(want, sizeof(want), "%s_rimage_%u", v->lv_name ? v->lv_name : "", leg);
        for (size_t i = 0; v->lv_name && v->raw_slaves && v->raw_slaves[i]; i++) {
                const Volume *s = inventory_get(inv, v->raw_slaves[i]);
                if (s && s->lv_name && strcmp(s->lv_name, want) == 0)
                        return s->raw_slaves && s->raw_slaves[0] ? s->raw_slaves[0] : s->name;
        }
        return v->dm_table_params ? dm_raid_leg_from_table(inv, v->dm_table_params, leg) : NULL;
}

static void members_free(VolumeMember *m, size_t n) {
        for (size_t i = 0; m && i < n; i++) {
                free(m[i].name);
                free(m[i].state);
        }
        free(m);
}

void inventory_array_members_clear(Volume *v) {
        members_free(v->array_members, v->n_array_members);
        v->array_members = NULL;
        v->n_array_members = 0;
}

/* dm-raid legs: leg i is the sub-LV "<lv>_rimage_<i>"; its member is the device below it. */
int inventory_link_dm_raid_legs(Inventory *inv, Volume *v, bool *ret_changed) {
        const DmRaidStatus *st = v->dm_raid;
        VolumeMember *legs;
        size_t n = 0;

        legs = calloc(st->n_devices ? st->n_devices : 1, sizeof(VolumeMember));
        if (!legs)
                return -ENOMEM;
        for (unsigned leg = 0; leg < st->n_devices; leg++) {
                VolumeMember *m = &legs[n++];
                const char *name = leg_device(inv, v, leg);

                m->slot = (int) leg;
                m->errors = -1;
                m->state = strdup(leg_state(st->health[leg]));
                m->name = name ? strdup(name) : NULL;
                if (!m->state || (name && !m->name)) {
                        members_free(legs, n);
                        return -ENOMEM;
                }
        }
        *ret_changed =
                !inventory_array_members_equal(v->array_members, v->n_array_members, legs, n);
        members_free(v->array_members, v->n_array_members);
        v->array_members = legs;
        v->n_array_members = n;
        return 0;
}

/* members = partition parent + the raw slaves, hidden sub-LVs looked through (a hidden volume
 * keeps its raw slaves); dm-raid legs follow the status. */
static int link_members(Inventory *inv, Volume *v, unsigned *what) {
        _cleanup_strv_free_ char **members = calloc(1, sizeof(char *));
        bool legs_changed = false;
        int r;

        if (!members)
                return -ENOMEM;
        if (v->kind == VOLUME_PARTITION && v->parent && strv_extend_unique(&members, v->parent) < 0)
                return -ENOMEM;
        for (size_t j = 0; v->raw_slaves && v->raw_slaves[j]; j++) {
                r = v->hidden ? strv_extend_unique(&members, v->raw_slaves[j])
                              : add_lower(inv, &members, v->raw_slaves[j], 0);
                if (r < 0)
                        return -ENOMEM;
        }
        if (!inventory_strv_equal(members, v->members))
                *what |= INVENTORY_CHANGE_LINKS;
        strv_free(v->members);
        v->members = TAKE_PTR(members);

        if (v->dm_raid) {
                r = inventory_link_dm_raid_legs(inv, v, &legs_changed);
                if (r < 0)
                        return r;
        } else if (v->kind != VOLUME_MD && v->n_array_members > 0) {
                /* no longer a dm-raid (table replaced): its legs are gone */
                inventory_array_members_clear(v);
                legs_changed = true;
        }
        if (legs_changed)
                *what |= INVENTORY_CHANGE_MEMBERS;
        return 0;
}

/* holders = the kernel's holders/ (of known devices) plus the reverse of everyone's members, so
 * a holder whose own uevent we have not seen yet is still linked. Built for all, then swapped. */
static int link_holders(Inventory *inv, unsigned *what) {
        char ***holders = calloc(inv->n_volumes + 1, sizeof(char **));
        int r = -ENOMEM;

        if (!holders)
                return -ENOMEM;
        for (size_t i = 0; i < inv->n_volumes; i++) {
                Volume *v = inv->volumes[i];

                holders[i] = calloc(1, sizeof(char *));
                if (!holders[i])
                        goto out_free;
                for (size_t j = 0; v->raw_holders && v->raw_holders[j]; j++) {
                        const char *h = v->hidden ? v->raw_holders[j]
                                                  : visible_upper(inv, v->raw_holders[j]);
                        if (h && strcmp(h, v->name) != 0 && inventory_get(inv, h) &&
                            strv_extend_unique(&holders[i], h) < 0)
                                goto out_free;
                }
        }
        for (size_t i = 0; i < inv->n_volumes; i++) {
                const Volume *v = inv->volumes[i];

                if (v->hidden)
                        continue;
                for (size_t j = 0; v->members && v->members[j]; j++) {
                        size_t k;
                        if (inventory_find_index(inv, v->members[j], &k) && k != i &&
                            strv_extend_unique(&holders[k], v->name) < 0)
                                goto out_free;
                }
        }
        for (size_t i = 0; i < inv->n_volumes; i++) {
                Volume *v = inv->volumes[i];

                if (!inventory_strv_equal(holders[i], v->holders))
                        what[i] |= INVENTORY_CHANGE_LINKS;
                strv_free(v->holders);
                v->holders = TAKE_PTR(holders[i]);
        }
        r = 0;

out_free:
        for (size_t i = 0; i < inv->n_volumes; i++)
                strv_free(holders[i]);
        free(holders);
        return r;
}

/* An IMSM/DDF container's member arrays: every md array whose metadata_version names it. */
static int link_container_arrays(Inventory *inv, Volume *v, unsigned *what) {
        _cleanup_strv_free_ char **arrays = NULL;
        char name[64];

        if (v->md && md_array_is_container(v->md)) {
                arrays = calloc(1, sizeof(char *));
                if (!arrays)
                        return -ENOMEM;
                for (size_t i = 0; i < inv->n_volumes; i++) {
                        const Volume *w = inv->volumes[i];
                        if (w != v && w->md && md_array_container_name(w->md, name, sizeof(name)) &&
                            strcmp(name, v->name) == 0 && strv_extend_unique(&arrays, w->name) < 0)
                                return -ENOMEM;
                }
        }
        if (!inventory_strv_equal(arrays, v->container_arrays))
                *what |= INVENTORY_CHANGE_LINKS;
        strv_free(v->container_arrays);
        v->container_arrays = TAKE_PTR(arrays);
        return 0;
}

int inventory_link(Inventory *inv) {
        _cleanup_free_ unsigned *what = NULL;
        int r;

        what = calloc(inv->n_volumes + 1, sizeof(unsigned));
        if (!what)
                return -ENOMEM;
        /* Folding first: members and holders look through the hidden sub-LVs. */
        for (size_t i = 0; i < inv->n_volumes; i++) {
                bool changed = false;

                r = resolve_folding(inv, inv->volumes[i], &changed);
                if (r < 0)
                        return r;
                if (changed)
                        what[i] |= INVENTORY_CHANGE_LINKS;
        }
        for (size_t i = 0; i < inv->n_volumes; i++) {
                r = link_members(inv, inv->volumes[i], &what[i]);
                if (r < 0)
                        return r;
                r = link_container_arrays(inv, inv->volumes[i], &what[i]);
                if (r < 0)
                        return r;
        }
        r = link_holders(inv, what);
        if (r < 0)
                return r;
        for (size_t i = 0; i < inv->n_volumes; i++)
                if (what[i]) {
                        r = inventory_record_change(inv, inv->volumes[i], INVENTORY_VOLUME_CHANGED,
                                                    what[i]);
                        if (r < 0)
                                return r;
                }
        return 0;
}

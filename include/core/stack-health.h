/* SPDX-License-Identifier: MIT */
#pragma once

/* Health through the stack: each volume keeps its own health (Volume.health, what the kernel
 * shows for it) and gets the health of what it stands on. An LV on a broken md array has lost
 * its data although device-mapper calls it fine; its *effective* health is failed, and the
 * cause is md0 (layer md). Pure: a function over the inventory's graph (members after folding),
 * no I/O, no clock; the reports, `status`, the page and the daemon's events all use it.
 *
 * The rule:
 *  - Only degraded and failed travel up; ok and unknown do not (unknown is no problem).
 *  - A volume without redundancy (partition, linear/striped LV, crypt, any dm device, a disk)
 *    gets the worst effective health of its members: one failed member is lost data.
 *  - An array (md, dm-raid, controller volume) judges its members itself; of the members it
 *    still counts as working (not faulty/missing/blocked/write_error in its member list), one
 *    that is effectively failed below is a lost leg: every leg lost, or any of a raid0/linear
 *    array, is failed, fewer is degraded; an effectively degraded one makes it degraded.
 *  - effective = the worse of the volume's own health and what it got from below; when the
 *    latter is worse, `cause` is the lowest volume whose own health started it.
 * Cycles in a corrupt graph are cut (a volume seen again on the current path adds nothing). */

#include <stdbool.h>

#include "core/inventory.h"
#include "model/volume.h"

typedef struct StackHealth {
        VolumeHealth effective; /* the worse of own and below */
        const Volume *cause;    /* the lowest volume at fault when below is worse than own; NULL
                                 * when the volume's own health is the worst (or all is well) */
} StackHealth;

/* The effective health of every volume: ret[i] for inventory_get_nth(inv, i), i < n, where n
 * must be inventory_size(inv). Pointers in ret are the inventory's handles. Returns 0, -EINVAL,
 * -ENOMEM. */
int stack_health_compute(const Inventory *inv, StackHealth *ret, size_t n);

/* The same for one volume (computes what it needs below it). Returns 0, -EINVAL, -ENOMEM. */
int stack_health_of(const Inventory *inv, const Volume *v, StackHealth *ret);

/* True if the effective health is degraded or failed. */
bool stack_health_is_problem(const StackHealth *h) _pure_;

/* The `effective_state` and `effective_cause` keys of a volume's JSON (volumes --json, the API):
 * "effective_state": "failed", "effective_cause": {"volume": "md0", "kind": "md", "state":
 * "failed"} or null. Returns 0 or -ENOMEM. */
int stack_health_add_json(const StackHealth *h, json_object *o);

/* SPDX-License-Identifier: MIT */
/* Health through the stack (core/stack-health.h) over fixture trees: lvm-on-md as captured (md0
 * degraded: "[2/1] [U_]", dev-vdb faulty), then with md0's own health set to failed as md's
 * `broken` would read (the LV above has lost its data, md0 is the cause), an array absorbing a
 * member it already counts as faulty, an array with a leg that failed below it while md still
 * lists it in_sync, a raid0 losing any leg, partitions of a failed controller volume, and the
 * JSON keys. The graph is the inventory's as scanned; only volumes' own health is edited. */

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"
#include "core/inventory.h"
#include "core/stack-health.h"
#include "tap.h"

static const char *fixtures(void) {
        const char *e = getenv("STORPULSE_FIXTURES");
        return e ? e : "tests/fixtures";
}

static Inventory *scan(const char *scenario) {
        char path[4096];
        Inventory *inv = NULL;

        (void) snprintf(path, sizeof(path), "%s/%s", fixtures(), scenario);
        if (inventory_new_for_root(path, &inv) < 0 || inventory_scan(inv) < 0) {
                tap_diag("cannot scan %s", path);
                return inventory_free(inv);
        }
        return inv;
}

static StackHealth of(Inventory *inv, const char *name) {
        StackHealth h = { .effective = _VOLUME_HEALTH_INVALID };
        Volume *v = inventory_get(inv, name);

        if (!v || stack_health_of(inv, v, &h) < 0)
                tap_diag("no stack health for %s", name);
        return h;
}

static const char *cause(const StackHealth *h) {
        return h->cause ? h->cause->name : "(none)";
}

static void test_lvm_on_md(void) {
        _cleanup_(inventory_freep) Inventory *inv = scan("lvm-on-md");
        StackHealth h;
        Volume *md;

        ok(inv != NULL, "lvm-on-md scanned");
        if (!inv)
                return;
        md = inventory_get(inv, "md0");
        h = of(inv, "dm-0");
        is_int(inventory_get(inv, "dm-0")->health, VOLUME_HEALTH_OK, "LV's own health ok");
        is_int(h.effective, VOLUME_HEALTH_DEGRADED, "LV on degraded md0: effective degraded");
        is_str(cause(&h), "md0", "cause md0");
        h = of(inv, "md0");
        is_int(h.effective, VOLUME_HEALTH_DEGRADED, "md0 effective = own degraded");
        ok(h.cause == NULL, "md0: its own health, no cause below");
        h = of(inv, "vda");
        is_int(h.effective, VOLUME_HEALTH_OK, "vda ok");

        /* md's `broken` (raid-health: FAILED) under the LV: the LV has lost its data */
        md->health = VOLUME_HEALTH_FAILED;
        h = of(inv, "dm-0");
        is_int(h.effective, VOLUME_HEALTH_FAILED, "LV on broken md0: effective failed");
        is_str(cause(&h), "md0", "cause md0 (layer md)");
        is_int(h.cause ? h.cause->kind : -1, VOLUME_MD, "cause layer md");
        ok(stack_health_is_problem(&h), "a problem");

        /* the LV's own failure wins over a lesser one below, and names no cause */
        md->health = VOLUME_HEALTH_DEGRADED;
        inventory_get(inv, "dm-0")->health = VOLUME_HEALTH_FAILED;
        h = of(inv, "dm-0");
        is_int(h.effective, VOLUME_HEALTH_FAILED, "LV failed itself");
        ok(h.cause == NULL, "own failure: no cause below");

        /* unknown does not travel up */
        inventory_get(inv, "dm-0")->health = VOLUME_HEALTH_OK;
        md->health = VOLUME_HEALTH_UNKNOWN;
        h = of(inv, "dm-0");
        is_int(h.effective, VOLUME_HEALTH_OK, "md0 unknown: LV stays ok");
}

static void test_arrays(void) {
        _cleanup_(inventory_freep) Inventory *inv = scan("md-raid1-idle");
        StackHealth h;

        ok(inv != NULL, "md-raid1-idle scanned");
        if (!inv)
                return;
        h = of(inv, "md0");
        is_int(h.effective, VOLUME_HEALTH_OK, "idle raid1 ok");
        /* a leg md still lists in_sync has lost its data below (e.g. an offline disk) */
        inventory_get(inv, "vdb")->health = VOLUME_HEALTH_FAILED;
        h = of(inv, "md0");
        is_int(h.effective, VOLUME_HEALTH_DEGRADED, "raid1 with one leg failed below: degraded");
        is_str(cause(&h), "vdb", "cause vdb");
        inventory_get(inv, "vda")->health = VOLUME_HEALTH_FAILED;
        h = of(inv, "md0");
        is_int(h.effective, VOLUME_HEALTH_FAILED, "raid1 with every leg failed below: failed");

        /* raid0: any leg lost is lost data */
        inventory_get(inv, "vda")->health = VOLUME_HEALTH_OK;
        (void) free(inventory_get(inv, "md0")->level);
        inventory_get(inv, "md0")->level = strdup("raid0");
        h = of(inv, "md0");
        is_int(h.effective, VOLUME_HEALTH_FAILED, "raid0 with one leg failed below: failed");
        is_str(cause(&h), "vdb", "cause vdb");
        inv = inventory_free(inv);

        /* a member the array already counts as faulty is in its own verdict: absorbed */
        inv = scan("md-raid1-degraded");
        ok(inv != NULL, "md-raid1-degraded scanned");
        if (!inv)
                return;
        inventory_get(inv, "vdb")->health = VOLUME_HEALTH_FAILED;
        h = of(inv, "md0");
        is_int(h.effective, VOLUME_HEALTH_DEGRADED, "degraded raid1, faulty vdb failed: degraded");
        ok(h.cause == NULL, "md0's own verdict, no cause below");
}

static void test_partitions(void) {
        _cleanup_(inventory_freep) Inventory *inv = scan("megaraid-sas");
        StackHealth all[16];
        size_t n;
        json_object *o;
        Volume *v;

        ok(inv != NULL, "megaraid-sas scanned");
        if (!inv)
                return;
        inventory_get(inv, "sda")->health = VOLUME_HEALTH_FAILED;
        n = inventory_size(inv);
        ok(n <= ELEMENTSOF(all), "%zu volumes", n);
        is_int(stack_health_compute(inv, all, n), 0, "compute all");
        is_int(stack_health_compute(inv, all, n + 1), -EINVAL, "wrong size refused");
        INVENTORY_FOREACH(v, inv)
        if (strcmp(v->name, "sda1") == 0 || strcmp(v->name, "sda2") == 0) {
                is_int(all[_i_].effective, VOLUME_HEALTH_FAILED, "%s on failed sda", v->name);
                is_str(cause(&all[_i_]), "sda", "%s: cause sda", v->name);
        } else if (strcmp(v->name, "sdb") == 0)
                is_int(all[_i_].effective, VOLUME_HEALTH_OK, "sdb ok");

        o = json_object_new_object();
        INVENTORY_FOREACH(v, inv)
        if (strcmp(v->name, "sda1") == 0)
                is_int(stack_health_add_json(&all[_i_], o), 0, "json");
        is_str(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
               "{\"effective_state\":\"failed\",\"effective_cause\":{\"volume\":\"sda\",\"kind\":"
               "\"controller\",\"state\":\"failed\"}}",
               "effective_state and effective_cause");
        json_object_put(o);
}

int main(void) {
        test_lvm_on_md();
        test_arrays();
        test_partitions();
        return tap_done();
}

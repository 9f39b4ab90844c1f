/* SPDX-License-Identifier: MIT */
/* Health through the stack (core/stack-health.h) over fixture trees: lvm-on-md (md0
 * degraded: "[2/1] [U_]", dev-vdb faulty), then with md0's own health set to failed as md's
 * `broken` would read (the LV above has lost its data, md0 is the cause), an array absorbing a
 * member it already counts as faulty, an array with a leg that failed below it while md still
 * lists it in_sync, a raid0 losing any leg, partitions of a failed controller volume, and the
 * JSON keys; then what /metrics and the API make of it: the LV on a broken md0 is effectively
 * failed with md0 (layer md) as the cause, and a probe that ended with read errors or stalled
 * is a problem of the volume (storpulse_volume_problem 1) until a clean probe. The graph is the
 * inventory's as scanned; only volumes' own health is edited. */

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"
#include "core/inventory.h"
#include "core/stack-health.h"
#include "model/raid-health.h"
#include "report/api.h"
#include "report/metrics.h"
#include "report/stack-metrics.h"
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

static bool has_line(const char *text, const char *line) {
        size_t n = strlen(line);

        for (const char *p = text; p && (p = strstr(p, line)); p++)
                if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
                        return true;
        return false;
}

static void test_reports(void) {
        _cleanup_(inventory_freep) Inventory *inv = scan("lvm-on-md");
        ReportProbe p = { .volume = "vda", .has_last = true, .n_probes = 2, .n_failed = 2 };
        ReportInput in = { .inventory = inv, .probes = &p, .n_probes = 1 };
        _cleanup_free_ char *text = NULL;
        json_object *o = NULL, *c;

        ok(inv != NULL, "lvm-on-md scanned");
        if (!inv)
                return;
        inventory_get(inv, "md0")->health = VOLUME_HEALTH_FAILED; /* md's `broken` */
        p.last.result = REPORT_PROBE_ERROR;
        is_str(report_probe_problem(&p), "read-errors", "read errors: a probe problem");
        is_int(metrics_render(&in, METRICS_FORMAT_PROMETHEUS, &text, NULL), 0, "render");
        ok(has_line(text, "storpulse_volume_effective_health{volume=\"dm-0\",state=\"failed\"} 1"),
           "/metrics: LV effectively failed");
        ok(has_line(text, "storpulse_volume_health{volume=\"dm-0\",state=\"ok\"} 1"),
           "/metrics: the LV keeps its own health");
        ok(has_line(text, "storpulse_volume_effective_cause_info{volume=\"dm-0\",cause=\"md0\","
                          "layer=\"md\"} 1"),
           "/metrics: cause md0, layer md");
        ok(!strstr(text, "storpulse_volume_effective_cause_info{volume=\"md0\""),
           "/metrics: md0 is its own cause (no cause series)");
        ok(has_line(text, "storpulse_volume_problem{volume=\"vda\"} 1"),
           "/metrics: vda's read errors are a problem");
        ok(!strstr(text, "storpulse_probe_problem"),
           "/metrics: no probe_problem family (probe_last_result says why)");
        ok(!strstr(text, "storpulse_volume_effective_health{volume=\"vda\""),
           "/metrics: vda stands on nothing: no effective health series (its own is that)");
        ok(has_line(text, "storpulse_volume_effective_health{volume=\"md0\",state=\"failed\"} 1"),
           "/metrics: md0 stands on vda, vdb: its effective health is exported");
        text = mfree(text);

        p.last.result = REPORT_PROBE_OK; /* a clean probe */
        p.stalled = false;
        ok(!report_probe_problem(&p), "clean probe: no probe problem");
        is_int(metrics_render(&in, METRICS_FORMAT_PROMETHEUS, &text, NULL), 0, "render");
        ok(has_line(text, "storpulse_volume_problem{volume=\"vda\"} 0"), "clean probe: vda 0");
        text = mfree(text);
        p.stalled = true;
        is_str(report_probe_problem(&p), "stalled", "stalled: a probe problem");

        is_int(api_volume_json(&in, "dm-0", &o), 0, "api volume dm-0");
        ok(json_object_object_get_ex(o, "effective_state", &c) &&
                   strcmp(json_object_get_string(c), "failed") == 0,
           "API: effective_state failed");
        ok(json_object_object_get_ex(o, "effective_cause", &c) &&
                   json_object_object_get_ex(c, "volume", &c) &&
                   strcmp(json_object_get_string(c), "md0") == 0,
           "API: effective_cause md0");
        ok(json_object_object_get_ex(o, "probe_problem", &c) && c == NULL,
           "API: dm-0 has no probe problem (null)");
        json_object_put(o);
        is_int(api_volumes_json(&in, &o), 0, "api volumes");
        for (size_t i = 0; o && i < json_object_array_length(o); i++) {
                json_object *v = json_object_array_get_idx(o, i), *n;

                if (json_object_object_get_ex(v, "name", &n) &&
                    strcmp(json_object_get_string(n), "vda") == 0)
                        ok(json_object_object_get_ex(v, "probe_problem", &c) &&
                                   strcmp(json_object_get_string(c), "stalled") == 0,
                           "API list: vda probe_problem stalled");
        }
        json_object_put(o);
}

/* An md array inactive with members (md-raid1-idle's md0 with array_state "inactive", as md
 * shows an array mdadm -I assembled but did not start) is assembling; once the owner's grace
 * period has passed it is not assembled (failed) and stays so through re-reads until the
 * kernel shows it otherwise. */
static void test_not_assembled(void) {
        char dir[] = "/tmp/test-stack-health-XXXXXX", cmd[1024], state[4096];
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        const InventoryChange *ch;
        size_t n_ch = 0;
        Volume *md;
        FILE *f;

        ok(mkdtemp(dir) != NULL, "temp dir");
        (void) snprintf(cmd, sizeof(cmd), "cp -a %s/md-raid1-idle/. %s/", fixtures(), dir);
        ok(system(cmd) == 0, "copy md-raid1-idle");
        (void) snprintf(state, sizeof(state), "%s/sys/devices/virtual/block/md0/md/array_state",
                        dir);
        f = fopen(state, "we");
        ok(f && fputs("inactive\n", f) >= 0 && fclose(f) == 0, "md0 inactive");
        ok(inventory_new_for_root(dir, &inv) >= 0 && inventory_scan(inv) >= 0, "scan");
        md = inv ? inventory_get(inv, "md0") : NULL;
        ok(md != NULL, "md0 listed");
        if (!md)
                goto out;
        is_str(raid_verdict_to_string(md->verdict), "assembling", "inactive with members");
        is_int(md->health, VOLUME_HEALTH_UNKNOWN, "health unknown while assembling");
        inventory_clear_changes(inv);
        is_int(inventory_mark_not_assembled(inv, md), 1, "past the grace period: marked");
        is_str(raid_verdict_to_string(md->verdict), "not-assembled", "verdict not-assembled");
        is_int(md->health, VOLUME_HEALTH_FAILED, "health failed");
        ch = inventory_get_changes(inv, &n_ch);
        ok(n_ch == 1 && ch[0].volume == md && (ch[0].what & INVENTORY_CHANGE_HEALTH),
           "a HEALTH change recorded");
        inventory_clear_changes(inv);
        is_int(inventory_device_change(inv, "md0"), 0, "re-read");
        is_str(raid_verdict_to_string(md->verdict), "not-assembled", "kept through a re-read");
        is_int(md->health, VOLUME_HEALTH_FAILED, "still failed");
        (void) inventory_get_changes(inv, &n_ch);
        is_int(n_ch, 0, "an unchanged re-read records nothing");
        f = fopen(state, "we");
        ok(f && fputs("clean\n", f) >= 0 && fclose(f) == 0, "md0 started (clean)");
        is_int(inventory_device_change(inv, "md0"), 0, "re-read");
        is_str(raid_verdict_to_string(md->verdict), "ok", "started: ok");
        is_int(inventory_mark_not_assembled(inv, md), 0, "a running array is not marked");
out:
        (void) snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
        (void) system(cmd);
}

static void put(const char *dir, const char *rel, const char *text) {
        char path[4096], cmd[4200];
        FILE *f;

        (void) snprintf(path, sizeof(path), "%s/%s", dir, rel);
        (void) snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname %s)\"", path);
        (void) system(cmd);
        f = fopen(path, "we");
        ok(f && fputs(text, f) >= 0 && fclose(f) == 0, "write %s", rel);
}

/* An IMSM member array (metadata_version external:/md127/0, as verdict-imsm shows it) needs
 * mdmon: mdadm's test is run/mdadm/md127.pid naming a live process (proc/PID). */
static void test_mdmon(void) {
        char dir[] = "/tmp/test-stack-health-XXXXXX", cmd[1024];
        Inventory *inv = NULL;
        Volume *md;

        ok(mkdtemp(dir) != NULL, "temp dir");
        (void) snprintf(cmd, sizeof(cmd), "cp -a %s/md-raid1-idle/. %s/", fixtures(), dir);
        ok(system(cmd) == 0, "copy md-raid1-idle");
        put(dir, "sys/devices/virtual/block/md0/md/metadata_version", "external:/md127/0\n");
        ok(inventory_new_for_root(dir, &inv) >= 0 && inventory_scan(inv) >= 0, "scan");
        md = inv ? inventory_get(inv, "md0") : NULL;
        ok(md && md->mdmon_missing && volume_has_problem(md), "no pid file: mdmon missing");
        is_str(md ? raid_verdict_to_string(md->verdict) : NULL, "ok", "the verdict stays ok");
        put(dir, "run/mdadm/md127.pid", "4242\n");
        inventory_clear_changes(inv);
        is_int(inventory_device_change(inv, "md0"), 0, "re-read");
        ok(md && md->mdmon_missing, "pid file of a dead process: mdmon missing");
        put(dir, "proc/4242/comm", "mdmon\n");
        is_int(inventory_device_change(inv, "md0"), 0, "re-read");
        ok(md && !md->mdmon_missing && !volume_has_problem(md), "mdmon runs: no problem");
        inv = inventory_free(inv);
        (void) snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
        (void) system(cmd);
}

int main(void) {
        test_lvm_on_md();
        test_arrays();
        test_partitions();
        test_reports();
        test_not_assembled();
        test_mdmon();
        return tap_done();
}

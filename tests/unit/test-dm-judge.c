/* SPDX-License-Identifier: MIT */
/* model/dm-judge: one verdict per target status line. Lines marked "VM" were printed by
 * `dmsetup status` on Linux 6.1 in tests/vm (verdict-dm-*); the others are written from the
 * format in each target's *_status() and Documentation/admin-guide/device-mapper. Every
 * expectation is read off the kernel's own words in the line (out_of_data_space, Invalid, F, D),
 * never from storpulse's output. */

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/fileio.h"
#include "basic/macro.h"
#include "model/dm-judge.h"
#include "model/volume.h"
#include "tap.h"

typedef struct Case {
        const char *what, *status, *table;
        const char *verdict;   /* raid_verdict_to_string() */
        const char *in_reason; /* substring of the reason, or NULL */
        const char *not_in_reason;
        double data, meta; /* expected usage, -1 none; -2: do not check */
        int queueing;      /* -1: do not check */
} Case;

static const char *names(unsigned ma, unsigned mi, void *ud, char *buf, size_t n) {
        if (ma != 253)
                return NULL;
        (void) snprintf(buf, n, "dm-%u", mi);
        return buf;
}

static const Case cases[] = {
        /* thin-pool */
        { "pool with room",
          "0 16384 thin-pool 1 11/1024 10/128 - rw no_discard_passdown queue_if_no_space - 1024",
          NULL, "ok", NULL, NULL, 10.0 / 128, 11.0 / 1024, 0 },
        { "pool full, error_if_no_space",
          "0 16384 thin-pool 1 13/1024 128/128 - out_of_data_space no_discard_passdown "
          "error_if_no_space - 1024",
          NULL, "failed", "writes to new blocks fail", NULL, 1.0, 13.0 / 1024, 0 },
        { "pool full, queueing",
          "0 16384 thin-pool 1 13/1024 128/128 - out_of_data_space no_discard_passdown "
          "queue_if_no_space - 1024",
          NULL, "failed", "queued", NULL, 1.0, -2, 1 },
        { "pool read-only",
          "0 16384 thin-pool 1 13/1024 100/128 - ro no_discard_passdown queue_if_no_space "
          "needs_check 1024",
          NULL, "failed", "read-only", NULL, -2, -2, -1 },
        { "pool needs_check",
          "0 16384 thin-pool 1 13/1024 100/128 - rw discard_passdown queue_if_no_space needs_check "
          "1024",
          NULL, "degraded", "thin_check", NULL, -2, -2, -1 },
        { "pool Fail", "0 16384 thin-pool Fail", NULL, "failed", "failed", NULL, -1, -1, -1 },
        { "pool Error", "0 16384 thin-pool Error", NULL, "failed", NULL, NULL, -1, -1, -1 },
        { "pool garbage mode", "0 16384 thin-pool 1 13/1024 100/128 - odd x y - 1", NULL, "unknown",
          NULL, NULL, -2, -2, -1 },
        /* thin */
        { "thin ok", "0 65536 thin 16384 16383", NULL, "ok", NULL, NULL, -1, -1, -1 },
        { "thin unmapped", "0 65536 thin 0 -", NULL, "ok", NULL, NULL, -1, -1, -1 },
        { "thin Fail", "0 65536 thin Fail", NULL, "failed", "pool failed", NULL, -1, -1, -1 },
        /* snapshot (VM lines) */
        { "snapshot used (VM)", "0 32768 snapshot 2072/8192 24", NULL, "ok", NULL, NULL,
          2072.0 / 8192, -1, -1 },
        { "snapshot Invalid (VM)", "0 32768 snapshot Invalid", NULL, "failed", "invalid", NULL, -1,
          -1, -1 },
        { "snapshot merge failed", "0 32768 snapshot-merge Merge failed", NULL, "failed", "merge",
          NULL, -1, -1, -1 },
        { "snapshot overflow", "0 32768 snapshot Overflow", NULL, "degraded", "full", NULL, -1, -1,
          -1 },
        { "snapshot Unknown", "0 32768 snapshot Unknown", NULL, "unknown", NULL, NULL, -1, -1, -1 },
        /* multipath: features "2 <queue_io> <pg_init_count>", hw 0, 1 pg, next pg 1; the VM
         * lines with the table the kernel printed back for queue_if_no_path / fail_if_no_path */
        { "multipath one failed (VM)",
          "0 131072 multipath 2 0 0 0 1 1 A 0 2 0 253:0 F 1 253:1 A 0 ",
          "0 131072 multipath 4 queue_if_no_path retain_attached_hw_handler queue_mode bio 0 1 1 "
          "round-robin 0 2 1 253:0 1 253:1 1 ",
          "degraded", "dm-0", "dm-1", -1, -1, 0 },
        { "multipath all failed, queueing (VM)",
          "0 131072 multipath 2 0 0 0 1 1 E 0 2 0 253:0 F 1 253:1 F 1 ",
          "0 131072 multipath 4 queue_if_no_path retain_attached_hw_handler queue_mode bio 0 1 1 "
          "round-robin 0 2 1 253:0 1 253:1 1 ",
          "failed", "queued", NULL, -1, -1, 1 },
        { "multipath all failed, fail_if_no_path (VM)",
          "0 131072 multipath 2 0 0 0 1 1 E 0 2 0 253:0 F 1 253:1 F 1 ",
          "0 131072 multipath 3 retain_attached_hw_handler queue_mode bio 0 1 1 round-robin 0 2 1 "
          "253:0 1 253:1 1 ",
          "failed", "I/O fails", "queued", -1, -1, 0 },
        { "multipath reinstated (VM)",
          "0 131072 multipath 2 0 0 0 1 1 A 0 2 0 253:0 A 1 253:1 A 1 ", NULL, "ok", NULL, NULL, -1,
          -1, 0 },
        { "multipath both paths", "0 131072 multipath 2 0 0 0 1 1 A 0 2 0 253:1 A 0 253:2 A 0",
          "0 131072 multipath 3 queue_if_no_path queue_mode bio 0 1 1 round-robin 0 2 1 253:1 1 "
          "253:2 1",
          "ok", NULL, NULL, -1, -1, 0 },
        { "multipath one failed", "0 131072 multipath 2 0 0 0 1 1 A 0 2 0 253:1 F 1 253:2 A 0",
          "0 131072 multipath 3 queue_if_no_path queue_mode bio 0 1 1 round-robin 0 2 1 253:1 1 "
          "253:2 1",
          "degraded", "1 of 2 paths failed: dm-1", "dm-2", -1, -1, 0 },
        { "multipath all failed, queue_if_no_path",
          "0 131072 multipath 2 1 0 0 1 1 E 0 2 0 253:1 F 1 253:2 F 1",
          "0 131072 multipath 3 queue_if_no_path queue_mode bio 0 1 1 round-robin 0 2 1 253:1 1 "
          "253:2 1",
          "failed", "queued", NULL, -1, -1, 1 },
        { "multipath all failed, fail_if_no_path",
          "0 131072 multipath 2 0 0 0 1 1 E 0 2 0 253:1 F 1 253:2 F 1",
          "0 131072 multipath 2 queue_mode bio 0 1 1 round-robin 0 2 1 253:1 1 253:2 1", "failed",
          "I/O fails", "queued", -1, -1, 0 },
        { "multipath no table: queue_io tells",
          "0 131072 multipath 2 1 0 0 1 1 E 0 2 0 253:1 F 1 253:2 F 1", NULL, "failed", "queued",
          NULL, -1, -1, 1 },
        { "multipath two groups, service-time args",
          "0 8 multipath 2 0 0 0 2 1 A 0 1 2 8:16 A 0 0 1 E 0 1 2 8:32 F 3 0 1", NULL, "degraded",
          "8:32", "8:16", -1, -1, 0 },
        { "multipath no groups", "0 8 multipath 2 0 0 0 0 0", NULL, "failed", "no path", NULL, -1,
          -1, 0 },
        { "multipath truncated", "0 8 multipath 2 0 0 0 1 1 A 0 2 0 253:1", NULL, "unknown", NULL,
          NULL, -1, -1, -1 },
        /* striped */
        { "striped healthy (fixture lvm-striped)", "0 131072 striped 2 254:96 254:112 1 AA", NULL,
          "ok", NULL, NULL, -1, -1, -1 },
        { "striped D", "0 16384 striped 2 253:1 253:2 1 AD", NULL, "failed", "dm-2", "dm-1", -1, -1,
          -1 },
        { "striped bad health length", "0 16384 striped 2 253:1 253:2 1 A", NULL, "unknown", NULL,
          NULL, -1, -1, -1 },
        /* mirror */
        { "mirror in sync, core log", "0 8192 mirror 2 253:3 253:4 8/8 1 AA 1 core", NULL, "ok",
          NULL, NULL, -1, -1, -1 },
        { "mirror leg D", "0 8192 mirror 2 253:3 253:4 8/8 1 AD 1 core", NULL, "degraded", "dm-4",
          "dm-3", -1, -1, -1 },
        { "mirror every leg", "0 8192 mirror 2 253:3 253:4 8/8 1 DS 1 core", NULL, "failed",
          "every", NULL, -1, -1, -1 },
        { "mirror disk log D", "0 8192 mirror 2 253:3 253:4 8/8 1 AA 3 disk 253:5 D", NULL,
          "degraded", "log on dm-5", NULL, -1, -1, -1 },
        /* cache */
        { "cache ok",
          "0 8192 cache 8 27/1024 128 12/512 0 5 0 0 0 12 0 1 writethrough 2 migration_threshold "
          "2048 smq 0 rw -",
          NULL, "ok", NULL, NULL, -1, -1, -1 },
        { "cache needs_check",
          "0 8192 cache 8 27/1024 128 12/512 0 5 0 0 0 12 0 1 writethrough 2 migration_threshold "
          "2048 smq 0 rw needs_check",
          NULL, "degraded", "cache_check", NULL, -1, -1, -1 },
        { "cache ro",
          "0 8192 cache 8 27/1024 128 12/512 0 5 0 0 0 12 0 1 writethrough 2 migration_threshold "
          "2048 smq 0 ro -",
          NULL, "degraded", "read-only", NULL, -1, -1, -1 },
        { "cache Fail", "0 8192 cache Fail", NULL, "failed", NULL, NULL, -1, -1, -1 },
        /* writecache, integrity, verity */
        { "writecache ok", "0 8192 writecache 0 1000 900 0", NULL, "ok", NULL, NULL, -1, -1, -1 },
        { "writecache error", "0 8192 writecache -5 1000 900 0", NULL, "failed", "status -5", NULL,
          -1, -1, -1 },
        { "integrity clean", "0 8192 integrity 0 8000 -", NULL, "ok", NULL, NULL, -1, -1, -1 },
        { "integrity mismatches", "0 8192 integrity 3 8000 -", NULL, "degraded",
          "3 checksum mismatches", NULL, -1, -1, -1 },
        { "verity corrupted", "0 8192 verity C", NULL, "failed", "corrupted", NULL, -1, -1, -1 },
        { "verity fine", "0 8192 verity V", NULL, "ok", NULL, NULL, -1, -1, -1 },
        /* several segments: the worst wins */
        { "two striped segments, second D",
          "0 8192 striped 2 253:1 253:2 1 AA\n8192 8192 striped 2 253:3 253:4 1 DA\n", NULL,
          "failed", "dm-3", NULL, -1, -1, -1 },
        { "linear: nothing to judge", "0 8192 linear ", NULL, "ok", NULL, NULL, -1, -1, -1 },
        { "empty status", "", NULL, "unknown", NULL, NULL, -1, -1, -1 },
        { "garbage line", "zero 8192 thin-pool", NULL, "unknown", NULL, NULL, -1, -1, -1 },
};

static void run_case(const Case *c) {
        DmJudgement j;

        dm_judge(c->status, c->table, names, NULL, &j);
        is_str(raid_verdict_to_string(j.verdict), c->verdict, "%s: verdict (%s)", c->what,
               j.reason);
        if (c->in_reason)
                ok(strstr(j.reason, c->in_reason) != NULL, "%s: reason '%s' has '%s'", c->what,
                   j.reason, c->in_reason);
        if (c->not_in_reason)
                ok(!strstr(j.reason, c->not_in_reason), "%s: reason '%s' lacks '%s'", c->what,
                   j.reason, c->not_in_reason);
        if (strcmp(c->verdict, "ok") == 0)
                is_str(j.reason, "", "%s: no reason when ok", c->what);
        if (c->data > -2)
                is_double(j.data_usage, c->data, 1e-9, "%s: data usage", c->what);
        if (c->meta > -2)
                is_double(j.metadata_usage, c->meta, 1e-9, "%s: metadata usage", c->what);
        if (c->queueing >= 0)
                is_int(j.queueing, c->queueing, "%s: queueing", c->what);
}

static char *fixture(const char *name) {
        const char *base = getenv("STORPULSE_FIXTURES");
        char path[PATH_MAX];
        char *text = NULL;

        (void) snprintf(path, sizeof(path), "%s/parsers/dm/%s", base ?: "tests/fixtures", name);
        if (read_full_file_at(-100 /* AT_FDCWD */, path, &text, NULL) < 0)
                return NULL;
        return text;
}

/* The captures of tests/vm verdict-dm-* (tests/fixtures/parsers/README.md, section dm judges):
 * the verdict each line must give, read off the kernel's own words in it. */
static const struct {
        const char *status, *table, *verdict, *in_reason;
} captured[] = {
        { "thin-pool-empty.status", "thin-pool.table", "ok", NULL },
        { "thin-pool-full-error.status", "thin-pool.table", "failed", "writes to new blocks fail" },
        { "thin-pool-full-queue.status", "thin-pool.table", "failed", "queued" },
        { "striped-dead.status", NULL, "failed", "dm-1" },
        { "mirror-leg-dead.status", NULL, "degraded", "dm-6" },
        { "snapshot-used.status", "snapshot.table", "ok", NULL },
        { "snapshot-invalid.status", "snapshot.table", "failed", "invalid" },
        { "multipath-ok.status", "multipath-queue.table", "ok", NULL },
        { "multipath-one-failed.status", "multipath-queue.table", "degraded", "dm-0" },
        { "multipath-all-failed.status", "multipath-queue.table", "failed", "queued" },
        { "multipath-all-failed.status", "multipath-noqueue.table", "failed", "I/O fails" },
        { "multipath-reinstated.status", "multipath-noqueue.table", "ok", NULL },
        /* verdict-dm-thin-meta: 13/32 metadata blocks; then "ro ... needs_check" (the run that
         * stopped there) or "Fail" (the run that went on to fail mode); the thin volume prints
         * its mapped sectors under the ro pool (no health word) and "Fail" under the failed one */
        { "thin-pool-meta-empty.status", "thin-pool-meta.table", "ok", NULL },
        { "thin-pool-meta-ro.status", "thin-pool-meta.table", "failed", "read-only" },
        { "thin-pool-meta-fail.status", NULL, "failed", "all I/O fails" },
        { "thin-meta-ro.status", NULL, "ok", NULL },
        { "thin-fail.status", NULL, "failed", "pool failed" },
        /* verdict-dm-cache-integrity: "rw -" ok; "Error" (the status read whose commit failed),
         * then "Fail"; writecache's indicator 0, then 1; integrity's mismatch count 0, then 1 */
        { "cache-ok.status", "cache.table", "ok", NULL },
        { "cache-error.status", "cache.table", "failed", "cache failed" },
        { "cache-fail.status", "cache.table", "failed", "cache failed" },
        { "writecache-ok.status", "writecache.table", "ok", NULL },
        { "writecache-error.status", "writecache.table", "failed", "every write fails" },
        { "integrity-clean.status", "integrity.table", "ok", NULL },
        { "integrity-mismatch.status", "integrity.table", "degraded", "1 checksum mismatches" },
};

static void test_captured(void) {
        for (size_t i = 0; i < ELEMENTSOF(captured); i++) {
                _cleanup_free_ char *st = fixture(captured[i].status),
                                    *tb = captured[i].table ? fixture(captured[i].table) : NULL;
                DmJudgement j;

                ok(st && (tb || !captured[i].table), "fixture %s read", captured[i].status);
                dm_judge(st, tb, names, NULL, &j);
                is_str(raid_verdict_to_string(j.verdict), captured[i].verdict, "%s (%s)",
                       captured[i].status, j.reason);
                if (captured[i].in_reason)
                        ok(strstr(j.reason, captured[i].in_reason) != NULL,
                           "%s: reason '%s' has '%s'", captured[i].status, j.reason,
                           captured[i].in_reason);
        }
}

/* The judge's figures in the volume JSON (volume_to_json(), docs/json.md: dm.<target>, named as
 * the /metrics series): on the captured lines, each expectation read off the kernel's line
 * (112/1024 metadata blocks used is 0.109375; 128/128 data blocks is 1; "F" paths counted), and
 * on format lines for the targets the VM scenarios do not produce. */
static const struct {
        const char *status, *table; /* a fixture file name (".status") or the line itself */
        const char *key, *want;     /* dm.<key>, printed plain */
} json_cases[] = {
        { "thin-pool-empty.status", "thin-pool.table", "thin_pool",
          "{\"data_usage_ratio\":0,\"metadata_usage_ratio\":0.109375,\"failed\":false,"
          "\"read_only\":false,\"out_of_data_space\":false,\"needs_check\":false,"
          "\"queueing\":false}" },
        { "thin-pool-full-error.status", "thin-pool.table", "thin_pool",
          "{\"data_usage_ratio\":1,\"metadata_usage_ratio\":0.109375,\"failed\":false,"
          "\"read_only\":false,\"out_of_data_space\":true,\"needs_check\":false,"
          "\"queueing\":false}" },
        { "thin-pool-full-queue.status", "thin-pool.table", "thin_pool",
          "{\"data_usage_ratio\":1,\"metadata_usage_ratio\":0.109375,\"failed\":false,"
          "\"read_only\":false,\"out_of_data_space\":true,\"needs_check\":false,"
          "\"queueing\":true}" },
        { "snapshot-used.status", "snapshot.table", "snapshot",
          "{\"usage_ratio\":0.2529296875,\"invalid\":false,\"merge_failed\":false,"
          "\"overflow\":false}" },
        { "snapshot-invalid.status", "snapshot.table", "snapshot",
          "{\"usage_ratio\":null,\"invalid\":true,\"merge_failed\":false,\"overflow\":false}" },
        { "multipath-ok.status", "multipath-queue.table", "multipath",
          "{\"paths\":2,\"paths_failed\":0,\"queueing\":false}" },
        { "multipath-one-failed.status", "multipath-queue.table", "multipath",
          "{\"paths\":2,\"paths_failed\":1,\"queueing\":false}" },
        { "multipath-all-failed.status", "multipath-queue.table", "multipath",
          "{\"paths\":2,\"paths_failed\":2,\"queueing\":true}" },
        { "multipath-all-failed.status", "multipath-noqueue.table", "multipath",
          "{\"paths\":2,\"paths_failed\":2,\"queueing\":false}" },
        /* 13/32 = 0.40625, 0/8192; 27/32 = 0.84375, 3355/8192 = 0.4095458984375, ro, needs_check */
        { "thin-pool-meta-empty.status", "thin-pool-meta.table", "thin_pool",
          "{\"data_usage_ratio\":0,\"metadata_usage_ratio\":0.40625,\"failed\":false,"
          "\"read_only\":false,\"out_of_data_space\":false,\"needs_check\":false,"
          "\"queueing\":false}" },
        { "thin-pool-meta-ro.status", "thin-pool-meta.table", "thin_pool",
          "{\"data_usage_ratio\":0.4095458984,\"metadata_usage_ratio\":0.84375,\"failed\":false,"
          "\"read_only\":true,\"out_of_data_space\":false,\"needs_check\":true,"
          "\"queueing\":false}" },
        { "thin-pool-meta-fail.status", NULL, "thin_pool",
          "{\"data_usage_ratio\":null,\"metadata_usage_ratio\":null,\"failed\":true,"
          "\"read_only\":false,\"out_of_data_space\":false,\"needs_check\":false,"
          "\"queueing\":false}" },
        { "thin-fail.status", NULL, "thin", "{\"failed\":true}" },
        { "cache-ok.status", "cache.table", "cache",
          "{\"failed\":false,\"read_only\":false,\"needs_check\":false}" },
        { "cache-error.status", "cache.table", "cache",
          "{\"failed\":true,\"read_only\":false,\"needs_check\":false}" },
        { "cache-fail.status", "cache.table", "cache",
          "{\"failed\":true,\"read_only\":false,\"needs_check\":false}" },
        { "writecache-ok.status", "writecache.table", "writecache", "{\"error\":0}" },
        { "writecache-error.status", "writecache.table", "writecache", "{\"error\":1}" },
        { "integrity-clean.status", "integrity.table", "integrity", "{\"mismatches\":0}" },
        { "integrity-mismatch.status", "integrity.table", "integrity", "{\"mismatches\":1}" },
        { "0 16384 thin-pool 1 13/1024 100/128 - ro no_discard_passdown queue_if_no_space "
          "needs_check 1024",
          NULL, "thin_pool",
          "{\"data_usage_ratio\":0.78125,\"metadata_usage_ratio\":0.0126953125,\"failed\":false,"
          "\"read_only\":true,\"out_of_data_space\":false,\"needs_check\":true,"
          "\"queueing\":false}" },
        { "0 16384 thin-pool Fail", NULL, "thin_pool",
          "{\"data_usage_ratio\":null,\"metadata_usage_ratio\":null,\"failed\":true,"
          "\"read_only\":false,\"out_of_data_space\":false,\"needs_check\":false,"
          "\"queueing\":false}" },
        { "0 65536 thin Fail", NULL, "thin", "{\"failed\":true}" },
        { "0 32768 snapshot-merge Merge failed", NULL, "snapshot",
          "{\"usage_ratio\":null,\"invalid\":false,\"merge_failed\":true,\"overflow\":false}" },
        { "0 8192 integrity 3 8000 -", NULL, "integrity", "{\"mismatches\":3}" },
        { "0 8192 cache 8 27/1024 128 12/512 0 5 0 0 0 12 0 1 writethrough 2 migration_threshold "
          "2048 smq 0 ro needs_check",
          NULL, "cache", "{\"failed\":false,\"read_only\":true,\"needs_check\":true}" },
        { "0 8192 writecache -5 1000 900 0", NULL, "writecache", "{\"error\":-5}" },
        { "0 8192 verity C", NULL, "verity", "{\"corrupted\":true}" },
        { "0 8192 striped 2 253:1 253:2 1 AD", NULL, NULL, NULL }, /* a verdict, no figures */
};

static char *text_or_fixture(const char *s) {
        return strstr(s, ".status") || strstr(s, ".table") ? fixture(s) : strdup(s);
}

static void test_json(void) {
        static const char *const keys[] = { "thin_pool", "thin",  "snapshot",   "multipath",
                                            "integrity", "cache", "writecache", "verity" };

        for (size_t i = 0; i < ELEMENTSOF(json_cases); i++) {
                _cleanup_free_ char *st = text_or_fixture(json_cases[i].status),
                                    *tb = json_cases[i].table ? fixture(json_cases[i].table) : NULL;
                _cleanup_(volume_freep) Volume *v = NULL;
                json_object *o = NULL, *dm, *t;
                size_t n_keys = 0;

                ok(volume_new("dm-9", &v) >= 0 && (v->dm_name = strdup("x")) &&
                           (v->dm_judgement = calloc(1, sizeof(DmJudgement))),
                   "volume for %s", json_cases[i].status);
                dm_judge(st, tb, names, NULL, v->dm_judgement);
                ok(volume_to_json(v, &o) >= 0 && json_object_object_get_ex(o, "dm", &dm),
                   "JSON of %s", json_cases[i].status);
                for (size_t k = 0; k < ELEMENTSOF(keys); k++)
                        n_keys += json_object_object_get_ex(dm, keys[k], NULL);
                is_int((int) n_keys, json_cases[i].key ? 1 : 0, "%s: figures of one target",
                       json_cases[i].status);
                if (json_cases[i].key) {
                        ok(json_object_object_get_ex(dm, json_cases[i].key, &t), "%s: dm.%s",
                           json_cases[i].status, json_cases[i].key);
                        is_str(json_object_to_json_string_ext(t, JSON_C_TO_STRING_PLAIN),
                               json_cases[i].want, "%s: dm.%s", json_cases[i].status,
                               json_cases[i].key);
                }
                json_object_put(o);
        }
}

int main(void) {
        DmJudgement j;

        test_captured();
        test_json();

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
                run_case(&cases[i]);

        dm_judge("0 8192 multipath 2 0 0 0 1 1 A 0 2 0 253:1 F 1 253:2 A 0", NULL, NULL, NULL, &j);
        ok(strstr(j.reason, "253:1") != NULL, "without a namer the path is MAJ:MIN: %s", j.reason);
        is_int(j.paths, 2, "paths counted");
        is_int(j.paths_failed, 1, "failed paths counted");
        dm_judge("0 8192 integrity 7 8000 -", NULL, NULL, NULL, &j);
        is_u64(j.mismatches, 7, "integrity mismatches as a figure");
        dm_judge(NULL, NULL, NULL, NULL, &j);
        is_str(raid_verdict_to_string(j.verdict), "unknown", "NULL status: unknown");

        ok(dm_target_is_judged(DM_TARGET_THIN_POOL), "thin-pool judged");
        ok(!dm_target_is_judged(DM_TARGET_RAID), "raid has its own rule");
        ok(!dm_target_is_judged(DM_TARGET_LINEAR), "linear prints no health");
        return tap_done();
}

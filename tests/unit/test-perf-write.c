/* SPDX-License-Identifier: MIT */
/* The write probe's figures through the performance monitor (md-raid6-idle fixture, captured
 * from a real kernel): an array whose reads stay as they were while its writes drop to a tenth
 * (a write cache gone to write-through) is found degraded in exactly 2 rounds with the verdict
 * naming a write metric, no member is blamed (members are read, never written), and it recovers
 * after 3 good rounds; a run without a write probe judges only the reads, and the baseline in
 * the report carries the write phases. */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/perf-monitor.h"
#include "core/perf-report.h"
#include "report/perf-metrics.h"
#include "tap.h"

static char root[] = "/tmp/test-perf-write.XXXXXX";

typedef struct Log {
        unsigned n[_PERF_EVENT_TYPE_MAX];
        char last_message[256];
} Log;

static void on_event(const PerfEvent *e, void *userdata) {
        Log *l = userdata;

        l->n[e->type]++;
        snprintf(l->last_message, sizeof(l->last_message), "%s", e->message);
        tap_diag("event %s: %s", perf_event_type_to_string(e->type), e->message);
}

static Inventory *scan(const char *scenario) {
        const char *fixtures = getenv("STORPULSE_FIXTURES");
        Inventory *inv = NULL;
        char cmd[1024];

        (void) snprintf(cmd, sizeof(cmd), "mkdir '%s/fx' && cp -a '%s/%s/.' '%s/fx/'", root,
                        fixtures ? fixtures : "tests/fixtures", scenario, root);
        if (system(cmd) != 0)
                return NULL;
        (void) snprintf(cmd, sizeof(cmd), "%s/fx", root);
        if (inventory_new_for_root(cmd, &inv) < 0 || inventory_scan(inv) < 0)
                return inventory_free(inv);
        return inv;
}

/* One round: the members read as usual; the array reads as usual and, with write, writes at
 * write_factor of its normal (1: 200 MB/s, 800 IOPS at p99 4 ms, fdatasync p99 2 ms). */
static void round_(PerfMonitor *pm, Inventory *inv, bool write, double write_factor, unsigned i) {
        static const char *const m[] = { "vdc", "vdd", "vde", "vdf" };
        double jitter = 1 + 0.02 * (i % 3);
        BaselineSample s;

        for (size_t k = 0; k < 4; k++) {
                perf_sample_from_probe(150e6, 1200, 0.8e6, 2.4e6, 5e6, 2000, &s);
                (void) perf_monitor_feed_probe(pm, inventory_get(inv, m[k]), &s, false, 0, "quick");
        }
        perf_sample_from_probe(400e6 * jitter, 1200, 0.8e6 * jitter, 2.4e6, 5e6, 2000, &s);
        if (write)
                perf_sample_add_write(&s, 200e6 * jitter * write_factor, 800 * write_factor,
                                      4e6 * jitter / write_factor, 2e6 * jitter / write_factor);
        (void) perf_monitor_feed_probe(pm, inventory_get(inv, "md1"), &s, false, 0, "quick");
        (void) perf_monitor_end_round(pm, inv, (usec_t) i * 60 * USEC_PER_SEC,
                                      1764750000000000 + (usec_t) i * 60 * USEC_PER_SEC);
}

int main(void) {
        _cleanup_(perf_monitor_freep) PerfMonitor *pm = NULL;
        Inventory *inv;
        ReportBaseline rb;
        Log log = {};
        unsigned i;

        ok(mkdtemp(root) != NULL, "temp root");
        inv = scan("md-raid6-idle");
        ok(inv, "fixture md-raid6-idle");
        if (!inv)
                return tap_done();
        ok(perf_monitor_new(NULL, on_event, &log, &pm) == 0, "monitor");
        for (i = 0; i < 40; i++)
                round_(pm, inv, true, 1, i);
        is_int(log.n[PERF_EVENT_DEGRADED], 0, "healthy rounds: no verdict");
        perf_report_baseline(pm, "md1", 8, &rb);
        ok(rb.has && rb.phases[PROBE_PHASE_WRITE_SEQUENTIAL].has &&
                   fabs(rb.phases[PROBE_PHASE_WRITE_SEQUENTIAL].bytes_per_second - 204e6) < 5e6,
           "baseline: write_sequential ~204 MB/s (%.0f)",
           rb.phases[PROBE_PHASE_WRITE_SEQUENTIAL].bytes_per_second);
        ok(rb.phases[PROBE_PHASE_WRITE_SYNC].has &&
                   rb.phases[PROBE_PHASE_WRITE_SYNC].p99_ns > 1900000 &&
                   rb.phases[PROBE_PHASE_WRITE_SYNC].p99_ns < 2100000,
           "baseline: fdatasync p99 ~2 ms");
        ok(rb.phases[PROBE_PHASE_SEQUENTIAL].has, "baseline: the reads too");

        /* a round without the write probe judges the reads alone: no verdict either way */
        round_(pm, inv, false, 1, i++);
        round_(pm, inv, false, 1, i++);
        is_int(log.n[PERF_EVENT_DEGRADED], 0, "rounds without writes: no verdict");

        round_(pm, inv, true, 0.1, i++);
        is_int(log.n[PERF_EVENT_DEGRADED], 0, "one round of writes at a tenth: not yet");
        round_(pm, inv, true, 0.1, i++);
        is_int(log.n[PERF_EVENT_DEGRADED], 1, "two rounds: performance degraded");
        ok(strstr(log.last_message, "md1: performance degraded") == log.last_message &&
                   (strstr(log.last_message, "write") || strstr(log.last_message, "fdatasync")),
           "the verdict names a write metric: %s", log.last_message);
        is_int(log.n[PERF_EVENT_MEMBER_SLOW], 0, "no member blamed (members are not written)");
        for (unsigned k = 0; k < 3; k++)
                round_(pm, inv, true, 1, i++);
        is_int(log.n[PERF_EVENT_RECOVERED], 1, "recovered after 3 good rounds");

        inventory_free(inv);
        {
                char cmd[600];

                (void) snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
                (void) system(cmd);
        }
        return tap_done();
}

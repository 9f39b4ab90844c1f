/* SPDX-License-Identifier: MIT */
/* report/: metrics (0.0.4 and OpenMetrics), the API JSON and the snapshot over the fixture tree
 * md-raid1-recover. The golden tests/fixtures/report/md-raid1-recover.prom was written by hand from
 * the fixture's kernel figures (tests/fixtures/md-raid1-recover/SOURCE, what its expect file says:
 * md0 raid1 clean, degraded 1, vdb a spare in slot 1 = rebuilding, recover at 45056 of 522240
 * (ratio 0.08627450980392157 by hand) sectors, 3844096 B/s, ETA 63 s); HELP lines are not part of
 * it. Probe figures come from a histogram filled here whose bucket counts are worked out in the
 * comments. */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "basic/fileio.h"
#include "basic/macro.h"
#include "core/inventory.h"
#include "report/api.h"
#include "report/metrics-latency.h"
#include "report/metrics.h"
#include "report/report.h"
#include "report/snapshot.h"
#include "tap.h"
#include "test-files.h"

static const char *fixtures(void) {
        const char *e = getenv("STORPULSE_FIXTURES");
        return e ? e : "tests/fixtures";
}

static Inventory *scan(const char *scenario) {
        char path[4096];
        Inventory *inv = NULL;

        (void) snprintf(path, sizeof(path), "%s/%s", fixtures(), scenario);
        if (inventory_new_for_root(path, &inv) < 0)
                return NULL;
        if (inventory_scan(inv) < 0)
                return inventory_free(inv);
        return inv;
}

static char *read_fixture(const char *rel) {
        char path[4096];
        FILE *f;
        char *buf;
        long n;

        (void) snprintf(path, sizeof(path), "%s/%s", fixtures(), rel);
        f = fopen(path, "re");
        if (!f)
                return NULL;
        (void) fseek(f, 0, SEEK_END);
        n = ftell(f);
        (void) fseek(f, 0, SEEK_SET);
        buf = calloc(1, (size_t) n + 1);
        if (buf && fread(buf, 1, (size_t) n, f) != (size_t) n) {
                free(buf);
                buf = NULL;
        }
        fclose(f);
        return buf;
}

/* The text without "# HELP" lines. */
static char *strip_help(const char *text) {
        char *out = calloc(1, strlen(text) + 1), *o = out;

        for (const char *p = text; out && *p;) {
                const char *nl = strchr(p, '\n');
                size_t n = nl ? (size_t) (nl - p) + 1 : strlen(p);
                if (strncmp(p, "# HELP ", 7) != 0) {
                        memcpy(o, p, n);
                        o += n;
                }
                p += n;
        }
        return out;
}

static bool has_line(const char *text, const char *line) {
        size_t n = strlen(line);

        for (const char *p = text; (p = strstr(p, line)); p++)
                if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
                        return true;
        return false;
}

static ReportInput base_input(Inventory *inv) {
        return (ReportInput){
                .inventory = inv,
                .version = "0.1.0-test",
                .now_realtime_usec = 1700000000250000ULL,
                .start_realtime_usec = 1699990000000000ULL,
                .render_duration_usec = 1500,
                .state_save_errors = 3, /* three failed saves, the last one too */
                .state_unsaved = true,
        };
}

static void test_golden_prometheus(Inventory *inv) {
        ReportInput in = base_input(inv);
        _cleanup_free_ char *text = NULL, *stripped = NULL, *want = NULL;
        size_t size = 0;

        is_int(metrics_render(&in, METRICS_FORMAT_PROMETHEUS, &text, &size), 0, "render 0.0.4");
        ok(text && strlen(text) == size, "size is the text's length");
        stripped = text ? strip_help(text) : NULL;
        want = read_fixture("report/md-raid1-recover.prom");
        ok(want, "golden file readable");
        ok(stripped && want && strcmp(stripped, want) == 0, "0.0.4 output matches the golden");
        if (stripped && want && strcmp(stripped, want) != 0)
                tap_diag("got:\n%s", stripped);
        ok(text && strstr(text, "# HELP storpulse_volume_size_bytes Volume size in bytes.\n"),
           "HELP line precedes the family");
        ok(text && !strstr(text, "# EOF"), "no EOF marker in 0.0.4");
}

/* The hand-counted latency samples of the probe tests: 3 x 30 us, 1 x 200 us, 1 x 2 ms. */
static void add_hand_samples(LatencyHistogram *h) {
        for (int i = 0; i < 3; i++)
                latency_histogram_add(h, 30000);
        latency_histogram_add(h, 200000);
        latency_histogram_add(h, 2000000);
}

/* md0's probe record: 3 runs, 1 stall, 1 failure, 2 foreign-I/O skips, a last run of 4.5 s with
 * a sequential and a random phase, the random one's latency in h */
static void fill_probe(ReportProbe *p, LatencyHistogram *h) {
        *p = (ReportProbe){ .volume = "md0",
                            .running = false,
                            .n_probes = 3,
                            .n_stalls = 1,
                            .n_failed = 1,
                            .cpu_usec = 250000,
                            .device_usec = 2000000 };
        add_hand_samples(h);

        p->skips[PROBE_SKIP_FOREIGN_IO] = 2;
        p->has_last = true;
        p->last = (ReportSample){
                .realtime_usec = 1699999990000000ULL,
                .profile = "quick",
                .result = REPORT_PROBE_OK,
                .duration_usec = 4500000,
        };
        p->last.phases[PROBE_PHASE_SEQUENTIAL] =
                (ReportPhase){ .ran = true, .bytes_per_second = 104857600, .iops = 100 };
        p->last.phases[PROBE_PHASE_RANDOM] = (ReportPhase){
                .ran = true, .bytes_per_second = 409600, .iops = 100.5, .latency = h
        };
}

static int ext_metrics(MetricsWriter *w, void *userdata) {
        int *called = userdata;

        (*called)++;
        metrics_writer_family(w, "storpulse_test_verdict", METRIC_GAUGE,
                              "A \\ backslash,\na newline and a \"quote\".");
        return metrics_writer_sample(w, "", 0.5, "volume", "a\"b\\c\nd", NULL);
}

/* The probe series of fill_probe()'s record in 0.0.4, and the extension's HELP and label
 * escaping. */
static void check_probe_series(const char *prom) {
        ok(prom && has_line(prom, "storpulse_probe_runs_total{volume=\"md0\"} 3"), "runs");
        ok(prom && has_line(prom, "# TYPE storpulse_probe_runs_total counter"), "counter TYPE");
        ok(prom && has_line(prom, "storpulse_probe_stalls_total{volume=\"md0\"} 1"), "stalls");
        ok(prom && has_line(prom,
                            "storpulse_probe_skips_total{volume=\"md0\",reason=\"foreign-io\"} 2"),
           "skips by reason");
        ok(prom && has_line(prom, "storpulse_probe_cpu_seconds_total{volume=\"md0\"} 0.25"), "cpu");
        ok(prom && has_line(prom, "storpulse_probe_last_run_timestamp_seconds{volume=\"md0\"} "
                                  "1699999990"),
           "last run timestamp");
        ok(prom && has_line(prom, "storpulse_probe_last_duration_seconds{volume=\"md0\"} 4.5"),
           "last duration");
        ok(prom && has_line(prom, "storpulse_probe_last_result{volume=\"md0\",result=\"ok\"} 1") &&
                   has_line(prom,
                            "storpulse_probe_last_result{volume=\"md0\",result=\"stalled\"} 0"),
           "result as one series per state");
        ok(prom && has_line(prom, "storpulse_probe_read_bytes_per_second{volume=\"md0\","
                                  "phase=\"sequential\"} 104857600"),
           "sequential throughput");
        ok(prom && has_line(prom,
                            "storpulse_probe_read_iops{volume=\"md0\",phase=\"random\"} 100.5"),
           "random iops");
        ok(prom && !strstr(prom, "phase=\"random_deep\""), "a phase that did not run is absent");
        ok(prom && has_line(prom, "# TYPE storpulse_probe_read_latency_seconds histogram"),
           "histogram TYPE");
        ok(prom && has_line(prom, "storpulse_probe_read_latency_seconds_sum{volume=\"md0\","
                                  "phase=\"random\"} 0.00229"),
           "sum");
        ok(prom && has_line(prom, "storpulse_probe_read_latency_seconds_count{volume=\"md0\","
                                  "phase=\"random\"} 5"),
           "count");
        ok(prom && !strstr(prom, "phase=\"sequential\",le="),
           "no histogram without one in the input");
        ok(prom && !strstr(prom, "storpulse_probe_runs_total{volume=\"vda\""),
           "volumes without a probe record have no probe series");
        ok(prom && strstr(prom, "HELP storpulse_probe_read_iops Reads completed per second per "
                                "phase (from the last probe run)."),
           "HELP says probe figures come from the last run");
        ok(prom && has_line(prom, "storpulse_probe_next_run_timestamp_seconds 1700003600"),
           "next run");
        ok(prom && has_line(prom, "# HELP storpulse_test_verdict A \\\\ backslash,\\na newline "
                                  "and a \"quote\"."),
           "0.0.4 HELP escapes backslash and newline only");
        ok(prom && has_line(prom, "storpulse_test_verdict{volume=\"a\\\"b\\\\c\\nd\"} 0.5"),
           "label value escaping");
}

/* The same in OpenMetrics, and the content types of both formats. */
static void check_openmetrics(const char *om) {
        ok(om && has_line(om, "# TYPE storpulse_probe_runs counter"), "OM counter family");
        ok(om && has_line(om, "storpulse_probe_runs_total{volume=\"md0\"} 3"), "OM counter sample");
        ok(om && has_line(om, "# TYPE storpulse_build info") &&
                   has_line(om, "storpulse_build_info{version=\"0.1.0-test\"} 1"),
           "OM info type");
        ok(om && has_line(om, "# HELP storpulse_test_verdict A \\\\ backslash,\\na newline and "
                              "a \\\"quote\\\"."),
           "OM HELP escapes quotes too");
        ok(om && strlen(om) > 6 && strcmp(om + strlen(om) - 6, "# EOF\n") == 0, "OM ends in # EOF");
        is_str(metrics_format_content_type(METRICS_FORMAT_PROMETHEUS),
               "text/plain; version=0.0.4; charset=utf-8", "0.0.4 content type");
        is_str(metrics_format_content_type(METRICS_FORMAT_OPENMETRICS),
               "application/openmetrics-text; version=1.0.0; charset=utf-8", "OM content type");
}

static void test_probe_and_openmetrics(Inventory *inv) {
        ReportInput in = base_input(inv);
        LatencyHistogram h = {};
        ReportProbe p;
        int called = 0;
        ReportExtension ext = { .metrics = ext_metrics, .userdata = &called };
        _cleanup_free_ char *prom = NULL, *om = NULL;

        in.latency_histogram = METRICS_LATENCY_COARSE; /* the histogram lines below */
        /* 3 x 30 us, 1 x 200 us, 1 x 2 ms: sum 2.29 ms. The histogram buckets holding them end
         * below the next `le` bound (30 us in [30208-256, 30207] < 50 us; 200 us in a 2048 ns
         * bucket < 250 us; 2 ms in a 16384 ns bucket < 2.5 ms), so the cumulative counts are
         * 0 (25 us), 3 (50 us .. 100 us), 4 (250 us .. 1 ms), 5 from 2.5 ms on. */
        fill_probe(&p, &h);
        in.probes = &p;
        in.n_probes = 1;
        in.extensions = &ext;
        in.n_extensions = 1;
        in.next_probe_realtime_usec = 1700003600000000ULL;

        is_int(metrics_render(&in, METRICS_FORMAT_PROMETHEUS, &prom, NULL), 0, "render probes");
        is_int(called, 1, "extension called once per rendering");
        check_probe_series(prom);

        is_int(metrics_render(&in, METRICS_FORMAT_OPENMETRICS, &om, NULL), 0, "render OM");
        check_openmetrics(om);
}

/* Bucket lines of md0's random phase in `text`. */
static unsigned count_buckets(const char *text) {
        const char *b = "storpulse_probe_read_latency_seconds_bucket{volume=\"md0\","
                        "phase=\"random\"";
        unsigned n = 0;

        for (const char *q = text; q && (q = strstr(q, b)); q++)
                n++;
        return n;
}

/* [HTTP] LatencyHistogram=: no histogram by default, the bucket sets of coarse, full and off,
 * against the same hand-counted samples as test_probe_and_openmetrics() (3 x 30 us, 200 us, 2 ms),
 * and the p99 gauge in every mode. */
static void test_latency_modes(Inventory *inv) {
        ReportInput in = base_input(inv);
        LatencyHistogram h = {};
        ReportProbe p = { .volume = "md0", .has_last = true };
        _cleanup_free_ char *dflt = NULL, *coarse = NULL, *full = NULL, *off = NULL;
        const char *pre = "storpulse_probe_read_latency_seconds_bucket{volume=\"md0\","
                          "phase=\"random\",le=";
        char l[256];

        add_hand_samples(&h);
        p.last.phases[PROBE_PHASE_RANDOM] =
                (ReportPhase){ .ran = true, .iops = 100, .p99_ns = 2000000, .latency = &h };
        in.probes = &p;
        in.n_probes = 1;

        is_int(metrics_render(&in, METRICS_FORMAT_PROMETHEUS, &dflt, NULL), 0, "render default");
        ok(dflt && !strstr(dflt, "storpulse_probe_read_latency_seconds"),
           "no histogram by default");
        ok(dflt && has_line(dflt, "storpulse_probe_read_latency_p99_seconds{volume=\"md0\","
                                  "phase=\"random\"} 0.002"),
           "default: the p99 gauge");
        in.latency_histogram = METRICS_LATENCY_COARSE;
        is_int(metrics_render(&in, METRICS_FORMAT_PROMETHEUS, &coarse, NULL), 0, "render coarse");
        is_int(count_buckets(coarse), 4, "coarse: 3 bounds and +Inf");
        (void) snprintf(l, sizeof(l), "%s\"0.001\"} 4", pre);
        ok(coarse && has_line(coarse, l), "coarse le 1ms: 4");
        (void) snprintf(l, sizeof(l), "%s\"0.01\"} 5", pre);
        ok(coarse && has_line(coarse, l), "coarse le 10ms: 5");
        (void) snprintf(l, sizeof(l), "%s\"0.1\"} 5", pre);
        ok(coarse && has_line(coarse, l), "coarse le 100ms: 5");
        (void) snprintf(l, sizeof(l), "%s\"+Inf\"} 5", pre);
        ok(coarse && has_line(coarse, l), "coarse le +Inf: 5");
        ok(coarse && has_line(coarse, "storpulse_probe_read_latency_p99_seconds{volume=\"md0\","
                                      "phase=\"random\"} 0.002"),
           "p99 gauge");

        in.latency_histogram = METRICS_LATENCY_FULL;
        is_int(metrics_render(&in, METRICS_FORMAT_PROMETHEUS, &full, NULL), 0, "render full");
        is_int(count_buckets(full), 19, "full: 18 bounds and +Inf");
        (void) snprintf(l, sizeof(l), "%s\"2.5e-05\"} 0", pre);
        ok(full && has_line(full, l), "full le 25us: 0");
        (void) snprintf(l, sizeof(l), "%s\"0.0001\"} 3", pre);
        ok(full && has_line(full, l), "full le 100us: 3");
        (void) snprintf(l, sizeof(l), "%s\"0.001\"} 4", pre);
        ok(full && has_line(full, l), "full le 1ms: 4");
        (void) snprintf(l, sizeof(l), "%s\"0.0025\"} 5", pre);
        ok(full && has_line(full, l), "full le 2.5ms: 5");
        (void) snprintf(l, sizeof(l), "%s\"+Inf\"} 5", pre);
        ok(full && has_line(full, l), "full le +Inf: 5");

        in.latency_histogram = METRICS_LATENCY_OFF;
        is_int(metrics_render(&in, METRICS_FORMAT_PROMETHEUS, &off, NULL), 0, "render off");
        ok(off && !strstr(off, "storpulse_probe_read_latency_seconds"), "off: no histogram");
        ok(off && has_line(off, "storpulse_probe_read_latency_p99_seconds{volume=\"md0\","
                                "phase=\"random\"} 0.002"),
           "off: the p99 gauge stays");
        is_str(metrics_latency_to_string(METRICS_LATENCY_COARSE), "coarse", "mode names");
        is_int(metrics_latency_from_string("full"), METRICS_LATENCY_FULL, "mode from name");
        is_int(metrics_latency_from_string("some"), -EINVAL, "unknown mode");
}

/* /api/v1/volumes: the document `storpulsectl volumes --json` prints, plus probe_problem */
static void test_json_volumes(const ReportInput *in, Inventory *inv) {
        json_object *got = NULL, *want = NULL, *x;

        is_int(api_volumes_json(in, &got), 0, "volumes json");
        /* the document `storpulsectl volumes --json` prints for the same inventory (the
         * fixture's figures themselves are checked by its expect file, test-inventory) */
        is_int(inventory_to_json(inv, &want), 0, "volumes --json document");
        /* plus the daemon's probe verdict, which a one-shot read does not have */
        for (size_t i = 0; got && i < json_object_array_length(got); i++) {
                json_object *v = json_object_array_get_idx(got, i);

                ok(json_object_object_get_ex(v, "probe_problem", &x) && !x,
                   "probe_problem null (the last probe was clean)");
                json_object_object_del(v, "probe_problem");
        }
        ok(got && want && json_object_equal(got, want),
           "/api/v1/volumes is the volumes --json document plus probe_problem");
        json_object_put(got);
        json_object_put(want);
}

/* /api/v1/volumes/NAME: the CLI's fields and a probe record in the schema's names */
static void test_json_volume(const ReportInput *in) {
        json_object *vol = NULL, *x;

        is_int(api_volume_json(in, "nope", &vol), -ENOENT, "unknown volume");
        is_int(api_volume_json(in, "md0", &vol), 0, "one volume");
        ok(vol && json_object_object_get_ex(vol, "probe", &x) &&
                   json_object_is_type(x, json_type_object),
           "volume has a probe object");
        ok(vol && json_object_object_get_ex(vol, "sync_eta_seconds", &x) &&
                   json_object_get_int(x) == 63,
           "volume carries the CLI's fields");
        ok(vol && json_object_object_get_ex(vol, "probe", &x) &&
                   json_object_object_get_ex(x, "runs", NULL) &&
                   json_object_object_get_ex(x, "failures", NULL) &&
                   json_object_object_get_ex(x, "cpu_seconds", NULL),
           "probe record in the schema's names");
        json_object_put(vol);
}

/* /api/v1/history: md0's two samples, the event, the baselines (one learnt, one null) */
static void test_json_history(const ReportInput *in) {
        json_object *hist = NULL, *x = NULL, *v = NULL, *bl = NULL, *seq = NULL, *bps = NULL;

        is_int(api_history_json(in, &hist), 0, "history json");
        ok(hist && json_object_object_get_ex(hist, "volumes", &x) &&
                   json_object_object_get_ex(x, "md0", &x) &&
                   json_object_object_get_ex(x, "samples", &x) && json_object_array_length(x) == 2,
           "two samples for md0");
        ok(hist && json_object_object_get_ex(hist, "events", &x) &&
                   json_object_array_length(x) == 1 &&
                   strcmp(json_object_get_string(
                                  json_object_object_get(json_object_array_get_idx(x, 0), "event")),
                          "degraded") == 0,
           "event listed");
        /* docs/json.md: times in seconds; 5 µs and 2 µs by hand */
        ok(x && json_object_get_double(json_object_object_get(json_object_array_get_idx(x, 0),
                                                              "timestamp_seconds")) == 5e-6,
           "event timestamp_seconds");
        ok(hist && json_object_object_get_ex(hist, "volumes", &x) &&
                   json_object_object_get_ex(x, "md0", &x) &&
                   json_object_object_get_ex(x, "samples", &x) &&
                   (x = json_object_array_get_idx(x, 1)) &&
                   json_object_get_double(json_object_object_get(x, "timestamp_seconds")) == 2e-6 &&
                   strcmp(json_object_get_string(json_object_object_get(x, "result")), "stalled") ==
                           0,
           "a run in the schema's names");
        ok(hist && json_object_object_get_ex(hist, "volumes", &v) &&
                   json_object_object_get_ex(json_object_object_get(v, "md0"), "baseline", &bl) &&
                   json_object_object_get_ex(bl, "sequential", &seq) &&
                   json_object_object_get_ex(seq, "bytes_per_second", &bps) &&
                   json_object_get_double(bps) == 9e7,
           "baseline in the history");
        ok(json_object_object_get_ex(v, "vda", &x) &&
                   json_object_object_get_ex(x, "baseline", &x) && x == NULL,
           "no baseline is null");
        json_object_put(hist);
}

static void test_json(Inventory *inv) {
        ReportInput in = base_input(inv);
        ReportSample hs[2] = {
                { .realtime_usec = 1,
                  .result = REPORT_PROBE_OK,
                  .phases[PROBE_PHASE_SEQUENTIAL] = { .ran = true, .bytes_per_second = 1e8 } },
                { .realtime_usec = 2, .result = REPORT_PROBE_STALLED },
        };
        ReportBaseline b = { .has = true,
                             .phases[PROBE_PHASE_SEQUENTIAL] = { .has = true,
                                                                 .bytes_per_second = 9e7 } };
        ReportProbe p = { .volume = "md0", .history = hs, .n_history = 2, .baseline = &b };
        ReportEvent ev = { .seq = 7,
                           .realtime_usec = 5,
                           .type = "degraded",
                           .priority = 4,
                           .volume = "md0",
                           .member = "",
                           .message = "md0 degraded" };

        in.probes = &p;
        in.n_probes = 1;
        in.events = &ev;
        in.n_events = 1;
        test_json_volumes(&in, inv);
        test_json_volume(&in);
        test_json_history(&in);
}

/* A baseline that has learnt the sequential read throughput (90 MB/s) and nothing else: every
 * MAD NAN, as perf_report_baseline() leaves an unlearnt figure. */
static void baseline_seq_only(ReportBaseline *b) {
        *b = (ReportBaseline){ .has = true };
        for (ProbePhase ph = 0; ph < _PROBE_PHASE_MAX; ph++)
                b->phases[ph] = (ReportPhaseBaseline){ .bytes_per_second_mad = NAN,
                                                       .iops_mad = NAN,
                                                       .p99_mad_ns = NAN };
        b->phases[PROBE_PHASE_SEQUENTIAL].has = true;
        b->phases[PROBE_PHASE_SEQUENTIAL].bytes_per_second = 9e7;
}

/* The write baseline families (report/metrics-baseline.c): what the baseline learns of writes, set
 * by hand here (50 MB/s sequential, 1200 random IOPS at 2.5 ms p99, fdatasync p99 8 ms); the
 * figures it does not learn (the sync phase's cycles per second, an unlearnt random p99: NAN MAD
 * as perf_report_baseline() leaves it) are absent, and no write phase reaches the read families. */
static void test_write_baseline(Inventory *inv) {
        ReportInput in = base_input(inv);
        ReportBaseline b = { .has = true };
        ReportProbe p = { .volume = "md0", .baseline = &b };
        _cleanup_free_ char *prom = NULL, *none = NULL;

        baseline_seq_only(&b);
        b.phases[PROBE_PHASE_WRITE_SEQUENTIAL].has = true;
        b.phases[PROBE_PHASE_WRITE_SEQUENTIAL].bytes_per_second = 5e7;
        b.phases[PROBE_PHASE_WRITE_RANDOM] = (ReportPhaseBaseline){ .has = true,
                                                                    .iops = 1200,
                                                                    .iops_mad = 30,
                                                                    .p99_ns = 2500000,
                                                                    .p99_mad_ns = 1e5,
                                                                    .bytes_per_second_mad = NAN };
        b.phases[PROBE_PHASE_WRITE_SYNC] = (ReportPhaseBaseline){ .has = true,
                                                                  .iops = NAN,
                                                                  .iops_mad = NAN,
                                                                  .p99_ns = 8000000,
                                                                  .p99_mad_ns = 0,
                                                                  .bytes_per_second_mad = NAN };
        in.probes = &p;
        in.n_probes = 1;
        is_int(metrics_render(&in, METRICS_FORMAT_PROMETHEUS, &prom, NULL), 0, "render baselines");
        ok(prom && has_line(prom, "# TYPE storpulse_baseline_write_bytes_per_second gauge"),
           "write baseline TYPE");
        ok(prom && has_line(prom, "storpulse_baseline_write_bytes_per_second{volume=\"md0\","
                                  "phase=\"sequential\"} 50000000"),
           "write baseline: sequential bytes/s");
        ok(prom && has_line(prom, "storpulse_baseline_write_iops{volume=\"md0\","
                                  "phase=\"random\"} 1200"),
           "write baseline: random IOPS");
        ok(prom && has_line(prom, "storpulse_baseline_write_latency_p99_seconds{volume=\"md0\","
                                  "phase=\"random\"} 0.0025"),
           "write baseline: random p99");
        ok(prom && has_line(prom, "storpulse_baseline_write_latency_p99_seconds{volume=\"md0\","
                                  "phase=\"sync\"} 0.008"),
           "write baseline: fdatasync p99");
        ok(prom && !strstr(prom, "storpulse_baseline_write_iops{volume=\"md0\",phase=\"sync\"") &&
                   !strstr(prom, "storpulse_baseline_write_bytes_per_second{volume=\"md0\","
                                 "phase=\"random\""),
           "write baseline: no unlearnt figure");
        ok(prom &&
                   !strstr(prom, "storpulse_baseline_read_bytes_per_second{volume=\"md0\","
                                 "phase=\"sequential\"} 50000000") &&
                   has_line(prom, "storpulse_baseline_read_bytes_per_second{volume=\"md0\","
                                  "phase=\"sequential\"} 90000000"),
           "read baseline family: the read figure, no write one");

        b.phases[PROBE_PHASE_WRITE_RANDOM].p99_mad_ns = NAN; /* p99 not learnt yet */
        b.phases[PROBE_PHASE_WRITE_SEQUENTIAL].has = false;
        b.phases[PROBE_PHASE_WRITE_SYNC].has = false;
        is_int(metrics_render(&in, METRICS_FORMAT_PROMETHEUS, &none, NULL), 0, "render partial");
        ok(none && !strstr(none, "storpulse_baseline_write_bytes_per_second") &&
                   !strstr(none, "storpulse_baseline_write_latency_p99_seconds") &&
                   has_line(none, "storpulse_baseline_write_iops{volume=\"md0\","
                                  "phase=\"random\"} 1200"),
           "write baseline: a family with nothing learnt is left out");
}

/* The read baseline families carry what the baseline learns (report/metrics-baseline.c): the
 * sequential bytes/s, the random IOPS and p99; a random phase whose IOPS is learnt before its
 * p99 (NAN MAD) has no p99 sample, and neither phase a figure it never learns (was a 0). */
static void test_read_baseline(Inventory *inv) {
        ReportInput in = base_input(inv);
        ReportBaseline b = { .has = true };
        ReportProbe p = { .volume = "md0", .baseline = &b };
        _cleanup_free_ char *prom = NULL;

        baseline_seq_only(&b);
        b.phases[PROBE_PHASE_RANDOM] = (ReportPhaseBaseline){ .has = true,
                                                              .iops = 2500,
                                                              .iops_mad = 40,
                                                              .bytes_per_second_mad = NAN,
                                                              .p99_mad_ns = NAN };
        in.probes = &p;
        in.n_probes = 1;
        is_int(metrics_render(&in, METRICS_FORMAT_PROMETHEUS, &prom, NULL), 0, "render");
        ok(prom &&
                   has_line(prom, "storpulse_baseline_read_bytes_per_second{volume=\"md0\","
                                  "phase=\"sequential\"} 90000000") &&
                   has_line(prom, "storpulse_baseline_read_iops{volume=\"md0\","
                                  "phase=\"random\"} 2500"),
           "read baseline: the learnt figures");
        ok(prom &&
                   !strstr(prom,
                           "storpulse_baseline_read_iops{volume=\"md0\",phase=\"sequential\"") &&
                   !strstr(prom, "storpulse_baseline_read_bytes_per_second{volume=\"md0\","
                                 "phase=\"random\"") &&
                   !strstr(prom, "storpulse_baseline_read_latency_p99_seconds"),
           "read baseline: no figure that is not learnt, no 0 for one");
}

static void test_snapshot(Inventory *inv) {
        ReportInput in = base_input(inv);
        _cleanup_(snapshot_unrefp) Snapshot *s = NULL;
        const SnapshotBody *b;
        char out[1 << 16];
        uLongf out_size = sizeof(out);
        z_stream z = {};

        is_int(snapshot_build(&in, 42, &s), 0, "snapshot built");
        is_u64(snapshot_generation(s), 42, "generation");
        b = snapshot_body(s, SNAPSHOT_METRICS_PROMETHEUS);
        ok(b && b->data && strncmp(b->data, "# HELP storpulse_build_info", 27) == 0,
           "metrics body");
        ok(b && b->gzip_size > 18 && ((const unsigned char *) b->gzip)[0] == 0x1f &&
                   ((const unsigned char *) b->gzip)[1] == 0x8b,
           "gzip magic");
        ok(inflateInit2(&z, 15 + 16) == Z_OK, "inflate init");
        z.next_in = (Bytef *) b->gzip;
        z.avail_in = b->gzip_size;
        z.next_out = (Bytef *) out;
        z.avail_out = out_size;
        is_int(inflate(&z, Z_FINISH), Z_STREAM_END, "gzip body inflates");
        ok(z.total_out == b->size && memcmp(out, b->data, b->size) == 0, "gzip body is the text");
        (void) inflateEnd(&z);
        b = snapshot_body(s, SNAPSHOT_METRICS_OPENMETRICS);
        ok(b && strstr(b->data, "# EOF\n"), "OM body");
        b = snapshot_volume(s, "vdb");
        ok(b && strstr(b->data, "\"name\":\"vdb\""), "per-volume body");
        ok(!snapshot_volume(s, "vdc"), "unknown volume has no body");
        b = snapshot_body(s, SNAPSHOT_VOLUMES_JSON);
        ok(b && b->data[0] == '[' && b->data[b->size - 1] == '\n', "volumes body");
        ok(snapshot_ref(s) == s, "ref");
        ok(!snapshot_unref(s), "unref returns NULL");
        ok(!snapshot_body(NULL, SNAPSHOT_VOLUMES_JSON), "NULL snapshot");
}

/* An unbound loop device (size 0) is in the inventory but in no output: not a volume on
 * /metrics, /api/v1/volumes or /api/v1/history, as `storpulsectl volumes` leaves it out. */
static void test_unbound_loop(void) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        _cleanup_free_ char *text = NULL;
        json_object *vols = NULL, *hist = NULL, *hv = NULL;
        char dir[64], cmd[128];
        size_t size = 0;
        ReportInput in;

        if (fixture_copy_with_unbound_loop("md-raid1-recover", dir) < 0) {
                ok(false, "tree with an unbound loop device");
                return;
        }
        ok(inventory_new_for_root(dir, &inv) >= 0 && inventory_scan(inv) >= 0, "odd tree scanned");
        ok(inv && inventory_get(inv, "loop0"), "loop0 is in the inventory");
        if (inv) {
                in = base_input(inv);
                is_int(metrics_render(&in, METRICS_FORMAT_PROMETHEUS, &text, &size), 0, "render");
                ok(text && strstr(text, "volume=\"md0\"") && !strstr(text, "loop0"),
                   "/metrics: md0, but no loop0");
                is_int(api_volumes_json(&in, &vols), 0, "volumes JSON");
                ok(vols && json_object_array_length(vols) == 3, "/api/v1/volumes: md0 vda vdb");
                is_int(api_history_json(&in, &hist), 0, "history JSON");
                ok(hist && json_object_object_get_ex(hist, "volumes", &hv) &&
                           !json_object_object_get_ex(hv, "loop0", NULL),
                   "/api/v1/history: no loop0");
        }
        json_object_put(vols);
        json_object_put(hist);
        (void) snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        (void) system(cmd);
}

/* Lines of `text` that carry `volume="NAME"`. */
static unsigned count_volume_series(const char *text, const char *name) {
        char needle[64];
        unsigned n = 0;

        (void) snprintf(needle, sizeof(needle), "volume=\"%s\"", name);
        for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
                const char *e = strchr(l, '\n');
                const char *hit = strstr(l, needle);

                if (*l != '#' && hit && (!e || hit < e))
                        n++;
        }
        return n;
}

/* What a fleet pays per probed disk (docs/fleet.md, README): vdb of the fixture (a leaf, no
 * volume below it) with a clean quick-profile run (sequential and random) and a learnt baseline
 * of both phases. 39 series by default: health and problem 8, probe state and figures 15,
 * counters 13 (6 of them skip reasons), baseline 3 (sequential bytes/s, random IOPS and p99);
 * the detector's performance_state, performance_ratio and baseline_samples (9 more) come from its
 * extension, not counted here. The histogram adds 6 series a phase (coarse), 21 (full). */
static void test_series_budget(Inventory *inv) {
        ReportInput in = base_input(inv);
        LatencyHistogram h = {};
        ReportBaseline b = { .has = true };
        ReportProbe p = { .volume = "vdb", .has_last = true, .n_probes = 9, .baseline = &b };
        const MetricsLatency modes[] = { METRICS_LATENCY_OFF, METRICS_LATENCY_COARSE,
                                         METRICS_LATENCY_FULL };
        const unsigned want[] = { 39, 51, 81 };

        latency_histogram_add(&h, 30000);
        p.last.result = REPORT_PROBE_OK;
        for (ProbePhase ph = PROBE_PHASE_SEQUENTIAL; ph <= PROBE_PHASE_RANDOM; ph++) {
                p.last.phases[ph] = (ReportPhase){ .ran = true, .iops = 100, .latency = &h };
                b.phases[ph] = (ReportPhaseBaseline){ .has = true,
                                                      .bytes_per_second = 1e8,
                                                      .iops = 100,
                                                      .p99_ns = 200000,
                                                      .bytes_per_second_mad = 1e6,
                                                      .iops_mad = 2,
                                                      .p99_mad_ns = 1e4 };
        }
        in.probes = &p;
        in.n_probes = 1;
        for (size_t i = 0; i < ELEMENTSOF(modes); i++) {
                _cleanup_free_ char *text = NULL;

                in.latency_histogram = modes[i];
                is_int(metrics_render(&in, METRICS_FORMAT_PROMETHEUS, &text, NULL), 0, "render");
                is_int(count_volume_series(text, "vdb"), want[i], "series of a probed disk, %s",
                       metrics_latency_to_string(modes[i]));
        }
}

int main(void) {
        _cleanup_(inventory_freep) Inventory *inv = scan("md-raid1-recover");

        ok(inv, "fixture scanned");
        if (inv) {
                test_golden_prometheus(inv);
                test_probe_and_openmetrics(inv);
                test_latency_modes(inv);
                test_series_budget(inv);
                test_json(inv);
                test_write_baseline(inv);
                test_read_baseline(inv);
                test_snapshot(inv);
        }
        test_unbound_loop();
        return tap_done();
}

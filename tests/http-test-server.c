/* SPDX-License-Identifier: MIT */
/* storpulse-http-test-server: the HTTP endpoint serving a snapshot of a fixture tree, for the
 * integration tests (curl, Prometheus, Chromium) and bench/scrape. Real components: the
 * inventory scans the fixture root, report/ renders, http/ serves; only the probe figures are
 * made up (--probes: every visible volume gets a short history and a latency histogram, fixed
 * figures, so the page has charts and Prometheus a histogram).
 *
 *   storpulse-http-test-server --root DIR [--listen ADDR:PORT]... [--probes]
 *       [--now EPOCH_SECONDS] [--slow-member NAME]
 *       [--max-connections N] [--per-ip N] [--timeout SEC] [--request-timeout SEC]
 *       [--memory BYTES] [--tls-cert FILE --tls-key FILE] [--tls-priorities STRING]
 *       [--auth-user U --auth-hash HASH]
 *
 * --now fixes the snapshot's "now" (the probe history and the events are hours and minutes
 * before it), so a test of the page does not depend on the wall clock. With --probes each
 * volume's history object also gets a made-up "performance" object (the daemon's comes from
 * report/perf-metrics.c): an md array "ok", or "degraded" with --slow-member NAME as culprit
 * and slow member when NAME is one of its members; other volumes "learning".
 *
 * Sockets passed by systemd (socket activation, sd_listen_fds()) are served too. Prints one line
 * "listening ADDR" per socket, then "ready", and serves until SIGTERM/SIGINT. */

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <time.h>

#include "basic/macro.h"
#include "core/inventory.h"
#include "http/server.h"
#include "report/report.h"
#include "report/snapshot.h"

#define N_HISTORY 8

static usec_t now_realtime(void) {
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        return (usec_t) ts.tv_sec * 1000000 + (usec_t) ts.tv_nsec / 1000;
}

typedef struct Args {
        HttpServerOptions o;
        char *listen[16];
        size_t n_listen;
        const char *root;
        const char *slow_member;
        bool probes;
        usec_t now;
} Args;

static const struct option options[] = {
        { "root", required_argument, NULL, 'r' },
        { "listen", required_argument, NULL, 'l' },
        { "probes", no_argument, NULL, 'p' },
        { "now", required_argument, NULL, 'n' },
        { "slow-member", required_argument, NULL, 's' },
        { "max-connections", required_argument, NULL, 'c' },
        { "per-ip", required_argument, NULL, 'i' },
        { "timeout", required_argument, NULL, 't' },
        { "request-timeout", required_argument, NULL, 'T' },
        { "tls-priorities", required_argument, NULL, 'P' },
        { "memory", required_argument, NULL, 'm' },
        { "tls-cert", required_argument, NULL, 'C' },
        { "tls-key", required_argument, NULL, 'K' },
        { "auth-user", required_argument, NULL, 'u' },
        { "auth-hash", required_argument, NULL, 'H' },
        {},
};

static int parse_args(int argc, char *argv[], Args *a) {
        int c;

        while ((c = getopt_long(argc, argv, "", options, NULL)) >= 0)
                switch (c) {
                case 'r':
                        a->root = optarg;
                        break;
                case 'l':
                        if (a->n_listen + 1 >= ELEMENTSOF(a->listen))
                                return -E2BIG;
                        a->listen[a->n_listen++] = optarg;
                        break;
                case 'p':
                        a->probes = true;
                        break;
                case 'n':
                        a->now = (usec_t) strtoull(optarg, NULL, 10) * 1000000;
                        break;
                case 's':
                        a->slow_member = optarg;
                        break;
                case 'c':
                        a->o.max_connections = (unsigned) strtoul(optarg, NULL, 10);
                        break;
                case 'i':
                        a->o.max_connections_per_ip = (unsigned) strtoul(optarg, NULL, 10);
                        break;
                case 't':
                        a->o.timeout_sec = (unsigned) strtoul(optarg, NULL, 10);
                        break;
                case 'T':
                        a->o.request_timeout_sec = (unsigned) strtoul(optarg, NULL, 10);
                        break;
                case 'P':
                        a->o.tls_priorities = optarg;
                        break;
                case 'm':
                        a->o.connection_memory_bytes = strtoul(optarg, NULL, 10);
                        break;
                case 'C':
                        a->o.tls_cert_file = optarg;
                        break;
                case 'K':
                        a->o.tls_key_file = optarg;
                        break;
                case 'u':
                        a->o.auth_user = optarg;
                        break;
                case 'H':
                        a->o.auth_hash = optarg;
                        break;
                default:
                        return -EINVAL;
                }
        if (!a->root) {
                fprintf(stderr, "--root is required\n");
                return -EINVAL;
        }
        if (a->now == 0)
                a->now = now_realtime();
        return 0;
}

static LatencyHistogram lat[_PROBE_PHASE_MAX];

/* Baseline medians with their scaled MADs (the band the page draws). */
static const ReportBaseline baseline = {
        .has = true,
        .phases[PROBE_PHASE_SEQUENTIAL] = { .has = true,
                                            .bytes_per_second = 2.3e8,
                                            .iops = 230,
                                            .bytes_per_second_mad = 1.5e7,
                                            .iops_mad = 15,
                                            .p99_mad_ns = NAN },
        .phases[PROBE_PHASE_RANDOM] = { .has = true,
                                        .iops = 9000,
                                        .p99_ns = 250000,
                                        .bytes_per_second_mad = NAN,
                                        .iops_mad = 400,
                                        .p99_mad_ns = 20000 },
};

/* Sample k of N_HISTORY, one hour apart, the last an hour before now. */
static void fill_sample(ReportSample *smp, size_t k, usec_t now) {
        *smp = (ReportSample){
                .realtime_usec = now - (N_HISTORY - k) * 3600 * 1000000ULL,
                .profile = "quick",
                .result = REPORT_PROBE_OK,
                .duration_usec = 4000000,
        };
        smp->phases[PROBE_PHASE_SEQUENTIAL] = (ReportPhase){ .ran = true,
                                                             .bytes_per_second = 2e8 + k * 1e7,
                                                             .iops = 200 + k * 10,
                                                             .p50_ns = 4000000,
                                                             .p99_ns = 9000000,
                                                             .max_ns = 12000000 };
        smp->phases[PROBE_PHASE_RANDOM] = (ReportPhase){ .ran = true,
                                                         .bytes_per_second = 4e7,
                                                         .iops = 10000 - k * 300,
                                                         .p50_ns = 90000,
                                                         .p99_ns = 180000 + k * 20000,
                                                         .max_ns = 400000,
                                                         .latency = &lat[PROBE_PHASE_RANDOM] };
        smp->phases[PROBE_PHASE_RANDOM_DEEP] =
                (ReportPhase){ .ran = true,
                               .bytes_per_second = 1.2e8,
                               .iops = 30000,
                               .p50_ns = 1000000,
                               .p99_ns = 2800000,
                               .max_ns = 3000000,
                               .latency = &lat[PROBE_PHASE_RANDOM_DEEP] };
}

/* Made-up probe records for every visible volume (fixed figures); *ret_n of them. */
static int make_probes(const Inventory *inv, usec_t now, ReportProbe **ret, ReportSample **ret_hist,
                       size_t *ret_n) {
        size_t n = inventory_size(inv), n_probes = 0;
        _cleanup_free_ ReportProbe *rp = calloc(n + 1, sizeof(*rp));
        _cleanup_free_ ReportSample *hist = calloc((n + 1) * N_HISTORY, sizeof(*hist));
        Volume *v;

        if (!rp || !hist)
                return -ENOMEM;
        for (int i = 0; i < 200; i++)
                latency_histogram_add(&lat[PROBE_PHASE_RANDOM], 80000 + (nsec_t) i * 1000);
        for (int i = 0; i < 200; i++)
                latency_histogram_add(&lat[PROBE_PHASE_RANDOM_DEEP], 900000 + (nsec_t) i * 10000);
        INVENTORY_FOREACH(v, inv) {
                ReportProbe *p;
                if (v->hidden)
                        continue;
                p = &rp[n_probes];
                p->volume = v->name;
                p->history = &hist[n_probes * N_HISTORY];
                p->n_history = N_HISTORY;
                for (size_t k = 0; k < N_HISTORY; k++)
                        fill_sample(&hist[n_probes * N_HISTORY + k], k, now);
                if (v->kind == VOLUME_MD)
                        p->baseline = &baseline;
                p->has_last = true;
                p->last = p->history[N_HISTORY - 1];
                p->n_probes = N_HISTORY;
                p->cpu_usec = 1200000;
                p->device_usec = 32000000;
                n_probes++;
        }
        *ret = TAKE_PTR(rp);
        *ret_hist = TAKE_PTR(hist);
        *ret_n = n_probes;
        return 0;
}

typedef struct PerfFixture {
        const Inventory *inv;
        const char *slow_member;
} PerfFixture;

/* The history's "performance" object, made up (see the top of the file). */
static int perf_fixture_volume_json(const char *volume, json_object *o, void *userdata) {
        const PerfFixture *f = userdata;
        const Volume *v = inventory_get(f->inv, volume);
        const char *state = "learning", *culprit = NULL;
        json_object *p = json_object_new_object(), *slow = json_object_new_array();

        if (!p || !slow || json_object_object_add(p, "slow_members", slow) < 0) {
                json_object_put(slow);
                json_object_put(p);
                return -ENOMEM;
        }
        if (v && v->kind == VOLUME_MD) {
                state = "ok";
                for (char **m = v->members; f->slow_member && m && *m; m++)
                        if (strcmp(*m, f->slow_member) == 0) {
                                state = "degraded";
                                culprit = *m;
                                json_object_array_add(slow, json_object_new_string(*m));
                        }
        }
        json_object_object_add(p, "state", json_object_new_string(state));
        json_object_object_add(p, "culprit", culprit ? json_object_new_string(culprit) : NULL);
        json_object_object_add(p, "rebuild_slow", json_object_new_boolean(false));
        return json_object_object_add(o, "performance", p) < 0 ? -ENOMEM : 0;
}

/* Newest first (the rebuild's start first, as tests/integration/http-server.py expects), one of
 * each severity the page tells apart (syslog levels 2..6). */
static void make_events(ReportEvent events[static 5], usec_t now) {
        events[0] = (ReportEvent){ .seq = 5,
                                   .realtime_usec = now - 30000000,
                                   .type = "rebuild-started",
                                   .priority = 5,
                                   .volume = "md0",
                                   .message = "md0: recover started" };
        events[1] = (ReportEvent){ .seq = 4,
                                   .realtime_usec = now - 45000000,
                                   .type = "probe-error",
                                   .priority = 3,
                                   .volume = "md0",
                                   .message = "md0: probe read errors" };
        events[2] = (ReportEvent){ .seq = 3,
                                   .realtime_usec = now - 50000000,
                                   .type = "member-slow",
                                   .priority = 4,
                                   .volume = "md0",
                                   .member = "vda",
                                   .message = "md0: member vda slow" };
        events[3] = (ReportEvent){ .seq = 2,
                                   .realtime_usec = now - 60000000,
                                   .type = "failed",
                                   .priority = 2,
                                   .volume = "md0",
                                   .message = "md0: array failed" };
        events[4] = (ReportEvent){ .seq = 1,
                                   .realtime_usec = now - 120000000,
                                   .type = "started",
                                   .priority = 6,
                                   .message = "storpulse test server started" };
}

static int serve(const Args *a, const Snapshot *s) {
        _cleanup_(http_server_freep) HttpServer *h = NULL;
        _cleanup_free_ char *error = NULL;
        HttpServerOptions o = a->o;
        int fds[16], n_fds, sig, r;
        sigset_t mask;

        n_fds = sd_listen_fds(true);
        for (int i = 0; i < n_fds && i < (int) ELEMENTSOF(fds); i++)
                fds[i] = SD_LISTEN_FDS_START + i;
        o.fds = fds;
        o.n_fds = n_fds > 0 ? (size_t) n_fds : 0;
        o.listen = a->n_listen > 0 ? a->listen : NULL;

        /* block the signals before the server threads start, so they inherit the mask */
        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigprocmask(SIG_BLOCK, &mask, NULL);

        r = http_server_new(&o, &h, &error);
        if (r < 0) {
                fprintf(stderr, "http: %s\n", error ?: strerror(-r));
                return 1;
        }
        http_server_set_snapshot(h, (Snapshot *) s);
        for (size_t i = 0; i < http_server_n_listen(h); i++) {
                char addr[128];
                if (http_server_listen_address(h, i, addr, sizeof(addr)) >= 0)
                        printf("listening %s\n", addr);
        }
        printf("ready\n");
        fflush(stdout);
        (void) sigwait(&mask, &sig);
        return 0;
}

int main(int argc, char *argv[]) {
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        _cleanup_(snapshot_unrefp) Snapshot *s = NULL;
        _cleanup_free_ ReportProbe *rp = NULL;
        _cleanup_free_ ReportSample *hist = NULL;
        ReportEvent events[5];
        ReportExtension ext;
        PerfFixture pf;
        ReportInput in;
        Args a = {};
        size_t n_probes = 0;
        int r;

        if (parse_args(argc, argv, &a) < 0)
                return 2;
        r = inventory_new_for_root(a.root, &inv);
        if (r >= 0)
                r = inventory_scan(inv);
        if (r < 0) {
                fprintf(stderr, "cannot scan %s: %s\n", a.root, strerror(-r));
                return 1;
        }
        if (a.probes && make_probes(inv, a.now, &rp, &hist, &n_probes) < 0)
                return 1;
        make_events(events, a.now);
        pf = (PerfFixture){ .inv = inv, .slow_member = a.slow_member };
        ext = (ReportExtension){ .volume_json = perf_fixture_volume_json, .userdata = &pf };
        in = (ReportInput){
                .inventory = inv,
                .probes = rp,
                .n_probes = n_probes,
                .events = events,
                .n_events = ELEMENTSOF(events),
                .version = "test",
                .now_realtime_usec = a.now,
                .start_realtime_usec = a.now - 120000000,
                .extensions = a.probes ? &ext : NULL,
                .n_extensions = a.probes ? 1 : 0,
        };
        r = snapshot_build(&in, 1, &s);
        if (r < 0) {
                fprintf(stderr, "snapshot: %s\n", strerror(-r));
                return 1;
        }
        return serve(&a, s);
}

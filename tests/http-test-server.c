/* SPDX-License-Identifier: MIT */
/* storpulse-http-test-server: the HTTP endpoint serving a snapshot of a fixture tree, for the
 * integration tests (curl, Prometheus, Chromium) and bench/scrape. Real components: the
 * inventory scans the fixture root, report/ renders, http/ serves; only the probe figures are
 * made up (--probes: every visible volume gets a short history and a latency histogram, fixed
 * figures, so the page has charts and Prometheus a histogram).
 *
 *   storpulse-http-test-server --root DIR [--listen ADDR:PORT]... [--probes]
 *       [--max-connections N] [--per-ip N] [--timeout SEC] [--request-timeout SEC]
 *       [--memory BYTES] [--tls-cert FILE --tls-key FILE] [--tls-priorities STRING]
 *       [--auth-user U --auth-hash HASH]
 *
 * Sockets passed by systemd (socket activation, sd_listen_fds()) are served too. Prints one line
 * "listening ADDR" per socket, then "ready", and serves until SIGTERM/SIGINT. */

#include <errno.h>
#include <getopt.h>
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

int main(int argc, char *argv[]) {
        static const struct option options[] = {
                { "root", required_argument, NULL, 'r' },
                { "listen", required_argument, NULL, 'l' },
                { "probes", no_argument, NULL, 'p' },
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
        HttpServerOptions o = {};
        char *listen[16] = {};
        size_t n_listen = 0;
        const char *root = NULL;
        bool probes = false;
        int fds[16], n_fds, c, r;
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        _cleanup_(http_server_freep) HttpServer *h = NULL;
        _cleanup_(snapshot_unrefp) Snapshot *s = NULL;
        _cleanup_free_ char *error = NULL;
        _cleanup_free_ ReportProbe *rp = NULL;
        _cleanup_free_ ReportSample *hist = NULL;
        static LatencyHistogram lat[_PROBE_PHASE_MAX];
        static const ReportBaseline baseline = {
                .has = true,
                .phases[PROBE_PHASE_SEQUENTIAL] = { .has = true,
                                                    .bytes_per_second = 2.3e8,
                                                    .iops = 230 },
                .phases[PROBE_PHASE_RANDOM] = { .has = true, .iops = 9000, .p99_ns = 250000 },
        };
        ReportEvent events[2];
        ReportInput in = {};
        size_t n_probes = 0;
        usec_t now = now_realtime();
        Volume *v;
        sigset_t mask;

        while ((c = getopt_long(argc, argv, "", options, NULL)) >= 0)
                switch (c) {
                case 'r':
                        root = optarg;
                        break;
                case 'l':
                        if (n_listen + 1 >= ELEMENTSOF(listen))
                                return 2;
                        listen[n_listen++] = optarg;
                        break;
                case 'p':
                        probes = true;
                        break;
                case 'c':
                        o.max_connections = (unsigned) strtoul(optarg, NULL, 10);
                        break;
                case 'i':
                        o.max_connections_per_ip = (unsigned) strtoul(optarg, NULL, 10);
                        break;
                case 't':
                        o.timeout_sec = (unsigned) strtoul(optarg, NULL, 10);
                        break;
                case 'T':
                        o.request_timeout_sec = (unsigned) strtoul(optarg, NULL, 10);
                        break;
                case 'P':
                        o.tls_priorities = optarg;
                        break;
                case 'm':
                        o.connection_memory_bytes = strtoul(optarg, NULL, 10);
                        break;
                case 'C':
                        o.tls_cert_file = optarg;
                        break;
                case 'K':
                        o.tls_key_file = optarg;
                        break;
                case 'u':
                        o.auth_user = optarg;
                        break;
                case 'H':
                        o.auth_hash = optarg;
                        break;
                default:
                        return 2;
                }
        if (!root) {
                fprintf(stderr, "--root is required\n");
                return 2;
        }

        r = inventory_new_for_root(root, &inv);
        if (r >= 0)
                r = inventory_scan(inv);
        if (r < 0) {
                fprintf(stderr, "cannot scan %s: %s\n", root, strerror(-r));
                return 1;
        }

        if (probes) {
                size_t n = inventory_size(inv);
                rp = calloc(n + 1, sizeof(*rp));
                hist = calloc((n + 1) * N_HISTORY, sizeof(*hist));
                if (!rp || !hist)
                        return 1;
                for (int i = 0; i < 200; i++)
                        latency_histogram_add(&lat[PROBE_PHASE_RANDOM], 80000 + (nsec_t) i * 1000);
                for (int i = 0; i < 200; i++)
                        latency_histogram_add(&lat[PROBE_PHASE_RANDOM_DEEP],
                                              900000 + (nsec_t) i * 10000);
                INVENTORY_FOREACH(v, inv) {
                        ReportProbe *p;
                        if (v->hidden)
                                continue;
                        p = &rp[n_probes];
                        p->volume = v->name;
                        p->history = &hist[n_probes * N_HISTORY];
                        p->n_history = N_HISTORY;
                        for (size_t k = 0; k < N_HISTORY; k++) {
                                ReportSample *smp = &hist[n_probes * N_HISTORY + k];
                                *smp = (ReportSample){
                                        .realtime_usec = now - (N_HISTORY - k) * 3600 * 1000000ULL,
                                        .profile = "quick",
                                        .result = REPORT_PROBE_OK,
                                        .duration_usec = 4000000,
                                };
                                smp->phases[PROBE_PHASE_SEQUENTIAL] =
                                        (ReportPhase){ .ran = true,
                                                       .bytes_per_second = 2e8 + k * 1e7,
                                                       .iops = 200 + k * 10,
                                                       .p50_ns = 4000000,
                                                       .p99_ns = 9000000,
                                                       .max_ns = 12000000 };
                                smp->phases[PROBE_PHASE_RANDOM] =
                                        (ReportPhase){ .ran = true,
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
                        if (v->kind == VOLUME_MD)
                                p->baseline = &baseline;
                        p->has_last = true;
                        p->last = p->history[N_HISTORY - 1];
                        p->n_probes = N_HISTORY;
                        p->cpu_usec = 1200000;
                        p->device_usec = 32000000;
                        n_probes++;
                }
        }
        events[0] = (ReportEvent){ .seq = 2,
                                   .realtime_usec = now - 60000000,
                                   .type = "rebuild-started",
                                   .priority = 5,
                                   .volume = "md0",
                                   .message = "md0: recover started" };
        events[1] = (ReportEvent){ .seq = 1,
                                   .realtime_usec = now - 120000000,
                                   .type = "started",
                                   .priority = 6,
                                   .message = "storpulse test server started" };

        in = (ReportInput){
                .inventory = inv,
                .probes = rp,
                .n_probes = n_probes,
                .events = events,
                .n_events = 2,
                .version = "test",
                .now_realtime_usec = now,
                .start_realtime_usec = now - 120000000,
        };
        r = snapshot_build(&in, 1, &s);
        if (r < 0) {
                fprintf(stderr, "snapshot: %s\n", strerror(-r));
                return 1;
        }

        n_fds = sd_listen_fds(true);
        for (int i = 0; i < n_fds && i < (int) ELEMENTSOF(fds); i++)
                fds[i] = SD_LISTEN_FDS_START + i;
        o.fds = fds;
        o.n_fds = n_fds > 0 ? (size_t) n_fds : 0;
        o.listen = n_listen > 0 ? listen : NULL;

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
        http_server_set_snapshot(h, s);
        for (size_t i = 0; i < http_server_n_listen(h); i++) {
                char a[128];
                if (http_server_listen_address(h, i, a, sizeof(a)) >= 0)
                        printf("listening %s\n", a);
        }
        printf("ready\n");
        fflush(stdout);
        (void) sigwait(&mask, &c);
        return 0;
}

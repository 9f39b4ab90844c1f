/* SPDX-License-Identifier: MIT */
/* `storpulsectl probe [OPTIONS] PATH...`: a one-shot read-only probe of block devices or regular
 * files, no daemon needed. Each target is probed in a child process (probe-runner), one after
 * the other, so a hung device ends as "stalled" after --timeout instead of hanging the command.
 * Output: a table (like the classic benchmark tables) or, with --json, one JSON object per line
 * per target. Exit code: the most severe over all targets, 1 (usage) > 3 (I/O errors or a
 * stall) > 2 (a target could not be probed) > 0. This is an edge: it logs, modules below do not.
 *
 * JSON per target (one line): path, state (ok | error | stalled | unusable | usage), error (text,
 * when unusable/usage/stalled without a result), kind (block | file), size_bytes,
 * logical_block_size; for each phase sequential / random / random_deep (null when it did not
 * run): state, block_size, queue_depth, ios, bytes, seconds, bytes_per_second, iops, errors,
 * short_reads, retries, latency_seconds {p50, p90, p99, p999, min, max, mean}; then errors,
 * error_offsets [{offset, error}] (first 16), cpu_seconds, cpu_user_seconds,
 * cpu_system_seconds, cpu_percent, seconds. Latency is per read, submit to reap (fio's "lat"). */

#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ctl/ctl.h"
#include "basic/format-util.h"
#include "basic/parse-util.h"
#include "probe/probe-runner.h"

static inline void json_object_putp(json_object **j) {
        if (*j)
                (void) json_object_put(*j);
}

enum {
        EXIT_OK = 0,
        EXIT_USAGE = 1,
        EXIT_UNUSABLE = 2,
        EXIT_IO_ERRORS = 3,
};

typedef struct ProbeCli {
        ProbeParams params;
        bool json;
        bool progress;
        bool header_printed;
        const char *current;
        ProcessReaper *reaper;
        int sysfs_fd; /* /sys, for a regular file's backing device block size; -EBADF if none */
} ProbeCli;

static int rank(int code) {
        switch (code) {
        case EXIT_USAGE:
                return 3;
        case EXIT_IO_ERRORS:
                return 2;
        case EXIT_UNUSABLE:
                return 1;
        default:
                return 0;
        }
}

static int worse(int a, int b) {
        return rank(b) > rank(a) ? b : a;
}

static void help(FILE *f) {
        fprintf(f,
                "Usage: storpulsectl probe [OPTIONS] PATH...\n\n"
                "Measure block devices or regular files with read-only direct I/O "
                "(O_RDONLY|O_DIRECT,\n"
                "libaio; nothing is ever written): a sequential read from a random aligned start\n"
                "(bytes/s), then random reads at two queue depths (IOPS, latency percentiles).\n\n"
                "Options:\n"
                "  --seq-bytes=SIZE          bytes to read sequentially (default 64M; 0 skips)\n"
                "  --block-size=SIZE         sequential read size (default 1M)\n"
                "  --queue-depth=N           sequential reads in flight (default 4)\n"
                "  --rand-block-size=SIZE    random read size (default 4K)\n"
                "  --rand-queue-depth=N[,M]  random queue depths (default 1,32: a QD1 run for\n"
                "                            latency, then a deeper one; one value: one run)\n"
                "  --rand-seconds=TIME       duration of each random run (default 2s; 0 skips)\n"
                "  --rand-count=N            reads per random run instead of a duration\n"
                "  --timeout=TIME            give up on a target after this long; it then counts "
                "as\n"
                "                            stalled (default 30s + twice --rand-seconds)\n"
                "  --seed=N                  seed for offsets (default: random)\n"
                "  --idle                    probe at nice 19 and I/O priority class idle\n"
                "  --json                    one JSON object per target and line\n"
                "  --no-progress             no progress line (shown only when stderr is a tty)\n"
                "  -h --help                 show this help\n\n"
                "SIZE takes K/M/G/T suffixes (base 1024); TIME takes s/ms/us/min (default s).\n"
                "Block sizes must be multiples of each target's logical block size; queue depths\n"
                "1..1024, block sizes up to 1G.\n\n"
                "Exit status: 0 all targets probed without errors; 1 usage error (bad option, or "
                "a\n"
                "block size a target cannot use); 2 a target cannot be probed (missing, not a "
                "block\n"
                "device or regular file, too small, permission denied, no O_DIRECT support);\n"
                "3 I/O errors were seen or a probe stalled (did not finish within --timeout).\n"
                "With several targets the most severe wins: 1, then 3, then 2.\n");
}

static int usage_error(const char *option, const char *value, const char *why) {
        fprintf(stderr, "storpulsectl probe: invalid %s '%s': %s\n", option, value, why);
        return -EINVAL;
}

static int parse_unsigned_opt(const char *option, const char *s, unsigned *ret) {
        unsigned v;

        if (safe_atou(s, &v) < 0)
                return usage_error(option, s, "not a number");
        *ret = v;
        return 0;
}

static int parse_size_opt(const char *option, const char *s, uint64_t *ret) {
        uint64_t v;

        if (parse_size(s, &v) < 0)
                return usage_error(option, s, "not a size (e.g. 4K, 1M)");
        *ret = v;
        return 0;
}

static int parse_block_size_opt(const char *option, const char *s, uint32_t *ret) {
        uint64_t v;
        int r;

        r = parse_size_opt(option, s, &v);
        if (r < 0)
                return r;
        if (v == 0 || v > PROBE_BLOCK_SIZE_MAX || v % 512 != 0)
                return usage_error(option, s, "must be a multiple of 512 between 512 and 1G");
        *ret = (uint32_t) v;
        return 0;
}

static int parse_depth_opt(const char *option, const char *s, unsigned *ret) {
        unsigned v;
        int r;

        r = parse_unsigned_opt(option, s, &v);
        if (r < 0)
                return r;
        if (v == 0 || v > PROBE_QUEUE_DEPTH_MAX)
                return usage_error(option, s, "queue depth must be between 1 and 1024");
        *ret = v;
        return 0;
}

static int parse_sec_opt(const char *option, const char *s, usec_t *ret) {
        uint64_t v;

        if (parse_sec(s, &v) < 0)
                return usage_error(option, s, "not a duration (e.g. 2, 500ms, 1min)");
        if (v > PROBE_DURATION_MAX_USEC)
                return usage_error(option, s, "longer than 24 hours");
        *ret = v;
        return 0;
}

static uint64_t random_seed(void) {
        uint64_t seed = 0;
        _cleanup_close_ int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

        if (fd < 0 || read(fd, &seed, sizeof(seed)) != (ssize_t) sizeof(seed))
                seed = now_nsec(CLOCK_MONOTONIC) ^ ((uint64_t) getpid() << 32);
        return seed;
}

static int parse_argv(int argc, char **argv, ProbeCli *cli) {
        enum {
                ARG_SEQ_BYTES = 0x100,
                ARG_BLOCK_SIZE,
                ARG_QUEUE_DEPTH,
                ARG_RAND_BLOCK_SIZE,
                ARG_RAND_QUEUE_DEPTH,
                ARG_RAND_SECONDS,
                ARG_RAND_COUNT,
                ARG_TIMEOUT,
                ARG_SEED,
                ARG_JSON,
                ARG_NO_PROGRESS,
                ARG_IDLE,
        };
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "seq-bytes", required_argument, NULL, ARG_SEQ_BYTES },
                { "block-size", required_argument, NULL, ARG_BLOCK_SIZE },
                { "queue-depth", required_argument, NULL, ARG_QUEUE_DEPTH },
                { "rand-block-size", required_argument, NULL, ARG_RAND_BLOCK_SIZE },
                { "rand-queue-depth", required_argument, NULL, ARG_RAND_QUEUE_DEPTH },
                { "rand-seconds", required_argument, NULL, ARG_RAND_SECONDS },
                { "rand-count", required_argument, NULL, ARG_RAND_COUNT },
                { "timeout", required_argument, NULL, ARG_TIMEOUT },
                { "seed", required_argument, NULL, ARG_SEED },
                { "json", no_argument, NULL, ARG_JSON },
                { "no-progress", no_argument, NULL, ARG_NO_PROGRESS },
                { "idle", no_argument, NULL, ARG_IDLE },
                {},
        };
        ProbeParams *p = &cli->params;
        bool seed_set = false, rand_off = false, timeout_set = false;
        int c, r;

        optind = 0;
        opterr = 0;
        while ((c = getopt_long(argc, argv, ":h", options, NULL)) >= 0) {
                switch (c) {
                case 'h':
                        help(stdout);
                        return 0;
                case ARG_SEQ_BYTES:
                        r = parse_size_opt("--seq-bytes", optarg, &p->seq_bytes);
                        if (r < 0)
                                return r;
                        if (p->seq_bytes > PROBE_SEQ_BYTES_MAX)
                                return usage_error("--seq-bytes", optarg, "larger than 1P");
                        break;
                case ARG_BLOCK_SIZE:
                        r = parse_block_size_opt("--block-size", optarg, &p->seq_block_size);
                        if (r < 0)
                                return r;
                        break;
                case ARG_QUEUE_DEPTH:
                        r = parse_depth_opt("--queue-depth", optarg, &p->seq_queue_depth);
                        if (r < 0)
                                return r;
                        break;
                case ARG_RAND_BLOCK_SIZE:
                        r = parse_block_size_opt("--rand-block-size", optarg, &p->rand_block_size);
                        if (r < 0)
                                return r;
                        break;
                case ARG_RAND_QUEUE_DEPTH: {
                        _cleanup_free_ char *copy = strdup(optarg);
                        char *comma;

                        if (!copy)
                                return -ENOMEM;
                        comma = strchr(copy, ',');
                        if (comma)
                                *comma = '\0';
                        r = parse_depth_opt("--rand-queue-depth", copy, &p->rand_queue_depth);
                        if (r < 0)
                                return r;
                        p->rand_deep_queue_depth = 0;
                        if (comma) {
                                r = parse_depth_opt("--rand-queue-depth", comma + 1,
                                                    &p->rand_deep_queue_depth);
                                if (r < 0)
                                        return r;
                        }
                        break;
                }
                case ARG_RAND_SECONDS:
                        r = parse_sec_opt("--rand-seconds", optarg, &p->rand_duration_usec);
                        if (r < 0)
                                return r;
                        rand_off = p->rand_duration_usec == 0;
                        break;
                case ARG_RAND_COUNT:
                        if (safe_atou64(optarg, &p->rand_count) < 0)
                                return usage_error("--rand-count", optarg, "not a number");
                        if (p->rand_count > PROBE_SEQ_BYTES_MAX)
                                return usage_error("--rand-count", optarg, "absurdly large");
                        break;
                case ARG_TIMEOUT:
                        r = parse_sec_opt("--timeout", optarg, &p->timeout_usec);
                        if (r < 0)
                                return r;
                        if (p->timeout_usec == 0)
                                return usage_error("--timeout", optarg, "must be positive");
                        timeout_set = true;
                        break;
                case ARG_SEED:
                        if (safe_atou64(optarg, &p->seed) < 0)
                                return usage_error("--seed", optarg, "not a number");
                        seed_set = true;
                        break;
                case ARG_JSON:
                        cli->json = true;
                        break;
                case ARG_NO_PROGRESS:
                        cli->progress = false;
                        break;
                case ARG_IDLE:
                        p->idle_priority = true;
                        break;
                case ':':
                        fprintf(stderr, "storpulsectl probe: option '%s' needs a value\n",
                                argv[optind - 1]);
                        return -EINVAL;
                case '?':
                default:
                        fprintf(stderr, "storpulsectl probe: unknown option '%s'; see --help\n",
                                argv[optind - 1]);
                        return -EINVAL;
                }
        }
        if (!timeout_set && p->rand_count == 0 &&
            p->rand_duration_usec <= PROBE_DURATION_MAX_USEC / 4)
                /* The default leaves 30 s for the sequential part and slack beyond both random
                 * runs, so asking for long random runs does not end them as "stalled". */
                p->timeout_usec = MIN(PROBE_PARAMS_DEFAULT.timeout_usec + 2 * p->rand_duration_usec,
                                      PROBE_DURATION_MAX_USEC);
        if (rand_off && p->rand_count == 0) {
                p->rand_queue_depth = 0;
                p->rand_deep_queue_depth = 0;
        }
        if (p->seq_bytes == 0 && p->rand_queue_depth == 0) {
                fprintf(stderr, "storpulsectl probe: nothing to measure: --seq-bytes=0 and "
                                "--rand-seconds=0\n");
                return -EINVAL;
        }
        if (!seed_set)
                p->seed = random_seed();
        if (optind >= argc) {
                fprintf(stderr, "storpulsectl probe: no PATH given; see --help\n");
                return -EINVAL;
        }
        return 1;
}

/* ---- output ---- */

static void format_ns(char *buf, size_t size, nsec_t ns) {
        if (ns < 10 * NSEC_PER_USEC)
                (void) snprintf(buf, size, "%.2fus", (double) ns / 1e3);
        else if (ns < NSEC_PER_MSEC)
                (void) snprintf(buf, size, "%.1fus", (double) ns / 1e3);
        else if (ns < NSEC_PER_SEC)
                (void) snprintf(buf, size, "%.2fms", (double) ns / 1e6);
        else
                (void) snprintf(buf, size, "%.2fs", (double) ns / 1e9);
}

static double cpu_seconds(const ProbeResult *r) {
        return (double) (r->cpu_user_usec + r->cpu_sys_usec) / 1e6;
}

static double cpu_percent(const ProbeResult *r) {
        return r->elapsed_ns > 0 ? cpu_seconds(r) * 1e9 / (double) r->elapsed_ns * 100.0 : 0;
}

static void print_header(ProbeCli *cli) {
        if (cli->header_printed)
                return;
        cli->header_printed = true;
        printf("%-20s %8s %9s %9s %10s %9s %9s %9s %5s %6s %s\n", "TARGET", "SIZE", "SEQ MB/s",
               "IOPS QD1", "IOPS QDn", "p50", "p99", "MAX", "CPU%", "ERRORS", "STATE");
}

static void print_row(ProbeCli *cli, const char *path, const ProbeRunnerOutcome *o) {
        const ProbeResult *r = &o->result;
        const ProbePhaseResult *seq = &r->phases[PROBE_PHASE_SEQUENTIAL],
                               *rnd = &r->phases[PROBE_PHASE_RANDOM],
                               *deep = &r->phases[PROBE_PHASE_RANDOM_DEEP];
        char size[16], mbs[16] = "-", qd1[16] = "-", qdn[24] = "-", p50[16] = "-", p99[16] = "-",
                       max[16] = "-";

        print_header(cli);
        format_bytes(size, sizeof(size), o->info.size_bytes);
        if (seq->ran)
                (void) snprintf(mbs, sizeof(mbs), "%.1f", probe_phase_bytes_per_second(seq) / 1e6);
        if (rnd->ran) {
                (void) snprintf(qd1, sizeof(qd1), "%.0f", probe_phase_iops(rnd));
                if (rnd->latency.count > 0) {
                        format_ns(p50, sizeof(p50),
                                  latency_histogram_percentile(&rnd->latency, 50));
                        format_ns(p99, sizeof(p99),
                                  latency_histogram_percentile(&rnd->latency, 99));
                        format_ns(max, sizeof(max), rnd->latency.max_ns);
                }
        }
        if (deep->ran)
                (void) snprintf(qdn, sizeof(qdn), "%.0f@%u", probe_phase_iops(deep),
                                deep->queue_depth);
        printf("%-20s %8s %9s %9s %10s %9s %9s %9s %5.1f %6" PRIu64 " %s\n", path, size, mbs, qd1,
               qdn, p50, p99, max, cpu_percent(r), r->errors, probe_state_to_string(r->state));
}

static json_object *json_latency(const LatencyHistogram *h) {
        json_object *o = json_object_new_object();
        static const struct {
                const char *name;
                double p;
        } pct[] = { { "p50", 50 }, { "p90", 90 }, { "p99", 99 }, { "p999", 99.9 } };

        for (size_t i = 0; i < ELEMENTSOF(pct); i++)
                json_object_object_add(
                        o, pct[i].name,
                        json_object_new_double((double) latency_histogram_percentile(h, pct[i].p) /
                                               1e9));
        json_object_object_add(o, "min",
                               json_object_new_double(h->count ? (double) h->min_ns / 1e9 : 0));
        json_object_object_add(o, "max",
                               json_object_new_double(h->count ? (double) h->max_ns / 1e9 : 0));
        json_object_object_add(o, "mean",
                               json_object_new_double(latency_histogram_mean_ns(h) / 1e9));
        return o;
}

static json_object *json_phase(const ProbePhaseResult *ph) {
        json_object *o;

        if (!ph->ran)
                return NULL;
        o = json_object_new_object();
        json_object_object_add(o, "state",
                               json_object_new_string(probe_state_to_string(ph->state)));
        json_object_object_add(o, "block_size", json_object_new_int64(ph->block_size));
        json_object_object_add(o, "queue_depth", json_object_new_int64(ph->queue_depth));
        json_object_object_add(o, "ios", json_object_new_int64((int64_t) ph->ios));
        json_object_object_add(o, "bytes", json_object_new_int64((int64_t) ph->bytes));
        json_object_object_add(o, "seconds", json_object_new_double((double) ph->elapsed_ns / 1e9));
        json_object_object_add(o, "bytes_per_second",
                               json_object_new_double(probe_phase_bytes_per_second(ph)));
        json_object_object_add(o, "iops", json_object_new_double(probe_phase_iops(ph)));
        json_object_object_add(o, "errors", json_object_new_int64((int64_t) ph->errors));
        json_object_object_add(o, "short_reads", json_object_new_int64((int64_t) ph->short_reads));
        json_object_object_add(o, "retries", json_object_new_int64((int64_t) ph->retries));
        json_object_object_add(o, "latency_seconds", json_latency(&ph->latency));
        return o;
}

static void print_json(const char *path, const ProbeRunnerOutcome *o, const char *state,
                       const char *error) {
        _cleanup_(json_object_putp) json_object *j = json_object_new_object();
        const ProbeResult *r = &o->result;
        json_object *offsets;

        json_object_object_add(j, "path", json_object_new_string(path));
        json_object_object_add(j, "state", json_object_new_string(state));
        if (error)
                json_object_object_add(j, "error", json_object_new_string(error));
        if (o->have_info) {
                json_object_object_add(
                        j, "kind",
                        json_object_new_string(probe_target_kind_to_string(o->info.kind)));
                json_object_object_add(j, "size_bytes",
                                       json_object_new_int64((int64_t) o->info.size_bytes));
                json_object_object_add(j, "logical_block_size",
                                       json_object_new_int64(o->info.logical_block_size));
        }
        if (o->status == PROBE_RUNNER_DONE) {
                for (ProbePhase ph = 0; ph < _PROBE_PHASE_MAX; ph++)
                        json_object_object_add(j, probe_phase_to_string(ph),
                                               json_phase(&r->phases[ph]));
                json_object_object_add(j, "errors", json_object_new_int64((int64_t) r->errors));
                offsets = json_object_new_array();
                for (unsigned i = 0; i < r->n_error_offsets; i++) {
                        json_object *e = json_object_new_object();

                        json_object_object_add(
                                e, "offset", json_object_new_int64((int64_t) r->error_offsets[i]));
                        json_object_object_add(
                                e, "error",
                                json_object_new_string(r->error_codes[i] == 0
                                                               ? "short read"
                                                               : strerror(-r->error_codes[i])));
                        json_object_array_add(offsets, e);
                }
                json_object_object_add(j, "error_offsets", offsets);
                json_object_object_add(j, "cpu_seconds", json_object_new_double(cpu_seconds(r)));
                json_object_object_add(j, "cpu_user_seconds",
                                       json_object_new_double((double) r->cpu_user_usec / 1e6));
                json_object_object_add(j, "cpu_system_seconds",
                                       json_object_new_double((double) r->cpu_sys_usec / 1e6));
                json_object_object_add(j, "cpu_percent", json_object_new_double(cpu_percent(r)));
                json_object_object_add(j, "seconds",
                                       json_object_new_double((double) r->elapsed_ns / 1e9));
        } else
                json_object_object_add(j, "errors", json_object_new_int64(0));
        puts(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN |
                                                       JSON_C_TO_STRING_NOSLASHESCAPE));
        fflush(stdout);
}

static void progress_cb(const ProbeProgress *p, void *userdata) {
        ProbeCli *cli = userdata;

        if (!cli->progress)
                return;
        fprintf(stderr, "\r\033[K%s: %s %3.0f%% (%" PRIu64 " reads, %" PRIu64 " errors)",
                cli->current, probe_phase_to_string(p->phase), p->fraction * 100.0, p->ios,
                p->errors);
        fflush(stderr);
}

static void progress_clear(ProbeCli *cli) {
        if (cli->progress) {
                fputs("\r\033[K", stderr);
                fflush(stderr);
        }
}

static int probe_one(ProbeCli *cli, const char *path) {
        _cleanup_free_ ProbeRunnerOutcome *o = calloc(1, sizeof(*o));
        char buf[256];
        int r;

        if (!o) {
                fprintf(stderr, "storpulsectl probe: out of memory\n");
                return EXIT_UNUSABLE;
        }
        cli->current = path;
        r = probe_runner_run(cli->reaper, path, &cli->params, cli->sysfs_fd, progress_cb, cli, o);
        progress_clear(cli);
        if (r < 0) {
                fprintf(stderr, "storpulsectl probe: %s: cannot start probe: %s\n", path,
                        strerror(-r));
                if (cli->json)
                        print_json(path, o, "unusable", strerror(-r));
                return EXIT_UNUSABLE;
        }

        switch (o->status) {
        case PROBE_RUNNER_UNUSABLE:
                switch (o->error) {
                case -ENOENT:
                case -EISDIR:
                case -ENOTBLK:
                case -ESPIPE:
                case -ENXIO:
                case -EACCES:
                case -EPERM:
                case -EOPNOTSUPP:
                case -ENODATA:
                case -ENOMEDIUM:
                        (void) snprintf(buf, sizeof(buf), "%s", probe_target_strerror(o->error));
                        break;
                default:
                        (void) snprintf(buf, sizeof(buf), "%s: %s", probe_target_strerror(o->error),
                                        strerror(-o->error));
                }
                fprintf(stderr, "storpulsectl probe: %s: cannot probe: %s\n", path, buf);
                if (cli->json)
                        print_json(path, o, "unusable", buf);
                return EXIT_UNUSABLE;
        case PROBE_RUNNER_BAD_PARAM: {
                const char *opt = probe_param_to_string(o->bad_param);
                uint32_t v = o->bad_param == PROBE_PARAM_SEQ_BLOCK_SIZE
                                     ? cli->params.seq_block_size
                                     : cli->params.rand_block_size;

                (void) snprintf(buf, sizeof(buf),
                                "--%s=%" PRIu32
                                " is not a multiple of the logical block size %" PRIu32,
                                opt ? opt : "?", v, o->info.logical_block_size);
                fprintf(stderr, "storpulsectl probe: %s: %s\n", path, buf);
                if (cli->json)
                        print_json(path, o, "usage", buf);
                return EXIT_USAGE;
        }
        case PROBE_RUNNER_STALLED:
                (void) snprintf(buf, sizeof(buf),
                                "probe stalled: no result within the timeout (%.1fs); the probing "
                                "process was killed",
                                (double) (cli->params.timeout_usec + PROBE_RUNNER_GRACE_USEC) /
                                        1e6);
                fprintf(stderr, "storpulsectl probe: %s: %s\n", path, buf);
                if (cli->json)
                        print_json(path, o, "stalled", buf);
                else {
                        print_header(cli);
                        printf("%-20s %8s %9s %9s %10s %9s %9s %9s %5s %6s %s\n", path, "-", "-",
                               "-", "-", "-", "-", "-", "-", "-", "stalled");
                }
                return EXIT_IO_ERRORS;
        case PROBE_RUNNER_FAILED:
                if (o->error == -ECHILD)
                        (void) snprintf(buf, sizeof(buf),
                                        "the probing process died without a result");
                else
                        (void) snprintf(buf, sizeof(buf), "probe failed: %s", strerror(-o->error));
                fprintf(stderr, "storpulsectl probe: %s: %s\n", path, buf);
                if (cli->json)
                        print_json(path, o, "unusable", buf);
                return EXIT_UNUSABLE;
        case PROBE_RUNNER_DONE:
                if (cli->json)
                        print_json(path, o, probe_state_to_string(o->result.state), NULL);
                else
                        print_row(cli, path, o);
                if (o->result.state == PROBE_STATE_STALLED)
                        fprintf(stderr,
                                "storpulsectl probe: %s: probe stalled: did not finish within the "
                                "timeout (%.1fs)\n",
                                path, (double) cli->params.timeout_usec / 1e6);
                if (o->result.errors > 0) {
                        fprintf(stderr, "storpulsectl probe: %s: %" PRIu64 " I/O errors", path,
                                o->result.errors);
                        for (unsigned i = 0; i < o->result.n_error_offsets; i++)
                                fprintf(stderr, "%s offset %" PRIu64 " (%s)", i == 0 ? ":" : ",",
                                        o->result.error_offsets[i],
                                        o->result.error_codes[i] == 0
                                                ? "short read"
                                                : strerror(-o->result.error_codes[i]));
                        fputc('\n', stderr);
                }
                return o->result.state == PROBE_STATE_OK ? EXIT_OK : EXIT_IO_ERRORS;
        case PROBE_RUNNER_RUNNING:
        case _PROBE_RUNNER_STATUS_MAX:
        case _PROBE_RUNNER_STATUS_INVALID:
                break;
        }
        fprintf(stderr, "storpulsectl probe: %s: probe ended without an outcome\n", path);
        return EXIT_UNUSABLE;
}

/* A killed probing process normally dies at once; one stuck in the kernel (I/O to a suspended
 * device does not return) cannot, and a one-shot command must not hang on it: wait briefly,
 * then say what is left behind and exit. The kernel hands it to init, which reaps it once its
 * I/O returns. */
#define LEFT_BEHIND_WAIT_USEC (1 * USEC_PER_SEC)

static void report_left_behind(ProcessReaper *reaper) {
        _cleanup_free_ ProcessReaperEntry *l = NULL;
        usec_t t;
        int n;

        if (process_reaper_settle(reaper, now(CLOCK_MONOTONIC) + LEFT_BEHIND_WAIT_USEC) == 0)
                return;
        t = now(CLOCK_MONOTONIC);
        n = process_reaper_list(reaper, t, &l);
        if (n <= 0)
                return;
        fprintf(stderr,
                "storpulsectl probe: %d killed probing process%s stuck in the kernel, left "
                "behind (%s exit when the device's I/O returns):",
                n, n == 1 ? " is" : "es are", n == 1 ? "it will" : "they will");
        for (int i = 0; i < n; i++)
                fprintf(stderr, "%s pid %d (killed %.1f s ago)", i == 0 ? "" : ",", (int) l[i].pid,
                        (double) l[i].killed_usec / 1e6);
        fputc('\n', stderr);
}

int ctl_probe_main(int argc, char **argv) {
        ProbeCli cli = {
                .params = PROBE_PARAMS_DEFAULT,
                .progress = isatty(STDERR_FILENO) > 0,
                .sysfs_fd = -EBADF,
        };
        ProbeParam badp = _PROBE_PARAM_INVALID;
        int r, code = EXIT_OK;

        r = parse_argv(argc, argv, &cli);
        if (r <= 0)
                return r < 0 ? EXIT_USAGE : EXIT_OK;
        if (probe_params_validate(&cli.params, &badp) < 0) {
                fprintf(stderr,
                        "storpulsectl probe: invalid --%s: out of range (queue depth x block "
                        "size is limited to 1G of buffers); see --help\n",
                        probe_param_to_string(badp) ?: "?");
                return EXIT_USAGE;
        }

        r = process_reaper_new(NULL, NULL, &cli.reaper);
        if (r < 0) {
                fprintf(stderr, "storpulsectl probe: %s\n", strerror(-r));
                return EXIT_UNUSABLE;
        }
        /* Without /sys (a container) a file's block size falls back to st_blksize. */
        cli.sysfs_fd = open("/sys", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (cli.sysfs_fd < 0)
                cli.sysfs_fd = -EBADF;
        for (int i = optind; i < argc; i++)
                code = worse(code, probe_one(&cli, argv[i]));
        report_left_behind(cli.reaper);
        cli.reaper = process_reaper_free(cli.reaper);
        cli.sysfs_fd = safe_close(cli.sysfs_fd);
        return code;
}

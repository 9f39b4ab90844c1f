/* SPDX-License-Identifier: MIT */
/* The options of `storpulsectl probe`: --help, each option checked with the option's name in
 * the message, and the defaults that depend on the others (--timeout, the seed). */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/log.h"
#include "basic/parse-util.h"
#include "basic/time-util.h"
#include "ctl/ctl-probe-internal.h"
#include "ctl/ctl-util.h"
#include "probe/probe-scratch.h"

static void help(FILE *f) {
        fprintf(f,
                "Usage: storpulsectl probe [OPTIONS] PATH...\n\n"
                "Measure block devices or regular files with read-only direct I/O "
                "(O_RDONLY|O_DIRECT,\n"
                "libaio; nothing is ever written): a sequential read from a random aligned start\n"
                "(MiB/s), then random reads at two queue depths (IOPS, latency percentiles).\n\n"
                "Options:\n"
                "  --seq-bytes=SIZE          bytes to read sequentially (default 64M; 0 skips; at\n"
                "                            most the whole target, once)\n"
                "  --block-size=SIZE         sequential read size (default 1M)\n"
                "  --queue-depth=N           sequential reads in flight (default 4)\n"
                "  --rand-block-size=SIZE    random read size (default 4K)\n"
                "  --rand-queue-depth=N[,M]  random queue depths (default 1,32: a QD1 run for\n"
                "                            latency, then a deeper one; one value: one run)\n"
                "  --rand-seconds=TIME       duration of each random run (default 2s; 0 skips)\n"
                "  --rand-count=N            reads per random run instead of a duration\n"
                "  --timeout=TIME            give up on a target after this long; it then counts "
                "as\n"
                "                            stalled (default 30s + twice --rand-seconds); it "
                "must\n"
                "                            hold the random runs\n"
                "  --seed=N                  seed for offsets (default: random)\n"
                "  --idle                    probe at nice 19 and I/O priority class idle\n"
                "  --write                   write instead of reading: each PATH is a directory\n"
                "                            on a mounted filesystem; storpulse creates (once)\n"
                "                            PATH/" PROBE_SCRATCH_NAME " and writes only there\n"
                "                            (sequential, random, random + fdatasync; never a\n"
                "                            device); remove the file to give the space back\n"
                "  --write-size=SIZE         size of that scratch file (default 64M, 1M..1T; it\n"
                "                            must leave 5%% and 16M of the filesystem free)\n"
                "  --json                    one JSON object per target and line\n"
                "  --no-progress             no progress line (shown only when stderr is a tty)\n"
                "  --profile=NAME            ask the running storpulsed to run profile NAME over\n"
                "                            VOLUMEs instead (takes --json, --no-wait, --socket\n"
                "                            PATH, --timeout SEC; see 'storpulsectl probe\n"
                "                            --profile NAME --help')\n"
                "  -v --verbose              debug lines on stderr\n"
                "  -h --help                 show this help\n\n"
                "SIZE: a number with an optional suffix as fio takes them, all powers of 1024:\n"
                "k K KB KiB (and M G T P E alike; 64m = 64M = 64MB = 64MiB = 67108864 bytes).\n"
                "TIME takes s/ms/us/min (default s). Block sizes must be multiples of each "
                "target's\n"
                "logical block size; queue depths 1..1024, block sizes up to 1G. A block size "
                "larger\n"
                "than a small target shrinks to fit, and says so.\n\n"
                "Table: SEQ MiB/s, IOPS per random run (QDn as given), latency percentiles of "
                "the\n"
                "first random run (the column names its queue depth). --json states: ok, error "
                "(some\n"
                "reads failed), stalled (not done within --timeout), unusable (not probed, exit "
                "2),\n"
                "usage (a parameter this target cannot take, exit 1).\n\n"
                "Exit status: 0 all targets probed without errors; 1 usage error (bad option, a\n"
                "--timeout too short for the runs asked, or a block size a target cannot use); 2 "
                "a\n"
                "target cannot be probed (missing, not a block device or regular file, too "
                "small,\n"
                "permission denied, no O_DIRECT support); 3 I/O errors were seen or a probe "
                "stalled\n"
                "(did not finish within --timeout); 5 the output could not be written.\n"
                "With several targets the most severe wins: 1, then 3, then 2.\n");
}

static int usage_error(const char *option, const char *value, const char *why) {
        log_error("invalid %s '%s': %s", option, value, why);
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
                return usage_error(option, s, "not a size (e.g. 4k, 4K, 4KiB, 64m, 1G)");
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
        ARG_WRITE,
        ARG_WRITE_SIZE,
};

/* "--rand-queue-depth=N[,M]" */
static int parse_rand_depths(const char *arg, ProbeParams *p) {
        _cleanup_free_ char *copy = strdup(arg);
        char *comma;
        int r;

        if (!copy)
                return -ENOMEM;
        comma = strchr(copy, ',');
        if (comma)
                *comma = '\0';
        r = parse_depth_opt("--rand-queue-depth", copy, &p->rand_queue_depth);
        if (r < 0)
                return r;
        p->rand_deep_queue_depth = 0;
        if (comma)
                return parse_depth_opt("--rand-queue-depth", comma + 1, &p->rand_deep_queue_depth);
        return 0;
}

/* One option; *seed_set and *rand_off record what finish_params() needs to know. */
static int parse_option(ProbeCli *cli, int c, const char *arg, bool *seed_set, bool *rand_off) {
        ProbeParams *p = &cli->params;
        int r;

        switch (c) {
        case ARG_SEQ_BYTES:
                r = parse_size_opt("--seq-bytes", arg, &p->seq_bytes);
                if (r >= 0 && p->seq_bytes > PROBE_SEQ_BYTES_MAX)
                        return usage_error("--seq-bytes", arg, "larger than 1P");
                return r;
        case ARG_BLOCK_SIZE:
                return parse_block_size_opt("--block-size", arg, &p->seq_block_size);
        case ARG_QUEUE_DEPTH:
                return parse_depth_opt("--queue-depth", arg, &p->seq_queue_depth);
        case ARG_RAND_BLOCK_SIZE:
                return parse_block_size_opt("--rand-block-size", arg, &p->rand_block_size);
        case ARG_RAND_QUEUE_DEPTH:
                return parse_rand_depths(arg, p);
        case ARG_RAND_SECONDS:
                r = parse_sec_opt("--rand-seconds", arg, &p->rand_duration_usec);
                *rand_off = r >= 0 && p->rand_duration_usec == 0;
                return r;
        case ARG_RAND_COUNT:
                if (safe_atou64(arg, &p->rand_count) < 0)
                        return usage_error("--rand-count", arg, "not a number");
                if (p->rand_count > PROBE_SEQ_BYTES_MAX)
                        return usage_error("--rand-count", arg, "absurdly large");
                return 0;
        case ARG_TIMEOUT:
                r = parse_sec_opt("--timeout", arg, &p->timeout_usec);
                if (r >= 0 && p->timeout_usec == 0)
                        return usage_error("--timeout", arg, "must be positive");
                cli->timeout_set = true;
                return r;
        case ARG_SEED:
                if (safe_atou64(arg, &p->seed) < 0)
                        return usage_error("--seed", arg, "not a number");
                *seed_set = true;
                return 0;
        case ARG_JSON:
                cli->json = true;
                return 0;
        case ARG_NO_PROGRESS:
                cli->progress = false;
                return 0;
        case ARG_IDLE:
                p->idle_priority = true;
                return 0;
        case ARG_WRITE:
                p->write = true;
                return 0;
        case ARG_WRITE_SIZE:
                r = parse_size_opt("--write-size", arg, &p->write_file_bytes);
                if (r >= 0 &&
                    (p->write_file_bytes < PROBE_WRITE_FILE_MIN ||
                     p->write_file_bytes > PROBE_WRITE_FILE_MAX || p->write_file_bytes % 4096 != 0))
                        return usage_error("--write-size", arg,
                                           "must be a multiple of 4K between 1M and 1T");
                return r;
        case 'v':
                ctl_set_verbose(true);
                return 0;
        }
        return -EINVAL;
}

static unsigned random_runs(const ProbeParams *p) {
        if (p->write) /* write_random and write_sync */
                return p->rand_queue_depth > 0 ? 2 : 0;
        return (p->rand_queue_depth > 0) + (p->rand_deep_queue_depth > 0);
}

/* Defaults that depend on other options, and what can be refused before touching a target. */
static int finish_params(ProbeCli *cli, bool seed_set, bool rand_off) {
        ProbeParams *p = &cli->params;

        if (!cli->timeout_set && p->rand_count == 0 &&
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
                log_error("nothing to measure: --seq-bytes=0 and --rand-seconds=0");
                return -EINVAL;
        }
        /* Random runs of a fixed duration that cannot fit in the timeout would end as "stalled"
         * on a perfectly healthy disk: that is a usage error, not a finding. */
        if (p->rand_count == 0 &&
            (uint64_t) random_runs(p) * p->rand_duration_usec >= p->timeout_usec) {
                log_error("--timeout=%.1fs cannot hold the random runs (%u x --rand-seconds=%.1fs, "
                          "plus the sequential read); give a longer --timeout or shorter "
                          "--rand-seconds",
                          (double) p->timeout_usec / USEC_PER_SEC, random_runs(p),
                          (double) p->rand_duration_usec / USEC_PER_SEC);
                return -EINVAL;
        }
        if (!seed_set)
                p->seed = random_seed();
        return 0;
}

int ctl_probe_parse_argv(int argc, char **argv, ProbeCli *cli) {
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
                { "write", no_argument, NULL, ARG_WRITE },
                { "write-size", required_argument, NULL, ARG_WRITE_SIZE },
                { "verbose", no_argument, NULL, 'v' },
                {},
        };
        bool seed_set = false, rand_off = false;
        int c, r;

        optind = 0;
        opterr = 0;
        while ((c = getopt_long(argc, argv, ":hv", options, NULL)) >= 0) {
                switch (c) {
                case 'h':
                        help(stdout);
                        return 0;
                case ':':
                        log_error("option '%s' needs a value", argv[optind - 1]);
                        return -EINVAL;
                case '?':
                        log_error("unknown option '%s'; see --help", argv[optind - 1]);
                        return -EINVAL;
                default:
                        r = parse_option(cli, c, optarg, &seed_set, &rand_off);
                        if (r < 0)
                                return r;
                }
        }
        r = finish_params(cli, seed_set, rand_off);
        if (r < 0)
                return r;
        if (optind >= argc) {
                log_error("no PATH given; see --help");
                return -EINVAL;
        }
        return 1;
}

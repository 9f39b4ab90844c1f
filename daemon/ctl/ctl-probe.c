/* SPDX-License-Identifier: MIT */
/* `storpulsectl probe [OPTIONS] PATH...`: a one-shot read-only probe of block devices or regular
 * files, no daemon needed. Each target is probed in a child process (probe-runner), one after
 * the other, so a hung device ends as "stalled" after --timeout instead of hanging the command.
 * Output: a table (like the classic benchmark tables) or, with --json, one JSON object per line
 * per target. Exit code: the most severe over all targets, 1 (usage) > 3 (I/O errors or a
 * stall) > 2 (a target could not be probed) > 0; 5 when the output could not be written. This
 * is an edge: it logs, modules below do not.
 *
 * The table's columns are named after what runs: "IOPS QD1", "IOPS QD32" are the two random
 * runs' queue depths as given, and the latency columns (p50, p99, MAX) say which run they come
 * from (the first random run). Column widths are fixed before the first row from the targets
 * named (paths shown escaped: control characters and bytes that are not UTF-8 as \xNN).
 * Anything that changes what was measured is said, on stderr and in the JSON's "notes": a
 * --seq-bytes beyond the target (read once, whole), a block size shrunk to fit a small target, a
 * sparse file (its holes read as zeros without reaching the disk).
 *
 * JSON per target (one line): path (see ctl-util.h for names that are not UTF-8), state (ok |
 * error | stalled | unusable | usage), error (text, when unusable/usage/stalled without a
 * result), kind (block | file), size_bytes, logical_block_size_bytes, sparse and allocated_bytes
 * (files); for each phase sequential / random / random_deep (null when it did not run): state,
 * block_size_bytes, queue_depth, ios, bytes, duration_seconds, bytes_per_second, iops, errors,
 * short_reads, retries, latency_seconds {p50, p90, p99, p999, min, max, mean}; then errors,
 * error_offsets [{offset, sector, error}] (the first 16; sector = offset / 512, as dmesg and
 * mdadm print them), error_offsets_omitted, notes [text], cpu_seconds, cpu_user_seconds,
 * cpu_system_seconds, cpu_percent, duration_seconds (docs/json.md: units in the name). Latency
 * is per read, submit to reap (fio's "lat"). */

#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "basic/json-util.h"
#include "basic/format-util.h"
#include "basic/log.h"
#include "basic/parse-util.h"
#include "basic/utf8.h"
#include "ctl/ctl-probe-internal.h"
#include "ctl/ctl-util.h"
#include "ctl/ctl.h"
#include "probe/probe-runner.h"
#include "probe/probe-scratch.h"

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

#define NOTES_MAX 4

/* What a run changed about the measurement, said beside its figures. */
typedef struct Notes {
        char text[NOTES_MAX][256];
        unsigned n;
} Notes;

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

/* The path as the table and the messages show it (escaped); "?" on OOM. */
static char *display_path(const char *path) {
        return utf8_escape_display(path) ?: strdup("?");
}

#define NUM_WIDTH 9

/* --write: the write phases' columns (the scratch file's size under SIZE). */
static void print_header_write(const ProbeCli *cli) {
        const ProbeParams *p = &cli->params;
        char label[32];

        if (p->seq_bytes > 0)
                printf(" %*s", NUM_WIDTH, "WR MiB/s");
        if (p->rand_queue_depth > 0) {
                (void) snprintf(label, sizeof(label), "WR IOPS QD%u", p->rand_queue_depth);
                printf(" %*s %*s %*s %*s", NUM_WIDTH + 4, label, NUM_WIDTH + 1, "WR p99",
                       NUM_WIDTH + 1, "SYNC p50", NUM_WIDTH + 1, "SYNC p99");
        }
        printf(" %5s %6s %s\n", "CPU%", "ERRORS", "STATE");
}

static void print_latency_cell(const ProbePhaseResult *x, double pct) {
        char buf[32];
        bool have = x && x->ran && x->latency.count > 0;

        if (have)
                format_ns(buf, sizeof(buf), latency_histogram_percentile(&x->latency, pct));
        printf(" %*s", NUM_WIDTH + 1, have ? buf : "-");
}

static void print_cells_write(const ProbeCli *cli, const ProbeResult *r) {
        const ProbeParams *p = &cli->params;
        const ProbePhaseResult *seq = r ? &r->phases[PROBE_PHASE_WRITE_SEQUENTIAL] : NULL,
                               *rnd = r ? &r->phases[PROBE_PHASE_WRITE_RANDOM] : NULL,
                               *syn = r ? &r->phases[PROBE_PHASE_WRITE_SYNC] : NULL;
        char buf[32];

        if (p->seq_bytes > 0) {
                if (seq && seq->ran)
                        (void) snprintf(buf, sizeof(buf), "%.1f",
                                        bytes_to_mib(probe_phase_bytes_per_second(seq)));
                printf(" %*s", NUM_WIDTH, seq && seq->ran ? buf : "-");
        }
        if (p->rand_queue_depth > 0) {
                if (rnd && rnd->ran)
                        (void) snprintf(buf, sizeof(buf), "%.0f", probe_phase_iops(rnd));
                printf(" %*s", NUM_WIDTH + 4, rnd && rnd->ran ? buf : "-");
                print_latency_cell(rnd, 99);
                print_latency_cell(syn, 50);
                print_latency_cell(syn, 99);
        }
}

static void print_header(ProbeCli *cli) {
        const ProbeParams *p = &cli->params;
        char label[32];

        if (cli->header_printed)
                return;
        cli->header_printed = true;
        printf("%-*s %9s", (int) cli->target_width, "TARGET", "SIZE");
        if (p->write)
                return print_header_write(cli);
        if (p->seq_bytes > 0)
                printf(" %*s", NUM_WIDTH, "SEQ MiB/s");
        if (p->rand_queue_depth > 0) {
                (void) snprintf(label, sizeof(label), "IOPS QD%u", p->rand_queue_depth);
                printf(" %*s", NUM_WIDTH + 2, label);
        }
        if (p->rand_deep_queue_depth > 0) {
                (void) snprintf(label, sizeof(label), "IOPS QD%u", p->rand_deep_queue_depth);
                printf(" %*s", NUM_WIDTH + 2, label);
        }
        if (p->rand_queue_depth > 0) {
                static const char *const lat[] = { "p50", "p99", "MAX" };

                for (size_t i = 0; i < ELEMENTSOF(lat); i++) {
                        (void) snprintf(label, sizeof(label), "%s QD%u", lat[i],
                                        p->rand_queue_depth);
                        printf(" %*s", NUM_WIDTH + 1, label);
                }
        }
        printf(" %5s %6s %s\n", "CPU%", "ERRORS", "STATE");
}

/* One row; r NULL (no result): dashes. */
static void print_row(ProbeCli *cli, const char *path, const ProbeRunnerOutcome *o,
                      const ProbeResult *r, const char *state) {
        const ProbeParams *p = &cli->params;
        _cleanup_free_ char *shown = display_path(path);
        char size[FORMAT_BYTES_MAX] = "-", buf[32];

        print_header(cli);
        if (o->have_info)
                (void) format_bytes(size, sizeof(size), o->info.size_bytes);
        printf("%-*s %9s", (int) cli->target_width, shown, size);
        if (p->write)
                print_cells_write(cli, r);
        if (!p->write && p->seq_bytes > 0) {
                const ProbePhaseResult *seq = r ? &r->phases[PROBE_PHASE_SEQUENTIAL] : NULL;

                if (seq && seq->ran)
                        (void) snprintf(buf, sizeof(buf), "%.1f",
                                        bytes_to_mib(probe_phase_bytes_per_second(seq)));
                printf(" %*s", NUM_WIDTH, seq && seq->ran ? buf : "-");
        }
        for (ProbePhase ph = PROBE_PHASE_RANDOM; !p->write && ph <= PROBE_PHASE_RANDOM_DEEP; ph++) {
                const ProbePhaseResult *x = r ? &r->phases[ph] : NULL;

                if ((ph == PROBE_PHASE_RANDOM ? p->rand_queue_depth : p->rand_deep_queue_depth) ==
                    0)
                        continue;
                if (x && x->ran)
                        (void) snprintf(buf, sizeof(buf), "%.0f", probe_phase_iops(x));
                printf(" %*s", NUM_WIDTH + 2, x && x->ran ? buf : "-");
        }
        if (!p->write && p->rand_queue_depth > 0) {
                const ProbePhaseResult *x = r ? &r->phases[PROBE_PHASE_RANDOM] : NULL;
                bool have = x && x->ran && x->latency.count > 0;
                const nsec_t v[] = {
                        have ? latency_histogram_percentile(&x->latency, 50) : 0,
                        have ? latency_histogram_percentile(&x->latency, 99) : 0,
                        have ? x->latency.max_ns : 0,
                };

                for (size_t i = 0; i < ELEMENTSOF(v); i++) {
                        if (have)
                                format_ns(buf, sizeof(buf), v[i]);
                        printf(" %*s", NUM_WIDTH + 1, have ? buf : "-");
                }
        }
        if (r)
                printf(" %5.1f %6" PRIu64 " %s\n", cpu_percent(r), r->errors, state);
        else
                printf(" %5s %6s %s\n", "-", "-", state);
}

static void _printf_(2, 3) note_add(Notes *n, const char *fmt, ...) {
        va_list ap;

        if (n->n >= NOTES_MAX)
                return;
        va_start(ap, fmt);
        (void) vsnprintf(n->text[n->n++], sizeof(n->text[0]), fmt, ap);
        va_end(ap);
}

/* What this run changed about the measurement (see the top comment). */
static void collect_notes(const ProbeCli *cli, const ProbeRunnerOutcome *o, Notes *n) {
        const ProbeParams *p = &cli->params;
        const ProbeResult *r = &o->result;
        const ProbePhaseResult *seq = &r->phases[PROBE_PHASE_SEQUENTIAL],
                               *rnd = &r->phases[PROBE_PHASE_RANDOM];
        char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX], c[FORMAT_BYTES_MAX];

        *n = (Notes){};
        if (!o->have_info)
                return;
        if (seq->ran && p->seq_bytes > o->info.size_bytes)
                note_add(n,
                         "--seq-bytes=%s is more than the target holds (%s): read it once, whole "
                         "(%s), not again from a cache",
                         format_bytes(a, sizeof(a), p->seq_bytes),
                         format_bytes(b, sizeof(b), o->info.size_bytes),
                         format_bytes(c, sizeof(c), seq->bytes));
        if (seq->ran && seq->block_size < p->seq_block_size)
                note_add(n, "--block-size=%s does not fit the target (%s): reads of %s instead",
                         format_bytes(a, sizeof(a), p->seq_block_size),
                         format_bytes(b, sizeof(b), o->info.size_bytes),
                         format_bytes(c, sizeof(c), seq->block_size));
        if (rnd->ran && rnd->block_size < p->rand_block_size)
                note_add(n,
                         "--rand-block-size=%s does not fit the target (%s): reads of %s instead",
                         format_bytes(a, sizeof(a), p->rand_block_size),
                         format_bytes(b, sizeof(b), o->info.size_bytes),
                         format_bytes(c, sizeof(c), rnd->block_size));
        if (o->info.kind == PROBE_TARGET_FILE && o->info.has_holes)
                note_add(n,
                         "a sparse file (%s of %s allocated): its holes read as zeros without "
                         "reaching the disk, so these figures overstate the disk",
                         format_bytes(a, sizeof(a), o->info.allocated_bytes),
                         format_bytes(b, sizeof(b), o->info.size_bytes));
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
                        json_number_new((double) latency_histogram_percentile(h, pct[i].p) / 1e9));
        json_object_object_add(o, "min", json_number_new(h->count ? (double) h->min_ns / 1e9 : 0));
        json_object_object_add(o, "max", json_number_new(h->count ? (double) h->max_ns / 1e9 : 0));
        json_object_object_add(o, "mean", json_number_new(latency_histogram_mean_ns(h) / 1e9));
        return o;
}

static json_object *json_phase(const ProbePhaseResult *ph) {
        json_object *o;

        if (!ph->ran)
                return NULL;
        o = json_object_new_object();
        json_object_object_add(o, "state",
                               json_object_new_string(probe_state_to_string(ph->state)));
        json_object_object_add(o, "block_size_bytes", json_object_new_int64(ph->block_size));
        json_object_object_add(o, "queue_depth", json_object_new_int64(ph->queue_depth));
        json_object_object_add(o, "ios", json_object_new_int64((int64_t) ph->ios));
        json_object_object_add(o, "bytes", json_object_new_int64((int64_t) ph->bytes));
        json_object_object_add(o, "duration_seconds",
                               json_number_new((double) ph->elapsed_ns / 1e9));
        json_object_object_add(o, "bytes_per_second",
                               json_number_new(probe_phase_bytes_per_second(ph)));
        json_object_object_add(o, "iops", json_number_new(probe_phase_iops(ph)));
        json_object_object_add(o, "errors", json_object_new_int64((int64_t) ph->errors));
        json_object_object_add(o, "short_reads", json_object_new_int64((int64_t) ph->short_reads));
        json_object_object_add(o, "retries", json_object_new_int64((int64_t) ph->retries));
        json_object_object_add(o, "latency_seconds", json_latency(&ph->latency));
        return o;
}

static json_object *json_error_offsets(const ProbeResult *r) {
        json_object *offsets = json_object_new_array();

        for (unsigned i = 0; offsets && i < r->n_error_offsets; i++) {
                json_object *e = json_object_new_object();

                if (!e)
                        break;
                json_object_object_add(e, "offset", json_object_new_uint64(r->error_offsets[i]));
                json_object_object_add(e, "sector",
                                       json_object_new_uint64(r->error_offsets[i] / 512));
                json_object_object_add(
                        e, "error",
                        json_object_new_string(r->error_codes[i] == 0
                                                       ? "short read"
                                                       : strerror(-r->error_codes[i])));
                json_object_array_add(offsets, e);
        }
        return offsets;
}

static void json_add_result(json_object *j, const ProbeResult *r, const Notes *n) {
        json_object *notes = json_object_new_array();

        for (ProbePhase ph = 0; ph < _PROBE_PHASE_MAX; ph++)
                json_object_object_add(j, probe_phase_to_string(ph), json_phase(&r->phases[ph]));
        json_object_object_add(j, "errors", json_object_new_uint64(r->errors));
        json_object_object_add(j, "error_offsets", json_error_offsets(r));
        json_object_object_add(j, "error_offsets_omitted",
                               json_object_new_uint64(r->errors > r->n_error_offsets
                                                              ? r->errors - r->n_error_offsets
                                                              : 0));
        for (unsigned i = 0; notes && n && i < n->n; i++)
                json_object_array_add(notes, json_object_new_string(n->text[i]));
        json_object_object_add(j, "notes", notes);
        json_object_object_add(j, "cpu_seconds", json_number_new(cpu_seconds(r)));
        json_object_object_add(j, "cpu_user_seconds",
                               json_number_new((double) r->cpu_user_usec / 1e6));
        json_object_object_add(j, "cpu_system_seconds",
                               json_number_new((double) r->cpu_sys_usec / 1e6));
        json_object_object_add(j, "cpu_percent", json_number_new(cpu_percent(r)));
        json_object_object_add(j, "cpu_wait_seconds",
                               r->cpu_wait_ns != NSEC_INFINITY
                                       ? json_number_new((double) r->cpu_wait_ns / 1e9)
                                       : NULL);
        json_object_object_add(j, "duration_seconds",
                               json_number_new((double) r->elapsed_ns / 1e9));
}

static void print_json(const char *path, const ProbeRunnerOutcome *o, const char *state,
                       const char *error, const Notes *n) {
        _cleanup_(json_object_putp) json_object *j = json_object_new_object();

        if (!j)
                return;
        json_object_object_add(j, "path", json_object_new_string(path));
        json_object_object_add(j, "state", json_object_new_string(state));
        if (error)
                json_object_object_add(j, "error", json_object_new_string(error));
        if (o->have_info) {
                json_object_object_add(
                        j, "kind",
                        json_object_new_string(probe_target_kind_to_string(o->info.kind)));
                json_object_object_add(j, "size_bytes", json_object_new_uint64(o->info.size_bytes));
                json_object_object_add(j, "logical_block_size_bytes",
                                       json_object_new_int64(o->info.logical_block_size));
                if (o->info.kind != PROBE_TARGET_BLOCK) {
                        json_object_object_add(j, "sparse",
                                               json_object_new_boolean(o->info.has_holes));
                        json_object_object_add(j, "allocated_bytes",
                                               json_object_new_uint64(o->info.allocated_bytes));
                }
        }
        if (o->status == PROBE_RUNNER_DONE)
                json_add_result(j, &o->result, n);
        else
                json_object_object_add(j, "errors", json_object_new_int64(0));
        (void) ctl_json_print(j, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
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

/* "--timeout=34.0s (the default: 30s + twice --rand-seconds)" */
static void format_timeout(const ProbeCli *cli, char *buf, size_t n) {
        (void) snprintf(buf, n, "--timeout=%.1fs%s", (double) cli->params.timeout_usec / 1e6,
                        cli->timeout_set ? "" : " (the default: 30s + twice --rand-seconds)");
}

static int report_unusable(ProbeCli *cli, const char *path, const char *shown,
                           const ProbeRunnerOutcome *o) {
        char buf[256];

        if (cli->params.write) {
                (void) snprintf(buf, sizeof(buf), "%s (%s)", probe_scratch_strerror(o->error),
                                strerror(-o->error));
                log_error("%s: cannot write-probe: %s", shown, buf);
                if (cli->json)
                        print_json(path, o, "unusable", buf, NULL);
                return EXIT_UNUSABLE;
        }
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
        log_error("%s: cannot probe: %s", shown, buf);
        if (cli->json)
                print_json(path, o, "unusable", buf, NULL);
        return EXIT_UNUSABLE;
}

static int report_bad_param(ProbeCli *cli, const char *path, const char *shown,
                            const ProbeRunnerOutcome *o) {
        const char *opt = probe_param_to_string(o->bad_param);
        uint32_t v = o->bad_param == PROBE_PARAM_SEQ_BLOCK_SIZE ? cli->params.seq_block_size
                                                                : cli->params.rand_block_size;
        char buf[256];

        (void) snprintf(buf, sizeof(buf),
                        "--%s=%" PRIu32 " is not a multiple of the logical block size %" PRIu32,
                        opt ? opt : "?", v, o->info.logical_block_size);
        log_error("%s: %s", shown, buf);
        if (cli->json)
                print_json(path, o, "usage", buf, NULL);
        return EXIT_USAGE;
}

static int report_stalled(ProbeCli *cli, const char *path, const char *shown,
                          const ProbeRunnerOutcome *o) {
        char buf[256], t[96];

        format_timeout(cli, t, sizeof(t));
        (void) snprintf(buf, sizeof(buf),
                        "probe stalled: no result within %s; the probing process was killed %.1fs "
                        "after it",
                        t, (double) PROBE_RUNNER_GRACE_USEC / 1e6);
        log_error("%s: %s", shown, buf);
        if (cli->json)
                print_json(path, o, "stalled", buf, NULL);
        else
                print_row(cli, path, o, NULL, "stalled");
        return EXIT_IO_ERRORS;
}

static void report_errors(const char *shown, const ProbeResult *r) {
        char line[2048];
        size_t pos;

        pos = (size_t) snprintf(line, sizeof(line), "%s: %" PRIu64 " I/O error%s", shown, r->errors,
                                r->errors == 1 ? "" : "s");
        for (unsigned i = 0; i < r->n_error_offsets && pos < sizeof(line); i++)
                pos += (size_t) snprintf(
                        line + pos, sizeof(line) - pos,
                        "%s offset %" PRIu64 " (sector %" PRIu64 ", %s)", i == 0 ? ":" : ",",
                        r->error_offsets[i], r->error_offsets[i] / 512,
                        r->error_codes[i] == 0 ? "short read" : strerror(-r->error_codes[i]));
        if (r->errors > r->n_error_offsets && pos < sizeof(line))
                (void) snprintf(line + pos, sizeof(line) - pos, " and %" PRIu64 " more",
                                r->errors - r->n_error_offsets);
        log_error("%s", line);
}

static int report_done(ProbeCli *cli, const char *path, const char *shown,
                       const ProbeRunnerOutcome *o) {
        const ProbeResult *r = &o->result;
        Notes n;

        collect_notes(cli, o, &n);
        for (unsigned i = 0; i < n.n; i++)
                log_notice("%s: note: %s", shown, n.text[i]);
        if (cli->json)
                print_json(path, o, probe_state_to_string(r->state), NULL, &n);
        else
                print_row(cli, path, o, r, probe_state_to_string(r->state));
        if (r->state == PROBE_STATE_STALLED) {
                char t[96];

                format_timeout(cli, t, sizeof(t));
                log_error("%s: probe stalled: did not finish within %s", shown, t);
        }
        if (r->errors > 0)
                report_errors(shown, r);
        return r->state == PROBE_STATE_OK ? EXIT_OK : EXIT_IO_ERRORS;
}

static int probe_one(ProbeCli *cli, const char *path) {
        _cleanup_free_ ProbeRunnerOutcome *o = calloc(1, sizeof(*o));
        _cleanup_free_ char *shown = display_path(path);
        int r;

        if (!o || !shown) {
                log_oom();
                return EXIT_UNUSABLE;
        }
        cli->current = shown;
        r = probe_runner_run(cli->reaper, path, &cli->params, cli->sysfs_fd, progress_cb, cli, o);
        progress_clear(cli);
        if (r < 0) {
                log_error("%s: cannot start probe: %s", shown, strerror(-r));
                if (cli->json)
                        print_json(path, o, "unusable", strerror(-r), NULL);
                return EXIT_UNUSABLE;
        }

        switch (o->status) {
        case PROBE_RUNNER_UNUSABLE:
                return report_unusable(cli, path, shown, o);
        case PROBE_RUNNER_BAD_PARAM:
                return report_bad_param(cli, path, shown, o);
        case PROBE_RUNNER_STALLED:
                return report_stalled(cli, path, shown, o);
        case PROBE_RUNNER_FAILED: {
                char buf[256];

                if (o->error == -ECHILD)
                        (void) snprintf(buf, sizeof(buf),
                                        "the probing process died without a result");
                else
                        (void) snprintf(buf, sizeof(buf), "probe failed: %s", strerror(-o->error));
                log_error("%s: %s", shown, buf);
                if (cli->json)
                        print_json(path, o, "unusable", buf, NULL);
                return EXIT_UNUSABLE;
        }
        case PROBE_RUNNER_DONE:
                return report_done(cli, path, shown, o);
        case PROBE_RUNNER_RUNNING:
        case _PROBE_RUNNER_STATUS_MAX:
        case _PROBE_RUNNER_STATUS_INVALID:
                break;
        }
        log_error("%s: probe ended without an outcome", shown);
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

        ctl_setup_log("probe");
        r = ctl_probe_parse_argv(argc, argv, &cli);
        if (r <= 0)
                return r < 0 ? EXIT_USAGE : EXIT_OK;
        if (probe_params_validate(&cli.params, &badp) < 0) {
                log_error("invalid --%s: out of range (queue depth x block size is limited to 1G "
                          "of buffers); see --help",
                          probe_param_to_string(badp) ?: "?");
                return EXIT_USAGE;
        }
        /* The TARGET column is as wide as the widest name given (escaped as shown). */
        cli.target_width = strlen("TARGET");
        for (int i = optind; i < argc; i++) {
                _cleanup_free_ char *shown = display_path(argv[i]);

                cli.target_width = MAX(cli.target_width, utf8_display_width(shown));
        }

        r = process_reaper_new(NULL, NULL, &cli.reaper);
        if (r < 0) {
                log_error_errno(r, "%m");
                return EXIT_UNUSABLE;
        }
        /* Without /sys (a container) a file's block size falls back to st_blksize. */
        cli.sysfs_fd = open("/sys", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (cli.sysfs_fd < 0)
                cli.sysfs_fd = -EBADF;
        for (int i = optind; i < argc; i++) {
                code = worse(code, probe_one(&cli, argv[i]));
                /* Nobody reads the results (full disk, closed pipe): do not go on measuring;
                 * main() reports the write error (exit 5). */
                if (ctl_stdout_error() < 0)
                        break;
        }
        report_left_behind(cli.reaper);
        cli.reaper = process_reaper_free(cli.reaper);
        cli.sysfs_fd = safe_close(cli.sysfs_fd);
        return code;
}

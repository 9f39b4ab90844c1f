/* SPDX-License-Identifier: MIT */
/* `storpulsectl probe` driven in-process through ctl_probe_main(): option validation (exit 1
 * naming the option), refusals (exit 2), a real probe of a regular file under /var/tmp (exit 0,
 * one JSON object per line with the documented fields). The verb's stdout/stderr go to files so
 * they neither break TAP nor go unchecked. */

#include <fcntl.h>
#include <json-c/json.h>
#include <linux/magic.h>
#include <stdarg.h>
#include <stdbool.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "ctl/ctl.h"
#include "basic/fileio.h"
#include "basic/macro.h"
#include "tap.h"

static char dir[] = "/var/tmp/test-ctl-probe-XXXXXX";
static char out_path[128], err_path[128];

/* Run the verb with argv (NULL-terminated varargs), stdout/stderr captured to files. */
static int run_verb(const char *first, ...) {
        char *argv[32] = { (char *) "probe" };
        int argc = 1, saved_out, saved_err, fd_out, fd_err, r;
        va_list ap;

        va_start(ap, first);
        for (const char *a = first; a && argc < 31; a = va_arg(ap, const char *))
                argv[argc++] = (char *) a;
        va_end(ap);
        argv[argc] = NULL;

        fflush(stdout);
        fflush(stderr);
        fd_out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        fd_err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        saved_out = dup(STDOUT_FILENO);
        saved_err = dup(STDERR_FILENO);
        (void) dup2(fd_out, STDOUT_FILENO);
        (void) dup2(fd_err, STDERR_FILENO);
        r = ctl_probe_main(argc, argv);
        fflush(stdout);
        fflush(stderr);
        (void) dup2(saved_out, STDOUT_FILENO);
        (void) dup2(saved_err, STDERR_FILENO);
        (void) close(saved_out);
        (void) close(saved_err);
        (void) close(fd_out);
        (void) close(fd_err);
        return r;
}

static bool file_contains(const char *path, const char *needle) {
        _cleanup_free_ char *s = NULL;
        size_t n;

        if (read_full_file_at(AT_FDCWD, path, &s, &n) < 0)
                return false;
        return strstr(s, needle) != NULL;
}

static void expect_usage(const char *option, const char *arg, const char *path) {
        is_int(run_verb(arg, path, NULL), 1, "%s: exit 1", arg);
        ok(file_contains(err_path, option), "%s: message names %s", arg, option);
}

static char *read_text(const char *path) {
        char *s = NULL;
        size_t n;

        return read_full_file_at(AT_FDCWD, path, &s, &n) >= 0 ? s : NULL;
}

static json_object *jget(json_object *o, const char *key) {
        json_object *v = NULL;

        return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* Column at which `word` starts in line number `line` (0 = header) of text, or -1. */
static int column_of(const char *text, unsigned line, const char *word) {
        const char *l = text, *hit, *nl;

        for (unsigned i = 0; l && i < line; i++)
                l = (nl = strchr(l, '\n')) ? nl + 1 : NULL;
        if (!l)
                return -1;
        nl = strchrnul(l, '\n');
        hit = strstr(l, word);
        return hit && hit < nl ? (int) (hit - l) : -1;
}

/* The table's columns come from what ran, the latency columns say which run, and long or odd
 * names do not shift the columns. */
static void test_table(const char *file) {
        _cleanup_free_ char *text = NULL;
        char odd[256], longp[512], cmd[1600];

        is_int(run_verb("--seq-bytes=0", "--rand-queue-depth=32", "--rand-count=200", file, NULL),
               0, "QD32 only: exit 0");
        text = read_text(out_path);
        ok(text && strstr(text, "IOPS QD32") && !strstr(text, "QD1 "),
           "QD32 only: the IOPS column says QD32, nothing says QD1");
        ok(text && strstr(text, "p50 QD32") && strstr(text, "p99 QD32") && strstr(text, "MAX QD32"),
           "latency columns name the run they come from");
        ok(text && !strstr(text, "SEQ"), "no sequential column when it did not run");
        text = mfree(text);

        is_int(run_verb("--seq-bytes=1M", "--rand-count=100", "--rand-queue-depth=1,8", file, NULL),
               0, "QD1,8: exit 0");
        text = read_text(out_path);
        ok(text && strstr(text, "SEQ MiB/s") && strstr(text, "IOPS QD1") &&
                   strstr(text, "IOPS QD8") && strstr(text, "p50 QD1"),
           "QD1,8: columns SEQ MiB/s, IOPS QD1, IOPS QD8, latency of QD1");
        text = mfree(text);

        /* a long name and one with a newline, a tab and a byte that is not UTF-8 */
        (void) snprintf(longp, sizeof(longp),
                        "%s/a-very-long-name-like-dev-disk-by-id-nvme-"
                        "SAMSUNG_MZQL2960HCJR-00A07_S64FNE0R123456-part1",
                        dir);
        (void) snprintf(odd, sizeof(odd), "%s/odd\nna\tme\xff", dir);
        (void) snprintf(cmd, sizeof(cmd), "cp '%s' '%s' && cp '%s' '%s'", file, longp, file, odd);
        is_int(system(cmd), 0, "copies with a long and an odd name");
        is_int(run_verb("--seq-bytes=1M", "--rand-count=50", file, longp, odd, NULL), 0,
               "three targets: exit 0");
        text = read_text(out_path);
        {
                int st0 = text ? column_of(text, 0, "STATE") : -1;

                ok(st0 > 0 && column_of(text, 1, " ok") + 1 == st0 &&
                           column_of(text, 2, " ok") + 1 == st0 &&
                           column_of(text, 3, " ok") + 1 == st0,
                   "STATE lines up on every row (header at %d)", st0);
                ok(text && strstr(text, "odd\\x0ana\\x09me\\xff") && !strstr(text, "odd\n"),
                   "control characters and non-UTF-8 bytes are shown escaped, on one line");
        }
        text = mfree(text);

        is_int(run_verb("--json", "--seq-bytes=1M", "--rand-count=50", odd, NULL), 0,
               "odd name --json: exit 0");
        text = read_text(out_path);
        {
                json_object *j = text ? json_tokener_parse(text) : NULL;
                const char *hex = json_object_get_string(jget(j, "path_hex"));
                char want[512] = "";

                for (size_t i = 0; odd[i] && 2 * i + 3 < sizeof(want); i++)
                        (void) snprintf(want + 2 * i, 3, "%02x", (unsigned char) odd[i]);
                ok(j != NULL, "odd name: the JSON parses");
                ok(json_object_get_string(jget(j, "path")) &&
                           strstr(json_object_get_string(jget(j, "path")), "me\xef\xbf\xbd"),
                   "odd name: the bad byte is U+FFFD in path");
                ok(hex && strcmp(hex, want) == 0, "odd name: path_hex has the exact bytes");
                json_object_put(j);
        }
        text = mfree(text);
        (void) snprintf(cmd, sizeof(cmd), "rm -f '%s' '%s'", longp, odd);
        (void) system(cmd);
}

/* What changes the measurement is said: --seq-bytes beyond the target, a shrunk block size, a
 * sparse file. */
static void test_notes(void) {
        _cleanup_free_ char *text = NULL;
        char small[200], sparse[200], cmd[1024];

        (void) snprintf(small, sizeof(small), "%s/small", dir);
        (void) snprintf(sparse, sizeof(sparse), "%s/sparse", dir);
        (void) snprintf(cmd, sizeof(cmd),
                        "head -c 65536 /dev/urandom > '%s' && truncate -s 8M '%s' && "
                        "head -c 1048576 /dev/urandom | dd of='%s' conv=notrunc status=none",
                        small, sparse, sparse);
        is_int(system(cmd), 0, "a 64 KiB file and an 8 MiB file with 1 MiB written");

        is_int(run_verb("--json", "--seq-bytes=1G", "--rand-count=20", small, NULL), 0,
               "--seq-bytes=1G of 64 KiB: exit 0");
        text = read_text(out_path);
        {
                json_object *j = text ? json_tokener_parse(text) : NULL;
                json_object *seq = jget(j, "sequential"), *notes = jget(j, "notes");

                is_int(json_object_get_int64(jget(seq, "bytes")), 65536,
                       "--seq-bytes clamped: the target read once, 64 KiB");
                ok(notes && json_object_array_length(notes) >= 1 &&
                           strstr(json_object_get_string(json_object_array_get_idx(notes, 0)),
                                  "--seq-bytes=1.0GiB is more than the target holds (64.0KiB)"),
                   "the JSON's notes say so");
                ok(file_contains(err_path, "storpulsectl probe: ") &&
                           file_contains(err_path, "note: --seq-bytes=1.0GiB"),
                   "stderr says so");
                ok(file_contains(err_path, "note: --block-size=1.0MiB does not fit the target "
                                           "(64.0KiB): reads of 64.0KiB instead"),
                   "the shrunk block size is said");
                ok(json_object_get_boolean(jget(j, "sparse")) == false,
                   "a dense file: sparse false");
                json_object_put(j);
        }
        text = mfree(text);

        is_int(run_verb("--json", "--seq-bytes=1M", "--rand-count=20", sparse, NULL), 0,
               "sparse file: exit 0");
        text = read_text(out_path);
        {
                json_object *j = text ? json_tokener_parse(text) : NULL;

                ok(json_object_get_boolean(jget(j, "sparse")), "sparse file: sparse true");
                ok(json_object_get_int64(jget(j, "allocated_bytes")) < 8 * 1024 * 1024,
                   "sparse file: allocated_bytes below the size");
                ok(file_contains(err_path, "a sparse file") &&
                           file_contains(err_path, "holes read as zeros"),
                   "sparse file: stderr says it read holes");
                json_object_put(j);
        }
        text = mfree(text);

        /* random runs that cannot fit the timeout: usage, before anything runs */
        is_int(run_verb("--rand-seconds=5", "--timeout=8", small, NULL), 1,
               "2 x 5 s random runs in an 8 s timeout: exit 1");
        ok(file_contains(err_path, "--timeout=8.0s cannot hold the random runs"),
           "the message names --timeout");
        is_int(run_verb("--seq-bytes=64m", "--rand-count=10", small, NULL), 0, "--seq-bytes=64m");
        is_int(run_verb("--seq-bytes=64MB", "--rand-count=10", small, NULL), 0, "--seq-bytes=64MB");
        is_int(run_verb("--block-size=4KiB", "--rand-count=10", small, NULL), 0,
               "--block-size=4KiB");
}

static int skip_all(const char *reason) {
        (void) tap_skip_all(reason); /* exit 0: meson's TAP protocol counts 77 as an error */
        return 0;
}

static void test_help(void) {
        is_int(run_verb("--help", NULL), 0, "--help: exit 0");
        ok(file_contains(out_path, "--rand-queue-depth"), "--help lists the options");
        ok(file_contains(out_path, "Exit status"), "--help documents the exit status");
}

/* option validation: a bad value, nothing to measure, no PATH or a missing value exit 1 naming
 * the option; one kind of run alone is fine */
static void test_usage(const char *file) {
        expect_usage("--queue-depth", "--queue-depth=0", file);
        expect_usage("--queue-depth", "--queue-depth=1025", file);
        expect_usage("--block-size", "--block-size=1000", file);
        expect_usage("--block-size", "--block-size=2G", file);
        expect_usage("--rand-block-size", "--rand-block-size=3", file);
        expect_usage("--rand-queue-depth", "--rand-queue-depth=0", file);
        expect_usage("--rand-queue-depth", "--rand-queue-depth=1,x", file);
        expect_usage("--rand-seconds", "--rand-seconds=soon", file);
        expect_usage("--timeout", "--timeout=0", file);
        expect_usage("--seq-bytes", "--seq-bytes=-5", file);
        expect_usage("--seed", "--seed=abc", file);
        expect_usage("--nope", "--nope", file);
        is_int(run_verb("--seq-bytes=0", "--rand-seconds=0", file, NULL), 1,
               "nothing to measure: exit 1");
        ok(file_contains(err_path, "--seq-bytes") && file_contains(err_path, "--rand-seconds"),
           "nothing to measure: names both options");
        is_int(run_verb("--seq-bytes=0", "--rand-count=20", "--rand-queue-depth=2", file, NULL), 0,
               "random only: exit 0");
        is_int(run_verb("--rand-seconds=0", "--seq-bytes=1M", file, NULL), 0,
               "sequential only: exit 0");
        ok(file_contains(out_path, "SEQ MiB/s"), "sequential only: table printed");
        is_int(run_verb("--json", NULL), 1, "no PATH: exit 1");
        ok(file_contains(err_path, "PATH"), "no PATH: says so");
        is_int(run_verb("--block-size", NULL), 1, "missing value: exit 1");
}

/* what cannot be probed: exit 2 naming the path and the reason */
static void test_refusals(void) {
        is_int(run_verb("/nonexistent/x", NULL), 2, "nonexistent: exit 2");
        ok(file_contains(err_path, "/nonexistent/x") && file_contains(err_path, "does not exist"),
           "nonexistent: names path and reason");
        is_int(run_verb(dir, NULL), 2, "directory: exit 2");
        ok(file_contains(err_path, "directory"), "directory: reason");
}

/* a real probe of a regular file: one JSON object, one line, with the documented fields */
static void test_regular_file(const char *file) {
        _cleanup_free_ char *json = NULL;
        size_t n;

        is_int(run_verb("--json", "--seq-bytes=1M", "--rand-count=100", "--rand-queue-depth=1,4",
                        file, NULL),
               0, "regular file: exit 0");
        is_int(read_full_file_at(AT_FDCWD, out_path, &json, &n), 0, "regular file: output read");
        if (json) {
                json_object *j = json_tokener_parse(json), *v, *w;

                ok(j != NULL, "regular file: output is JSON");
                ok(j && json_object_object_get_ex(j, "path", &v) &&
                           strcmp(json_object_get_string(v), file) == 0,
                   "regular file: path");
                ok(j && json_object_object_get_ex(j, "sequential", &v) &&
                           json_object_object_get_ex(v, "bytes_per_second", &w) &&
                           json_object_get_double(w) > 0,
                   "regular file: sequential.bytes_per_second > 0");
                ok(j && json_object_object_get_ex(j, "random", &v) &&
                           json_object_object_get_ex(v, "iops", &w) &&
                           json_object_get_double(w) > 0,
                   "regular file: random.iops > 0");
                ok(j && json_object_object_get_ex(j, "random_deep", &v) &&
                           json_object_object_get_ex(v, "queue_depth", &w) &&
                           json_object_get_int(w) == 4,
                   "regular file: random_deep at QD4");
                ok(j && json_object_object_get_ex(j, "random", &v) &&
                           json_object_object_get_ex(v, "latency_seconds", &v) &&
                           json_object_object_get_ex(v, "p999", &w) &&
                           json_object_get_double(w) > 0,
                   "regular file: random.latency_seconds.p999");
                ok(j && json_object_object_get_ex(j, "errors", &v) && json_object_get_int(v) == 0,
                   "regular file: errors 0");
                ok(j && json_object_object_get_ex(j, "cpu_seconds", &v),
                   "regular file: cpu_seconds");
                ok(strchr(json, '\n') == json + n - 1, "regular file: exactly one line");
                json_object_put(j);
        }
}

int main(void) {
        char file[160], cmd[256];
        struct statfs sfs;

        if (statfs("/var/tmp", &sfs) == 0 &&
            (sfs.f_type == TMPFS_MAGIC || sfs.f_type == RAMFS_MAGIC))
                return skip_all("/var/tmp is memory-backed: no O_DIRECT file to test with");
        if (!mkdtemp(dir))
                return skip_all("cannot create a directory under /var/tmp");
        (void) snprintf(out_path, sizeof(out_path), "%s/stdout", dir);
        (void) snprintf(err_path, sizeof(err_path), "%s/stderr", dir);
        (void) snprintf(file, sizeof(file), "%s/data", dir);
        (void) snprintf(cmd, sizeof(cmd), "head -c 4194304 /dev/urandom > '%s'", file);
        is_int(system(cmd), 0, "4 MiB of random data");

        test_help();
        test_usage(file);
        test_refusals();
        test_regular_file(file);
        test_table(file);
        test_notes();

        (void) snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        (void) system(cmd);
        return tap_done();
}

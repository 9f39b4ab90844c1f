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

static int skip_all(const char *reason) {
        (void) tap_skip_all(reason); /* exit 0: meson's TAP protocol counts 77 as an error */
        return 0;
}

int main(void) {
        char file[160], cmd[256];
        struct statfs sfs;
        _cleanup_free_ char *json = NULL;
        size_t n;

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

        is_int(run_verb("--help", NULL), 0, "--help: exit 0");
        ok(file_contains(out_path, "--rand-queue-depth"), "--help lists the options");
        ok(file_contains(out_path, "Exit status"), "--help documents the exit status");

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
        ok(file_contains(out_path, "SEQ MB/s"), "sequential only: table printed");
        is_int(run_verb("--json", NULL), 1, "no PATH: exit 1");
        ok(file_contains(err_path, "PATH"), "no PATH: says so");
        is_int(run_verb("--block-size", NULL), 1, "missing value: exit 1");

        is_int(run_verb("/nonexistent/x", NULL), 2, "nonexistent: exit 2");
        ok(file_contains(err_path, "/nonexistent/x") && file_contains(err_path, "does not exist"),
           "nonexistent: names path and reason");
        is_int(run_verb(dir, NULL), 2, "directory: exit 2");
        ok(file_contains(err_path, "directory"), "directory: reason");

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

        (void) snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        (void) system(cmd);
        return tap_done();
}

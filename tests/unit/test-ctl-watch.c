/* SPDX-License-Identifier: MIT */
/* `storpulsectl watch` end to end on a copy of the md-raid1-idle fixture tree (captured from a
 * real kernel, see its SOURCE): the verb runs in a child process, this process turns the copy into
 * the captured md-raid1-check state, then a check near its end, then idle with mismatches, and
 * checks the JSON lines: check started, progress 10..90 once each, finished with the mismatch
 * count as a warning. The fixture files are regular files, so the verb sees changes through its
 * safety-net interval (the EPOLLPRI path is covered by tests/vm). Also: --timeout before --count
 * exits 4, a bad option exits 1, a missing root exits 2. */

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ctl/ctl.h"
#include "basic/fileio.h"
#include "basic/macro.h"
#include "tap.h"

static char root[] = "/tmp/test-ctl-watch-XXXXXX";
static char out_path[300], err_path[300];

static void put(const char *path, const char *text) {
        _cleanup_close_ int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        if (fd < 0 || write_file_atomic_at(fd, path, text, strlen(text)) < 0) {
                ok(0, "write %s", path);
                exit(1);
        }
}

static void copy_from(const char *fixtures, const char *scenario, const char *path) {
        char src[512];
        _cleanup_free_ char *text = NULL;

        (void) snprintf(src, sizeof(src), "%s/%s/%s", fixtures, scenario, path);
        if (read_full_file_at(AT_FDCWD, src, &text, NULL) < 0) {
                ok(0, "read %s", src);
                exit(1);
        }
        put(path, text);
}

static size_t count_lines(const char *path) {
        _cleanup_free_ char *text = NULL;
        size_t n = 0;

        if (read_full_file_at(AT_FDCWD, path, &text, NULL) < 0)
                return 0;
        for (const char *p = text; *p; p++)
                if (*p == '\n')
                        n++;
        return n;
}

static bool file_contains(const char *path, const char *needle) {
        _cleanup_free_ char *text = NULL;

        return read_full_file_at(AT_FDCWD, path, &text, NULL) >= 0 && strstr(text, needle);
}

static void sleep_ms(long ms) {
        struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

        (void) nanosleep(&ts, NULL);
}

/* Wait (max ~10 s) until the output has `lines` lines. */
static bool wait_lines(size_t lines) {
        for (int i = 0; i < 1000; i++) {
                if (count_lines(out_path) >= lines)
                        return true;
                sleep_ms(10);
        }
        return false;
}

static pid_t spawn(char **argv) {
        pid_t pid = fork();

        if (pid == 0) {
                int o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
                int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
                int argc = 0;

                if (o < 0 || e < 0 || dup2(o, STDOUT_FILENO) < 0 || dup2(e, STDERR_FILENO) < 0)
                        _exit(99);
                while (argv[argc])
                        argc++;
                _exit(ctl_watch_main(argc, argv));
        }
        return pid;
}

static int wait_exit(pid_t pid) {
        int status;

        for (int i = 0; i < 1500; i++) {
                pid_t r = waitpid(pid, &status, WNOHANG);

                if (r == pid)
                        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
                sleep_ms(10);
        }
        (void) kill(pid, SIGKILL);
        (void) waitpid(pid, &status, 0);
        return -1;
}

static const char *jstr(struct json_object *o, const char *key) {
        struct json_object *v;

        if (!json_object_object_get_ex(o, key, &v) || !v)
                return NULL;
        return json_object_get_string(v);
}

/* Replace the tree under root by a fresh copy of the fixture scenario; system()'s status. */
static int reset_root(const char *fixtures, const char *scenario) {
        char cmd[700];

        (void) snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir '%s' && cp -a '%s/%s/.' '%s/'",
                        root, root, fixtures, scenario, root);
        return system(cmd);
}

/* The events of the check sequence, in order: "event:operation:severity". */
static const char *const expect[] = {
        "started:check:info",  "progress:check:info",    "progress:check:info",
        "progress:check:info", "progress:check:info",    "progress:check:info",
        "progress:check:info", "progress:check:info",    "progress:check:info",
        "progress:check:info", "finished:check:warning",
};

/* Start `watch --json --count 11` on the idle copy and take the array through a check: started,
 * every mark 10..90, finished with mismatches. *t_start and *t_end bracket the run. */
static void drive_check_sequence(const char *fixtures, char *root_arg, time_t *t_start,
                                 time_t *t_end) {
        pid_t pid;

        *t_start = time(NULL);
        pid = spawn((char *[]){ (char *) "watch", (char *) "--json", (char *) "--root", root_arg,
                                (char *) "--interval", (char *) "0.05", (char *) "--count",
                                (char *) "11", (char *) "--timeout", (char *) "30",
                                (char *) "--verbose", NULL });
        ok(pid > 0, "spawned watch");
        for (int i = 0; i < 500 && !file_contains(err_path, "md0: watching"); i++)
                sleep_ms(10);
        ok(file_contains(err_path, "md0: watching 6 attributes, 0 event-driven"),
           "md0 watched (regular files: safety net only)");
        sleep_ms(100);
        is_int((int) count_lines(out_path), 0, "idle array: no event");

        /* The captured "check running" state (8.2%). */
        copy_from(fixtures, "md-raid1-check", "sys/class/block/md0/md/sync_completed");
        copy_from(fixtures, "md-raid1-check", "sys/class/block/md0/md/sync_speed");
        copy_from(fixtures, "md-raid1-check", "proc/mdstat");
        copy_from(fixtures, "md-raid1-check", "sys/class/block/md0/md/sync_action");
        ok(wait_lines(1), "check started reported");

        /* Near the end: every mark 10..90 once. */
        put("proc/mdstat",
            "Personalities : [raid1] [raid6] [raid5] [raid4] \n"
            "md0 : active raid1 vdb[2] vda[0]\n"
            "      261120 blocks super 1.2 [2/2] [UU]\n"
            "      [===================>]  check = 99.9% (261000/261120) finish=0.0min "
            "speed=5376K/sec\n"
            "      \n"
            "unused devices: <none>\n");
        put("sys/class/block/md0/md/sync_completed", "491520 / 522240\n");
        ok(wait_lines(10), "progress marks reported");

        /* Done, with mismatches. */
        put("sys/class/block/md0/md/mismatch_cnt", "128\n");
        copy_from(fixtures, "md-raid1-idle", "proc/mdstat");
        copy_from(fixtures, "md-raid1-idle", "sys/class/block/md0/md/sync_completed");
        copy_from(fixtures, "md-raid1-idle", "sys/class/block/md0/md/sync_action");
        is_int(wait_exit(pid), 0, "exit 0 after --count 11 events");
        *t_end = time(NULL);
}

/* The JSON lines of drive_check_sequence(): one per event, in order, with the documented fields. */
static void check_json_lines(time_t t_start, time_t t_end) {
        _cleanup_free_ char *text = NULL;
        size_t line = 0;

        ok(read_full_file_at(AT_FDCWD, out_path, &text, NULL) >= 0, "read output");
        for (char *p = text, *nl; p && *p; p = nl ? nl + 1 : NULL, line++) {
                struct json_object *o, *ts = NULL;
                char got[128];

                nl = strchr(p, '\n');
                if (nl)
                        *nl = 0;
                o = json_tokener_parse(p);
                ok(o != NULL, "line %zu is JSON", line);
                if (!o)
                        continue;
                (void) snprintf(got, sizeof(got), "%s:%s:%s", jstr(o, "event"),
                                jstr(o, "operation"), jstr(o, "severity"));
                is_str(got, line < ELEMENTSOF(expect) ? expect[line] : "(none)", "event %zu", line);
                is_str(jstr(o, "array"), "md0", "line %zu array", line);
                ok(jstr(o, "message"), "line %zu has a message", line);
                /* docs/json.md: a point in time is *_timestamp_seconds, whole seconds since the
                 * epoch (10 digits, so rounded: up to half a second after the event) */
                (void) json_object_object_get_ex(o, "timestamp_seconds", &ts);
                ok(ts && json_object_is_type(ts, json_type_int) &&
                           json_object_get_int64(ts) >= (int64_t) t_start &&
                           json_object_get_int64(ts) <= (int64_t) t_end + 1,
                   "line %zu: timestamp_seconds %s within the run [%lld, %lld]", line,
                   ts ? json_object_to_json_string(ts) : "(none)", (long long) t_start,
                   (long long) t_end);
                ok(!json_object_object_get_ex(o, "time", NULL), "line %zu: no text time", line);
                if (line >= 1 && line <= 9) {
                        struct json_object *pc;

                        ok(json_object_object_get_ex(o, "percent", &pc) &&
                                   json_object_get_int(pc) == (int) line * 10,
                           "progress %zu at %zu%%", line, line * 10);
                }
                if (line == 10)
                        is_str(jstr(o, "mismatch_count"), "128", "finished: mismatch_count 128");
                json_object_put(o);
        }
        is_int((int) line, 11, "exactly 11 lines");
}

/* Text output; an operation already running when watching starts is reported once as
 * "in progress" (reason already-running), from the captured check fixture. */
static void test_text_mode(const char *fixtures, char *root_arg) {
        _cleanup_free_ char *text = NULL;
        pid_t pid;

        is_int(reset_root(fixtures, "md-raid1-check"), 0, "copy the md-raid1-check fixture");
        pid = spawn((char *[]){ (char *) "watch", (char *) "--root", root_arg, (char *) "--count",
                                (char *) "1", (char *) "--timeout", (char *) "20", NULL });
        is_int(wait_exit(pid), 0, "text mode: exit 0 after one event");
        ok(read_full_file_at(AT_FDCWD, out_path, &text, NULL) >= 0, "read text output");
        ok(text && strstr(text, " md0 started check info: check in progress, 8% done, 5.2 MiB/s\n"),
           "text line: %s", text ? text : "(none)");
        is_int((int) count_lines(out_path), 1, "one line");
        ok(!file_contains(err_path, "watching"), "no debug lines without --verbose");

        /* /dev/md0 names the same array as md0. */
        pid = spawn((char *[]){ (char *) "watch", (char *) "--root", root_arg, (char *) "--count",
                                (char *) "1", (char *) "--timeout", (char *) "20",
                                (char *) "/dev/md0", NULL });
        is_int(wait_exit(pid), 0, "watch /dev/md0: exit 0 after one event");
        ok(file_contains(out_path, " md0 started check info: "), "watch /dev/md0 reports md0");
        pid = spawn((char *[]){ (char *) "watch", (char *) "--root", root_arg, (char *) "--count",
                                (char *) "1", (char *) "/dev/md9", NULL });
        is_int(wait_exit(pid), 2, "watch /dev/md9: exit 2");
        ok(file_contains(err_path, "storpulsectl watch: cannot watch md9: no such md array"),
           "unknown array: the message names it, with the verb's prefix");
}

/* Nobody can read the events (a full disk): exit 5 at the first one, not a silent 0. */
static void test_full_stdout(char *root_arg) {
        char saved[sizeof(out_path)];
        pid_t pid;

        memcpy(saved, out_path, sizeof(saved));
        (void) snprintf(out_path, sizeof(out_path), "/dev/full");
        pid = spawn((char *[]){ (char *) "watch", (char *) "--root", root_arg, (char *) "--count",
                                (char *) "1", (char *) "--timeout", (char *) "20", NULL });
        is_int(wait_exit(pid), 5, "stdout is /dev/full: exit 5");
        memcpy(out_path, saved, sizeof(saved));
}

/* Back on the idle copy: --timeout before --count is exit 4, bad option 1, missing root 2. */
static void test_exit_codes(const char *fixtures, char *root_arg) {
        pid_t pid;

        is_int(reset_root(fixtures, "md-raid1-idle"), 0, "back to the md-raid1-idle fixture");

        /* Nothing happens: --timeout before --count is exit 4. */
        pid = spawn((char *[]){ (char *) "watch", (char *) "--root", root_arg, (char *) "--count",
                                (char *) "1", (char *) "--timeout", (char *) "0.3", NULL });
        is_int(wait_exit(pid), 4, "timeout before --count: exit 4");
        pid = spawn((char *[]){ (char *) "watch", (char *) "--root", root_arg, (char *) "--timeout",
                                (char *) "0.1", NULL });
        is_int(wait_exit(pid), 0, "timeout without --count: exit 0");
        pid = spawn((char *[]){ (char *) "watch", (char *) "--interval", (char *) "soon", NULL });
        is_int(wait_exit(pid), 1, "bad --interval: exit 1");
        pid = spawn(
                (char *[]){ (char *) "watch", (char *) "--root", (char *) "/nonexistent/x", NULL });
        is_int(wait_exit(pid), 2, "missing root: exit 2");
        pid = spawn(
                (char *[]){ (char *) "watch", (char *) "--root", root_arg, (char *) "md9", NULL });
        is_int(wait_exit(pid), 2, "unknown array: exit 2");
}

int main(void) {
        const char *fixtures = getenv("STORPULSE_FIXTURES");
        char cmd[700], root_arg[300];
        time_t t_start, t_end;

        if (!fixtures)
                return tap_skip_all("STORPULSE_FIXTURES not set");
        if (!mkdtemp(root))
                return tap_skip_all("mkdtemp failed");
        (void) snprintf(out_path, sizeof(out_path), "%s.out", root);
        (void) snprintf(err_path, sizeof(err_path), "%s.err", root);
        (void) snprintf(cmd, sizeof(cmd), "cp -a '%s/md-raid1-idle/.' '%s/'", fixtures, root);
        is_int(system(cmd), 0, "copy the md-raid1-idle fixture");
        (void) snprintf(root_arg, sizeof(root_arg), "%s", root);

        drive_check_sequence(fixtures, root_arg, &t_start, &t_end);
        check_json_lines(t_start, t_end);
        test_text_mode(fixtures, root_arg);
        test_full_stdout(root_arg);
        test_exit_codes(fixtures, root_arg);

        (void) snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s' '%s'", root, out_path, err_path);
        is_int(system(cmd), 0, "cleanup");
        return tap_done();
}

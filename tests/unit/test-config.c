/* SPDX-License-Identifier: MIT */
/* manager/config: the key table, units, ranges, profiles, volume selection and the
 * "FILE:LINE: message" errors (each expectation written by hand from the input text). */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "manager/config.h"
#include "tap.h"

static char *parse_error(const char *text) {
        Config *c = NULL;
        char *error = NULL;
        int r;

        if (config_new_default(&c) < 0)
                return strdup("no memory");
        r = config_parse_string(c, "test.conf", text, &error);
        config_free(c);
        if (r >= 0) {
                free(error);
                return NULL;
        }
        return error ?: strdup("(no message)");
}

static void check_error(const char *text, const char *want) {
        char *e = parse_error(text);

        is_str(e, want, "error for %s", want);
        free(e);
}

static void test_good(void) {
        Config *c = NULL;
        char *error = NULL;
        const Profile *p;
        const char *text = "# comment\n"
                           "[Daemon]\n"
                           "RescanInterval=2min\n"
                           "DmRaidPollInterval = 500ms\n"
                           "LogLevel=debug\n"
                           "ControlGroup=storpulse\n"
                           "[Schedule]\n"
                           "Builtin=yes\n"
                           "Profile=nightly\n"
                           "Interval=1h\n"
                           "[Probe]\n"
                           "ForeignIOThreshold=64M\n"
                           "Budget=30s\n"
                           "[Volumes]\n"
                           "Kind=md disk\n"
                           "Name=md* sd?\n"
                           "Exclude=sdz\n"
                           "[Profile nightly]\n"
                           "SequentialBytes=1G\n"
                           "RandomDuration=5s\n"
                           "Members=yes\n"
                           "[Profile quick]\n"
                           "Timeout=10s\n"
                           "[HTTP]\n"
                           "Listen=[::1]:9100\n";

        ok(config_new_default(&c) == 0, "defaults");
        is_int(config_parse_string(c, "good.conf", text, &error), 0, "good config parses");
        if (error)
                tap_diag("%s", error);
        is_u64(c->rescan_interval_usec, 120 * USEC_PER_SEC, "2min");
        is_u64(c->dm_poll_interval_usec, 500 * USEC_PER_MSEC, "500ms");
        is_int(c->log_level, 7, "debug");
        is_str(c->control_group, "storpulse", "group");
        is_int(c->builtin, 1, "Builtin=yes");
        is_u64(c->schedule_interval_usec, 3600 * USEC_PER_SEC, "1h");
        is_u64(c->foreign_threshold_bytes, 64ULL << 20, "64M");
        is_u64(c->budget_usec, 30 * USEC_PER_SEC, "30s");
        p = config_get_profile(c, "nightly");
        ok(p != NULL, "admin profile defined");
        if (p) {
                is_u64(p->params.seq_bytes, 1ULL << 30, "1G");
                is_u64(p->params.rand_duration_usec, 5 * USEC_PER_SEC, "5s");
                ok(p->members, "Members=yes");
        }
        p = config_get_profile(c, "quick");
        ok(p && p->params.timeout_usec == 10 * USEC_PER_SEC, "built-in profile overridden");
        ok(p && p->params.seq_bytes == 64U << 20, "other quick keys kept");
        ok(config_get_profile(c, "deep") && config_get_profile(c, "light"), "built-ins kept");

        {
                Volume md0 = { .name = "md0", .kind = VOLUME_MD, .path = "/dev/md0" };
                Volume sda = { .name = "sda", .kind = VOLUME_DISK, .path = "/dev/sda" };
                Volume sdz = { .name = "sdz", .kind = VOLUME_DISK, .path = "/dev/sdz" };
                Volume nvme = { .name = "nvme0n1", .kind = VOLUME_DISK, .path = "/dev/nvme0n1" };
                Volume lv = { .name = "dm-0", .kind = VOLUME_LVM, .path = "/dev/dm-0" };

                ok(config_volume_selected(c, &md0), "md0 selected (kind md, name md*)");
                ok(config_volume_selected(c, &sda), "sda selected");
                ok(!config_volume_selected(c, &sdz), "sdz excluded");
                ok(!config_volume_selected(c, &nvme), "nvme0n1 not matched by Name=");
                ok(!config_volume_selected(c, &lv), "lvm not in Kind=");
        }
        config_free(c);

        ok(config_new_default(&c) == 0, "defaults again");
        {
                Volume loop = { .name = "loop3", .kind = VOLUME_DISK, .path = "/dev/loop3" };
                Volume vda = { .name = "vda", .kind = VOLUME_DISK, .path = "/dev/vda" };
                Volume part = { .name = "vda1", .kind = VOLUME_PARTITION, .path = "/dev/vda1" };

                ok(!config_volume_selected(c, &loop), "loop devices excluded by default");
                ok(config_volume_selected(c, &vda), "disks selected by default");
                ok(!config_volume_selected(c, &part), "partitions not selected by default");
                is_int(config_parse_string(c, "x.conf", "[Volumes]\nExclude=\n", NULL), 0,
                       "Exclude= resets");
                ok(config_volume_selected(c, &loop), "loop selected once Exclude= is reset");
        }
        config_free(c);
}

static void test_bad(void) {
        check_error("[Daemon]\nFoo=1\n", "test.conf:2: unknown key 'Foo' in section [Daemon]");
        check_error("[Nope]\nFoo=1\n", "test.conf:2: unknown section [Nope]");
        check_error("\n\n[Daemon]\nRescanInterval=5x\n",
                    "test.conf:4: invalid time span '5x' (use e.g. 30s, 500ms, 5min)");
        check_error("[Daemon]\nRescanInterval=100ms\n",
                    "test.conf:2: time span '100ms' out of range (1s..8.64e+04s)");
        check_error("[Probe]\nForeignIOThreshold=12Q\n",
                    "test.conf:2: invalid size '12Q' (use e.g. 4096, 64K, 64M, 1G)");
        check_error("[Probe]\nMaxRetries=-1\n", "test.conf:2: invalid number '-1'");
        check_error("[Probe]\nMaxRetries=1000\n", "test.conf:2: number 1000 out of range (0..100)");
        check_error("[Probe]\nIdlePriority=maybe\n",
                    "test.conf:2: invalid boolean 'maybe' (yes/no)");
        check_error("[Daemon]\nLogLevel=loud\n",
                    "test.conf:2: invalid log level 'loud' (err, warning, notice, info, debug)");
        check_error("[Volumes]\nKind=md tape\n",
                    "test.conf:2: unknown volume kind 'tape' (md, lvm, dm, controller, disk, "
                    "partition)");
        check_error("[Daemon]\nLogLevel=info\n[Probe]\nBudget=1s\n[Daemon]\nLogLevel=debug\n",
                    "test.conf:6: duplicate section [Daemon]");
        check_error("[Daemon]\nthis is not a key\n",
                    "test.conf:2: syntax error (expected [Section] or Key=Value)");
        check_error("[Schedule]\nProfile=nosuch\n",
                    "test.conf:0: [Schedule] Profile=nosuch names no profile");
        check_error("[Profile bad/name]\nTimeout=5s\n",
                    "test.conf:2: invalid name 'bad/name' (letters, digits, -_. up to 31)");
        check_error("[Profile x]\nSequentialBlockSize=100\n",
                    "test.conf:2: size '100' out of range (512..1073741824 bytes)");
}

static void test_long_line(void) {
        char text[600], *e;

        (void) snprintf(text, sizeof(text), "[Volumes]\nName=%0300d\nKind=md\n", 0);
        e = parse_error(text);
        is_str(e, "test.conf:2: line too long (at most 198 bytes; repeat a list key to append)",
               "an over-long line is refused at its own line");
        free(e);
}

static void test_files(void) {
        char dir[] = "/tmp/test-config-XXXXXX", path[256], dropin[300];
        Config *c = NULL;
        char *error = NULL;
        FILE *f;

        if (!mkdtemp(dir)) {
                ok(0, "mkdtemp");
                return;
        }
        (void) snprintf(path, sizeof(path), "%s/storpulse.conf", dir);
        is_int(config_load(path, false, &c, &error), 0, "missing default file: defaults");
        config_free(c);
        c = NULL;
        ok(config_load(path, true, &c, &error) < 0, "missing explicit file: error");
        ok(error && strstr(error, ":0: cannot open: No such file or directory"), "%s",
           error ?: "no error");
        free(error);
        error = NULL;

        f = fopen(path, "we");
        fputs("[Daemon]\nRescanInterval=1min\n", f);
        fclose(f);
        (void) snprintf(dropin, sizeof(dropin), "%s.d", path);
        (void) mkdir(dropin, 0755);
        (void) snprintf(dropin, sizeof(dropin), "%s.d/10-a.conf", path);
        f = fopen(dropin, "we");
        fputs("[Daemon]\nRescanInterval=2min\n", f);
        fclose(f);
        is_int(config_load(path, true, &c, &error), 0, "file + drop-in");
        ok(c && c->rescan_interval_usec == 120 * USEC_PER_SEC, "drop-in overrides");
        config_free(c);
        c = NULL;

        f = fopen(dropin, "we");
        fputs("[Daemon]\n\nRescanInterval=never\n", f);
        fclose(f);
        ok(config_load(path, true, &c, &error) < 0, "bad drop-in refused");
        {
                char want[512];

                (void) snprintf(want, sizeof(want),
                                "%s:3: invalid time span 'never' (use e.g. 30s, 500ms, 5min)",
                                dropin);
                is_str(error, want, "drop-in error names its file and line");
        }
        free(error);
        (void) unlink(dropin);
        (void) snprintf(dropin, sizeof(dropin), "%s.d", path);
        (void) rmdir(dropin);
        (void) unlink(path);
        (void) rmdir(dir);
}

static void test_http(void) {
        _cleanup_(config_freep) Config *c = NULL;
        char *error = NULL;
        const char *text = "[HTTP]\nListen=127.0.0.1:9977 [::1]:9977\nListen=*:9100\n"
                           "MaxConnections=10\nConnectionMemory=64K\nTimeout=30s\n"
                           "User=prom\nPasswordHash=$6$salt$hash\nEnable=no\n";

        ok(config_new_default(&c) >= 0, "defaults");
        ok(c->http_enable && c->http_max_connections == 64 && !c->http_listen,
           "HTTP on by default, default listen");
        is_int(config_parse_string(c, "http.conf", text, &error), 0, "[HTTP] parses");
        ok(c->http_listen && strcmp(c->http_listen[0], "127.0.0.1:9977") == 0 &&
                   strcmp(c->http_listen[1], "[::1]:9977") == 0 &&
                   strcmp(c->http_listen[2], "*:9100") == 0 && !c->http_listen[3],
           "Listen= words appended");
        is_int(c->http_max_connections, 10, "MaxConnections");
        is_u64(c->http_connection_memory, 65536, "ConnectionMemory");
        is_u64(c->http_timeout_usec, 30 * USEC_PER_SEC, "Timeout");
        is_str(c->http_user, "prom", "User");
        is_str(c->http_password_hash, "$6$salt$hash", "PasswordHash");
        ok(!c->http_enable, "Enable=no");
        free(error);
        error = parse_error("[HTTP]\nMaxConnections=0\n");
        ok(error && strstr(error, "test.conf:2"), "MaxConnections=0 is refused with FILE:LINE");
        free(error);
}

int main(void) {
        test_good();
        test_http();
        test_bad();
        test_long_line();
        test_files();
        return tap_done();
}

/* SPDX-License-Identifier: MIT */
/* manager/config: the key table, units, ranges, profiles, volume selection and the
 * "FILE:LINE: message" errors (each expectation written by hand from the input text). */

#include <math.h>
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

static const char good_conf[] = "# comment\n"
                                "[Daemon]\n"
                                "RescanInterval=2min\n"
                                "DmRaidPollInterval = 500ms\n"
                                "LogLevel=debug\n"
                                "ControlGroup=daemon\n"
                                "[Schedule]\n"
                                "Builtin=yes\n"
                                "Profile=nightly\n"
                                "Interval=1h\n"
                                "[Probe]\n"
                                "ForeignIOThreshold=64M\n"
                                "IdleWindow=50ms\n"
                                "Budget=30s\n"
                                "MaxDeferral=3d\n"
                                "DeferralProfile=nightly\n"
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

/* the volume selection of good_conf: Kind=md disk, Name=md* sd?, Exclude=sdz */
static void test_good_selection(const Config *c) {
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

/* the default selection: disks, not loop devices (until Exclude= is reset) nor partitions */
static void test_default_selection(void) {
        Config *c = NULL;
        Volume loop = { .name = "loop3", .kind = VOLUME_DISK, .path = "/dev/loop3" };
        Volume vda = { .name = "vda", .kind = VOLUME_DISK, .path = "/dev/vda" };
        Volume part = { .name = "vda1", .kind = VOLUME_PARTITION, .path = "/dev/vda1" };

        ok(config_new_default(&c) == 0, "defaults again");
        ok(!config_volume_selected(c, &loop), "loop devices excluded by default");
        ok(config_volume_selected(c, &vda), "disks selected by default");
        ok(!config_volume_selected(c, &part), "partitions not selected by default");
        is_int(config_parse_string(c, "x.conf", "[Volumes]\nExclude=\n", NULL), 0,
               "Exclude= resets");
        ok(config_volume_selected(c, &loop), "loop selected once Exclude= is reset");
        config_free(c);
}

static void test_good(void) {
        Config *c = NULL;
        char *error = NULL;
        const Profile *p;

        ok(config_new_default(&c) == 0, "defaults");
        is_int(config_parse_string(c, "good.conf", good_conf, &error), 0, "good config parses");
        if (error)
                tap_diag("%s", error);
        is_u64(c->rescan_interval_usec, 120 * USEC_PER_SEC, "2min");
        is_u64(c->dm_poll_interval_usec, 500 * USEC_PER_MSEC, "500ms");
        is_int(c->log_level, 7, "debug");
        is_str(c->control_group, "daemon", "group");
        is_int((int) c->control_gid, 1,
               "group resolved at load (daemon is gid 1 in Debian's base-passwd)");
        is_int((int) c->admin_gid, (int) CONFIG_GID_INVALID, "no AdminGroup=: no admin gid");
        is_int(c->builtin, 1, "Builtin=yes");
        is_u64(c->schedule_interval_usec, 3600 * USEC_PER_SEC, "1h");
        is_u64(c->foreign_threshold_bytes, 64ULL << 20, "64M");
        is_u64(c->idle_window_usec, 50 * USEC_PER_MSEC, "IdleWindow=50ms");
        is_u64(c->budget_usec, 30 * USEC_PER_SEC, "30s");
        is_u64(c->max_deferral_usec, 3 * 24 * 3600 * USEC_PER_SEC, "MaxDeferral=3d");
        is_str(c->deferral_profile, "nightly", "DeferralProfile= names an admin profile");
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

        test_good_selection(c);
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
        check_error("[Probe]\nIdleWindow=11s\n",
                    "test.conf:2: time span '11s' out of range (0s..10s)");
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
        check_error("[Probe]\nMaxDeferral=500ms\n",
                    "test.conf:2: time span '500ms' out of range (1s..3.15e+07s)");
        check_error("[Probe]\nDeferralProfile=nosuch\n",
                    "test.conf:2: [Probe] DeferralProfile=nosuch names no profile");
        check_error("[Schedule]\nProfile=nosuch\n",
                    "test.conf:2: [Schedule] Profile=nosuch names no profile");
        check_error("[Profile bad/name]\nTimeout=5s\n",
                    "test.conf:2: invalid name 'bad/name' (letters, digits, -_. up to 31)");
        check_error("[Profile x]\nSequentialBlockSize=100\n",
                    "test.conf:2: size '100' out of range (512..1073741824 bytes)");
        check_error("[Daemon]\nControlGroup=nosuchgroup\n",
                    "test.conf:2: unknown group 'nosuchgroup'");
        check_error("[Daemon]\nAdminGroup=nosuchgroup\n",
                    "test.conf:2: unknown group 'nosuchgroup'");
        check_error("[HTTP]\nListen=127.0.0.1:9977 999.1.1.1:99999\n",
                    "test.conf:2: invalid listen address '999.1.1.1:99999' (use ADDR:PORT, "
                    "[ADDR6]:PORT, *:PORT or PORT; numeric, port 0-65535)");
        check_error("[HTTP]\nListen=localhost\n",
                    "test.conf:2: invalid listen address 'localhost' (use ADDR:PORT, [ADDR6]:PORT, "
                    "*:PORT or PORT; numeric, port 0-65535)");
        check_error("[HTTP]\n\nListen=1.2.3.4:80\nListen=localhost:80\n",
                    "test.conf:4: invalid listen address 'localhost:80' (use ADDR:PORT, "
                    "[ADDR6]:PORT, *:PORT or PORT; numeric, port 0-65535)");
}

static void test_long_line(void) {
        char text[600], *e;

        /* 198 bytes: "Name=" and 193 more (the limit the sample config states) */
        (void) snprintf(text, sizeof(text), "[Volumes]\nName=%0193d\nKind=md\n", 0);
        e = parse_error(text);
        ok(!e, "a line of 198 bytes is accepted: %s", e ?: "ok");
        free(e);
        (void) snprintf(text, sizeof(text), "[Volumes]\nName=%0194d\nKind=md\n", 0);
        e = parse_error(text);
        ok(e && strstr(e, "test.conf:2: line too long"), "a line of 199 bytes is refused");
        free(e);

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

/* config_load(path) fails with exactly the message `want`, and gives no Config. */
static void check_load_error(const char *path, const char *want, const char *what) {
        Config *c = NULL;
        char *error = NULL;

        ok(config_load(path, true, &c, &error) < 0 && !c, "%s: refused", what);
        is_str(error, want, "%s: the message", what);
        free(error);
        config_free(c);
}

static void write_text(const char *path, const char *text, size_t n) {
        FILE *f = fopen(path, "we");

        if (f) {
                fwrite(text, 1, n, f);
                fclose(f);
        }
}

/* Files that are no config: each refused with FILE:LINE, never read as empty or endless. */
static void test_not_config_files(void) {
        char dir[] = "/tmp/test-config-XXXXXX", path[256], dropin[300], want[700];
        char *big;

        if (!mkdtemp(dir)) {
                ok(0, "mkdtemp");
                return;
        }
        (void) snprintf(want, sizeof(want), "%s:0: is a directory, not a config file", dir);
        check_load_error(dir, want, "a directory as the config file");
        check_load_error("/dev/zero", "/dev/zero:0: not a regular file",
                         "/dev/zero as the config file");
        {
                Config *c = NULL;
                char *error = NULL;

                is_int(config_load("/dev/null", true, &c, &error), 0, "/dev/null: no config");
                ok(c && c->max_retries == 5, "/dev/null: the defaults");
                config_free(c);
                free(error);
        }
        (void) snprintf(path, sizeof(path), "%s/fifo.conf", dir);
        (void) mkfifo(path, 0600);
        (void) snprintf(want, sizeof(want), "%s:0: not a regular file", path);
        check_load_error(path, want, "a FIFO without a writer");
        (void) unlink(path);

        (void) snprintf(path, sizeof(path), "%s/storpulse.conf", dir);
        write_text(path, "[Probe]\nMaxRetries=3\0garbage\n", 29);
        (void) snprintf(want, sizeof(want), "%s:2: NUL byte in the text (not a text file?)", path);
        check_load_error(path, want, "MaxRetries=3\\0garbage");

        big = malloc(CONFIG_FILE_MAX + 2);
        if (big) {
                memset(big, '#', CONFIG_FILE_MAX + 1);
                big[CONFIG_FILE_MAX] = '\n';
                write_text(path, big, CONFIG_FILE_MAX + 1);
                free(big);
        }
        (void) snprintf(want, sizeof(want), "%s:0: too large (at most 1 MiB)", path);
        check_load_error(path, want, "a file over 1 MiB");

        /* a drop-in that is a FIFO, and a cross-key error that sits in a drop-in */
        write_text(path, "[Daemon]\nRescanInterval=1min\n", 29);
        (void) snprintf(dropin, sizeof(dropin), "%s.d", path);
        (void) mkdir(dropin, 0755);
        (void) snprintf(dropin, sizeof(dropin), "%s.d/10-fifo.conf", path);
        (void) mkfifo(dropin, 0600);
        (void) snprintf(want, sizeof(want), "%s:0: not a regular file", dropin);
        check_load_error(path, want, "a FIFO drop-in");
        (void) unlink(dropin);
        (void) snprintf(dropin, sizeof(dropin), "%s.d/20-sched.conf", path);
        write_text(dropin, "# nightly\n[Schedule]\nProfile=nightly\n", 37);
        (void) snprintf(want, sizeof(want), "%s:3: [Schedule] Profile=nightly names no profile",
                        dropin);
        check_load_error(path, want, "a cross-key error in a drop-in");
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

static const char detection_conf[] = "[Detection]\n"
                                     "BaselineWindow=16\n"
                                     "MinSamples=4\n"
                                     "ThroughputThreshold=30%\n"
                                     "LatencyFactor=2.5\n"
                                     "P99LatencyFactor=4\n"
                                     "LatencyFloor=500us\n"
                                     "BadRuns=3\n"
                                     "GoodRuns=5\n"
                                     "MemberLatencyFloor=8ms\n"
                                     "MemberAwaitFloor=50ms\n"
                                     "MemberFactor=4\n"
                                     "RebuildMaxETA=1h\n"
                                     "RebuildSpeedFloor=50M\n"
                                     "RebuildSustain=20s\n"
                                     "RebuildForegroundIO=4M\n"
                                     "RebuildForegroundIOPS=100\n"
                                     "StatisticsInterval=2s\n";

/* a fresh config converts to the monitor's own defaults */
static void test_detection_defaults(const Config *c) {
        PerfMonitorConfig pc, d = PERF_MONITOR_CONFIG_DEFAULT;

        config_perf_monitor_config(c, &pc);
        is_int(pc.window, d.window, "default window");
        is_int(pc.detector.min_samples, d.detector.min_samples, "default MinSamples");
        ok(pc.detector.threshold == d.detector.threshold &&
                   pc.detector.busy_threshold == d.detector.busy_threshold &&
                   pc.detector.factor == d.detector.factor &&
                   pc.detector.p99_factor == d.detector.p99_factor &&
                   pc.detector.latency_floor_ns == d.detector.latency_floor_ns &&
                   pc.detector.k_bad == d.detector.k_bad && pc.detector.m_good == d.detector.m_good,
           "default detector margins are DETECTOR_CONFIG_DEFAULT");
        ok(pc.peers.floor_ms[PEER_SOURCE_PROBE] == d.peers.floor_ms[PEER_SOURCE_PROBE] &&
                   pc.peers.floor_ms[PEER_SOURCE_AWAIT] == d.peers.floor_ms[PEER_SOURCE_AWAIT] &&
                   pc.peers.factor == d.peers.factor,
           "default peer rule is PEER_CONFIG_DEFAULT");
        ok(pc.rebuild.eta_limit_sec == d.rebuild.eta_limit_sec &&
                   pc.rebuild.speed_floor_bytes_per_sec == d.rebuild.speed_floor_bytes_per_sec &&
                   pc.rebuild.sustain_usec == d.rebuild.sustain_usec &&
                   pc.rebuild.busy_bytes_per_sec == d.rebuild.busy_bytes_per_sec &&
                   pc.rebuild.busy_iops == d.rebuild.busy_iops,
           "default rebuild limits are REBUILD_SLOW_CONFIG_DEFAULT");
        is_u64(c->detect_stat_interval_usec, 30 * USEC_PER_SEC, "statistics every 30s");
}

/* every [Detection] key of detection_conf lands in the monitor config */
static void test_detection_keys(Config *c) {
        PerfMonitorConfig pc;
        char *error = NULL;

        is_int(config_parse_string(c, "det.conf", detection_conf, &error), 0, "[Detection] parses");
        if (error)
                tap_diag("%s", error);
        free(error);
        config_perf_monitor_config(c, &pc);
        ok(perf_monitor_config_validate(&pc) == 0, "converts to a valid monitor config");
        is_int(pc.window, 16, "BaselineWindow");
        is_int(pc.detector.min_samples, 4, "MinSamples");
        ok(pc.detector.threshold == 0.3, "ThroughputThreshold=30%%");
        ok(pc.detector.busy_threshold == 0.7, "busy margin kept");
        ok(pc.detector.factor == 2.5 && pc.detector.p99_factor == 4, "latency factors");
        ok(pc.detector.latency_floor_ns == 500e3, "LatencyFloor=500us");
        ok(pc.detector.k_bad == 3 && pc.detector.m_good == 5, "BadRuns, GoodRuns");
        ok(pc.peers.floor_ms[PEER_SOURCE_PROBE] == 8 && pc.peers.floor_ms[PEER_SOURCE_AWAIT] == 50,
           "member floors");
        ok(pc.peers.factor == 4, "MemberFactor");
        ok(pc.rebuild.eta_limit_sec == 3600, "RebuildMaxETA=1h");
        ok(pc.rebuild.speed_floor_bytes_per_sec == 50.0 * 1024 * 1024, "RebuildSpeedFloor=50M");
        is_u64(pc.rebuild.sustain_usec, 20 * USEC_PER_SEC, "RebuildSustain=20s");
        ok(pc.rebuild.busy_bytes_per_sec == 4.0 * 1024 * 1024 && pc.rebuild.busy_iops == 100,
           "foreground I/O limits");
        is_u64(c->detect_stat_interval_usec, 2 * USEC_PER_SEC, "StatisticsInterval=2s");

        is_int(config_parse_string(c, "det.conf", "[Detection]\nThroughputThreshold=85\n", NULL), 0,
               "a bare number is percent");
        config_perf_monitor_config(c, &pc);
        ok(pc.detector.threshold == 0.85 && pc.detector.busy_threshold == 0.85,
           "busy margin never tighter than the idle one");
        is_int(config_parse_string(c, "det.conf", "[Detection]\nRebuildMaxETA=0\n", NULL), 0,
               "RebuildMaxETA=0");
        config_perf_monitor_config(c, &pc);
        ok(isinf(pc.rebuild.eta_limit_sec) && perf_monitor_config_validate(&pc) == 0,
           "RebuildMaxETA=0: no ETA limit");
}

static void test_detection_errors(void) {
        check_error("[Detection]\nThroughputThreshold=99%\n",
                    "test.conf:2: percentage '99%' out of range (5%..95%)");
        check_error("[Detection]\nThroughputThreshold=half\n",
                    "test.conf:2: invalid percentage 'half' (use e.g. 50%)");
        check_error("[Detection]\nLatencyFactor=1\n",
                    "test.conf:2: factor 1 out of range (1.10..1000.00)");
        check_error("[Detection]\n\nP99LatencyFactor=x3\n",
                    "test.conf:3: invalid factor 'x3' (use e.g. 3 or 2.5)");
        check_error("[Detection]\nLatencyFloor=2parsecs\n",
                    "test.conf:2: invalid time span '2parsecs' (use e.g. 30s, 500ms, 5min)");
        check_error("[Detection]\nLatencyFloor=infinity\n",
                    "test.conf:2: invalid time span 'infinity' (use e.g. 30s, 500ms, 5min)");
        check_error("[Detection]\nMemberLatencyFloor=2min\n",
                    "test.conf:2: time span '2min' out of range (0s..60s)");
        check_error("[Detection]\nBadRuns=0\n", "test.conf:2: number 0 out of range (1..100)");
        check_error("[Detection]\nBaselineWindow=65\n",
                    "test.conf:2: number 65 out of range (2..64)");
        check_error("[Detection]\nRebuildSpeedFloor=10Q\n",
                    "test.conf:2: invalid size '10Q' (use e.g. 4096, 64K, 64M, 1G)");
        check_error("[Detection]\nRebuildSustain=1w\n",
                    "test.conf:2: invalid time span '1w' (use e.g. 30s, 500ms, 5min)");
        check_error("[Detection]\nStatisticsInterval=100ms\n",
                    "test.conf:2: time span '100ms' out of range (0.5s..3.6e+03s)");
        check_error("[Detection]\nMinSamples=20\nBaselineWindow=10\n",
                    "test.conf:3: [Detection] MinSamples=20 exceeds BaselineWindow=10");
        check_error("[Detection]\nDetect=yes\n",
                    "test.conf:2: unknown key 'Detect' in section [Detection]");
}

static void test_detection(void) {
        _cleanup_(config_freep) Config *c = NULL;

        ok(config_new_default(&c) >= 0, "defaults");
        test_detection_defaults(c);
        test_detection_keys(c);
        test_detection_errors();
}

/* [WriteProbe] and Write=: opt-in twice, paths checked as text, errors at their line. */
static void test_write_probe(void) {
        Config *c = NULL;
        const Profile *pr;

        is_int(config_new_default(&c), 0, "write: default config");
        ok(c && !c->write_dirs && c->write_size_bytes == 64U << 20, "write: off by default, 64M");
        for (size_t i = 0; c && i < c->n_profiles; i++)
                ok(!c->profiles[i].params.write, "write: built-in %s does not write",
                   c->profiles[i].name);
        is_int(config_parse_string(c, "w.conf",
                                   "[WriteProbe]\nDirectory=/srv/data /mnt/x\nDirectory=/home\n"
                                   "Size=128M\n[Profile writer]\nWrite=yes\n",
                                   NULL),
               0, "write: parses");
        ok(c && c->write_dirs && strcmp(c->write_dirs[0], "/srv/data") == 0 &&
                   strcmp(c->write_dirs[2], "/home") == 0 && !c->write_dirs[3],
           "write: three directories, repeated key appends");
        is_u64(c ? c->write_size_bytes : 0, 128U << 20, "write: Size=128M");
        pr = c ? config_get_profile(c, "writer") : NULL;
        ok(pr && pr->params.write, "write: profile writer writes");
        config_free(c);
        check_error("[WriteProbe]\nDirectory=srv/data\n",
                    "test.conf:2: [WriteProbe] Directory=srv/data is not an absolute path without "
                    "'.' or '..'");
        check_error("\n[WriteProbe]\nDirectory=/srv/../etc\n",
                    "test.conf:3: [WriteProbe] Directory=/srv/../etc is not an absolute path "
                    "without '.' or '..'");
        check_error("[WriteProbe]\nSize=1048577\n",
                    "test.conf:2: [WriteProbe] Size= is not a multiple of 4K");
        check_error("[WriteProbe]\nSize=512K\n",
                    "test.conf:2: size '512K' out of range (1048576..1099511627776 bytes)");
}

int main(void) {
        test_write_probe();
        test_good();
        test_default_selection();
        test_detection();
        test_http();
        test_bad();
        test_long_line();
        test_files();
        test_not_config_files();
        return tap_done();
}

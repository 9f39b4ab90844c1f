/* SPDX-License-Identifier: MIT */
#pragma once

/* The daemon's configuration: /etc/storpulse/storpulse.conf, then storpulse.conf.d/NAME.conf in
 * lexical order (a later assignment overrides an earlier one, as systemd's drop-ins do). INI
 * read by libinih; every key goes through one table (section, key, parser, offset, range), so a
 * new key is one table line and a new section one more table entry. Values are validated
 * (ranges, units "30s", "5min", "64M") and an error names the place: "FILE:LINE: message".
 * A Config is plain data once loaded; the manager swaps it atomically on reload, and only when the
 * new one loaded without error.
 *
 * Sections:
 *   [Daemon]    intervals of the safety nets, log level, control socket group
 *   [Schedule]  the built-in interval schedule (runs when not started by systemd's timers)
 *   [Probe]     back-off, budget, timeouts common to all profiles
 *   [Volumes]   which volumes are probed: Name=, Kind=, Path= (globs), Exclude=
 *   [Profile NAME]  a probe parameter set; quick, deep and light are built in and may be
 *               overridden key by key
 *   [HTTP]      the HTTP endpoint (http/server.h): Enable=, Listen= (ADDR:PORT list), limits,
 *               TLSCertificate=/TLSKey=, User=/PasswordHash= (basic auth, a crypt(5) hash);
 *               read at start (a reload does not move the listening sockets)
 *   [WriteProbe] Directory= (repeatable): mounted filesystems whose volume a profile with
 *               Write=yes also probes by writing a scratch file there (probe/probe-scratch.h);
 *               Size= of that file
 *   [Detection] learned baselines, degradation verdicts, fail-slow members, slow rebuilds
 *               (core/perf-monitor.h): thresholds and windows; defaults are the analysis
 *               modules' *_CONFIG_DEFAULT values; a reload applies them to the running monitor
 *               without losing what the baselines learned (config_perf_monitor_config()) */

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>

#include "basic/macro.h"
#include "basic/time-util.h"
#include "core/perf-monitor.h"
#include "model/volume.h"
#include "probe/probe.h"
#include "report/metrics-latency.h"

#define CONFIG_PROFILES_MAX     32
#define CONFIG_PROFILE_NAME_MAX 32
#define CONFIG_FILE_MAX         (1024 * 1024) /* bytes; a larger file is refused */
#define CONFIG_GID_INVALID      ((gid_t) -1)

/* Where a key was last assigned (for errors found only once every file is read). */
typedef struct ConfigOrigin {
        char section[48];
        char key[48];
        char *file;
        unsigned line;
        unsigned seq; /* assignment order over all files */
} ConfigOrigin;

typedef struct Profile {
        char name[CONFIG_PROFILE_NAME_MAX];
        ProbeParams params;
        bool members; /* also probe the member disks of arrays (deep) */
} Profile;

typedef struct Config {
        /* [Daemon] */
        usec_t rescan_interval_usec;   /* RescanInterval=: full inventory re-read (safety net) */
        usec_t dm_poll_interval_usec;  /* DmRaidPollInterval=: dm-raid status poll */
        usec_t md_interval_usec;       /* MdSafetyInterval=: md-watch re-read without events */
        usec_t cli_poll_interval_usec; /* ControllerPollInterval=: vendor CLIs (0 = never) */
        int log_level;                 /* LogLevel=: syslog level */
        char *control_group;           /* ControlGroup=: read-only commands on the socket */
        gid_t control_gid; /* ControlGroup= resolved at load (a name must exist), or INVALID */
        char *admin_group; /* AdminGroup=: every command (besides root, our uid) */
        gid_t admin_gid;   /* AdminGroup= resolved at load, or INVALID */
        usec_t shutdown_timeout_usec; /* ShutdownTimeout=: wait for probes at exit, at most */
        usec_t assemble_timeout_usec; /* AssembleTimeout=: an md array inactive with members
                                       * longer than this is reported not assembled */

        /* [Schedule] */
        int builtin; /* Builtin=: 1 yes, 0 no, -1 auto (off under systemd) */
        char schedule_profile[CONFIG_PROFILE_NAME_MAX]; /* Profile= */
        usec_t schedule_interval_usec;                  /* Interval= */
        usec_t schedule_first_usec;                     /* FirstDelay=: after start */

        /* [Probe] */
        uint64_t foreign_threshold_bytes; /* ForeignIOThreshold=: per slice and device */
        usec_t idle_window_usec;          /* IdleWindow=: quiet time needed before a slice */
        usec_t retry_delay_usec;          /* RetryDelay=: first wait after foreign I/O */
        usec_t retry_delay_max_usec;      /* RetryDelayMax= */
        unsigned max_retries;             /* MaxRetries=: then the volume is skipped this run */
        usec_t budget_usec;               /* Budget=: device time per run (0 = unlimited) */
        bool idle_priority;               /* IdlePriority=: nice 19 + idle I/O class */
        char rebuild_profile[CONFIG_PROFILE_NAME_MAX]; /* RebuildProfile=: while rebuilding */
        usec_t max_deferral_usec; /* MaxDeferral=: then probed despite foreground (0 = never) */
        char deferral_profile[CONFIG_PROFILE_NAME_MAX]; /* DeferralProfile=: for that probe */
        unsigned skip_event_after;                      /* SkipEventAfter=: event after N skips */
        unsigned parallel;                              /* Parallel=: volumes probed at once */

        /* [Volumes] (NULL-terminated lists; NULL = no restriction, except kinds) */
        char **select_names;   /* Name=: kernel-name globs */
        unsigned select_kinds; /* Kind=: bit (1 << VolumeKind) */
        char **select_paths;   /* Path=: /dev path globs */
        char **exclude;        /* Exclude=: name or path globs never probed */

        /* [WriteProbe] */
        char **write_dirs;         /* Directory=: absolute paths; NULL = no write probe anywhere */
        uint64_t write_size_bytes; /* Size=: of each scratch file */

        /* [HTTP] */
        bool http_enable;                 /* Enable= */
        char **http_listen;               /* Listen=: "ADDR:PORT" words; NULL = the default */
        unsigned http_max_connections;    /* MaxConnections= */
        unsigned http_max_connections_ip; /* MaxConnectionsPerAddress= */
        uint64_t http_connection_memory;  /* ConnectionMemory=: per connection, bytes */
        usec_t http_timeout_usec;         /* Timeout=: idle connection timeout */
        usec_t http_request_timeout_usec; /* RequestTimeout=: a whole request head, however sent */
        char *http_tls_priorities;        /* TLSPriorities=: GnuTLS priority string; NULL: ours */
        char *http_tls_certificate;       /* TLSCertificate=: PEM file */
        char *http_tls_key;               /* TLSKey=: PEM file */
        char *http_user;                  /* User=: basic auth user */
        char *http_password_hash;         /* PasswordHash=: crypt(5) hash ($y$, $2b$, $6$, ...) */
        MetricsLatency http_latency_histogram; /* LatencyHistogram=: /metrics bucket set */

        /* [Detection] (the units of the file; config_perf_monitor_config() converts) */
        unsigned detect_window;             /* BaselineWindow=: healthy runs kept per metric */
        unsigned detect_min_samples;        /* MinSamples=: runs before a metric is judged */
        double detect_threshold;            /* ThroughputThreshold=: fraction, 0.5 = 50% */
        double detect_p50_factor;           /* LatencyFactor=: p50 x baseline */
        double detect_p99_factor;           /* P99LatencyFactor= */
        usec_t detect_latency_floor_usec;   /* LatencyFloor=: and baseline + this */
        unsigned detect_bad_runs;           /* BadRuns=: K */
        unsigned detect_good_runs;          /* GoodRuns=: M */
        usec_t peer_floor_usec;             /* MemberLatencyFloor=: probe latency floor */
        usec_t peer_await_floor_usec;       /* MemberAwaitFloor=: passive await floor */
        double peer_factor;                 /* MemberFactor=: x the peers' median */
        usec_t rebuild_eta_limit_usec;      /* RebuildMaxETA=: 0 or infinity = no limit */
        uint64_t rebuild_speed_floor_bytes; /* RebuildSpeedFloor=: bytes per second */
        usec_t rebuild_sustain_usec;        /* RebuildSustain= */
        uint64_t rebuild_foreground_bytes;  /* RebuildForegroundIO=: bytes per second */
        unsigned rebuild_foreground_iops;   /* RebuildForegroundIOPS= */
        usec_t detect_stat_interval_usec;   /* StatisticsInterval=: passive tick */

        Profile profiles[CONFIG_PROFILES_MAX];
        size_t n_profiles;

        ConfigOrigin *origins; /* every key set by a file, for cross-key errors */
        size_t n_origins;
        unsigned origin_seq;
} Config;

/* The passive statistics tick by default (StatisticsInterval=). */
#define CONFIG_STAT_INTERVAL_DEFAULT (30 * USEC_PER_SEC)

/* Defaults (no file at all). Returns 0 or -ENOMEM. */
int config_new_default(Config **ret);

/* Load `path` (a missing main file is an error only when `must_exist`) and its drop-in directory
 * `path`.d/ (*.conf, lexical order) over the defaults. On error returns -errno and, if ret_error
 * is not NULL, a malloc'd "FILE:LINE: message" (LINE 0 for file-level errors); nothing else is
 * written then. */
int config_load(const char *path, bool must_exist, Config **ret, char **ret_error);

/* --check-config's look at the files the configuration names (config-tls.c): [HTTP]
 * TLSCertificate= and TLSKey= both or neither, each a readable non-empty regular file holding a
 * PEM block of its kind, and the pair loaded by libmicrohttpd as the endpoint would (the key
 * belongs to the certificate, TLSPriorities= accepted). Returns 0, or -errno with *ret_error
 * (optional) "FILE:LINE: message" at the key's assignment (main_path:0 when no file set it).
 * Not part of config_load(): a start or a reload leaves these to the endpoint, which keeps its
 * old settings on a reload with files it cannot use. Loads libmicrohttpd: the main thread only. */
int config_check_files(Config *c, const char *main_path, char **ret_error);

/* Parse one INI text (for tests and the fuzz target) over `c`, reporting `name` in errors.
 * Returns 0 or -EINVAL with *ret_error as above. */
int config_parse_string(Config *c, const char *name, const char *text, char **ret_error);

/* The [Detection] keys as the performance monitor's configuration (the rest of it, e.g. the
 * noise and busy margins, stays at PERF_MONITOR_CONFIG_DEFAULT). The defaults of a Config give
 * exactly PERF_MONITOR_CONFIG_DEFAULT; a loaded Config always gives a valid one. */
void config_perf_monitor_config(const Config *c, PerfMonitorConfig *ret);

/* The profile named `name`, NULL if none. */
const Profile *config_get_profile(const Config *c, const char *name) _pure_;

/* Whether `v` is selected by [Volumes] (kind, name and path globs, excludes). Pure. */
bool config_volume_selected(const Config *c, const Volume *v) _pure_;

/* config-dump.c: every key of the key table with its value in c, section by section (each
 * profile as "[Profile NAME]"), in the file's syntax: config_load() reads it back to the same
 * values. Keys whose value cannot be written (an unset name) appear as a comment. Returns 0 or
 * -errno of the stream. */
int config_dump(const Config *c, FILE *f);

Config *config_free(Config *c);
DEFINE_TRIVIAL_CLEANUP_FUNC(Config *, config_free);

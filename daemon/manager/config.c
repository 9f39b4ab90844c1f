/* SPDX-License-Identifier: MIT */
/* The config parser: libinih splits the INI text, one table maps every (section, key) to a parser
 * and a field, so adding a key is one line and adding a section one entry in `sections`. Line
 * numbers come from our own line reader (inih's handler does not get them in Debian's build), so
 * every error reads "FILE:LINE: message". Duplicate sections within one file, unknown sections
 * and keys, bad values and bad units are errors; nothing is applied from a file with an error. */

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <glob.h>
#include <ini.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <syslog.h>
#include <unistd.h>

#include "basic/parse-util.h"
#include "manager/config-internal.h"
#include "manager/config.h"

/* ---- the table ---------------------------------------------------------------------------- */

#define C(f) offsetof(Config, f)
#define P(f) offsetof(Profile, f)
#define SEC  USEC_PER_SEC
#define DAY  (24ULL * 3600 * USEC_PER_SEC)

static const ConfigKey daemon_keys[] = {
        { "RescanInterval", config_value_usec, C(rescan_interval_usec), SEC, DAY },
        { "DmRaidPollInterval", config_value_usec, C(dm_poll_interval_usec), SEC / 10, DAY },
        { "MdSafetyInterval", config_value_usec, C(md_interval_usec), SEC, DAY },
        { "ControllerPollInterval", config_value_usec, C(cli_poll_interval_usec), 10 * SEC, DAY },
        { "LogLevel", config_value_log_level, C(log_level), 0, 0 },
        { "ControlGroup", config_value_group, C(control_group), 0, 0 },
        { "AdminGroup", config_value_group, C(admin_group), 0, 0 },
        { "ShutdownTimeout", config_value_usec, C(shutdown_timeout_usec), SEC / 10, 300 * SEC },
        { "AssembleTimeout", config_value_usec, C(assemble_timeout_usec), SEC, DAY },
        {},
};

static const ConfigKey schedule_keys[] = {
        { "Builtin", config_value_tristate, C(builtin), 0, 0 },
        { "Profile", config_value_name, C(schedule_profile), 0, 0 },
        { "Interval", config_value_usec, C(schedule_interval_usec), 60 * SEC, 31 * DAY },
        { "FirstDelay", config_value_usec, C(schedule_first_usec), 0, DAY },
        {},
};

static const ConfigKey probe_keys[] = {
        { "ForeignIOThreshold", config_value_bytes64, C(foreign_threshold_bytes), 0, 1ULL << 40 },
        { "IdleWindow", config_value_span, C(idle_window_usec), 0, 10 * SEC },
        { "RetryDelay", config_value_usec, C(retry_delay_usec), SEC / 10, DAY },
        { "RetryDelayMax", config_value_usec, C(retry_delay_max_usec), SEC / 10, DAY },
        { "MaxRetries", config_value_uint, C(max_retries), 0, 100 },
        { "Budget", config_value_usec, C(budget_usec), 0, DAY },
        { "IdlePriority", config_value_bool, C(idle_priority), 0, 0 },
        { "RebuildProfile", config_value_name, C(rebuild_profile), 0, 0 },
        { "MaxDeferral", config_value_usec, C(max_deferral_usec), SEC, 365 * DAY },
        { "DeferralProfile", config_value_name, C(deferral_profile), 0, 0 },
        { "SkipEventAfter", config_value_uint, C(skip_event_after), 1, 1000 },
        { "Parallel", config_value_uint, C(parallel), 1, 16 },
        {},
};

static const ConfigKey volumes_keys[] = {
        { "Name", config_value_list, C(select_names), 0, 0 },
        { "Kind", config_value_kinds, C(select_kinds), 0, 0 },
        { "Path", config_value_list, C(select_paths), 0, 0 },
        { "Exclude", config_value_list, C(exclude), 0, 0 },
        {},
};

static const ConfigKey profile_keys[] = {
        { "SequentialBytes", config_value_bytes64, P(params.seq_bytes), 0, PROBE_SEQ_BYTES_MAX },
        { "SequentialBlockSize", config_value_bytes32, P(params.seq_block_size), 512,
          PROBE_BLOCK_SIZE_MAX },
        { "SequentialQueueDepth", config_value_uint, P(params.seq_queue_depth), 1,
          PROBE_QUEUE_DEPTH_MAX },
        { "RandomBlockSize", config_value_bytes32, P(params.rand_block_size), 512,
          PROBE_BLOCK_SIZE_MAX },
        { "RandomQueueDepth", config_value_uint, P(params.rand_queue_depth), 0,
          PROBE_QUEUE_DEPTH_MAX },
        { "RandomDeepQueueDepth", config_value_uint, P(params.rand_deep_queue_depth), 0,
          PROBE_QUEUE_DEPTH_MAX },
        { "RandomDuration", config_value_usec, P(params.rand_duration_usec), 0, 3600 * SEC },
        { "Timeout", config_value_usec, P(params.timeout_usec), SEC, 3600 * SEC },
        { "Members", config_value_bool, P(members), 0, 0 },
        { "Write", config_value_bool, P(params.write), 0, 0 },
        {},
};

/* Write probes are opt-in twice: a directory here and Write=yes in the profile that runs. */
static const ConfigKey write_probe_keys[] = {
        { "Directory", config_value_list, C(write_dirs), 0, 0 },
        { "Size", config_value_bytes64, C(write_size_bytes), PROBE_WRITE_FILE_MIN,
          PROBE_WRITE_FILE_MAX },
        {},
};

static const ConfigKey http_keys[] = {
        { "Enable", config_value_bool, C(http_enable), 0, 0 },
        { "Listen", config_value_listen, C(http_listen), 0, 0 },
        { "MaxConnections", config_value_uint, C(http_max_connections), 1, 100000 },
        { "MaxConnectionsPerAddress", config_value_uint, C(http_max_connections_ip), 1, 100000 },
        { "ConnectionMemory", config_value_bytes64, C(http_connection_memory), 8192, 16U << 20 },
        { "Timeout", config_value_usec, C(http_timeout_usec), SEC, 3600 * SEC },
        { "RequestTimeout", config_value_usec, C(http_request_timeout_usec), SEC, 3600 * SEC },
        { "TLSPriorities", config_value_string, C(http_tls_priorities), 0, 0 },
        { "TLSCertificate", config_value_string, C(http_tls_certificate), 0, 0 },
        { "TLSKey", config_value_string, C(http_tls_key), 0, 0 },
        { "User", config_value_string, C(http_user), 0, 0 },
        { "PasswordHash", config_value_string, C(http_password_hash), 0, 0 },
        { "LatencyHistogram", config_value_latency_histogram, C(http_latency_histogram), 0, 0 },
        {},
};

#define MS USEC_PER_MSEC

/* Ranges: wide enough for any real device, narrow enough that no value silences the detector by
 * accident (a 99% threshold) or makes it fire on noise (a factor of 1). */
static const ConfigKey detection_keys[] = {
        { "BaselineWindow", config_value_uint, C(detect_window), 2, BASELINE_WINDOW_MAX },
        { "MinSamples", config_value_uint, C(detect_min_samples), 1, BASELINE_WINDOW_MAX },
        { "ThroughputThreshold", config_value_percent, C(detect_threshold), 5, 95 },
        { "LatencyFactor", config_value_factor, C(detect_p50_factor), 110, 100000 },
        { "P99LatencyFactor", config_value_factor, C(detect_p99_factor), 110, 100000 },
        { "LatencyFloor", config_value_span, C(detect_latency_floor_usec), 0, 60 * SEC },
        { "BadRuns", config_value_uint, C(detect_bad_runs), 1, 100 },
        { "GoodRuns", config_value_uint, C(detect_good_runs), 1, 100 },
        { "MemberLatencyFloor", config_value_span, C(peer_floor_usec), 0, 60 * SEC },
        { "MemberAwaitFloor", config_value_span, C(peer_await_floor_usec), 0, 60 * SEC },
        { "MemberFactor", config_value_factor, C(peer_factor), 100, 100000 },
        { "RebuildMaxETA", config_value_usec, C(rebuild_eta_limit_usec), SEC, 365 * DAY },
        { "RebuildSpeedFloor", config_value_bytes64, C(rebuild_speed_floor_bytes), 0, 1ULL << 40 },
        { "RebuildSustain", config_value_span, C(rebuild_sustain_usec), 0, 7 * DAY },
        { "RebuildForegroundIO", config_value_bytes64, C(rebuild_foreground_bytes), 0, 1ULL << 40 },
        { "RebuildForegroundIOPS", config_value_uint, C(rebuild_foreground_iops), 0, 10000000 },
        { "StatisticsInterval", config_value_span, C(detect_stat_interval_usec), SEC / 2,
          3600 * SEC },
        {},
};

static const ConfigSection sections[] = {
        { "Daemon", daemon_keys, false, false },  { "Schedule", schedule_keys, false, false },
        { "Probe", probe_keys, false, false },    { "Volumes", volumes_keys, false, false },
        { "Profile", profile_keys, true, false }, { "WriteProbe", write_probe_keys, false, false },
        { "HTTP", http_keys, false, false },      { "Detection", detection_keys, false, false },
};

const ConfigSection *config_sections(size_t *ret_n) {
        *ret_n = ELEMENTSOF(sections);
        return sections;
}

/* ---- defaults ----------------------------------------------------------------------------- */

static void profile_set(Profile *pr, const char *name, ProbeParams params, bool members) {
        *pr = (Profile){ .params = params, .members = members };
        (void) snprintf(pr->name, sizeof(pr->name), "%s", name);
}

/* The built-in profiles: quick, deep and light (none writes). */
static void default_profiles(Config *c) {
        ProbeParams quick = PROBE_PARAMS_DEFAULT, deep = PROBE_PARAMS_DEFAULT,
                    light = PROBE_PARAMS_DEFAULT;

        /* quick: a short sequential read and a few seconds of random reads */
        quick.seq_bytes = 64U << 20;
        quick.rand_duration_usec = 2 * SEC;
        quick.rand_deep_queue_depth = 0;
        quick.timeout_usec = 30 * SEC;
        /* deep: longer, members of arrays included */
        deep.seq_bytes = 1ULL << 30;
        deep.rand_duration_usec = 10 * SEC;
        deep.timeout_usec = 120 * SEC;
        /* light: while an array rebuilds (md throttles its rebuild toward sync_speed_min) */
        light.seq_bytes = 0;
        light.rand_queue_depth = 1;
        light.rand_deep_queue_depth = 0;
        light.rand_duration_usec = SEC;
        light.timeout_usec = 15 * SEC;
        profile_set(&c->profiles[0], "quick", quick, false);
        profile_set(&c->profiles[1], "deep", deep, true);
        profile_set(&c->profiles[2], "light", light, false);
        c->n_profiles = 3;
}

int config_new_default(Config **ret) {
        Config *c = calloc(1, sizeof(*c));

        if (!c)
                return -ENOMEM;
        c->rescan_interval_usec = 300 * SEC;
        c->dm_poll_interval_usec = 5 * SEC;
        c->md_interval_usec = 60 * SEC;
        c->cli_poll_interval_usec = 600 * SEC;
        c->log_level = LOG_INFO;
        c->control_gid = c->admin_gid = CONFIG_GID_INVALID;
        c->shutdown_timeout_usec = 5 * SEC;
        c->assemble_timeout_usec = 60 * SEC;
        c->builtin = -1;
        (void) snprintf(c->schedule_profile, sizeof(c->schedule_profile), "quick");
        c->schedule_interval_usec = 6 * 3600 * SEC;
        c->schedule_first_usec = 60 * SEC;
        c->foreign_threshold_bytes = 1 << 20;
        c->idle_window_usec = 200 * USEC_PER_MSEC;
        c->retry_delay_usec = 30 * SEC;
        c->retry_delay_max_usec = 600 * SEC;
        c->max_retries = 5;
        c->budget_usec = 600 * SEC;
        c->idle_priority = true;
        (void) snprintf(c->rebuild_profile, sizeof(c->rebuild_profile), "light");
        c->max_deferral_usec = DAY;
        (void) snprintf(c->deferral_profile, sizeof(c->deferral_profile), "light");
        c->skip_event_after = 3;
        c->parallel = 1;
        c->write_size_bytes = PROBE_WRITE_FILE_DEFAULT;
        /* loop, RAM and compressed-RAM disks are rarely storage worth watching */
        if (config_value_list(NULL, "loop* ram* zram*", &c->exclude, 0, 0) < 0) {
                config_free(c);
                return -ENOMEM;
        }
        c->http_enable = true;
        c->http_max_connections = 64;
        c->http_max_connections_ip = 16;
        c->http_connection_memory = 32768;
        c->http_timeout_usec = 10 * SEC;
        c->http_request_timeout_usec = 10 * SEC;
        {
                const PerfMonitorConfig d = PERF_MONITOR_CONFIG_DEFAULT;

                c->detect_window = d.window;
                c->detect_min_samples = d.detector.min_samples;
                c->detect_threshold = d.detector.threshold;
                c->detect_p50_factor = d.detector.factor;
                c->detect_p99_factor = d.detector.p99_factor;
                c->detect_latency_floor_usec = (usec_t) (d.detector.latency_floor_ns / 1000);
                c->detect_bad_runs = d.detector.k_bad;
                c->detect_good_runs = d.detector.m_good;
                c->peer_floor_usec = (usec_t) (d.peers.floor_ms[PEER_SOURCE_PROBE] * 1000);
                c->peer_await_floor_usec = (usec_t) (d.peers.floor_ms[PEER_SOURCE_AWAIT] * 1000);
                c->peer_factor = d.peers.factor;
                c->rebuild_eta_limit_usec = (usec_t) (d.rebuild.eta_limit_sec * USEC_PER_SEC);
                c->rebuild_speed_floor_bytes = (uint64_t) d.rebuild.speed_floor_bytes_per_sec;
                c->rebuild_sustain_usec = d.rebuild.sustain_usec;
                c->rebuild_foreground_bytes = (uint64_t) d.rebuild.busy_bytes_per_sec;
                c->rebuild_foreground_iops = (unsigned) d.rebuild.busy_iops;
                c->detect_stat_interval_usec = CONFIG_STAT_INTERVAL_DEFAULT;
        }
        c->select_kinds = (1U << VOLUME_MD) | (1U << VOLUME_LVM) | (1U << VOLUME_DM) |
                          (1U << VOLUME_CONTROLLER) | (1U << VOLUME_DISK);

        default_profiles(c);
        *ret = c;
        return 0;
}

Config *config_free(Config *c) {
        if (!c)
                return NULL;
        free(c->control_group);
        free(c->admin_group);
        config_strv_free(c->select_names);
        config_strv_free(c->select_paths);
        config_strv_free(c->exclude);
        config_strv_free(c->write_dirs);
        config_strv_free(c->http_listen);
        free(c->http_tls_certificate);
        free(c->http_tls_key);
        free(c->http_tls_priorities);
        free(c->http_user);
        free(c->http_password_hash);
        for (size_t i = 0; i < c->n_origins; i++)
                free(c->origins[i].file);
        free(c->origins);
        free(c);
        return NULL;
}

void config_perf_monitor_config(const Config *c, PerfMonitorConfig *ret) {
        PerfMonitorConfig pc = PERF_MONITOR_CONFIG_DEFAULT;

        pc.window = c->detect_window;
        pc.detector.min_samples = c->detect_min_samples;
        pc.detector.threshold = c->detect_threshold;
        /* the busy margin is never tighter than the idle one */
        pc.detector.busy_threshold = MAX(pc.detector.busy_threshold, c->detect_threshold);
        pc.detector.factor = c->detect_p50_factor;
        pc.detector.p99_factor = c->detect_p99_factor;
        pc.detector.latency_floor_ns = (double) c->detect_latency_floor_usec * 1000;
        pc.detector.k_bad = c->detect_bad_runs;
        pc.detector.m_good = c->detect_good_runs;
        pc.peers.floor_ms[PEER_SOURCE_PROBE] = (double) c->peer_floor_usec / 1000;
        pc.peers.floor_ms[PEER_SOURCE_AWAIT] = (double) c->peer_await_floor_usec / 1000;
        pc.peers.floor_ms[PEER_SOURCE_WRITE_AWAIT] = pc.peers.floor_ms[PEER_SOURCE_AWAIT];
        pc.peers.factor = c->peer_factor;
        pc.rebuild.eta_limit_sec =
                c->rebuild_eta_limit_usec == 0 || c->rebuild_eta_limit_usec == USEC_INFINITY
                        ? INFINITY
                        : (double) c->rebuild_eta_limit_usec / USEC_PER_SEC;
        pc.rebuild.speed_floor_bytes_per_sec = (double) c->rebuild_speed_floor_bytes;
        pc.rebuild.sustain_usec = c->rebuild_sustain_usec;
        pc.rebuild.busy_bytes_per_sec = (double) c->rebuild_foreground_bytes;
        pc.rebuild.busy_iops = c->rebuild_foreground_iops;
        *ret = pc;
}

const Profile *config_get_profile(const Config *c, const char *name) {
        for (size_t i = 0; c && name && i < c->n_profiles; i++)
                if (strcmp(c->profiles[i].name, name) == 0)
                        return &c->profiles[i];
        return NULL;
}

static bool match_any(char *const *globs, const char *s) {
        for (size_t i = 0; globs && globs[i]; i++)
                if (s && fnmatch(globs[i], s, 0) == 0)
                        return true;
        return false;
}

bool config_volume_selected(const Config *c, const Volume *v) {
        if (v->kind < 0 || v->kind >= _VOLUME_KIND_MAX || !(c->select_kinds & (1U << v->kind)))
                return false;
        if (c->select_names && !match_any(c->select_names, v->name))
                return false;
        if (c->select_paths && !match_any(c->select_paths, v->path))
                return false;
        return !match_any(c->exclude, v->name) && !match_any(c->exclude, v->path);
}

/* ---- where each key was set ---------------------------------------------------------------- */

/* Remembers FILE:LINE of the last assignment of [section] key, so an error found only when the
 * files are combined (a profile named but defined nowhere) names the line that caused it, in
 * whichever drop-in it sits. */
static int origin_record(ParseCtx *p, const char *section, const char *key) {
        Config *c = p->c;
        ConfigOrigin *o = NULL, *a;

        for (size_t i = 0; i < c->n_origins && !o; i++)
                if (strcmp(c->origins[i].section, section) == 0 &&
                    strcmp(c->origins[i].key, key) == 0)
                        o = &c->origins[i];
        if (!o) {
                a = realloc(c->origins, (c->n_origins + 1) * sizeof(*a));
                if (!a)
                        return -ENOMEM;
                c->origins = a;
                o = &a[c->n_origins++];
                *o = (ConfigOrigin){};
                (void) snprintf(o->section, sizeof(o->section), "%s", section);
                (void) snprintf(o->key, sizeof(o->key), "%s", key);
        }
        if (!o->file || strcmp(o->file, p->file) != 0) {
                char *f = strdup(p->file);

                if (!f)
                        return -ENOMEM;
                free(o->file);
                o->file = f;
        }
        o->line = p->line;
        o->seq = ++c->origin_seq;
        return 0;
}

/* Points p at the most recent assignment among [section] keys... (NULL-terminated; no key at all:
 * any key of the section); p stays at "MAINFILE:0" when none of them was set in a file. */
static void origin_at(ParseCtx *p, const char *section, ...) {
        const ConfigOrigin *best = NULL;
        const char *k;
        va_list ap;

        va_start(ap, section);
        k = va_arg(ap, const char *);
        for (size_t i = 0; i < p->c->n_origins; i++) {
                const ConfigOrigin *o = &p->c->origins[i];
                bool match = strcmp(o->section, section) == 0 && !k;
                va_list aq;

                va_copy(aq, ap);
                for (const char *x = k; x && !match; x = va_arg(aq, const char *))
                        match = strcmp(o->section, section) == 0 && strcmp(o->key, x) == 0;
                va_end(aq);
                if (match && (!best || o->seq > best->seq))
                        best = o;
        }
        va_end(ap);
        if (best) {
                p->file = best->file;
                p->line = best->line;
        }
}

/* ---- inih glue ---------------------------------------------------------------------------- */

static Profile *profile_for(ParseCtx *p, const char *name) {
        Config *c = p->c;
        Profile *pr = (Profile *) config_get_profile(c, name);

        if (pr)
                return pr;
        if (c->n_profiles >= CONFIG_PROFILES_MAX) {
                config_error(p, "too many profiles (at most %d)", CONFIG_PROFILES_MAX);
                return NULL;
        }
        /* a new profile starts from quick's parameters */
        pr = &c->profiles[c->n_profiles++];
        profile_set(pr, name, config_get_profile(c, "quick")->params, false);
        return pr;
}

static int handler(void *user, const char *section, const char *name, const char *value) {
        ParseCtx *p = user;
        const ConfigSection *sec = NULL;
        const char *arg = NULL;
        void *base;

        if (p->error)
                return 1; /* report only the first error */
        for (size_t i = 0; i < ELEMENTSOF(sections) && !sec; i++) {
                size_t n = strlen(sections[i].name);

                if (sections[i].profile) {
                        if (strncmp(section, sections[i].name, n) == 0 && section[n] == ' ') {
                                sec = &sections[i];
                                arg = section + n + 1;
                        }
                } else if (strcmp(section, sections[i].name) == 0)
                        sec = &sections[i];
        }
        if (!sec) {
                config_error(p, "unknown section [%s]", section);
                return 0;
        }
        /* a section that was left and opened again in the same file is a duplicate */
        if (strcmp(p->last_section, section) != 0) {
                for (size_t i = 0; i < p->n_seen; i++)
                        if (strcmp(p->seen[i], section) == 0) {
                                config_error(p, "duplicate section [%s]", section);
                                return 0;
                        }
                if (p->n_seen < ELEMENTSOF(p->seen))
                        (void) snprintf(p->seen[p->n_seen++], sizeof(p->seen[0]), "%s", section);
                (void) snprintf(p->last_section, sizeof(p->last_section), "%s", section);
        }
        if (sec->open)
                return 1;
        if (sec->profile) {
                Profile *pr;

                if (config_value_name(p, arg, (char[CONFIG_PROFILE_NAME_MAX]){}, 0, 0) < 0)
                        return 0;
                pr = profile_for(p, arg);
                if (!pr)
                        return 0;
                base = pr;
        } else
                base = p->c;
        for (const ConfigKey *k = sec->keys; k->key; k++)
                if (strcmp(k->key, name) == 0) {
                        int r = k->parse(p, value, (char *) base + k->offset, k->min, k->max);

                        if (r >= 0)
                                r = origin_record(p, section, name);
                        if (r == -ENOMEM)
                                config_error(p, "out of memory");
                        return r < 0 ? 0 : 1;
                }
        config_error(p, "unknown key '%s' in section [%s]", name, section);
        return 0;
}

/* inih reader: one line per call, counting lines for the handler's errors. */
static char *reader(char *str, int num, void *stream) {
        ParseCtx *p = stream;

        size_t k;

        if (!p->str || !*p->str)
                return NULL;
        k = strcspn(p->str, "\n");
        if (p->str[k] == '\n')
                k++;
        if (k > (size_t) num - 1)
                k = (size_t) num - 1;
        memcpy(str, p->str, k);
        str[k] = 0;
        p->str += k;
        p->line++;
        /* inih hands us INI_MAX_LINE bytes at a time: a longer line would come back as a second,
         * bogus line with a wrong number. Refuse it here, at its own line. */
        if (!strchr(str, '\n') && strlen(str) >= (size_t) num - 1) {
                p->str += strcspn(p->str, "\n");
                if (*p->str == '\n')
                        p->str++;
                config_error(p, "line too long (at most %d bytes; repeat a list key to append)",
                             num - 2);
                str[0] = 0;
        }
        return str;
}

/* A Directory= is an absolute path without "." or ".." components (it is matched against the
 * mount table by its text, before the probe helper opens it). */
static bool write_dir_ok(const char *d) {
        if (d[0] != '/')
                return false;
        for (const char *s = d; *s;) {
                size_t n;

                s += strspn(s, "/");
                n = strcspn(s, "/");
                if ((n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
                        return false;
                s += n;
        }
        return true;
}

static int validate_write(ParseCtx *p) {
        Config *c = p->c;

        for (size_t i = 0; c->write_dirs && c->write_dirs[i]; i++)
                if (!write_dir_ok(c->write_dirs[i])) {
                        origin_at(p, "WriteProbe", "Directory", NULL);
                        config_error(p,
                                     "[WriteProbe] Directory=%s is not an absolute path without "
                                     "'.' or '..'",
                                     c->write_dirs[i]);
                        return -EINVAL;
                }
        if (c->write_size_bytes % 4096 != 0) {
                origin_at(p, "WriteProbe", "Size", NULL);
                config_error(p, "[WriteProbe] Size= is not a multiple of 4K");
                return -EINVAL;
        }
        return 0;
}

static int validate(ParseCtx *p) {
        Config *c = p->c;

        if (validate_write(p) < 0)
                return -EINVAL;

        if (!config_get_profile(c, c->schedule_profile)) {
                origin_at(p, "Schedule", "Profile", NULL);
                config_error(p, "[Schedule] Profile=%s names no profile", c->schedule_profile);
                return -EINVAL;
        }
        if (!config_get_profile(c, c->rebuild_profile)) {
                origin_at(p, "Probe", "RebuildProfile", NULL);
                config_error(p, "[Probe] RebuildProfile=%s names no profile", c->rebuild_profile);
                return -EINVAL;
        }
        if (!config_get_profile(c, c->deferral_profile)) {
                origin_at(p, "Probe", "DeferralProfile", NULL);
                config_error(p, "[Probe] DeferralProfile=%s names no profile", c->deferral_profile);
                return -EINVAL;
        }
        if (c->retry_delay_max_usec < c->retry_delay_usec) {
                origin_at(p, "Probe", "RetryDelay", "RetryDelayMax", NULL);
                config_error(p, "[Probe] RetryDelayMax= is shorter than RetryDelay=");
                return -EINVAL;
        }
        if (c->detect_min_samples > c->detect_window) {
                origin_at(p, "Detection", "MinSamples", "BaselineWindow", NULL);
                config_error(p, "[Detection] MinSamples=%u exceeds BaselineWindow=%u",
                             c->detect_min_samples, c->detect_window);
                return -EINVAL;
        }
        {
                PerfMonitorConfig pc;

                config_perf_monitor_config(c, &pc);
                if (perf_monitor_config_validate(&pc) < 0) {
                        origin_at(p, "Detection", NULL);
                        config_error(p, "[Detection]: invalid combination of values");
                        return -EINVAL;
                }
        }
        for (size_t i = 0; i < c->n_profiles; i++) {
                ProbeParam bad;
                char sec[64];

                if (probe_params_validate(&c->profiles[i].params, &bad) < 0) {
                        (void) snprintf(sec, sizeof(sec), "Profile %s", c->profiles[i].name);
                        origin_at(p, sec, NULL);
                        config_error(p, "[Profile %s]: invalid parameter %s", c->profiles[i].name,
                                     probe_param_to_string(bad));
                        return -EINVAL;
                }
        }
        return 0;
}

/* Hands p's message to the caller (or frees it) and returns r. */
static int ctx_finish(ParseCtx *p, int r, char **ret_error) {
        if (ret_error)
                *ret_error = TAKE_PTR(p->error);
        else
                p->error = mfree(p->error);
        return r;
}

/* The whole configuration checked after the last file: "FILE:0: ..." on a contradiction. */
static int validate_all(Config *c, const char *file, char **ret_error) {
        ParseCtx p = { .c = c, .file = file };
        int r = validate(&p);

        return r < 0 ? ctx_finish(&p, r, ret_error) : 0;
}

static int parse_one(Config *c, const char *name, const char *text, char **ret_error) {
        ParseCtx p = { .c = c, .file = name, .str = text };
        int r;

        r = ini_parse_stream(reader, &p, handler, &p);
        if (r > 0 && !p.error) {
                p.line = (unsigned) r;
                config_error(&p, "syntax error (expected [Section] or Key=Value)");
        } else if (r < 0 && !p.error)
                config_error(&p, "cannot parse (%s)", r == -2 ? "out of memory" : "read error");
        if (p.error)
                return ctx_finish(&p, -EINVAL, ret_error);
        return 0;
}

int config_parse_string(Config *c, const char *name, const char *text, char **ret_error) {
        int r = parse_one(c, name, text, ret_error);

        if (r < 0)
                return r;
        return validate_all(c, name, ret_error);
}

/* The whole of a config file, refused unless it is a regular file (or /dev/null) of at most
 * CONFIG_FILE_MAX bytes without a NUL byte (a directory, a FIFO, /dev/zero or a truncated binary is
 * a mistake, never an empty or endless config). *ret_error gets "FILE:LINE: message". */
static int read_config_file(const char *path, char **ret, char **ret_error) {
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *buf = NULL;
        const char *why = NULL;
        struct stat st;
        size_t size = 0;
        unsigned line = 0;
        int r = 0;

        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3))
                ; /* /dev/null: the usual way to say "no config", read as empty */
        else if (!S_ISREG(st.st_mode)) {
                why = S_ISDIR(st.st_mode) ? "is a directory, not a config file"
                                          : "not a regular file";
                r = -EINVAL;
        } else if (st.st_size > CONFIG_FILE_MAX)
                r = -EFBIG;
        if (r >= 0) {
                buf = malloc(CONFIG_FILE_MAX + 2);
                if (!buf)
                        return -ENOMEM;
                while (size <= CONFIG_FILE_MAX) {
                        ssize_t n = read(fd, buf + size, CONFIG_FILE_MAX + 1 - size);

                        if (n < 0 && errno == EINTR)
                                continue;
                        if (n < 0)
                                return -errno;
                        if (n == 0)
                                break;
                        size += (size_t) n;
                }
                if (size > CONFIG_FILE_MAX)
                        r = -EFBIG; /* grew since fstat() */
        }
        if (r == -EFBIG)
                why = "too large (at most 1 MiB)";
        if (r >= 0) {
                const char *nul = memchr(buf, 0, size);

                if (nul) {
                        line = 1;
                        for (const char *q = buf; q < nul; q++)
                                line += *q == '\n';
                        why = "NUL byte in the text (not a text file?)";
                        r = -EBADMSG;
                }
        }
        if (r < 0) {
                if (ret_error && asprintf(ret_error, "%s:%u: %s", path, line, why) < 0)
                        *ret_error = NULL;
                return r;
        }
        buf[size] = 0;
        *ret = TAKE_PTR(buf);
        return 0;
}

static int parse_file(Config *c, const char *path, bool must_exist, char **ret_error) {
        _cleanup_free_ char *text = NULL;
        char *error = NULL;
        int r;

        r = read_config_file(path, &text, &error);
        if (r < 0) {
                if (r == -ENOENT && !must_exist)
                        return 0;
                if (!error && asprintf(&error, "%s:0: cannot open: %s", path, strerror(-r)) < 0)
                        error = NULL;
                if (ret_error)
                        *ret_error = error;
                else
                        free(error);
                return r;
        }
        return parse_one(c, path, text, ret_error);
}

int config_load(const char *path, bool must_exist, Config **ret, char **ret_error) {
        _cleanup_(config_freep) Config *c = NULL;
        _cleanup_free_ char *pattern = NULL;
        glob_t g = {};
        int r;

        r = config_new_default(&c);
        if (r < 0)
                return r;
        r = parse_file(c, path, must_exist, ret_error);
        if (r < 0)
                return r;
        if (asprintf(&pattern, "%s.d/*.conf", path) < 0)
                return -ENOMEM;
        if (glob(pattern, 0, NULL, &g) == 0) /* sorted: lexical order */
                for (size_t i = 0; i < g.gl_pathc && r >= 0; i++)
                        r = parse_file(c, g.gl_pathv[i], true, ret_error);
        globfree(&g);
        if (r < 0)
                return r;
        r = validate_all(c, path, ret_error);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(c);
        return 0;
}

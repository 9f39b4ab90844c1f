/* SPDX-License-Identifier: MIT */
/* The daemon's side of learned baselines (core/perf-monitor): a publish hook picks up every new
 * probe result (a volume record's n_probes moved), and ends the round when the profile run is
 * over (Manager.n_runs moved, or no run is left); a timer ticks the passive statistics (await of
 * array members, foreground rates of arrays, slow rebuilds). Monitor events become journal
 * events. The baselines are loaded from the state directory at start and saved (atomically) at
 * most once a minute after a round, after a reset, and at exit. The hook guards against its own
 * re-entry: manager_event() publishes, which calls the hook again. */

#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/host-stall.h"
#include "basic/log.h"
#include "core/baseline-store.h"
#include "core/perf-monitor.h"
#include "core/perf-report.h"
#include "manager/manager-internal.h"

#define PERF_SAVE_USEC (60 * USEC_PER_SEC)

typedef struct Seen {
        char *name;
        uint64_t n_probes;
        usec_t cpu_usec;
} Seen;

struct ManagerPerf {
        Manager *m;
        PerfMonitor *pm;
        sd_event_source *tick;
        int state_fd;
        StateWriter *writer; /* baselines.json off the loop */
        bool in_hook, pending;
        uint64_t seen_runs;
        usec_t last_save_usec;
        Seen *seen;
        size_t n_seen;
        /* the host-stall watch: a short timer while probes run (analysis/host-stall) */
        sd_event_source *watch;
        HostStall stall;
        HostStallConfig stall_cfg;
};

static ManagerEventType event_type(PerfEventType t) {
        switch (t) {
        case PERF_EVENT_DEGRADED:
                return MANAGER_EVENT_PERFORMANCE_DEGRADED;
        case PERF_EVENT_RECOVERED:
                return MANAGER_EVENT_PERFORMANCE_RECOVERED;
        case PERF_EVENT_MEMBER_SLOW:
                return MANAGER_EVENT_MEMBER_SLOW;
        case PERF_EVENT_MEMBER_NORMAL:
                return MANAGER_EVENT_MEMBER_NORMAL;
        case PERF_EVENT_MEMBER_FLAPPING:
                return MANAGER_EVENT_MEMBER_FLAPPING;
        case PERF_EVENT_REBUILD_SLOW:
                return MANAGER_EVENT_REBUILD_SLOW;
        case PERF_EVENT_BACKGROUND_REBUILD:
                return MANAGER_EVENT_BACKGROUND_REBUILD;
        case _PERF_EVENT_TYPE_MAX:
        case _PERF_EVENT_TYPE_INVALID:
                break;
        }
        return _MANAGER_EVENT_TYPE_INVALID;
}

static void on_perf_event(const PerfEvent *e, void *userdata) {
        ManagerPerf *p = userdata;
        ManagerEventType t = event_type(e->type);

        if (t < 0)
                return;
        manager_event(p->m, t, e->volume, e->member, (char *const *) e->fields, "%s", e->message);
}

static void on_saved(StateWriter *w, int r, void *userdata) {
        ManagerPerf *p = userdata;

        if (r < 0)
                perf_monitor_set_dirty(p->pm); /* written with the next round or at exit */
        manager_state_save_result(p->m, BASELINE_STORE_FILE, &p->m->baseline_error, r);
        if (p->m->changed && !p->m->stopping) /* at exit the hooks' owners are going away */
                manager_publish(p->m);
}

/* Serializes the baselines on the loop; p->writer's thread writes the file. */
static void save(ManagerPerf *p, bool force) {
        char *text = NULL;
        int r;

        if (p->state_fd < 0)
                return;
        if (!perf_monitor_take_dirty(p->pm) && !force)
                return;
        r = baseline_store_format(perf_monitor_baselines(p->pm), &text);
        if (r >= 0)
                r = manager_state_writer_prepare(p->m, &p->writer, BASELINE_STORE_FILE, on_saved,
                                                 p);
        if (r >= 0)
                r = state_writer_submit(p->writer, TAKE_PTR(text));
        free(text);
        if (r < 0) {
                perf_monitor_set_dirty(p->pm);
                manager_state_save_result(p->m, BASELINE_STORE_FILE, &p->m->baseline_error, r);
        }
        p->last_save_usec = now(CLOCK_MONOTONIC);
}

static Seen *seen_get(ManagerPerf *p, const char *name) {
        Seen *a;

        for (size_t i = 0; i < p->n_seen; i++)
                if (strcmp(p->seen[i].name, name) == 0)
                        return &p->seen[i];
        a = realloc(p->seen, (p->n_seen + 1) * sizeof(*a));
        if (!a)
                return NULL;
        p->seen = a;
        a[p->n_seen] = (Seen){ .name = strdup(name) };
        if (!a[p->n_seen].name)
                return NULL;
        return &a[p->n_seen++];
}

/* The probe of `name` that just ended (wall time duration) is not judged if the host stalled
 * through enough of it, or if the probe itself waited for a CPU for a quarter of its time (at
 * least 20 ms): nice 19 on a CPU-bound machine, a latency figure of the host's load. */
static void check_stall(ManagerPerf *p, const char *name, usec_t duration,
                        const ManagerProbeSample *s) {
        HostStallConfig cpu = p->stall_cfg;
        usec_t end = now(CLOCK_MONOTONIC), late;

        cpu.min_usec = 20 * USEC_PER_MSEC;
        if (s->cpu_wait_usec != USEC_INFINITY && s->probe_usec > 0 &&
            host_stall_starved(&cpu, s->cpu_wait_usec, s->probe_usec)) {
                log_info("%s: the probe waited for a CPU for %.0f ms of its %.0f ms: run not "
                         "judged",
                         name, (double) s->cpu_wait_usec / USEC_PER_MSEC,
                         (double) s->probe_usec / USEC_PER_MSEC);
                (void) perf_monitor_mark_starved(p->pm, name);
                return;
        }

        late = host_stall_late_in(&p->stall, end > duration ? end - duration : 0, end);
        if (!host_stall_starved(&p->stall_cfg, late, duration))
                return;
        log_info("%s: the host stalled for %.0f ms of the probe's %.0f ms (the daemon's timer "
                 "fired late): run not judged",
                 name, (double) late / USEC_PER_MSEC, (double) duration / USEC_PER_MSEC);
        (void) perf_monitor_mark_starved(p->pm, name);
}

static int on_watch(sd_event_source *s, uint64_t usec, void *userdata) {
        ManagerPerf *p = userdata;
        usec_t t = now(CLOCK_MONOTONIC);

        (void) host_stall_note(&p->stall, &p->stall_cfg, usec, t);
        if (!p->m->run)
                return 0; /* ONESHOT: off until the next run */
        (void) sd_event_source_set_time(s, t + p->stall_cfg.interval_usec);
        (void) sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
        return 0;
}

/* Arm the watch while a run is in progress. */
static void watch_arm(ManagerPerf *p) {
        int enabled = SD_EVENT_OFF;

        if (!p->m->run)
                return;
        if (!p->watch) {
                if (sd_event_add_time_relative(p->m->event, &p->watch, CLOCK_MONOTONIC,
                                               p->stall_cfg.interval_usec, USEC_PER_MSEC, on_watch,
                                               p) < 0)
                        p->watch = NULL;
                return;
        }
        if (sd_event_source_get_enabled(p->watch, &enabled) >= 0 && enabled != SD_EVENT_OFF)
                return;
        (void) sd_event_source_set_time_relative(p->watch, p->stall_cfg.interval_usec);
        (void) sd_event_source_set_enabled(p->watch, SD_EVENT_ONESHOT);
}

/* Feed every probe result not seen yet. */
static void add_write(const ManagerProbeSample *s, BaselineSample *x) {
        const ManagerProbePhaseSummary *ws = &s->phases[PROBE_PHASE_WRITE_SEQUENTIAL],
                                       *wr = &s->phases[PROBE_PHASE_WRITE_RANDOM],
                                       *sy = &s->phases[PROBE_PHASE_WRITE_SYNC];

        perf_sample_add_write(x, ws->ran ? ws->bytes_per_second : NAN, wr->ran ? wr->iops : NAN,
                              wr->ran ? (double) wr->p99_ns : NAN,
                              sy->ran ? (double) sy->p99_ns : NAN);
}

/* A probe sample as the baselines see it; cpu_usec: the helper's CPU time (NAN: not known). */
static void baseline_sample_of(const ManagerProbeSample *s, double cpu_usec, BaselineSample *x) {
        const ManagerProbePhaseSummary *seq = &s->phases[PROBE_PHASE_SEQUENTIAL],
                                       *rnd = &s->phases[PROBE_PHASE_RANDOM];

        perf_sample_from_probe(seq->ran ? seq->bytes_per_second : NAN, rnd->ran ? rnd->iops : NAN,
                               rnd->ran ? (double) rnd->p50_ns : NAN,
                               rnd->ran ? (double) rnd->p99_ns : NAN,
                               rnd->ran ? (double) rnd->max_ns : NAN, cpu_usec, x);
        add_write(s, x);
}

static bool sample_failed(const ManagerProbeSample *s) {
        return s->status != PROBE_RUNNER_DONE || s->state != PROBE_STATE_OK || s->errors > 0;
}

bool manager_perf_second_look(Manager *m, const Volume *v, const ManagerProbeSample *s,
                              DetectorFinding *ret_worst) {
        BaselineSample x;

        if (!m->perf || !m->inventory || !v || !s || sample_failed(s))
                return false;
        baseline_sample_of(s, NAN, &x);
        return perf_monitor_second_look(m->perf->pm, m->inventory, v, &x, s->profile,
                                        now(CLOCK_MONOTONIC) - s->duration_usec,
                                        s->foreground_share, ret_worst);
}

static void pick_up_results(ManagerPerf *p) {
        Manager *m = p->m;

        for (size_t i = 0; i < m->n_volumes; i++) {
                const ManagerVolume *r = m->volumes[i];
                const ManagerProbeSample *s;
                BaselineSample x;
                Seen *seen;

                if (!r->volume || !r->name)
                        continue;
                seen = seen_get(p, r->name);
                if (!seen || seen->n_probes == r->n_probes)
                        continue;
                s = manager_volume_get_sample(r, 0);
                if (!s) {
                        seen->n_probes = r->n_probes;
                        continue;
                }
                baseline_sample_of(s,
                                   seen->n_probes > 0 && r->cpu_usec >= seen->cpu_usec
                                           ? (double) (r->cpu_usec - seen->cpu_usec)
                                           : NAN,
                                   &x);
                if (perf_monitor_feed_probe(p->pm, r->volume, &x, sample_failed(s),
                                            now(CLOCK_MONOTONIC) - s->duration_usec,
                                            s->profile) >= 0) {
                        p->pending = true;
                        (void) perf_monitor_set_foreground(p->pm, r->name, s->foreground_share);
                        check_stall(p, r->name, s->duration_usec, s);
                }
                seen->n_probes = r->n_probes;
                seen->cpu_usec = r->cpu_usec;
        }
}

static void on_publish(Manager *m, unsigned changed, void *userdata) {
        ManagerPerf *p = userdata;
        int r;

        if (p->in_hook || !m->inventory || !(changed & MANAGER_CHANGED_PROBE))
                return;
        p->in_hook = true;
        watch_arm(p);
        pick_up_results(p);
        if (p->pending && (m->n_runs != p->seen_runs || !m->run)) {
                p->seen_runs = m->n_runs;
                p->pending = false;
                r = perf_monitor_end_round(p->pm, m->inventory, now(CLOCK_MONOTONIC),
                                           now(CLOCK_REALTIME));
                if (r < 0)
                        log_warning_errno(r, "Failed to judge the probe round: %m, ignoring");
                if (now(CLOCK_MONOTONIC) >= p->last_save_usec + PERF_SAVE_USEC)
                        save(p, false);
        }
        p->in_hook = false;
}

static int on_tick(sd_event_source *s, uint64_t usec, void *userdata) {
        ManagerPerf *p = userdata;
        int r;

        if (p->m->inventory && !p->in_hook) {
                size_t slow = perf_monitor_rebuilds_slow(p->pm);

                p->in_hook = true;
                r = perf_monitor_tick(p->pm, p->m->inventory, p->m->md_monitor,
                                      now(CLOCK_MONOTONIC), now(CLOCK_REALTIME));
                if (r < 0)
                        log_warning_errno(r, "Failed to read the passive statistics: %m, ignoring");
                p->in_hook = false;
                /* A rebuild that stops being slow (it ended, or sped up) raises no event: publish
                 * it, or /metrics keeps storpulse_rebuild_slow 1 until something else changes
                 * (local CI: StorpulseRebuildSlow never resolved after a recovery whose last
                 * md event came before this tick). */
                if (perf_monitor_rebuilds_slow(p->pm) != slow) {
                        p->m->changed |= MANAGER_CHANGED_REBUILD;
                        manager_publish(p->m);
                }
        }
        /* a time source is ONESHOT: moving its time does not enable it again */
        (void) sd_event_source_set_time(s, usec + p->m->config->detect_stat_interval_usec);
        (void) sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
        return 0;
}

int manager_perf_setup(Manager *m) {
        _cleanup_free_ ManagerPerf *p = calloc(1, sizeof(ManagerPerf));
        PerfMonitorConfig pc;
        int r;

        if (!p)
                return log_oom();
        p->m = m;
        p->state_fd = -EBADF;
        p->stall_cfg = HOST_STALL_CONFIG_DEFAULT;
        host_stall_init(&p->stall);
        config_perf_monitor_config(m->config, &pc);
        r = perf_monitor_new(&pc, on_perf_event, p, &p->pm);
        if (r < 0)
                return log_error_errno(r, "Failed to create the performance monitor: %m");

        (void) mkdir(m->state_dir, 0755);
        p->state_fd = open(m->state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (p->state_fd < 0)
                log_warning_errno(-errno,
                                  "Failed to open the state directory %s: %m; baselines are not "
                                  "kept across restarts, ignoring",
                                  m->state_dir);
        else {
                r = perf_monitor_load(p->pm, p->state_fd, BASELINE_STORE_FILE);
                if (r == -EBADMSG)
                        log_warning("%s/%s is damaged; kept aside as %s.corrupt (or .corrupt.N), "
                                    "learning afresh",
                                    m->state_dir, BASELINE_STORE_FILE, BASELINE_STORE_FILE);
                else if (r == -EPROTONOSUPPORT)
                        log_warning("%s/%s is of a newer version: left as it is, baselines are "
                                    "not saved while it is there",
                                    m->state_dir, BASELINE_STORE_FILE);
                else if (r < 0)
                        log_warning_errno(r,
                                          "Failed to load %s/%s: %m; learning afresh, the file "
                                          "is left as it is and baselines are not saved",
                                          m->state_dir, BASELINE_STORE_FILE);
                else
                        log_debug("Loaded %zu baselines from %s/%s",
                                  perf_monitor_baselines(p->pm)->n, m->state_dir,
                                  BASELINE_STORE_FILE);
                /* A file of another version, or one that could not be read, must not be
                 * overwritten by this one: the daemon runs without persisting, and says so. */
                if (r < 0 && r != -EBADMSG) {
                        m->baseline_error = r;
                        p->state_fd = safe_close(p->state_fd);
                }
        }
        /* a twentieth of slack, so the tick wakes the loop together with its other slow timers */
        r = sd_event_add_time_relative(m->event, &p->tick, CLOCK_MONOTONIC,
                                       m->config->detect_stat_interval_usec,
                                       m->config->detect_stat_interval_usec / 20, on_tick, p);
        if (r >= 0)
                r = manager_add_publish_hook(m, on_publish, p);
        if (r < 0) {
                p->tick = sd_event_source_disable_unref(p->tick);
                p->pm = perf_monitor_free(p->pm);
                p->state_fd = safe_close(p->state_fd);
                return log_error_errno(r, "Failed to set up the performance monitor: %m");
        }
        m->perf = TAKE_PTR(p);
        return 0;
}

void manager_perf_apply(Manager *m) {
        ManagerPerf *p = m->perf;
        PerfMonitorConfig pc;
        int r;

        if (!p)
                return;
        config_perf_monitor_config(m->config, &pc);
        r = perf_monitor_set_config(p->pm, &pc);
        if (r < 0) /* config_load() validated it: not expected */
                log_warning_errno(r, "Failed to apply the [Detection] settings: %m, ignoring");
        /* the next tick at the new interval */
        if (p->tick) {
                (void) sd_event_source_set_time_relative(p->tick,
                                                         m->config->detect_stat_interval_usec);
                (void) sd_event_source_set_time_accuracy(p->tick,
                                                         m->config->detect_stat_interval_usec / 20);
                (void) sd_event_source_set_enabled(p->tick, SD_EVENT_ONESHOT);
        }
}

void manager_perf_free(Manager *m) {
        ManagerPerf *p = m->perf;

        if (!p)
                return;
        save(p, false);
        if (state_writer_flush(p->writer, p->m->config->shutdown_timeout_usec) < 0)
                log_warning("%s/%s: the last save did not finish within ShutdownTimeout=, "
                            "exiting without it",
                            p->m->state_dir, BASELINE_STORE_FILE);
        p->writer = state_writer_free(p->writer);
        p->tick = sd_event_source_disable_unref(p->tick);
        p->watch = sd_event_source_disable_unref(p->watch);
        p->pm = perf_monitor_free(p->pm);
        p->state_fd = safe_close(p->state_fd);
        for (size_t i = 0; i < p->n_seen; i++)
                free(p->seen[i].name);
        free(p->seen);
        free(p);
        m->perf = NULL;
}

const PerfMonitor *manager_perf_monitor(const Manager *m) {
        return m && m->perf ? m->perf->pm : NULL;
}

int manager_perf_control(Manager *m, const ControlRequest *req, json_object **ret, char *error,
                         size_t error_size) {
        ManagerPerf *p = m->perf;
        int r;

        if (!p) {
                snprintf(error, error_size, "performance monitor not running");
                return -ENXIO;
        }
        switch (req->command) {
        case CONTROL_BASELINE_RESET:
                /* a reset that cannot be saved would come back at the next start */
                r = p->state_fd < 0                                     ? -ENOENT
                    : m->baseline_error < 0                             ? m->baseline_error
                    : faccessat(p->state_fd, ".", W_OK, AT_EACCESS) < 0 ? -errno
                                                                        : 0;
                if (r < 0) {
                        snprintf(error, error_size,
                                 "baselines cannot be saved to %s (%s): a reset would not "
                                 "survive a restart",
                                 m->state_dir, strerror(-r));
                        return -EROFS;
                }
                r = perf_monitor_reset(p->pm, m->inventory, req->volumes[0], now(CLOCK_REALTIME));
                if (r < 0)
                        return r;
                if (r == 0) {
                        snprintf(error, error_size, "no baseline for '%s'", req->volumes[0]);
                        return -ENOENT;
                }
                log_info("Baseline of %s reset by request", req->volumes[0]);
                save(p, true);
                *ret = json_object_new_string(req->volumes[0]);
                return 0;
        case CONTROL_REPORT:
                /* a name that is no volume is an error, not an empty report */
                for (size_t i = 0; req->volumes && req->volumes[i]; i++) {
                        const Volume *v = inventory_get(m->inventory, req->volumes[i]);

                        if (!v || !volume_is_listed(v)) {
                                snprintf(error, error_size, "no volume '%s'", req->volumes[i]);
                                return -ENOENT;
                        }
                }
                return perf_report_build(perf_monitor_baselines(p->pm), p->pm, m->inventory,
                                         req->volumes, ret);
        case CONTROL_STATUS:
        case CONTROL_VOLUMES:
        case CONTROL_PROBE:
        case CONTROL_RELOAD:
        case CONTROL_HISTORY:
        case _CONTROL_COMMAND_MAX:
        case _CONTROL_COMMAND_INVALID:
                break;
        }
        return -EINVAL;
}

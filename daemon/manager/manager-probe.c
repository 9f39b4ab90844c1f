/* SPDX-License-Identifier: MIT */
/* Probe runs, off the loop. Every probe runs in a storpulse-probe helper through the probe runner;
 * the loop only watches the runner's socket and its deadline, so a device that hangs leaves a
 * helper in D state (handed to the ProcessReaper) and a volume marked stalled, never a stuck
 * loop. At shutdown the helpers are killed and the reaper gets a bounded time.
 *
 * The back-off (analysis/backoff.h decides, this file measures): a volume is probed in slices
 * (the sequential phase, then the random phases), and around each slice the stat counters of the
 * volume and of every disk below it are read; any I/O beyond the probe's own reads, or I/O in
 * flight before the slice, discards the slice and retries it later with a growing delay, up to
 * MaxRetries. Two volumes sharing a disk never run at once; a disk in runtime-PM standby is never
 * touched; an array that rebuilds (or a volume on or under one) gets the light profile; a run has
 * a device-time budget. Every skip is counted by reason in the volume's record. */

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/format-util.h"
#include "basic/log.h"
#include "basic/parse-util.h"
#include "basic/string-table.h"
#include "manager/manager-internal.h"
#include "manager/manager-probe-internal.h"

static const char *const verdict_table[_MANAGER_PROBE_VERDICT_MAX] = {
        [MANAGER_PROBE_OK] = "ok",
        [MANAGER_PROBE_ERROR] = "error",
        [MANAGER_PROBE_STALLED] = "stalled",
        [MANAGER_PROBE_SKIPPED] = "skipped",
};

DEFINE_STRING_TABLE_LOOKUP(manager_probe_verdict, ManagerProbeVerdict, verdict_table);

void manager_probe_kick(Manager *m);

static void strv_free_local(char **l) {
        for (size_t i = 0; l && l[i]; i++)
                free(l[i]);
        free(l);
}

static char **strv_copy_local(char *const *l) {
        size_t n = 0;
        char **c;

        while (l && l[n])
                n++;
        c = calloc(n + 1, sizeof(char *));
        if (!c)
                return NULL;
        for (size_t i = 0; i < n; i++)
                if (!(c[i] = strdup(l[i]))) {
                        strv_free_local(c);
                        return NULL;
                }
        return c;
}

/* ---- the reaper on the loop --------------------------------------------------------------- */

int manager_probe_reaper_arm(Manager *m);

static int on_reaper_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;

        (void) process_reaper_reap(m->reaper, now(CLOCK_MONOTONIC));
        return manager_probe_reaper_arm(m);
}

static int on_reaper_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        Manager *m = userdata;

        (void) process_reaper_reap(m->reaper, now(CLOCK_MONOTONIC));
        return manager_probe_reaper_arm(m);
}

int manager_probe_reaper_arm(Manager *m) {
        usec_t next = process_reaper_next_usec(m->reaper);

        if (next == USEC_INFINITY)
                return sd_event_source_set_enabled(m->reaper_timer, SD_EVENT_OFF);
        (void) sd_event_source_set_time(m->reaper_timer, next);
        return sd_event_source_set_enabled(m->reaper_timer, SD_EVENT_ONESHOT);
}

static void on_reaped(pid_t pid, const ProcessExit *e, usec_t tracked_usec, void *userdata) {
        log_debug("Probe helper %d collected after %.1fs", (int) pid,
                  (double) tracked_usec / USEC_PER_SEC);
}

/* ---- the stack graph ---------------------------------------------------------------------- */

/* ---- runs --------------------------------------------------------------------------------- */

void manager_probe_target_free(RunTarget *t) {
        strv_free_local(t->devs);
        free(t->write_dir);
        free(t->name);
        free(t->first);
}

static void run_free(ManagerProbeRun *run) {
        if (!run)
                return;
        for (size_t i = 0; i < run->n_targets; i++)
                manager_probe_target_free(&run->targets[i]);
        free(run->targets);
        free(run->waiters);
        strv_free_local(run->requested);
        sd_event_source_disable_unref(run->retry_timer);
        free(run);
}

static void notify_done(ManagerProbeRun *run, const ManagerVolume *rec, ManagerProbeVerdict verdict,
                        ProbeSkipReason reason) {
        for (size_t i = 0; i < run->n_waiters; i++)
                if (!run->waiters[i].gone && run->waiters[i].w.volume_done)
                        run->waiters[i].w.volume_done(run->m, rec, verdict, reason,
                                                      run->waiters[i].w.userdata);
}

static void summarize_phase(const ProbePhaseResult *p, ManagerProbePhaseSummary *s) {
        *s = (ManagerProbePhaseSummary){ .ran = p->ran, .errors = p->errors };
        if (!p->ran)
                return;
        s->bytes_per_second = probe_phase_bytes_per_second(p);
        s->iops = probe_phase_iops(p);
        if (p->latency.count > 0) {
                s->p50_ns = latency_histogram_percentile(&p->latency, 50);
                s->p99_ns = latency_histogram_percentile(&p->latency, 99);
                s->max_ns = p->latency.max_ns;
        }
}

void manager_probe_record_skip(Manager *m, ManagerProbeRun *run, RunTarget *t,
                               ProbeSkipReason reason) {
        ManagerVolume *rec = manager_get_volume(m, t->name);

        if (t->first) { /* the second look could not be taken: the first result counts */
                t->acc = t->first->acc;
                t->foreign_share = t->first->foreign_share;
                t->status = t->first->status;
                t->started_usec = t->first->started_usec;
                t->first = mfree(t->first); /* its device time is counted once, as the result's */
                log_info("%s: probe not measured again (%s): the first result counts", t->name,
                         probe_skip_reason_to_string(reason));
                manager_probe_record_result(m, run, t, MANAGER_PROBE_OK, NULL);
                return;
        }
        t->state = TARGET_DONE;
        run->summary.n_skipped++;
        if (rec) {
                rec->skips[reason]++;
                rec->skips_in_row++;
                if (reason == PROBE_SKIP_RETRIES && rec->deferred_usec == 0)
                        rec->deferred_usec = now(CLOCK_REALTIME);
                if (rec->skips_in_row == m->config->skip_event_after && rec->volume) {
                        char f[64], *fields[] = { f, NULL };

                        (void) snprintf(f, sizeof(f), "STORPULSE_SKIP_REASON=%s",
                                        probe_skip_reason_to_string(reason));
                        manager_event(m, MANAGER_EVENT_PROBE_SKIPPED, rec->volume, NULL, fields,
                                      "%s: probe skipped %u times in a row (%s)", t->name,
                                      rec->skips_in_row, probe_skip_reason_to_string(reason));
                }
        }
        log_debug("%s: probe skipped: %s", t->name, probe_skip_reason_to_string(reason));
        notify_done(run, rec, MANAGER_PROBE_SKIPPED, reason);
        m->changed |= MANAGER_CHANGED_PROBE;
        manager_publish(m);
}

/* The history sample of a finished probe. */
static void sample_of(const RunTarget *t, usec_t dur, ManagerProbeSample *ret) {
        ManagerProbeSample s = {
                .realtime_usec = now(CLOCK_REALTIME),
                .status = t->status,
                .state = t->acc.state,
                .duration_usec = dur,
                .errors = t->acc.errors,
                .foreground_share = t->foreign_share,
                .probe_usec = (usec_t) (t->acc.elapsed_ns / NSEC_PER_USEC),
                .cpu_wait_usec = t->acc.cpu_wait_ns != NSEC_INFINITY
                                         ? (usec_t) (t->acc.cpu_wait_ns / NSEC_PER_USEC)
                                         : USEC_INFINITY,
                .forced = t->forced,
        };

        (void) snprintf(s.profile, sizeof(s.profile), "%s", t->profile.name);
        for (size_t i = 0; i < _PROBE_PHASE_MAX; i++)
                summarize_phase(&t->acc.phases[i], &s.phases[i]);
        *ret = s;
}

/* The finished probe into the volume's record: its sample, the outcome, the counters. */
static void record_sample(ManagerVolume *rec, const RunTarget *t, const ManagerProbeSample *s,
                          ManagerProbeVerdict verdict, const ProbeRunnerOutcome *last) {
        if (manager_volume_add_sample(rec, s) < 0)
                log_oom(); /* the counters below are still kept */
        if (!rec->last_outcome)
                rec->last_outcome = malloc(sizeof(*rec->last_outcome));
        if (rec->last_outcome) {
                *rec->last_outcome = last ? *last : (ProbeRunnerOutcome){};
                rec->last_outcome->status = t->status;
                rec->last_outcome->result = t->acc;
                rec->has_outcome = true;
        }
        rec->last_realtime_usec = s->realtime_usec;
        rec->n_probes++;
        rec->skips_in_row = 0;
        rec->deferred_usec = 0;
        if (t->forced)
                rec->n_forced++;
        rec->cpu_usec += t->cpu_usec;
        rec->device_usec += (usec_t) (t->acc.elapsed_ns / NSEC_PER_USEC);
        if (t->first) /* a second look was taken: the first one's reads count too */
                rec->device_usec += (usec_t) (t->first->acc.elapsed_ns / NSEC_PER_USEC);
        rec->stalled = verdict == MANAGER_PROBE_STALLED;
        if (verdict == MANAGER_PROBE_STALLED)
                rec->n_stalls++;
        else if (verdict == MANAGER_PROBE_ERROR)
                rec->n_errors++;
}

/* The journal event of a probe that ended ok: its figures (of the phases that ran), the share
 * of foreign I/O and of CPU wait during it. f/fields hold k journal fields already. */
static void log_finished(Manager *m, const Volume *v, const RunTarget *t,
                         const ManagerProbeSample *s, char f[][96], char **fields, size_t k) {
        const ProbePhaseResult *seq = &t->acc.phases[PROBE_PHASE_SEQUENTIAL],
                               *rnd = &t->acc.phases[PROBE_PHASE_RANDOM];
        char fg[64] = "", cw[64] = "", fo[80] = "";
        double w = manager_probe_sample_cpu_wait_share(s);

        if (isfinite(s->foreground_share)) {
                (void) snprintf(f[k], sizeof(f[k]), "STORPULSE_FOREGROUND_SHARE=%.3f",
                                s->foreground_share);
                fields[k] = f[k];
                k++;
                if (s->foreground_share >= 0.005)
                        (void) snprintf(fg, sizeof(fg),
                                        ", %.0f%% of the I/O during it someone else's",
                                        s->foreground_share * 100);
        }
        if (isfinite(w)) {
                (void) snprintf(f[k], sizeof(f[k]), "STORPULSE_CPU_WAIT_SHARE=%.3f", w);
                fields[k] = f[k];
                k++;
                if (w >= 0.05)
                        (void) snprintf(cw, sizeof(cw), ", %.0f%% of it waiting for a CPU",
                                        w * 100);
        }
        if (s->forced) {
                (void) snprintf(f[k], sizeof(f[k]), "STORPULSE_FORCED=1");
                fields[k] = f[k];
                (void) snprintf(fo, sizeof(fo),
                                "; run despite foreground I/O (deferred past MaxDeferral=)");
        }
        char rate[FORMAT_BYTES_MAX + 2], figures[FORMAT_BYTES_MAX + 64] = "";

        if (seq->ran)
                (void) snprintf(figures, sizeof(figures), "%s sequential",
                                format_bytes_per_second(rate, sizeof(rate),
                                                        probe_phase_bytes_per_second(seq)));
        if (rnd->ran)
                (void) snprintf(figures + strlen(figures), sizeof(figures) - strlen(figures),
                                "%s%.0f IOPS random", figures[0] ? ", " : "",
                                probe_phase_iops(rnd));
        manager_event(m, MANAGER_EVENT_PROBE_FINISHED, v, NULL, fields,
                      "%s: probe (%s) ok: %s%s%s%s", t->name, t->profile.name,
                      figures[0] ? figures : "no phase ran", fg, cw, fo);
}

/* The journal event of a finished probe: finished, error, or stalled. */
static void log_result(Manager *m, const Volume *v, const RunTarget *t, const ManagerProbeSample *s,
                       ManagerProbeVerdict verdict, const ProbeRunnerOutcome *last) {
        char f[6][96], *fields[7] = {};
        const ProbePhaseResult *seq = &t->acc.phases[PROBE_PHASE_SEQUENTIAL],
                               *rnd = &t->acc.phases[PROBE_PHASE_RANDOM];

        size_t k = 1;

        /* a phase the profile does not run has no figure (light: no sequential read) */
        (void) snprintf(f[0], sizeof(f[0]), "STORPULSE_PROFILE=%s", t->profile.name);
        fields[0] = f[0];
        if (seq->ran) {
                (void) snprintf(f[k], sizeof(f[k]), "STORPULSE_SEQ_BYTES_PER_SEC=%.0f",
                                probe_phase_bytes_per_second(seq));
                fields[k] = f[k];
                k++;
        }
        if (rnd->ran) {
                (void) snprintf(f[k], sizeof(f[k]), "STORPULSE_RAND_IOPS=%.1f",
                                probe_phase_iops(rnd));
                fields[k] = f[k];
                k++;
        }
        if (verdict == MANAGER_PROBE_STALLED) {
                const ProbeProgress *pp = last ? &last->last_progress : NULL;
                /* a helper stuck before its first report (in open() of a hung device) has no
                 * phase: never "sequential phase at 0%" for a profile without one */
                const char *phase = pp ? probe_phase_to_string(pp->phase) : NULL;
                char where[64] = "before its first progress report";

                if (phase)
                        (void) snprintf(where, sizeof(where), "%s phase at %.0f%%", phase,
                                        pp->fraction * 100);
                (void) snprintf(f[k], sizeof(f[k]), "STORPULSE_TIMEOUT_SEC=%.1f",
                                (double) t->profile.params.timeout_usec / USEC_PER_SEC);
                fields[k] = f[k];
                manager_event(m, MANAGER_EVENT_PROBE_STALLED, v, NULL, fields,
                              "%s: probe stalled (no answer within %.1fs, %s); volume marked "
                              "stalled",
                              t->name, (double) t->profile.params.timeout_usec / USEC_PER_SEC,
                              where);
        } else if (verdict == MANAGER_PROBE_ERROR && t->acc.n_error_offsets > 0) {
                (void) snprintf(f[k], sizeof(f[k]), "STORPULSE_OFFSET_BYTES=%llu",
                                (unsigned long long) t->acc.error_offsets[0]);
                fields[k] = f[k];
                manager_event(m, MANAGER_EVENT_PROBE_ERROR, v, NULL, fields,
                              "%s: probe read errors: %llu (first at offset %llu: %s)", t->name,
                              (unsigned long long) t->acc.errors,
                              (unsigned long long) t->acc.error_offsets[0],
                              t->acc.error_codes[0] ? strerror(-t->acc.error_codes[0])
                                                    : "short read");
        } else if (verdict == MANAGER_PROBE_ERROR)
                manager_event(m, MANAGER_EVENT_PROBE_ERROR, v, NULL, fields, "%s: probe failed: %s",
                              t->name,
                              last && last->error ? strerror(-last->error)
                                                  : probe_runner_status_to_string(t->status));
        else
                log_finished(m, v, t, s, f, fields, k);
}

/* A result that reads bad against the volume's baseline, with no verdict standing, is measured
 * once more before it counts (manager_perf_second_look()): t starts over after
 * SECOND_LOOK_DELAY_USEC, and the second result is the one recorded and judged (the first is kept
 * in case the second cannot be taken). Once per target and run. True when t starts over. */
static bool second_look(Manager *m, RunTarget *t, ManagerVolume *rec, const Volume *v,
                        const ManagerProbeSample *s) {
        DetectorFinding f;
        char why[160];

        if (t->second_look || !rec || !v || !manager_perf_second_look(m, v, s, &f))
                return false;
        t->first = malloc(sizeof(*t->first));
        if (!t->first) {
                log_oom();
                return false;
        }
        *t->first = (FirstLook){ .acc = t->acc,
                                 .foreign_share = t->foreign_share,
                                 .status = t->status,
                                 .started_usec = t->started_usec };
        log_info("%s: probe (%s) slow, %s: measured again in %.0f s before it counts", t->name,
                 t->profile.name, detector_finding_format(&f, why, sizeof(why)),
                 (double) SECOND_LOOK_DELAY_USEC / USEC_PER_SEC);
        rec->n_second_looks++;
        t->second_look = true;
        t->state = TARGET_PENDING;
        t->slice = t->attempts = 0;
        t->any_slice = false;
        t->acc = (ProbeResult){};
        t->foreign_share = NAN;
        t->started_usec = 0;
        t->not_before = now(CLOCK_MONOTONIC) + SECOND_LOOK_DELAY_USEC;
        return true;
}

void manager_probe_record_result(Manager *m, ManagerProbeRun *run, RunTarget *t,
                                 ManagerProbeVerdict verdict, const ProbeRunnerOutcome *last) {
        ManagerVolume *rec = manager_get_volume(m, t->name);
        const Volume *v = rec ? rec->volume : NULL;
        ManagerProbeSample s;

        sample_of(t, now(CLOCK_MONOTONIC) - t->started_usec, &s);
        if (verdict == MANAGER_PROBE_OK && second_look(m, t, rec, v, &s))
                return;
        t->state = TARGET_DONE;
        switch (verdict) {
        case MANAGER_PROBE_OK:
                run->summary.n_ok++;
                break;
        case MANAGER_PROBE_ERROR:
                run->summary.n_error++;
                break;
        case MANAGER_PROBE_STALLED:
                run->summary.n_stalled++;
                break;
        case MANAGER_PROBE_SKIPPED:
        case _MANAGER_PROBE_VERDICT_MAX:
        case _MANAGER_PROBE_VERDICT_INVALID:
                break;
        }
        if (rec)
                record_sample(rec, t, &s, verdict, last);
        if (v)
                log_result(m, v, t, &s, verdict, last);
        notify_done(run, rec, verdict, _PROBE_SKIP_REASON_INVALID);
        if (rec && !rec->volume && !rec->probing)
                manager_volume_release(m, rec);
        m->changed |= MANAGER_CHANGED_PROBE;
        manager_publish(m);
}

static void run_finish(Manager *m, ManagerProbeRun *run, bool aborted) {
        run->summary.aborted = aborted;
        /* a queued run aborted (the daemon stopping) never started: it took no time */
        run->summary.duration_usec = run->started ? now(CLOCK_MONOTONIC) - run->start_usec : 0;
        for (size_t i = 0; i < run->n_waiters; i++)
                if (!run->waiters[i].gone && run->waiters[i].w.finished)
                        run->waiters[i].w.finished(m, &run->summary, run->waiters[i].w.userdata);
        log_info("Probe run %llu (%s) %s: %u volumes, %u ok, %u errors, %u stalled, %u skipped "
                 "in %.1fs",
                 (unsigned long long) run->id, run->profile.name,
                 !aborted       ? "done"
                 : run->started ? "aborted"
                                : "aborted before it started",
                 run->summary.n_volumes, run->summary.n_ok, run->summary.n_error,
                 run->summary.n_stalled, run->summary.n_skipped,
                 (double) run->summary.duration_usec / USEC_PER_SEC);
        if (!aborted)
                m->n_runs++;
}

static int on_retry_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        manager_probe_kick(userdata);
        return 0;
}

static void run_start_next(Manager *m) {
        ManagerProbeRun *run;

        while (!m->run && m->n_queued > 0 && !m->stopping) {
                run = m->queued[0];
                memmove(m->queued, m->queued + 1, (m->n_queued - 1) * sizeof(*m->queued));
                m->n_queued--;
                run->start_usec = now(CLOCK_MONOTONIC);
                run->started = true;
                if (manager_probe_run_resolve(run) < 0) {
                        log_oom();
                        run_finish(m, run, true);
                        run_free(run);
                        continue;
                }
                run->summary.n_volumes = (unsigned) run->n_targets;
                /* names asked for that are gone by now */
                for (size_t i = 0; run->requested && run->requested[i]; i++)
                        if (!inventory_get(m->inventory, run->requested[i]))
                                run->summary.n_skipped++;
                log_info("Probe run %llu (%s) started: %zu volumes", (unsigned long long) run->id,
                         run->profile.name, run->n_targets);
                m->run = run;
        }
}

void manager_probe_kick(Manager *m) {
        ManagerProbeRun *run;
        usec_t t_now, next = USEC_INFINITY;
        bool pending = false;

        manager_scratch_kick(m); /* a removal that waited for a write slice to end */
        run_start_next(m);
        run = m->run;
        if (!run)
                return;
        t_now = now(CLOCK_MONOTONIC);
        for (size_t i = 0; i < run->n_targets; i++) {
                RunTarget *t = &run->targets[i];

                if (t->state != TARGET_PENDING)
                        continue;
                pending = true;
                if (run->n_active >= MIN(m->config->parallel, ACTIVE_MAX))
                        break;
                if (t->not_before > t_now) {
                        next = MIN(next, t->not_before);
                        continue;
                }
                if (manager_probe_shares_disk(run, t)) {
                        ManagerVolume *rec = manager_get_volume(m, t->name);

                        if (!t->deferred_shared && rec)
                                rec->skips[PROBE_SKIP_SHARED_DISK]++;
                        t->deferred_shared = true;
                        continue;
                }
                if (manager_probe_slice_start(m, run, t) < 0) {
                        log_oom();
                        t->not_before = t_now + USEC_PER_SEC;
                        next = MIN(next, t->not_before);
                }
                if (t->state == TARGET_PENDING && t->not_before > t_now)
                        next = MIN(next, t->not_before);
        }
        pending = false;
        for (size_t i = 0; i < run->n_targets; i++)
                if (run->targets[i].state != TARGET_DONE)
                        pending = true;
        if (!pending && run->n_active == 0) {
                m->run = NULL;
                run_finish(m, run, false);
                run_free(run);
                m->changed |= MANAGER_CHANGED_PROBE;
                manager_state_save(m);
                manager_schedule_apply(m);
                manager_publish(m);
                manager_probe_kick(m); /* the next queued run */
                return;
        }
        if (next != USEC_INFINITY && run->n_active == 0) {
                if (!run->retry_timer)
                        (void) sd_event_add_time(m->event, &run->retry_timer, CLOCK_MONOTONIC, next,
                                                 0, on_retry_timer, m);
                else {
                        (void) sd_event_source_set_time(run->retry_timer, next);
                        (void) sd_event_source_set_enabled(run->retry_timer, SD_EVENT_ONESHOT);
                }
        }
        manager_publish(m);
}

int manager_probe_request(Manager *m, const char *profile, char *const *volumes,
                          const ManagerProbeWaiter *w, uint64_t *ret_id, const char **ret_bad) {
        static uint64_t next_id = 0;
        const Profile *pr = config_get_profile(m->config, profile);
        ManagerProbeRun *run, **q;

        if (m->stopping)
                return -EBUSY;
        if (!pr) {
                if (ret_bad)
                        *ret_bad = profile;
                return -ENOENT;
        }
        for (size_t i = 0; volumes && volumes[i]; i++) {
                const Volume *v = inventory_get(m->inventory, volumes[i]);

                if (!v || v->hidden) {
                        if (ret_bad)
                                *ret_bad = volumes[i];
                        return -ENOENT;
                }
        }
        run = calloc(1, sizeof(*run));
        if (!run)
                return -ENOMEM;
        run->m = m;
        run->id = ++next_id;
        run->profile = *pr;
        run->summary.id = run->id;
        (void) snprintf(run->summary.profile, sizeof(run->summary.profile), "%s", pr->name);
        if (volumes && volumes[0] && !(run->requested = strv_copy_local(volumes))) {
                run_free(run);
                return -ENOMEM;
        }
        if (w) {
                run->waiters = calloc(1, sizeof(RunWaiter));
                if (!run->waiters) {
                        run_free(run);
                        return -ENOMEM;
                }
                run->waiters[0].w = *w;
                run->n_waiters = 1;
        }
        q = realloc(m->queued, (m->n_queued + 1) * sizeof(*q));
        if (!q) {
                run_free(run);
                return -ENOMEM;
        }
        m->queued = q;
        m->queued[m->n_queued++] = run;
        if (ret_id)
                *ret_id = run->id;
        manager_probe_kick(m);
        return 0;
}

void manager_probe_forget_waiter(Manager *m, void *userdata) {
        ManagerProbeRun *runs[1] = { m->run };

        for (size_t k = 0; k < 1 + m->n_queued; k++) {
                ManagerProbeRun *run = k == 0 ? runs[0] : m->queued[k - 1];

                for (size_t i = 0; run && i < run->n_waiters; i++)
                        if (run->waiters[i].w.userdata == userdata)
                                run->waiters[i].gone = true;
        }
}

/* ---- the built-in schedule ---------------------------------------------------------------- */

static int on_schedule(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;
        int r;

        m->next_probe_usec = 0;
        if (m->run || m->n_queued > 0)
                log_info("Scheduled probe skipped: a run is in progress.");
        else {
                r = manager_probe_request(m, m->config->schedule_profile, NULL, NULL, NULL, NULL);
                if (r < 0)
                        log_warning_errno(r, "Failed to start the scheduled probe: %m");
        }
        manager_schedule_apply(m);
        return 0;
}

void manager_schedule_apply(Manager *m) {
        const Config *c = m->config;
        bool on = c->builtin > 0 || (c->builtin < 0 && !m->under_systemd);
        usec_t delay;
        int r;

        if (!on || c->schedule_interval_usec == 0 || c->schedule_interval_usec == USEC_INFINITY ||
            m->stopping) {
                m->schedule_timer = sd_event_source_disable_unref(m->schedule_timer);
                m->next_probe_usec = 0;
                return;
        }
        if (m->run || m->n_queued > 0)
                return; /* re-armed when the run ends */
        if (m->schedule_timer) {
                int enabled = SD_EVENT_OFF;

                (void) sd_event_source_get_enabled(m->schedule_timer, &enabled);
                if (enabled != SD_EVENT_OFF && m->next_probe_usec > 0)
                        return; /* armed already */
        }
        delay = m->n_runs == 0 && !m->schedule_timer ? c->schedule_first_usec
                                                     : c->schedule_interval_usec;
        if (!m->schedule_timer)
                r = sd_event_add_time_relative(m->event, &m->schedule_timer, CLOCK_MONOTONIC, delay,
                                               USEC_PER_SEC, on_schedule, m);
        else {
                r = sd_event_source_set_time_relative(m->schedule_timer, delay);
                if (r >= 0)
                        r = sd_event_source_set_enabled(m->schedule_timer, SD_EVENT_ONESHOT);
        }
        if (r < 0) {
                log_warning_errno(r, "Failed to arm the probe schedule: %m, ignoring");
                return;
        }
        m->next_probe_usec = now(CLOCK_REALTIME) + delay;
}

/* ---- lifecycle ---------------------------------------------------------------------------- */

int manager_probe_setup(Manager *m) {
        int r;

        r = process_reaper_new(on_reaped, m, &m->reaper);
        if (r < 0)
                return log_error_errno(r, "Failed to create the process reaper: %m");
        r = sd_event_add_io(m->event, &m->reaper_io, process_reaper_fd(m->reaper), EPOLLIN,
                            on_reaper_io, m);
        if (r >= 0)
                r = sd_event_add_time(m->event, &m->reaper_timer, CLOCK_MONOTONIC, USEC_INFINITY, 0,
                                      on_reaper_timer, m);
        if (r >= 0)
                r = sd_event_source_set_enabled(m->reaper_timer, SD_EVENT_OFF);
        if (r < 0)
                return log_error_errno(r, "Failed to watch the process reaper: %m");
        return 0;
}

static void abort_run(Manager *m, ManagerProbeRun *run) {
        while (run->n_active > 0) {
                Active *a = run->active[0];

                manager_probe_active_remove(run, a); /* kills the helper, hands it to the reaper */
        }
        run_finish(m, run, true);
        run_free(run);
}

void manager_probe_stop(Manager *m) {
        manager_scratch_stop(m);
        if (m->run) {
                ManagerProbeRun *run = m->run;

                m->run = NULL;
                abort_run(m, run);
        }
        while (m->n_queued > 0)
                abort_run(m, m->queued[--m->n_queued]);
        m->schedule_timer = sd_event_source_disable_unref(m->schedule_timer);
        m->next_probe_usec = 0;
}

void manager_probe_shutdown(Manager *m) {
        size_t left;

        if (!m->reaper || process_reaper_count(m->reaper) == 0)
                return;
        left = process_reaper_settle(m->reaper,
                                     now(CLOCK_MONOTONIC) + m->config->shutdown_timeout_usec);
        if (left > 0)
                log_warning("%zu probe helper%s stuck in the kernel, left behind.", left,
                            left == 1 ? "" : "s");
}

void manager_probe_free(Manager *m) {
        manager_scratch_free(m);
        manager_probe_stop(m);
        free(m->queued);
        m->queued = NULL;
        m->reaper_io = sd_event_source_disable_unref(m->reaper_io);
        m->reaper_timer = sd_event_source_disable_unref(m->reaper_timer);
        if (!m->reaper_in_use)
                m->reaper = process_reaper_free(m->reaper);
}

/* SPDX-License-Identifier: MIT */
/* The slices of a probe target (see manager-probe.c for the back-off): before a slice, the checks
 * that may defer or skip it (standby, budget, I/O in flight) and the stat counters of every device
 * below; its idle window (IdleWindow=: the counters must stay quiet that long before the helper
 * starts); the helper on the loop (its socket and deadline), with the counters compared again at
 * each of its progress reports so a slice is abandoned within ~100 ms of foreign I/O instead of
 * being read whole; after it, the same check with the exact figures, and the merge into the
 * target's result. A slice with foreign I/O is retried later (RetryDelay=, MaxRetries=); a target
 * forced after MaxDeferral= is not (its foreground share is measured all the same). */

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "basic/fileio.h"
#include "basic/log.h"
#include "basic/parse-util.h"
#include "manager/manager-probe-internal.h"
#include "probe/probe-scratch.h"

static void merge_slice(RunTarget *t, const ProbeResult *r) {
        for (size_t i = 0; i < _PROBE_PHASE_MAX; i++)
                if (r->phases[i].ran)
                        t->acc.phases[i] = r->phases[i];
        t->acc.errors += r->errors;
        for (unsigned i = 0;
             i < r->n_error_offsets && t->acc.n_error_offsets < PROBE_ERROR_OFFSETS_MAX; i++) {
                t->acc.error_offsets[t->acc.n_error_offsets] = r->error_offsets[i];
                t->acc.error_codes[t->acc.n_error_offsets++] = r->error_codes[i];
        }
        t->acc.elapsed_ns += r->elapsed_ns;
        t->acc.cpu_user_usec += r->cpu_user_usec;
        t->acc.cpu_wait_ns = t->acc.cpu_wait_ns == NSEC_INFINITY || r->cpu_wait_ns == NSEC_INFINITY
                                     ? NSEC_INFINITY
                                     : t->acc.cpu_wait_ns + r->cpu_wait_ns;
        t->acc.cpu_sys_usec += r->cpu_sys_usec;
        if (r->state > t->acc.state) /* ok < error < stalled */
                t->acc.state = r->state;
        t->cpu_usec += r->cpu_user_usec + r->cpu_sys_usec;
        t->any_slice = true;
}

static bool slice_params(const RunTarget *t, unsigned slice, ProbeParams *ret) {
        ProbeParams p = t->profile.params;

        p.write = false;
        if (slice == 2) {
                /* the write phases, in the scratch file of the volume's directory */
                if (!t->profile.params.write || !t->write_dir ||
                    (p.seq_bytes == 0 && p.rand_queue_depth == 0))
                        return false;
                p.write = true;
                p.write_file_bytes = t->write_file_bytes;
                p.write_dev = t->write_dev;
                p.rand_deep_queue_depth = 0;
        } else if (slice == 0) {
                if (p.seq_bytes == 0)
                        return false;
                p.rand_queue_depth = p.rand_deep_queue_depth = 0;
        } else if (slice == 1) {
                if (p.rand_queue_depth == 0)
                        return false;
                p.seq_bytes = 0;
        } else
                return false;
        *ret = p;
        return true;
}

static void active_free(Active *a) {
        if (!a)
                return;
        a->window = sd_event_source_disable_unref(a->window);
        a->io = sd_event_source_disable_unref(a->io);
        a->timer = sd_event_source_disable_unref(a->timer);
        a->runner = probe_runner_free(a->runner); /* a running helper goes to the reaper */
        free(a->before);
        free(a->after);
        free(a->have_before);
        free(a->have_after);
        free(a);
}

void manager_probe_active_remove(ManagerProbeRun *run, Active *a) {
        ManagerVolume *rec = manager_get_volume(run->m, a->t->name);

        for (size_t i = 0; i < run->n_active; i++)
                if (run->active[i] == a) {
                        run->active[i] = run->active[--run->n_active];
                        break;
                }
        if (rec)
                rec->probing = false;
        active_free(a);
}

static bool standby(Manager *m, const RunTarget *t) {
        for (size_t i = 0; i < t->n_devs; i++) {
                const Volume *d = inventory_get(m->inventory, t->devs[i]);
                _cleanup_free_ char *path = NULL, *text = NULL;
                size_t n;

                if (!d || !d->syspath ||
                    asprintf(&path, "%s/device/power/runtime_status", d->syspath) < 0)
                        continue;
                if (read_full_file_at(inventory_root_fd(m->inventory), path, &text, &n) < 0)
                        continue;
                if (backoff_runtime_status_is_standby(strstrip_trailing(text)))
                        return true;
        }
        return false;
}

/* Read the stat of every device of t into st/have; returns true if anything is in flight. */
static bool read_stats(Manager *m, const RunTarget *t, BlockStat *st, bool *have) {
        bool busy = false;

        for (size_t i = 0; i < t->n_devs; i++) {
                const Volume *d = inventory_get(m->inventory, t->devs[i]);

                have[i] = d && inventory_read_stat(m->inventory, d, &st[i]) >= 0;
                if (have[i] && st[i].in_flight > 0)
                        busy = true;
        }
        return busy;
}

/* Whether the readings in a->after show a device of a's target with more foreign I/O since the
 * window's start than the threshold, the probe having read own_sectors of it by the time they were
 * taken; with in_flight, any request in flight counts too (before the helper runs, a request in
 * flight is someone else's). Never for a target forced after MaxDeferral= (the readings are still
 * taken, for its foreground share). */
static bool foreign_in_readings(Manager *m, Active *a, uint64_t own_sectors, bool in_flight) {
        const RunTarget *t = a->t;
        uint64_t threshold = m->config->foreign_threshold_bytes / 512;

        if (t->forced)
                return false;
        /* a write slice is judged on the volume alone (backoff_foreign_sectors_written()) */
        for (size_t i = 0; i < (a->params.write ? 1 : t->n_devs); i++) {
                if (!a->have_after[i])
                        continue;
                if (in_flight && a->after[i].in_flight > 0)
                        return true;
                if (a->have_before[i] &&
                    (a->params.write ? backoff_foreign_sectors_written(&a->before[i], &a->after[i],
                                                                       own_sectors)
                                     : backoff_foreign_sectors(&a->before[i], &a->after[i],
                                                               own_sectors)) > threshold)
                        return true;
        }
        return false;
}

/* foreign_in_readings() over readings taken now. */
static bool foreign_since_start(Manager *m, Active *a, uint64_t own_sectors, bool in_flight) {
        (void) read_stats(m, a->t, a->after, a->have_after);
        return foreign_in_readings(m, a, own_sectors, in_flight);
}

/* An accepted slice's share of foreign I/O (below the threshold, or any with the threshold off)
 * into the target's largest, for the detector. Uses the readings foreign_since_start() just took.
 */
static void note_foreign_share(RunTarget *t, const Active *a, uint64_t own_sectors) {
        if (a->params.write) {
                double s = a->have_before[0] && a->have_after[0]
                                   ? backoff_foreign_share_written(&a->before[0], &a->after[0],
                                                                   own_sectors)
                                   : NAN;

                if (isfinite(s) && !(s <= t->foreign_share))
                        t->foreign_share = s;
                return;
        }
        for (size_t i = 0; i < t->n_devs; i++) {
                bool both = a->have_before[i] && a->have_after[i];
                double s =
                        backoff_foreign_share(&a->before[i], &a->after[i], &both, 1, own_sectors);

                if (isfinite(s) && !(s <= t->foreign_share)) /* NAN: the first figure */
                        t->foreign_share = s;
        }
}

static void defer_foreign(Manager *m, ManagerProbeRun *run, RunTarget *t) {
        ManagerVolume *rec = manager_get_volume(m, t->name);

        if (rec)
                rec->skips[PROBE_SKIP_FOREIGN_IO]++;
        if (t->attempts >= m->config->max_retries) {
                if (rec)
                        rec->skips[PROBE_SKIP_FOREIGN_IO]--; /* counted as RETRIES instead */
                if (t->any_slice)
                        manager_probe_record_result(
                                m, run, t,
                                t->acc.errors > 0 ? MANAGER_PROBE_ERROR : MANAGER_PROBE_OK, NULL);
                else
                        manager_probe_record_skip(m, run, t, PROBE_SKIP_RETRIES);
                return;
        }
        t->not_before = now(CLOCK_MONOTONIC) + backoff_retry_delay(m->config->retry_delay_usec,
                                                                   m->config->retry_delay_max_usec,
                                                                   t->attempts);
        t->attempts++;
        t->state = TARGET_PENDING;
        log_debug("%s: foreign I/O, retrying in %.1fs", t->name,
                  (double) (t->not_before - now(CLOCK_MONOTONIC)) / USEC_PER_SEC);
}

static void finish_target(Manager *m, ManagerProbeRun *run, RunTarget *t) {
        manager_probe_record_result(
                m, run, t, t->acc.errors > 0 ? MANAGER_PROBE_ERROR : MANAGER_PROBE_OK, NULL);
}

static void next_slice(Manager *m, ManagerProbeRun *run, RunTarget *t) {
        ProbeParams p;

        t->slice++;
        t->attempts = 0;
        while (t->slice < RUN_SLICES && !slice_params(t, t->slice, &p))
                t->slice++;
        if (t->slice >= RUN_SLICES)
                finish_target(m, run, t);
        else
                t->state = TARGET_PENDING;
}

static void on_outcome(Active *a, const ProbeRunnerOutcome *outcome) {
        ManagerProbeRun *run = a->run;
        Manager *m = run->m;
        RunTarget *t = a->t;
        /* the outcome belongs to the runner, which manager_probe_active_remove() frees: work on a
         * copy */
        ProbeRunnerOutcome copy = *outcome;
        const ProbeRunnerOutcome *o = &copy;

        t->status = o->status;
        switch (o->status) {
        case PROBE_RUNNER_DONE:
                if (o->result.state == PROBE_STATE_STALLED) {
                        merge_slice(t, &o->result);
                        manager_probe_active_remove(run, a);
                        manager_probe_record_result(m, run, t, MANAGER_PROBE_STALLED, &copy);
                        return;
                }
                {
                        uint64_t own = 0;
                        bool foreign;

                        for (size_t i = 0; i < _PROBE_PHASE_MAX; i++)
                                own += o->result.phases[i].bytes / 512;
                        foreign = foreign_since_start(m, a, own, false);
                        if (!foreign)
                                note_foreign_share(t, a, own);
                        run->budget_used_usec += (usec_t) (o->result.elapsed_ns / NSEC_PER_USEC);
                        manager_probe_active_remove(run, a);
                        if (foreign && o->result.errors == 0) {
                                defer_foreign(m, run, t);
                                return;
                        }
                        merge_slice(t, &o->result);
                        next_slice(m, run, t);
                }
                return;
        case PROBE_RUNNER_STALLED:
                manager_probe_active_remove(run, a);
                manager_probe_record_result(m, run, t, MANAGER_PROBE_STALLED, &copy);
                return;
        case PROBE_RUNNER_UNUSABLE:
        case PROBE_RUNNER_BAD_PARAM:
                if (a->params.write) {
                        /* the read slices stand; only the write figures are missing */
                        log_warning("%s: no write probe in %s: %s", t->name, t->write_dir,
                                    o->status == PROBE_RUNNER_BAD_PARAM
                                            ? probe_param_to_string(o->bad_param)
                                            : probe_scratch_strerror(o->error));
                        manager_probe_active_remove(run, a);
                        next_slice(m, run, t);
                        return;
                }
                log_notice("%s: cannot be probed: %s", t->name,
                           o->status == PROBE_RUNNER_BAD_PARAM ? probe_param_to_string(o->bad_param)
                                                               : probe_target_strerror(o->error));
                manager_probe_active_remove(run, a);
                manager_probe_record_skip(m, run, t, PROBE_SKIP_UNUSABLE);
                return;
        case PROBE_RUNNER_FAILED:
        case PROBE_RUNNER_RUNNING:
        case _PROBE_RUNNER_STATUS_MAX:
        case _PROBE_RUNNER_STATUS_INVALID:
                break;
        }
        manager_probe_active_remove(run, a);
        manager_probe_record_result(m, run, t, MANAGER_PROBE_ERROR, &copy);
}

static int active_dispatch(Active *a) {
        int r = probe_runner_dispatch(a->runner, now(CLOCK_MONOTONIC));
        Manager *m = a->run->m;

        if (r == 0 && a->abandon) {
                /* Foreign I/O while it ran: stop reading now rather than at the slice's end. */
                ManagerProbeRun *run = a->run;
                RunTarget *t = a->t;

                run->budget_used_usec += now(CLOCK_MONOTONIC) - a->start_usec;
                log_debug("%s: foreign I/O during slice %u, abandoned after %llu KiB", t->name,
                          t->slice, (unsigned long long) ((a->done_bytes + a->phase_bytes) >> 10));
                manager_probe_active_remove(run, a); /* kills the helper */
                defer_foreign(m, run, t);
        } else if (r == 0) {
                (void) sd_event_source_set_time(a->timer, probe_runner_deadline_usec(a->runner));
                return 0;
        } else if (r < 0) {
                ProbeRunnerOutcome o = { .status = PROBE_RUNNER_FAILED, .error = r };

                on_outcome(a, &o);
        } else
                on_outcome(a, probe_runner_outcome(a->runner));
        (void) manager_probe_reaper_arm(m);
        manager_probe_kick(m);
        return 0;
}

static int on_active_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        return active_dispatch(userdata);
}

static int on_active_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        return active_dispatch(userdata);
}

/* The queue depth and block size of the phase a progress report is about. */
static void phase_shape(const ProbeParams *p, ProbePhase phase, unsigned *ret_qd,
                        uint64_t *ret_bs) {
        switch (phase) {
        case PROBE_PHASE_SEQUENTIAL:
        case PROBE_PHASE_WRITE_SEQUENTIAL:
                *ret_qd = p->seq_queue_depth, *ret_bs = p->seq_block_size;
                return;
        case PROBE_PHASE_RANDOM:
        case PROBE_PHASE_WRITE_RANDOM:
                *ret_qd = p->rand_queue_depth, *ret_bs = p->rand_block_size;
                return;
        case PROBE_PHASE_WRITE_SYNC:
                *ret_qd = 1, *ret_bs = p->rand_block_size;
                return;
        case PROBE_PHASE_RANDOM_DEEP:
        case _PROBE_PHASE_MAX:
        case _PROBE_PHASE_INVALID:
                break;
        }
        *ret_qd = MAX(p->rand_queue_depth, p->rand_deep_queue_depth);
        *ret_bs = MAX(p->seq_block_size, p->rand_block_size);
}

/* The foreign-I/O check of a running slice. A report is read any time after the helper sent it:
 * it waits in the socket while the daemon waits for a CPU, and counters read then hold all the
 * probe read since, on a loaded host far more than a report interval's worth (slices were
 * abandoned for their own reads and retried RetryDelay= later). So counters read at one report
 * are judged at the first report the helper sent after them: the device cannot have counted more
 * of the probe's reads by then than that report's bytes plus one queue in flight. */
static void check_progress(Active *a, const ProbeProgress *p) {
        Manager *m = a->run->m;
        uint64_t bs;
        unsigned qd;

        if (p->phase != a->phase) { /* the next phase: its counts start again at 0 */
                a->done_bytes += a->phase_bytes;
                a->phase = p->phase;
                a->phase_bytes = 0;
        }
        a->phase_bytes = MAX(a->phase_bytes, p->bytes);
        if (a->abandon || p->done) /* a phase's last report: the outcome's check follows */
                return;
        if (a->read_usec > 0 && p->sent_usec >= a->read_usec) {
                phase_shape(&a->params, p->phase, &qd, &bs);
                if (foreign_in_readings(
                            m, a,
                            backoff_progress_allowance(a->done_bytes + a->phase_bytes, 0, qd, bs),
                            false)) {
                        a->abandon = true;
                        return;
                }
                a->read_usec = 0;
        }
        if (a->read_usec == 0) {
                (void) read_stats(m, a->t, a->after, a->have_after);
                a->read_usec = now(CLOCK_MONOTONIC); /* taken: a report sent from now covers it */
        }
}

static void on_progress(const ProbeProgress *p, void *userdata) {
        Active *a = userdata;
        ManagerProbeRun *run = a->run;

        check_progress(a, p);

        for (size_t i = 0; i < run->n_waiters; i++)
                if (!run->waiters[i].gone && run->waiters[i].w.progress)
                        run->waiters[i].w.progress(run->m, a->t->name, p,
                                                   run->waiters[i].w.userdata);
}

bool manager_probe_shares_disk(const ManagerProbeRun *run, const RunTarget *t) {
        for (size_t i = 0; i < run->n_active; i++)
                if (backoff_disks_intersect(run->active[i]->t->devs, t->devs))
                        return true;
        return false;
}

/* The parameters of t's next slice, or false when t is done with instead (finished or skipped:
 * no slice left, a disk in standby, the run's budget spent). */
static bool slice_may_start(Manager *m, ManagerProbeRun *run, RunTarget *t, ProbeParams *p) {
        usec_t cost;

        while (t->slice < RUN_SLICES && !slice_params(t, t->slice, p))
                t->slice++;
        if (t->slice >= RUN_SLICES) {
                if (t->any_slice)
                        finish_target(m, run, t);
                else
                        manager_probe_record_skip(m, run, t, PROBE_SKIP_UNUSABLE);
                return false;
        }
        if (standby(m, t)) {
                manager_probe_record_skip(m, run, t, PROBE_SKIP_STANDBY);
                return false;
        }
        cost = t->slice == 1 || t->slice == 2
                       ? p->rand_duration_usec * (p->rand_deep_queue_depth > 0 || p->write ? 2 : 1)
                       : 0;
        if (!backoff_budget_allows(m->config->budget_usec, run->budget_used_usec, cost)) {
                if (t->any_slice)
                        finish_target(m, run, t);
                else
                        manager_probe_record_skip(m, run, t, PROBE_SKIP_BUDGET);
                return false;
        }
        return true;
}

/* Starts a's helper and watches it on the loop. On failure a is left as it is (no helper). */
static int helper_start(Manager *m, Active *a) {
        RunTarget *t = a->t;
        Volume *v = inventory_get(m->inventory, t->name);
        ManagerVolume *rec;
        int sysfs, r;

        if (!v)
                return -ENODEV;
        if (a->params.write)
                manager_scratch_note(m, t->write_dir); /* before a file can be there */
        /* The helper reads the target's and its buffers' (huge page policy) facts from sysfs. */
        sysfs = openat(inventory_root_fd(m->inventory), "sys", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        /* a write slice names the directory: the helper writes only its scratch file there */
        r = probe_runner_start(m->reaper, a->params.write ? t->write_dir : v->path, &a->params,
                               sysfs >= 0 ? sysfs : -EBADF, on_progress, a, &a->runner);
        sysfs = safe_close(sysfs);
        if (r < 0)
                return log_warning_errno(r, "%s: failed to start the probe helper: %m", t->name);
        r = sd_event_add_io(m->event, &a->io, probe_runner_fd(a->runner), EPOLLIN, on_active_io, a);
        if (r >= 0)
                r = sd_event_add_time(m->event, &a->timer, CLOCK_MONOTONIC,
                                      probe_runner_deadline_usec(a->runner), 0, on_active_timer, a);
        if (r < 0)
                return log_warning_errno(r, "%s: failed to watch the probe helper: %m", t->name);
        a->start_usec = now(CLOCK_MONOTONIC);
        rec = manager_get_volume(m, t->name);
        if (rec)
                rec->probing = true;
        log_debug("%s: probing (%s, slice %u, helper %d)", t->name, t->profile.name, t->slice,
                  (int) probe_runner_pid(a->runner));
        m->changed |= MANAGER_CHANGED_PROBE;
        return 0;
}

static void helper_failed(Manager *m, Active *a, int r) {
        ManagerProbeRun *run = a->run;
        RunTarget *t = a->t;

        manager_probe_active_remove(run, a);
        t->status = PROBE_RUNNER_FAILED;
        manager_probe_record_result(
                m, run, t, MANAGER_PROBE_ERROR,
                &(ProbeRunnerOutcome){ .status = PROBE_RUNNER_FAILED, .error = r });
}

/* The end of a slice's idle window: start the helper if the devices stayed quiet. */
static int on_window(sd_event_source *s, uint64_t usec, void *userdata) {
        Active *a = userdata;
        ManagerProbeRun *run = a->run;
        Manager *m = run->m;
        RunTarget *t = a->t;
        int r;

        a->window = sd_event_source_disable_unref(a->window);
        if (!inventory_get(m->inventory, t->name)) {
                manager_probe_active_remove(run, a);
                manager_probe_record_skip(m, run, t, PROBE_SKIP_UNUSABLE); /* vanished */
        } else if (foreign_since_start(m, a, 0, true)) {
                manager_probe_active_remove(run, a);
                defer_foreign(m, run, t);
        } else if ((r = helper_start(m, a)) < 0)
                helper_failed(m, a, r);
        else
                return 0;
        (void) manager_probe_reaper_arm(m);
        manager_probe_kick(m);
        return 0;
}

int manager_probe_slice_start(Manager *m, ManagerProbeRun *run, RunTarget *t) {
        ProbeParams p;
        Active *a;
        int r;

        if (!inventory_get(m->inventory, t->name)) {
                manager_probe_record_skip(m, run, t, PROBE_SKIP_UNUSABLE); /* vanished */
                return 0;
        }
        if (t->started_usec == 0)
                t->started_usec = now(CLOCK_MONOTONIC);
        if (t->write_dir && !manager_scratch_usable(m, t->write_dir)) {
                log_debug("%s: %s left [WriteProbe] Directory= during the run: no write slice",
                          t->name, t->write_dir);
                t->write_dir = mfree(t->write_dir);
        }
        if (!slice_may_start(m, run, t, &p))
                return 0;

        a = calloc(1, sizeof(*a));
        if (!a)
                return -ENOMEM;
        a->run = run;
        a->t = t;
        a->phase = _PROBE_PHASE_INVALID;
        a->before = calloc(t->n_devs, sizeof(BlockStat));
        a->after = calloc(t->n_devs, sizeof(BlockStat));
        a->have_before = calloc(t->n_devs, sizeof(bool));
        a->have_after = calloc(t->n_devs, sizeof(bool));
        if (!a->before || !a->after || !a->have_before || !a->have_after) {
                active_free(a);
                return -ENOMEM;
        }
        if (read_stats(m, t, a->before, a->have_before) && !t->forced) {
                active_free(a);
                defer_foreign(m, run, t); /* I/O in flight right now */
                return 0;
        }
        p.idle_priority = m->config->idle_priority;
        p.seed = now(CLOCK_REALTIME) ^ ((uint64_t) run->id << 32) ^ (uint64_t) (t - run->targets);
        a->params = p;

        /* In run->active from here on: the window counts as probing for Parallel= and shared
         * disks. */
        run->active[run->n_active++] = a;
        t->state = TARGET_RUNNING;
        if (m->config->idle_window_usec > 0) {
                r = sd_event_add_time_relative(m->event, &a->window, CLOCK_MONOTONIC,
                                               m->config->idle_window_usec, 0, on_window, a);
                if (r < 0) {
                        manager_probe_active_remove(run, a);
                        t->state = TARGET_PENDING;
                        return r;
                }
                return 1;
        }
        r = helper_start(m, a);
        if (r < 0) {
                helper_failed(m, a, r);
                return 0;
        }
        return 1;
}

/* SPDX-License-Identifier: MIT */
/* The write probe's scratch files once their directory leaves [WriteProbe] Directory=
 * (manager-internal.h). The daemon records every directory it started a write slice in, in
 * $STATE_DIRECTORY/write-probe.json ({"version":1,"directories":[...]}, written atomically off
 * the loop by a StateWriter), before the helper can create a file there; so a directory taken
 * out of the configuration while the daemon was stopped is known at the next start as well as at
 * a reload. Each configuration applied compares the record with Directory=: a recorded directory
 * no longer configured gets its file removed by the probe helper
 * (probe_runner_start_remove(): probe_scratch_remove() there, which unlinks only a regular file
 * of ours with one link and our marker, never following a symlink), one directory at a time and
 * never while a write slice still runs in it; no new write slice starts in a directory that is
 * not configured or is being cleaned. The loop itself touches no file of the directory: an
 * unlink on a hung filesystem blocks the helper, which the deadline kills and the reaper
 * collects. A directory is forgotten once its file is gone, was never there, or is not ours
 * (left alone, with a warning); any other failure keeps it recorded, tried again at the next
 * reload or start. */

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "basic/fileio.h"
#include "basic/log.h"
#include "basic/sysfs.h"
#include "manager/manager-probe-internal.h"
#include "manager/scratch-record.h"
#include "probe/probe-scratch.h"

#define SCRATCH_FILE_NAME "write-probe.json"

struct ManagerScratch {
        char **dirs;  /* the record: directories a write slice ran in, maybe holding a file */
        char **tried; /* removals that failed since the last configuration applied */
        bool refused; /* the file is of a newer version: left as it is, never written */
        StateWriter *writer;
        int save_error;
        ProbeRunner *runner; /* the removal in progress, of dirs[] entry `removing` */
        char *removing;
        sd_event_source *io, *timer;
};

/* Two spellings of one path: "/srv/data/" is "/srv/data", "//srv" is "/srv". */
static bool path_same(const char *a, const char *b) {
        for (;;) {
                if (*a == '/' && *b == '/') {
                        a += strspn(a, "/");
                        b += strspn(b, "/");
                        continue;
                }
                if (*a == '/' && a[strspn(a, "/")] == '\0')
                        a += strspn(a, "/"); /* trailing slashes */
                if (*b == '/' && b[strspn(b, "/")] == '\0')
                        b += strspn(b, "/");
                if (*a != *b)
                        return false;
                if (*a == '\0')
                        return true;
                a++, b++;
        }
}

static bool dirs_have(char *const *l, const char *dir) {
        for (size_t i = 0; l && l[i]; i++)
                if (path_same(l[i], dir))
                        return true;
        return false;
}

static void dirs_drop(char **l, const char *dir) {
        size_t j = 0;

        for (size_t i = 0; l && l[i]; i++)
                if (path_same(l[i], dir))
                        free(l[i]);
                else
                        l[j++] = l[i];
        if (l)
                l[j] = NULL;
}

static void on_saved(StateWriter *w, int r, void *userdata) {
        Manager *m = userdata;
        ManagerScratch *s = m->scratch;

        if (r < 0 && r != s->save_error)
                log_warning_errno(r, "Failed to save %s/%s: %m, ignoring", m->state_dir,
                                  SCRATCH_FILE_NAME);
        s->save_error = MIN(r, 0);
}

static void save(Manager *m) {
        ManagerScratch *s = m->scratch;
        char *text = NULL;
        int r;

        if (s->refused)
                return;
        r = scratch_record_format(s->dirs, &text);
        if (r >= 0)
                r = manager_state_writer_prepare(m, &s->writer, SCRATCH_FILE_NAME, on_saved, m);
        if (r >= 0)
                r = state_writer_submit(s->writer, TAKE_PTR(text));
        free(text);
        if (r < 0)
                on_saved(s->writer, r, m);
}

/* The record at start: a missing file is an empty record; a damaged one is said and replaced at
 * the next save; a newer version's is left alone and never written. */
static void load(Manager *m) {
        ManagerScratch *s = m->scratch;
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *text = NULL;
        size_t n = 0;
        int r;

        fd = open(m->state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return;
        unlink_stale_temps_at(fd, SCRATCH_FILE_NAME);
        r = read_full_file_at(fd, SCRATCH_FILE_NAME, &text, &n);
        if (r == -ENOENT)
                return;
        if (r >= 0)
                r = scratch_record_parse(text, n, &s->dirs);
        if (r == -EPROTONOSUPPORT) {
                s->refused = true;
                log_warning("%s/%s is of a newer version: left as it is and not written; the "
                            "scratch files of the directories it lists are not removed on opt-out",
                            m->state_dir, SCRATCH_FILE_NAME);
        } else if (r == -ENOMEM)
                log_oom();
        else if (r < 0)
                log_warning("%s/%s: %s, ignoring (it is rewritten with the next write probe)",
                            m->state_dir, SCRATCH_FILE_NAME,
                            r == -EBADMSG ? "not a record of write probe directories"
                                          : strerror(-r));
}

/* A write slice of run's in dir is running (or in its idle window). */
static bool slice_in(const Manager *m, const char *dir) {
        const ManagerProbeRun *run = m->run;

        for (size_t i = 0; run && i < run->n_active; i++)
                if (run->active[i]->params.write && run->active[i]->t->write_dir &&
                    path_same(run->active[i]->t->write_dir, dir))
                        return true;
        return false;
}

static void removal_end(Manager *m) {
        ManagerScratch *s = m->scratch;

        s->io = sd_event_source_disable_unref(s->io);
        s->timer = sd_event_source_disable_unref(s->timer);
        s->runner = probe_runner_free(s->runner); /* a helper still running goes to the reaper */
        s->removing = mfree(s->removing);
        (void) manager_probe_reaper_arm(m);
}

static void removal_outcome(Manager *m, const char *dir, const ProbeRunnerOutcome *o) {
        ManagerScratch *s = m->scratch;
        bool forget = true;

        if (o->status == PROBE_RUNNER_DONE && o->removed)
                log_info("[WriteProbe] %s is no longer a Directory=: removed its scratch file "
                         "%s/" PROBE_SCRATCH_NAME,
                         dir, dir);
        else if (o->status == PROBE_RUNNER_DONE || o->error == -ENOENT)
                log_debug("[WriteProbe] %s is no longer a Directory=: it holds no scratch file",
                          dir);
        else if (o->status == PROBE_RUNNER_UNUSABLE && o->error == -EEXIST)
                log_warning("[WriteProbe] %s is no longer a Directory=: %s/" PROBE_SCRATCH_NAME
                            " is not a scratch file of ours, left alone",
                            dir, dir);
        else {
                forget = false;
                log_warning("[WriteProbe] %s is no longer a Directory=, but its scratch file "
                            "could not be removed (%s): tried again at the next reload or start",
                            dir,
                            o->status == PROBE_RUNNER_STALLED    ? "the filesystem did not answer "
                                                                   "within 10 s"
                            : o->status == PROBE_RUNNER_UNUSABLE ? probe_scratch_strerror(o->error)
                            : o->error < 0                       ? strerror(-o->error)
                                                                 : "the helper failed");
        }
        if (forget) {
                dirs_drop(s->dirs, dir);
                save(m);
        } else if (strv_extend_unique(&s->tried, dir) < 0)
                log_oom();
}

static int removal_dispatch(Manager *m) {
        ManagerScratch *s = m->scratch;
        _cleanup_free_ char *dir = NULL;
        ProbeRunnerOutcome o;
        int r;

        r = probe_runner_dispatch(s->runner, now(CLOCK_MONOTONIC));
        if (r == 0) {
                (void) sd_event_source_set_time(s->timer, probe_runner_deadline_usec(s->runner));
                return 0;
        }
        o = r < 0 ? (ProbeRunnerOutcome){ .status = PROBE_RUNNER_FAILED, .error = r }
                  : *probe_runner_outcome(s->runner);
        dir = TAKE_PTR(s->removing);
        removal_end(m);
        removal_outcome(m, dir, &o);
        manager_scratch_kick(m);
        return 0;
}

static int on_removal_io(sd_event_source *e, int fd, uint32_t revents, void *userdata) {
        return removal_dispatch(userdata);
}

static int on_removal_timer(sd_event_source *e, uint64_t usec, void *userdata) {
        return removal_dispatch(userdata);
}

static int removal_start(Manager *m, const char *dir) {
        ManagerScratch *s = m->scratch;
        int r;

        s->removing = strdup(dir);
        if (!s->removing)
                return -ENOMEM;
        r = probe_runner_start_remove(m->reaper, dir, &s->runner);
        if (r >= 0)
                r = sd_event_add_io(m->event, &s->io, probe_runner_fd(s->runner), EPOLLIN,
                                    on_removal_io, m);
        if (r >= 0)
                r = sd_event_add_time(m->event, &s->timer, CLOCK_MONOTONIC,
                                      probe_runner_deadline_usec(s->runner), 0, on_removal_timer,
                                      m);
        if (r < 0) {
                removal_end(m);
                return r;
        }
        log_debug("[WriteProbe] %s: removing its scratch file (helper %d)", dir,
                  (int) probe_runner_pid(s->runner));
        return 0;
}

void manager_scratch_kick(Manager *m) {
        ManagerScratch *s = m->scratch;
        int r;

        if (!s || s->runner || m->stopping || !m->reaper)
                return;
        for (size_t i = 0; s->dirs && s->dirs[i]; i++) {
                const char *dir = s->dirs[i];

                if (dirs_have(m->config->write_dirs, dir) || dirs_have(s->tried, dir) ||
                    slice_in(m, dir))
                        continue;
                r = removal_start(m, dir);
                if (r >= 0)
                        return;
                log_warning_errno(r,
                                  "[WriteProbe] %s: cannot start the probe helper to remove "
                                  "its scratch file: %m, tried again at the next reload",
                                  dir);
                if (strv_extend_unique(&s->tried, dir) < 0)
                        log_oom();
        }
}

void manager_scratch_apply(Manager *m) {
        if (!m->scratch) {
                m->scratch = calloc(1, sizeof(*m->scratch));
                if (!m->scratch) {
                        log_oom();
                        return;
                }
                load(m);
        }
        m->scratch->tried = strv_free(m->scratch->tried);
        manager_scratch_kick(m);
}

void manager_scratch_note(Manager *m, const char *dir) {
        ManagerScratch *s = m->scratch;

        if (!s || !dir || dirs_have(s->dirs, dir))
                return;
        if (strv_extend_unique(&s->dirs, dir) < 0) {
                log_oom();
                return;
        }
        save(m);
}

bool manager_scratch_usable(const Manager *m, const char *dir) {
        const ManagerScratch *s = m->scratch;

        return dirs_have(m->config->write_dirs, dir) &&
               !(s && s->removing && path_same(s->removing, dir));
}

void manager_scratch_stop(Manager *m) {
        if (m->scratch && m->scratch->runner) {
                log_debug("[WriteProbe] %s: removal of its scratch file stopped",
                          m->scratch->removing);
                removal_end(m);
        }
}

void manager_scratch_free(Manager *m) {
        ManagerScratch *s = m->scratch;

        if (!s)
                return;
        manager_scratch_stop(m);
        if (s->writer && state_writer_flush(s->writer, m->config->shutdown_timeout_usec) < 0)
                log_warning("%s/%s: the last save did not finish within ShutdownTimeout=, "
                            "exiting without it",
                            m->state_dir, SCRATCH_FILE_NAME);
        s->writer = state_writer_free(s->writer);
        strv_free(s->dirs);
        strv_free(s->tried);
        m->scratch = mfree(s);
}

/* SPDX-License-Identifier: MIT */
/* Vendor RAID CLIs (storcli, ssacli, arcconf), polled off the loop: controller_cli_query()
 * spawns and waits (bounded, but seconds), so it runs in a worker thread. The loop decides on its
 * timer which CLIs the current controller volumes need, starts one worker with that list, and
 * gets the parsed results back through a pipe; applying them to the inventory (and so the change
 * set, and the events) happens on the loop. At most one worker at a time; a CLI that hangs is
 * killed by the runner and handed to the daemon's ProcessReaper (thread safe). With
 * --controller-cli-socket (the shipped unit) the worker does not spawn the CLIs: it asks the
 * helper unit behind that socket for each command (sources/controller-cli-remote.h), because the
 * daemon's own sandbox keeps its children away from the controllers' device nodes. */

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/log.h"
#include "manager/manager-internal.h"
#include "model/controller.h"
#include "sources/controller-cli-run.h"

#define CLI_TIMEOUT_USEC (10 * USEC_PER_SEC)

typedef struct CliJob {
        ProcessReaper *reaper;
        char *socket_path; /* NULL: run the CLIs as children */
        ControllerCli clis[_CONTROLLER_CLI_MAX];
        size_t n;
        ControllerVolumeList results[_CONTROLLER_CLI_MAX];
        int errors[_CONTROLLER_CLI_MAX];
        int notify_fd; /* write end: one byte when done */
} CliJob;

struct ManagerCli {
        pthread_t thread;
        bool running;
        CliJob *job;
        int pipe[2];
        sd_event_source *io, *timer;
};

static void *worker(void *p) {
        CliJob *j = p;
        char c = 1;

        for (size_t i = 0; i < j->n; i++)
                j->errors[i] =
                        j->socket_path
                                ? controller_cli_query_remote(j->socket_path, j->clis[i],
                                                              CLI_TIMEOUT_USEC, &j->results[i])
                                : controller_cli_query(j->reaper, j->clis[i], CONTROLLER_CLI_PATH,
                                                       CLI_TIMEOUT_USEC, &j->results[i]);
        (void) write(j->notify_fd, &c, 1);
        return NULL;
}

static void job_free(CliJob *j) {
        if (!j)
                return;
        for (size_t i = 0; i < j->n; i++)
                if (j->errors[i] >= 0)
                        controller_volume_list_done(&j->results[i]);
        free(j->socket_path);
        free(j);
}

static int on_done(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        Manager *m = userdata;
        ManagerCli *c = m->cli;
        CliJob *j = c->job;
        char buf[16];

        (void) read(fd, buf, sizeof(buf));
        if (!c->running)
                return 0;
        (void) pthread_join(c->thread, NULL);
        c->running = false;
        c->job = NULL;
        for (size_t i = 0; i < j->n; i++) {
                int r = j->errors[i];

                if (r == -ENOENT || r == -EOPNOTSUPP)
                        continue; /* no CLI installed: the volumes are still probed */
                if (r == -ECONNREFUSED) {
                        log_warning("Cannot reach the vendor CLI helper at %s (is "
                                    "storpulse-controller-cli.socket running?): %s not queried",
                                    m->cli_socket, controller_cli_to_string(j->clis[i]));
                        continue;
                }
                if (r < 0) {
                        log_warning_errno(r, "Querying %s failed, ignoring: %m",
                                          controller_cli_to_string(j->clis[i]));
                        continue;
                }
                r = inventory_apply_controller_cli(m->inventory, j->clis[i], &j->results[i]);
                if (r < 0)
                        log_warning_errno(r, "Applying %s output failed, ignoring: %m",
                                          controller_cli_to_string(j->clis[i]));
        }
        job_free(j);
        return 0;
}

static void arm(Manager *m);

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;
        ManagerCli *c = m->cli;
        bool want[_CONTROLLER_CLI_MAX] = {};
        CliJob *j;
        Volume *v;

        arm(m);
        if (c->running)
                return 0;
        INVENTORY_FOREACH(v, m->inventory) {
                const ControllerDriver *d;

                if (v->kind != VOLUME_CONTROLLER || !v->driver)
                        continue;
                d = controller_lookup(v->driver, m->controller_flags);
                for (size_t i = 0; d && i < CONTROLLER_CLI_PER_DRIVER; i++)
                        if (d->cli[i] > CONTROLLER_CLI_NONE && d->cli[i] < _CONTROLLER_CLI_MAX)
                                want[d->cli[i]] = true;
        }
        j = calloc(1, sizeof(*j));
        if (!j)
                return 0;
        for (size_t i = 0; i < _CONTROLLER_CLI_MAX; i++)
                if (want[i])
                        j->clis[j->n++] = (ControllerCli) i;
        if (j->n == 0) {
                free(j);
                return 0;
        }
        j->reaper = m->reaper;
        j->notify_fd = c->pipe[1];
        if (m->cli_socket && !(j->socket_path = strdup(m->cli_socket))) {
                job_free(j);
                return 0;
        }
        if (pthread_create(&c->thread, NULL, worker, j) != 0) {
                log_warning("Failed to start the vendor CLI worker, ignoring.");
                job_free(j);
                return 0;
        }
        c->running = true;
        c->job = j;
        return 0;
}

static void arm(Manager *m) {
        ManagerCli *c = m->cli;
        usec_t u = m->config->cli_poll_interval_usec;

        if (!c)
                return;
        if (u == 0 || u == USEC_INFINITY) {
                (void) sd_event_source_set_enabled(c->timer, SD_EVENT_OFF);
                return;
        }
        (void) sd_event_source_set_time_relative(c->timer, u);
        (void) sd_event_source_set_enabled(c->timer, SD_EVENT_ONESHOT);
}

int manager_cli_setup(Manager *m) {
        ManagerCli *c = calloc(1, sizeof(*c));
        int r;

        if (!c)
                return log_oom();
        c->pipe[0] = c->pipe[1] = -EBADF;
        m->cli = c;
        if (pipe2(c->pipe, O_CLOEXEC | O_NONBLOCK) < 0)
                return log_error_errno(-errno, "Failed to create a pipe: %m");
        r = sd_event_add_io(m->event, &c->io, c->pipe[0], EPOLLIN, on_done, m);
        if (r >= 0)
                r = sd_event_add_time_relative(m->event, &c->timer, CLOCK_MONOTONIC, USEC_PER_SEC,
                                               USEC_PER_SEC, on_timer, m);
        if (r < 0)
                return log_error_errno(r, "Failed to watch the vendor CLI worker: %m");
        manager_cli_apply(m);
        return 0;
}

void manager_cli_apply(Manager *m) {
        ManagerCli *c = m->cli;
        usec_t u = m->config->cli_poll_interval_usec;

        if (!c || !c->timer)
                return;
        /* a first query soon after start or a change of the interval, then every interval */
        if (u == 0 || u == USEC_INFINITY)
                (void) sd_event_source_set_enabled(c->timer, SD_EVENT_OFF);
        else {
                (void) sd_event_source_set_time_relative(c->timer, USEC_PER_SEC);
                (void) sd_event_source_set_enabled(c->timer, SD_EVENT_ONESHOT);
        }
}

/* Returns true if a worker is still running (then the reaper must outlive us: it is leaked). */
bool manager_cli_free(Manager *m) {
        ManagerCli *c = m->cli;
        bool busy;

        if (!c)
                return false;
        busy = c->running;
        c->io = sd_event_source_disable_unref(c->io);
        c->timer = sd_event_source_disable_unref(c->timer);
        if (busy) {
                /* bounded by the CLI timeouts, but not worth waiting for at exit: the thread
                 * ends with the process; its job and pipe stay allocated until then */
                (void) pthread_detach(c->thread);
                m->cli = NULL;
                free(c);
                return true;
        }
        safe_close(c->pipe[0]);
        safe_close(c->pipe[1]);
        free(c);
        m->cli = NULL;
        return false;
}

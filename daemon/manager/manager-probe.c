/* SPDX-License-Identifier: MIT */
/* Probe runs (see manager.h): the ProcessReaper the probe helpers are handed to when they hang,
 * watched from the loop, and the bounded wait at shutdown. */

#include <stdlib.h>

#include "basic/log.h"
#include "manager/manager-internal.h"

static int reaper_arm(Manager *m);

static int on_reaper_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;

        (void) process_reaper_reap(m->reaper, now(CLOCK_MONOTONIC));
        return reaper_arm(m);
}

static int on_reaper_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        Manager *m = userdata;

        (void) process_reaper_reap(m->reaper, now(CLOCK_MONOTONIC));
        return reaper_arm(m);
}

static int reaper_arm(Manager *m) {
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

void manager_schedule_apply(Manager *m) {
}

void manager_probe_stop(Manager *m) {
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
        m->reaper_io = sd_event_source_disable_unref(m->reaper_io);
        m->reaper_timer = sd_event_source_disable_unref(m->reaper_timer);
        m->reaper = process_reaper_free(m->reaper);
}

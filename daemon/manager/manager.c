/* SPDX-License-Identifier: MIT */
/* storpulsed's Manager: one sd-event loop holding the live inventory, the md monitor, the probe
 * runs, the control socket and the journal events. Everything that can block runs elsewhere: a
 * probe in the storpulse-probe helper (probe-runner.h), vendor CLIs in their own process; the loop
 * only reads sysfs attributes, netlink and sockets, so the watchdog keeps being fed even while a
 * disk hangs.
 *
 * Signals: SIGTERM/SIGINT end the loop (STOPPING=1), SIGHUP reloads the config (RELOADING=1, then
 * READY=1 again) and applies it only if it is valid. sd_notify STATUS= says how many volumes are
 * watched, how many show a problem and when the next probe is due. */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>

#include "basic/fileio.h"
#include "basic/log.h"
#include "basic/sysfs.h"
#include "config.h"
#include "manager/manager-internal.h"
#include "manager/manager.h"
#include "manager/state-file.h"
#include "model/controller.h"

#define JOURNAL_SOCKET "/run/systemd/journal/socket"

int manager_add_publish_hook(Manager *m, ManagerPublishHook hook, void *userdata) {
        if (!m || !hook)
                return -EINVAL;
        if (m->n_hooks >= ELEMENTSOF(m->hooks))
                return -ENOSPC;
        m->hooks[m->n_hooks].hook = hook;
        m->hooks[m->n_hooks].userdata = userdata;
        m->n_hooks++;
        return 0;
}

int manager_status_line(const Manager *m, char *buf, size_t size) {
        size_t n_visible = 0;
        unsigned n_problems;
        char next[64] = "none";
        Volume *v;

        INVENTORY_FOREACH(v, m->inventory)
        if (volume_is_listed(v))
                n_visible++;
        if (m->run)
                (void) snprintf(next, sizeof(next), "running");
        else if (m->next_probe_usec > 0) {
                time_t t = (time_t) (m->next_probe_usec / USEC_PER_SEC);
                struct tm tm;

                if (localtime_r(&t, &tm))
                        (void) strftime(next, sizeof(next), "%Y-%m-%d %H:%M:%S", &tm);
        } else if (!m->schedule_timer)
                (void) snprintf(next, sizeof(next), "on request");
        n_problems = manager_count_problems(m); /* probes end between change sets */
        return snprintf(buf, size, "%zu volumes, %u problem%s, next probe: %s%s%s", n_visible,
                        n_problems, n_problems == 1 ? "" : "s", next,
                        manager_state_unsaved(m) ? "; state not saved: " : "",
                        manager_state_unsaved(m) ? manager_state_unsaved(m) : "");
}

const char *manager_state_unsaved(const Manager *m) {
        if (m->state_refused)
                return "probes.json is kept for a newer version";
        if (m->state_error < 0)
                return strerror(-m->state_error);
        if (m->baseline_error == -EPROTONOSUPPORT)
                return "baselines.json is kept for a newer version";
        if (m->baseline_error < 0)
                return strerror(-m->baseline_error);
        return NULL;
}

static void manager_notify_status(Manager *m) {
        char line[sizeof(m->last_status)];

        if (!m->under_systemd)
                return;
        (void) manager_status_line(m, line, sizeof(line));
        if (strcmp(line, m->last_status) == 0)
                return; /* publish runs often (probe progress): tell systemd only of changes */
        memcpy(m->last_status, line, sizeof(line));
        (void) sd_notifyf(false, "STATUS=%s", line);
}

void manager_publish(Manager *m) {
        unsigned changed = m->changed;

        m->changed = 0;
        for (size_t i = 0; i < m->n_hooks; i++)
                m->hooks[i].hook(m, changed, m->hooks[i].userdata);
        manager_notify_status(m);
}

const ManagerEvent *manager_get_event(const Manager *m, size_t i) {
        if (!m || i >= m->n_events)
                return NULL;
        return &m->events[(m->events_next + MANAGER_EVENTS_MAX - 1 - i) % MANAGER_EVENTS_MAX];
}

static void copy_str(char *dst, size_t size, const char *src) {
        (void) snprintf(dst, size, "%s", src ?: "");
}

/* One iovec "FIELD=value" built with asprintf; the array holds at most ELEMENTSOF entries. */
static int iov_add(struct iovec *iov, size_t *n, size_t max, const char *format, ...)
        _printf_(4, 5);
static int iov_add(struct iovec *iov, size_t *n, size_t max, const char *format, ...) {
        va_list ap;
        char *s;
        int r;

        if (*n >= max)
                return -ENOSPC;
        va_start(ap, format);
        r = vasprintf(&s, format, ap);
        va_end(ap);
        if (r < 0)
                return -ENOMEM;
        iov[*n].iov_base = s;
        iov[(*n)++].iov_len = (size_t) r;
        return 0;
}

#define LAYER "STORPULSE_LAYER="

static void send_journal(const ManagerEvent *ev, char *const *fields) {
        struct iovec iov[32];
        size_t n = 0;
        bool has_layer = false;

        (void) iov_add(iov, &n, ELEMENTSOF(iov), "MESSAGE=%s", ev->message);
        (void) iov_add(iov, &n, ELEMENTSOF(iov), "MESSAGE_ID=%s",
                       manager_event_type_message_id(ev->type));
        (void) iov_add(iov, &n, ELEMENTSOF(iov), "PRIORITY=%d", ev->priority);
        (void) iov_add(iov, &n, ELEMENTSOF(iov), "SYSLOG_IDENTIFIER=storpulsed");
        (void) iov_add(iov, &n, ELEMENTSOF(iov), "STORPULSE_EVENT=%s",
                       manager_event_type_to_string(ev->type));
        if (ev->volume[0])
                (void) iov_add(iov, &n, ELEMENTSOF(iov), "STORPULSE_VOLUME=%s", ev->volume);
        if (ev->kind[0])
                (void) iov_add(iov, &n, ELEMENTSOF(iov), "STORPULSE_KIND=%s", ev->kind);
        if (ev->member[0])
                (void) iov_add(iov, &n, ELEMENTSOF(iov), "STORPULSE_MEMBER=%s", ev->member);
        for (size_t i = 0; fields && fields[i]; i++) {
                (void) iov_add(iov, &n, ELEMENTSOF(iov), "%s", fields[i]);
                has_layer = has_layer || strncmp(fields[i], LAYER, strlen(LAYER)) == 0;
        }
        /* The layer an event is about, unless its fields say (the performance events name the
         * culprit's): a member's event is on the member, any other on the volume. */
        if (!has_layer && ev->volume[0])
                (void) iov_add(iov, &n, ELEMENTSOF(iov), LAYER "%s",
                               ev->member[0] ? "member" : "volume");
        (void) sd_journal_sendv(iov, (int) n);
        for (size_t i = 0; i < n; i++)
                free(iov[i].iov_base);
}

static void manager_eventv(Manager *m, ManagerEventType type, int priority, const Volume *v,
                           const char *member, char *const *fields, const char *format, va_list ap)
        _printf_(7, 0);

void manager_event(Manager *m, ManagerEventType type, const Volume *v, const char *member,
                   char *const *fields, const char *format, ...) {
        va_list ap;

        va_start(ap, format);
        manager_eventv(m, type, -1, v, member, fields, format, ap);
        va_end(ap);
}

void manager_event_priority(Manager *m, ManagerEventType type, int priority, const Volume *v,
                            const char *member, char *const *fields, const char *format, ...) {
        va_list ap;

        va_start(ap, format);
        manager_eventv(m, type, priority, v, member, fields, format, ap);
        va_end(ap);
}

static void manager_eventv(Manager *m, ManagerEventType type, int priority, const Volume *v,
                           const char *member, char *const *fields, const char *format,
                           va_list ap) {
        ManagerEvent *ev = &m->events[m->events_next];

        *ev = (ManagerEvent){
                .seq = ++m->event_seq,
                .realtime_usec = now(CLOCK_REALTIME),
                .type = type,
                .priority = priority >= 0 ? priority : manager_event_type_priority(type),
        };
        if (v) {
                copy_str(ev->volume, sizeof(ev->volume), v->name);
                copy_str(ev->kind, sizeof(ev->kind), volume_kind_to_string(v->kind));
        }
        copy_str(ev->member, sizeof(ev->member), member);
        (void) vsnprintf(ev->message, sizeof(ev->message), format, ap);
        m->events_next = (m->events_next + 1) % MANAGER_EVENTS_MAX;
        if (m->n_events < MANAGER_EVENTS_MAX)
                m->n_events++;

        if (m->journal)
                send_journal(ev, fields);
        /* By hand (stderr is not the journal), the events are also the daemon's output. */
        if (!m->journal || !getenv("JOURNAL_STREAM"))
                (void) log_internal(ev->priority, 0, "%s [%s]", ev->message,
                                    manager_event_type_to_string(type));
        m->changed |= MANAGER_CHANGED_EVENT;
        manager_publish(m);
}

static void restore_record(const ManagerVolume *f, void *userdata) {
        Manager *m = userdata;
        ManagerVolume *r = manager_get_volume(m, f->name);

        if (!r)
                return; /* not present now: forgotten with the next save */
        r->n_probes = f->n_probes;
        r->n_stalls = f->n_stalls;
        r->n_errors = f->n_errors;
        r->cpu_usec = f->cpu_usec;
        r->device_usec = f->device_usec;
        r->n_forced = f->n_forced;
        r->n_second_looks = f->n_second_looks;
        r->deferred_usec = f->deferred_usec;
        r->stalled = f->stalled;
        memcpy(r->skips, f->skips, sizeof(r->skips));
        for (size_t i = f->n_history; i > 0; i--) /* oldest first */
                if (manager_volume_add_sample(r, manager_volume_get_sample(f, i - 1)) < 0)
                        break;
}

/* probes.json at start: stale temps of a killed daemon removed; a damaged file (truncated,
 * garbage, over the size limit) renamed aside, never overwritten; a newer version's file left in
 * place and not written to at all (m->state_refused), so a downgrade loses nothing. */
void manager_state_load(Manager *m) {
        _cleanup_free_ char *text = NULL, *aside = NULL;
        _cleanup_close_ int fd = -EBADF;
        const char *error = NULL;
        unsigned skipped = 0;
        size_t n = 0;
        int r;

        fd = open(m->state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return; /* no state yet */
        unlink_stale_temps_at(fd, STATE_FILE_NAME);
        r = read_full_file_at(fd, STATE_FILE_NAME, &text, &n);
        if (r == -ENOENT)
                return;
        if (r == -EFBIG)
                error = "larger than any state file this daemon writes";
        else if (r < 0) {
                m->state_refused = true; /* unreadable is not empty: never overwritten */
                log_warning_errno(r,
                                  "Failed to read %s/%s: %m, starting without it; it is left as "
                                  "it is and probe records are not saved",
                                  m->state_dir, STATE_FILE_NAME);
                return;
        } else
                r = state_file_parse(text, n, restore_record, m, &skipped, &error);
        if (r == -EPROTONOSUPPORT) {
                m->state_refused = true;
                log_warning("%s/%s is of a newer version: left as it is, probe records are not "
                            "saved while it is there",
                            m->state_dir, STATE_FILE_NAME);
        } else if (r == -EBADMSG || r == -EFBIG) {
                r = rename_aside_at(fd, STATE_FILE_NAME, "corrupt", &aside);
                if (r < 0) {
                        m->state_refused = true; /* not overwritten either */
                        log_warning_errno(r,
                                          "%s/%s: %s, and it cannot be kept aside (%m): left as "
                                          "it is, probe records are not saved",
                                          m->state_dir, STATE_FILE_NAME, error);
                } else
                        log_warning("%s/%s: %s; kept as %s/%s, starting without it", m->state_dir,
                                    STATE_FILE_NAME, error, m->state_dir, aside);
        } else if (r < 0)
                log_warning("%s/%s: %s, starting without it", m->state_dir, STATE_FILE_NAME,
                            error ?: strerror(-r));
        else {
                if (skipped > 0)
                        log_warning("%s/%s: %u volume or history entries of the wrong type "
                                    "dropped, ignoring",
                                    m->state_dir, STATE_FILE_NAME, skipped);
                log_debug("Restored the probe records of %d volumes from %s/%s", r, m->state_dir,
                          STATE_FILE_NAME);
        }
}

void manager_state_save_result(Manager *m, const char *file, int *error, int r) {
        if (r < 0)
                m->n_save_errors++;
        /* read-only or full: the daemon goes on, the records stay in memory; said once */
        if (r < 0 && r != *error)
                log_warning_errno(r, "Failed to save the %s to %s/%s: %m, ignoring",
                                  strcmp(file, STATE_FILE_NAME) == 0 ? "probe records"
                                                                     : "baselines",
                                  m->state_dir, file);
        else if (r >= 0 && *error < 0)
                log_info("%s/%s saved again.", m->state_dir, file);
        if (r < 0 || *error < 0)
                m->changed |= MANAGER_CHANGED_STATE; /* status and /metrics show it */
        *error = r < 0 ? r : 0;
}

static void on_state_saved(StateWriter *w, int r, void *userdata) {
        Manager *m = userdata;

        manager_state_save_result(m, STATE_FILE_NAME, &m->state_error, r);
        if (m->changed && !m->stopping) /* at exit the hooks' owners are going away */
                manager_publish(m);
}

int manager_state_writer_prepare(Manager *m, StateWriter **w, const char *file,
                                 StateWriterDone done, void *userdata) {
        _cleanup_close_ int fd = -EBADF;

        if (*w && state_writer_busy(*w))
                return 0; /* the text waits for the save in flight */
        *w = state_writer_free(*w);
        (void) mkdir(m->state_dir, 0755);
        fd = open(m->state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        return state_writer_new(m->event, fd, file, done, userdata, w);
}

/* Serializes the records on the loop; the file is written by m->state_writer's thread. */
void manager_state_save(Manager *m) {
        json_object *doc = NULL;
        char *text = NULL;
        int r;

        if (m->state_refused)
                return;
        r = state_file_build(m, &doc);
        if (r >= 0) {
                text = strdup(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN));
                r = text ? 0 : -ENOMEM;
        }
        json_object_put(doc);
        if (r >= 0)
                r = manager_state_writer_prepare(m, &m->state_writer, STATE_FILE_NAME,
                                                 on_state_saved, m);
        if (r >= 0)
                r = state_writer_submit(m->state_writer, TAKE_PTR(text));
        free(text);
        if (r < 0)
                manager_state_save_result(m, STATE_FILE_NAME, &m->state_error, r);
}

static int on_exit_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        Manager *m = userdata;

        log_info("Received %s, stopping.", strsignal((int) si->ssi_signo));
        manager_exit(m);
        return 0;
}

static int on_reload_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        (void) manager_reload(userdata, NULL);
        return 0;
}

void manager_exit(Manager *m) {
        if (m->stopping)
                return;
        m->stopping = true;
        if (m->under_systemd)
                (void) sd_notify(false, "STOPPING=1\nSTATUS=Stopping");
        manager_event(m, MANAGER_EVENT_STOPPING, NULL, NULL, NULL, "storpulsed stopping");
        manager_probe_stop(m);
        (void) sd_event_exit(m->event, 0);
}

int manager_reload(Manager *m, char **ret_error) {
        _cleanup_(config_freep) Config *c = NULL;
        _cleanup_free_ char *error = NULL;
        int r;

        if (m->under_systemd)
                (void) sd_notifyf(false, "RELOADING=1\nMONOTONIC_USEC=%llu",
                                  (unsigned long long) now(CLOCK_MONOTONIC));
        r = config_load(m->config_path, m->config_path_explicit, &c, &error);
        if (r < 0) {
                char *f[] = { NULL, NULL };

                if (asprintf(&f[0], "STORPULSE_CONFIG_ERROR=%s", error ?: "unknown") < 0)
                        f[0] = NULL;
                manager_event(m, MANAGER_EVENT_CONFIG_REJECTED, NULL, NULL, f[0] ? f : NULL,
                              "Configuration rejected, keeping the old one: %s",
                              error ?: strerror(-r));
                free(f[0]);
        } else {
                m->http_note = manager_http_reload(m, c); /* [HTTP] before c replaces it */
                config_free(m->config);
                m->config = TAKE_PTR(c);
                log_set_max_level(m->config->log_level);
                manager_apply_config(m);
                m->changed |= MANAGER_CHANGED_CONFIG;
                manager_event(m, MANAGER_EVENT_CONFIG_RELOADED, NULL, NULL, NULL,
                              "Configuration reloaded from %s", m->config_path);
        }
        if (m->under_systemd)
                (void) sd_notify(false, "READY=1");
        manager_publish(m);
        if (ret_error)
                *ret_error = TAKE_PTR(error);
        return r;
}

static int arm_relative(Manager *m, sd_event_source **s, usec_t interval,
                        sd_event_time_handler_t handler) {
        if (interval == 0 || interval == USEC_INFINITY) {
                *s = sd_event_source_disable_unref(*s);
                return 0;
        }
        if (*s) {
                (void) sd_event_source_set_time_relative(*s, interval);
                return sd_event_source_set_enabled(*s, SD_EVENT_ONESHOT);
        }
        return sd_event_add_time_relative(m->event, s, CLOCK_MONOTONIC, interval, interval / 20,
                                          handler, m);
}

/* Without any uevents (a fixture root, no netlink, a user namespace the kernel sends none to) the
 * sysfs listing is the only way to see devices come and go, so it runs often. */
#define RESCAN_NO_UEVENTS_USEC (2 * USEC_PER_SEC)

static usec_t rescan_interval(const Manager *m) {
        usec_t u = m->config->rescan_interval_usec;

        if (!m->discovery && (u == 0 || u > RESCAN_NO_UEVENTS_USEC))
                return RESCAN_NO_UEVENTS_USEC;
        return u;
}

static int on_rescan(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;
        int r;

        r = inventory_queue_rescan(m->inventory);
        if (r < 0)
                log_warning_errno(r, "Failed to list the block devices: %m, ignoring");
        (void) arm_relative(m, &m->rescan_timer, rescan_interval(m), on_rescan);
        return 0;
}

static bool has_dm_raid(const Manager *m) {
        Volume *v;

        INVENTORY_FOREACH(v, m->inventory)
        if (inventory_dm_is_polled(v))
                return true;
        return false;
}

static int on_dm_poll(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;
        int r;

        r = inventory_refresh_dm_raid(m->inventory);
        if (r < 0)
                log_warning_errno(r, "Failed to refresh dm-raid status: %m, ignoring");
        (void) arm_relative(m, &m->dm_timer, m->config->dm_poll_interval_usec, on_dm_poll);
        return 0;
}

/* The fast path: every half second, the dm event counters of all devices in one ioctl, and a
 * re-read of the polled volumes whose counter moved (a dm-raid leg failed, a pool ran out of
 * space, a path failed) or whose resync runs: their change is published within a second. Where
 * there are no counters (fixtures, an old kernel) the timer ends; the slow poll remains. */
#define DM_LIVE_INTERVAL_USEC (500 * USEC_PER_MSEC)

static int on_dm_live(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;
        int r = inventory_refresh_dm_live(m->inventory);

        if (r == -EOPNOTSUPP) {
                log_debug("No device-mapper event counters here: dm status is polled every "
                          "DmRaidPollInterval= only");
                m->dm_live_timer = sd_event_source_disable_unref(m->dm_live_timer);
                m->dm_live_error = r; /* not again */
                return 0;
        }
        if (r < 0 && r != m->dm_live_error)
                log_warning_errno(r, "Failed to read the device-mapper event counters: %m, "
                                     "retrying");
        else if (r >= 0 && m->dm_live_error < 0)
                log_info("Reading the device-mapper event counters works again");
        m->dm_live_error = MIN(r, 0);
        (void) arm_relative(m, &m->dm_live_timer, DM_LIVE_INTERVAL_USEC, on_dm_live);
        return 0;
}

/* dm-raid sends no uevent when a leg fails or a resync moves on, so its status is polled, but
 * only while such a volume exists: an idle daemon without one has no timer for it. A volume
 * appearing or going is a uevent (or the rescan), which calls this again. */
int manager_dm_poll_update(Manager *m) {
        usec_t u = m->config->dm_poll_interval_usec;

        if (!has_dm_raid(m)) {
                m->dm_timer = sd_event_source_disable_unref(m->dm_timer);
                m->dm_live_timer = sd_event_source_disable_unref(m->dm_live_timer);
                return 0;
        }
        if (!m->dm_live_timer && m->dm_live_error != -EOPNOTSUPP)
                (void) arm_relative(m, &m->dm_live_timer, DM_LIVE_INTERVAL_USEC, on_dm_live);
        if (m->dm_timer && sd_event_source_get_enabled(m->dm_timer, NULL) > 0)
                return 0; /* running: a change set does not postpone it */
        return arm_relative(m, &m->dm_timer, u, on_dm_poll);
}

void manager_apply_config(Manager *m) {
        int r;

        r = arm_relative(m, &m->rescan_timer, rescan_interval(m), on_rescan);
        if (r < 0)
                log_warning_errno(r, "Failed to arm the rescan timer: %m, ignoring");
        m->dm_timer = sd_event_source_disable_unref(m->dm_timer); /* at the new interval */
        r = manager_dm_poll_update(m);
        if (r < 0)
                log_warning_errno(r, "Failed to arm the dm-raid poll: %m, ignoring");
        manager_schedule_apply(m);
        manager_cli_apply(m);
        manager_perf_apply(m);
        manager_scratch_apply(m);
}

static int dir_from_env(const char *opt, const char *env, const char *def, char **ret) {
        const char *e = opt ?: getenv(env);

        /* $RUNTIME_DIRECTORY may list several, separated by ':': the first is ours. */
        if (e && *e) {
                *ret = strndup(e, strcspn(e, ":"));
        } else
                *ret = strdup(def);
        return *ret ? 0 : -ENOMEM;
}

/* Whether the kernel's uevents reach this process at all: it broadcasts them only into network
 * namespaces owned by the initial user namespace, so a process in another user namespace (a
 * rootless container) hears nothing. An identity uid map is the initial one. */
static bool uevents_reach_us(void) {
        _cleanup_free_ char *text = NULL;
        unsigned long a, b, n;
        size_t len;

        if (read_full_file_at(AT_FDCWD, "/proc/self/uid_map", &text, &len) < 0)
                return true; /* no user namespaces: the initial one */
        return sscanf(text, "%lu %lu %lu", &a, &b, &n) == 3 && a == 0 && b == 0 &&
               n == 4294967295UL;
}

/* Device events: udev's, once udevd has processed a device; without udevd the kernel's own (no
 * udevd needed for those), so an idle daemon sleeps until the kernel says something changed and
 * the rescan is the slow safety net either way. No events at all (fixture root, no netlink):
 * m->discovery stays NULL and the rescan runs every RESCAN_NO_UEVENTS_USEC. */
static void setup_discovery(Manager *m) {
        int r;

        if (!inventory_is_live(m->inventory))
                return;
        m->udev_running = access("/run/udev/control", F_OK) == 0;
        if (m->udev_running)
                r = discovery_new(discovery_inventory_queue_handler, m->inventory, &m->discovery);
        else if (uevents_reach_us())
                r = discovery_new_kernel(discovery_inventory_queue_handler, m->inventory,
                                         &m->discovery);
        else
                r = -ENETUNREACH;
        if (r >= 0)
                r = discovery_start(m->discovery);
        if (r >= 0)
                r = discovery_attach_event(m->discovery, m->event);
        if (r < 0) {
                log_notice_errno(r, "No device events (%m); new volumes are found by the rescan "
                                    "timer.");
                m->discovery = discovery_free(m->discovery);
        } else
                log_debug("Device events from %s.", m->udev_running ? "udev" : "the kernel");
}

static int setup_inventory(Manager *m) {
        int r;

        r = inventory_new_for_root(m->root, &m->inventory);
        if (r < 0)
                return log_error_errno(r, "Failed to open root %s: %m", m->root);
        m->controller_flags = controller_lookup_flags_from_env(getenv(CONTROLLER_TEST_ENV));
        inventory_set_controller_flags(m->inventory, m->controller_flags);
        setup_discovery(m);
        /* Also without udev's database (no udevd, devices not initialised): the sysfs listing
         * is the coldplug's safety net. */
        r = inventory_queue_rescan(m->inventory);
        if (r < 0)
                return log_error_errno(r, "Failed to list the block devices below %s: %m", m->root);
        (void) inventory_flush(m->inventory, 0); /* the coldplug, at once */

        r = md_monitor_new(m->event, m->inventory, m->config->md_interval_usec, NULL,
                           MD_MONITOR_DM_RAID, manager_on_md_event, m, &m->md_monitor);
        if (r >= 0)
                r = md_monitor_sync(m->md_monitor);
        if (r >= 0)
                r = inventory_attach_event(m->inventory, m->event, 64, manager_on_changes, m);
        if (r < 0)
                return log_error_errno(r, "Failed to watch the arrays: %m");
        /* The coldplug's change set: records for every volume, no "appeared" events. */
        manager_volumes_coldplug(m);
        manager_state_load(m);
        inventory_clear_changes(m->inventory);
        return 0;
}

int manager_new(const ManagerOptions *o, Manager **ret) {
        _cleanup_(manager_freep) Manager *m = NULL;
        _cleanup_free_ char *error = NULL;
        sigset_t mask;
        int r;

        m = calloc(1, sizeof(*m));
        if (!m)
                return log_oom();
        m->config_path_explicit = o->config_path != NULL;
        m->config_path = strdup(o->config_path ?: SYSCONFDIR "/storpulse/storpulse.conf");
        m->root = strdup(o->root ?: "/");
        if (!m->config_path || !m->root)
                return log_oom();
        if (dir_from_env(o->runtime_dir, "RUNTIME_DIRECTORY", PKGRUNDIR, &m->runtime_dir) < 0 ||
            dir_from_env(o->state_dir, "STATE_DIRECTORY", PKGSTATEDIR, &m->state_dir) < 0)
                return log_oom();
        if (o->cli_socket && !(m->cli_socket = strdup(o->cli_socket)))
                return log_oom();
        m->under_systemd = getenv("NOTIFY_SOCKET") != NULL;
        m->journal = access(JOURNAL_SOCKET, W_OK) == 0;
        for (char *const *l = o->listen; l && *l; l++)
                if (strv_extend_unique(&m->http_listen, *l) < 0)
                        return log_oom();

        r = config_load(m->config_path, m->config_path_explicit, &m->config, &error);
        if (r < 0)
                return log_error_errno(r, "%s", error ?: "Failed to load the configuration");
        log_set_max_level(m->config->log_level);

        r = sd_event_new(&m->event);
        if (r < 0)
                return log_error_errno(r, "Failed to create the event loop: %m");
        (void) sigemptyset(&mask);
        (void) sigaddset(&mask, SIGTERM);
        (void) sigaddset(&mask, SIGINT);
        (void) sigaddset(&mask, SIGHUP);
        (void) sigprocmask(SIG_BLOCK, &mask, NULL);
        r = sd_event_add_signal(m->event, NULL, SIGTERM, on_exit_signal, m);
        if (r >= 0)
                r = sd_event_add_signal(m->event, NULL, SIGINT, on_exit_signal, m);
        if (r >= 0)
                r = sd_event_add_signal(m->event, NULL, SIGHUP, on_reload_signal, m);
        if (r < 0)
                return log_error_errno(r, "Failed to watch signals: %m");
        /* WATCHDOG_USEC: sd-event pings at half the period from its own loop, so a stuck loop is
         * exactly what trips it. */
        r = sd_event_set_watchdog(m->event, true);
        if (r < 0)
                log_warning_errno(r, "Failed to enable the watchdog: %m, ignoring");

        r = manager_probe_setup(m);
        if (r < 0)
                return r;
        r = manager_perf_setup(m);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(m);
        return 0;
}

int manager_run(Manager *m) {
        char line[256];
        int r;

        m->start_usec = now(CLOCK_MONOTONIC);
        r = setup_inventory(m);
        if (r < 0)
                return r;
        r = manager_cli_setup(m);
        if (r < 0)
                return r;
        manager_apply_config(m);
        r = manager_http_setup(m); /* before the control socket: it consumes $LISTEN_FDS */
        if (r < 0)
                return r;
        r = manager_control_setup(m);
        if (r < 0)
                return r;

        (void) manager_status_line(m, line, sizeof(line));
        manager_event(m, MANAGER_EVENT_STARTED, NULL, NULL, NULL, "storpulsed %s started: %s",
                      PACKAGE_VERSION, line);
        if (m->under_systemd)
                (void) sd_notifyf(false, "READY=1\nSTATUS=%s", line);

        r = sd_event_loop(m->event);
        if (r < 0)
                return log_error_errno(r, "Event loop failed: %m");
        manager_probe_shutdown(m);
        manager_state_save(m);
        /* bounded: a state directory on a hung disk must not hold the exit (the temp file of an
         * abandoned write is removed at the next start) */
        if (state_writer_flush(m->state_writer, m->config->shutdown_timeout_usec) < 0)
                log_warning("%s/%s: the last save did not finish within ShutdownTimeout=, "
                            "exiting without it",
                            m->state_dir, STATE_FILE_NAME);
        return 0;
}

Manager *manager_free(Manager *m) {
        if (!m)
                return NULL;
        m->stopping = true;   /* no more publishing from the state writers' completions */
        manager_http_free(m); /* first: its thread reads nothing of ours, but stop serving */
        m->state_writer = state_writer_free(m->state_writer);
        manager_control_free(m);
        m->reaper_in_use = manager_cli_free(m);
        manager_perf_free(m);
        manager_probe_free(m);
        m->md_monitor = md_monitor_free(m->md_monitor);
        m->discovery = discovery_free(m->discovery);
        m->rescan_timer = sd_event_source_disable_unref(m->rescan_timer);
        m->dm_timer = sd_event_source_disable_unref(m->dm_timer);
        m->dm_live_timer = sd_event_source_disable_unref(m->dm_live_timer);
        manager_volumes_free(m);
        m->inventory = inventory_free(m->inventory);
        m->event = sd_event_unref(m->event);
        config_free(m->config);
        free(m->config_path);
        free(m->root);
        free(m->runtime_dir);
        free(m->cli_socket);
        free(m->state_dir);
        free(m);
        return NULL;
}

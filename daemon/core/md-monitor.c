/* SPDX-License-Identifier: MIT */
/* Rebuild tracking in the library (see include/core/md-monitor.h): one RebuildTracker per array
 * the inventory knows, md arrays observed on md-watch's EPOLLPRI reports, dm-raid volumes on the
 * inventory's change records. The inventory decides which arrays exist; md-watch runs without
 * discovery of its own. An observation re-reads the array through the inventory, so the figures
 * `volumes` and the daemon's reports show and the ones the tracker sees come from one reading.
 *
 * EPOLLPRI alone leaves the view behind the kernel: md notifies at checkpoints (sync_completed
 * moves in steps of up to 1/16 of the device, /proc/mdstat only when an operation starts or
 * stops), often before the rest of the state has settled (a notification of sync_action while
 * the sync thread still winds down), and not at all for sync_speed or the speed limits. So a
 * live timer re-reads, every MD_MONITOR_LIVE_USEC, each array whose operation runs (sync_action
 * not idle; `frozen` too: an administrator can resume it at any moment), whose last read failed
 * (retried until it works, never left stale) or whose last notification is less than
 * MD_MONITOR_SETTLE_USEC old, and all arrays when /proc/sys/dev/raid/speed_limit_{min,max} changed:
 * what the daemon shows is never older than that period (plus the owner's publication) against a
 * fresh read. An idle array costs two reads of the speed limits per period, nothing else.
 *
 * Handler calls may re-enter the monitor (follow/drop), so nothing that a call can move (the
 * followed[] array) is held across one: names are copied, entries looked up again. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/sysfs.h"
#include "basic/string-table.h"
#include "core/md-monitor.h"
#include "model/mdstat.h"
#include "sources/md-watch.h"

#define MD_MONITOR_LIVE_USEC   (USEC_PER_SEC / 2)
#define MD_MONITOR_SETTLE_USEC (3 * USEC_PER_SEC)

typedef struct Followed {
        char *name;
        bool md;             /* md array (MdWatch); else a dm-raid volume (change records) */
        bool watching;       /* md: md_watch_add() succeeded */
        bool failed;         /* md: the last re-read failed (retried by the live timer) */
        usec_t settle_until; /* md: re-read by the live timer until then (CLOCK_MONOTONIC) */
        RebuildTracker tracker;
} Followed;

struct MdMonitor {
        sd_event *event;
        Inventory *inv;
        MdWatch *watch;
        char **only;
        unsigned flags;
        MdMonitorHandler handler;
        void *userdata;
        Followed *followed;
        size_t n_followed;
        sd_event_source *live; /* the live re-read timer (see the module comment) */
        char *limits;          /* speed_limit_min and _max as last read */
};

static const char *const md_monitor_event_type_table[] = {
        [MD_MONITOR_ARRAY_WATCHED] = "watched",
        [MD_MONITOR_ARRAY_DROPPED] = "dropped",
        [MD_MONITOR_REBUILD] = "rebuild",
        [MD_MONITOR_READ_FAILED] = "read-failed",
};

DEFINE_STRING_TABLE_LOOKUP(md_monitor_event_type, MdMonitorEventType, md_monitor_event_type_table)

static Followed *followed_get(const MdMonitor *m, const char *name) {
        for (size_t i = 0; i < m->n_followed; i++)
                if (strcmp(m->followed[i].name, name) == 0)
                        return &m->followed[i];
        return NULL;
}

static void emit(MdMonitor *m, MdMonitorEvent ev) {
        if (m->handler)
                m->handler(m, &ev, m->userdata);
}

static bool is_md(const Volume *v) {
        return v->kind == VOLUME_MD && !v->hidden;
}

static bool wanted(const MdMonitor *m, const Volume *v) {
        if (!is_md(v) && !((m->flags & MD_MONITOR_DM_RAID) && v->dm_raid && !v->hidden))
                return false;
        return !m->only || strv_contains(m->only, v->name);
}

/* Forget an array. With `tell`, a DROPPED event follows (the name is copied first). */
static void drop(MdMonitor *m, const char *name, bool tell) {
        char copy[256];
        Followed *f = followed_get(m, name);
        size_t i;

        if (!f)
                return;
        (void) snprintf(copy, sizeof(copy), "%s", name);
        if (f->md && f->watching)
                (void) md_watch_remove(m->watch, copy); /* its REMOVED report finds nothing */
        free(f->name);
        i = (size_t) (f - m->followed);
        memmove(m->followed + i, m->followed + i + 1, (m->n_followed - i - 1) * sizeof(*f));
        m->n_followed--;
        if (tell)
                emit(m, (MdMonitorEvent){ .type = MD_MONITOR_ARRAY_DROPPED, .array = copy });
}

static usec_t loop_now(const MdMonitor *m) {
        uint64_t t;

        if (sd_event_now(m->event, CLOCK_MONOTONIC, &t) < 0)
                t = now(CLOCK_MONOTONIC);
        return t;
}

/* Feed one observation and hand out the events (the tracker is copied back first: the handler
 * may drop the array). */
static void feed(MdMonitor *m, const char *name, const Volume *v, const RebuildObservation *o) {
        RebuildEvent ev[REBUILD_EVENTS_MAX];
        Followed *f = followed_get(m, name);
        char copy[256];
        int n;

        if (!f)
                return;
        n = rebuild_tracker_feed(&f->tracker, loop_now(m), o, ev, ELEMENTSOF(ev));
        if (n < 0) {
                emit(m, (MdMonitorEvent){ .type = MD_MONITOR_READ_FAILED,
                                          .array = name,
                                          .volume = v,
                                          .error = n });
                return;
        }
        (void) snprintf(copy, sizeof(copy), "%s", name);
        for (int i = 0; i < n; i++)
                emit(m, (MdMonitorEvent){ .type = MD_MONITOR_REBUILD,
                                          .array = copy,
                                          .volume = v,
                                          .rebuild = &ev[i] });
}

/* A member that left or joined the array has a new holders/ and no uevent says so: re-read the
 * members in `before` or in the array's slaves now, but not in both. */
static void reread_changed_members(MdMonitor *m, char *const *before, const char *name) {
        _cleanup_(strv_freep) char **changed = NULL;
        const Volume *v = inventory_get(m->inv, name);
        char *const *after = v ? v->raw_slaves : NULL;

        for (size_t i = 0; before && before[i]; i++)
                if (!strv_contains(after, before[i]) && strv_extend_unique(&changed, before[i]) < 0)
                        return;
        for (size_t i = 0; after && after[i]; i++)
                if (!strv_contains(before, after[i]) && strv_extend_unique(&changed, after[i]) < 0)
                        return;
        for (size_t i = 0; changed && changed[i]; i++)
                if (inventory_get(m->inv, changed[i]))
                        (void) inventory_device_change(m->inv, changed[i]);
}

static char **strv_dup(char *const *l) {
        char **c = NULL;

        for (size_t i = 0; l && l[i]; i++)
                if (strv_extend_unique(&c, l[i]) < 0)
                        return strv_free(c);
        return c;
}

/* Re-read an md array through the inventory and feed its tracker. */
static void observe_md(MdMonitor *m, const char *name) {
        _cleanup_(strv_freep) char **before = NULL;
        uint64_t sync_min = REBUILD_UNKNOWN;
        const Mdstat *ms;
        RebuildObservation o;
        Followed *f;
        Volume *v;
        int md_fd, r;

        v = inventory_get(m->inv, name);
        before = v ? strv_dup(v->raw_slaves) : NULL;
        r = inventory_device_change(m->inv, name);
        if (r >= 0)
                reread_changed_members(m, before, name);
        if (r == -ENOENT) { /* gone from sysfs: the inventory recorded REMOVED */
                drop(m, name, true);
                return;
        }
        v = inventory_get(m->inv, name);
        if (r >= 0 && (!v || !v->md))
                r = -ENODATA; /* md/ unreadable this time: health unknown in the inventory */
        f = followed_get(m, name);
        if (r < 0) {
                /* retried by the live timer; told once per streak of failures */
                if (f && f->failed)
                        return;
                if (f)
                        f->failed = true;
                emit(m, (MdMonitorEvent){ .type = MD_MONITOR_READ_FAILED,
                                          .array = name,
                                          .volume = v,
                                          .error = r });
                return;
        }
        if (f)
                f->failed = false;
        md_fd = md_watch_get_md_dir_fd(m->watch, name);
        if (md_fd < 0 || sysfs_read_u64(md_fd, "sync_min", &sync_min) < 0)
                sync_min = REBUILD_UNKNOWN;
        ms = inventory_get_mdstat(m->inv);
        f = followed_get(m, name);
        if (!f)
                return;
        rebuild_observation_from_md(&f->tracker, v->md, ms ? mdstat_find(ms, name) : NULL, ms,
                                    sync_min, &o);
        feed(m, name, v, &o);
}

static void observe_dm_raid(MdMonitor *m, const Volume *v) {
        RebuildObservation o;
        Followed *f = followed_get(m, v->name);

        if (!f || !v->dm_raid)
                return;
        rebuild_observation_from_dm(&f->tracker, v->dm_raid, &o);
        feed(m, v->name, v, &o);
}

static bool sync_running(const Volume *v) {
        return v && v->sync.action && strcmp(v->sync.action, "idle") != 0;
}

/* Whether md's speed limits (shown by every array's sync_speed_min/max) changed since the last
 * look. The first look only remembers them. */
static bool limits_changed(MdMonitor *m) {
        _cleanup_free_ char *lo = NULL, *hi = NULL, *both = NULL;
        int fd = inventory_root_fd(m->inv);
        bool changed;

        (void) sysfs_read_string(fd, "proc/sys/dev/raid/speed_limit_min", &lo);
        (void) sysfs_read_string(fd, "proc/sys/dev/raid/speed_limit_max", &hi);
        if (asprintf(&both, "%s %s", lo ?: "-", hi ?: "-") < 0)
                return false;
        changed = m->limits && strcmp(m->limits, both) != 0;
        free(m->limits);
        m->limits = TAKE_PTR(both);
        return changed;
}

static int on_live(sd_event_source *s, uint64_t usec, void *userdata);

/* The live timer runs while an md array is followed: every period while one needs it, else
 * only for the speed limits. */
static void live_arm(MdMonitor *m) {
        bool any = false;

        for (size_t i = 0; i < m->n_followed && !any; i++)
                any = m->followed[i].md;
        if (!any) {
                if (m->live)
                        (void) sd_event_source_set_enabled(m->live, SD_EVENT_OFF);
                return;
        }
        if (!m->live) {
                if (sd_event_add_time_relative(m->event, &m->live, CLOCK_MONOTONIC,
                                               MD_MONITOR_LIVE_USEC, USEC_PER_SEC / 50, on_live,
                                               m) < 0)
                        return; /* EPOLLPRI and the safety net still work */
                (void) sd_event_source_set_description(m->live, "md-monitor-live");
                return;
        }
        if (sd_event_source_get_enabled(m->live, NULL) > 0)
                return;
        (void) sd_event_source_set_time_relative(m->live, MD_MONITOR_LIVE_USEC);
        (void) sd_event_source_set_enabled(m->live, SD_EVENT_ONESHOT);
}

static int on_live(sd_event_source *s, uint64_t usec, void *userdata) {
        MdMonitor *m = userdata;
        bool all = limits_changed(m);
        usec_t t = loop_now(m);
        char **names = NULL;
        size_t n = 0;

        for (size_t i = 0; i < m->n_followed; i++) {
                Followed *f = &m->followed[i];
                char **l;

                if (!f->md || !(all || f->failed || t < f->settle_until ||
                                sync_running(inventory_get(m->inv, f->name))))
                        continue;
                l = reallocarray(names, n + 1, sizeof(char *));
                if (!l)
                        break;
                names = l;
                names[n] = strdup(f->name);
                if (names[n])
                        n++;
        }
        /* observing may drop arrays: only copies of the names are held */
        for (size_t i = 0; i < n; i++) {
                if (followed_get(m, names[i]))
                        observe_md(m, names[i]);
                free(names[i]);
        }
        free(names);
        live_arm(m);
        return 0;
}

static void on_watch(MdWatch *w, const char *array, MdWatchChange change, unsigned attrs,
                     void *userdata) {
        MdMonitor *m = userdata;
        Followed *f = followed_get(m, array);
        unsigned total = 0, pollable = 0;

        if (!f || !f->md)
                return; /* dropped meanwhile */
        f->settle_until = loop_now(m) + MD_MONITOR_SETTLE_USEC;
        switch (change) {
        case MD_WATCH_ARRAY_REMOVED:
                if (md_watch_get_md_dir_fd(w, array) >= 0)
                        return; /* the report of an earlier watch; watched again since */
                f->watching = false;
                drop(m, array, true);
                return;
        case MD_WATCH_ARRAY_ADDED:
                (void) md_watch_get_counts(w, array, &total, &pollable);
                emit(m, (MdMonitorEvent){ .type = MD_MONITOR_ARRAY_WATCHED,
                                          .array = array,
                                          .volume = inventory_get(m->inv, array),
                                          .n_attrs = total,
                                          .n_pollable = pollable,
                                          .mdstat_pollable = md_watch_mdstat_pollable(w) });
                break;
        case MD_WATCH_ARRAY_CHANGED:
                break;
        case _MD_WATCH_CHANGE_MAX:
        case _MD_WATCH_CHANGE_INVALID:
                return;
        }
        observe_md(m, array);
}

/* Start following `v` (or retry its md watch). 0 or -ENOMEM. */
static int follow(MdMonitor *m, const Volume *v) {
        Followed *f = followed_get(m, v->name), *l;
        bool added = false;
        int r;

        if (!f) {
                l = reallocarray(m->followed, m->n_followed + 1, sizeof(*l));
                if (!l)
                        return -ENOMEM;
                m->followed = l;
                f = &l[m->n_followed];
                *f = (Followed){ .name = strdup(v->name), .md = is_md(v) };
                if (!f->name)
                        return -ENOMEM;
                rebuild_tracker_init(&f->tracker);
                m->n_followed++;
                added = true;
        }
        if (f->md)
                live_arm(m);
        if (f->md && !f->watching) {
                /* 1: an ADDED report follows (WATCHED, first observation); -ENOENT: md/ is not
                 * there (yet), retried at the next CHANGED record */
                r = md_watch_add(m->watch, f->name);
                if (r == -ENOMEM)
                        return r;
                f->watching = r >= 0;
        }
        if (!f->md && added) {
                emit(m, (MdMonitorEvent){
                                .type = MD_MONITOR_ARRAY_WATCHED, .array = v->name, .volume = v });
                observe_dm_raid(m, v);
        }
        return 0;
}

int md_monitor_new(sd_event *e, Inventory *inv, usec_t interval_usec, char *const *only,
                   unsigned flags, MdMonitorHandler handler, void *userdata, MdMonitor **ret) {
        _cleanup_(md_monitor_freep) MdMonitor *m = NULL;
        int r;

        if (!e || !inv || !ret)
                return -EINVAL;
        m = calloc(1, sizeof(*m));
        if (!m)
                return -ENOMEM;
        m->event = sd_event_ref(e);
        m->inv = inv;
        m->flags = flags;
        m->handler = handler;
        m->userdata = userdata;
        for (size_t i = 0; only && only[i]; i++)
                if (strv_extend_unique(&m->only, only[i]) < 0)
                        return -ENOMEM;
        if (only && !m->only) {
                m->only = calloc(1, sizeof(char *)); /* an empty filter follows nothing */
                if (!m->only)
                        return -ENOMEM;
        }
        r = md_watch_new(e, inventory_root_fd(inv), interval_usec, /* discover= */ false, on_watch,
                         m, &m->watch);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(m);
        return 0;
}

MdMonitor *md_monitor_free(MdMonitor *m) {
        if (!m)
                return NULL;
        md_watch_free(m->watch);
        sd_event_source_disable_unref(m->live);
        free(m->limits);
        for (size_t i = 0; i < m->n_followed; i++)
                free(m->followed[i].name);
        free(m->followed);
        strv_free(m->only);
        sd_event_unref(m->event);
        free(m);
        return NULL;
}

int md_monitor_sync(MdMonitor *m) {
        Volume *v;
        int r;

        if (!m)
                return -EINVAL;
        /* a DROPPED handler may drop more: look again from the start after each drop */
        for (size_t i = 0; i < m->n_followed;) {
                const Volume *cur = inventory_get(m->inv, m->followed[i].name);

                if (cur && wanted(m, cur)) {
                        i++;
                        continue;
                }
                drop(m, m->followed[i].name, true);
                i = 0;
        }
        INVENTORY_FOREACH(v, m->inv)
        if (wanted(m, v)) {
                r = follow(m, v);
                if (r < 0)
                        return r;
        }
        return (int) m->n_followed;
}

int md_monitor_apply_changes(MdMonitor *m, const InventoryChange *changes, size_t n) {
        int r;

        if (!m || (!changes && n > 0))
                return -EINVAL;
        for (size_t i = 0; i < n; i++) {
                const InventoryChange *c = &changes[i];
                Volume *v = c->volume;
                Followed *f;

                switch (c->type) {
                case INVENTORY_VOLUME_REMOVED:
                        /* only if no new handle of that name took its place meanwhile */
                        if (!inventory_get(m->inv, v->name))
                                drop(m, v->name, true);
                        break;
                case INVENTORY_VOLUME_ADDED:
                case INVENTORY_VOLUME_CHANGED:
                        if (inventory_get(m->inv, v->name) != v)
                                break; /* a stale handle: a later record of the new one follows */
                        f = followed_get(m, v->name);
                        if (!wanted(m, v)) {
                                if (f)
                                        drop(m, v->name, true);
                                break;
                        }
                        r = follow(m, v);
                        if (r < 0)
                                return r;
                        f = followed_get(m, v->name);
                        if (f && !f->md && c->type == INVENTORY_VOLUME_CHANGED &&
                            (c->what & (INVENTORY_CHANGE_SYNC | INVENTORY_CHANGE_MEMBERS |
                                        INVENTORY_CHANGE_HEALTH | INVENTORY_CHANGE_STATE)))
                                observe_dm_raid(m, v);
                        break;
                case _INVENTORY_CHANGE_TYPE_MAX:
                case _INVENTORY_CHANGE_TYPE_INVALID:
                        break;
                }
        }
        return 0;
}

int md_monitor_get_status(const MdMonitor *m, const char *array, usec_t now_usec,
                          RebuildStatus *ret) {
        const Followed *f;

        if (!m || !array || !ret)
                return -EINVAL;
        f = followed_get(m, array);
        if (!f)
                return -ENOENT;
        rebuild_tracker_get_status(&f->tracker, now_usec, ret);
        return 0;
}

size_t md_monitor_size(const MdMonitor *m) {
        return m ? m->n_followed : 0;
}

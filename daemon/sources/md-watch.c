/* SPDX-License-Identifier: MIT */
/* Event-driven md watching (contract in include/md-watch.h).
 *
 * Kernfs poll semantics (fs/kernfs/file.c): an open attribute remembers the change counter it
 * last read; poll reports EPOLLERR|EPOLLPRI while the counter moved since, and a read from
 * offset 0 syncs it again. So each pollable attribute keeps its fd open, is read once, and on
 * every wake-up is re-read with pread(…, 0) (level-triggered epoll would otherwise keep firing).
 * A read failing with ENODEV/ENOENT means the node is gone: a member's state -> that member left;
 * an array attribute -> the array was stopped. Any other read error turns the attribute into a
 * safety-net-only one (source disabled), so a misbehaving file can never spin the loop.
 *
 * epoll_ctl() refuses regular files with EPERM. Such attributes (fixture trees, or a filesystem
 * without poll support) keep no fd: each safety-net pass re-opens them by path and compares the
 * text, which also notices a fixture file replaced by rename().
 *
 * Reports are collected as bits per array and delivered from one deferred event source, so a
 * burst (sync_action and sync_completed and degraded changing together) is one handler call. */

#include <fcntl.h>
#include <string.h>
#include <sys/epoll.h>

#include "basic/string-table.h"
#include "basic/fileio.h"
#include "sources/md-watch.h"
#include "basic/sysfs.h"

#define MD_WATCH_ATTRS_ALL                                                                         \
        (MD_WATCH_ATTR_ARRAY_STATE | MD_WATCH_ATTR_SYNC_ACTION | MD_WATCH_ATTR_DEGRADED |          \
         MD_WATCH_ATTR_SYNC_COMPLETED | MD_WATCH_ATTR_MEMBER_STATE | MD_WATCH_ATTR_MEMBERS)

typedef struct MdWatchArray MdWatchArray;

typedef struct MdWatchAttr {
        MdWatchArray *array;
        char *path;   /* relative to the array's md/ directory */
        char *member; /* "vda" for dev-vda/state; NULL for array attributes */
        unsigned bit;
        int fd;                  /* open for pread while pollable, else -EBADF */
        sd_event_source *source; /* EPOLLPRI registration; NULL: safety net only */
        char *value;             /* last text read */
} MdWatchAttr;

struct MdWatchArray {
        MdWatch *watch;
        char *name;
        int md_fd;
        MdWatchAttr **attrs;
        size_t n_attrs;
        unsigned pending; /* MD_WATCH_ATTR_* to report */
        bool pending_added;
};

struct MdWatch {
        sd_event *event;
        int root_fd;
        usec_t interval;
        bool discover;
        MdWatchHandler handler;
        void *userdata;
        sd_event_source *timer, *defer, *mdstat_source;
        int mdstat_fd;
        MdWatchArray **arrays;
        size_t n_arrays;
        char **removed; /* names awaiting their REMOVED report */
        size_t n_removed;
};

static const char *const md_watch_change_table[_MD_WATCH_CHANGE_MAX] = {
        [MD_WATCH_ARRAY_ADDED] = "added",
        [MD_WATCH_ARRAY_CHANGED] = "changed",
        [MD_WATCH_ARRAY_REMOVED] = "removed",
};

DEFINE_STRING_TABLE_LOOKUP(md_watch_change, MdWatchChange, md_watch_change_table)

static bool error_is_gone(int r) {
        return r == -ENOENT || r == -ENODEV || r == -ENXIO;
}

static void schedule_dispatch(MdWatch *w) {
        (void) sd_event_source_set_enabled(w->defer, SD_EVENT_ONESHOT);
}

static MdWatchAttr *attr_free(MdWatchAttr *a) {
        if (!a)
                return NULL;
        a->source = sd_event_source_disable_unref(a->source);
        a->fd = safe_close(a->fd);
        free(a->path);
        free(a->member);
        free(a->value);
        free(a);
        return NULL;
}

static MdWatchArray *array_free(MdWatchArray *arr) {
        if (!arr)
                return NULL;
        for (size_t i = 0; i < arr->n_attrs; i++)
                attr_free(arr->attrs[i]);
        free(arr->attrs);
        arr->md_fd = safe_close(arr->md_fd);
        free(arr->name);
        free(arr);
        return NULL;
}
DEFINE_TRIVIAL_CLEANUP_FUNC(MdWatchArray *, array_free);

/* Read the current text of an attribute: pread from 0 on the kept fd, or open by path. */
static int attr_read(MdWatchAttr *a, char **ret) {
        _cleanup_close_ int fd = -EBADF;

        if (a->fd >= 0)
                return read_fd_from_start(a->fd, ret);
        fd = openat(a->array->md_fd, a->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0)
                return -errno;
        return read_fd_from_start(fd, ret);
}

/* 1 if the value changed (and is recorded as pending), 0 if not, -errno on read failure. */
static int attr_refresh(MdWatchAttr *a) {
        char *v = NULL;
        int r;

        r = attr_read(a, &v);
        if (r < 0)
                return r;
        if (a->value && strcmp(a->value, v) == 0) {
                free(v);
                return 0;
        }
        free(a->value);
        a->value = v;
        a->array->pending |= a->bit;
        schedule_dispatch(a->array->watch);
        return 1;
}

static void array_gone(MdWatchArray *arr);
static void array_drop_attr(MdWatchArray *arr, size_t i);
static int array_rescan_members(MdWatchArray *arr);

static int on_attr_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        MdWatchAttr *a = userdata;
        MdWatchArray *arr = a->array;
        int r;

        r = attr_refresh(a);
        if (error_is_gone(r)) {
                if (a->member) {
                        for (size_t i = 0; i < arr->n_attrs; i++)
                                if (arr->attrs[i] == a) {
                                        array_drop_attr(arr, i);
                                        break;
                                }
                        arr->pending |= MD_WATCH_ATTR_MEMBERS;
                        schedule_dispatch(arr->watch);
                } else
                        array_gone(arr);
                return 0;
        }
        if (r < 0) {
                /* Unexpected: stop polling it (no busy loop), the safety net still reads it. */
                (void) sd_event_source_set_enabled(s, SD_EVENT_OFF);
                return 0;
        }
        /* A change of the array's own state often comes with members appearing or leaving. */
        if (!a->member && r > 0)
                (void) array_rescan_members(arr);
        return 0;
}

/* Open, read once and register one attribute. -ENOENT if it does not exist. */
static int attr_new(MdWatchArray *arr, const char *path, const char *member, unsigned bit,
                    MdWatchAttr **ret) {
        MdWatchAttr *a;
        int r;

        a = calloc(1, sizeof(*a));
        if (!a)
                return -ENOMEM;
        a->array = arr;
        a->bit = bit;
        a->fd = -EBADF;
        a->path = strdup(path);
        a->member = member ? strdup(member) : NULL;
        if (!a->path || (member && !a->member)) {
                attr_free(a);
                return -ENOMEM;
        }
        a->fd = openat(arr->md_fd, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        if (a->fd < 0) {
                r = -errno;
                attr_free(a);
                return r;
        }
        /* Read first: kernfs only reports changes after the value this fd last read. */
        r = read_fd_from_start(a->fd, &a->value);
        if (r < 0) {
                attr_free(a);
                return r;
        }
        r = sd_event_add_io(arr->watch->event, &a->source, a->fd, EPOLLPRI, on_attr_io, a);
        if (r == -EPERM)
                /* A regular file (fixture): epoll refuses it. Safety net only, by path. */
                a->fd = safe_close(a->fd);
        else if (r < 0) {
                attr_free(a);
                return r;
        } else
                (void) sd_event_source_set_description(a->source, "md-watch-attr");
        *ret = a;
        return 0;
}

static int array_append_attr(MdWatchArray *arr, MdWatchAttr *a) {
        MdWatchAttr **l = reallocarray(arr->attrs, arr->n_attrs + 1, sizeof(*l));

        if (!l)
                return -ENOMEM;
        arr->attrs = l;
        arr->attrs[arr->n_attrs++] = a;
        return 0;
}

static void array_drop_attr(MdWatchArray *arr, size_t i) {
        attr_free(arr->attrs[i]);
        memmove(arr->attrs + i, arr->attrs + i + 1, (arr->n_attrs - i - 1) * sizeof(arr->attrs[0]));
        arr->n_attrs--;
}

static bool member_name_ok(const char *m) {
        return m[0] && !strchr(m, '/') && strcmp(m, ".") != 0 && strcmp(m, "..") != 0;
}

static const struct {
        const char *path;
        unsigned bit;
} array_attrs[] = {
        { "array_state", MD_WATCH_ATTR_ARRAY_STATE },
        { "sync_action", MD_WATCH_ATTR_SYNC_ACTION },
        { "degraded", MD_WATCH_ATTR_DEGRADED },
        { "sync_completed", MD_WATCH_ATTR_SYNC_COMPLETED },
};

static bool array_has_attr(const MdWatchArray *arr, unsigned bit) {
        for (size_t i = 0; i < arr->n_attrs; i++)
                if (!arr->attrs[i]->member && arr->attrs[i]->bit == bit)
                        return true;
        return false;
}

/* Open the array attributes not watched yet. Some exist only once the array runs (an array
 * being assembled or created has array_state alone; raid0/linear never get sync_action or
 * degraded), so this is repeated at every full refresh; one that appeared is a change. */
static int array_rescan_attrs(MdWatchArray *arr) {
        for (size_t i = 0; i < ELEMENTSOF(array_attrs); i++) {
                MdWatchAttr *a;
                int r;

                if (array_has_attr(arr, array_attrs[i].bit))
                        continue;
                r = attr_new(arr, array_attrs[i].path, NULL, array_attrs[i].bit, &a);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        continue; /* not there (yet): next pass */
                r = array_append_attr(arr, a);
                if (r < 0) {
                        attr_free(a);
                        return r;
                }
                arr->pending |= array_attrs[i].bit;
                schedule_dispatch(arr->watch);
        }
        return 0;
}

/* Pick up dev-X directories that appeared, drop those that left. */
static int array_rescan_members(MdWatchArray *arr) {
        _cleanup_strv_free_ char **entries = NULL;
        size_t n;
        int r;

        r = sysfs_list_dir(arr->md_fd, ".", &entries, &n);
        if (r < 0)
                return r;

        for (size_t i = arr->n_attrs; i > 0; i--) {
                MdWatchAttr *a = arr->attrs[i - 1];
                char dir[256];

                if (!a->member)
                        continue;
                (void) snprintf(dir, sizeof(dir), "dev-%s", a->member);
                if (!strv_contains(entries, dir)) {
                        array_drop_attr(arr, i - 1);
                        arr->pending |= MD_WATCH_ATTR_MEMBERS;
                        schedule_dispatch(arr->watch);
                }
        }

        for (size_t k = 0; k < n; k++) {
                const char *member;
                char path[300];
                MdWatchAttr *a;
                bool known = false;

                if (strncmp(entries[k], "dev-", 4) != 0)
                        continue;
                member = entries[k] + 4;
                if (!member_name_ok(member) || strlen(member) > 200)
                        continue;
                for (size_t i = 0; i < arr->n_attrs; i++)
                        if (arr->attrs[i]->member && strcmp(arr->attrs[i]->member, member) == 0)
                                known = true;
                if (known)
                        continue;
                (void) snprintf(path, sizeof(path), "%s/state", entries[k]);
                r = attr_new(arr, path, member, MD_WATCH_ATTR_MEMBER_STATE, &a);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        continue; /* half-created member directory: next pass */
                r = array_append_attr(arr, a);
                if (r < 0) {
                        attr_free(a);
                        return r;
                }
                arr->pending |= MD_WATCH_ATTR_MEMBERS;
                schedule_dispatch(arr->watch);
        }
        return 0;
}

static MdWatchArray *find_array(const MdWatch *w, const char *name, size_t *ret_index) {
        for (size_t i = 0; i < w->n_arrays; i++)
                if (strcmp(w->arrays[i]->name, name) == 0) {
                        if (ret_index)
                                *ret_index = i;
                        return w->arrays[i];
                }
        return NULL;
}

/* Unlink and free the array, queue its REMOVED report. */
static void array_gone(MdWatchArray *arr) {
        MdWatch *w = arr->watch;
        size_t i;
        char **l;

        if (!find_array(w, arr->name, &i))
                return;
        memmove(w->arrays + i, w->arrays + i + 1, (w->n_arrays - i - 1) * sizeof(w->arrays[0]));
        w->n_arrays--;

        l = reallocarray(w->removed, w->n_removed + 1, sizeof(*l));
        if (l) {
                w->removed = l;
                w->removed[w->n_removed] = TAKE_PTR(arr->name);
                w->n_removed++;
        }
        array_free(arr);
        schedule_dispatch(w);
}

/* Re-read every attribute of the array and its member list. May free arr (array gone). */
static void array_refresh_all(MdWatchArray *arr) {
        for (size_t i = arr->n_attrs; i > 0; i--) {
                MdWatchAttr *a = arr->attrs[i - 1];
                int r = attr_refresh(a);

                if (!error_is_gone(r))
                        continue;
                if (!a->member) {
                        array_gone(arr);
                        return;
                }
                array_drop_attr(arr, i - 1);
                arr->pending |= MD_WATCH_ATTR_MEMBERS;
                schedule_dispatch(arr->watch);
        }
        (void) array_rescan_attrs(arr);
        if (error_is_gone(array_rescan_members(arr)))
                array_gone(arr);
}

static bool array_name_ok(const char *name) {
        return name && name[0] && !strchr(name, '/') && strcmp(name, ".") != 0 &&
               strcmp(name, "..") != 0 && strlen(name) < 200;
}

static void safety_net_wake(MdWatch *w);
static int mdstat_open(MdWatch *w);

int md_watch_add(MdWatch *w, const char *array) {
        _cleanup_(array_freep) MdWatchArray *arr = NULL;
        MdWatchArray **l;
        char path[256];
        int r;

        if (!w || !array_name_ok(array))
                return -EINVAL;
        if (find_array(w, array, NULL))
                return 0;
        r = mdstat_open(w);
        if (r < 0)
                return r;

        arr = calloc(1, sizeof(*arr));
        if (!arr)
                return -ENOMEM;
        arr->watch = w;
        arr->md_fd = -EBADF;
        arr->name = strdup(array);
        if (!arr->name)
                return -ENOMEM;
        (void) snprintf(path, sizeof(path), "sys/class/block/%s/md", array);
        arr->md_fd = RET_NERRNO(openat(w->root_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
        if (arr->md_fd < 0)
                return arr->md_fd == -ENOTDIR ? -ENOENT : arr->md_fd;

        r = array_rescan_attrs(arr);
        if (r < 0)
                return r;
        r = array_rescan_members(arr);
        if (r < 0)
                return r;

        l = reallocarray(w->arrays, w->n_arrays + 1, sizeof(*l));
        if (!l)
                return -ENOMEM;
        w->arrays = l;
        arr->pending = 0;
        arr->pending_added = true;
        w->arrays[w->n_arrays++] = TAKE_PTR(arr);
        schedule_dispatch(w);
        safety_net_wake(w);
        return 1;
}

int md_watch_remove(MdWatch *w, const char *array) {
        MdWatchArray *arr;

        if (!w || !array)
                return 0;
        arr = find_array(w, array, NULL);
        if (!arr)
                return 0;
        array_gone(arr);
        return 1;
}

static bool is_md_array(MdWatch *w, const char *name) {
        char path[256];
        _cleanup_close_ int fd = -EBADF;

        if (strncmp(name, "md", 2) != 0 || !array_name_ok(name))
                return false;
        (void) snprintf(path, sizeof(path), "sys/class/block/%s/md", name);
        fd = openat(w->root_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        return fd >= 0;
}

int md_watch_scan(MdWatch *w) {
        _cleanup_strv_free_ char **names = NULL;
        size_t n;
        int r;

        if (!w)
                return -EINVAL;
        r = sysfs_list_dir(w->root_fd, "sys/class/block", &names, &n);
        if (r < 0)
                return r;

        for (size_t i = w->n_arrays; i > 0; i--) {
                MdWatchArray *arr = w->arrays[i - 1];

                if (!strv_contains(names, arr->name) || !is_md_array(w, arr->name))
                        array_gone(arr);
        }
        for (size_t i = 0; i < n; i++) {
                if (!is_md_array(w, names[i]))
                        continue;
                r = md_watch_add(w, names[i]);
                if (r == -ENOMEM)
                        return r;
                /* other failures: the array is half set up or just vanished; next pass */
        }
        return (int) w->n_arrays;
}

int md_watch_recheck(MdWatch *w) {
        int r = 0;

        if (!w)
                return -EINVAL;
        if (w->discover) {
                r = md_watch_scan(w);
                if (r > 0)
                        r = 0;
        }
        for (size_t i = w->n_arrays; i > 0; i--)
                if (i <= w->n_arrays)
                        array_refresh_all(w->arrays[i - 1]);
        return r;
}

static int on_mdstat_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        MdWatch *w = userdata;
        char *text = NULL;

        /* Re-read to re-arm the notification; the content itself is the consumer's business. */
        if (read_fd_from_start(fd, &text) < 0)
                (void) sd_event_source_set_enabled(s, SD_EVENT_OFF);
        free(text);
        (void) md_watch_recheck(w);
        return 0;
}

/* Register /proc/mdstat for EPOLLPRI, if not yet: it exists only once md_mod is loaded, which
 * may be after the start (the first array created later), so every md_watch_add() tries again.
 * 0 (registered, or not pollable: the safety net reads it) or -ENOMEM. */
static int mdstat_open(MdWatch *w) {
        char *text = NULL;
        int r;

        if (w->mdstat_source)
                return 0;
        w->mdstat_fd = safe_close(w->mdstat_fd);
        w->mdstat_fd = openat(w->root_fd, "proc/mdstat", O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        if (w->mdstat_fd < 0)
                return 0;
        if (read_fd_from_start(w->mdstat_fd, &text) >= 0) {
                free(text);
                r = sd_event_add_io(w->event, &w->mdstat_source, w->mdstat_fd, EPOLLPRI,
                                    on_mdstat_io, w);
                if (r == -ENOMEM)
                        return r;
        }
        if (!w->mdstat_source)
                w->mdstat_fd = safe_close(w->mdstat_fd);
        return 0;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        MdWatch *w = userdata;

        (void) md_watch_recheck(w);
        if (!w->discover && w->n_arrays == 0)
                return 0; /* nothing to re-read: off until an array is added (safety_net_wake()) */
        (void) sd_event_source_set_time_relative(s, w->interval);
        (void) sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
        return 0;
}

typedef struct Report {
        char *name;
        MdWatchChange change;
        unsigned attrs;
} Report;

static int on_defer(sd_event_source *s, void *userdata) {
        MdWatch *w = userdata;
        Report *reports;
        size_t n = 0, max = w->n_removed + w->n_arrays;

        if (max == 0)
                return 0;
        reports = calloc(max, sizeof(*reports));
        if (!reports) {
                schedule_dispatch(w); /* try again on the next iteration */
                return 0;
        }
        for (size_t i = 0; i < w->n_removed; i++)
                reports[n++] = (Report){ TAKE_PTR(w->removed[i]), MD_WATCH_ARRAY_REMOVED, 0 };
        w->n_removed = 0;
        for (size_t i = 0; i < w->n_arrays; i++) {
                MdWatchArray *arr = w->arrays[i];
                char *name;

                if (!arr->pending_added && arr->pending == 0)
                        continue;
                name = strdup(arr->name);
                if (!name)
                        continue; /* stays pending; retried below */
                reports[n++] = (Report){ name,
                                         arr->pending_added ? MD_WATCH_ARRAY_ADDED
                                                            : MD_WATCH_ARRAY_CHANGED,
                                         arr->pending_added ? MD_WATCH_ATTRS_ALL : arr->pending };
                arr->pending_added = false;
                arr->pending = 0;
        }
        /* The handler may add/remove arrays or recheck: we only hold copies. */
        for (size_t i = 0; i < n; i++) {
                if (w->handler)
                        w->handler(w, reports[i].name, reports[i].change, reports[i].attrs,
                                   w->userdata);
                free(reports[i].name);
        }
        free(reports);
        return 0;
}

static int setup_timer(MdWatch *w) {
        int r;

        if (w->interval == 0 || w->interval == USEC_INFINITY) {
                if (w->timer)
                        (void) sd_event_source_set_enabled(w->timer, SD_EVENT_OFF);
                return 0;
        }
        if (!w->timer) {
                /* a twentieth of slack: coalesced with the daemon's other slow timers */
                r = sd_event_add_time_relative(w->event, &w->timer, CLOCK_MONOTONIC, w->interval,
                                               w->interval / 20, on_timer, w);
                if (r < 0)
                        return r;
                (void) sd_event_source_set_description(w->timer, "md-watch-safety-net");
                return 0;
        }
        r = sd_event_source_set_time_relative(w->timer, w->interval);
        if (r < 0)
                return r;
        return sd_event_source_set_enabled(w->timer, SD_EVENT_ONESHOT);
}

static void safety_net_wake(MdWatch *w) {
        if (w->timer && w->interval > 0 && w->interval != USEC_INFINITY &&
            sd_event_source_get_enabled(w->timer, NULL) == 0)
                (void) setup_timer(w);
}

int md_watch_set_interval(MdWatch *w, usec_t interval_usec) {
        if (!w)
                return -EINVAL;
        w->interval = interval_usec;
        return setup_timer(w);
}

int md_watch_new(sd_event *e, int root_fd, usec_t interval_usec, bool discover,
                 MdWatchHandler handler, void *userdata, MdWatch **ret) {
        _cleanup_(md_watch_freep) MdWatch *w = NULL;
        int r;

        if (!e || root_fd < 0 || !ret)
                return -EINVAL;
        w = calloc(1, sizeof(*w));
        if (!w)
                return -ENOMEM;
        w->root_fd = w->mdstat_fd = -EBADF;
        w->event = sd_event_ref(e);
        w->interval = interval_usec;
        w->discover = discover;
        w->handler = handler;
        w->userdata = userdata;
        w->root_fd = RET_NERRNO(fcntl(root_fd, F_DUPFD_CLOEXEC, 3));
        if (w->root_fd < 0)
                return w->root_fd;

        r = sd_event_add_defer(e, &w->defer, on_defer, w);
        if (r < 0)
                return r;
        (void) sd_event_source_set_enabled(w->defer, SD_EVENT_OFF);
        (void) sd_event_source_set_description(w->defer, "md-watch-dispatch");

        r = mdstat_open(w);
        if (r < 0)
                return r;
        r = setup_timer(w);
        if (r < 0)
                return r;
        if (discover) {
                r = md_watch_scan(w);
                if (r < 0 && r != -ENOENT)
                        return r;
        }
        *ret = TAKE_PTR(w);
        return 0;
}

MdWatch *md_watch_free(MdWatch *w) {
        if (!w)
                return NULL;
        for (size_t i = 0; i < w->n_arrays; i++)
                array_free(w->arrays[i]);
        free(w->arrays);
        for (size_t i = 0; i < w->n_removed; i++)
                free(w->removed[i]);
        free(w->removed);
        w->timer = sd_event_source_disable_unref(w->timer);
        w->defer = sd_event_source_disable_unref(w->defer);
        w->mdstat_source = sd_event_source_disable_unref(w->mdstat_source);
        w->mdstat_fd = safe_close(w->mdstat_fd);
        w->root_fd = safe_close(w->root_fd);
        sd_event_unref(w->event);
        free(w);
        return NULL;
}

int md_watch_get_md_dir_fd(MdWatch *w, const char *array) {
        MdWatchArray *arr = w && array ? find_array(w, array, NULL) : NULL;

        return arr ? arr->md_fd : -ENOENT;
}

int md_watch_get_counts(MdWatch *w, const char *array, unsigned *ret_attrs,
                        unsigned *ret_pollable) {
        MdWatchArray *arr = w && array ? find_array(w, array, NULL) : NULL;
        unsigned p = 0;

        if (!arr)
                return -ENOENT;
        for (size_t i = 0; i < arr->n_attrs; i++)
                if (arr->attrs[i]->source)
                        p++;
        if (ret_attrs)
                *ret_attrs = (unsigned) arr->n_attrs;
        if (ret_pollable)
                *ret_pollable = p;
        return 0;
}

bool md_watch_mdstat_pollable(const MdWatch *w) {
        return w && w->mdstat_source;
}

size_t md_watch_size(const MdWatch *w) {
        return w ? w->n_arrays : 0;
}

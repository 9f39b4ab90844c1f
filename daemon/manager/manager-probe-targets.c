/* SPDX-License-Identifier: MIT */
/* The targets of a probe run, resolved when it starts: the requested volumes or the [Volumes]
 * selection and, with Members=yes, the members of each (whatever their kind), each with the disks
 * below it (for the back-off's stat reads and "never two sharing a disk") and its effective
 * profile (the rebuild profile while it or an array above or below rebuilds, the deferral
 * profile past MaxDeferral=), and the [WriteProbe] directory on it when its profile writes. */

#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "basic/fileio.h"
#include "basic/log.h"
#include "model/mountinfo.h"
#include "manager/manager-internal.h"
#include "manager/manager-probe-internal.h"

#define DEPTH_MAX 16 /* of the stack graph walks: a corrupt graph is cut */

static bool strv_has(char **l, size_t n, const char *s) {
        for (size_t i = 0; i < n; i++)
                if (strcmp(l[i], s) == 0)
                        return true;
        return false;
}

static int devs_add(RunTarget *t, const char *name) {
        char **a;

        if (strv_has(t->devs, t->n_devs, name))
                return 0;
        a = realloc(t->devs, (t->n_devs + 2) * sizeof(char *));
        if (!a)
                return -ENOMEM;
        t->devs = a;
        a[t->n_devs] = strdup(name);
        if (!a[t->n_devs])
                return -ENOMEM;
        a[++t->n_devs] = NULL;
        return 0;
}

/* The disks at the bottom of v's stack (v itself when it sits on nothing). */
static int collect_disks(const Inventory *inv, const Volume *v, RunTarget *t, unsigned depth) {
        bool any = false;

        if (depth > DEPTH_MAX)
                return 0;
        for (size_t i = 0; v->members && v->members[i]; i++) {
                const Volume *w = inventory_get(inv, v->members[i]);

                if (!w)
                        continue;
                any = true;
                if (collect_disks(inv, w, t, depth + 1) < 0)
                        return -ENOMEM;
        }
        if (!any && depth > 0)
                return devs_add(t, v->name);
        return 0;
}

static bool sync_running(const Volume *v) {
        const char *a = v->sync.action;

        return a && strcmp(a, "idle") != 0 && strcmp(a, "frozen") != 0;
}

/* v, an array below it or one above it rebuilds. */
static bool rebuilding_down(const Inventory *inv, const Volume *v, unsigned depth) {
        if (depth > DEPTH_MAX)
                return false;
        if (sync_running(v))
                return true;
        for (size_t i = 0; v->members && v->members[i]; i++) {
                const Volume *w = inventory_get(inv, v->members[i]);

                if (w && rebuilding_down(inv, w, depth + 1))
                        return true;
        }
        return false;
}

static bool rebuilding_up(const Inventory *inv, const Volume *v, unsigned depth) {
        if (depth > DEPTH_MAX)
                return false;
        if (sync_running(v))
                return true;
        for (size_t i = 0; v->holders && v->holders[i]; i++) {
                const Volume *w = inventory_get(inv, v->holders[i]);

                if (w && rebuilding_up(inv, w, depth + 1))
                        return true;
        }
        return false;
}

/* Some volume above v (through holders) is itself selected: v is one of its members. */
static bool under_selected(const Manager *m, const Volume *v, unsigned depth) {
        if (depth > DEPTH_MAX)
                return false;
        for (size_t i = 0; v->holders && v->holders[i]; i++) {
                const Volume *w = inventory_get(m->inventory, v->holders[i]);

                if (!w)
                        continue;
                if (!w->hidden && w->size_bytes > 0 && config_volume_selected(m->config, w))
                        return true;
                if (under_selected(m, w, depth + 1))
                        return true;
        }
        return false;
}

static int run_add_target(ManagerProbeRun *run, const Volume *v) {
        Manager *m = run->m;
        RunTarget *a, *t;
        const Profile *light;
        ManagerVolume *rec;

        for (size_t i = 0; i < run->n_targets; i++)
                if (strcmp(run->targets[i].name, v->name) == 0)
                        return 0;
        a = realloc(run->targets, (run->n_targets + 1) * sizeof(*a));
        if (!a)
                return -ENOMEM;
        run->targets = a;
        t = &a[run->n_targets];
        *t = (RunTarget){ .profile = run->profile, .foreign_share = NAN };
        t->name = strdup(v->name);
        if (!t->name || devs_add(t, v->name) < 0 || collect_disks(m->inventory, v, t, 0) < 0) {
                manager_probe_target_free(t);
                return -ENOMEM;
        }
        rec = manager_get_volume(m, v->name);
        /* never quiet for MaxDeferral=: probe it now, lightly, whatever the foreground does */
        t->forced = rec && backoff_deferral_expired(rec->deferred_usec, now(CLOCK_REALTIME),
                                                    m->config->max_deferral_usec);
        if (rebuilding_down(m->inventory, v, 0) || rebuilding_up(m->inventory, v, 0))
                light = config_get_profile(m->config, m->config->rebuild_profile);
        else if (t->forced)
                light = config_get_profile(m->config, m->config->deferral_profile);
        else
                light = NULL;
        if (light)
                t->profile = *light;
        run->n_targets++;
        return 0;
}

/* With Members=yes: the members of v, whatever their kind (dm, multipath, crypt, partitions,
 * disks), as targets of the same run: peer comparison needs each member's own probe, read
 * through the member's own layer (a dm-delay or dm-crypt member is slow above its disk). A
 * member that is itself a group (an array, an LV over two PVs) brings its members too; a hidden
 * member (an LV's rimage/rmeta) stands for the devices below it. */
static int run_add_members(ManagerProbeRun *run, const Volume *v, unsigned depth) {
        Inventory *inv = run->m->inventory;
        int r;

        if (depth > DEPTH_MAX)
                return 0;
        for (size_t i = 0; v->members && v->members[i]; i++) {
                const Volume *w = inventory_get(inv, v->members[i]);
                bool group;

                if (!w)
                        continue;
                group = w->members && w->members[0] && w->members[1];
                if (!w->hidden && w->size_bytes > 0) {
                        r = run_add_target(run, w);
                        if (r < 0)
                                return r;
                }
                if (w->hidden || group) {
                        r = run_add_members(run, w, depth + 1);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

/* [WriteProbe] Directory=: each directory's filesystem device, from the mount table (no stat()
 * of the directory on the loop: a hung filesystem would block it), names the target that gets
 * the write slice; the helper checks that the directory is still on that device. */
static void resolve_write_dirs(ManagerProbeRun *run) {
        Manager *m = run->m;
        _cleanup_free_ char *text = NULL;
        bool any = false;
        size_t n;
        int r;

        for (size_t i = 0; i < run->n_targets; i++)
                any = any || run->targets[i].profile.params.write;
        if (!any || !m->config->write_dirs)
                return;
        r = read_full_file_at(inventory_root_fd(m->inventory), "proc/self/mountinfo", &text, &n);
        if (r < 0) {
                log_warning_errno(r, "Failed to read the mount table, no write probe: %m");
                return;
        }
        for (size_t d = 0; m->config->write_dirs[d]; d++) {
                const char *dir = m->config->write_dirs[d];
                MountinfoEntry e;
                bool found = false;

                if (mountinfo_find(text, dir, &e) < 0)
                        continue;
                for (size_t i = 0; i < run->n_targets; i++) {
                        RunTarget *t = &run->targets[i];
                        const Volume *v = inventory_get(m->inventory, t->name);

                        if (!v || v->major != e.major || v->minor != e.minor)
                                continue;
                        found = true;
                        if (!t->profile.params.write || t->write_dir)
                                continue;
                        t->write_dir = strdup(dir);
                        t->write_dev = makedev(e.major, e.minor);
                        t->write_file_bytes = m->config->write_size_bytes;
                }
                if (!found)
                        log_debug("[WriteProbe] %s: on %u:%u (%s), not a volume of this run", dir,
                                  e.major, e.minor, e.fstype);
        }
}

int manager_probe_run_resolve(ManagerProbeRun *run) {
        Manager *m = run->m;
        Volume *v;
        int r;

        if (run->requested) {
                for (size_t i = 0; run->requested[i]; i++) {
                        v = inventory_get(m->inventory, run->requested[i]);
                        if (!v)
                                continue; /* vanished since the request: reported as skipped */
                        r = run_add_target(run, v);
                        if (r >= 0 && run->profile.members)
                                r = run_add_members(run, v, 0);
                        if (r < 0)
                                return r;
                }
                resolve_write_dirs(run);
                return 0;
        }
        INVENTORY_FOREACH(v, m->inventory) {
                if (v->hidden || v->size_bytes == 0 || !config_volume_selected(m->config, v))
                        continue;
                if (!run->profile.members && under_selected(m, v, 0))
                        continue;
                r = run_add_target(run, v);
                if (r >= 0 && run->profile.members)
                        r = run_add_members(run, v, 0);
                if (r < 0)
                        return r;
        }
        resolve_write_dirs(run);
        return 0;
}

/* SPDX-License-Identifier: MIT */
/* The performance monitor: per-volume analysis state (detector, peer group for arrays, slow
 * rebuild tracker, controller hint, passive stat history) keyed by kernel name, baselines keyed
 * by identity in one BaselineSet. A round is judged as a whole so that the verdict of an array
 * can name the member peer comparison found slow in the same round. Everything here runs on the
 * daemon's loop and reads only sysfs stat files (through the inventory); the clock comes in. */

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/baseline-file.h"
#include "basic/log.h"
#include "basic/string-table.h"
#include "core/baseline-store.h"
#include "core/perf-monitor-internal.h"
#include "model/blockstat.h"
#include "model/md.h"

#define DEPTH_MAX 8

static bool streq_ptr(const char *a, const char *b) {
        return a && b && strcmp(a, b) == 0;
}

static const char *const perf_event_type_table[_PERF_EVENT_TYPE_MAX] = {
        [PERF_EVENT_DEGRADED] = "performance-degraded",
        [PERF_EVENT_RECOVERED] = "performance-recovered",
        [PERF_EVENT_MEMBER_SLOW] = "member-slow",
        [PERF_EVENT_MEMBER_NORMAL] = "member-normal",
        [PERF_EVENT_MEMBER_FLAPPING] = "member-flapping",
        [PERF_EVENT_REBUILD_SLOW] = "rebuild-slow",
        [PERF_EVENT_BACKGROUND_REBUILD] = "background-rebuild",
};
DEFINE_STRING_TABLE_LOOKUP(perf_event_type, PerfEventType, perf_event_type_table);

int perf_monitor_config_validate(const PerfMonitorConfig *c) {
        if (!c || detector_config_validate(&c->detector) < 0 ||
            peer_config_validate(&c->peers) < 0 || rebuild_slow_config_validate(&c->rebuild) < 0 ||
            common_mode_config_validate(&c->common) < 0 || c->window == 0 ||
            c->window > BASELINE_WINDOW_MAX ||
            !(c->idle_utilization > 0 && c->idle_utilization <= 1))
                return -EINVAL;
        return 0;
}

static void apply_window(PerfMonitor *pm) {
        for (size_t i = 0; pm->set && i < pm->set->n; i++) {
                Baseline *b = &pm->set->items[i];

                if (b->window != pm->cfg.window) {
                        baseline_set_window(b, pm->cfg.window);
                        pm->dirty = true;
                }
        }
}

int perf_monitor_set_config(PerfMonitor *pm, const PerfMonitorConfig *c) {
        if (!pm || perf_monitor_config_validate(c) < 0)
                return -EINVAL;
        pm->cfg = *c;
        apply_window(pm);
        return 0;
}

int perf_monitor_new(const PerfMonitorConfig *c, PerfEventHandler handler, void *userdata,
                     PerfMonitor **ret) {
        _cleanup_(perf_monitor_freep) PerfMonitor *pm = NULL;
        int r;

        pm = calloc(1, sizeof(*pm));
        if (!pm)
                return -ENOMEM;
        pm->cfg = c ? *c : PERF_MONITOR_CONFIG_DEFAULT;
        if (perf_monitor_config_validate(&pm->cfg) < 0)
                return -EINVAL;
        pm->handler = handler;
        pm->userdata = userdata;
        r = baseline_set_new(&pm->set);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(pm);
        return 0;
}

PerfMonitor *perf_monitor_free(PerfMonitor *pm) {
        if (!pm)
                return NULL;
        for (size_t i = 0; i < pm->n_vols; i++)
                free(pm->vols[i]);
        free(pm->vols);
        baseline_set_free(pm->set);
        free(pm);
        return NULL;
}

int perf_monitor_load(PerfMonitor *pm, int state_dir_fd, const char *file) {
        BaselineSet *s = NULL;
        int r;

        r = baseline_store_load(state_dir_fd, file, &s);
        if (r < 0)
                return r;
        baseline_set_free(pm->set);
        pm->set = s;
        pm->dirty = false;
        apply_window(pm);
        return 0;
}

int perf_monitor_save(PerfMonitor *pm, int state_dir_fd, const char *file, bool force) {
        int r;

        if (!pm->dirty && !force)
                return 0;
        r = baseline_store_save(state_dir_fd, file, pm->set);
        if (r < 0)
                return r;
        pm->dirty = false;
        return 1;
}

bool perf_monitor_take_dirty(PerfMonitor *pm) {
        bool d = pm->dirty;

        pm->dirty = false;
        return d;
}

void perf_monitor_set_dirty(PerfMonitor *pm) {
        pm->dirty = true;
}

const BaselineSet *perf_monitor_baselines(const PerfMonitor *pm) {
        return pm->set;
}

PerfVolume *perf_monitor_get_vol(PerfMonitor *pm, const char *name) {
        PerfVolume *p = perf_monitor_find_vol(pm, name), **a;
        size_t n;

        if (p)
                return p;
        a = realloc(pm->vols, (pm->n_vols + 1) * sizeof(*a));
        if (!a)
                return NULL;
        pm->vols = a;
        p = calloc(1, sizeof(*p));
        if (!p)
                return NULL;
        n = strnlen(name, sizeof(p->name) - 1);
        memcpy(p->name, name, n);
        detector_init(&p->det);
        peer_group_init(&p->peers);
        rebuild_slow_tracker_init(&p->rs);
        baseline_sample_init(&p->pending_sample);
        baseline_sample_init(&p->last);
        p->util[0] = p->util[1] = NAN;
        pm->vols[pm->n_vols++] = p;
        return p;
}

int perf_monitor_feed_probe(PerfMonitor *pm, const Volume *v, const BaselineSample *s,
                            bool probe_failed, usec_t start_usec, const char *profile) {
        PerfVolume *p;

        if (!pm || !v || !v->name || !s)
                return -EINVAL;
        p = perf_monitor_get_vol(pm, v->name);
        if (!p)
                return -ENOMEM;
        p->pending = true;
        p->pending_failed = probe_failed;
        p->pending_sample = *s;
        p->pending_start_usec = start_usec;
        p->pending_fg_share = NAN;
        (void) snprintf(p->pending_profile, sizeof(p->pending_profile), "%s", profile ?: "");
        return 0;
}

int perf_monitor_set_foreground(PerfMonitor *pm, const char *name, double share) {
        PerfVolume *p = pm ? perf_monitor_find_vol(pm, name) : NULL;

        if (!p || !p->pending)
                return -ENOENT;
        p->pending_fg_share = isfinite(share) ? CLAMP(share, 0.0, 1.0) : NAN;
        return 0;
}

int perf_monitor_mark_starved(PerfMonitor *pm, const char *name) {
        PerfVolume *p = pm ? perf_monitor_find_vol(pm, name) : NULL;

        if (!p || !p->pending)
                return -ENOENT;
        p->pending_starved = true;
        return 0;
}

static bool sync_running(const Volume *v) {
        const char *a = v->sync.action;

        return a && strcmp(a, "idle") != 0 && strcmp(a, "frozen") != 0;
}

static bool rebuilding(const Inventory *inv, const Volume *v, bool up, unsigned depth) {
        char **l = up ? v->holders : v->members;

        if (depth > DEPTH_MAX)
                return false;
        if (sync_running(v))
                return true;
        for (size_t i = 0; l && l[i]; i++) {
                const Volume *w = inventory_get(inv, l[i]);

                if (w && rebuilding(inv, w, up, depth + 1))
                        return true;
        }
        return false;
}

bool perf_volume_rebuilding(const Inventory *inv, const Volume *v) {
        return rebuilding(inv, v, false, 0) || rebuilding(inv, v, true, 0);
}

static bool health_below(const Inventory *inv, const Volume *v, VolumeHealth h, unsigned depth) {
        if (depth > DEPTH_MAX)
                return false;
        if (v->health == h)
                return true;
        for (size_t i = 0; v->members && v->members[i]; i++) {
                const Volume *w = inventory_get(inv, v->members[i]);

                if (w && health_below(inv, w, h, depth + 1))
                        return true;
        }
        return false;
}

static size_t n_members(const Volume *v) {
        size_t n = 0;

        while (v->members && v->members[n])
                n++;
        return n;
}

bool perf_volume_has_peer_group(const Volume *v) {
        if (volume_is_array(v))
                return true;
        return (v->kind == VOLUME_LVM || v->kind == VOLUME_DM) && n_members(v) >= 2;
}

void perf_event_init(PerfEvent *e, PerfEventType t, const Volume *v, const char *member) {
        memset(e, 0, sizeof(*e));
        e->type = t;
        e->volume = v;
        e->member = member;
}

void perf_event_field(PerfEvent *e, const char *fmt, ...) {
        size_t i = 0;
        va_list ap;

        while (i < PERF_EVENT_FIELDS_MAX && e->fields[i])
                i++;
        if (i >= PERF_EVENT_FIELDS_MAX)
                return;
        va_start(ap, fmt);
        (void) vsnprintf(e->field_buf[i], sizeof(e->field_buf[i]), fmt, ap);
        va_end(ap);
        e->fields[i] = e->field_buf[i];
}

void perf_monitor_emit(PerfMonitor *pm, PerfEvent *e, int *count) {
        (*count)++;
        if (pm->handler)
                pm->handler(e, pm->userdata);
}

static void peer_sample_fill(PerfMonitor *pm, const Inventory *inv, const char *name,
                             const char *profile, PeerSample *s) {
        const Volume *w = inventory_get(inv, name);
        char id[BASELINE_IDENTITY_MAX], key[BASELINE_IDENTITY_MAX];
        Baseline *b;

        peer_sample_init(s, name);
        if (!w)
                return;
        perf_volume_identity(inv, w, id);
        perf_baseline_key(id, profile, key);
        b = baseline_set_find(pm->set, key);
        if (b) {
                BaselineStat st;

                baseline_get_stat(b, BASELINE_LAT_P50_NS, pm->cfg.detector.min_samples, &st);
                if (st.n > 0)
                        s->own[PEER_SOURCE_PROBE] = (BaselineStat){
                                .ready = st.ready,
                                .n = st.n,
                                .median = st.median / 1e6,
                                .mad = st.mad / 1e6,
                        };
        }
}

static void emit_peer_events(PerfMonitor *pm, const Volume *array, const PeerEvent *ev, size_t n,
                             int *count) {
        for (size_t i = 0; i < n; i++) {
                static const PerfEventType map[_PEER_EVENT_TYPE_MAX] = {
                        [PEER_EVENT_SLOW] = PERF_EVENT_MEMBER_SLOW,
                        [PEER_EVENT_NORMAL] = PERF_EVENT_MEMBER_NORMAL,
                        [PEER_EVENT_FLAPPING] = PERF_EVENT_MEMBER_FLAPPING,
                };
                char text[200];
                PerfEvent e;

                if (ev[i].type < 0 || ev[i].type >= _PEER_EVENT_TYPE_MAX)
                        continue;
                perf_event_init(&e, map[ev[i].type], array, ev[i].member);
                peer_event_format(&ev[i], text, sizeof(text));
                snprintf(e.message, sizeof(e.message), "%s: %s", array->name, text);
                perf_event_field(&e, "STORPULSE_LAYER=member");
                perf_event_field(&e, "STORPULSE_SOURCE=%s", peer_source_to_string(ev[i].source));
                perf_event_field(&e, "STORPULSE_LATENCY_SECONDS=%.6f", ev[i].value_ms / 1e3);
                perf_event_field(&e, "STORPULSE_LIMIT_SECONDS=%.6f", ev[i].limit_ms / 1e3);
                perf_event_field(&e, "STORPULSE_REFERENCE_SECONDS=%.6f", ev[i].reference_ms / 1e3);
                perf_event_field(&e, "STORPULSE_REFERENCE=%s",
                                 ev[i].by_own_baseline ? "own-baseline" : "peers");
                perf_monitor_emit(pm, &e, count);
        }
}

int perf_monitor_feed_peers(PerfMonitor *pm, const Volume *v, const PeerSample *s, size_t n,
                            int *count) {
        PeerEvent ev[2 * PEERS_MAX];
        PerfVolume *p = perf_monitor_get_vol(pm, v->name);
        int r;

        if (!p)
                return -ENOMEM;
        r = peers_feed(&p->peers, &pm->cfg.peers, s, n, ev, ELEMENTSOF(ev));
        if (r < 0)
                return r;
        emit_peer_events(pm, v, ev, (size_t) r, count);
        return 0;
}

/* The probe of a member this round: its own, else that of the single device below it (a
 * profile probing "the disks below" an array probes sda for the member sda1, vdb for a dm-delay
 * or dm-crypt member over vdb). */
static PerfVolume *member_probe(const PerfMonitor *pm, const Inventory *inv, const char *name) {
        for (unsigned depth = 0; name && depth < DEPTH_MAX; depth++) {
                PerfVolume *p = perf_monitor_find_vol(pm, name);
                const Volume *w;

                if (p && p->pending)
                        return p;
                w = inventory_get(inv, name);
                if (!w || !w->members || !w->members[0] || w->members[1])
                        return NULL;
                name = w->members[0];
        }
        return NULL;
}

static int round_peers(PerfMonitor *pm, const Inventory *inv, const Volume *v, int *count) {
        PeerSample s[PEERS_MAX];
        size_t n = 0;
        bool any = false;

        for (size_t i = 0; v->members && v->members[i] && n < PEERS_MAX; i++) {
                PerfVolume *mp = member_probe(pm, inv, v->members[i]);

                /* the own baseline of the device that was probed, under its profile */
                peer_sample_fill(pm, inv, mp ? mp->name : v->members[i],
                                 mp ? mp->pending_profile : NULL, &s[n]);
                s[n].name = v->members[i];
                if (mp && mp->pending && !mp->pending_failed && !mp->pending_starved) {
                        double p50 = mp->pending_sample.v[BASELINE_LAT_P50_NS];

                        s[n].value_ms[PEER_SOURCE_PROBE] = p50 / 1e6;
                        any = any || isfinite(p50);
                }
                n++;
        }
        if (!any)
                return 0;
        return perf_monitor_feed_peers(pm, v, s, n, count);
}

/* The member below v that peer comparison found slow (get: peer_group_suspect(), or
 * peer_group_slowing() for one whose streak is still short): in v's own group, else in the
 * groups of its members. */
static const char *slow_member_by(const PerfMonitor *pm, const Inventory *inv, const Volume *v,
                                  const char *(*get)(const PeerGroup *g), unsigned depth) {
        const PerfVolume *p = perf_monitor_find_vol(pm, v->name);
        const char *s = p ? get(&p->peers) : NULL;

        if (s || depth > DEPTH_MAX)
                return s;
        for (size_t i = 0; v->members && v->members[i]; i++) {
                const Volume *w = inventory_get(inv, v->members[i]);

                if (w && (s = slow_member_by(pm, inv, w, get, depth + 1)))
                        return s;
        }
        return NULL;
}

/* The member to name in v's verdict: a suspect, else one the peers found slow in this round's
 * runs but not yet for long enough to call it (the array's own streak can be a run ahead of
 * its member's: a round in which the member's probe waited for a CPU is not compared). */
static const char *slow_member(const PerfMonitor *pm, const Inventory *inv, const Volume *v) {
        return slow_member_by(pm, inv, v, peer_group_suspect, 0)
                       ?: slow_member_by(pm, inv, v, peer_group_slowing, 0);
}

/* The utilization measured over the last interval that ended before the probe started (within
 * two intervals of it): the probe's own reads must not count as foreground load. */
static double util_before(const PerfVolume *p, usec_t start_usec) {
        for (size_t i = 0; i < 2; i++)
                if (isfinite(p->util[i]) && p->util_end_usec[i] <= start_usec)
                        return p->util[i];
        return NAN;
}

double perf_volume_foreground_load(const PerfVolume *p, usec_t start_usec, double share) {
        double u = util_before(p, start_usec);

        if (!isfinite(u))
                return share;
        return isfinite(share) && share > u ? share : u;
}

static double foreground_load(const PerfVolume *p) {
        return perf_volume_foreground_load(p, p->pending_start_usec, p->pending_fg_share);
}

/* The detector's verdict on v as a degraded/recovered event; n_alike > 0: that many members of
 * the array v degraded alike in the verdict's round (common-mode), which the event says: the
 * cause is one they share. */
static void emit_detector_event(PerfMonitor *pm, const Volume *v, const DetectorEvent *de,
                                size_t n_alike, int *count) {
        PerfEvent e;
        char text[220];

        perf_event_init(&e,
                        de->type == DETECTOR_EVENT_DEGRADED ? PERF_EVENT_DEGRADED
                                                            : PERF_EVENT_RECOVERED,
                        v, de->culprit[0] ? de->culprit : NULL);
        detector_event_format(de, text, sizeof(text));
        snprintf(e.message, sizeof(e.message), "%s: %s", v->name, text);
        if (n_alike > 0) {
                size_t l = strlen(e.message);

                (void) snprintf(e.message + l, sizeof(e.message) - l,
                                "; %zu members slower alike: a cause they share (controller, "
                                "path or host)",
                                n_alike);
        }
        perf_event_field(&e, "STORPULSE_LAYER=%s", de->culprit[0] ? "member" : "volume");
        if (n_alike > 0)
                perf_event_field(&e, "STORPULSE_MEMBERS_ALIKE=%zu", n_alike);
        if (de->finding.metric >= 0) {
                perf_event_field(&e, "STORPULSE_METRIC=%s",
                                 baseline_metric_to_string(de->finding.metric));
                perf_event_field(&e, "STORPULSE_VALUE=%.6g", de->finding.value);
                perf_event_field(&e, "STORPULSE_BASELINE=%.6g", de->finding.baseline);
                perf_event_field(&e, "STORPULSE_RATIO=%.4f", de->finding.ratio);
        }
        perf_event_field(&e, "STORPULSE_RUNS=%u", de->runs);
        perf_monitor_emit(pm, &e, count);
}

/* Controller volumes: no rebuild state without a vendor CLI; throughput down while latency up
 * hints at one. */
static void hint_hw_rebuild(PerfMonitor *pm, PerfVolume *p, const Volume *v, const Baseline *b,
                            int *count) {
        unsigned min_samples = pm->cfg.detector.min_samples;
        BaselineStat seq, lat;
        double tr = NAN, lr = NAN;
        PerfEvent e;
        char text[220];

        baseline_get_stat(b, BASELINE_SEQ_BYTES_PER_SEC, min_samples, &seq);
        baseline_get_stat(b, BASELINE_LAT_P50_NS, min_samples, &lat);
        if (seq.ready && seq.median > 0)
                tr = p->pending_sample.v[BASELINE_SEQ_BYTES_PER_SEC] / seq.median;
        if (lat.ready && lat.median > 0)
                lr = p->pending_sample.v[BASELINE_LAT_P50_NS] / lat.median;
        if (hw_rebuild_hint_feed(&p->hw, tr, lr) <= 0)
                return;
        perf_event_init(&e, PERF_EVENT_BACKGROUND_REBUILD, v, NULL);
        hw_rebuild_hint_format(tr, lr, text, sizeof(text));
        snprintf(e.message, sizeof(e.message), "%s: %s", v->name, text);
        perf_event_field(&e, "STORPULSE_LAYER=controller");
        perf_event_field(&e, "STORPULSE_RATIO=%.4f", tr);
        perf_event_field(&e, "STORPULSE_LATENCY_RATIO=%.4f", lr);
        perf_monitor_emit(pm, &e, count);
}

/* Up from w through single-holder devices (a partition, a dm-delay) that are no group
 * themselves, to the device whose holders are the arrays it is a member of. */
static const Volume *walk_up(const Inventory *inv, const Volume *w) {
        for (unsigned depth = 0; w && w->holders && w->holders[0] && !w->holders[1] &&
                                 depth < DEPTH_MAX && !perf_volume_has_peer_group(w);
             depth++) {
                const Volume *h = inventory_get(inv, w->holders[0]);

                if (!h || perf_volume_has_peer_group(h))
                        break;
                w = h;
        }
        return w;
}

/* p's pending run against its baseline (detector_classify()); INCONCLUSIVE when it cannot be
 * judged (no baseline yet, failed, saturated). */
static DetectorRun pending_run(const PerfMonitor *pm, const Inventory *inv, const PerfVolume *p,
                               DetectorFinding *ret) {
        char id[BASELINE_IDENTITY_MAX], key[BASELINE_IDENTITY_MAX];
        const Volume *w = inventory_get(inv, p->name);
        const Baseline *b;

        if (!w || !p->pending || p->pending_failed)
                return DETECTOR_RUN_INCONCLUSIVE;
        perf_volume_identity(inv, w, id);
        perf_baseline_key(id, p->pending_profile, key);
        b = baseline_set_find(pm->set, key);
        if (!b)
                return DETECTOR_RUN_INCONCLUSIVE;
        return detector_classify(&pm->cfg.detector, b, &p->pending_sample, foreground_load(p), ret);
}

/* How far p's pending run is from its baseline (common_mode_factor()); NAN when it cannot be
 * judged. */
static double pending_factor(const PerfMonitor *pm, const Inventory *inv, const PerfVolume *p) {
        DetectorFinding f;

        if (pending_run(pm, inv, p, &f) == DETECTOR_RUN_INCONCLUSIVE)
                return NAN;
        return common_mode_factor(&f);
}

/* The array above v whose members are compared (v, or the volume it stands in for), or NULL. */
static const Volume *peer_group_of(const Inventory *inv, const Volume *v) {
        const Volume *w = walk_up(inv, v), *g = NULL;

        for (size_t k = 0; !g && w && w->holders && w->holders[k]; k++) {
                g = inventory_get(inv, w->holders[k]);
                if (g && !perf_volume_has_peer_group(g))
                        g = NULL;
        }
        return g;
}

/* Whether p (the probe of v) degraded alike with the other members of the array above it in
 * this round (analysis/common-mode). */
static bool shared_degradation(const PerfMonitor *pm, const Inventory *inv, const PerfVolume *p,
                               const Volume *v) {
        const Volume *g = peer_group_of(inv, v);
        double f[COMMON_MODE_MEMBERS_MAX];
        size_t n = 0, self = SIZE_MAX;

        for (size_t i = 0; g && g->members && g->members[i] && n < ELEMENTSOF(f); i++) {
                const PerfVolume *mp = member_probe(pm, inv, g->members[i]);

                f[n] = mp ? pending_factor(pm, inv, mp) : NAN;
                if (mp == p)
                        self = n;
                n++;
        }
        return self != SIZE_MAX && common_mode_shared(&pm->cfg.common, f, n, self);
}

/* Whether p (the probe of v, a member of an array with at least three members probed in this
 * round) read bad against its own baseline while the peer comparison of this round did not find
 * it slow (neither suspect nor slowing): the member is no slower than its peers, so what slowed
 * its run is not the member (the host, a moment of foreground load on it); a slow member is the
 * peer rule's to find. Such a run is neither judged nor learned. */
static bool peers_disagree(const PerfMonitor *pm, const Inventory *inv, const PerfVolume *p,
                           const Volume *v) {
        const Volume *g = peer_group_of(inv, v);
        const PerfVolume *gp = g ? perf_monitor_find_vol(pm, g->name) : NULL;
        const char *self = NULL;
        size_t probed = 0;

        for (size_t i = 0; gp && g->members && g->members[i]; i++) {
                const PerfVolume *mp = member_probe(pm, inv, g->members[i]);

                probed += !!mp;
                if (mp == p)
                        self = g->members[i];
        }
        if (!self || probed < 3 || pending_run(pm, inv, p, NULL) != DETECTOR_RUN_BAD)
                return false;
        return !streq_ptr(peer_group_suspect(&gp->peers), self) &&
               !streq_ptr(peer_group_slowing(&gp->peers), self);
}

/* How many members of v probed in this round degraded alike (their runs set aside as shared),
 * when they are at least two and at least half of those probed; else 0. */
static size_t members_alike(const PerfMonitor *pm, const Inventory *inv, const Volume *v) {
        size_t probed = 0, alike = 0;

        if (!perf_volume_has_peer_group(v))
                return 0;
        for (size_t i = 0; v->members && v->members[i]; i++) {
                const PerfVolume *mp = member_probe(pm, inv, v->members[i]);

                if (!mp)
                        continue;
                probed++;
                alike += mp->pending_shared;
        }
        return alike >= 2 && 2 * alike >= probed ? alike : 0;
}

static void judge(PerfMonitor *pm, const Inventory *inv, PerfVolume *p, const Volume *v,
                  usec_t now_usec, usec_t now_real, int *count) {
        const DetectorConfig *dc = &pm->cfg.detector;
        char id[BASELINE_IDENTITY_MAX], key[BASELINE_IDENTITY_MAX];
        BaselineConditions c = {};
        DetectorEvent de;
        Baseline *b;
        int r;

        perf_volume_identity(inv, v, id);
        perf_baseline_key(id, p->pending_profile, key);
        r = baseline_set_get(pm->set, key, v->name, pm->cfg.window, now_real, &b);
        if (r < 0)
                return;
        memcpy(p->identity, key, sizeof(p->identity));
        if (r > 0)
                pm->dirty = true;

        c.failed = v->health == VOLUME_HEALTH_FAILED;
        c.degraded = health_below(inv, v, VOLUME_HEALTH_DEGRADED, 0);
        c.rebuilding = perf_volume_rebuilding(inv, v);
        c.probe_error = p->pending_failed;
        c.foreground_utilization = foreground_load(p);

        p->has_last = true;
        p->last = p->pending_sample;
        p->last_rebuilding = c.rebuilding;

        /* A rebuild makes every figure worse by design: it is reported by the rebuild events,
         * not as a degradation, and its runs are kept aside for "during rebuild vs after". */
        /* Not this member's fault (the layer above, or the host, is judged on its own probe),
         * or the host did not run the probe: not judged, nothing learned. */
        if (p->pending_shared || p->pending_peers_normal || p->pending_starved) {
                if (p->pending_starved)
                        p->starved_runs++;
                else
                        p->shared_runs++;
                log_info("%s: probe run not judged: %s", v->name,
                         p->pending_shared ? "degraded alike with the other members of its array"
                         : p->pending_peers_normal
                                 ? "slower than its baseline, not than its peers in this round"
                                 : "the host stalled during it");
                return;
        }
        if (!c.rebuilding) {
                r = detector_feed(&p->det, dc, b, &p->pending_sample, c.foreground_utilization,
                                  p->pending_failed, slow_member(pm, inv, v), now_usec, &de);
                if (r > 0)
                        emit_detector_event(pm, v, &de,
                                            de.type == DETECTOR_EVENT_DEGRADED && !de.culprit[0]
                                                    ? members_alike(pm, inv, v)
                                                    : 0,
                                            count);
        }
        c.verdict_standing = detector_is_suspect(&p->det);

        /* Runs during a rebuild are kept aside (whatever else closes the gate: a recovery is
         * degraded too); only an open gate teaches. */
        if (c.rebuilding) {
                baseline_note_rebuild(b, &p->pending_sample, now_real);
                pm->dirty = true;
        } else if (baseline_gate(&c, pm->cfg.idle_utilization) == BASELINE_GATE_OPEN &&
                   baseline_learn(b, &p->pending_sample, dc->guard, dc->min_samples, now_real) > 0)
                pm->dirty = true;

        if (v->kind == VOLUME_CONTROLLER && !v->has_cli)
                hint_hw_rebuild(pm, p, v, b, count);
}

int perf_monitor_end_round(PerfMonitor *pm, const Inventory *inv, usec_t now_usec,
                           usec_t now_real) {
        int count = 0, r;

        if (!pm || !inv)
                return -EINVAL;
        /* 1. peers of every group with a member probed in this round */
        for (size_t i = 0; i < pm->n_vols; i++) {
                const Volume *w;

                if (!pm->vols[i]->pending)
                        continue;
                w = walk_up(inv, inventory_get(inv, pm->vols[i]->name));
                for (size_t k = 0; w && w->holders && w->holders[k]; k++) {
                        const Volume *h = inventory_get(inv, w->holders[k]);
                        PerfVolume *hp;

                        if (!h || !perf_volume_has_peer_group(h))
                                continue;
                        hp = perf_monitor_get_vol(pm, h->name);
                        if (!hp)
                                return -ENOMEM;
                        if (hp->round_done) /* once per group per round */
                                continue;
                        hp->round_done = true;
                        r = round_peers(pm, inv, h, &count);
                        if (r < 0)
                                return r;
                }
        }
        /* 2. members degraded alike with their peers (before anything learns from the round) */
        for (size_t i = 0; i < pm->n_vols; i++) {
                PerfVolume *p = pm->vols[i];
                const Volume *v = p->pending ? inventory_get(inv, p->name) : NULL;

                p->pending_shared = v && shared_degradation(pm, inv, p, v);
                p->pending_peers_normal = v && !p->pending_shared && !p->pending_starved &&
                                          peers_disagree(pm, inv, p, v);
        }
        /* 3. verdicts and learning */
        for (size_t i = 0; i < pm->n_vols; i++) {
                PerfVolume *p = pm->vols[i];
                const Volume *v;

                if (!p->pending)
                        continue;
                v = inventory_get(inv, p->name);
                if (v)
                        judge(pm, inv, p, v, now_usec, now_real, &count);
        }
        for (size_t i = 0; i < pm->n_vols; i++)
                pm->vols[i]->pending = pm->vols[i]->round_done = pm->vols[i]->pending_shared =
                        pm->vols[i]->pending_peers_normal = pm->vols[i]->pending_starved = false;
        return count;
}

int perf_monitor_reset(PerfMonitor *pm, const Inventory *inv, const char *name, usec_t now_real) {
        char id[BASELINE_IDENTITY_MAX] = "";
        const Volume *v;
        PerfVolume *p;
        int n = 0;

        if (!pm || !name)
                return -EINVAL;
        v = inv ? inventory_get(inv, name) : NULL;
        if (v)
                perf_volume_identity(inv, v, id);
        /* every profile's baseline of this device; without the device, by its last name */
        for (size_t i = 0; i < pm->set->n; i++) {
                Baseline *b = &pm->set->items[i];
                bool match = id[0] ? streq_ptr(perf_baseline_key_split(b->identity, NULL, 0), id)
                                   : strncmp(b->name, name, sizeof(b->name) - 1) == 0;

                if (!match)
                        continue;
                baseline_reset(b, now_real);
                n++;
        }
        if (n == 0)
                return 0;
        p = perf_monitor_find_vol(pm, name);
        if (p)
                detector_init(&p->det);
        pm->dirty = true;
        return n;
}

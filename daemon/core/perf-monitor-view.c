/* SPDX-License-Identifier: MIT */
/* The performance monitor's read-only views (reports, /metrics) and the lookup of a volume's
 * analysis state. */

#include <math.h>
#include <string.h>

#include "core/perf-monitor-internal.h"

PerfVolume *perf_monitor_find_vol(const PerfMonitor *pm, const char *name) {
        for (size_t i = 0; name && i < pm->n_vols; i++)
                if (strncmp(pm->vols[i]->name, name, sizeof(pm->vols[i]->name) - 1) == 0)
                        return pm->vols[i];
        return NULL;
}

const Detector *perf_monitor_get_detector(const PerfMonitor *pm, const char *name) {
        const PerfVolume *p = perf_monitor_find_vol(pm, name);

        return p ? &p->det : NULL;
}

const PeerMemberState *perf_monitor_get_member(const PerfMonitor *pm, const char *array,
                                               const char *member) {
        const PerfVolume *p = perf_monitor_find_vol(pm, array);

        return p ? peer_group_find(&p->peers, member) : NULL;
}

bool perf_monitor_get_last(const PerfMonitor *pm, const char *name, BaselineSample *ret,
                           bool *ret_rebuilding) {
        const PerfVolume *p = perf_monitor_find_vol(pm, name);

        if (!p || !p->has_last)
                return false;
        if (ret)
                *ret = p->last;
        if (ret_rebuilding)
                *ret_rebuilding = p->last_rebuilding;
        return true;
}

bool perf_monitor_rebuild_is_slow(const PerfMonitor *pm, const char *name) {
        const PerfVolume *p = perf_monitor_find_vol(pm, name);

        return p && p->rs.reported;
}

size_t perf_monitor_rebuilds_slow(const PerfMonitor *pm) {
        size_t n = 0;

        for (size_t i = 0; pm && i < pm->n_vols; i++)
                n += pm->vols[i]->rs.reported;
        return n;
}

const char *perf_monitor_volume_name(const PerfMonitor *pm, size_t i) {
        return pm && i < pm->n_vols ? pm->vols[i]->name : NULL;
}

const PeerGroup *perf_monitor_get_group(const PerfMonitor *pm, const char *name) {
        const PerfVolume *p = perf_monitor_find_vol(pm, name);

        return p && p->peers.n > 0 ? &p->peers : NULL;
}

const PerfMonitorConfig *perf_monitor_get_config(const PerfMonitor *pm) {
        return &pm->cfg;
}

const Baseline *perf_monitor_get_baseline(const PerfMonitor *pm, const char *name) {
        const PerfVolume *p = perf_monitor_find_vol(pm, name);

        return p && p->identity[0] ? baseline_set_find(pm->set, p->identity) : NULL;
}

bool perf_monitor_get_unjudged(const PerfMonitor *pm, const char *name, uint64_t *ret_shared,
                               uint64_t *ret_starved) {
        const PerfVolume *p = perf_monitor_find_vol(pm, name);

        if (!p)
                return false;
        if (ret_shared)
                *ret_shared = p->shared_runs;
        if (ret_starved)
                *ret_starved = p->starved_runs;
        return true;
}

bool perf_monitor_second_look(const PerfMonitor *pm, const Inventory *inv, const Volume *v,
                              const BaselineSample *s, const char *profile, usec_t start_usec,
                              double fg_share, DetectorFinding *ret_worst) {
        char id[BASELINE_IDENTITY_MAX], key[BASELINE_IDENTITY_MAX];
        const PerfVolume *p;
        const Baseline *b;
        DetectorFinding f;

        if (!pm || !inv || !v || !v->name || !s)
                return false;
        p = perf_monitor_find_vol(pm, v->name);
        if (!p || p->det.state == DETECTOR_DEGRADED || perf_volume_rebuilding(inv, v))
                return false;
        perf_volume_identity(inv, v, id);
        perf_baseline_key(id, profile ?: "", key);
        b = baseline_set_find(pm->set, key);
        if (!b || detector_classify(&pm->cfg.detector, b, s,
                                    perf_volume_foreground_load(p, start_usec, fg_share),
                                    &f) != DETECTOR_RUN_BAD)
                return false;
        if (ret_worst)
                *ret_worst = f;
        return true;
}

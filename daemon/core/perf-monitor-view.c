/* SPDX-License-Identifier: MIT */
/* The performance monitor's read-only views (reports, /metrics) and the lookup of a volume's
 * analysis state. */

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

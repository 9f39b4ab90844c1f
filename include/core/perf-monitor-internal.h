/* SPDX-License-Identifier: MIT */
#pragma once

/* The performance monitor's state, shared by its files (perf-monitor.c: rounds and events;
 * perf-monitor-tick.c: the passive ticks; perf-monitor-view.c: the read-only views). Not for
 * other layers. */

#include "core/perf-monitor.h"
#include "model/blockstat.h"

typedef struct PerfVolume {
        char name[BASELINE_NAME_MAX];
        char identity[BASELINE_IDENTITY_MAX]; /* of the last judged run; "" none */
        Detector det;
        PeerGroup peers; /* arrays and LVs: their members */
        RebuildSlowTracker rs;
        HwRebuildHint hw;
        /* the round */
        bool pending, pending_failed, round_done;
        bool pending_shared;       /* degraded alike with its peers: not judged, not learned */
        bool pending_starved;      /* the host stalled during the probe: same */
        bool pending_peers_normal; /* bad against its baseline, not against its peers: same */
        uint64_t shared_runs, starved_runs;
        char pending_profile[32];
        BaselineSample pending_sample;
        usec_t pending_start_usec;
        double pending_fg_share; /* foreign share of the device's I/O during the probe; NAN */
        /* the last judged run */
        bool has_last, last_rebuilding;
        BaselineSample last;
        /* passive stats: the last reading, and the utilization of the last two intervals */
        bool have_stat;
        BlockStat stat;
        usec_t stat_usec;
        double util[2];
        usec_t util_end_usec[2];
        double fg_bytes_per_sec, fg_iops;
} PerfVolume;

struct PerfMonitor {
        PerfMonitorConfig cfg;
        PerfEventHandler handler;
        void *userdata;
        BaselineSet *set;
        bool dirty;
        PerfVolume **vols;
        size_t n_vols;
};

/* The analysis state of the volume named `name`, or NULL. */
PerfVolume *perf_monitor_find_vol(const PerfMonitor *pm, const char *name);

/* The analysis state of the volume named `name`, created when missing; NULL on ENOMEM. */
PerfVolume *perf_monitor_get_vol(PerfMonitor *pm, const char *name);

/* Volumes whose members are compared: arrays, and LVs/dm devices over two or more devices. */
bool perf_volume_has_peer_group(const Volume *v);

/* Whether v, a volume below it or one above it is rebuilding, resyncing, checking or reshaping. */
bool perf_volume_rebuilding(const Inventory *inv, const Volume *v);

/* The foreground load a run that started at start_usec is judged with: the utilization of the
 * last interval before it, or share (of the device's I/O that was someone else's during it),
 * whichever is higher (a load that starts during the probe shows only in the second). NAN when
 * neither is known. */
double perf_volume_foreground_load(const PerfVolume *p, usec_t start_usec, double share);

/* One round of peer samples of the group v into its comparison, and the events it gives (*count
 * incremented per event). 0 or -errno. */
int perf_monitor_feed_peers(PerfMonitor *pm, const Volume *v, const PeerSample *s, size_t n,
                            int *count);

/* An event of type t on v (member: NULL or the member it names), no fields yet. */
void perf_event_init(PerfEvent *e, PerfEventType t, const Volume *v, const char *member);

/* Append a journal field (NAME=value) to e; dropped when e has PERF_EVENT_FIELDS_MAX already. */
_printf_(2, 3) void perf_event_field(PerfEvent *e, const char *fmt, ...);

/* Hand e to the monitor's handler and count it. */
void perf_monitor_emit(PerfMonitor *pm, PerfEvent *e, int *count);

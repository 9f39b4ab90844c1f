/* SPDX-License-Identifier: MIT */
#pragma once

/* The performance monitor: what turns probe results and passive block statistics into learned
 * baselines, degradation verdicts, fail-slow members and slow-rebuild reports, for the daemon.
 * It composes the pure analysis modules (baseline, detector, peers, rebuild-slow) over the
 * inventory's stack graph; the daemon feeds it and turns its PerfEvents into journal events.
 *
 * Flow: perf_monitor_feed_probe() stores each volume's result of a probe round; at the end of the
 * round perf_monitor_end_round() first compares the members of every array (and the PVs of every
 * LV) with each other, then judges every probed volume against its baseline (naming the slow
 * member below it, if peers found one), then lets the baseline learn from runs that passed the
 * gate. perf_monitor_tick() (every few seconds or minutes) reads /sys/block/X/stat of the array
 * members and arrays: passive await goes into the peer comparison, the arrays' own (foreground)
 * rates into the slow-rebuild check, utilization into the next round's judgement.
 *
 * Baselines are keyed by probe profile and device identity (perf_baseline_key(): "quick|serial:X"),
 * since a deep and a quick profile read different figures from the same device. Identities
 * (perf_volume_identity()): WWN is not in the inventory
 * today, so disks go by serial (else dev_t + size), md arrays by their UUID, dm devices by their
 * dm uuid, each array with the identities of its members, so a replaced member starts a new
 * baseline. The set is persisted through core/baseline-store by the owner (perf_monitor_load(),
 * perf_monitor_save()). */

#include <stdbool.h>
#include <stddef.h>

#include "analysis/baseline.h"
#include "analysis/common-mode.h"
#include "analysis/detector.h"
#include "analysis/peers.h"
#include "analysis/rebuild-slow.h"
#include "basic/string-table.h"
#include "core/inventory.h"
#include "core/md-monitor.h"

typedef struct PerfMonitorConfig {
        DetectorConfig detector;
        PeerConfig peers;
        RebuildSlowConfig rebuild;
        CommonModeConfig common; /* members degraded alike with their peers */
        unsigned window;         /* baseline values per metric */
        double idle_utilization; /* learning gate */
} PerfMonitorConfig;

#define PERF_MONITOR_CONFIG_DEFAULT                                                                \
        ((PerfMonitorConfig){                                                                      \
                .detector = DETECTOR_CONFIG_DEFAULT,                                               \
                .peers = PEER_CONFIG_DEFAULT,                                                      \
                .rebuild = REBUILD_SLOW_CONFIG_DEFAULT,                                            \
                .common = COMMON_MODE_CONFIG_DEFAULT,                                              \
                .window = BASELINE_WINDOW_DEFAULT,                                                 \
                .idle_utilization = BASELINE_IDLE_UTILIZATION_DEFAULT,                             \
        })

typedef enum PerfEventType {
        PERF_EVENT_DEGRADED,           /* performance degraded vs baseline */
        PERF_EVENT_RECOVERED,          /* back within the margins */
        PERF_EVENT_MEMBER_SLOW,        /* a fail-slow member */
        PERF_EVENT_MEMBER_NORMAL,      /* the member is normal again */
        PERF_EVENT_MEMBER_FLAPPING,    /* the member keeps going slow and back */
        PERF_EVENT_REBUILD_SLOW,       /* a slow rebuild */
        PERF_EVENT_BACKGROUND_REBUILD, /* controller volume: possible background rebuild */
        _PERF_EVENT_TYPE_MAX,
        _PERF_EVENT_TYPE_INVALID = -EINVAL,
} PerfEventType;

DECLARE_STRING_TABLE_LOOKUP(perf_event_type, PerfEventType);

#define PERF_EVENT_FIELDS_MAX 8

typedef struct PerfEvent {
        PerfEventType type;
        const Volume *volume; /* what it is about (the array, for member events) */
        const char *member;   /* the member, or NULL */
        char message[256];    /* one line, starting with the volume's name */
        /* "STORPULSE_X=value" journal fields, NULL-terminated */
        char field_buf[PERF_EVENT_FIELDS_MAX][96];
        char *fields[PERF_EVENT_FIELDS_MAX + 1];
} PerfEvent;

typedef void (*PerfEventHandler)(const PerfEvent *e, void *userdata);

typedef struct PerfMonitor PerfMonitor;

/* A new monitor with an empty baseline set (c copied; NULL: defaults; -EINVAL if invalid). */
int perf_monitor_new(const PerfMonitorConfig *c, PerfEventHandler handler, void *userdata,
                     PerfMonitor **ret);
PerfMonitor *perf_monitor_free(PerfMonitor *pm);
DEFINE_TRIVIAL_CLEANUP_FUNC(PerfMonitor *, perf_monitor_free);

/* 0 if c is a configuration perf_monitor_new() accepts, else -EINVAL. */
int perf_monitor_config_validate(const PerfMonitorConfig *c);

/* Run with a new configuration from now on (the daemon's reload): -EINVAL and nothing changed if
 * it is invalid. What was learned is kept: baselines, references, verdicts and streaks, peer and
 * rebuild state. New margins judge the next run; a standing verdict or streak is carried over and
 * ends by the new K/M. A new window resizes every baseline's rings: a smaller one drops the
 * oldest values (the newest are kept), a larger one lets the rings grow; a metric's frozen
 * reference stays (it is set when a ring first fills its window, so a larger window sets it no
 * earlier). A changed MinSamples takes effect on the next judgement. */
int perf_monitor_set_config(PerfMonitor *pm, const PerfMonitorConfig *c);

/* Replace the baseline set with the one in FILE below state_dir_fd (core/baseline-store); the
 * loaded baselines are resized to the configured window (as perf_monitor_set_config() does).
 * Returns 0, or the store's error (the monitor then keeps an empty set). */
int perf_monitor_load(PerfMonitor *pm, int state_dir_fd, const char *file);
/* Save the set if it changed since the last save (force: always). Returns 1 saved, 0 nothing
 * to do, or -errno. */
int perf_monitor_save(PerfMonitor *pm, int state_dir_fd, const char *file, bool force);

/* For a caller that writes the set itself (off its event loop): whether the set changed since the
 * last call or load, clearing the flag; perf_monitor_set_dirty() raises it again (a failed write).
 */
bool perf_monitor_take_dirty(PerfMonitor *pm);
void perf_monitor_set_dirty(PerfMonitor *pm);

const BaselineSet *perf_monitor_baselines(const PerfMonitor *pm) _pure_;

/* ---- perf-identity.c: identities, keys, samples (pure) ---------------------------------- */

/* The identity of v in the inventory (see above). */
void perf_volume_identity(const Inventory *inv, const Volume *v,
                          char ret[static BASELINE_IDENTITY_MAX]);

/* The key of a baseline: "PROFILE|IDENTITY", or IDENTITY alone without a profile (truncated to
 * BASELINE_IDENTITY_MAX - 1). */
void perf_baseline_key(const char *identity, const char *profile,
                       char ret[static BASELINE_IDENTITY_MAX]);
/* The identity part of a key (after the first '|'), and its profile into ret_profile (size
 * bytes; "" none). */
const char *perf_baseline_key_split(const char *key, char *ret_profile, size_t size);

/* Fill a sample from probe figures: sequential bytes/s, random IOPS and latency quantiles (ns),
 * CPU µs; pass NAN (or 0 for rates) for what did not run. */
void perf_sample_from_probe(double seq_bytes_per_sec, double rand_iops, double p50_ns,
                            double p99_ns, double max_ns, double cpu_usec, BaselineSample *ret);
/* Add a write probe's figures to s: sequential write bytes/s, random write IOPS, their p99 (ns)
 * and the fdatasync p99 (ns); 0 or NAN for what did not run (then not judged nor learned). */
void perf_sample_add_write(BaselineSample *s, double bytes_per_sec, double iops, double p99_ns,
                           double sync_p99_ns);

/* Store volume v's probe result for the current round. probe_failed: I/O errors or stalled.
 * start_usec: when the probe started (CLOCK_MONOTONIC; picks the utilization measured before
 * it). profile: the probe profile's name (NULL: none). Returns 0 or -ENOMEM. */
int perf_monitor_feed_probe(PerfMonitor *pm, const Volume *v, const BaselineSample *s,
                            bool probe_failed, usec_t start_usec, const char *profile);

/* The share (0..1) of the I/O on the probed device that was someone else's during the probe fed
 * in this round (analysis/backoff backoff_foreign_share(); NAN: not measured). The run is judged
 * (busy, saturated) and gated for learning with max(utilization before the probe, share).
 * -ENOENT if none is pending. */
int perf_monitor_set_foreground(PerfMonitor *pm, const char *name, double share);

/* The probe of the volume named `name` fed in this round ran while the host stalled
 * (analysis/host-stall): the run is neither judged nor learned. -ENOENT if none is pending. */
int perf_monitor_mark_starved(PerfMonitor *pm, const char *name);

/* Runs of a volume not judged because its array's members degraded alike (shared) or because
 * the host stalled during the probe (starved), since start. False if the volume has no state. */
bool perf_monitor_get_unjudged(const PerfMonitor *pm, const char *name, uint64_t *ret_shared,
                               uint64_t *ret_starved);

/* End the round: peers, verdicts, learning (see above); events go to the handler. now_usec
 * CLOCK_MONOTONIC, now_realtime_usec CLOCK_REALTIME. Returns the number of events or -errno. */
int perf_monitor_end_round(PerfMonitor *pm, const Inventory *inv, usec_t now_usec,
                           usec_t now_realtime_usec);

/* Passive tick: stat deltas of every array and array member (await, utilization, foreground
 * rates), peer comparison on await, and the slow-rebuild check of md arrays (mon may be NULL:
 * no rebuild figures). Returns the number of events or -errno. */
int perf_monitor_tick(PerfMonitor *pm, const Inventory *inv, const MdMonitor *mon, usec_t now_usec,
                      usec_t now_realtime_usec);

/* Forget what the baselines of the volume named `name` learned, for every profile (the admin's
 * reset). Returns the number of baselines reset (0: the volume has none), -EINVAL. */
int perf_monitor_reset(PerfMonitor *pm, const Inventory *inv, const char *name,
                       usec_t now_realtime_usec);

/* Whether a probe result of v just taken (s, of profile, started at start_usec, fg_share of the
 * device's I/O during it someone else's), not fed yet, is a bad run against v's baseline while
 * no verdict stands on v and nothing below or above it rebuilds: the daemon then measures v once
 * more before the result counts (a second look). A busy host's slow moment mostly passes in
 * seconds, a slow device stays slow. ret_worst (may be NULL): the worst metric of s. */
bool perf_monitor_second_look(const PerfMonitor *pm, const Inventory *inv, const Volume *v,
                              const BaselineSample *s, const char *profile, usec_t start_usec,
                              double fg_share, DetectorFinding *ret_worst);

/* Read-only views for reports and metrics: the detector and peer state of a volume by name,
 * NULL if it has none yet. */
const Detector *perf_monitor_get_detector(const PerfMonitor *pm, const char *name);
const PeerMemberState *perf_monitor_get_member(const PerfMonitor *pm, const char *array,
                                               const char *member);
/* The last round's sample of a volume and whether it was taken during a rebuild; false if none. */
bool perf_monitor_get_last(const PerfMonitor *pm, const char *name, BaselineSample *ret,
                           bool *ret_rebuilding);
/* The name of the i-th volume with analysis state (any order), NULL past the end. */
const char *perf_monitor_volume_name(const PerfMonitor *pm, size_t i);
/* The peer group of an array or LV (its members' fail-slow state), NULL if none. */
const PeerGroup *perf_monitor_get_group(const PerfMonitor *pm, const char *name);
/* The configuration the monitor runs with. */
const PerfMonitorConfig *perf_monitor_get_config(const PerfMonitor *pm) _pure_;
/* The baseline a volume was last judged against, NULL if not judged yet. */
const Baseline *perf_monitor_get_baseline(const PerfMonitor *pm, const char *name);
/* Whether a rebuild of this array is reported slow now. */
bool perf_monitor_rebuild_is_slow(const PerfMonitor *pm, const char *name);
/* How many arrays' rebuilds are reported slow now (a tick that ends one raises no event, so the
 * caller compares this before and after it to know the published state changed). */
size_t perf_monitor_rebuilds_slow(const PerfMonitor *pm) _pure_;

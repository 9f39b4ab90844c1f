/* SPDX-License-Identifier: MIT */
#pragma once

/* Fail-slow members by peer comparison. The members of one array (md members, dm-raid legs, the
 * PVs of one LV) get the same short read-only latency probe, and their passive read await comes
 * from /sys/block/X/stat deltas under the real workload. Within one group, per source (probe
 * latency, passive await) separately, a member is slow in this run when its value exceeds
 *     limit = max(floor, factor * median, median + mad_k * MAD)
 * (HDFS's outlier rule; median and scaled MAD over all members of the group that measured the
 * source, the slow one included: the median is robust to it). With fewer than three members the
 * median of the group is no reference (with two, which one is slow?), so each member is compared
 * with its own baseline instead, by the same rule over its own median and MAD.
 *
 * Hysteresis per member: SUSPECT after k_slow slow runs in a row of one source (the sources see
 * different windows: a probe reads now, a passive await averages the last statistics interval,
 * which may mostly predate a fault, so one source's normal run never breaks another's slow
 * streak). NORMAL again after m_normal runs in which the probe or the source that raised it
 * judged the member normal, with no source judging it slow since: a slow run of any source
 * starts the count again, but a source that stopped measuring (the passive await of an array
 * without foreground reads) holds no verdict. An await tick, which may mostly predate the
 * healing, never clears a verdict the probe raised on its own. A member that keeps crossing is
 * flapping: FLAPPING is reported once when the last 32 judged runs hold flap_edges or more separate
 * slow stretches (suspect or not: a member slow every other run never reaches k_slow), and clears
 * when they no longer do.
 *
 * Pure: no I/O, no clock; a PeerGroup is plain data. */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/baseline.h"
#include "basic/macro.h"
#include "basic/string-table.h"
#include "basic/time-util.h"

#define PEERS_MAX 32U

typedef enum PeerSource {
        PEER_SOURCE_PROBE, /* latency of the members' own short probes (ms) */
        PEER_SOURCE_AWAIT, /* passive read await from the stat deltas (ms) */
        /* passive write await (ms): the only view of a member's writes, which no probe makes
         * (a write probe writes a file above the array; its writes reach every member) */
        PEER_SOURCE_WRITE_AWAIT,
        _PEER_SOURCE_MAX,
        _PEER_SOURCE_INVALID = -EINVAL,
} PeerSource;

typedef enum PeerEventType {
        PEER_EVENT_SLOW,     /* member became SUSPECT */
        PEER_EVENT_NORMAL,   /* member is back to normal */
        PEER_EVENT_FLAPPING, /* member keeps going slow and back */
        _PEER_EVENT_TYPE_MAX,
        _PEER_EVENT_TYPE_INVALID = -EINVAL,
} PeerEventType;

DECLARE_STRING_TABLE_LOOKUP(peer_source, PeerSource);
DECLARE_STRING_TABLE_LOOKUP(peer_event_type, PeerEventType);

typedef struct PeerConfig {
        double floor_ms[_PEER_SOURCE_MAX]; /* below this nobody is slow */
        double factor;                     /* 3 */
        double mad_k;                      /* 3 */
        unsigned k_slow, m_normal;
        unsigned flap_edges;
        uint64_t min_await_ios; /* passive await counts only over at least this many I/Os */
} PeerConfig;

/* Floors: 5 ms for the probe (a healthy SSD or an idle HDD's 4 KiB read is well below; the
 * +20 ms of a fail-slow member far above), 20 ms for passive await (queueing under a real
 * workload lifts every member). */
#define PEER_CONFIG_DEFAULT                                                                        \
        ((PeerConfig){                                                                             \
                .floor_ms = { [PEER_SOURCE_PROBE] = 5.0,                                           \
                              [PEER_SOURCE_AWAIT] = 20.0,                                          \
                              [PEER_SOURCE_WRITE_AWAIT] = 20.0 },                                  \
                .factor = 3.0,                                                                     \
                .mad_k = 3.0,                                                                      \
                .k_slow = 2,                                                                       \
                .m_normal = 3,                                                                     \
                .flap_edges = 3,                                                                   \
                .min_await_ios = 16,                                                               \
        })

int peer_config_validate(const PeerConfig *c);

/* One member's figures for one run. */
typedef struct PeerSample {
        const char *name;                   /* kernel name */
        double value_ms[_PEER_SOURCE_MAX];  /* NAN: not measured this run */
        uint64_t await_ios;                 /* reads behind value_ms[AWAIT] */
        uint64_t write_await_ios;           /* writes behind value_ms[WRITE_AWAIT] */
        BaselineStat own[_PEER_SOURCE_MAX]; /* the member's own baseline (n = 0: none) */
} PeerSample;

/* Fill with NANs and empty own baselines. */
void peer_sample_init(PeerSample *s, const char *name);

typedef struct PeerMemberState {
        char name[BASELINE_NAME_MAX];
        bool suspect, flapping;
        unsigned slow_streak[_PEER_SOURCE_MAX], normal_streak[_PEER_SOURCE_MAX];
        PeerSource raised_by; /* the source whose streak made it SUSPECT */
        uint32_t history;     /* bit 0: last run slow; one bit per judged run */
        unsigned judged;      /* runs in history (<= 32) */
        unsigned clean_runs;  /* while SUSPECT: normal runs since the last slow one */
        uint64_t episodes;    /* times it became SUSPECT */
        PeerSource source;    /* of the last slow run */
        double value_ms, limit_ms, reference_ms; /* of the last judged run */
        bool by_own_baseline;
} PeerMemberState;

typedef struct PeerGroup {
        PeerMemberState m[PEERS_MAX];
        size_t n;
} PeerGroup;

typedef struct PeerEvent {
        PeerEventType type;
        char member[BASELINE_NAME_MAX];
        PeerSource source;
        double value_ms, limit_ms;
        double reference_ms; /* the peers' median, or the own baseline median */
        bool by_own_baseline;
        unsigned runs; /* the streak that decided */
        uint64_t episodes;
} PeerEvent;

void peer_group_init(PeerGroup *g);

/* The member's state, or NULL. */
const PeerMemberState *peer_group_find(const PeerGroup *g, const char *name);

/* The first suspect member's name, or NULL. */
const char *peer_group_suspect(const PeerGroup *g);

/* The member whose probe the peer rule found slow in its latest runs (the longest slow streak of
 * PEER_SOURCE_PROBE, the first of equals), suspect yet or not; NULL when none is. A layer above
 * that slows in the same round names it before its streak is long enough for member-slow. */
const char *peer_group_slowing(const PeerGroup *g);

/* The limit of the rule over values (NANs skipped); NAN when none. ret_median/ret_mad may be
 * NULL. */
double peers_limit(const double *values, size_t n, double floor_ms, double factor, double mad_k,
                   double *ret_median, double *ret_mad);

/* Judge one run of a group of n members (at most PEERS_MAX; more: -E2BIG). Members not in the
 * group yet are added; members of the group absent from this run keep their state. Writes up to
 * n_events events and returns their number; -ENOBUFS (group unchanged) when n_events is too
 * small (2 * n always suffices), -EINVAL for NULL arguments. */
int peers_feed(PeerGroup *g, const PeerConfig *c, const PeerSample *samples, size_t n,
               PeerEvent *ret_events, size_t n_events);

/* "member sdc slow: probe latency 23.1 ms, limit 6.0 ms (peers' median 0.9 ms)" etc. */
char *peer_event_format(const PeerEvent *e, char *buf, size_t size);

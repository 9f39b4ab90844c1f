/* SPDX-License-Identifier: MIT */
#pragma once

/* The daemon's journal events: one type per transition an admin cares about, each with a fixed
 * MESSAGE_ID (documented in units/storpulse.catalog, so `journalctl -x` explains it), a default
 * syslog priority and a name (STORPULSE_EVENT=). The manager raises an event once per transition,
 * never on every poll, sends it to the journal with structured fields (STORPULSE_VOLUME=,
 * STORPULSE_KIND=, STORPULSE_MEMBER=, figures with their unit in the field name) and keeps the
 * most recent ones in a bounded ring (Manager.events) for the control socket and the reports. */

#include <stdint.h>

#include "basic/macro.h"
#include "basic/string-table.h"
#include "basic/time-util.h"

typedef enum ManagerEventType {
        MANAGER_EVENT_VOLUME_APPEARED,
        MANAGER_EVENT_VOLUME_VANISHED,
        MANAGER_EVENT_DEGRADED,  /* health ok -> degraded */
        MANAGER_EVENT_FAILED,    /* health -> failed */
        MANAGER_EVENT_RECOVERED, /* health degraded/failed -> ok */
        MANAGER_EVENT_MEMBER_FAILED,
        MANAGER_EVENT_MEMBER_REMOVED,
        MANAGER_EVENT_MEMBER_ADDED,
        MANAGER_EVENT_SPARE_ACTIVE, /* a spare became an active member */
        MANAGER_EVENT_REPLACEMENT_STARTED,
        MANAGER_EVENT_REPLACEMENT_FINISHED,
        MANAGER_EVENT_REBUILD_STARTED,  /* resync / recovery / check / repair began */
        MANAGER_EVENT_REBUILD_PROGRESS, /* every 10 % */
        MANAGER_EVENT_REBUILD_FINISHED,
        MANAGER_EVENT_REBUILD_INTERRUPTED,
        MANAGER_EVENT_REBUILD_RESUMED,
        MANAGER_EVENT_REBUILD_DELAYED,
        MANAGER_EVENT_CHECK_FINISHED, /* check/repair ran to its end: mismatch count */
        MANAGER_EVENT_RESHAPE_STARTED,
        MANAGER_EVENT_RESHAPE_FINISHED,
        MANAGER_EVENT_PROBE_FINISHED,
        MANAGER_EVENT_PROBE_ERROR,   /* I/O errors (first offset) */
        MANAGER_EVENT_PROBE_STALLED, /* no result before the timeout: volume stalled */
        MANAGER_EVENT_PROBE_SKIPPED, /* skipped repeatedly (reason) */
        MANAGER_EVENT_CONFIG_RELOADED,
        MANAGER_EVENT_CONFIG_REJECTED,
        MANAGER_EVENT_STARTED,
        MANAGER_EVENT_STOPPING,
        /* core/perf-monitor: learned baselines, fail-slow members, slow rebuilds */
        MANAGER_EVENT_PERFORMANCE_DEGRADED, /* figures vs baseline; names the slow member */
        MANAGER_EVENT_PERFORMANCE_RECOVERED,
        MANAGER_EVENT_MEMBER_SLOW, /* fail-slow member by peer comparison */
        MANAGER_EVENT_MEMBER_NORMAL,
        MANAGER_EVENT_MEMBER_FLAPPING,
        MANAGER_EVENT_REBUILD_SLOW,       /* ETA over the limit / speed under the floor */
        MANAGER_EVENT_BACKGROUND_REBUILD, /* controller volume: possible background rebuild */
        /* manager-stack.c: health through the stack */
        MANAGER_EVENT_PROBLEM_BELOW,         /* a volume below makes this one degraded/failed */
        MANAGER_EVENT_PROBLEM_BELOW_CLEARED, /* ... no longer */
        MANAGER_EVENT_NOT_ASSEMBLED,         /* md inactive with members past AssembleTimeout= */
        _MANAGER_EVENT_TYPE_MAX,
        _MANAGER_EVENT_TYPE_INVALID = -EINVAL,
} ManagerEventType;

/* "volume-appeared", ... (the STORPULSE_EVENT= value). */
DECLARE_STRING_TABLE_LOOKUP(manager_event_type, ManagerEventType);
/* The MESSAGE_ID: 32 lower-case hex digits; NULL when out of range. */
const char *manager_event_type_message_id(ManagerEventType t) _const_;
/* The default syslog priority (LOG_*). */
int manager_event_type_priority(ManagerEventType t) _const_;

#define MANAGER_EVENT_TEXT_MAX 256
#define MANAGER_EVENT_NAME_MAX 64

/* One raised event, as kept in the ring. Plain data. */
typedef struct ManagerEvent {
        uint64_t seq;         /* 1, 2, ...: never reused while the daemon runs */
        usec_t realtime_usec; /* CLOCK_REALTIME when raised */
        ManagerEventType type;
        int priority;                        /* LOG_* */
        char volume[MANAGER_EVENT_NAME_MAX]; /* kernel name, "" for daemon-wide events */
        char kind[16];                       /* volume_kind_to_string(), "" when none */
        char member[MANAGER_EVENT_NAME_MAX]; /* array member, "" when none */
        char message[MANAGER_EVENT_TEXT_MAX];
} ManagerEvent;

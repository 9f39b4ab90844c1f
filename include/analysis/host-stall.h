/* SPDX-License-Identifier: MIT */
#pragma once

/* Host stalls: when the machine itself is starved of CPU (a virtual machine whose host is
 * overloaded, a guest under qemu TCG, a box thrashing), every probe running through it reads
 * slow figures from healthy devices. The probe cannot tell that from inside: a read in flight
 * while the whole guest stood still counts in the device's io_ticks like a slow read, and a
 * throttled cgroup (bios held by blk-throttle above md's accounting) leaves io_ticks low like a
 * prober that was not scheduled. What does tell is a clock that is not I/O: the daemon arms a
 * short timer while probes run, and a timer that fires late by far more than its slack means
 * the daemon (and the machine) did not run for that long. A throttled or slow device delays no
 * timer.
 *
 * HostStall keeps the recent late firings (when, how late) in a ring; host_stall_late_in() says
 * how much stall time overlapped a probe's wall-time window, host_stall_starved() whether that
 * is enough to not judge the run: late >= min_usec and late >= fraction x the probe's wall
 * time. Defaults (tolerance 50 ms over a 100 ms timer, min 250 ms, fraction 25%): a healthy
 * loaded machine's loop is late by a few ms; a stall of under a quarter of the probe moves its
 * figures by less than the detector's margins (throughput 50%, latency 3x), so such a run is
 * judged as it is. Measured on a TCG guest on two shared cores: stalls of 110-340 ms in half
 * of the 1.1-1.6 s probes (not starved by these limits: judged and learned as they are), and
 * the seconds-long ones that put throughput at 2-8% of baseline (starved).
 *
 * Pure: times (CLOCK_MONOTONIC µs) come in. */

#include <stdbool.h>
#include <stdint.h>

#include "basic/macro.h"
#include "basic/time-util.h"

#define HOST_STALL_RING 64U

typedef struct HostStallConfig {
        usec_t interval_usec;  /* the watch timer's period while probes run */
        usec_t tolerance_usec; /* lateness below this is no stall */
        usec_t min_usec;       /* a run is starved with at least this much stall time */
        double fraction;       /* ... and at least this fraction of its wall time */
} HostStallConfig;

#define HOST_STALL_CONFIG_DEFAULT                                                                  \
        ((HostStallConfig){                                                                        \
                .interval_usec = 100 * USEC_PER_MSEC,                                              \
                .tolerance_usec = 50 * USEC_PER_MSEC,                                              \
                .min_usec = 250 * USEC_PER_MSEC,                                                   \
                .fraction = 0.25,                                                                  \
        })

typedef struct HostStallEntry {
        usec_t fired_usec; /* when the late timer fired */
        usec_t late_usec;  /* by how much: the stall is [fired - late, fired] */
} HostStallEntry;

typedef struct HostStall {
        HostStallEntry e[HOST_STALL_RING];
        unsigned n, next;
        uint64_t stalls;      /* late firings noted, ever */
        usec_t total_usec;    /* their lateness, ever */
        usec_t max_late_usec; /* the worst */
} HostStall;

void host_stall_init(HostStall *h);

/* A timer due at scheduled_usec fired at fired_usec: noted when later than tolerance. Returns
 * true when it was a stall. */
bool host_stall_note(HostStall *h, const HostStallConfig *c, usec_t scheduled_usec,
                     usec_t fired_usec);

/* Stall time (of the entries still in the ring) overlapping [start_usec, end_usec]. */
usec_t host_stall_late_in(const HostStall *h, usec_t start_usec, usec_t end_usec) _pure_;

/* Whether a probe of wall time wall_usec that overlapped late_usec of stalls is starved. */
bool host_stall_starved(const HostStallConfig *c, usec_t late_usec, usec_t wall_usec) _pure_;

/* SPDX-License-Identifier: MIT */
#pragma once

/* Shared degradation: when the members of one array all get slower alike in the same round, no
 * member is at fault; the cause sits above them or around them (the array, a shared controller
 * or path, or the host: a virtual machine starved of CPU makes every device look slow at once).
 * A member's own-baseline verdict then names the wrong layer, so its run is not counted.
 *
 * Each member's run is summarised by its degradation factor: how far its worst judged metric
 * (detector_classify()) is from the baseline, >= 1, the same on both sides (throughput at 25% of
 * baseline is 4, p99 at 6x baseline is 6, anything at or better than baseline is 1). Member i's
 * degradation is shared when its own factor is >= min_factor (a healthy member shares nothing)
 * and the lower median factor of the OTHER members probed in the same round (with an even
 * count the smaller middle value: at least half of them are that far gone) is
 *   >= min_factor          (they degraded too, clearly: not the noise of a healthy member), and
 *   >= factor_i / spread   (by a comparable amount: a member 60x slower than peers at 1.5x is
 *                           not sharing their trouble).
 * A member slow on its own (the fail-slow case, +20 ms against peers at 1x) is never shared:
 * its peers' median stays near 1, below min_factor. A whole array slower (all members alike)
 * is reported on the array's own verdict (layer: volume) instead of once per member.
 *
 * Why the defaults (min_factor 2, spread 8): a healthy member's worst metric stays within the
 * detector's margins (factor < 2 for throughput at threshold 0.5, < 3..6 for latency) in all but
 * rare runs; requiring the peers' median at 2x or more means at least half of the peers are
 * past a throughput verdict's line at once. The host stalls measured on a TCG guest (issue 11
 * bench: throughput at 2-8% of baseline, p99 10-36x, on several members in one round) spread
 * their factors over about 4x between members, so spread 8 keeps them shared with a margin.
 *
 * Pure, no state. */

#include <stdbool.h>
#include <stddef.h>

#include "analysis/detector.h"

/* Members compared at most (more are ignored). */
#define COMMON_MODE_MEMBERS_MAX 32U

typedef struct CommonModeConfig {
        double min_factor; /* peers' median factor needed (> 1) */
        double spread;     /* how much worse than the peers' median a member may be (>= 1) */
} CommonModeConfig;

#define COMMON_MODE_CONFIG_DEFAULT ((CommonModeConfig){ .min_factor = 2.0, .spread = 8.0 })

int common_mode_config_validate(const CommonModeConfig *c);

/* The degradation factor of a finding (>= 1; 1 for no finding or a non-finite ratio). */
double common_mode_factor(const DetectorFinding *f) _pure_;

/* Whether member i's degradation is shared with the others (see above). factors[j] NAN: member
 * j was not probed this round (skipped). False when no other member has a factor, i >= n, or
 * factors[i] is not finite. At most COMMON_MODE_MEMBERS_MAX others count. */
bool common_mode_shared(const CommonModeConfig *c, const double *factors, size_t n, size_t i);

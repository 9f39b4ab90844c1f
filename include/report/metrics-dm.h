/* SPDX-License-Identifier: MIT */
#pragma once

/* The device-mapper target judges' figures as /metrics series (gauges; labels volume, and vg and
 * lv for LVM volumes, "" otherwise), written only when some volume has the figure:
 *   storpulse_thin_pool_data_usage_ratio       used / total data blocks of a thin pool (0..1)
 *   storpulse_thin_pool_metadata_usage_ratio   used / total metadata blocks (0..1)
 *   storpulse_snapshot_usage_ratio             allocated / total COW store sectors (0..1)
 *   storpulse_multipath_paths                  paths of a multipath device
 *   storpulse_multipath_paths_failed           of them failed (F)
 *   storpulse_multipath_queueing               1 while I/O is queued for want of a path
 *   storpulse_dm_integrity_mismatches          checksum mismatches dm-integrity counted since
 *                                              activation */

#include <stddef.h>

#include "model/volume.h"
#include "report/metrics.h"

/* Write the families above for the n listed volumes vols[] (in output order). */
void metrics_dm_families(MetricsWriter *w, Volume *const *vols, size_t n);

/* SPDX-License-Identifier: MIT */
#pragma once

/* The `storpulsectl report` document: per volume, each metric now vs its learned baseline, and
 * during the last rebuild, as JSON (the daemon's "report" reply and `report --json`):
 *   { "source": "daemon" | "state-file",
 *     "volumes": [ { "volume": "md0", "profile": "quick", "identity": "...", "generation": 2,
 *                    "learned_runs": 40,
 *                    "since_timestamp_seconds": t, "updated_timestamp_seconds": t,
 *                    "rebuild_timestamp_seconds": t | null, "verdict": "ok" | null,
 *                    "culprit": "sdc" | null, "rebuild_slow": false,
 *                    "now_source": "last-run" | "last-learned",
 *                    "metrics": { "seq_bytes_per_second": { "now": x, "baseline": median,
 *                                   "mad": m, "n": 32, "reference": r, "during_rebuild": y },
 *                                 ... } } ] }
 * One entry per volume and probe profile. Unknown figures are null. From the daemon, for the
 * baseline the last probe run was judged against (its profile), "now" is that run and the verdict
 * is the detector's ("now_source": "last-run"); for the volume's other profiles, and from the state
 * file alone, "now" is the newest learned value and there is no verdict ("last-learned"). Names and
 * units as docs/json.md says (the metrics in bytes/s, IOPS and seconds, whatever unit the baseline
 * file keeps them in). */

#include <json-c/json.h>

#include "analysis/baseline.h"
#include "core/inventory.h"
#include "core/perf-monitor.h"

/* The metric's name in the document ("latency_p99_seconds"); NULL for an invalid m. */
const char *perf_report_metric_name(BaselineMetric m);

/* Build the document. pm and inv NULL: from the set alone (a state file; one entry per name,
 * the most recently updated). only: NULL-terminated names to include, NULL all. Returns 0 and a
 * new reference, or -ENOMEM. */
int perf_report_build(const BaselineSet *set, const PerfMonitor *pm, const Inventory *inv,
                      char *const *only, json_object **ret);

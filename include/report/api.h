/* SPDX-License-Identifier: MIT */
#pragma once

/* The JSON documents of the HTTP API (/api/v1/...), built with json-c from a ReportInput. Pure:
 * no I/O, no clock. Each returns 0 and a new json_object reference in *ret, or -errno.
 *
 *   /api/v1/volumes       the `storpulsectl volumes --json` array (inventory_to_json(), with
 *                         effective_state/effective_cause), each object plus "probe_problem":
 *                         report_probe_problem() ("read-errors", "stalled", "probe-failed") or null
 *   /api/v1/volumes/NAME  that volume's object (the same schema, hidden sub-LVs included) plus
 *                         "probe": the probe state, counters and the last run (null if never)
 *   /api/v1/history       {"now_timestamp_seconds", "volumes": {NAME: {"samples": [...oldest
 * first], "baseline": {...} or null, ...extensions}}, "events": [...newest first]}: the page's
 * charts and event list */

#include <json-c/json.h>

#include "report/report.h"

int api_volumes_json(const ReportInput *in, json_object **ret);

/* The pieces, for the control socket too (one schema, docs/json.md): a probe record (NULL p
 * gives NULL), one run, one event. 0 and a new reference in *ret, or -ENOMEM. */
int api_probe_json(const ReportProbe *p, json_object **ret);
int api_sample_json(const ReportSample *s, json_object **ret);
int api_event_json(const ReportEvent *e, json_object **ret);

/* -ENOENT if the inventory has no volume `name`. */
int api_volume_json(const ReportInput *in, const char *name, json_object **ret);

int api_history_json(const ReportInput *in, json_object **ret);

/* SPDX-License-Identifier: MIT */
#pragma once

/* Prometheus exposition: the text format 0.0.4 and OpenMetrics 1.0, rendered from a ReportInput
 * (report/report.h) into one buffer. Pure: no I/O, no clock; times come in the input. The
 * snapshot (report/snapshot.h) renders both once per change; the HTTP server only picks one.
 *
 * Conventions (https://prometheus.io/docs/practices/naming/): every name starts "storpulse_",
 * base units in the name (_bytes, _seconds, _ratio), counters end in _total, enums are one
 * series per state with value 0 or 1, latency is a histogram in seconds. Samples of a family are
 * contiguous, families appear in a fixed order, volumes in name order, so the output is
 * deterministic for a given input.
 *
 * The writer below is public so that modules above the core (the detector's baselines and
 * verdicts) can add families through ReportInput.extensions without the renderer knowing them. */

#include <stddef.h>

#include "basic/macro.h"

typedef struct ReportInput ReportInput;

typedef enum MetricsFormat {
        METRICS_FORMAT_PROMETHEUS,  /* text/plain; version=0.0.4 */
        METRICS_FORMAT_OPENMETRICS, /* application/openmetrics-text; version=1.0.0 */
        _METRICS_FORMAT_MAX,
        _METRICS_FORMAT_INVALID = -EINVAL,
} MetricsFormat;

/* The Content-Type header value of a format. */
const char *metrics_format_content_type(MetricsFormat f) _const_;

typedef enum MetricType {
        METRIC_GAUGE,
        METRIC_COUNTER,   /* the family name ends in "_total" (OpenMetrics drops it in TYPE) */
        METRIC_HISTOGRAM, /* samples: "_bucket" with le, "_sum", "_count" */
        METRIC_INFO,      /* the name ends in "_info", value 1; a gauge in 0.0.4 */
        _METRIC_TYPE_MAX,
        _METRIC_TYPE_INVALID = -EINVAL,
} MetricType;

typedef struct MetricsWriter MetricsWriter;

/* Start a family: its HELP and TYPE lines. `name` is the full sample name as in 0.0.4 (counters
 * with "_total", info with "_info"); help is plain text (escaped here). Returns 0 or -errno (the
 * first error sticks: later calls do nothing and return it). */
int metrics_writer_family(MetricsWriter *w, const char *name, MetricType type, const char *help);

/* One sample of the current family: name + suffix ("" or "_bucket", "_sum", "_count" for
 * histograms), then label name/value pairs ending in NULL (values escaped here). Integral values
 * print as integers, others in the shortest form that reads back exactly; NaN and +-Inf as the
 * formats spell them. */
int metrics_writer_sample(MetricsWriter *w, const char *suffix, double value, ...) _sentinel_;

/* Render the whole exposition of `in` in format f. Returns 0 and a NUL-terminated malloc'd
 * buffer (*ret_size without the NUL), or -ENOMEM / an extension's error. */
int metrics_render(const ReportInput *in, MetricsFormat f, char **ret, size_t *ret_size);

/* SPDX-License-Identifier: MIT */
#pragma once

/* An immutable, reference-counted rendering of the daemon's state: every body the HTTP endpoint
 * serves (/metrics in both formats, the /api/v1 documents), rendered once per change from a
 * ReportInput, each also gzip-compressed (zlib) once. Nothing in a snapshot changes after
 * snapshot_build(), so any thread may read it while it holds a reference; the count is atomic.
 * The owner builds a new snapshot after every change and hands it over (http/server.h). */

#include <stddef.h>
#include <stdint.h>

#include "basic/macro.h"
#include "report/report.h"

typedef enum SnapshotBodyType {
        SNAPSHOT_METRICS_PROMETHEUS,  /* text 0.0.4 */
        SNAPSHOT_METRICS_OPENMETRICS, /* OpenMetrics 1.0 */
        SNAPSHOT_VOLUMES_JSON,        /* /api/v1/volumes */
        SNAPSHOT_HISTORY_JSON,        /* /api/v1/history */
        _SNAPSHOT_BODY_TYPE_MAX,
        _SNAPSHOT_BODY_TYPE_INVALID = -EINVAL,
} SnapshotBodyType;

typedef struct SnapshotBody {
        const char *data; /* NUL-terminated */
        size_t size;      /* without the NUL */
        const void *gzip; /* the same, gzip-compressed */
        size_t gzip_size;
} SnapshotBody;

typedef struct Snapshot Snapshot;

/* Render everything from `in` (borrowed during the call only). `generation` is the caller's
 * counter, kept for ETag-like checks and tests. Returns 0 and a snapshot with one reference. */
int snapshot_build(const ReportInput *in, uint64_t generation, Snapshot **ret);

Snapshot *snapshot_ref(Snapshot *s);
/* Drops a reference, frees on the last; accepts NULL, returns NULL. Thread-safe. */
Snapshot *snapshot_unref(Snapshot *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(Snapshot *, snapshot_unref);

const SnapshotBody *snapshot_body(const Snapshot *s, SnapshotBodyType t) _pure_;

/* /api/v1/volumes/NAME: the body for volume `name`, NULL if the snapshot has none. */
const SnapshotBody *snapshot_volume(const Snapshot *s, const char *name) _pure_;

uint64_t snapshot_generation(const Snapshot *s) _pure_;

/* gzip (RFC 1952) of data through zlib at the default level. Returns 0 and a malloc'd buffer. */
int snapshot_gzip(const void *data, size_t size, void **ret, size_t *ret_size);

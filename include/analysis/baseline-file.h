/* SPDX-License-Identifier: MIT */
#pragma once

/* The baseline state file: a versioned JSON document holding a BaselineSet.
 *
 *   {
 *     "format": "storpulse-baselines",
 *     "version": 1,
 *     "baselines": [
 *       { "identity": "serial:S3Z9NB0K123456", "name": "sdb", "window": 32, "generation": 2,
 *         "learned_runs": 40, "since_realtime_usec": 1764750000000000,
 *         "updated_realtime_usec": 1764753600000000, "rebuild_realtime_usec": 0,
 *         "values": { "seq_bytes_per_sec": [1.32e8, ...], "lat_p99_ns": [...] },
 *         "reference": { "seq_bytes_per_sec": 1.33e8, ... },
 *         "rebuild_values": { ... } }
 *     ]
 *   }
 *
 * Value arrays are oldest first. The parser is strict, since a baseline that is silently wrong
 * makes every later verdict wrong: the whole text must be one JSON object (no trailing bytes, no
 * NUL, nesting at most 8 deep), every key must be known, "format" must match, "version" must be
 * 1 (a newer version gives -EPROTONOSUPPORT, so a downgrade does not eat a newer file), numbers
 * must have the right type and range (values finite and >= 0, at most `window` of them; window
 * 1..BASELINE_WINDOW_MAX), identities non-empty, printable and unique. Anything else is -EBADMSG.
 *
 * Pure: text in, set out (json-c for the syntax). */

#include <stddef.h>

#include "analysis/baseline.h"

#define BASELINE_FILE_FORMAT  "storpulse-baselines"
#define BASELINE_FILE_VERSION 1
/* Entries a file may hold (a machine has far fewer block devices). */
#define BASELINE_FILE_ENTRIES_MAX 4096U

/* Parse text (size bytes, need not be NUL-terminated). Returns 0 and a new set, -EBADMSG for a
 * malformed document, -EPROTONOSUPPORT for another format version, -ENOMEM. */
int baseline_file_parse(const char *text, size_t size, BaselineSet **ret);

/* Serialize the set (entries in set order). Returns 0 and a malloc'd NUL-terminated string
 * ending in a newline, or -ENOMEM. The output parses back to an equal set. */
int baseline_file_format(const BaselineSet *s, char **ret);

/* SPDX-License-Identifier: MIT */
#pragma once

/* The daemon's state file ($STATE_DIRECTORY/probes.json): per volume the probe counters, skips by
 * reason and the history ring of probe summaries, so a restart (or an upgrade) does not forget
 * what was measured. Written atomically (write_file_atomic_at) after every probe run and at exit;
 * read once at start. The format is versioned JSON and the reader is strict about types and
 * bounds but never fatal: a file it cannot read is reported and the daemon starts fresh.
 *   {"version":1,"volumes":{"md0":{"probes":3,"stalls":0,"errors":0,"cpu_usec":...,
 *    "device_usec":...,"skips":{"foreign-io":1,...},"history":[{sample}, ... oldest first]}}}
 * This module only converts; it does no I/O. */

#include <json-c/json.h>

#include "manager/manager.h"

#define STATE_FILE_NAME    "probes.json"
#define STATE_FILE_VERSION 1

/* The document for every record of m. Returns 0 and a new reference, or -ENOMEM. */
int state_file_build(const Manager *m, json_object **ret);

/* Parse `text` (need not be NUL-terminated) and call `restore` for each volume with a record
 * filled from the file (name, counters, skips, history; everything else zero). Returns the number
 * of volumes, or (with a static message in *ret_error) -EBADMSG for a file that is not ours or
 * damaged, -EPROTONOSUPPORT for a newer version, -ENOMEM. Volumes and history entries with wrong
 * types are skipped, not fatal; *ret_skipped (may be NULL) gets their number. */
typedef void (*StateFileRestore)(const ManagerVolume *from_file, void *userdata);
int state_file_parse(const char *text, size_t size, StateFileRestore restore, void *userdata,
                     unsigned *ret_skipped, const char **ret_error);

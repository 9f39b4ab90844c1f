/* SPDX-License-Identifier: MIT */
#pragma once

/* The record of the write probe's directories, $STATE_DIRECTORY/write-probe.json:
 * {"version":1,"directories":["/srv/data", ...]}, every directory a write slice ran in and so
 * may hold a scratch file of ours (manager-scratch.c keeps it). Pure: text in, text out. */

#include <stddef.h>

#define SCRATCH_RECORD_VERSION 1

/* Parse size bytes of text (no NUL needed) into *ret_dirs (NULL-terminated, unique, absolute
 * paths only; other entries are skipped). 0; -EPROTONOSUPPORT when the record is of a newer
 * version (*ret_dirs NULL: leave it alone); -EBADMSG when it is not a record; -ENOMEM. */
int scratch_record_parse(const char *text, size_t size, char ***ret_dirs);

/* The record of dirs (NULL: none) as one line of JSON in *ret. 0 or -ENOMEM. */
int scratch_record_format(char *const *dirs, char **ret);

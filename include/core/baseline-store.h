/* SPDX-License-Identifier: MIT */
#pragma once

/* The baseline store: the BaselineSet of every volume and member, kept in one file in the state
 * directory (PKGSTATEDIR, /var/lib/storpulse; the directory comes in as a dir fd). Saving writes
 * a temp file, fsyncs it, renames it over the old file and fsyncs the directory
 * (write_file_atomic_at()), so a restart, a crash or SIGKILL at any moment finds the old or the
 * new state, never a torn one. A file that does not parse is moved aside to FILE.corrupt (kept
 * for the admin) and reported; the daemon then starts learning afresh. */

#include "analysis/baseline.h"

#define BASELINE_STORE_FILE "baselines.json"

/* Load FILE below dir_fd. Returns 0 with a new set (empty when the file does not exist),
 * -EBADMSG/-EPROTONOSUPPORT when it does not parse (an -EBADMSG file is renamed to FILE.corrupt
 * first; a file of another version is left alone), or another -errno from reading. Stale temp
 * files of interrupted saves are removed. */
int baseline_store_load(int dir_fd, const char *file, BaselineSet **ret);

/* s as the text baseline_store_save() writes (malloc'd), for a writer off the event loop. */
int baseline_store_format(const BaselineSet *s, char **ret);

/* Save s as FILE below dir_fd, atomically and durably. Returns 0 or -errno. */
int baseline_store_save(int dir_fd, const char *file, const BaselineSet *s);

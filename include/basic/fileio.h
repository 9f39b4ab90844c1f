/* SPDX-License-Identifier: MIT */
#pragma once

/* Reading small text files relative to an injected root (a directory fd), as every reader of
 * /sys, /proc and /run must (STYLE: "the world is injected"). Paths are relative to dir_fd; an
 * absolute path ignores dir_fd, so pass AT_FDCWD only at the edge. */

#include <stddef.h>

/* Maximum size read_full_file_at() accepts; larger files give -EFBIG. */
#define READ_FULL_FILE_MAX (4U * 1024U * 1024U)

/* Read the whole file into a NUL-terminated malloc'd buffer. *ret_size excludes the NUL.
 * Returns 0, -ENOENT etc. from openat(), -EFBIG if larger than READ_FULL_FILE_MAX. */
int read_full_file_at(int dir_fd, const char *path, char **ret, size_t *ret_size);

/* Read the first line of a file (sysfs attribute), without the trailing newline/whitespace. */
int read_one_line_at(int dir_fd, const char *path, char **ret);

/* Read the whole content of an already open fd from offset 0 (pread), e.g. a pollable sysfs
 * attribute after POLLPRI. Trailing whitespace is stripped. */
int read_fd_from_start(int fd, char **ret);

/* Write `data` to `path` atomically and durably: a temp file "PATH.tmp.PID" in the same
 * directory, fsync, rename over path, fsync the directory. A crash or SIGKILL at any moment
 * leaves path with either its old or its new content (at worst a stale temp file beside it).
 * An error after the rename (the directory fsync) is returned although path already has the new
 * content. */
int write_file_atomic_at(int dir_fd, const char *path, const void *data, size_t size);

/* Remove "PATH.tmp.*" (the temp files of write_file_atomic_at() calls that were killed between
 * create and rename) in dir_fd. Best effort; PATH must be a plain name. */
void unlink_stale_temps_at(int dir_fd, const char *path);

/* Rename PATH to "PATH.SUFFIX", or "PATH.SUFFIX.N" for the first N that does not exist: a file
 * kept aside is never overwritten. Returns 0 (and the new name, malloc'd, if ret_name) or -errno.
 */
int rename_aside_at(int dir_fd, const char *path, const char *suffix, char **ret_name);

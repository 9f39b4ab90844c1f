/* SPDX-License-Identifier: MIT */
#pragma once

/* The write probe's scratch file: the only file storpulse ever writes to measure a volume.
 * It lives in a directory an administrator named (a mounted filesystem of the volume), as
 * DIR/.storpulse-write-probe, and is created, never adopted: O_CREAT|O_EXCL|O_NOFOLLOW, mode
 * 0600, fallocate()d once to the probe's size plus one marker block at its end that says what
 * the file is. An existing file of that name is used (or replaced, when the size changed) only
 * when it is ours: a regular file (checked on an O_PATH handle before anything opens it for
 * writing, so a device node or FIFO put there is never opened), owned by our uid, with one link
 * (a hard link to another file is refused), ending in the marker. Probe writes stay below the
 * marker. The directory itself must be a directory: a block device named as a write target is
 * refused with -ENOTDIR, and no write path opens a device. tmpfs and ramfs are refused
 * (-EOPNOTSUPP: they would measure memory), as is a filesystem without O_DIRECT or fallocate().
 * A new file is made only when the filesystem keeps PROBE_SCRATCH_MARGIN free afterwards
 * (-ENOSPC otherwise). These calls block on a hung filesystem: they run in the probe helper. */

#include <stdint.h>

#include "basic/macro.h"
#include "probe/probe-target.h"

#define PROBE_SCRATCH_NAME         ".storpulse-write-probe"
#define PROBE_SCRATCH_MARKER_BYTES 4096U
/* Free space a new scratch file must leave: 5% of the filesystem, at least 16 MiB. */
#define PROBE_SCRATCH_MARGIN_MIN   ((uint64_t) 16 << 20)
#define PROBE_SCRATCH_MARGIN_SHARE 20U /* 1/20 = 5% */

/* 0 when a new file of need_bytes fits into avail_bytes (free to us) of a filesystem of fs_bytes
 * and leaves the margin above, else -ENOSPC. Pure. */
int probe_scratch_space_check(uint64_t avail_bytes, uint64_t fs_bytes, uint64_t need_bytes) _const_;

/* Open (creating or replacing as described above) the scratch file in dir for probing
 * size_bytes (a multiple of 4096) with O_DIRECT writes. Returns 0 and a ProbeTarget of kind
 * PROBE_TARGET_SCRATCH whose fd is O_RDWR|O_DIRECT and whose size_bytes is size_bytes (the
 * marker lies beyond it), or -errno: -ENOTDIR (not a directory), -EEXIST (a file of that name
 * that is not ours: left alone), -EXDEV (expect_dev is not 0 and the directory's filesystem is
 * on another device: the figures would not be the volume's), -ENOSPC, -EOPNOTSUPP, -EROFS,
 * -ENOENT, -EACCES. */
int probe_scratch_open(const char *dir, uint64_t size_bytes, uint64_t expect_dev, int sysfs_dirfd,
                       ProbeTarget **ret);

/* Remove dir's scratch file if it is ours. Returns 1 removed, 0 there was none, -EEXIST a file of
 * that name that is not ours (left alone), other -errno. */
int probe_scratch_remove(const char *dir);

/* A short reason for a probe_scratch_open() error. Never NULL. */
const char *probe_scratch_strerror(int error) _const_;

/* SPDX-License-Identifier: MIT */
#pragma once

/* A probe target: a block device or a regular file opened O_RDONLY|O_DIRECT|O_CLOEXEC (never
 * anything else; there is no write path), with its size and the alignment direct I/O needs.
 * Refusals are distinct negative errno values so the edge can name the reason:
 *   -ENOENT      does not exist            -EISDIR      is a directory
 *   -ENOTBLK     is a character device     -ESPIPE      is a FIFO
 *   -ENXIO       is a socket (or no device behind the node)
 *   -ENODATA     smaller than one logical block
 *   -ENOMEDIUM   a block device of size 0 (no medium, or an unbound/detached loop device)
 *   -EACCES/-EPERM  permission denied
 *   -EOPNOTSUPP  the filesystem refuses O_DIRECT, or is memory-backed (tmpfs/ramfs, which
 *                accept O_DIRECT since Linux 6.6 without reaching a disk); cached reads are
 *                never used instead
 * The type is checked with stat() before open(), so a FIFO is never opened (open would block). */

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "basic/macro.h"
#include "basic/string-table.h"

typedef enum ProbeTargetKind {
        PROBE_TARGET_BLOCK,
        PROBE_TARGET_FILE,
        PROBE_TARGET_SCRATCH, /* a write probe's scratch file (probe-scratch.h), opened O_RDWR */
        _PROBE_TARGET_KIND_MAX,
        _PROBE_TARGET_KIND_INVALID = -EINVAL,
} ProbeTargetKind;

DECLARE_STRING_TABLE_LOOKUP(probe_target_kind, ProbeTargetKind);

/* Plain data describing an opened target; copyable (sent through the probe runner's pipe). */
typedef struct ProbeTargetInfo {
        ProbeTargetKind kind;
        uint64_t size_bytes;
        uint32_t logical_block_size; /* offsets and lengths are multiples of this */
        uint32_t mem_align;          /* buffers are aligned to this (a power of two) */
        /* regular files: holes (SEEK_HOLE finds one before the end) read as zeros without
         * touching the disk, so a probe of such a file measures less than the disk */
        bool has_holes;
        uint64_t allocated_bytes; /* st_blocks * 512 (files; block devices: size_bytes) */
} ProbeTargetInfo;

typedef struct ProbeTarget {
        int fd;
        char *path;
        ProbeTargetInfo info;
} ProbeTarget;

/* Check a stat() result: 0 for a block device or regular file, otherwise the refusal above
 * (-EISDIR, -ENOTBLK, -ESPIPE, -ENXIO). Pure. */
int probe_target_check_mode(mode_t mode) _const_;

/* Open `path` read-only with O_DIRECT and describe it. sysfs_dirfd is a directory fd of /sys (or
 * an injected one; used only to find a regular file's backing device block size when statx() has
 * no STATX_DIOALIGN); any negative value, AT_FDCWD included, skips it and falls back to
 * st_blksize. Returns 0 and a new ProbeTarget in *ret, or one
 * of the refusals listed at the top (other -errno from open/ioctl pass through). */
int probe_target_open(const char *path, int sysfs_dirfd, ProbeTarget **ret);

/* Describe an open regular file as probe_target_open() would (kind FILE; refusals as listed at
 * the top, -EOPNOTSUPP for tmpfs). Returns 0 and *ret, or -errno. */
int probe_target_describe_file(int fd, int sysfs_dirfd, ProbeTargetInfo *ret);

/* Closes the fd and frees. Accepts NULL, returns NULL. */
ProbeTarget *probe_target_free(ProbeTarget *t);
DEFINE_TRIVIAL_CLEANUP_FUNC(ProbeTarget *, probe_target_free);

/* A short human reason for a probe_target_open() error ("is a directory", ...). Never NULL. */
const char *probe_target_strerror(int error) _const_;

/* SPDX-License-Identifier: MIT */
/* Opening and describing a probe target. The only open() here is O_RDONLY|O_DIRECT|O_CLOEXEC:
 * there is no write path and no fallback to cached reads (a filesystem that refuses O_DIRECT is
 * a refusal, not a reason to measure the page cache; tmpfs, which accepts O_DIRECT since Linux
 * 6.6 but serves it from memory, is refused the same way). The node's type is checked with stat()
 * first, so a FIFO is never opened (that would block until a writer appears), and re-checked
 * with fstat() on the opened fd, so a path swapped in between is caught. Size comes from
 * BLKGETSIZE64 or st_size; alignment from BLKSSZGET for a block device, and for a regular file
 * from statx(STATX_DIOALIGN), else the backing device's logical block size read through an
 * injected /sys, else st_blksize (always a multiple of the logical block size). Opening a block
 * device node can block on a failing device: callers run this off the main loop (probe-runner). */

#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "basic/string-table.h"
#include "basic/fileio.h"
#include "basic/parse-util.h"
#include "probe/probe-target.h"

static const char *const probe_target_kind_table[_PROBE_TARGET_KIND_MAX] = {
        [PROBE_TARGET_BLOCK] = "block",
        [PROBE_TARGET_FILE] = "file",
        [PROBE_TARGET_SCRATCH] = "scratch",
};

DEFINE_STRING_TABLE_LOOKUP(probe_target_kind, ProbeTargetKind, probe_target_kind_table)

int probe_target_check_mode(mode_t mode) {
        if (S_ISBLK(mode) || S_ISREG(mode))
                return 0;
        if (S_ISDIR(mode))
                return -EISDIR;
        if (S_ISCHR(mode))
                return -ENOTBLK;
        if (S_ISFIFO(mode))
                return -ESPIPE;
        return -ENXIO;
}

const char *probe_target_strerror(int error) {
        switch (error) {
        case -ENOENT:
                return "does not exist";
        case -EISDIR:
                return "is a directory, not a block device or regular file";
        case -ENOTBLK:
                return "is a character device, not a block device or regular file";
        case -ESPIPE:
                return "is a FIFO, not a block device or regular file";
        case -ENXIO:
                return "is a socket or has no device behind it";
        case -ENODATA:
                return "is smaller than one logical block (nothing to read)";
        case -EACCES:
        case -EPERM:
                return "permission denied";
        case -EOPNOTSUPP:
                return "its filesystem refuses direct I/O (O_DIRECT) or serves it from memory "
                       "(tmpfs); cached reads would not measure a disk, so it is not probed";
        case -ENOMEDIUM:
                return "has size 0 (no medium, or a loop device with no backing file)";
        case -ENOTDIR:
                return "a path component is not a directory";
        case -ELOOP:
                return "too many levels of symbolic links";
        default:
                return "cannot be opened for direct reads";
        }
}

static uint32_t pick_pow2_align(uint32_t a) {
        uint32_t p = 512;

        /* Buffers want a power of two; round up (over-alignment is always allowed). */
        while (p < a && p < (1U << 30))
                p <<= 1;
        return p;
}

static int file_backing_lbs(int sysfs_dirfd, dev_t dev, uint32_t *ret) {
        char p[96];
        uint64_t v;
        int r;

        /* Only a real directory fd: AT_FDCWD would read "dev/block/..." relative to whatever
         * directory the caller happens to run in. */
        if (sysfs_dirfd < 0)
                return -EBADF;
        /* A whole disk has queue/ itself, a partition's queue/ is its parent's. */
        for (int i = 0; i < 2; i++) {
                _cleanup_free_ char *s = NULL;

                (void) snprintf(p, sizeof(p), "dev/block/%u:%u/%squeue/logical_block_size",
                                major(dev), minor(dev), i == 0 ? "" : "../");
                r = read_one_line_at(sysfs_dirfd, p, &s);
                if (r == -ENOENT)
                        continue;
                if (r < 0)
                        return r;
                r = safe_atou64(s, &v);
                if (r < 0)
                        return r;
                if (v < 512 || v > (1U << 20))
                        return -ERANGE;
                *ret = (uint32_t) v;
                return 0;
        }
        return -ENOENT;
}

static int describe_file(int fd, const struct stat *st, int sysfs_dirfd, ProbeTargetInfo *info) {
        struct statx sx = {};
        struct statfs sfs;
        uint32_t lbs = 0, mem = 0;

        /* tmpfs accepts O_DIRECT since Linux 6.6 but serves it from memory: refuse it like a
         * filesystem that rejects O_DIRECT, it would not measure a disk. */
        if (fstatfs(fd, &sfs) < 0)
                return negative_errno();
        if (sfs.f_type == TMPFS_MAGIC || sfs.f_type == RAMFS_MAGIC)
                return -EOPNOTSUPP;

        if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) >= 0 &&
            (sx.stx_mask & STATX_DIOALIGN)) {
                if (sx.stx_dio_offset_align == 0)
                        return -EOPNOTSUPP;
                lbs = sx.stx_dio_offset_align;
                mem = sx.stx_dio_mem_align;
        }
        if (lbs == 0 && file_backing_lbs(sysfs_dirfd, st->st_dev, &lbs) < 0)
                lbs = 0;
        if (lbs == 0)
                lbs = (uint32_t) CLAMP(st->st_blksize, 512, 4096);

        info->kind = PROBE_TARGET_FILE;
        info->size_bytes = (uint64_t) st->st_size;
        info->allocated_bytes = (uint64_t) st->st_blocks * 512;
        if (st->st_size > 0) {
                /* The first hole; the end of the file counts as one, so a hole is one before it.
                 * A file system without SEEK_HOLE (EINVAL) reports none. */
                off_t hole = lseek(fd, 0, SEEK_HOLE);

                info->has_holes = hole >= 0 && hole < st->st_size;
                (void) lseek(fd, 0, SEEK_SET);
        }
        info->logical_block_size = lbs;
        info->mem_align = pick_pow2_align(MAX(mem, lbs));
        return 0;
}

static int describe_block(int fd, ProbeTargetInfo *info) {
        uint64_t size;
        int lbs;

        if (ioctl(fd, BLKGETSIZE64, &size) < 0)
                return negative_errno();
        if (ioctl(fd, BLKSSZGET, &lbs) < 0)
                return negative_errno();
        if (lbs < 512 || lbs > (1 << 20))
                return -ERANGE;

        info->kind = PROBE_TARGET_BLOCK;
        info->size_bytes = size;
        info->allocated_bytes = size;
        info->logical_block_size = (uint32_t) lbs;
        info->mem_align = pick_pow2_align((uint32_t) lbs);
        return 0;
}

int probe_target_describe_file(int fd, int sysfs_dirfd, ProbeTargetInfo *ret) {
        ProbeTargetInfo info = {};
        struct stat st;
        int r;

        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (!S_ISREG(st.st_mode))
                return probe_target_check_mode(st.st_mode) ?: -EINVAL;
        r = describe_file(fd, &st, sysfs_dirfd, &info);
        if (r < 0)
                return r;
        *ret = info;
        return 0;
}

int probe_target_open(const char *path, int sysfs_dirfd, ProbeTarget **ret) {
        _cleanup_(probe_target_freep) ProbeTarget *t = NULL;
        struct stat st, st2;
        int r;

        if (!path || !ret)
                return -EINVAL;
        if (stat(path, &st) < 0)
                return negative_errno();
        r = probe_target_check_mode(st.st_mode);
        if (r < 0)
                return r;

        t = calloc(1, sizeof(*t));
        if (!t)
                return -ENOMEM;
        t->fd = -EBADF;
        t->path = strdup(path);
        if (!t->path)
                return -ENOMEM;

        t->fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
        if (t->fd < 0) {
                r = negative_errno();
                /* open(O_DIRECT) on a filesystem without direct I/O (tmpfs) fails with EINVAL. */
                return r == -EINVAL ? -EOPNOTSUPP : r;
        }
        if (fstat(t->fd, &st2) < 0)
                return negative_errno();
        r = probe_target_check_mode(st2.st_mode);
        if (r < 0)
                return r;

        if (S_ISBLK(st2.st_mode))
                r = describe_block(t->fd, &t->info);
        else
                r = describe_file(t->fd, &st2, sysfs_dirfd, &t->info);
        if (r < 0)
                return r;
        if (t->info.kind == PROBE_TARGET_BLOCK && t->info.size_bytes == 0)
                return -ENOMEDIUM; /* no medium, or a loop device with nothing bound */
        if (t->info.size_bytes < t->info.logical_block_size)
                return -ENODATA;

        *ret = TAKE_PTR(t);
        return 0;
}

ProbeTarget *probe_target_free(ProbeTarget *t) {
        if (!t)
                return NULL;
        t->fd = safe_close(t->fd);
        free(t->path);
        free(t);
        return NULL;
}

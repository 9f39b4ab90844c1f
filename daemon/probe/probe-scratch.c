/* SPDX-License-Identifier: MIT */
/* The write probe's scratch file (see probe-scratch.h for what is refused and why). The file is
 * recognised by a marker block after the probed range, written once at creation with buffered
 * I/O and read back with buffered I/O before O_DIRECT is switched on (fcntl F_SETFL), so the
 * marker needs no aligned buffer and the probe's writes, which stay below size_bytes, never
 * touch it. An existing name is looked at through an O_PATH handle first: fstat() on it says
 * what the name is without opening it, and only a regular file is then reopened for writing
 * through /proc/self/fd (the same inode, no second path lookup that could be raced). */

#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "probe/probe-scratch.h"
#include "probe/probe.h"

#define MARKER_TEXT                                                                                \
        "storpulse write probe scratch file: storpulse writes here to measure this filesystem's "  \
        "volume; safe to delete\n"

int probe_scratch_space_check(uint64_t avail_bytes, uint64_t fs_bytes, uint64_t need_bytes) {
        uint64_t margin = MAX(fs_bytes / PROBE_SCRATCH_MARGIN_SHARE, PROBE_SCRATCH_MARGIN_MIN);

        if (need_bytes > avail_bytes || avail_bytes - need_bytes < margin)
                return -ENOSPC;
        return 0;
}

const char *probe_scratch_strerror(int error) {
        switch (error) {
        case -ENOTDIR:
                return "is not a directory: a write probe writes only into a file it creates in a "
                       "directory of a mounted filesystem, never to a device";
        case -EEXIST:
                return "holds a file named " PROBE_SCRATCH_NAME " that storpulse did not create "
                       "(not a regular file of ours with its marker): left alone, not probed";
        case -ENOSPC:
                return "its filesystem has too little free space for the scratch file (it must "
                       "keep 5% and at least 16 MiB free)";
        case -EOPNOTSUPP:
                return "its filesystem is memory-backed (tmpfs) or refuses direct I/O or "
                       "preallocation";
        case -EROFS:
                return "its filesystem is read-only (under storpulsed.service: add the directory "
                       "to ReadWritePaths= in a drop-in)";
        case -EXDEV:
                return "is not on the volume it was mapped to (the mount table changed)";
        case -ENOENT:
                return "does not exist";
        case -EACCES:
        case -EPERM:
                return "permission denied";
        default:
                return "cannot hold a write probe's scratch file";
        }
}

/* The marker block: the text, then zeros. */
static void marker_fill(char buf[static PROBE_SCRATCH_MARKER_BYTES]) {
        memset(buf, 0, PROBE_SCRATCH_MARKER_BYTES);
        memcpy(buf, MARKER_TEXT, sizeof(MARKER_TEXT) - 1);
}

/* fd (opened without O_DIRECT) is ours: a regular file of our uid with one link, a whole number
 * of pages before the marker, the marker at its end. Returns 0 and the probed size, or -EEXIST. */
static int scratch_check_ours(int fd, uint64_t *ret_size) {
        char want[PROBE_SCRATCH_MARKER_BYTES], have[PROBE_SCRATCH_MARKER_BYTES];
        struct stat st;
        uint64_t size;

        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || st.st_nlink != 1 ||
            st.st_size < (off_t) PROBE_SCRATCH_MARKER_BYTES)
                return -EEXIST;
        size = (uint64_t) st.st_size - PROBE_SCRATCH_MARKER_BYTES;
        if (size % 4096 != 0)
                return -EEXIST;
        if (pread(fd, have, sizeof(have), (off_t) size) != (ssize_t) sizeof(have))
                return -EEXIST;
        marker_fill(want);
        if (memcmp(want, have, sizeof(want)) != 0)
                return -EEXIST;
        *ret_size = size;
        return 0;
}

/* Open an existing DIR/NAME for reading and writing only when it is a regular file: -ENOENT
 * when there is none, -EEXIST when it is anything else (symlink, device, FIFO, directory). */
static int scratch_open_existing(int dfd, int flags) {
        _cleanup_close_ int pfd = -EBADF;
        char proc[64];
        struct stat st;
        int fd;

        pfd = openat(dfd, PROBE_SCRATCH_NAME, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        if (pfd < 0)
                return negative_errno();
        if (fstat(pfd, &st) < 0)
                return negative_errno();
        if (!S_ISREG(st.st_mode))
                return -EEXIST;
        (void) snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
        fd = open(proc, flags | O_CLOEXEC); /* a magic link: followed to the same inode */
        if (fd < 0)
                return errno == ENOENT ? -EOPNOTSUPP : negative_errno(); /* no /proc */
        return fd;
}

static int scratch_create(int dfd, uint64_t size_bytes) {
        _cleanup_close_ int fd = -EBADF;
        char marker[PROBE_SCRATCH_MARKER_BYTES];
        uint64_t total = size_bytes + PROBE_SCRATCH_MARKER_BYTES;
        struct statvfs sv;
        int r;

        fd = openat(dfd, PROBE_SCRATCH_NAME,
                    O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600);
        if (fd < 0)
                return negative_errno();
        if (fstatvfs(fd, &sv) < 0)
                r = negative_errno();
        else
                r = probe_scratch_space_check((uint64_t) sv.f_bavail * sv.f_frsize,
                                              (uint64_t) sv.f_blocks * sv.f_frsize, total);
        if (r >= 0 && fallocate(fd, 0, 0, (off_t) total) < 0)
                r = errno == EOPNOTSUPP ? -EOPNOTSUPP : negative_errno();
        marker_fill(marker);
        if (r >= 0 && pwrite(fd, marker, sizeof(marker), (off_t) size_bytes) != sizeof(marker))
                r = -EIO;
        if (r >= 0 && fdatasync(fd) < 0)
                r = negative_errno();
        if (r < 0) {
                (void) unlinkat(dfd, PROBE_SCRATCH_NAME, 0);
                return r;
        }
        return TAKE_FD(fd);
}

/* Ours and of the right size: reuse; ours of another size: replace; absent: create. */
static int scratch_get(int dfd, uint64_t size_bytes) {
        _cleanup_close_ int fd = -EBADF;
        uint64_t have;
        int r;

        fd = scratch_open_existing(dfd, O_RDWR | O_NONBLOCK);
        if (fd == -ENOENT)
                return scratch_create(dfd, size_bytes);
        if (fd < 0)
                return fd;
        r = scratch_check_ours(fd, &have);
        if (r < 0)
                return r;
        if (have == size_bytes)
                return TAKE_FD(fd);
        fd = safe_close(fd);
        if (unlinkat(dfd, PROBE_SCRATCH_NAME, 0) < 0)
                return negative_errno();
        return scratch_create(dfd, size_bytes);
}

int probe_scratch_open(const char *dir, uint64_t size_bytes, uint64_t expect_dev, int sysfs_dirfd,
                       ProbeTarget **ret) {
        _cleanup_(probe_target_freep) ProbeTarget *t = NULL;
        _cleanup_close_ int dfd = -EBADF;
        struct statfs sfs;
        struct stat st;
        int r;

        if (!dir || !ret || size_bytes < PROBE_WRITE_FILE_MIN ||
            size_bytes > PROBE_WRITE_FILE_MAX || size_bytes % 4096 != 0)
                return -EINVAL;
        /* O_DIRECTORY: a block device, FIFO or file named here fails with ENOTDIR, unopened. */
        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return negative_errno();
        if (fstatfs(dfd, &sfs) < 0)
                return negative_errno();
        if (sfs.f_type == TMPFS_MAGIC || sfs.f_type == RAMFS_MAGIC)
                return -EOPNOTSUPP;
        if (fstat(dfd, &st) < 0)
                return negative_errno();
        if (expect_dev != 0 && (uint64_t) st.st_dev != expect_dev)
                return -EXDEV;

        t = calloc(1, sizeof(*t));
        if (!t)
                return -ENOMEM;
        t->fd = -EBADF;
        if (asprintf(&t->path, "%s/%s", dir, PROBE_SCRATCH_NAME) < 0) {
                t->path = NULL;
                return -ENOMEM;
        }
        t->fd = scratch_get(dfd, size_bytes);
        if (t->fd < 0)
                return t->fd;
        /* O_DIRECT now (and O_NONBLOCK off): the filesystem may refuse it (EINVAL). */
        if (fcntl(t->fd, F_SETFL, O_DIRECT) < 0)
                return errno == EINVAL ? -EOPNOTSUPP : negative_errno();
        r = probe_target_describe_file(t->fd, sysfs_dirfd, &t->info);
        if (r < 0)
                return r;
        t->info.kind = PROBE_TARGET_SCRATCH;
        t->info.size_bytes = size_bytes;
        t->info.has_holes = false; /* fallocate()d: unwritten extents, never holes */
        *ret = TAKE_PTR(t);
        return 0;
}

int probe_scratch_remove(const char *dir) {
        _cleanup_close_ int dfd = -EBADF, fd = -EBADF;
        uint64_t size;
        int r;

        if (!dir)
                return -EINVAL;
        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return negative_errno();
        fd = scratch_open_existing(dfd, O_RDONLY | O_NONBLOCK);
        if (fd == -ENOENT)
                return 0;
        if (fd < 0)
                return fd;
        r = scratch_check_ours(fd, &size);
        if (r < 0)
                return r;
        if (unlinkat(dfd, PROBE_SCRATCH_NAME, 0) < 0)
                return negative_errno();
        return 1;
}

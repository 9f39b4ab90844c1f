/* SPDX-License-Identifier: MIT */
#pragma once

/* Small file helpers the unit tests share. */

#include <errno.h>
#include <fcntl.h>
#include <sys/types.h>
#include <unistd.h>

#include "basic/macro.h"

/* Write `size` bytes of /dev/urandom to path (created or truncated with `mode`), fsync'ed.
 * 0 or -errno. */
static inline int write_random_file(const char *path, size_t size, mode_t mode) {
        _cleanup_close_ int fd = -EBADF, rnd = -EBADF;
        char buf[65536];

        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
        rnd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
        if (fd < 0 || rnd < 0)
                return -errno;
        while (size > 0) {
                size_t n = MIN(size, sizeof(buf));

                if (read(rnd, buf, n) != (ssize_t) n || write(fd, buf, n) != (ssize_t) n)
                        return -EIO;
                size -= n;
        }
        return fsync(fd) < 0 ? -errno : 0;
}

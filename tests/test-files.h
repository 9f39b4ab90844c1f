/* SPDX-License-Identifier: MIT */
#pragma once

/* Small file helpers the unit tests share. */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
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

/* Write `text` to dir/rel. 0 or -errno. */
static inline int write_text(const char *dir, const char *rel, const char *text) {
        char p[4096];
        FILE *f;

        (void) snprintf(p, sizeof(p), "%s/%s", dir, rel);
        f = fopen(p, "we");
        if (!f)
                return -errno;
        fputs(text, f);
        return fclose(f) == 0 ? 0 : -errno;
}

/* A copy of fixture tree `scenario` (from $STORPULSE_FIXTURES) in a new directory dir (64 bytes),
 * plus an unbound loop device loop0 (size 0): what every machine has a dozen of. 0 or -errno. */
static inline int fixture_copy_with_unbound_loop(const char *scenario, char dir[static 64]) {
        const char *fx = getenv("STORPULSE_FIXTURES");
        char cmd[512];

        (void) snprintf(dir, 64, "/tmp/test-fixture-tree-XXXXXX");
        if (!mkdtemp(dir))
                return -errno;
        (void) snprintf(cmd, sizeof(cmd),
                        "cp -a '%s/%s/.' '%s/' && "
                        "mkdir -p '%s/sys/devices/virtual/block/loop0/queue' && "
                        "ln -s ../../devices/virtual/block/loop0 '%s/sys/class/block/loop0'",
                        fx ? fx : "tests/fixtures", scenario, dir, dir, dir);
        if (system(cmd) != 0)
                return -EIO;
        if (write_text(dir, "sys/devices/virtual/block/loop0/dev", "7:0\n") < 0 ||
            write_text(dir, "sys/devices/virtual/block/loop0/size", "0\n") < 0 ||
            write_text(dir, "sys/devices/virtual/block/loop0/ro", "0\n") < 0)
                return -EIO;
        return 0;
}

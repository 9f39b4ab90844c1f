/* SPDX-License-Identifier: MIT */
/* vm-loop-churn FILE COUNT: attaches FILE (read-only) to a free loop device and detaches it
 * again, COUNT times, for the VM test bed's soak (scenario soak-churn, bench/robustness/soak).
 * losetup costs two processes per cycle, which under TCG on a loaded host is a second or more;
 * this does a cycle with four ioctls, so the churn around storpulsed is the kernel's and udev's
 * pace, not fork's. A device taken by someone else between LOOP_CTL_GET_FREE and LOOP_SET_FD
 * (EBUSY) is retried with the next free one. A detach while udev still holds the device is
 * deferred by the kernel (autoclear), as losetup -d's is. Prints "CYCLES FAILED" on stdout;
 * exit status 0 when at least one cycle succeeded. */

#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "basic/parse-util.h"

/* one attach and detach of fd_file; 0 or -errno */
static int cycle(int ctl, int fd_file) {
        char path[64];
        int n, d, r = 0;

        for (int tries = 0; tries < 10; tries++) {
                n = ioctl(ctl, LOOP_CTL_GET_FREE);
                if (n < 0)
                        return -errno;
                snprintf(path, sizeof(path), "/dev/loop%d", n);
                d = open(path, O_RDONLY | O_CLOEXEC);
                if (d < 0)
                        return -errno;
                if (ioctl(d, LOOP_SET_FD, fd_file) == 0) {
                        if (ioctl(d, LOOP_CLR_FD) < 0)
                                r = -errno;
                        close(d);
                        return r;
                }
                r = -errno;
                close(d);
                if (r != -EBUSY)
                        return r;
        }
        return r;
}

int main(int argc, char **argv) {
        unsigned count, ok = 0, failed = 0;
        int ctl, fd_file, r;

        if (argc != 3 || safe_atou(argv[2], &count) < 0) {
                fprintf(stderr, "usage: vm-loop-churn FILE COUNT\n");
                return 2;
        }
        ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
        if (ctl < 0) {
                fprintf(stderr, "vm-loop-churn: /dev/loop-control: %s\n", strerror(errno));
                return 1;
        }
        fd_file = open(argv[1], O_RDONLY | O_CLOEXEC);
        if (fd_file < 0) {
                fprintf(stderr, "vm-loop-churn: %s: %s\n", argv[1], strerror(errno));
                return 1;
        }
        for (unsigned i = 0; i < count; i++) {
                r = cycle(ctl, fd_file);
                if (r < 0) {
                        failed++;
                        fprintf(stderr, "vm-loop-churn: cycle %u: %s\n", i, strerror(-r));
                } else
                        ok++;
        }
        printf("%u %u\n", ok, failed);
        close(fd_file);
        close(ctl);
        return ok > 0 ? 0 : 1;
}

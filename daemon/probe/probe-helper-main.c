/* SPDX-License-Identifier: MIT */
/* storpulse-probe: the probe helper the probe runner execs (installed in libexecdir). A fresh
 * process, so a probe carries nothing of the multi-threaded daemon that asked for it; the whole
 * protocol is in probe-runner.c. Not in the library, like ctl-main.c. */

#include <fcntl.h>

#include "probe/probe-runner.h"

int main(int argc, char *argv[]) {
        /* The host's sysfs, for the huge page policy (the one hard-coded path: this is main). */
        int sysfs = open("/sys", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        return probe_runner_helper_main(argc, argv, sysfs >= 0 ? sysfs : -EBADF);
}

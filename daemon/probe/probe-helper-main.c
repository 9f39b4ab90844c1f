/* SPDX-License-Identifier: MIT */
/* storpulse-probe: the probe helper the probe runner execs (installed in libexecdir). A fresh
 * process, so a probe carries nothing of the multi-threaded daemon that asked for it; the whole
 * protocol is in probe-runner.c. Not in the library, like ctl-main.c. */

#include "probe/probe-runner.h"

int main(int argc, char *argv[]) {
        return probe_runner_helper_main(argc, argv);
}

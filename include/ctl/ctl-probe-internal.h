/* SPDX-License-Identifier: MIT */
#pragma once

/* `storpulsectl probe` inside: the options (ctl-probe-options.c) and the run and its output
 * (ctl-probe.c) share the command's state. */

#include <stdbool.h>
#include <stddef.h>

#include "basic/process.h"
#include "probe/probe.h"

typedef struct ProbeCli {
        ProbeParams params;
        bool json;
        bool progress;
        bool header_printed;
        bool timeout_set; /* --timeout given (else the default, which depends on the others) */
        size_t target_width;
        const char *current;
        ProcessReaper *reaper;
        int sysfs_fd; /* /sys, for a regular file's backing device block size; -EBADF if none */
} ProbeCli;

/* Parses the options into cli->params (and --json, --no-progress, --verbose): 1 to go on with
 * the targets at argv[optind..], 0 after --help, -EINVAL for a usage error (logged). */
int ctl_probe_parse_argv(int argc, char **argv, ProbeCli *cli);

/* SPDX-License-Identifier: MIT */
/* storpulsectl: the command line. Only dispatches to verbs implemented in the library (ctl-*.c),
 * so tests can drive every verb in-process. */

#include <stdio.h>
#include <string.h>

#include "config.h"
#include "ctl/ctl.h"
#include "basic/macro.h"

static const struct {
        const char *name;
        int (*main)(int argc, char **argv);
        const char *help;
} verbs[] = {
        { "help", NULL, "show this help" },
        /* { "name", ctl_NAME_main, "help" }, one line per verb, in ctl.h order */
        { "volumes", ctl_volumes_main, "show md/LVM/controller volumes, disks and their health" },
        { "probe", ctl_probe_main, "one-shot read-only probe of block devices or files" },
        { "watch", ctl_watch_main, "follow md arrays and print rebuild events as they happen" },
        { "status", ctl_status_main, "ask the running storpulsed for its state and events" },
};

static int help(FILE *f) {
        fprintf(f, "Usage: storpulsectl [--version] VERB [OPTIONS...] [ARGS...]\n\n"
                   "Storage health and performance monitor, command line.\n\nVerbs:\n");
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                fprintf(f, "  %-10s %s\n", verbs[i].name, verbs[i].help);
        fprintf(f, "\nRun 'storpulsectl VERB --help' for a verb's options.\n");
        return 0;
}

int main(int argc, char **argv) {
        int routed;

        if (argc < 2) {
                help(stderr);
                return 1;
        }
        if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
            strcmp(argv[1], "help") == 0)
                return help(stdout);
        if (strcmp(argv[1], "--version") == 0) {
                printf("storpulsectl %s\n", PACKAGE_VERSION);
                return 0;
        }
        routed = ctl_daemon_route(argc - 1, argv + 1); /* probe --profile, volumes --daemon */
        if (routed >= 0)
                return routed;
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                if (verbs[i].main && strcmp(argv[1], verbs[i].name) == 0)
                        return verbs[i].main(argc - 1, argv + 1);

        fprintf(stderr, "storpulsectl: unknown verb '%s'; see 'storpulsectl --help'.\n", argv[1]);
        return 1;
}

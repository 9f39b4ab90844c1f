/* SPDX-License-Identifier: MIT */
/* storpulsectl: the command line. Only dispatches to verbs implemented in the library (ctl-*.c),
 * so tests can drive every verb in-process. */

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "ctl/ctl.h"
#include "ctl/ctl-util.h"
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
        { "report", ctl_report_main, "performance now vs the learned baseline, per volume" },
        { "baseline", ctl_baseline_main, "baseline reset VOLUME: forget what was learned" },
        { "history", ctl_history_main, "the daemon's recent probe runs per volume" },
};

static int help(FILE *f) {
        fprintf(f, "Usage: storpulsectl [--version] [--verbose] VERB [OPTIONS...] [ARGS...]\n"
                   "       storpulsectl help [VERB]\n\n"
                   "Storage health and performance monitor, command line.\n\nVerbs:\n");
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                fprintf(f, "  %-10s %s\n", verbs[i].name, verbs[i].help);
        fprintf(f,
                "\nRun 'storpulsectl help VERB' or 'storpulsectl VERB --help' for a verb's "
                "options.\n"
                "--verbose (before or after the verb) shows debug lines on stderr.\n"
                "Sizes and rates are in IEC units (KiB, MiB, GiB; MiB/s).\n"
                "Exit status %d, for every verb: the output could not be written (disk full,\n"
                "closed pipe).\n",
                CTL_EXIT_OUTPUT);
        return 0;
}

static int run_verb(const char *name, int argc, char **argv) {
        /* getopt prints argv[0] in its messages: make those "storpulsectl VERB: ..." too. argv[0]
         * is the caller's argv[1], read again by ctl_finish_stdout() after this returns: the name
         * must outlive this frame. */
        static char prog[64];
        int routed;

        ctl_setup_log(name); /* "storpulsectl VERB: ..." for the daemon verbs too */
        routed = ctl_daemon_route(argc, argv); /* probe --profile, volumes --daemon */
        if (routed >= 0)
                return routed;
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                if (verbs[i].main && strcmp(name, verbs[i].name) == 0) {
                        (void) snprintf(prog, sizeof(prog), "storpulsectl %s", verbs[i].name);
                        argv[0] = prog;
                        return verbs[i].main(argc, argv);
                }
        fprintf(stderr, "storpulsectl: unknown verb '%s'; see 'storpulsectl --help'.\n", name);
        return 1;
}

int main(int argc, char **argv) {
        const char *verb;
        bool verbose = false;
        int code;

        ctl_setup_log(NULL);
        while (argc > 1 && (strcmp(argv[1], "--verbose") == 0 || strcmp(argv[1], "-v") == 0)) {
                verbose = true;
                argv++;
                argc--;
        }
        if (argc < 2) {
                help(stderr);
                return 1;
        }
        if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
            (strcmp(argv[1], "help") == 0 && argc == 2))
                return ctl_finish_stdout(NULL, help(stdout));
        if (strcmp(argv[1], "--version") == 0) {
                printf("storpulsectl %s\n", PACKAGE_VERSION);
                return ctl_finish_stdout(NULL, 0);
        }
        if (strcmp(argv[1], "help") == 0 && strcmp(argv[2], "help") == 0)
                return ctl_finish_stdout(NULL, help(stdout));
        if (strcmp(argv[1], "help") == 0) {
                /* help VERB: the verb's own --help */
                char *hargv[] = { argv[2], (char *) "--help", NULL };

                return ctl_finish_stdout(argv[2], run_verb(argv[2], 2, hargv));
        }
        if (verbose)
                ctl_set_verbose(true); /* every verb's own --verbose does the same */
        verb = argv[1]; /* run_verb() points argv[1] at "storpulsectl VERB" for getopt */
        code = run_verb(verb, argc - 1, argv + 1);
        return ctl_finish_stdout(verb, code);
}

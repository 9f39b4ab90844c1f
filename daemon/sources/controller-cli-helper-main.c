/* SPDX-License-Identifier: MIT */
/* storpulse-controller-cli: runs one vendor RAID CLI command for storpulsed (installed in
 * libexecdir). Started by systemd for each connection to storpulse-controller-cli.socket
 * (Accept=yes), the connection on stdin and stdout: reads the request, runs it if it is one the
 * daemon issues, answers, exits (sources/controller-cli-remote.h). Its unit, not this program,
 * gives it the controllers' device nodes. Not in the library, like the other main files. */

#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/log.h"
#include "basic/parse-util.h"
#include "config.h"
#include "sources/controller-cli-remote.h"
#include "sources/controller-cli-run.h"

static int help(void) {
        printf("Usage: storpulse-controller-cli [--timeout SEC]\n\n"
               "Run one vendor RAID CLI command (storcli, ssacli, arcconf) that storpulsed asks\n"
               "for on stdin and answer on stdout; started by storpulse-controller-cli.socket.\n"
               "Only the read-only queries storpulsed issues are run.\n\n"
               "  -h --help       show this help\n"
               "     --version    show the version\n"
               "     --timeout SEC  kill the CLI after SEC (a duration: 10, 30s; default 10s)\n");
        return 0;
}

int main(int argc, char **argv) {
        enum { ARG_VERSION = 0x100, ARG_TIMEOUT };
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                { "timeout", required_argument, NULL, ARG_TIMEOUT },
                {},
        };
        _cleanup_free_ char *line = NULL;
        usec_t timeout = 10 * USEC_PER_SEC;
        int opt, r, status;

        log_set_prefix("storpulse-controller-cli");
        while ((opt = getopt_long(argc, argv, "h", options, NULL)) >= 0)
                switch (opt) {
                case 'h':
                        return help();
                case ARG_VERSION:
                        printf("storpulse-controller-cli %s\n", PACKAGE_VERSION);
                        return 0;
                case ARG_TIMEOUT:
                        if (parse_sec(optarg, &timeout) < 0 || timeout == 0) {
                                log_error("--timeout: '%s' is not a duration above 0.", optarg);
                                return 1;
                        }
                        break;
                default:
                        return 1;
                }
        if (optind < argc) {
                log_error("storpulse-controller-cli takes no arguments; see --help.");
                return 1;
        }
        /* the daemon may give up and close the connection: the answer's write fails, no signal */
        (void) signal(SIGPIPE, SIG_IGN);

        r = controller_cli_serve(STDIN_FILENO, STDOUT_FILENO, CONTROLLER_CLI_PATH, timeout, &status,
                                 &line);
        if (r < 0) {
                log_error_errno(r, "Failed to serve a request: %m");
                return 1;
        }
        if (status == -EBADMSG || status == -EOPNOTSUPP || status == -EPERM)
                log_warning_errno(status, "Refused a request (%zu bytes): %m", strlen(line));
        else if (status < 0 && status != -ENOENT)
                log_warning_errno(status, "'%s' failed: %m", line);
        else
                log_debug("'%s': %s", line, status < 0 ? "no such CLI installed" : "ok");
        return 0;
}

/* SPDX-License-Identifier: MIT */
#pragma once

/* The wire format between storpulsed and storpulse-controller-cli, the helper that runs a vendor
 * RAID CLI in its own systemd unit (storpulse-controller-cli@.service, started per connection by
 * storpulse-controller-cli.socket): the daemon's sandbox cannot reach the controllers' device
 * nodes, the helper's can (docs/ARCHITECTURE.md, "Vendor CLIs in their own unit").
 *
 * One connection is one command. The request is one line: the CLI by name, then its arguments,
 * single spaces between, "\n" at the end ("storcli /call/vall show all J\n"). Only the commands
 * the runner issues are allowed (controller_cli_command_allowed()): the helper runs no other, so a
 * client cannot make it run anything else. The helper finds the binary itself. The response is
 * a header line "STATUS SIZE\n" (STATUS 0, or the runner's negative errno: -2 no CLI installed,
 * -62 timed out, -71 the CLI failed, -1 a command not allowed), then exactly SIZE bytes of the
 * CLI's stdout (0 when STATUS < 0). Pure: no I/O here. */

#include <stdbool.h>
#include <stddef.h>

#include "model/controller.h"

#define CONTROLLER_CLI_REQUEST_MAX 256 /* bytes, "\n" included */
#define CONTROLLER_CLI_ARGS_MAX    8
#define CONTROLLER_CLI_HEADER_MAX  32 /* bytes, "\n" included */

typedef struct ControllerCliRequest {
        ControllerCli cli;
        char *args[CONTROLLER_CLI_ARGS_MAX + 1]; /* NULL-terminated, argv[1...] of the CLI */
        size_t n_args;
} ControllerCliRequest;

/* Free the arguments and reset. Accepts an empty request. */
void controller_cli_request_done(ControllerCliRequest *req);
static inline void controller_cli_request_donep(ControllerCliRequest *req) {
        controller_cli_request_done(req);
}

/* True if `args` (NULL-terminated, the CLI's argv without argv[0]) is a command the runner
 * issues for `cli`: storcli `/call/vall show all J` and `/cN[/eN]/sN show rebuild J`, ssacli
 * `ctrl all show config detail`, arcconf `GETCONFIG 1 LD` and `GETSTATUS 1`. */
bool controller_cli_command_allowed(ControllerCli cli, char *const args[]);

/* The request line for `cli` and `args`. Returns 0 with a malloc'd line in *ret, -EPERM for a
 * command that is not allowed (the helper would refuse it), -EINVAL, -ENOMEM. */
int controller_cli_request_format(ControllerCli cli, char *const args[], char **ret);

/* Parse a request line: `text` holds `size` bytes, the line and its "\n" (nothing after it).
 * Returns 0 with *ret filled, -EBADMSG for anything but one well-formed line, -EOPNOTSUPP for a
 * CLI we cannot read, -EPERM for a command that is not allowed, -ENOMEM. */
int controller_cli_request_parse(const char *text, size_t size, ControllerCliRequest *ret);

/* Parse a whole response (`size` bytes). Returns 0 with the status (0 or a negative errno) in
 * *ret_status and the body (pointing into `text`) in *ret_body / *ret_body_size, or -EBADMSG
 * when the header is malformed, the body is not exactly the announced size (a truncated or
 * overlong answer) or a failure carries a body. */
int controller_cli_response_parse(const char *text, size_t size, int *ret_status,
                                  const char **ret_body, size_t *ret_body_size);

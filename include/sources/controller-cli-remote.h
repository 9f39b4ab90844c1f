/* SPDX-License-Identifier: MIT */
#pragma once

/* Vendor CLI commands run by the helper storpulse-controller-cli in a systemd unit of its own
 * (storpulse-controller-cli@.service, one instance per connection to
 * storpulse-controller-cli.socket), whose sandbox reaches the controllers' device nodes; the
 * daemon's does not. Both ends of one command: the client (the daemon's CLI worker) connects,
 * sends the request and reads the answer with a deadline; the helper reads the request, checks it
 * against the allow-list, runs the CLI through controller_cli_run() and answers. Wire format in
 * model/controller-cli-protocol.h. Blocking I/O, bounded: worker or helper context only. */

#include "basic/time-util.h"
#include "model/controller.h"

/* How much longer than the CLI's own timeout the client waits for the helper's answer: systemd
 * starting the instance, the helper finding the CLI and killing it at its timeout. */
#define CONTROLLER_CLI_REMOTE_SLACK_USEC (5 * USEC_PER_SEC)

/* Ask the helper behind the AF_UNIX stream socket `socket_path` to run `cli` with `args`
 * (NULL-terminated, without argv[0]). Returns 0 with the CLI's stdout (NUL-terminated, up to
 * `max_output` bytes) in *ret and its size in *ret_size, or: -EPERM for a command the protocol
 * does not allow, -ECONNREFUSED when the socket cannot be connected to (no helper: its socket
 * unit is not running), -ETIME when no complete answer came within timeout_usec +
 * CONTROLLER_CLI_REMOTE_SLACK_USEC, -EBADMSG for an answer that is not the protocol, -EFBIG, or
 * the helper's status (-ENOENT no CLI installed, -ETIME, -EPROTO, ... as controller_cli_run()). */
int controller_cli_remote_run(const char *socket_path, ControllerCli cli, char *const args[],
                              usec_t timeout_usec, size_t max_output, char **ret, size_t *ret_size);

/* The helper's side of one connection: read the request from in_fd (until EOF, at most 5 s),
 * run it (the CLI found on `path_env`, killed after timeout_usec) and write the answer to out_fd.
 * Returns 0 once an answer was written, with its status (0 or the negative errno sent) in
 * *ret_status and the request line (for the log; NULL if none was read) in *ret_line; or -errno
 * when no request could be read or the answer not written. */
int controller_cli_serve(int in_fd, int out_fd, const char *path_env, usec_t timeout_usec,
                         int *ret_status, char **ret_line);

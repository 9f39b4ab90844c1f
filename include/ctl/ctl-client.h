/* SPDX-License-Identifier: MIT */
#pragma once

/* The storpulsectl side of the control socket (manager/control-protocol.h) for the verbs that
 * ask one question and read one answer (report, baseline, history; status and volumes --daemon
 * through ctl-daemon.c's streaming connection). Errors are logged here, once, in the words an
 * admin acts on: "is it running?" only when nothing listens (ENOENT, ECONNREFUSED), the access
 * rule when the socket refuses us (EACCES, EPERM). */

#include <json-c/json.h>

#include "basic/time-util.h"

/* Exit status of the daemon verbs: no daemon, refused, no answer. */
#define CTL_EXIT_DAEMON 2

/* opt, else $STORPULSE_SOCKET, else /run/storpulse/control. */
const char *ctl_socket_path(const char *opt);

/* Log the failed connect() to path (r = -errno) with what to do about it; hint (may be NULL) is
 * added to the "is it running?" case. */
void ctl_log_connect_error(int r, const char *path, const char *hint);

/* {"command": COMMAND, "volumes": [names...]} ("volumes" only for n > 0) to the daemon at
 * ctl_socket_path(sock); waits up to timeout for the final "reply" line (other lines skipped).
 * Returns 0 and the reply (ok true), or CTL_EXIT_DAEMON after logging why (no daemon, no
 * answer, "storpulsed refused: ERROR"). */
int ctl_request(const char *sock, const char *command, char *const *names, int n, usec_t timeout,
                const char *hint, json_object **ret_reply);

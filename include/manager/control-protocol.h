/* SPDX-License-Identifier: MIT */
#pragma once

/* The control socket's protocol (storpulsed <-> storpulsectl, storpulse-probe@.service): line-
 * delimited JSON over an AF_UNIX stream socket. A request is one JSON object on one line:
 *   {"command":"status"}
 *   {"command":"volumes"}
 *   {"command":"probe","profile":"quick","volumes":["md0"],"wait":true}
 *   {"command":"reload"}
 *   {"command":"baseline-reset","volumes":["md0"]}   forget a volume's learned baseline
 *   {"command":"report"} / {"command":"report","volumes":["md0"]}   now vs baseline
 *   {"command":"history"} / {"command":"history","volumes":["md0"]}  recent runs, as the
 *                                      HTTP API's /api/v1/history (in the reply's "history")
 * Every reply line is an object with "type": "progress" / "volume" (probe streams, while it
 * runs) and finally "reply" with "ok": true or false (+ "error"). Lines longer than
 * CONTROL_LINE_MAX, malformed JSON, unknown commands or keys, wrong types are refused with an
 * error reply and the connection is closed. This module only parses; it does no I/O. */

#include <stdbool.h>
#include <stddef.h>

#include "basic/macro.h"
#include "basic/string-table.h"

#define CONTROL_LINE_MAX    4096 /* bytes of one request line, '\n' excluded */
#define CONTROL_VOLUMES_MAX 256  /* names in one probe request */
#define CONTROL_NAME_MAX    64   /* bytes of one volume or profile name */
#define CONTROL_SOCKET_NAME "control"

typedef enum ControlCommand {
        CONTROL_STATUS,
        CONTROL_VOLUMES,
        CONTROL_PROBE,
        CONTROL_RELOAD,
        CONTROL_BASELINE_RESET,
        CONTROL_REPORT,
        CONTROL_HISTORY,
        _CONTROL_COMMAND_MAX,
        _CONTROL_COMMAND_INVALID = -EINVAL,
} ControlCommand;

DECLARE_STRING_TABLE_LOOKUP(control_command, ControlCommand);

/* Whether a command changes what the daemon does or has learned (probe, reload,
 * baseline-reset): those need the admin level (root, the daemon's uid, AdminGroup=); the others
 * only read (status, volumes, report, history) and ControlGroup= suffices. */
bool control_command_is_admin(ControlCommand c) _const_;

typedef struct ControlRequest {
        ControlCommand command;
        char *profile;  /* probe: required */
        char **volumes; /* probe, report, history: NULL-terminated, NULL = the configured selection
                           / all; baseline-reset: exactly one */
        bool wait;      /* probe: stream progress and reply at the end (default); false: reply
                           at once with the run id */
} ControlRequest;

/* Parse one request line (without its '\n'; need not be NUL-terminated). Returns 0 and fills
 * *ret (free with control_request_done()), or -EINVAL / -E2BIG with a static message in
 * *ret_error naming what is wrong. */
int control_request_parse(const char *line, size_t len, ControlRequest *ret,
                          const char **ret_error);

void control_request_done(ControlRequest *r);

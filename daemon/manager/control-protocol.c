/* SPDX-License-Identifier: MIT */
/* Request parsing of the control protocol (control-protocol.h): strict, so that a client sending
 * something unexpected hears about it instead of getting a silent default. json-c with a small
 * depth limit; every field is type-checked; names are bounded and must be plain. */

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "basic/string-table.h"
#include "manager/control-protocol.h"

static const char *const command_table[_CONTROL_COMMAND_MAX] = {
        [CONTROL_STATUS] = "status",
        [CONTROL_VOLUMES] = "volumes",
        [CONTROL_PROBE] = "probe",
        [CONTROL_RELOAD] = "reload",
        [CONTROL_BASELINE_RESET] = "baseline-reset",
        [CONTROL_REPORT] = "report",
        [CONTROL_HISTORY] = "history",
};

DEFINE_STRING_TABLE_LOOKUP(control_command, ControlCommand, command_table);

bool control_command_is_admin(ControlCommand c) {
        switch (c) {
        case CONTROL_PROBE:
        case CONTROL_RELOAD:
        case CONTROL_BASELINE_RESET:
                return true;
        case CONTROL_STATUS:
        case CONTROL_VOLUMES:
        case CONTROL_REPORT:
        case CONTROL_HISTORY:
                return false;
        case _CONTROL_COMMAND_MAX:
        case _CONTROL_COMMAND_INVALID:
                break;
        }
        return true; /* nothing unknown passes as read-only */
}

void control_request_done(ControlRequest *r) {
        if (!r)
                return;
        free(r->profile);
        for (size_t i = 0; r->volumes && r->volumes[i]; i++)
                free(r->volumes[i]);
        free(r->volumes);
        *r = (ControlRequest){ .command = _CONTROL_COMMAND_INVALID };
}

static bool plain_name(const char *s, size_t n) {
        if (n == 0 || n >= CONTROL_NAME_MAX || s[0] == '.')
                return false;
        for (size_t i = 0; i < n; i++)
                if (s[i] == '/' || (unsigned char) s[i] <= ' ' || s[i] == 0x7f)
                        return false;
        return true;
}

/* One line as one JSON value, nothing after it but blanks. */
static int parse_line(const char *line, size_t len, struct json_object **ret,
                      const char **ret_error) {
        struct json_tokener *tok;
        struct json_object *o;

        if (len > CONTROL_LINE_MAX) {
                *ret_error = "request too long";
                return -E2BIG;
        }
        if (memchr(line, 0, len)) {
                *ret_error = "NUL byte in request";
                return -EINVAL;
        }
        tok = json_tokener_new_ex(4);
        if (!tok) {
                *ret_error = "out of memory";
                return -ENOMEM;
        }
        o = json_tokener_parse_ex(tok, line, (int) len);
        if (!o || json_tokener_get_error(tok) != json_tokener_success ||
            tok->char_offset != (int) len) {
                /* trailing garbage after the object is refused too */
                size_t off = o ? (size_t) tok->char_offset : len;

                while (o && off < len && (line[off] == ' ' || line[off] == '\r'))
                        off++;
                if (!o || off != len) {
                        json_object_put(o);
                        json_tokener_free(tok);
                        *ret_error = "malformed JSON";
                        return -EINVAL;
                }
        }
        json_tokener_free(tok);
        *ret = o;
        return 0;
}

/* "volumes": an array of plain names into req->volumes (NULL for an empty one). The error, or
 * NULL. */
static const char *parse_volumes(struct json_object *val, ControlRequest *req) {
        size_t n;

        if (!json_object_is_type(val, json_type_array))
                return "\"volumes\" must be an array of names";
        n = json_object_array_length(val);
        if (n > CONTROL_VOLUMES_MAX)
                return "too many volumes";
        for (size_t i = 0; req->volumes && req->volumes[i]; i++)
                free(req->volumes[i]);
        free(req->volumes);
        req->volumes = calloc(n + 1, sizeof(char *));
        if (!req->volumes)
                return "out of memory";
        for (size_t i = 0; i < n; i++) {
                struct json_object *e = json_object_array_get_idx(val, i);

                if (!json_object_is_type(e, json_type_string) ||
                    !plain_name(json_object_get_string(e), (size_t) json_object_get_string_len(e)))
                        return "\"volumes\" must be an array of names";
                req->volumes[i] = strdup(json_object_get_string(e));
                if (!req->volumes[i])
                        return "out of memory";
        }
        if (n == 0)
                req->volumes = mfree(req->volumes);
        return NULL;
}

/* One key of the request object into req. The error, or NULL. */
static const char *parse_key(const char *key, struct json_object *val, ControlRequest *req,
                             struct json_object **cmd) {
        if (strcmp(key, "command") == 0) {
                if (!json_object_is_type(val, json_type_string))
                        return "\"command\" must be a string";
                *cmd = val;
        } else if (strcmp(key, "profile") == 0) {
                const char *s = json_object_get_string(val);

                if (!json_object_is_type(val, json_type_string) ||
                    !plain_name(s, (size_t) json_object_get_string_len(val)))
                        return "\"profile\" must be a plain name";
                free(req->profile);
                req->profile = strdup(s);
                if (!req->profile)
                        return "out of memory";
        } else if (strcmp(key, "volumes") == 0)
                return parse_volumes(val, req);
        else if (strcmp(key, "wait") == 0) {
                if (!json_object_is_type(val, json_type_boolean))
                        return "\"wait\" must be true or false";
                req->wait = json_object_get_boolean(val);
        } else
                return "unknown key in request";
        return NULL;
}

/* The command, and which keys go with it. The error, or NULL. */
static const char *parse_command(struct json_object *cmd, ControlRequest *req) {
        if (!cmd)
                return "missing \"command\"";
        req->command = control_command_from_string(json_object_get_string(cmd));
        if (req->command < 0)
                return "unknown command";
        if (req->command == CONTROL_PROBE && !req->profile)
                return "probe needs a \"profile\"";
        if (req->command == CONTROL_BASELINE_RESET && (!req->volumes || req->volumes[1]))
                return "baseline-reset needs exactly one volume in \"volumes\"";
        if (req->command != CONTROL_PROBE && req->profile)
                return "\"profile\" and \"volumes\" only go with probe";
        if (req->command != CONTROL_PROBE && req->command != CONTROL_BASELINE_RESET &&
            req->command != CONTROL_REPORT && req->command != CONTROL_HISTORY && req->volumes)
                return "\"volumes\" only goes with probe, baseline-reset, report and history";
        return NULL;
}

int control_request_parse(const char *line, size_t len, ControlRequest *ret,
                          const char **ret_error) {
        ControlRequest req = { .command = _CONTROL_COMMAND_INVALID, .wait = true };
        struct json_object *o, *cmd = NULL;
        const char *error = NULL;
        int r;

        r = parse_line(line, len, &o, ret_error);
        if (r < 0)
                return r;
        if (!json_object_is_type(o, json_type_object))
                error = "request is not a JSON object";
        else {
                json_object_object_foreach(o, key, val) {
                        error = parse_key(key, val, &req, &cmd);
                        if (error)
                                break;
                }
                if (!error)
                        error = parse_command(cmd, &req);
        }
        json_object_put(o);
        if (error) {
                control_request_done(&req);
                *ret_error = error;
                return -EINVAL;
        }
        *ret = req;
        return 0;
}

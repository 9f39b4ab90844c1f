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
};

DEFINE_STRING_TABLE_LOOKUP(control_command, ControlCommand, command_table);

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

int control_request_parse(const char *line, size_t len, ControlRequest *ret,
                          const char **ret_error) {
        ControlRequest req = { .command = _CONTROL_COMMAND_INVALID, .wait = true };
        struct json_tokener *tok;
        struct json_object *o, *cmd = NULL;
        const char *error = NULL;

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
        if (!json_object_is_type(o, json_type_object)) {
                error = "request is not a JSON object";
                goto fail;
        }
        json_object_object_foreach(o, key, val) {
                if (strcmp(key, "command") == 0) {
                        if (!json_object_is_type(val, json_type_string)) {
                                error = "\"command\" must be a string";
                                goto fail;
                        }
                        cmd = val;
                } else if (strcmp(key, "profile") == 0) {
                        const char *s = json_object_get_string(val);

                        if (!json_object_is_type(val, json_type_string) ||
                            !plain_name(s, (size_t) json_object_get_string_len(val))) {
                                error = "\"profile\" must be a plain name";
                                goto fail;
                        }
                        free(req.profile);
                        req.profile = strdup(s);
                        if (!req.profile) {
                                error = "out of memory";
                                goto fail;
                        }
                } else if (strcmp(key, "volumes") == 0) {
                        size_t n;

                        if (!json_object_is_type(val, json_type_array)) {
                                error = "\"volumes\" must be an array of names";
                                goto fail;
                        }
                        n = json_object_array_length(val);
                        if (n > CONTROL_VOLUMES_MAX) {
                                error = "too many volumes";
                                goto fail;
                        }
                        for (size_t i = 0; req.volumes && req.volumes[i]; i++)
                                free(req.volumes[i]);
                        free(req.volumes);
                        req.volumes = calloc(n + 1, sizeof(char *));
                        if (!req.volumes) {
                                error = "out of memory";
                                goto fail;
                        }
                        for (size_t i = 0; i < n; i++) {
                                struct json_object *e = json_object_array_get_idx(val, i);

                                if (!json_object_is_type(e, json_type_string) ||
                                    !plain_name(json_object_get_string(e),
                                                (size_t) json_object_get_string_len(e))) {
                                        error = "\"volumes\" must be an array of names";
                                        goto fail;
                                }
                                req.volumes[i] = strdup(json_object_get_string(e));
                                if (!req.volumes[i]) {
                                        error = "out of memory";
                                        goto fail;
                                }
                        }
                        if (n == 0) {
                                free(req.volumes);
                                req.volumes = NULL;
                        }
                } else if (strcmp(key, "wait") == 0) {
                        if (!json_object_is_type(val, json_type_boolean)) {
                                error = "\"wait\" must be true or false";
                                goto fail;
                        }
                        req.wait = json_object_get_boolean(val);
                } else {
                        error = "unknown key in request";
                        goto fail;
                }
        }
        if (!cmd) {
                error = "missing \"command\"";
                goto fail;
        }
        req.command = control_command_from_string(json_object_get_string(cmd));
        if (req.command < 0) {
                error = "unknown command";
                goto fail;
        }
        if (req.command == CONTROL_PROBE && !req.profile) {
                error = "probe needs a \"profile\"";
                goto fail;
        }
        if (req.command == CONTROL_BASELINE_RESET && (!req.volumes || req.volumes[1])) {
                error = "baseline-reset needs exactly one volume in \"volumes\"";
                goto fail;
        }
        if (req.command != CONTROL_PROBE && req.profile) {
                error = "\"profile\" and \"volumes\" only go with probe";
                goto fail;
        }
        if (req.command != CONTROL_PROBE && req.command != CONTROL_BASELINE_RESET &&
            req.command != CONTROL_REPORT && req.volumes) {
                error = "\"volumes\" only goes with probe, baseline-reset and report";
                goto fail;
        }
        json_object_put(o);
        *ret = req;
        return 0;

fail:
        json_object_put(o);
        control_request_done(&req);
        *ret_error = error;
        return -EINVAL;
}

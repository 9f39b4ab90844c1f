/* SPDX-License-Identifier: MIT */
/* manager/control-protocol: requests accepted and refused (table-driven; each expectation by
 * hand from the protocol description in control-protocol.h). */

#include <string.h>

#include "manager/control-protocol.h"
#include "tap.h"

static const struct {
        const char *line;
        int command; /* -1: refused */
        const char *error;
} cases[] = {
        { "{\"command\":\"status\"}", CONTROL_STATUS, NULL },
        { "{\"command\":\"volumes\"}  ", CONTROL_VOLUMES, NULL },
        { "{\"command\":\"reload\"}\r", CONTROL_RELOAD, NULL },
        { "{\"command\":\"probe\",\"profile\":\"quick\"}", CONTROL_PROBE, NULL },
        { "{\"command\":\"probe\",\"profile\":\"deep\",\"volumes\":[\"md0\",\"sda\"],\"wait\":"
          "false}",
          CONTROL_PROBE, NULL },
        { "", -1, "malformed JSON" },
        { "{", -1, "malformed JSON" },
        { "{\"command\":\"status\"} {}", -1, "malformed JSON" },
        { "[1,2]", -1, "request is not a JSON object" },
        { "\"status\"", -1, "request is not a JSON object" },
        { "{}", -1, "missing \"command\"" },
        { "{\"command\":1}", -1, "\"command\" must be a string" },
        { "{\"command\":\"shutdown\"}", -1, "unknown command" },
        { "{\"command\":\"status\",\"x\":1}", -1, "unknown key in request" },
        { "{\"command\":\"probe\"}", -1, "probe needs a \"profile\"" },
        { "{\"command\":\"status\",\"profile\":\"quick\"}", -1,
          "\"profile\" and \"volumes\" only go with probe" },
        { "{\"command\":\"probe\",\"profile\":\"../x\"}", -1, "\"profile\" must be a plain name" },
        { "{\"command\":\"probe\",\"profile\":\"q\",\"volumes\":\"md0\"}", -1,
          "\"volumes\" must be an array of names" },
        { "{\"command\":\"probe\",\"profile\":\"q\",\"volumes\":[\"a/b\"]}", -1,
          "\"volumes\" must be an array of names" },
        { "{\"command\":\"probe\",\"profile\":\"q\",\"volumes\":[1]}", -1,
          "\"volumes\" must be an array of names" },
        { "{\"command\":\"probe\",\"profile\":\"q\",\"wait\":\"yes\"}", -1,
          "\"wait\" must be true or false" },
        { "{\"command\":{\"a\":{\"b\":{\"c\":{\"d\":1}}}}}", -1, "malformed JSON" }, /* depth */
        { "{\"command\":\"baseline-reset\",\"volumes\":[\"md0\"]}", CONTROL_BASELINE_RESET, NULL },
        { "{\"command\":\"baseline-reset\"}", -1,
          "baseline-reset needs exactly one volume in \"volumes\"" },
        { "{\"command\":\"baseline-reset\",\"volumes\":[\"a\",\"b\"]}", -1,
          "baseline-reset needs exactly one volume in \"volumes\"" },
        { "{\"command\":\"report\"}", CONTROL_REPORT, NULL },
        { "{\"command\":\"report\",\"volumes\":[\"md0\"]}", CONTROL_REPORT, NULL },
        { "{\"command\":\"status\",\"volumes\":[\"md0\"]}", -1,
          "\"volumes\" only goes with probe, baseline-reset, report and history" },
        { "{\"command\":\"history\"}", CONTROL_HISTORY, NULL },
        { "{\"command\":\"history\",\"volumes\":[\"md0\",\"sda\"]}", CONTROL_HISTORY, NULL },
        { "{\"command\":\"history\",\"profile\":\"quick\"}", -1,
          "\"profile\" and \"volumes\" only go with probe" },
};

int main(void) {
        char big[CONTROL_LINE_MAX + 16];
        ControlRequest r;
        const char *error;

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                int k;

                error = NULL;
                k = control_request_parse(cases[i].line, strlen(cases[i].line), &r, &error);
                if (cases[i].command >= 0) {
                        is_int(k, 0, "accepted: %s", cases[i].line);
                        if (k == 0) {
                                is_int(r.command, cases[i].command, "command of %s", cases[i].line);
                                control_request_done(&r);
                        }
                } else {
                        ok(k < 0, "refused: %s", cases[i].line);
                        is_str(error, cases[i].error, "message for %s", cases[i].line);
                }
        }

        const char *p = "{\"command\":\"probe\",\"profile\":\"deep\",\"volumes\":[\"md0\",\"sda\"],"
                        "\"wait\":false}";
        ok(control_request_parse(p, strlen(p), &r, &error) == 0, "probe request");
        is_str(r.profile, "deep", "profile");
        ok(r.volumes && r.volumes[0] && r.volumes[1] && !r.volumes[2], "two volumes");
        is_str(r.volumes ? r.volumes[1] : NULL, "sda", "second volume");
        ok(!r.wait, "wait false");
        control_request_done(&r);

        memset(big, ' ', sizeof(big));
        memcpy(big, "{\"command\":\"status\"}", 20);
        is_int(control_request_parse(big, sizeof(big), &r, &error), -E2BIG, "oversize refused");
        is_str(error, "request too long", "oversize message");
        is_int(control_request_parse("{\"command\":\"st\0tus\"}", 20, &r, &error), -EINVAL,
               "NUL refused");
        is_str(control_command_to_string(CONTROL_PROBE), "probe", "name table");
        return tap_done();
}

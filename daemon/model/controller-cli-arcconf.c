/* SPDX-License-Identifier: MIT */
/* Microchip arcconf: the "Key : Value" text of `GETCONFIG n LD` and `GETSTATUS n` into
 * ControllerVolume records. Pure; see controller-cli.c for the conventions. */

#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "basic/string-table.h"
#include "model/controller-cli-internal.h"
#include "model/controller-cli.h"
#include "basic/macro.h"
#include "basic/parse-util.h"

ControllerVolumeState arcconf_ld_state_from_string(const char *s) {
        if (!s)
                return CONTROLLER_VOLUME_UNKNOWN;
        s += strspn(s, " \t");
        if (strcasestr(s, "rebuild"))
                return CONTROLLER_VOLUME_REBUILDING;
        if (ccli_startswith_ci(s, "Optimal"))
                return CONTROLLER_VOLUME_OPTIMAL;
        if (ccli_startswith_ci(s, "Degraded") || ccli_startswith_ci(s, "Suboptimal"))
                return CONTROLLER_VOLUME_DEGRADED;
        if (ccli_startswith_ci(s, "Failed") || ccli_startswith_ci(s, "Dead"))
                return CONTROLLER_VOLUME_FAILED;
        if (ccli_startswith_ci(s, "Offline"))
                return CONTROLLER_VOLUME_OFFLINE;
        return CONTROLLER_VOLUME_UNKNOWN;
}

static bool arcconf_marker(const char *t) {
        return ccli_startswith_ci(t, "Controllers found:") ||
               ccli_startswith_ci(t, "Command completed");
}

int arcconf_parse_ld(const char *text, size_t size, const char *controller,
                     ControllerVolumeList *ret) {
        _cleanup_(controller_volume_list_donep) ControllerVolumeList l = {};
        CcliLineIter it = { .p = text, .end = text ? text + size : NULL };
        ControllerVolume *cur = NULL;
        bool saw_marker = false;
        const char *line;

        if (!ret || !controller)
                return -EINVAL;
        if (!text)
                return -EBADMSG;

        while ((line = ccli_line_next(&it))) {
                const char *t = line + ccli_indent_of(line);
                char *key, *value;
                int r = 0;

                if (!*t)
                        continue;
                if (arcconf_marker(t)) {
                        saw_marker = true;
                        continue;
                }
                if (ccli_startswith_ci(t, "Logical device number") && ccli_indent_of(line) == 0) {
                        char buf[32];

                        if (!ccli_leading_number(t + strlen("Logical device number"), buf,
                                                 sizeof(buf))) {
                                cur = NULL;
                                continue;
                        }
                        cur = ccli_list_find(&l, controller, buf)
                                      ?: ccli_list_add(&l, controller, buf);
                        if (!cur)
                                return -ENOMEM;
                        continue;
                }
                if (ccli_indent_of(line) == 0) {
                        /* a section rule or header ends the logical device block */
                        cur = NULL;
                        continue;
                }
                if (!cur || !ccli_split_kv(it.buf, &key, &value))
                        continue;
                if (strcasecmp(key, "Logical device name") == 0)
                        r = ccli_set_str(&cur->name, value);
                else if (strcasecmp(key, "RAID level") == 0)
                        r = ccli_set_str(&cur->raid_level, value);
                else if (strcasecmp(key, "Status of logical device") == 0) {
                        cur->state = arcconf_ld_state_from_string(value);
                        r = ccli_set_str(&cur->state_raw, value);
                } else if (strcasecmp(key, "Size") == 0) {
                        uint64_t bytes;

                        if (ccli_parse_size_binary(value, &bytes) >= 0)
                                cur->size_bytes = bytes;
                }
                if (r < 0)
                        return r;
        }

        if (!saw_marker)
                return -EBADMSG;
        if (l.n == 0)
                return -ENODATA;

        *ret = l;
        l = (ControllerVolumeList){};
        return 0;
}

typedef struct ArcconfTask {
        char ld[32];
        char op[128];
        double progress;
        bool active;
} ArcconfTask;

static int arcconf_task_apply(ControllerVolumeList *l, const ArcconfTask *t) {
        int updated = 0;

        if (!t->active || !t->ld[0] || !t->op[0])
                return 0;
        for (size_t i = 0; i < l->n; i++) {
                ControllerVolume *v = &l->volumes[i];
                int r;

                if (strcmp(v->volume_id, t->ld) != 0)
                        continue;
                r = ccli_set_str(&v->operation, t->op);
                if (r < 0)
                        return r;
                v->progress = t->progress;
                if (strcasestr(t->op, "rebuild"))
                        v->state = CONTROLLER_VOLUME_REBUILDING;
                updated++;
        }
        return updated;
}

int arcconf_apply_status(ControllerVolumeList *l, const char *text, size_t size) {
        CcliLineIter it = { .p = text, .end = text ? text + size : NULL };
        ArcconfTask task = {};
        bool saw_marker = false;
        const char *line;
        int updated = 0, r;

        if (!l)
                return -EINVAL;
        if (!text)
                return -EBADMSG;

        /* Validate first so that `l` stays untouched on garbage. */
        while ((line = ccli_line_next(&it)))
                if (arcconf_marker(line + ccli_indent_of(line)))
                        saw_marker = true;
        if (!saw_marker)
                return -EBADMSG;

        it = (CcliLineIter){ .p = text, .end = text + size };
        while ((line = ccli_line_next(&it))) {
                const char *t = line + ccli_indent_of(line);
                char *key, *value;

                if (ccli_indent_of(line) == 0 && *t) {
                        r = arcconf_task_apply(l, &task);
                        if (r < 0)
                                return r;
                        updated += r;
                        task = (ArcconfTask){ .progress = CONTROLLER_PROGRESS_UNKNOWN };
                        task.active = ccli_startswith_ci(t, "Logical device Task");
                        continue;
                }
                if (!task.active || !ccli_split_kv(it.buf, &key, &value))
                        continue;
                if (strcasecmp(key, "Logical device") == 0) {
                        size_t n = strspn(value, "0123456789");

                        if (n > 0 && n < sizeof(task.ld)) {
                                memcpy(task.ld, value, n);
                                task.ld[n] = 0;
                        }
                } else if (strcasecmp(key, "Current operation") == 0)
                        (void) snprintf(task.op, sizeof(task.op), "%s", value);
                else if (strcasecmp(key, "Percentage complete") == 0) {
                        double p;

                        if (ccli_parse_percent(value, &p) >= 0)
                                task.progress = p;
                }
        }
        r = arcconf_task_apply(l, &task);
        if (r < 0)
                return r;
        return updated + r;
}

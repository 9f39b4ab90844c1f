/* SPDX-License-Identifier: MIT */
/* HPE ssacli: the indented "Key: Value" text of `ctrl all show config detail` into
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

ControllerVolumeState ssacli_ld_state_from_string(const char *s, double *ret_progress) {
        if (ret_progress)
                *ret_progress = CONTROLLER_PROGRESS_UNKNOWN;
        if (!s)
                return CONTROLLER_VOLUME_UNKNOWN;
        s += strspn(s, " \t");
        if (strcasecmp(s, "OK") == 0)
                return CONTROLLER_VOLUME_OPTIMAL;
        if (ccli_startswith_ci(s, "Interim Recovery Mode") ||
            ccli_startswith_ci(s, "Ready for Rebuild"))
                return CONTROLLER_VOLUME_DEGRADED;
        if (ccli_startswith_ci(s, "Recovering") || ccli_startswith_ci(s, "Rebuilding")) {
                /* "Recovering, 26% complete" */
                const char *comma = strchr(s, ',');
                double p;

                if (comma && ret_progress && ccli_parse_percent(comma + 1, &p) >= 0)
                        *ret_progress = p;
                return CONTROLLER_VOLUME_REBUILDING;
        }
        if (ccli_startswith_ci(s, "Failed"))
                return CONTROLLER_VOLUME_FAILED;
        if (ccli_startswith_ci(s, "Disabled") || ccli_startswith_ci(s, "Offline"))
                return CONTROLLER_VOLUME_OFFLINE;
        return CONTROLLER_VOLUME_UNKNOWN;
}

static int ssacli_set_state(ControllerVolume *v, const char *status) {
        double p;
        int r;

        v->state = ssacli_ld_state_from_string(status, &p);
        r = ccli_set_str(&v->state_raw, status);
        if (r < 0)
                return r;
        if (v->state == CONTROLLER_VOLUME_REBUILDING) {
                r = ccli_set_str(&v->operation, "Rebuild");
                if (r < 0)
                        return r;
                v->progress = p;
        }
        return 0;
}

/* Short form: "logicaldrive 1 (136.7 GB, RAID 5, Interim Recovery Mode)". */
static int ssacli_short_line(ControllerVolumeList *l, const char *ctrl, const char *t) {
        char id[32], inner[512], *fields[3] = {}, *save = NULL, *tok;
        const char *open, *close;
        ControllerVolume *v;
        size_t n, k = 0;
        uint64_t bytes;
        int r;

        t += strlen("logicaldrive");
        t += strspn(t, " \t");
        n = strspn(t, "0123456789");
        if (n == 0 || n >= sizeof(id))
                return 0;
        memcpy(id, t, n);
        id[n] = 0;
        open = strchr(t, '(');
        close = open ? strrchr(open, ')') : NULL;
        if (!close || (size_t) (close - open - 1) >= sizeof(inner))
                return 0;
        memcpy(inner, open + 1, (size_t) (close - open - 1));
        inner[close - open - 1] = 0;

        /* size, RAID level, then the status (which may itself contain ", ") */
        for (tok = strtok_r(inner, ",", &save); tok && k < 2; tok = strtok_r(NULL, ",", &save))
                fields[k++] = tok;
        if (k < 2 || !tok)
                return 0;
        fields[2] = tok;
        if (save && *save)
                fields[2][strlen(fields[2])] = ','; /* rejoin "Recovering, 26% complete" */

        v = ccli_list_find(l, ctrl, id) ?: ccli_list_add(l, ctrl, id);
        if (!v)
                return -ENOMEM;
        if (ccli_parse_size_binary(fields[0], &bytes) >= 0)
                v->size_bytes = bytes;
        r = ccli_set_str(&v->raid_level, fields[1]);
        if (r < 0)
                return r;
        {
                _cleanup_free_ char *status = NULL;

                r = ccli_set_str(&status, fields[2]);
                if (r < 0)
                        return r;
                return ssacli_set_state(v, status);
        }
}

/* One "Key: Value" line inside a "Logical Drive: N" block of the detail output. */
static int ssacli_detail(ControllerVolume *v, const char *key, const char *value) {
        uint64_t bytes;

        if (strcasecmp(key, "Size") == 0) {
                if (ccli_parse_size_binary(value, &bytes) >= 0)
                        v->size_bytes = bytes;
                return 0;
        }
        if (strcasecmp(key, "Fault Tolerance") == 0)
                return ccli_set_str(&v->raid_level, value);
        if (strcasecmp(key, "Status") == 0)
                return ssacli_set_state(v, value);
        if (strcasecmp(key, "Disk Name") == 0)
                return ccli_set_str(&v->os_device, value);
        if (strcasecmp(key, "Unique Identifier") == 0)
                return ccli_set_naa(&v->naa_id, value);
        if (strcasecmp(key, "Logical Drive Label") == 0)
                return ccli_set_str(&v->name, value);
        return 0;
}

int ssacli_parse_config(const char *text, size_t size, ControllerVolumeList *ret) {
        _cleanup_(controller_volume_list_donep) ControllerVolumeList l = {};
        CcliLineIter it = { .p = text, .end = text ? text + size : NULL };
        char ctrl[32] = "";
        /* an index, not a pointer: a short-form line may append to (and move) the list */
        size_t cur = SIZE_MAX, cur_indent = 0;
        bool saw_ctrl = false, saw_error = false;
        const char *line;

        if (!ret)
                return -EINVAL;
        if (!text)
                return -EBADMSG;

        while ((line = ccli_line_next(&it))) {
                char *mut = it.buf, *key, *value;
                int r = 0;
                const char *t = line + ccli_indent_of(line), *slot;
                size_t ind = ccli_indent_of(line);

                if (!*t)
                        continue;
                if (cur != SIZE_MAX && ind <= cur_indent)
                        cur = SIZE_MAX;

                if (ind == 0 && (slot = strstr(t, " in Slot "))) {
                        size_t n;

                        slot += strlen(" in Slot ");
                        n = strcspn(slot, " \t(");
                        if (n == 0 || n >= sizeof(ctrl))
                                continue;
                        memcpy(ctrl, slot, n);
                        ctrl[n] = 0;
                        saw_ctrl = true;
                        continue;
                }
                if (ccli_startswith_ci(t, "Error:")) {
                        saw_error = true;
                        continue;
                }
                if (!saw_ctrl)
                        continue;
                if (ccli_startswith_ci(t, "logicaldrive ") && strchr(t, '(')) {
                        r = ssacli_short_line(&l, ctrl, t);
                        if (r < 0)
                                return r;
                        continue;
                }
                if (ccli_startswith_ci(t, "Logical Drive:")) {
                        char buf[32];
                        ControllerVolume *v;

                        if (!ccli_leading_number(t + strlen("Logical Drive:"), buf, sizeof(buf)))
                                continue;
                        v = ccli_list_find(&l, ctrl, buf) ?: ccli_list_add(&l, ctrl, buf);
                        if (!v)
                                return -ENOMEM;
                        cur = (size_t) (v - l.volumes);
                        cur_indent = ind;
                        continue;
                }
                if (cur == SIZE_MAX || !ccli_split_kv(mut, &key, &value))
                        continue;
                r = ssacli_detail(&l.volumes[cur], key, value);
                if (r < 0)
                        return r;
        }

        if (l.n == 0 && !saw_ctrl)
                return saw_error ? -ENODATA : -EBADMSG;

        *ret = l;
        l = (ControllerVolumeList){};
        return 0;
}

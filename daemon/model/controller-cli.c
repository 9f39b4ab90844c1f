/* SPDX-License-Identifier: MIT */
/* Vendor RAID CLI readers: recorded output in, ControllerVolume records out.
 *
 * A controller hides its members from the kernel, so the logical drive state (degraded, which
 * member rebuilds, how far) is only known to the controller firmware and its vendor CLI. We read
 * three families: Broadcom storcli/perccli (JSON, the only stable format they have), HPE ssacli
 * (indented "Key: Value" text) and Microchip arcconf ("Key : Value" text). The parsers are pure
 * and tolerant: unknown keys are skipped, an unknown state word maps to
 * CONTROLLER_VOLUME_UNKNOWN with the raw text kept, and text that is not the tool's output gives
 * -EBADMSG rather than an empty "all good" list. Sizes printed by all three tools are binary
 * units (a "600 GB" disk shows as "558.4 GB"), so KB/MB/GB/TB are read as powers of 1024.
 *
 * Everything here is pure (no I/O, no clock); the runner that executes the CLIs lives in
 * sources/controller-cli-run.c. This file holds what the three parsers share (the volume list,
 * trimmed strings, sizes, ETAs, percentages, NAA ids, a line iterator; declared in
 * controller-cli-internal.h); each vendor has its own file: controller-cli-storcli.c,
 * controller-cli-ssacli.c, controller-cli-arcconf.c. */

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

static ControllerVolume *volume_done(ControllerVolume *v) {
        free(v->controller);
        free(v->volume_id);
        free(v->name);
        free(v->raid_level);
        free(v->state_raw);
        free(v->os_device);
        free(v->operation);
        free(v->rebuild_drive);
        free(v->naa_id);
        return NULL;
}

void controller_volume_list_done(ControllerVolumeList *l) {
        if (!l)
                return;
        for (size_t i = 0; i < l->n; i++)
                (void) volume_done(&l->volumes[i]);
        free(l->volumes);
        *l = (ControllerVolumeList){};
}

/* Append a fresh volume; returns it or NULL on OOM. */
ControllerVolume *ccli_list_add(ControllerVolumeList *l, const char *controller, const char *id) {
        ControllerVolume *n, *v;

        n = reallocarray(l->volumes, l->n + 1, sizeof(*n));
        if (!n)
                return NULL;
        l->volumes = n;
        v = &n[l->n];
        *v = (ControllerVolume){
                .size_bytes = CONTROLLER_SIZE_UNKNOWN,
                .state = CONTROLLER_VOLUME_UNKNOWN,
                .progress = CONTROLLER_PROGRESS_UNKNOWN,
                .eta_usec = USEC_INFINITY,
        };
        v->controller = strdup(controller);
        v->volume_id = strdup(id);
        if (!v->controller || !v->volume_id) {
                (void) volume_done(v);
                return NULL;
        }
        l->n++;
        return v;
}

ControllerVolume *ccli_list_find(ControllerVolumeList *l, const char *controller, const char *id) {
        for (size_t i = 0; i < l->n; i++)
                if (strcmp(l->volumes[i].controller, controller) == 0 &&
                    strcmp(l->volumes[i].volume_id, id) == 0)
                        return &l->volumes[i];
        return NULL;
}

/* Replace *field with a trimmed copy of s (NULL or blank gives NULL). -ENOMEM on OOM. */
int ccli_set_str(char **field, const char *s) {
        size_t n;
        char *c;

        if (!s) {
                free(*field);
                *field = NULL;
                return 0;
        }
        s += strspn(s, " \t");
        n = strlen(s);
        while (n > 0 && strchr(" \t\r\n", s[n - 1]))
                n--;
        if (n == 0) {
                free(*field);
                *field = NULL;
                return 0;
        }
        c = strndup(s, n);
        if (!c)
                return -ENOMEM;
        free(*field);
        *field = c;
        return 0;
}

bool ccli_startswith_ci(const char *s, const char *prefix) {
        return strncasecmp(s, prefix, strlen(prefix)) == 0;
}

/* "744.687 GiB", "558.406 GB", "915446 MB", "4.55 TB": binary units (see top comment). */
int ccli_parse_size_binary(const char *s, uint64_t *ret) {
        static const struct {
                const char *unit;
                double mult;
        } units[] = {
                { "B", 1.0 },
                { "KB", 1024.0 },
                { "KiB", 1024.0 },
                { "MB", 1048576.0 },
                { "MiB", 1048576.0 },
                { "GB", 1073741824.0 },
                { "GiB", 1073741824.0 },
                { "TB", 1099511627776.0 },
                { "TiB", 1099511627776.0 },
                { "PB", 1125899906842624.0 },
                { "PiB", 1125899906842624.0 },
        };
        char num[64], unit[8];
        size_t n = 0, u = 0;
        double d;

        if (!s)
                return -EINVAL;
        s += strspn(s, " \t");
        while (n < sizeof(num) - 1 && ((*s >= '0' && *s <= '9') || *s == '.'))
                num[n++] = *s++;
        num[n] = 0;
        if (n == 0)
                return -EINVAL;
        s += strspn(s, " \t");
        while (u < sizeof(unit) - 1 && ((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z')))
                unit[u++] = *s++;
        unit[u] = 0;
        if (safe_atod(num, &d) < 0 || !isfinite(d) || d < 0)
                return -EINVAL;
        for (size_t i = 0; i < ELEMENTSOF(units); i++) {
                if (strcasecmp(unit, units[i].unit) != 0)
                        continue;
                d *= units[i].mult;
                if (d >= 18446744073709551616.0)
                        return -ERANGE;
                *ret = (uint64_t) d;
                return 0;
        }
        return -EINVAL;
}

/* storcli "Estimated Time Left": "49 Minutes", "6 Hours 25 Minutes", "4 Days 3 Hours 51 Minutes",
 * "-" when unknown. */
int ccli_parse_eta(const char *s, usec_t *ret) {
        static const struct {
                const char *unit;
                uint64_t sec;
        } units[] = {
                { "Second", 1 },
                { "Minute", 60 },
                { "Hour", 3600 },
                { "Day", 86400 },
        };
        uint64_t total = 0;
        bool any = false;

        if (!s)
                return -EINVAL;
        for (;;) {
                uint64_t v = 0;
                bool matched = false;
                size_t digits = 0;

                s += strspn(s, " \t");
                if (!*s)
                        break;
                while (*s >= '0' && *s <= '9') {
                        if (v > UINT64_MAX / 10 / 86400)
                                return -ERANGE;
                        v = v * 10 + (uint64_t) (*s++ - '0');
                        digits++;
                }
                if (digits == 0)
                        return -EINVAL;
                s += strspn(s, " \t");
                for (size_t i = 0; i < ELEMENTSOF(units); i++)
                        if (ccli_startswith_ci(s, units[i].unit)) {
                                s += strlen(units[i].unit);
                                if (*s == 's' || *s == 'S')
                                        s++;
                                total += v * units[i].sec;
                                matched = true;
                                break;
                        }
                if (!matched)
                        return -EINVAL;
                any = true;
        }
        if (!any || total > UINT64_MAX / USEC_PER_SEC)
                return -EINVAL;
        *ret = total * USEC_PER_SEC;
        return 0;
}

/* Percentage 0..100 (integer or decimal text) -> 0..1. */
int ccli_parse_percent(const char *s, double *ret) {
        char buf[32];
        size_t n = 0;
        double d;

        if (!s)
                return -EINVAL;
        s += strspn(s, " \t");
        while (n < sizeof(buf) - 1 && ((*s >= '0' && *s <= '9') || *s == '.'))
                buf[n++] = *s++;
        buf[n] = 0;
        if (n == 0 || safe_atod(buf, &d) < 0 || !(d >= 0 && d <= 100))
                return -EINVAL;
        *ret = d / 100.0;
        return 0;
}

/* Keep a hex NAA identifier (16 or 32 hex digits, optional "0x"/"naa." prefix) in lower case. */
int ccli_set_naa(char **field, const char *s) {
        char buf[40];
        size_t n = 0;

        if (!s)
                return 0;
        s += strspn(s, " \t");
        if (ccli_startswith_ci(s, "0x"))
                s += 2;
        else if (ccli_startswith_ci(s, "naa."))
                s += 4;
        for (; *s && !strchr(" \t\r\n", *s); s++) {
                if (n >= 32 || !strchr("0123456789abcdefABCDEF", *s))
                        return 0; /* not an NAA id: ignore */
                buf[n++] = (char) (*s >= 'A' && *s <= 'F' ? *s - 'A' + 'a' : *s);
        }
        if (n != 16 && n != 32)
                return 0;
        buf[n] = 0;
        return ccli_set_str(field, buf);
}

bool ccli_leading_number(const char *s, char *buf, size_t n) {
        size_t k;

        s += strspn(s, " \t");
        k = strspn(s, "0123456789");
        if (k == 0 || k >= n)
                return false;
        memcpy(buf, s, k);
        buf[k] = 0;
        return true;
}

bool controller_volume_matches_wwid(const ControllerVolume *v, const char *wwid) {
        _cleanup_free_ char *id = NULL;

        if (!v || !v->naa_id || !wwid)
                return false;
        if (ccli_set_naa(&id, wwid) < 0 || !id)
                return false;
        return strcmp(id, v->naa_id) == 0;
}

/* ---- line-oriented text (ssacli, arcconf) ---- */

/* Next line (without '\n', '\r' stripped, NULs replaced, overlong lines truncated) or NULL. */
const char *ccli_line_next(CcliLineIter *it) {
        const char *nl;
        size_t n, k;

        if (it->p >= it->end)
                return NULL;
        nl = memchr(it->p, '\n', (size_t) (it->end - it->p));
        n = (size_t) ((nl ?: it->end) - it->p);
        k = MIN(n, sizeof(it->buf) - 1);
        memcpy(it->buf, it->p, k);
        it->buf[k] = 0;
        for (size_t i = 0; i < k; i++)
                if (it->buf[i] == 0 || it->buf[i] == '\r')
                        it->buf[i] = ' ';
        it->p += n + (nl ? 1 : 0);
        return it->buf;
}

size_t ccli_indent_of(const char *line) {
        return strspn(line, " \t");
}

/* Split "Key: Value" / "Key    : Value" at the first ':'; trims both. Returns false if no ':'
 * or empty key. */
bool ccli_split_kv(char *line, char **ret_key, char **ret_value) {
        char *colon = strchr(line, ':'), *k, *e;

        if (!colon)
                return false;
        *colon = 0;
        k = line + strspn(line, " \t");
        e = colon;
        while (e > k && (e[-1] == ' ' || e[-1] == '\t'))
                *--e = 0;
        if (!*k)
                return false;
        *ret_key = k;
        *ret_value = colon + 1 + strspn(colon + 1, " \t");
        return true;
}

static const char *const volume_state_table[_CONTROLLER_VOLUME_STATE_MAX] = {
        [CONTROLLER_VOLUME_OPTIMAL] = "optimal",       [CONTROLLER_VOLUME_DEGRADED] = "degraded",
        [CONTROLLER_VOLUME_REBUILDING] = "rebuilding", [CONTROLLER_VOLUME_FAILED] = "failed",
        [CONTROLLER_VOLUME_OFFLINE] = "offline",       [CONTROLLER_VOLUME_UNKNOWN] = "unknown",
};

DEFINE_STRING_TABLE_LOOKUP(controller_volume_state, ControllerVolumeState, volume_state_table)

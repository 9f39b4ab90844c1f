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
 * controller-cli-run.c. */

#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "basic/string-table.h"
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

static void list_donep(ControllerVolumeList *l) {
        controller_volume_list_done(l);
}

/* Append a fresh volume; returns it or NULL on OOM. */
static ControllerVolume *list_add(ControllerVolumeList *l, const char *controller, const char *id) {
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

static ControllerVolume *list_find(ControllerVolumeList *l, const char *controller,
                                   const char *id) {
        for (size_t i = 0; i < l->n; i++)
                if (strcmp(l->volumes[i].controller, controller) == 0 &&
                    strcmp(l->volumes[i].volume_id, id) == 0)
                        return &l->volumes[i];
        return NULL;
}

/* Replace *field with a trimmed copy of s (NULL or blank gives NULL). -ENOMEM on OOM. */
static int set_str(char **field, const char *s) {
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

static bool startswith_ci(const char *s, const char *prefix) {
        return strncasecmp(s, prefix, strlen(prefix)) == 0;
}

/* "744.687 GiB", "558.406 GB", "915446 MB", "4.55 TB": binary units (see top comment). */
static int parse_size_binary(const char *s, uint64_t *ret) {
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
static int parse_eta(const char *s, usec_t *ret) {
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
                        if (startswith_ci(s, units[i].unit)) {
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
static int parse_percent(const char *s, double *ret) {
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
static int set_naa(char **field, const char *s) {
        char buf[40];
        size_t n = 0;

        if (!s)
                return 0;
        s += strspn(s, " \t");
        if (startswith_ci(s, "0x"))
                s += 2;
        else if (startswith_ci(s, "naa."))
                s += 4;
        for (; *s && !strchr(" \t\r\n", *s); s++) {
                if (n >= 32 || !strchr("0123456789abcdefABCDEF", *s))
                        return 0; /* not an NAA id: ignore */
                buf[n++] = (char) (*s >= 'A' && *s <= 'F' ? *s - 'A' + 'a' : *s);
        }
        if (n != 16 && n != 32)
                return 0;
        buf[n] = 0;
        return set_str(field, buf);
}

bool controller_volume_matches_wwid(const ControllerVolume *v, const char *wwid) {
        _cleanup_free_ char *id = NULL;

        if (!v || !v->naa_id || !wwid)
                return false;
        if (set_naa(&id, wwid) < 0 || !id)
                return false;
        return strcmp(id, v->naa_id) == 0;
}

/* ---- state words ---- */

ControllerVolumeState storcli_vd_state_from_string(const char *s) {
        static const struct {
                const char *word;
                ControllerVolumeState state;
        } map[] = {
                /* storcli abbreviations ("Optl=Optimal|OfLn=OffLine|Pdgd=Partially Degraded|
                 * Dgrd=Degraded|Rec=Recovery") and the long forms some versions print */
                { "Optl", CONTROLLER_VOLUME_OPTIMAL },
                { "Optimal", CONTROLLER_VOLUME_OPTIMAL },
                { "Dgrd", CONTROLLER_VOLUME_DEGRADED },
                { "Degraded", CONTROLLER_VOLUME_DEGRADED },
                { "Pdgd", CONTROLLER_VOLUME_DEGRADED },
                { "Partially Degraded", CONTROLLER_VOLUME_DEGRADED },
                { "Rec", CONTROLLER_VOLUME_REBUILDING },
                { "Recovery", CONTROLLER_VOLUME_REBUILDING },
                { "OfLn", CONTROLLER_VOLUME_OFFLINE },
                { "Offline", CONTROLLER_VOLUME_OFFLINE },
                { "Failed", CONTROLLER_VOLUME_FAILED },
        };

        if (!s)
                return CONTROLLER_VOLUME_UNKNOWN;
        s += strspn(s, " \t");
        for (size_t i = 0; i < ELEMENTSOF(map); i++)
                if (strcasecmp(s, map[i].word) == 0)
                        return map[i].state;
        return CONTROLLER_VOLUME_UNKNOWN;
}

ControllerVolumeState ssacli_ld_state_from_string(const char *s, double *ret_progress) {
        if (ret_progress)
                *ret_progress = CONTROLLER_PROGRESS_UNKNOWN;
        if (!s)
                return CONTROLLER_VOLUME_UNKNOWN;
        s += strspn(s, " \t");
        if (strcasecmp(s, "OK") == 0)
                return CONTROLLER_VOLUME_OPTIMAL;
        if (startswith_ci(s, "Interim Recovery Mode") || startswith_ci(s, "Ready for Rebuild"))
                return CONTROLLER_VOLUME_DEGRADED;
        if (startswith_ci(s, "Recovering") || startswith_ci(s, "Rebuilding")) {
                /* "Recovering, 26% complete" */
                const char *comma = strchr(s, ',');
                double p;

                if (comma && ret_progress && parse_percent(comma + 1, &p) >= 0)
                        *ret_progress = p;
                return CONTROLLER_VOLUME_REBUILDING;
        }
        if (startswith_ci(s, "Failed"))
                return CONTROLLER_VOLUME_FAILED;
        if (startswith_ci(s, "Disabled") || startswith_ci(s, "Offline"))
                return CONTROLLER_VOLUME_OFFLINE;
        return CONTROLLER_VOLUME_UNKNOWN;
}

ControllerVolumeState arcconf_ld_state_from_string(const char *s) {
        if (!s)
                return CONTROLLER_VOLUME_UNKNOWN;
        s += strspn(s, " \t");
        if (strcasestr(s, "rebuild"))
                return CONTROLLER_VOLUME_REBUILDING;
        if (startswith_ci(s, "Optimal"))
                return CONTROLLER_VOLUME_OPTIMAL;
        if (startswith_ci(s, "Degraded") || startswith_ci(s, "Suboptimal"))
                return CONTROLLER_VOLUME_DEGRADED;
        if (startswith_ci(s, "Failed") || startswith_ci(s, "Dead"))
                return CONTROLLER_VOLUME_FAILED;
        if (startswith_ci(s, "Offline"))
                return CONTROLLER_VOLUME_OFFLINE;
        return CONTROLLER_VOLUME_UNKNOWN;
}

/* ---- storcli JSON ---- */

static json_object *json_parse_buffer(const char *text, size_t size) {
        json_tokener *tok;
        json_object *o;

        if (!text || size == 0 || size > INT32_MAX || memchr(text, 0, size))
                return NULL;
        tok = json_tokener_new();
        if (!tok)
                return NULL;
        o = json_tokener_parse_ex(tok, text, (int) size);
        if (o && json_tokener_get_error(tok) != json_tokener_success) {
                json_object_put(o);
                o = NULL;
        }
        if (o) {
                /* one document only: trailing text means this is not what we asked for */
                size_t end = json_tokener_get_parse_end(tok);

                while (end < size && strchr(" \t\r\n", text[end]) && text[end])
                        end++;
                if (end != size) {
                        json_object_put(o);
                        o = NULL;
                }
        }
        json_tokener_free(tok);
        return o;
}

static void json_putp(json_object **o) {
        if (*o)
                json_object_put(*o);
}

static json_object *json_get(json_object *o, const char *key, json_type type) {
        json_object *v;

        if (!o || !json_object_is_type(o, json_type_object) ||
            !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, type))
                return NULL;
        return v;
}

static const char *json_get_str(json_object *o, const char *key) {
        json_object *v = json_get(o, key, json_type_string);

        return v ? json_object_get_string(v) : NULL;
}

/* Parse "/c<digits>/v<digits>" (exact). Writes the two digit strings. */
static bool parse_vd_key(const char *key, char c[static 16], char v[static 16]) {
        size_t a, b;

        if (strncmp(key, "/c", 2) != 0)
                return false;
        key += 2;
        a = strspn(key, "0123456789");
        if (a == 0 || a >= 16 || strncmp(key + a, "/v", 2) != 0)
                return false;
        memcpy(c, key, a);
        c[a] = 0;
        key += a + 2;
        b = strspn(key, "0123456789");
        if (b == 0 || b >= 16 || key[b] != 0)
                return false;
        memcpy(v, key, b);
        v[b] = 0;
        return true;
}

/* "PDs for VD 239" / "VD239 Properties" -> "239" */
static bool parse_suffix_id(const char *key, const char *prefix, const char *suffix,
                            char id[static 16]) {
        size_t p = strlen(prefix), a;

        if (strncmp(key, prefix, p) != 0)
                return false;
        key += p;
        a = strspn(key, "0123456789");
        if (a == 0 || a >= 16 || strcmp(key + a, suffix) != 0)
                return false;
        memcpy(id, key, a);
        id[a] = 0;
        return true;
}

static int storcli_fill_vd(ControllerVolume *v, json_object *vd) {
        const char *state = json_get_str(vd, "State"), *size = json_get_str(vd, "Size");
        uint64_t bytes;
        int r;

        r = set_str(&v->raid_level, json_get_str(vd, "TYPE"));
        if (r < 0)
                return r;
        r = set_str(&v->name, json_get_str(vd, "Name"));
        if (r < 0)
                return r;
        r = set_str(&v->state_raw, state);
        if (r < 0)
                return r;
        v->state = storcli_vd_state_from_string(state);
        if (size && parse_size_binary(size, &bytes) >= 0)
                v->size_bytes = bytes;
        return 0;
}

/* First member in state Rbld -> "/c0/e252/s4" ("/c0/s4" when the enclosure id is blank). */
static int storcli_fill_pds(ControllerVolume *v, json_object *pds) {
        size_t n = json_object_array_length(pds);

        for (size_t i = 0; i < n; i++) {
                json_object *pd = json_object_array_get_idx(pds, i);
                const char *state = json_get_str(pd, "State"), *es = json_get_str(pd, "EID:Slt");
                const char *colon;
                char *path;
                int e_len;

                if (!state || strcasecmp(state, "Rbld") != 0 || !es)
                        continue;
                colon = strchr(es, ':');
                if (!colon || colon[1] == 0 || strspn(colon + 1, "0123456789") != strlen(colon + 1))
                        continue;
                e_len = (int) (colon - es);
                while (e_len > 0 && es[e_len - 1] == ' ')
                        e_len--;
                while (e_len > 0 && *es == ' ')
                        es++, e_len--;
                if (e_len > 0 && (int) strspn(es, "0123456789") < e_len)
                        continue;
                if (e_len > 0) {
                        if (asprintf(&path, "/c%s/e%.*s/s%s", v->controller, e_len, es, colon + 1) <
                            0)
                                return -ENOMEM;
                } else if (asprintf(&path, "/c%s/s%s", v->controller, colon + 1) < 0)
                        return -ENOMEM;
                free(v->rebuild_drive);
                v->rebuild_drive = path;
                return 0;
        }
        return 0;
}

/* `/cALL show all J` (and perccli's) lists VDs as "VD LIST" rows ("DG/VD": "0/0") and all
 * drives as "PD LIST" rows with their "DG": a drive group's Rbld member rebuilds every VD of that
 * group. The controller number comes from "Basics" or the command status. */
static int storcli_parse_vd_list(ControllerVolumeList *l, json_object *c, json_object *rd) {
        json_object *vds = json_get(rd, "VD LIST", json_type_array),
                    *pds = json_get(rd, "PD LIST", json_type_array), *num;
        char cid[16];
        size_t n;
        int r;

        if (!vds)
                return 0;
        num = json_get(json_get(rd, "Basics", json_type_object), "Controller", json_type_int)
                      ?: json_get(json_get(c, "Command Status", json_type_object), "Controller",
                                  json_type_int);
        if (!num || json_object_get_int64(num) < 0)
                return 0;
        (void) snprintf(cid, sizeof(cid), "%" PRIi64, json_object_get_int64(num));

        n = json_object_array_length(vds);
        for (size_t i = 0; i < n; i++) {
                json_object *row = json_object_array_get_idx(vds, i);
                const char *dgvd = json_get_str(row, "DG/VD"), *slash;
                char dg[16], vid[16];
                ControllerVolume *v;
                size_t a, b;

                if (!dgvd || !(slash = strchr(dgvd, '/')))
                        continue;
                a = (size_t) (slash - dgvd);
                b = strlen(slash + 1);
                if (a == 0 || a >= sizeof(dg) || strspn(dgvd, "0123456789") != a || b == 0 ||
                    b >= sizeof(vid) || strspn(slash + 1, "0123456789") != b)
                        continue;
                memcpy(dg, dgvd, a);
                dg[a] = 0;
                memcpy(vid, slash + 1, b + 1);
                v = list_find(l, cid, vid) ?: list_add(l, cid, vid);
                if (!v)
                        return -ENOMEM;
                r = storcli_fill_vd(v, row);
                if (r < 0)
                        return r;

                /* members of this drive group */
                for (size_t k = 0; pds && k < json_object_array_length(pds); k++) {
                        json_object *pd = json_object_array_get_idx(pds, k),
                                    *pdg = json_get(pd, "DG", json_type_int);
                        json_object *one;

                        if (!pdg || json_object_get_int64(pdg) < 0 ||
                            (uint64_t) json_object_get_int64(pdg) != strtoull(dg, NULL, 10))
                                continue;
                        one = json_object_new_array();
                        if (!one)
                                return -ENOMEM;
                        (void) json_object_array_add(one, json_object_get(pd));
                        r = v->rebuild_drive ? 0 : storcli_fill_pds(v, one);
                        json_object_put(one);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

int storcli_parse_volumes(const char *text, size_t size, ControllerVolumeList *ret) {
        _cleanup_(list_donep) ControllerVolumeList l = {};
        _cleanup_(json_putp) json_object *root = NULL;
        json_object *ctrls;
        size_t n, n_ok = 0, n_fail = 0;
        int r;

        if (!ret)
                return -EINVAL;
        root = json_parse_buffer(text, size);
        ctrls = json_get(root, "Controllers", json_type_array);
        if (!ctrls)
                return -EBADMSG;

        n = json_object_array_length(ctrls);
        for (size_t i = 0; i < n; i++) {
                json_object *c = json_object_array_get_idx(ctrls, i), *rd, *cs;
                char rd_cid[16];
                const char *status;

                cs = json_get(c, "Command Status", json_type_object);
                if (!cs)
                        continue; /* not a controller entry at all */
                status = json_get_str(cs, "Status");
                if (!status || strcasecmp(status, "Success") != 0) {
                        n_fail++;
                        continue;
                }
                n_ok++;
                rd = json_get(c, "Response Data", json_type_object);
                if (!rd)
                        continue;

                /* VDs first, then their members and properties, whatever the key order. The
                 * "PDs for VD n" / "VDn Properties" keys do not name the controller; they belong
                 * to the controller of this response (VD numbers repeat across controllers). */
                rd_cid[0] = 0;
                json_object_object_foreach(rd, key, val) {
                        char cid[16], vid[16];
                        ControllerVolume *v;

                        if (!parse_vd_key(key, cid, vid) ||
                            !json_object_is_type(val, json_type_array) ||
                            json_object_array_length(val) < 1)
                                continue;
                        v = list_find(&l, cid, vid) ?: list_add(&l, cid, vid);
                        if (!v)
                                return -ENOMEM;
                        r = storcli_fill_vd(v, json_object_array_get_idx(val, 0));
                        if (r < 0)
                                return r;
                        memcpy(rd_cid, cid, sizeof(rd_cid));
                }
                r = storcli_parse_vd_list(&l, c, rd);
                if (r < 0)
                        return r;
                if (!rd_cid[0])
                        continue;
                json_object_object_foreach(rd, key2, val2) {
                        char id[16];
                        ControllerVolume *v;

                        if (parse_suffix_id(key2, "PDs for VD ", "", id) &&
                            json_object_is_type(val2, json_type_array)) {
                                v = list_find(&l, rd_cid, id);
                                if (v && (r = storcli_fill_pds(v, val2)) < 0)
                                        return r;
                        } else if (parse_suffix_id(key2, "VD", " Properties", id) &&
                                   json_object_is_type(val2, json_type_object)) {
                                v = list_find(&l, rd_cid, id);
                                if (v && (r = set_str(&v->os_device,
                                                      json_get_str(val2, "OS Drive Name"))) < 0)
                                        return r;
                                if (v && (r = set_naa(&v->naa_id,
                                                      json_get_str(val2, "SCSI NAA Id"))) < 0)
                                        return r;
                        }
                }
        }
        if (n_ok == 0 && n_fail > 0)
                return -EIO;
        if (n_ok == 0)
                return -EBADMSG;

        *ret = l;
        l = (ControllerVolumeList){};
        return 0;
}

int storcli_apply_rebuild(ControllerVolumeList *l, const char *text, size_t size) {
        _cleanup_(json_putp) json_object *root = NULL;
        json_object *ctrls;
        size_t n;
        int updated = 0;

        if (!l)
                return -EINVAL;
        root = json_parse_buffer(text, size);
        ctrls = json_get(root, "Controllers", json_type_array);
        if (!ctrls)
                return -EBADMSG;

        n = json_object_array_length(ctrls);
        for (size_t i = 0; i < n; i++) {
                json_object *rd = json_get(json_object_array_get_idx(ctrls, i), "Response Data",
                                           json_type_array);
                size_t m = rd ? json_object_array_length(rd) : 0;

                for (size_t j = 0; j < m; j++) {
                        json_object *row = json_object_array_get_idx(rd, j), *pct;
                        const char *drive = json_get_str(row, "Drive-ID"),
                                   *status = json_get_str(row, "Status");
                        double progress = CONTROLLER_PROGRESS_UNKNOWN;
                        usec_t eta = USEC_INFINITY;

                        if (!drive || !status || strcasecmp(status, "In progress") != 0)
                                continue;
                        /* an integer, or "-" (some versions print numbers as strings) */
                        pct = json_get(row, "Progress%", json_type_int);
                        if (pct) {
                                int64_t p = json_object_get_int64(pct);

                                if (p >= 0 && p <= 100)
                                        progress = (double) p / 100.0;
                        } else
                                (void) parse_percent(json_get_str(row, "Progress%"), &progress);
                        (void) parse_eta(json_get_str(row, "Estimated Time Left"), &eta);

                        for (size_t k = 0; k < l->n; k++) {
                                ControllerVolume *v = &l->volumes[k];
                                char *op;

                                if (!v->rebuild_drive || strcasecmp(v->rebuild_drive, drive) != 0)
                                        continue;
                                op = strdup("Rebuild");
                                if (!op)
                                        return -ENOMEM;
                                free(v->operation);
                                v->operation = op;
                                v->state = CONTROLLER_VOLUME_REBUILDING;
                                v->progress = progress;
                                v->eta_usec = eta;
                                updated++;
                        }
                }
        }
        return updated;
}

/* ---- line-oriented text (ssacli, arcconf) ---- */

typedef struct LineIter {
        const char *p, *end;
        char buf[1024];
} LineIter;

/* Next line (without '\n', '\r' stripped, NULs replaced, overlong lines truncated) or NULL. */
static const char *line_next(LineIter *it) {
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

static size_t indent_of(const char *line) {
        return strspn(line, " \t");
}

/* Split "Key: Value" / "Key    : Value" at the first ':'; trims both. Returns false if no ':'
 * or empty key. */
static bool split_kv(char *line, char **ret_key, char **ret_value) {
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

static int ssacli_set_state(ControllerVolume *v, const char *status) {
        double p;
        int r;

        v->state = ssacli_ld_state_from_string(status, &p);
        r = set_str(&v->state_raw, status);
        if (r < 0)
                return r;
        if (v->state == CONTROLLER_VOLUME_REBUILDING) {
                r = set_str(&v->operation, "Rebuild");
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

        v = list_find(l, ctrl, id) ?: list_add(l, ctrl, id);
        if (!v)
                return -ENOMEM;
        if (parse_size_binary(fields[0], &bytes) >= 0)
                v->size_bytes = bytes;
        r = set_str(&v->raid_level, fields[1]);
        if (r < 0)
                return r;
        {
                _cleanup_free_ char *status = NULL;

                r = set_str(&status, fields[2]);
                if (r < 0)
                        return r;
                return ssacli_set_state(v, status);
        }
}

int ssacli_parse_config(const char *text, size_t size, ControllerVolumeList *ret) {
        _cleanup_(list_donep) ControllerVolumeList l = {};
        LineIter it = { .p = text, .end = text ? text + size : NULL };
        char ctrl[32] = "";
        ControllerVolume *cur = NULL;
        size_t cur_indent = 0;
        bool saw_ctrl = false, saw_error = false;
        const char *line;

        if (!ret)
                return -EINVAL;
        if (!text)
                return -EBADMSG;

        while ((line = line_next(&it))) {
                char *mut = it.buf, *key, *value;
                int r = 0;
                const char *t = line + indent_of(line), *slot;
                size_t ind = indent_of(line);

                if (!*t)
                        continue;
                if (cur && ind <= cur_indent)
                        cur = NULL;

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
                if (startswith_ci(t, "Error:")) {
                        saw_error = true;
                        continue;
                }
                if (!saw_ctrl)
                        continue;
                if (startswith_ci(t, "logicaldrive ") && strchr(t, '(')) {
                        r = ssacli_short_line(&l, ctrl, t);
                        if (r < 0)
                                return r;
                        continue;
                }
                if (startswith_ci(t, "Logical Drive:")) {
                        const char *id = t + strlen("Logical Drive:");
                        char buf[32];
                        size_t n;

                        id += strspn(id, " \t");
                        n = strspn(id, "0123456789");
                        if (n == 0 || n >= sizeof(buf))
                                continue;
                        memcpy(buf, id, n);
                        buf[n] = 0;
                        cur = list_find(&l, ctrl, buf) ?: list_add(&l, ctrl, buf);
                        if (!cur)
                                return -ENOMEM;
                        cur_indent = ind;
                        continue;
                }
                if (!cur || !split_kv(mut, &key, &value))
                        continue;
                if (strcasecmp(key, "Size") == 0) {
                        uint64_t bytes;

                        if (parse_size_binary(value, &bytes) >= 0)
                                cur->size_bytes = bytes;
                } else if (strcasecmp(key, "Fault Tolerance") == 0)
                        r = set_str(&cur->raid_level, value);
                else if (strcasecmp(key, "Status") == 0)
                        r = ssacli_set_state(cur, value);
                else if (strcasecmp(key, "Disk Name") == 0)
                        r = set_str(&cur->os_device, value);
                else if (strcasecmp(key, "Unique Identifier") == 0)
                        r = set_naa(&cur->naa_id, value);
                else if (strcasecmp(key, "Logical Drive Label") == 0)
                        r = set_str(&cur->name, value);
                else
                        r = 0;
                if (r < 0)
                        return r;
        }

        if (l.n == 0 && !saw_ctrl)
                return saw_error ? -ENODATA : -EBADMSG;

        *ret = l;
        l = (ControllerVolumeList){};
        return 0;
}

static bool arcconf_marker(const char *t) {
        return startswith_ci(t, "Controllers found:") || startswith_ci(t, "Command completed");
}

int arcconf_parse_ld(const char *text, size_t size, const char *controller,
                     ControllerVolumeList *ret) {
        _cleanup_(list_donep) ControllerVolumeList l = {};
        LineIter it = { .p = text, .end = text ? text + size : NULL };
        ControllerVolume *cur = NULL;
        bool saw_marker = false;
        const char *line;

        if (!ret || !controller)
                return -EINVAL;
        if (!text)
                return -EBADMSG;

        while ((line = line_next(&it))) {
                const char *t = line + indent_of(line);
                char *key, *value;
                int r = 0;

                if (!*t)
                        continue;
                if (arcconf_marker(t)) {
                        saw_marker = true;
                        continue;
                }
                if (startswith_ci(t, "Logical device number") && indent_of(line) == 0) {
                        const char *id = t + strlen("Logical device number");
                        char buf[32];
                        size_t n;

                        id += strspn(id, " \t");
                        n = strspn(id, "0123456789");
                        if (n == 0 || n >= sizeof(buf)) {
                                cur = NULL;
                                continue;
                        }
                        memcpy(buf, id, n);
                        buf[n] = 0;
                        cur = list_find(&l, controller, buf) ?: list_add(&l, controller, buf);
                        if (!cur)
                                return -ENOMEM;
                        continue;
                }
                if (indent_of(line) == 0) {
                        /* a section rule or header ends the logical device block */
                        cur = NULL;
                        continue;
                }
                if (!cur || !split_kv(it.buf, &key, &value))
                        continue;
                if (strcasecmp(key, "Logical device name") == 0)
                        r = set_str(&cur->name, value);
                else if (strcasecmp(key, "RAID level") == 0)
                        r = set_str(&cur->raid_level, value);
                else if (strcasecmp(key, "Status of logical device") == 0) {
                        cur->state = arcconf_ld_state_from_string(value);
                        r = set_str(&cur->state_raw, value);
                } else if (strcasecmp(key, "Size") == 0) {
                        uint64_t bytes;

                        if (parse_size_binary(value, &bytes) >= 0)
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
                r = set_str(&v->operation, t->op);
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
        LineIter it = { .p = text, .end = text ? text + size : NULL };
        ArcconfTask task = {};
        bool saw_marker = false;
        const char *line;
        int updated = 0, r;

        if (!l)
                return -EINVAL;
        if (!text)
                return -EBADMSG;

        /* Validate first so that `l` stays untouched on garbage. */
        while ((line = line_next(&it)))
                if (arcconf_marker(line + indent_of(line)))
                        saw_marker = true;
        if (!saw_marker)
                return -EBADMSG;

        it = (LineIter){ .p = text, .end = text + size };
        while ((line = line_next(&it))) {
                const char *t = line + indent_of(line);
                char *key, *value;

                if (indent_of(line) == 0 && *t) {
                        r = arcconf_task_apply(l, &task);
                        if (r < 0)
                                return r;
                        updated += r;
                        task = (ArcconfTask){ .progress = CONTROLLER_PROGRESS_UNKNOWN };
                        task.active = startswith_ci(t, "Logical device Task");
                        continue;
                }
                if (!task.active || !split_kv(it.buf, &key, &value))
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

                        if (parse_percent(value, &p) >= 0)
                                task.progress = p;
                }
        }
        r = arcconf_task_apply(l, &task);
        if (r < 0)
                return r;
        return updated + r;
}

static const char *const volume_state_table[_CONTROLLER_VOLUME_STATE_MAX] = {
        [CONTROLLER_VOLUME_OPTIMAL] = "optimal",       [CONTROLLER_VOLUME_DEGRADED] = "degraded",
        [CONTROLLER_VOLUME_REBUILDING] = "rebuilding", [CONTROLLER_VOLUME_FAILED] = "failed",
        [CONTROLLER_VOLUME_OFFLINE] = "offline",       [CONTROLLER_VOLUME_UNKNOWN] = "unknown",
};

DEFINE_STRING_TABLE_LOOKUP(controller_volume_state, ControllerVolumeState, volume_state_table)

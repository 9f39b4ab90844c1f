/* SPDX-License-Identifier: MIT */
/* Broadcom storcli/perccli: JSON output (`/call show all J`, `/call/vall show rebuild J`) into
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
/* The "Controllers" array of a storcli JSON document (root keeps the parsed tree), or NULL if the
 * text is not one. */
/* The "Controllers" array of a storcli JSON reply and its length, or NULL. */
static json_object *storcli_controllers(const char *text, size_t size, json_object **root,
                                        size_t *ret_n) {
        json_object *ctrls;

        *root = json_parse_buffer(text, size);
        ctrls = json_get(*root, "Controllers", json_type_array);
        *ret_n = ctrls ? json_object_array_length(ctrls) : 0;
        return ctrls;
}

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

        r = ccli_set_str(&v->raid_level, json_get_str(vd, "TYPE"));
        if (r < 0)
                return r;
        r = ccli_set_str(&v->name, json_get_str(vd, "Name"));
        if (r < 0)
                return r;
        r = ccli_set_str(&v->state_raw, state);
        if (r < 0)
                return r;
        v->state = storcli_vd_state_from_string(state);
        if (size && ccli_parse_size_binary(size, &bytes) >= 0)
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
                v = ccli_list_find(l, cid, vid) ?: ccli_list_add(l, cid, vid);
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

/* One controller's "Response Data": its VDs first, then their members and properties, whatever
 * the key order. The "PDs for VD n" / "VDn Properties" keys do not name the controller; they
 * belong to the controller of this response (VD numbers repeat across controllers). */
static int storcli_parse_response(ControllerVolumeList *l, json_object *c, json_object *rd) {
        char rd_cid[16] = "";
        int r;

        json_object_object_foreach(rd, key, val) {
                char cid[16], vid[16];
                ControllerVolume *v;

                if (!parse_vd_key(key, cid, vid) || !json_object_is_type(val, json_type_array) ||
                    json_object_array_length(val) < 1)
                        continue;
                v = ccli_list_find(l, cid, vid) ?: ccli_list_add(l, cid, vid);
                if (!v)
                        return -ENOMEM;
                r = storcli_fill_vd(v, json_object_array_get_idx(val, 0));
                if (r < 0)
                        return r;
                memcpy(rd_cid, cid, sizeof(rd_cid));
        }
        r = storcli_parse_vd_list(l, c, rd);
        if (r < 0 || !rd_cid[0])
                return r;
        json_object_object_foreach(rd, key2, val2) {
                char id[16];
                ControllerVolume *v;

                if (parse_suffix_id(key2, "PDs for VD ", "", id) &&
                    json_object_is_type(val2, json_type_array)) {
                        v = ccli_list_find(l, rd_cid, id);
                        if (v && (r = storcli_fill_pds(v, val2)) < 0)
                                return r;
                } else if (parse_suffix_id(key2, "VD", " Properties", id) &&
                           json_object_is_type(val2, json_type_object)) {
                        v = ccli_list_find(l, rd_cid, id);
                        if (v && (r = ccli_set_str(&v->os_device,
                                                   json_get_str(val2, "OS Drive Name"))) < 0)
                                return r;
                        if (v &&
                            (r = ccli_set_naa(&v->naa_id, json_get_str(val2, "SCSI NAA Id"))) < 0)
                                return r;
                }
        }
        return 0;
}

int storcli_parse_volumes(const char *text, size_t size, ControllerVolumeList *ret) {
        _cleanup_(controller_volume_list_donep) ControllerVolumeList l = {};
        _cleanup_(json_putp) json_object *root = NULL;
        json_object *ctrls;
        size_t n, n_ok = 0, n_fail = 0;
        int r;

        if (!ret)
                return -EINVAL;
        ctrls = storcli_controllers(text, size, &root, &n);
        if (!ctrls)
                return -EBADMSG;
        for (size_t i = 0; i < n; i++) {
                json_object *c = json_object_array_get_idx(ctrls, i), *rd, *cs;
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

                r = storcli_parse_response(&l, c, rd);
                if (r < 0)
                        return r;
        }
        if (n_ok == 0 && n_fail > 0)
                return -EIO;
        if (n_ok == 0)
                return -EBADMSG;

        *ret = l;
        l = (ControllerVolumeList){};
        return 0;
}

/* One row of "show rebuild" onto the volumes rebuilding that drive: how many, or -ENOMEM. */
static int storcli_apply_row(ControllerVolumeList *l, json_object *row) {
        const char *drive = json_get_str(row, "Drive-ID"), *status = json_get_str(row, "Status");
        double progress = CONTROLLER_PROGRESS_UNKNOWN;
        usec_t eta = USEC_INFINITY;
        json_object *pct;
        int updated = 0;

        if (!drive || !status || strcasecmp(status, "In progress") != 0)
                return 0;
        /* an integer, or "-" (some versions print numbers as strings) */
        pct = json_get(row, "Progress%", json_type_int);
        if (pct) {
                int64_t p = json_object_get_int64(pct);

                if (p >= 0 && p <= 100)
                        progress = (double) p / 100.0;
        } else
                (void) ccli_parse_percent(json_get_str(row, "Progress%"), &progress);
        (void) ccli_parse_eta(json_get_str(row, "Estimated Time Left"), &eta);

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
        return updated;
}

int storcli_apply_rebuild(ControllerVolumeList *l, const char *text, size_t size) {
        _cleanup_(json_putp) json_object *root = NULL;
        json_object *ctrls;
        size_t n;
        int updated = 0;

        if (!l)
                return -EINVAL;
        ctrls = storcli_controllers(text, size, &root, &n);
        if (!ctrls)
                return -EBADMSG;
        for (size_t i = 0; i < n; i++) {
                json_object *rd = json_get(json_object_array_get_idx(ctrls, i), "Response Data",
                                           json_type_array);
                size_t m = rd ? json_object_array_length(rd) : 0;

                for (size_t j = 0; j < m; j++) {
                        int r = storcli_apply_row(l, json_object_array_get_idx(rd, j));

                        if (r < 0)
                                return r;
                        updated += r;
                }
        }
        return updated;
}

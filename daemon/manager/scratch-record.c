/* SPDX-License-Identifier: MIT */
/* The write probe's directory record (see scratch-record.h). */

#include <errno.h>
#include <json-c/json.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/sysfs.h"
#include "manager/scratch-record.h"

static int dirs_from(json_object *a, char ***ret_dirs) {
        _cleanup_strv_free_ char **l = NULL;

        for (size_t i = 0; i < json_object_array_length(a); i++) {
                json_object *d = json_object_array_get_idx(a, i);

                if (!json_object_is_type(d, json_type_string) ||
                    json_object_get_string(d)[0] != '/' ||
                    strlen(json_object_get_string(d)) != (size_t) json_object_get_string_len(d))
                        continue; /* not a path (or one with a NUL in it) */
                if (strv_extend_unique(&l, json_object_get_string(d)) < 0)
                        return -ENOMEM;
        }
        *ret_dirs = l;
        l = NULL;
        return 0;
}

int scratch_record_parse(const char *text, size_t size, char ***ret_dirs) {
        json_tokener *tok = json_tokener_new();
        json_object *doc = NULL, *v, *a;
        int r;

        *ret_dirs = NULL;
        if (!tok)
                return -ENOMEM;
        if (size <= INT32_MAX)
                doc = json_tokener_parse_ex(tok, text, (int) size);
        if (!doc || json_tokener_get_error(tok) != json_tokener_success)
                r = -EBADMSG;
        else if (json_object_object_get_ex(doc, "version", &v) &&
                 json_object_is_type(v, json_type_int) &&
                 json_object_get_int64(v) > SCRATCH_RECORD_VERSION)
                r = -EPROTONOSUPPORT;
        else if (json_object_object_get_ex(doc, "directories", &a) &&
                 json_object_is_type(a, json_type_array))
                r = dirs_from(a, ret_dirs);
        else
                r = -EBADMSG;
        json_object_put(doc);
        json_tokener_free(tok);
        return r;
}

int scratch_record_format(char *const *dirs, char **ret) {
        json_object *doc = json_object_new_object();
        int r = -ENOMEM;

        *ret = NULL;
        if (doc && json_add_u64(doc, "version", SCRATCH_RECORD_VERSION) >= 0 &&
            json_add_strv(doc, "directories", dirs) >= 0) {
                *ret = strdup(json_object_to_json_string_ext(
                        doc, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
                r = *ret ? 0 : -ENOMEM;
        }
        json_object_put(doc);
        return r;
}

/* SPDX-License-Identifier: MIT */
/* The baseline state file (format in the header). Parsing walks the json-c tree with a table of
 * known keys per object and rejects everything else; formatting builds the tree back. json-c
 * prints doubles with 17 significant digits, so a value survives the round trip exactly. */

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/baseline-file.h"
#include "basic/json-util.h"
#include "basic/fileio.h"

#define streq(a, b) (strcmp((a), (b)) == 0)

static json_object *json_object_put_null(json_object *o) {
        (void) json_object_put(o);
        return NULL;
}
DEFINE_TRIVIAL_CLEANUP_FUNC(json_object *, json_object_put_null);

static void json_tokener_freep(json_tokener **t) {
        if (*t)
                json_tokener_free(*t);
}

static bool label_ok(const char *s, size_t max) {
        size_t n = strnlen(s, max);

        if (n == 0 || n >= max)
                return false;
        for (size_t i = 0; i < n; i++)
                if ((unsigned char) s[i] < 0x20 || s[i] == 0x7f)
                        return false;
        return true;
}

static int get_u64(json_object *v, uint64_t max, uint64_t *ret) {
        int64_t i;
        uint64_t u;

        if (!json_object_is_type(v, json_type_int))
                return -EBADMSG;
        /* json-c clamps out-of-range integers (to INT64_MAX or UINT64_MAX): a value must read the
         * same both ways and stay below INT64_MAX, so a clamped one never passes. */
        i = json_object_get_int64(v);
        u = json_object_get_uint64(v);
        if (i < 0 || (uint64_t) i != u || u >= (uint64_t) INT64_MAX || u > max)
                return -EBADMSG;
        *ret = u;
        return 0;
}

static int parse_values(json_object *o, unsigned window, BaselineRing rings[]) {
        if (!json_object_is_type(o, json_type_object))
                return -EBADMSG;
        json_object_object_foreach(o, key, val) {
                BaselineMetric m = baseline_metric_from_string(key);
                size_t n;

                if (m < 0 || !json_object_is_type(val, json_type_array))
                        return -EBADMSG;
                n = json_object_array_length(val);
                if (n > window)
                        return -EBADMSG;
                rings[m] = (BaselineRing){};
                for (size_t i = 0; i < n; i++) {
                        json_object *e = json_object_array_get_idx(val, i);
                        double d;

                        if (!json_object_is_type(e, json_type_double) &&
                            !json_object_is_type(e, json_type_int))
                                return -EBADMSG;
                        d = json_object_get_double(e);
                        if (!isfinite(d) || d < 0)
                                return -EBADMSG;
                        baseline_ring_push(&rings[m], window, d);
                }
        }
        return 0;
}

static int parse_reference(json_object *o, double ret[]) {
        if (!json_object_is_type(o, json_type_object))
                return -EBADMSG;
        json_object_object_foreach(o, key, val) {
                BaselineMetric m = baseline_metric_from_string(key);
                double d;

                if (m < 0 || (!json_object_is_type(val, json_type_double) &&
                              !json_object_is_type(val, json_type_int)))
                        return -EBADMSG;
                d = json_object_get_double(val);
                if (!isfinite(d) || d < 0)
                        return -EBADMSG;
                ret[m] = d;
        }
        return 0;
}

static int parse_entry(json_object *o, Baseline *ret) {
        json_object *values = NULL, *rebuild = NULL, *reference = NULL;
        bool have_identity = false, have_window = false, have_generation = false;
        uint64_t u;
        Baseline b;
        int r;

        if (!json_object_is_type(o, json_type_object))
                return -EBADMSG;
        baseline_init(&b, "", NULL, BASELINE_WINDOW_DEFAULT, 0);

        json_object_object_foreach(o, key, val) {
                if (streq(key, "identity") || streq(key, "name")) {
                        bool id = streq(key, "identity");
                        size_t max = id ? sizeof(b.identity) : sizeof(b.name);
                        const char *s;

                        if (!json_object_is_type(val, json_type_string))
                                return -EBADMSG;
                        s = json_object_get_string(val);
                        if ((size_t) json_object_get_string_len(val) != strlen(s) ||
                            !label_ok(s, max))
                                return -EBADMSG;
                        strcpy(id ? b.identity : b.name, s);
                        have_identity = have_identity || id;
                } else if (streq(key, "window")) {
                        r = get_u64(val, BASELINE_WINDOW_MAX, &u);
                        if (r < 0 || u == 0)
                                return -EBADMSG;
                        b.window = (unsigned) u;
                        have_window = true;
                } else if (streq(key, "generation")) {
                        r = get_u64(val, INT64_MAX, &b.generation);
                        if (r < 0 || b.generation == 0)
                                return -EBADMSG;
                        have_generation = true;
                } else if (streq(key, "learned_runs")) {
                        if (get_u64(val, INT64_MAX, &b.learned_runs) < 0)
                                return -EBADMSG;
                } else if (streq(key, "since_realtime_usec")) {
                        if (get_u64(val, INT64_MAX, &b.since_realtime_usec) < 0)
                                return -EBADMSG;
                } else if (streq(key, "updated_realtime_usec")) {
                        if (get_u64(val, INT64_MAX, &b.updated_realtime_usec) < 0)
                                return -EBADMSG;
                } else if (streq(key, "rebuild_realtime_usec")) {
                        if (get_u64(val, INT64_MAX, &b.rebuild_realtime_usec) < 0)
                                return -EBADMSG;
                } else if (streq(key, "values"))
                        values = val;
                else if (streq(key, "rebuild_values"))
                        rebuild = val;
                else if (streq(key, "reference"))
                        reference = val;
                else
                        return -EBADMSG;
        }
        if (!have_identity || !have_window || !have_generation || !values)
                return -EBADMSG;
        /* Values are checked against the window, which may come after them in the object. */
        r = parse_values(values, b.window, b.ring);
        if (r < 0)
                return r;
        if (rebuild) {
                r = parse_values(rebuild, b.window, b.rebuild);
                if (r < 0)
                        return r;
        }
        if (reference) {
                r = parse_reference(reference, b.reference);
                if (r < 0)
                        return r;
        }
        *ret = b;
        return 0;
}

int baseline_file_parse(const char *text, size_t size, BaselineSet **ret) {
        _cleanup_(json_tokener_freep) json_tokener *tok = NULL;
        _cleanup_(json_object_put_nullp) json_object *root = NULL;
        _cleanup_(baseline_set_freep) BaselineSet *set = NULL;
        json_object *list = NULL;
        bool have_format = false, have_version = false;
        size_t end;
        int r;

        if (!text || !ret)
                return -EINVAL;
        if (size > READ_FULL_FILE_MAX || memchr(text, 0, size) || size > INT32_MAX)
                return -EBADMSG;

        tok = json_tokener_new_ex(8);
        if (!tok)
                return -ENOMEM;
        json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8 |
                                            JSON_TOKENER_ALLOW_TRAILING_CHARS);
        root = json_tokener_parse_ex(tok, text, (int) size);
        if (!root || json_tokener_get_error(tok) != json_tokener_success)
                return -EBADMSG;
        end = json_tokener_get_parse_end(tok);
        for (size_t i = end; i < size; i++)
                if (!strchr(" \t\r\n", text[i]))
                        return -EBADMSG;
        if (!json_object_is_type(root, json_type_object))
                return -EBADMSG;

        json_object_object_foreach(root, key, val) {
                if (streq(key, "format")) {
                        if (!json_object_is_type(val, json_type_string) ||
                            !streq(json_object_get_string(val), BASELINE_FILE_FORMAT))
                                return -EBADMSG;
                        have_format = true;
                } else if (streq(key, "version")) {
                        uint64_t v;

                        if (get_u64(val, INT64_MAX, &v) < 0 || v == 0)
                                return -EBADMSG;
                        if (v != BASELINE_FILE_VERSION)
                                return -EPROTONOSUPPORT;
                        have_version = true;
                } else if (streq(key, "baselines")) {
                        if (!json_object_is_type(val, json_type_array))
                                return -EBADMSG;
                        list = val;
                } else
                        return -EBADMSG;
        }
        if (!have_format || !have_version || !list)
                return -EBADMSG;
        if (json_object_array_length(list) > BASELINE_FILE_ENTRIES_MAX)
                return -EBADMSG;

        r = baseline_set_new(&set);
        if (r < 0)
                return r;
        for (size_t i = 0; i < json_object_array_length(list); i++) {
                Baseline b;

                r = parse_entry(json_object_array_get_idx(list, i), &b);
                if (r < 0)
                        return r;
                r = baseline_set_add(set, &b);
                if (r == -EEXIST)
                        return -EBADMSG;
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(set);
        return 0;
}

/* The parser takes counts and times up to INT64_MAX - 1; a larger one is written as that. */
#define U64_WRITTEN(v) MIN((uint64_t) (v), (uint64_t) INT64_MAX - 1)

static int format_values(const BaselineRing rings[], json_object **ret) {
        _cleanup_(json_object_put_nullp) json_object *o = json_object_new_object();

        if (!o)
                return -ENOMEM;
        for (BaselineMetric m = 0; m < _BASELINE_METRIC_MAX; m++) {
                json_object *a;

                if (rings[m].n == 0)
                        continue;
                a = json_object_new_array_ext((int) rings[m].n);
                if (!a || json_object_object_add(o, baseline_metric_to_string(m), a) < 0) {
                        json_object_put(a);
                        return -ENOMEM;
                }
                for (unsigned i = 0; i < rings[m].n && i < BASELINE_WINDOW_MAX; i++) {
                        json_object *d = json_object_new_double(
                                rings[m].v[(rings[m].first + i) % BASELINE_WINDOW_MAX]);

                        if (!d || json_object_array_add(a, d) < 0) {
                                json_object_put(d);
                                return -ENOMEM;
                        }
                }
        }
        *ret = TAKE_PTR(o);
        return 0;
}

static int format_entry(const Baseline *b, json_object **ret) {
        _cleanup_(json_object_put_nullp) json_object *o = json_object_new_object();
        json_object *v = NULL;
        bool any_rebuild = false;
        int r;

        if (!o)
                return -ENOMEM;
        r = json_add_str(o, "identity", b->identity);
        if (r >= 0 && b->name[0])
                r = json_add_str(o, "name", b->name);
        if (r >= 0)
                r = json_add_u64(o, "window", U64_WRITTEN(b->window));
        if (r >= 0)
                r = json_add_u64(o, "generation", U64_WRITTEN(b->generation));
        if (r >= 0)
                r = json_add_u64(o, "learned_runs", U64_WRITTEN(b->learned_runs));
        if (r >= 0)
                r = json_add_u64(o, "since_realtime_usec", U64_WRITTEN(b->since_realtime_usec));
        if (r >= 0)
                r = json_add_u64(o, "updated_realtime_usec", U64_WRITTEN(b->updated_realtime_usec));
        if (r >= 0)
                r = json_add_u64(o, "rebuild_realtime_usec", U64_WRITTEN(b->rebuild_realtime_usec));
        if (r < 0)
                return r;

        r = format_values(b->ring, &v);
        if (r < 0)
                return r;
        if (json_object_object_add(o, "values", v) < 0) {
                json_object_put(v);
                return -ENOMEM;
        }
        v = json_object_new_object();
        if (!v || json_object_object_add(o, "reference", v) < 0) {
                json_object_put(v);
                return -ENOMEM;
        }
        for (BaselineMetric m = 0; m < _BASELINE_METRIC_MAX; m++)
                if (isfinite(b->reference[m])) {
                        json_object *d = json_object_new_double(b->reference[m]);

                        if (!d || json_object_object_add(v, baseline_metric_to_string(m), d) < 0) {
                                json_object_put(d);
                                return -ENOMEM;
                        }
                }
        for (BaselineMetric m = 0; m < _BASELINE_METRIC_MAX; m++)
                any_rebuild = any_rebuild || b->rebuild[m].n > 0;
        if (any_rebuild) {
                r = format_values(b->rebuild, &v);
                if (r < 0)
                        return r;
                if (json_object_object_add(o, "rebuild_values", v) < 0) {
                        json_object_put(v);
                        return -ENOMEM;
                }
        }
        *ret = TAKE_PTR(o);
        return 0;
}

int baseline_file_format(const BaselineSet *s, char **ret) {
        _cleanup_(json_object_put_nullp) json_object *root = json_object_new_object();
        json_object *list;
        const char *text;
        char *out;
        int r;

        if (!root || !ret)
                return -ENOMEM;
        r = json_add_str(root, "format", BASELINE_FILE_FORMAT);
        if (r >= 0)
                r = json_add_u64(root, "version", U64_WRITTEN(BASELINE_FILE_VERSION));
        if (r < 0)
                return r;
        list = json_object_new_array();
        if (!list || json_object_object_add(root, "baselines", list) < 0) {
                json_object_put(list);
                return -ENOMEM;
        }
        for (size_t i = 0; s && i < s->n; i++) {
                json_object *e;

                r = format_entry(&s->items[i], &e);
                if (r < 0)
                        return r;
                if (json_object_array_add(list, e) < 0) {
                        json_object_put(e);
                        return -ENOMEM;
                }
        }
        text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
                                                            JSON_C_TO_STRING_SPACED |
                                                            JSON_C_TO_STRING_NOSLASHESCAPE);
        if (!text || asprintf(&out, "%s\n", text) < 0)
                return -ENOMEM;
        *ret = out;
        return 0;
}

/* SPDX-License-Identifier: MIT */
/* The JSON helpers of json-util.h. json-c prints a double with 17 significant digits
 * ("0.10000000000000001"); every number here carries a printed form of at most
 * JSON_NUMBER_DIGITS digits instead (json_object_new_double_s), the rule docs/json.md states for
 * every output. The builders consume what they are given, so a caller's error path is a single
 * json_object_put() of the object it builds. */

#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "basic/json-util.h"
#include "basic/macro.h"

json_object *json_number_new(double d) {
        char buf[32];

        if (!isfinite(d))
                return NULL;
        if (d == 0)
                d = 0; /* no "-0" */
        (void) snprintf(buf, sizeof(buf), "%.*g", JSON_NUMBER_DIGITS, d);
        return json_object_new_double_s(d, buf);
}

json_object *json_number_new_rounded(double d, unsigned decimals) {
        double k = pow(10, MIN(decimals, 15u));

        return isfinite(d) ? json_number_new(round(d * k) / k) : NULL;
}

int json_add(json_object *o, const char *key, json_object *val) {
        if (json_object_object_add(o, key, val) < 0) {
                json_object_put(val);
                return -ENOMEM;
        }
        return 0;
}

int json_add_str(json_object *o, const char *key, const char *s) {
        json_object *j = NULL;

        if (s && !(j = json_object_new_string(s)))
                return -ENOMEM;
        return json_add(o, key, j);
}

int json_add_u64(json_object *o, const char *key, uint64_t u) {
        json_object *j = json_object_new_uint64(u);

        return j ? json_add(o, key, j) : -ENOMEM;
}

int json_add_int(json_object *o, const char *key, int64_t i) {
        json_object *j = json_object_new_int64(i);

        return j ? json_add(o, key, j) : -ENOMEM;
}

int json_add_bool(json_object *o, const char *key, bool b) {
        json_object *j = json_object_new_boolean(b);

        return j ? json_add(o, key, j) : -ENOMEM;
}

int json_add_number(json_object *o, const char *key, double d) {
        json_object *j = json_number_new(d);

        if (!j && isfinite(d))
                return -ENOMEM;
        return json_add(o, key, j);
}

int json_add_u64_if(json_object *o, const char *key, bool cond, uint64_t u) {
        return cond ? json_add_u64(o, key, u) : json_add(o, key, NULL);
}

int json_add_usec_as_seconds(json_object *o, const char *key, uint64_t usec, bool zero_is_null) {
        if (usec == 0 && zero_is_null)
                return json_add(o, key, NULL);
        return json_add_number(o, key, (double) usec / 1e6);
}

int json_add_strv(json_object *o, const char *key, char *const *l) {
        json_object *a = json_object_new_array();

        if (!a)
                return -ENOMEM;
        for (size_t i = 0; l && l[i]; i++) {
                json_object *s = json_object_new_string(l[i]);

                if (!s || json_array_append(a, s) < 0) {
                        json_object_put(a);
                        return -ENOMEM;
                }
        }
        return json_add(o, key, a);
}

int json_array_append(json_object *a, json_object *val) {
        if (json_object_array_add(a, val) < 0) {
                json_object_put(val);
                return -ENOMEM;
        }
        return 0;
}

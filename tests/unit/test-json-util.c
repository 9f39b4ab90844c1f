/* SPDX-License-Identifier: MIT */
/* basic/json-util: numbers printed with at most 10 significant digits (the documented rule; the
 * expected strings written by hand), null for NaN/inf, rounding to decimals, and the builders'
 * ownership (a NULL value is null, a usec time of 0 can be null, a NULL list an empty array). */

#include <math.h>
#include <string.h>

#include "basic/json-util.h"
#include "basic/macro.h"
#include "tap.h"

static void test_numbers(void) {
        static const struct {
                double d;
                const char *want;
        } t[] = {
                { 0.1, "0.1" },         /* json-c alone: 0.10000000000000001 */
                { 19103.6, "19103.6" }, /* report's rate, 17 digits before */
                { 157286400.33333333, "157286400.3" },
                { 1764982800.654321, "1764982801" }, /* a timestamp: whole seconds */
                { 0.0015, "0.0015" },
                { 7.413e-05, "7.413e-05" },
                { 4000787030016.0, "4.00078703e+12" }, /* %g drops the 10th digit, a 0 */
                { -0.0, "0" },
                { 42, "42" },
        };

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                json_object *j = json_number_new(t[i].d);

                is_str(j ? json_object_to_json_string(j) : "(null)", t[i].want, "%.17g prints %s",
                       t[i].d, t[i].want);
                json_object_put(j);
        }
        ok(!json_number_new(NAN) && !json_number_new(INFINITY), "NaN and inf are null");
}

static void test_rounded(void) {
        json_object *j = json_number_new_rounded(0.0862745098, 6);

        is_str(json_object_to_json_string(j), "0.086275", "6 decimals");
        json_object_put(j);
        j = json_number_new_rounded(12.3456, 0);
        is_str(json_object_to_json_string(j), "12", "0 decimals");
        json_object_put(j);
        ok(!json_number_new_rounded(NAN, 3), "NaN rounded is null");
}

static void test_builders(void) {
        json_object *o = json_object_new_object();
        char *const l[] = { (char *) "vda", (char *) "vdb", NULL };

        is_int(json_add_str(o, "s", NULL), 0, "NULL string");
        is_int(json_add_u64(o, "u", UINT64_MAX), 0, "u64");
        is_int(json_add_number(o, "n", NAN), 0, "NaN number");
        is_int(json_add_usec_as_seconds(o, "t", 0, true), 0, "time 0 as null");
        is_int(json_add_usec_as_seconds(o, "d", 1500000, false), 0, "1.5 s");
        is_int(json_add_u64_if(o, "c", false, 7), 0, "condition false");
        is_int(json_add_strv(o, "l", l), 0, "list");
        is_int(json_add_strv(o, "e", NULL), 0, "no list");
        is_str(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
               "{\"s\":null,\"u\":18446744073709551615,\"n\":null,\"t\":null,\"d\":1.5,\"c\":null,"
               "\"l\":[\"vda\",\"vdb\"],\"e\":[]}",
               "the object");
        json_object_put(o);
}

int main(void) {
        test_numbers();
        test_rounded();
        test_builders();
        return tap_done();
}

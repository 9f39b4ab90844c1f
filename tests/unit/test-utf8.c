/* SPDX-License-Identifier: MIT */
/* basic/utf8 (well-formedness, U+FFFD repair, display escaping and width) and the CLI's JSON
 * sanitizer built on it (ctl_json_sanitize: strict UTF-8 with a KEY_hex sibling, no 17-digit
 * doubles, no NaN). */

#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"
#include "basic/utf8.h"
#include "ctl/ctl-util.h"
#include "tap.h"

static void test_valid(void) {
        static const struct {
                const char *s;
                bool valid;
        } t[] = {
                { "", true },
                { "md0", true },
                { "caf\xc3\xa9", true },       /* é */
                { "\xe2\x82\xac", true },      /* € */
                { "\xf0\x9f\x92\xbe", true },  /* a floppy disk */
                { "\xff", false },             /* never in UTF-8 */
                { "\xc0\xaf", false },         /* overlong '/' */
                { "\xe0\x80\xaf", false },     /* overlong, 3 bytes */
                { "\xed\xa0\x80", false },     /* a surrogate */
                { "\xf4\x90\x80\x80", false }, /* above U+10FFFF */
                { "\xc3", false },             /* truncated */
                { "a\xe2\x82", false },        /* truncated at the end */
        };

        for (size_t i = 0; i < ELEMENTSOF(t); i++)
                is_int(utf8_is_valid(t[i].s), t[i].valid, "utf8_is_valid #%zu", i);
}

static void test_rewrites(void) {
        _cleanup_free_ char *a = utf8_replace_invalid("ok\xffme\xc3\xa9");
        _cleanup_free_ char *b = utf8_escape_display("a\nb\tc\\d\xff\x7f\xc3\xa9");

        is_str(a, "ok\xef\xbf\xbdme\xc3\xa9", "bad byte -> U+FFFD, good text kept");
        is_str(b, "a\\x0ab\\x09c\\\\d\\xff\\x7f\xc3\xa9", "display: \\xNN, \\\\, UTF-8 kept");
        is_int((int) utf8_display_width("caf\xc3\xa9"), 4, "width counts code points");
        is_int((int) utf8_display_width(""), 0, "width of empty");
}

static void test_sanitize(void) {
        json_object *o = json_object_new_object(), *arr = json_object_new_array(), *v;
        const char *out;

        json_object_object_add(o, "path", json_object_new_string("/var/tmp/x\xff"));
        json_object_object_add(o, "name", json_object_new_string("fine"));
        json_object_object_add(o, "third", json_object_new_double(1.0 / 3.0));
        json_object_object_add(o, "nan", json_object_new_double(NAN));
        json_object_object_add(o, "inf", json_object_new_double(INFINITY));
        json_object_array_add(arr, json_object_new_string("\xfe"));
        json_object_array_add(arr, json_object_new_double(0.1 + 0.2));
        json_object_object_add(o, "list", arr);

        is_int(ctl_json_sanitize(o), 0, "sanitize: 0");
        out = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
        ok(utf8_is_valid(out), "sanitized output is UTF-8: %s", out);
        ok(json_object_object_get_ex(o, "path_hex", &v) &&
                   strcmp(json_object_get_string(v), "2f7661722f746d702f78ff") == 0,
           "path_hex has the exact bytes");
        ok(!json_object_object_get_ex(o, "name_hex", &v), "no _hex for a UTF-8 string");
        ok(strstr(out, "\"third\":0.3333333333") && !strstr(out, "0.33333333333333"),
           "1/3 with 10 digits, no 17-digit noise");
        ok(strstr(out, "\"nan\":null") && strstr(out, "\"inf\":null"), "NaN and inf -> null");
        ok(strstr(out, "[\"\xef\xbf\xbd\",0.3]"), "arrays: repaired, 0.1+0.2 prints 0.3");
        {
                json_object *back = json_tokener_parse(out);

                ok(back != NULL, "the output parses again");
                json_object_put(back);
        }
        json_object_put(o);
}

int main(void) {
        test_valid();
        test_rewrites();
        test_sanitize();
        return tap_done();
}

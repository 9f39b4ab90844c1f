/* SPDX-License-Identifier: MIT */
/* The write probe's directory record (write-probe.json, manager/scratch-record.h): a record
 * round-trips; entries that are not absolute paths are skipped and a repeated one kept once; a
 * newer version is refused (the daemon leaves that file alone); text that is no record is
 * -EBADMSG, whatever its shape. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"
#include "basic/sysfs.h"
#include "manager/scratch-record.h"
#include "tap.h"

static int parse(const char *text, char ***ret) {
        return scratch_record_parse(text, strlen(text), ret);
}

int main(void) {
        char *const want[] = { "/srv/data", "/mnt/w", NULL };
        _cleanup_strv_free_ char **l = NULL, **back = NULL, **none = NULL;
        _cleanup_free_ char *text = NULL;
        const char *bad[] = { "",
                              "[]",
                              "{}",
                              "{\"version\":1}",
                              "{\"directories\":\"/srv\"}",
                              "{\"version\":1,\"directories\":[\"/srv\"",
                              "null" };

        is_int(scratch_record_format(want, &text), 0, "format");
        is_str(text, "{\"version\":1,\"directories\":[\"/srv/data\",\"/mnt/w\"]}", "the record");
        is_int(parse(text, &back), 0, "parse it back");
        ok(back && back[0] && back[1] && !back[2] && strcmp(back[0], "/srv/data") == 0 &&
                   strcmp(back[1], "/mnt/w") == 0,
           "the same directories, in order");

        is_int(parse("{\"version\":1,\"directories\":[\"rel\",7,null,\"/a\",\"/a\",{}]}", &l), 0,
               "a record with odd entries");
        ok(l && l[0] && strcmp(l[0], "/a") == 0 && !l[1], "only the absolute path, once");

        is_int(parse("{\"version\":2,\"directories\":[\"/srv\"]}", &none), -EPROTONOSUPPORT,
               "a newer version is refused");
        ok(!none, "and yields no list");
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                char **x = NULL;

                is_int(parse(bad[i], &x), -EBADMSG, "not a record: '%s'", bad[i]);
                ok(!x, "no list for '%s'", bad[i]);
                strv_free(x);
        }
        free(text);
        is_int(scratch_record_format(NULL, &text), 0, "format no directories");
        is_str(text, "{\"version\":1,\"directories\":[]}", "an empty record");
        return tap_done();
}

/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/macro.h"
#include "tap.h"

int main(void) {
        char tmpl[] = "/tmp/test-fileio-XXXXXX";
        _cleanup_close_ int dfd = -EBADF;
        char *s = NULL;
        size_t n;

        ok(mkdtemp(tmpl) != NULL, "mkdtemp");
        dfd = open(tmpl, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        ok(dfd >= 0, "open dir");

        is_int(write_file_atomic_at(dfd, "a", "clean\n", 6), 0, "atomic write");
        is_int(read_one_line_at(dfd, "a", &s), 0, "read_one_line_at");
        is_str(s, "clean", "newline stripped");
        free(s);

        is_int(write_file_atomic_at(dfd, "b", "32768 / 522240\nsecond\n", 22), 0,
               "write two lines");
        is_int(read_one_line_at(dfd, "b", &s), 0, "read first line");
        is_str(s, "32768 / 522240", "only first line");
        free(s);
        is_int(read_full_file_at(dfd, "b", &s, &n), 0, "read full");
        is_int(n, 22, "full size");
        free(s);

        s = (char *) "untouched";
        is_int(read_one_line_at(dfd, "missing", &s), -ENOENT, "missing file -> -ENOENT");
        is_str(s, "untouched", "output untouched on failure");

        is_int(write_file_atomic_at(dfd, "a", "", 0), 0, "atomic replace with empty");
        is_int(read_one_line_at(dfd, "a", &s), 0, "read empty file");
        is_str(s, "", "empty content");
        free(s);

        (void) unlinkat(dfd, "a", 0);
        (void) unlinkat(dfd, "b", 0);
        (void) rmdir(tmpl);
        return tap_done();
}

/* SPDX-License-Identifier: MIT */
/* Baseline persistence: the state file format lives in analysis/baseline-file (pure), the
 * atomic replace in basic/fileio; this module is the I/O between them plus housekeeping (a
 * corrupt file is kept aside, stale temp files of killed saves are removed). */

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/baseline-file.h"
#include "basic/fileio.h"
#include "basic/macro.h"
#include "core/baseline-store.h"

/* Remove "FILE.tmp.*" left by saves that were killed between create and rename. */
static void remove_stale_temps(int dir_fd, const char *file) {
        _cleanup_free_ char *prefix = NULL;
        _cleanup_close_ int fd = -EBADF;
        const char *slash = strrchr(file, '/');
        DIR *d;

        if (slash)
                return; /* only files directly in the state directory have temps we clean */
        if (asprintf(&prefix, "%s.tmp.", file) < 0)
                return;
        fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return;
        d = fdopendir(fd);
        if (!d)
                return;
        fd = -EBADF; /* owned by d now */
        for (struct dirent *de; (de = readdir(d));)
                if (strncmp(de->d_name, prefix, strlen(prefix)) == 0)
                        (void) unlinkat(dirfd(d), de->d_name, 0);
        (void) closedir(d);
}

int baseline_store_load(int dir_fd, const char *file, BaselineSet **ret) {
        _cleanup_free_ char *text = NULL, *aside = NULL;
        size_t size;
        int r;

        if (!file || !ret)
                return -EINVAL;
        remove_stale_temps(dir_fd, file);
        r = read_full_file_at(dir_fd, file, &text, &size);
        if (r == -ENOENT)
                return baseline_set_new(ret);
        if (r < 0)
                return r;
        r = baseline_file_parse(text, size, ret);
        if (r == -EBADMSG) {
                if (asprintf(&aside, "%s.corrupt", file) >= 0)
                        (void) renameat(dir_fd, file, dir_fd, aside);
        }
        return r;
}

int baseline_store_save(int dir_fd, const char *file, const BaselineSet *s) {
        _cleanup_free_ char *text = NULL;
        int r;

        if (!file || !s)
                return -EINVAL;
        r = baseline_file_format(s, &text);
        if (r < 0)
                return r;
        return write_file_atomic_at(dir_fd, file, text, strlen(text));
}

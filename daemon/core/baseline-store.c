/* SPDX-License-Identifier: MIT */
/* Baseline persistence: the state file format lives in analysis/baseline-file (pure), the
 * atomic replace in basic/fileio; this module is the I/O between them plus housekeeping (a
 * corrupt file is kept aside, stale temp files of killed saves are removed). */

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/baseline-file.h"
#include "basic/fileio.h"
#include "basic/macro.h"
#include "core/baseline-store.h"

int baseline_store_load(int dir_fd, const char *file, BaselineSet **ret) {
        _cleanup_free_ char *text = NULL;
        size_t size;
        int r;

        if (!file || !ret)
                return -EINVAL;
        unlink_stale_temps_at(dir_fd, file);
        r = read_full_file_at(dir_fd, file, &text, &size);
        if (r == -ENOENT)
                return baseline_set_new(ret);
        if (r == -EFBIG)
                r = -EBADMSG; /* larger than any baselines file: damaged */
        else if (r >= 0)
                r = baseline_file_parse(text, size, ret);
        if (r == -EBADMSG)
                (void) rename_aside_at(dir_fd, file, "corrupt", NULL);
        return r;
}

int baseline_store_format(const BaselineSet *s, char **ret) {
        if (!s || !ret)
                return -EINVAL;
        return baseline_file_format(s, ret);
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

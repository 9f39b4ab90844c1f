/* SPDX-License-Identifier: MIT */
/* Fuzz the mountinfo lookup with a few paths: it must never crash, read out of bounds or answer
 * for a path that is not absolute. */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/mountinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static const char *const paths[] = { "/", "/srv/data", "/srv/my data/x", "relative" };
        char *s = malloc(size + 1);
        MountinfoEntry e;

        if (!s)
                return 0;
        memcpy(s, data, size);
        s[size] = 0;
        for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
                if (mountinfo_find(s, paths[i], &e) == 0 && paths[i][0] != '/')
                        abort();
        free(s);
        return 0;
}

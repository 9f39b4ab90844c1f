/* SPDX-License-Identifier: MIT */
/* Fuzz the /proc/mdstat parser and the progress-line parser on arbitrary text. */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/mdstat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = malloc(size + 1);
        Mdstat *m = NULL;
        MdstatProgress p;

        if (!s)
                return 0;
        memcpy(s, data, size);
        s[size] = 0;
        if (mdstat_parse(s, &m) == 0) {
                for (size_t i = 0; i < m->n_arrays; i++) {
                        (void) mdstat_progress_ratio(&m->arrays[i].progress);
                        (void) mdstat_find(m, m->arrays[i].name);
                }
                mdstat_free(m);
        }
        if (mdstat_parse_progress(s, &p) == 0)
                free(p.raw);
        free(s);
        return 0;
}

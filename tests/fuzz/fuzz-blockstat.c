/* SPDX-License-Identifier: MIT */
/* Fuzz the /sys/block/X/stat parser; deltas between the parsed sample and fixed ones must never
 * crash or divide by zero. */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/blockstat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = malloc(size + 1);
        BlockStat a, zero = { .n_fields = 17 };
        BlockStatDelta d;

        if (!s)
                return 0;
        memcpy(s, data, size);
        s[size] = 0;
        if (blockstat_parse(s, &a) == 0) {
                (void) blockstat_delta(&zero, &a, 1000000, &d);
                (void) blockstat_delta(&a, &zero, 1, &d);
                (void) blockstat_delta(&a, &a, UINT64_MAX, &d);
        }
        free(s);
        return 0;
}

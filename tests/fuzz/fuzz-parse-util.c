/* SPDX-License-Identifier: MIT */
/* Fuzz the number parsers: any byte string must parse or fail cleanly, never crash. */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "basic/parse-util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = malloc(size + 1);
        uint64_t u;
        int64_t i;
        double d;

        if (!s)
                return 0;
        memcpy(s, data, size);
        s[size] = 0;
        (void) safe_atou64(s, &u);
        (void) safe_atoi64(s, &i);
        (void) safe_atod(s, &d);
        (void) parse_size(s, &u);
        (void) parse_sec(s, &u);
        free(s);
        return 0;
}

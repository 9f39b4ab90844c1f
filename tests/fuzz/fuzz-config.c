/* SPDX-License-Identifier: MIT */
/* Fuzz the config parser: any text must load or fail with a "FILE:LINE: message", never crash
 * or leak. */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "manager/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        Config *c = NULL;
        char *s, *error = NULL;

        if (size > 65536)
                return 0;
        s = malloc(size + 1);
        if (!s)
                return 0;
        memcpy(s, data, size);
        s[size] = 0;
        if (config_new_default(&c) == 0) {
                (void) config_parse_string(c, "fuzz.conf", s, &error);
                free(error);
                config_free(c);
        }
        free(s);
        return 0;
}

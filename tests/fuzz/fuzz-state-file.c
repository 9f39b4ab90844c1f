/* SPDX-License-Identifier: MIT */
/* Fuzz the state file reader: any bytes are read or refused, never a crash or a leak. */

#include <stdint.h>

#include "manager/state-file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void restore(const ManagerVolume *f, void *userdata) {
        size_t *n = userdata;

        *n += f->n_history + (f->name[0] != 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        const char *error = NULL;
        size_t n = 0;

        (void) state_file_parse((const char *) data, size, restore, &n, NULL, &error);
        return 0;
}

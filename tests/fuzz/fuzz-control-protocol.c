/* SPDX-License-Identifier: MIT */
/* Fuzz the control request parser: any bytes parse or are refused with a message, never crash
 * or leak. */

#include <stdint.h>
#include <stdlib.h>

#include "manager/control-protocol.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        ControlRequest r;
        const char *error = NULL;

        if (control_request_parse((const char *) data, size, &r, &error) == 0)
                control_request_done(&r);
        return 0;
}

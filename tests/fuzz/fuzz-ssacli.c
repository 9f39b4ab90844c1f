/* SPDX-License-Identifier: MIT */
/* Fuzz the ssacli/hpssacli/hpacucli text reader: any bytes must parse or fail cleanly. */

#include <stdint.h>
#include <stdlib.h>

#include "model/controller-cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        ControllerVolumeList l = {};

        (void) ssacli_parse_config((const char *) data, size, &l);
        controller_volume_list_done(&l);
        return 0;
}

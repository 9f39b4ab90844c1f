/* SPDX-License-Identifier: MIT */
/* Fuzz the arcconf readers: GETCONFIG parsing, then the same bytes as GETSTATUS output applied to
 * whatever volumes came out. Any bytes must parse or fail cleanly. */

#include <stdint.h>
#include <stdlib.h>

#include "model/controller-cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        ControllerVolumeList l = {};

        if (arcconf_parse_ld((const char *) data, size, "1", &l) >= 0)
                (void) arcconf_apply_status(&l, (const char *) data, size);
        controller_volume_list_done(&l);
        return 0;
}

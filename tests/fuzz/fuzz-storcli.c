/* SPDX-License-Identifier: MIT */
/* Fuzz the storcli JSON readers: any bytes must parse or fail cleanly, never crash or leak. The
 * same input is also fed as a rebuild progress table to the volumes it produced. */

#include <stdint.h>
#include <stdlib.h>

#include "model/controller-cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        ControllerVolumeList l = {};

        if (storcli_parse_volumes((const char *) data, size, &l) >= 0) {
                for (size_t i = 0; i < l.n; i++)
                        (void) controller_volume_state_to_string(l.volumes[i].state);
                (void) storcli_apply_rebuild(&l, (const char *) data, size);
        }
        controller_volume_list_done(&l);
        return 0;
}

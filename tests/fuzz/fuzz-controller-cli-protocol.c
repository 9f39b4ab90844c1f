/* SPDX-License-Identifier: MIT */
/* Fuzz the vendor CLI helper's wire format: any bytes must parse or fail cleanly, as a request
 * (what the root helper reads from its socket) and as a response (what the daemon reads back);
 * a request that parses formats back to the same bytes. */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/controller-cli-protocol.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        ControllerCliRequest req = {};
        const char *body;
        size_t body_size;
        int status;

        if (controller_cli_request_parse((const char *) data, size, &req) >= 0) {
                char *line = NULL;

                if (controller_cli_request_format(req.cli, req.args, &line) < 0 ||
                    strlen(line) != size || memcmp(line, data, size) != 0)
                        abort();
                free(line);
        }
        controller_cli_request_done(&req);
        (void) controller_cli_response_parse((const char *) data, size, &status, &body, &body_size);
        return 0;
}

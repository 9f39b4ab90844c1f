/* SPDX-License-Identifier: MIT */
/* Fuzz the write probe's directory record (write-probe.json): any bytes are read or refused,
 * never a crash or a leak, and what is read is written back and read again to the same list. */

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "basic/sysfs.h"
#include "manager/scratch-record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_strv_free_ char **dirs = NULL, **again = NULL;
        char *text = NULL;
        size_t i;

        if (scratch_record_parse((const char *) data, size, &dirs) < 0)
                return 0;
        for (i = 0; dirs && dirs[i]; i++)
                if (dirs[i][0] != '/')
                        abort();
        if (scratch_record_format(dirs, &text) < 0)
                return 0;
        if (scratch_record_parse(text, strlen(text), &again) < 0)
                abort();
        for (i = 0; dirs && dirs[i]; i++)
                if (!again || !again[i] || strcmp(dirs[i], again[i]) != 0)
                        abort();
        if (again && again[i])
                abort();
        free(text);
        return 0;
}

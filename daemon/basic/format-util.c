/* SPDX-License-Identifier: MIT */
/* Sizes for humans: IEC units, named (see format-util.h). */

#include <inttypes.h>
#include <stdio.h>

#include "basic/format-util.h"

char *format_bytes(char *buf, size_t n, uint64_t bytes) {
        static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
        double v = (double) bytes;
        size_t u = 0;

        if (bytes < 1024) {
                (void) snprintf(buf, n, "%" PRIu64 "B", bytes);
                return buf;
        }
        v /= 1024;
        /* 1023.95 and up would print as "1024.0": move to the next unit instead. */
        while (v >= 1023.95 && u + 1 < sizeof(units) / sizeof(units[0])) {
                v /= 1024;
                u++;
        }
        (void) snprintf(buf, n, "%.1f%s", v, units[u]);
        return buf;
}

char *format_bytes_per_second(char *buf, size_t n, double bytes_per_second) {
        size_t l;

        if (!(bytes_per_second >= 0))
                bytes_per_second = 0;
        if (bytes_per_second > 1.8e19) /* below 2^64, so the conversion is defined */
                bytes_per_second = 1.8e19;
        (void) format_bytes(buf, n, (uint64_t) bytes_per_second);
        for (l = 0; l < n && buf[l]; l++)
                ;
        if (l + 3 <= n)
                (void) snprintf(buf + l, n - l, "/s");
        return buf;
}

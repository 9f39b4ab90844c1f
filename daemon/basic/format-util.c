/* SPDX-License-Identifier: MIT */
/* Sizes and durations for humans: IEC units, named (see format-util.h). */

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

char *format_duration(char *buf, size_t n, double sec, bool days) {
        uint64_t s;

        if (!(sec >= 0) || sec > 1e12) {
                (void) snprintf(buf, n, "unknown");
                return buf;
        }
        s = (uint64_t) (sec + 0.5);
        if (days && s >= 86400)
                (void) snprintf(buf, n, "%" PRIu64 "d %" PRIu64 "h", s / 86400, s % 86400 / 3600);
        else if (s >= 3600)
                (void) snprintf(buf, n, "%" PRIu64 "h %" PRIu64 "min", s / 3600, s % 3600 / 60);
        else if (s >= 60)
                (void) snprintf(buf, n, "%" PRIu64 "min %" PRIu64 "s", s / 60, s % 60);
        else
                (void) snprintf(buf, n, "%" PRIu64 "s", s);
        return buf;
}

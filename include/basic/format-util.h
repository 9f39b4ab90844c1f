/* SPDX-License-Identifier: MIT */
#pragma once

/* Human-readable sizes, one convention for every verb and the README: IEC units with their
 * names (B, KiB, MiB, GiB, TiB, PiB, EiB; powers of 1024), rates as "MiB/s". Pure. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Enough for "1023.9EiB/s" and the terminating NUL. */
#define FORMAT_BYTES_MAX 16

/* "512B", "4.0KiB", "64.0MiB", "931.5GiB": one decimal from KiB up. Returns buf. */
char *format_bytes(char *buf, size_t n, uint64_t bytes);

/* format_bytes() of a rate, with "/s": "118.2MiB/s". Returns buf. */
char *format_bytes_per_second(char *buf, size_t n, double bytes_per_second);

/* A duration for a message, rounded to the second: "42s", "5min 3s", "2h 10min"; from a day
 * on "3d 4h" with days, else still hours ("75h 0min"); "unknown" for a negative, NaN or absurd
 * (over 10^12 s) value. Returns buf. */
char *format_duration(char *buf, size_t n, double sec, bool days);

/* Bytes per second as MiB/s, the unit of the probe table's throughput column. */
static inline double bytes_to_mib(double bytes) {
        return bytes / (1024.0 * 1024.0);
}

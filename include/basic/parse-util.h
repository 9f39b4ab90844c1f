/* SPDX-License-Identifier: MIT */
#pragma once

/* Checked, locale-independent number parsing. All return 0 on success, -EINVAL for text that is
 * not a number (empty, trailing garbage, sign where none is allowed), -ERANGE for overflow.
 * Leading/trailing whitespace (incl. one trailing '\n' as sysfs prints) is accepted.
 * Outputs are written only on success. */

#include <stdint.h>

int safe_atou64(const char *s, uint64_t *ret);
int safe_atoi64(const char *s, int64_t *ret);
int safe_atou(const char *s, unsigned *ret);
int safe_atoi(const char *s, int *ret);
/* Decimal fraction like "12.5", independent of LC_NUMERIC. */
int safe_atod(const char *s, double *ret);

/* Size with optional binary suffix, case-insensitive, as fio's options are written: "4096",
 * "4k", "4K", "4KB", "4KiB", "64m", "64MiB", "1G", "2T", "1.5K". Always base 1024. */
int parse_size(const char *s, uint64_t *ret);

/* Decimal digits only, nothing else (no whitespace, sign or suffix): for kernel fields that have
 * already been split into tokens. */
int parse_u64_strict(const char *s, uint64_t *ret);

/* Duration: "10" (seconds), "500ms", "2s", "1.5s", "3min", "2h", "1d", "250us". Returns µs. */
int parse_sec(const char *s, uint64_t *ret_usec);

/* Strip trailing whitespace/newlines in place; returns s. */
char *strstrip_trailing(char *s);

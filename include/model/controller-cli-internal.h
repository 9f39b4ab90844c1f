/* SPDX-License-Identifier: MIT */
#pragma once

/* Shared by the vendor CLI parsers (controller-cli*.c) only; not an API. Pure. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/time-util.h"
#include "model/controller-cli.h"

/* Append a fresh volume; returns it or NULL on OOM. */
ControllerVolume *ccli_list_add(ControllerVolumeList *l, const char *controller, const char *id);
ControllerVolume *ccli_list_find(ControllerVolumeList *l, const char *controller, const char *id);
/* Replace *field with a trimmed copy of s (NULL or blank gives NULL). -ENOMEM on OOM. */
int ccli_set_str(char **field, const char *s);
bool ccli_startswith_ci(const char *s, const char *prefix);
/* "744.687 GiB", "558.406 GB", "915446 MB", "4.55 TB": binary units (see controller-cli.c). */
int ccli_parse_size_binary(const char *s, uint64_t *ret);
/* storcli "Estimated Time Left": "49 Minutes", "6 Hours 25 Minutes", ... */
int ccli_parse_eta(const char *s, usec_t *ret);
/* Percentage 0..100 (integer or decimal text) -> 0..1. */
int ccli_parse_percent(const char *s, double *ret);
/* The decimal number at the start of s (after blanks) into buf; false if none or too long. */
bool ccli_leading_number(const char *s, char *buf, size_t n);
/* Keep a hex NAA identifier (16 or 32 hex digits, optional "0x"/"naa." prefix) in lower case. */
int ccli_set_naa(char **field, const char *s);

/* Line-oriented text (ssacli, arcconf). */
typedef struct CcliLineIter {
        const char *p, *end;
        char buf[1024];
} CcliLineIter;

/* Next line (without '\n', '\r' stripped, NULs replaced, overlong lines truncated) or NULL. */
const char *ccli_line_next(CcliLineIter *it);
size_t ccli_indent_of(const char *line);
/* Split "Key: Value" / "Key    : Value" at the first ':'; trims both. False if no ':' or empty
 * key. */
bool ccli_split_kv(char *line, char **ret_key, char **ret_value);

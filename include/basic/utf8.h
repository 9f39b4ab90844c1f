/* SPDX-License-Identifier: MIT */
#pragma once

/* UTF-8 checks for text that comes from outside (file names, device names, vendor strings) on
 * its way to JSON or a terminal. Pure. */

#include <stdbool.h>
#include <stddef.h>

/* Length (1..4) of the well-formed UTF-8 sequence at s (at most `left` bytes; no overlongs,
 * surrogates or code points above U+10FFFF), or 0 when the byte at s does not start one. */
size_t utf8_sequence_len(const char *s, size_t left);

bool utf8_is_valid(const char *s);

/* A copy of s with every byte that is not part of well-formed UTF-8 replaced by U+FFFD, or NULL
 * on OOM. */
char *utf8_replace_invalid(const char *s);

/* A copy of s for one column of a table or a line of text: control characters (< 0x20, 0x7f) and
 * bytes that are not well-formed UTF-8 become "\xNN", a backslash "\\"; everything else is
 * kept. NULL on OOM. */
char *utf8_escape_display(const char *s);

/* Terminal columns of s, counting one per code point (no wide/combining tables: table columns
 * stay aligned for the file and device names seen in practice). */
size_t utf8_display_width(const char *s);

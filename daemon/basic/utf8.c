/* SPDX-License-Identifier: MIT */
/* Well-formedness per RFC 3629 / Unicode table 3-7. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/utf8.h"

size_t utf8_sequence_len(const char *s, size_t left) {
        const unsigned char *u = (const unsigned char *) s;
        unsigned char lo = 0x80, hi = 0xbf;
        size_t n;

        if (left == 0)
                return 0;
        if (u[0] < 0x80)
                return 1;
        if (u[0] >= 0xc2 && u[0] <= 0xdf)
                n = 2;
        else if (u[0] >= 0xe0 && u[0] <= 0xef) {
                n = 3;
                if (u[0] == 0xe0)
                        lo = 0xa0; /* no overlongs */
                else if (u[0] == 0xed)
                        hi = 0x9f; /* no surrogates */
        } else if (u[0] >= 0xf0 && u[0] <= 0xf4) {
                n = 4;
                if (u[0] == 0xf0)
                        lo = 0x90;
                else if (u[0] == 0xf4)
                        hi = 0x8f; /* nothing above U+10FFFF */
        } else
                return 0;
        if (left < n)
                return 0;
        if (u[1] < lo || u[1] > hi)
                return 0;
        for (size_t i = 2; i < n; i++)
                if (u[i] < 0x80 || u[i] > 0xbf)
                        return 0;
        return n;
}

bool utf8_is_valid(const char *s) {
        size_t left = strlen(s);

        while (left > 0) {
                size_t n = utf8_sequence_len(s, left);

                if (n == 0)
                        return false;
                s += n;
                left -= n;
        }
        return true;
}

/* One walk for both rewrites: escape = false replaces bad bytes by U+FFFD; escape = true writes
 * bad bytes and control characters as "\xNN" and a backslash as "\\". */
static char *rewrite(const char *s, bool escape) {
        size_t left = strlen(s), o = 0;
        char *out = malloc(left * 4 + 1); /* a byte grows to at most 4 ("\xNN"; U+FFFD is 3) */

        if (!out)
                return NULL;
        while (left > 0) {
                unsigned char c = (unsigned char) *s;
                size_t n = utf8_sequence_len(s, left);

                if (n == 0 || (escape && (c < 0x20 || c == 0x7f))) {
                        if (escape)
                                (void) snprintf(out + o, 5, "\\x%02x", c);
                        else
                                memcpy(out + o, "\xef\xbf\xbd", 3);
                        o += escape ? 4 : 3;
                        n = 1;
                } else if (escape && c == '\\') {
                        out[o++] = '\\';
                        out[o++] = '\\';
                } else {
                        memcpy(out + o, s, n);
                        o += n;
                }
                s += n;
                left -= n;
        }
        out[o] = 0;
        return out;
}

char *utf8_replace_invalid(const char *s) {
        return rewrite(s, false);
}

char *utf8_escape_display(const char *s) {
        return rewrite(s, true);
}

size_t utf8_display_width(const char *s) {
        size_t w = 0;

        for (; *s; s++)
                if (((unsigned char) *s & 0xc0) != 0x80)
                        w++;
        return w;
}

/* SPDX-License-Identifier: MIT */
/* The one whitespace tokenizer of the parsers (string-word.h): model/mdstat.c, model/raid-health.c,
 * model/dm.c and model/dm-judge.c walk their lines with it instead of each its own loop. Nothing
 * is allocated; a word is a (pointer, length) pair into the caller's string, or a copy into the
 * caller's buffer (string_next_word_copy()) where a parser keeps it. */

#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "basic/string-word.h"

bool string_next_word(const char **p, const char **ret_word, size_t *ret_len) {
        const char *s = *p, *e;

        while (*s && isspace((unsigned char) *s))
                s++;
        if (!*s) {
                *p = s;
                return false;
        }
        for (e = s; *e && !isspace((unsigned char) *e); e++)
                ;
        *ret_word = s;
        *ret_len = (size_t) (e - s);
        *p = e;
        return true;
}

const char *string_word_at(const char *s, unsigned k, size_t *ret_len) {
        const char *w;
        size_t n;

        for (unsigned i = 0; string_next_word(&s, &w, &n); i++)
                if (i == k) {
                        *ret_len = n;
                        return w;
                }
        return NULL;
}

int string_next_word_copy(const char **p, char *buf, size_t n) {
        const char *w;
        size_t l;

        if (!string_next_word(p, &w, &l))
                return 0;
        if (l >= n)
                return -ERANGE;
        memcpy(buf, w, l);
        buf[l] = 0;
        return 1;
}

bool string_word_is(const char *w, size_t len, const char *word) {
        return strlen(word) == len && strncmp(w, word, len) == 0;
}

/* SPDX-License-Identifier: MIT */
#pragma once

/* Whitespace-separated words of a kernel status line (/proc/mdstat, dm tables), without copying:
 * a word is a pointer into the line and a length. Whitespace is isspace() in the C locale, so a
 * stray tab or \r separates like a blank. Pure. */

#include <stdbool.h>
#include <stddef.h>

/* The next word at or after *p: true with *ret_word, *ret_len set and *p just past the word;
 * false at the end of the string (*p then at its NUL, the outputs untouched). */
bool string_next_word(const char **p, const char **ret_word, size_t *ret_len);

/* Word k (0-based) of s and its length in *ret_len; NULL if s has k words or fewer. */
const char *string_word_at(const char *s, unsigned k, size_t *ret_len);

/* The next word copied into buf (size n, NUL-terminated): 1 with a word, 0 at the end of the
 * string, -ERANGE if the word does not fit in buf (buf then untouched). *p moves past the word
 * either way, as with string_next_word(). For parsers that keep a word (a dm target name, a health
 * string). */
int string_next_word_copy(const char **p, char *buf, size_t n);

/* True if the word (w, len) is exactly `word`. */
bool string_word_is(const char *w, size_t len, const char *word);

/* SPDX-License-Identifier: MIT */
#pragma once

/* Sorted arrays. Pure. */

#include <stdbool.h>
#include <stddef.h>

/* bsearch() that also says where a missing key belongs: true with *ret_idx at the match, or
 * false with *ret_idx at the index where key would be inserted to keep base[0..n) sorted.
 * cmp(key, element) as for bsearch(). */
bool bsearch_index(const void *key, const void *base, size_t n, size_t size,
                   int (*cmp)(const void *key, const void *element), size_t *ret_idx);

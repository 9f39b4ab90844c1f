/* SPDX-License-Identifier: MIT */

#include "basic/sort-util.h"

bool bsearch_index(const void *key, const void *base, size_t n, size_t size,
                   int (*cmp)(const void *key, const void *element), size_t *ret_idx) {
        size_t lo = 0, hi = n;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                int c = cmp(key, (const char *) base + mid * size);

                if (c == 0) {
                        *ret_idx = mid;
                        return true;
                }
                if (c > 0)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        *ret_idx = lo;
        return false;
}

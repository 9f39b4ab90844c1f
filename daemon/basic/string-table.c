/* SPDX-License-Identifier: MIT */
/* The one linear lookup behind every enum's x_from_string(). Tables are a handful of entries, so
 * a linear scan is the simplest correct thing. */

#include <string.h>

#include "basic/string-table.h"

int string_table_lookup(const char *const *table, size_t n, const char *s) {
        if (!s)
                return -EINVAL;
        for (size_t i = 0; i < n; i++)
                if (table[i] && strcmp(table[i], s) == 0)
                        return (int) i;
        return -EINVAL;
}

/* SPDX-License-Identifier: MIT */
#pragma once

/* Enum <-> string tables (systemd's DEFINE_STRING_TABLE_LOOKUP): every enum with a name table
 * gets x_to_string() (NULL when out of range) and x_from_string() (-EINVAL when unknown) from
 * one definition, so the lookup loop exists once. Pure. */

#include <errno.h>
#include <stddef.h>

#include "basic/macro.h"

/* Index of s in table[0..n) (NULL entries never match), or -EINVAL (also for s == NULL). */
int string_table_lookup(const char *const *table, size_t n, const char *s);

/* table[i] for i in [0, n), else NULL. */
static inline const char *string_table_get(const char *const *table, size_t n, long i) {
        return i >= 0 && (size_t) i < n ? table[i] : NULL;
}

/* Declares the pair DEFINE_STRING_TABLE_LOOKUP() defines: name_to_string() (NULL when out of
 * range) and name_from_string() (-EINVAL when unknown), in a header. */
#define DECLARE_STRING_TABLE_LOOKUP(name, type)                                                    \
        const char *name##_to_string(type x) _const_;                                              \
        type name##_from_string(const char *s) _pure_

/* Defines name_to_string(type) and name_from_string(const char *) over a static table whose
 * size is known to the compiler (ELEMENTSOF). */
#define DEFINE_STRING_TABLE_LOOKUP(name, type, table)                                              \
        const char *name##_to_string(type x) {                                                     \
                return string_table_get(table, ELEMENTSOF(table), (long) x);                       \
        }                                                                                          \
        type name##_from_string(const char *s) {                                                   \
                return (type) string_table_lookup(table, ELEMENTSOF(table), s);                    \
        }

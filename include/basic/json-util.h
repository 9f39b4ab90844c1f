/* SPDX-License-Identifier: MIT */
#pragma once

/* JSON on json-c, one way for every output (docs/json.md): numbers with at most 10 significant
 * digits, absent values as null, and object builders that take ownership of what they are
 * given. Pure. */

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

/* The most significant digits a printed number carries (docs/json.md). */
#define JSON_NUMBER_DIGITS 10

/* A number printed with at most JSON_NUMBER_DIGITS significant digits; NULL (JSON null) for a
 * NaN or an infinity. The caller owns the object. */
json_object *json_number_new(double d);

/* json_number_new() of d rounded to `decimals` decimals (a progress to 0.001, a duration to the
 * millisecond), still at most JSON_NUMBER_DIGITS digits. NULL when d is not finite. */
json_object *json_number_new_rounded(double d, unsigned decimals);

/* key: val in object o, val consumed (also on failure); val NULL is null. 0 or -ENOMEM. */
int json_add(json_object *o, const char *key, json_object *val);

/* key: s, or null when s is NULL. 0 or -ENOMEM. */
int json_add_str(json_object *o, const char *key, const char *s);

/* key: the number / boolean. 0 or -ENOMEM. */
int json_add_u64(json_object *o, const char *key, uint64_t u);
int json_add_int(json_object *o, const char *key, int64_t i);
int json_add_bool(json_object *o, const char *key, bool b);

/* key: json_number_new(d) (null when d is not finite). 0 or -ENOMEM. */
int json_add_number(json_object *o, const char *key, double d);

/* key: u where cond holds, else null. 0 or -ENOMEM. */
int json_add_u64_if(json_object *o, const char *key, bool cond, uint64_t u);

/* key: a count of µs as seconds (`*_seconds`, `*_timestamp_seconds`); null when usec is 0 and
 * zero_is_null holds (a time that never happened). 0 or -ENOMEM. */
int json_add_usec_as_seconds(json_object *o, const char *key, uint64_t usec, bool zero_is_null);

/* key: the NULL-terminated string list l as an array (empty when l is NULL). 0 or -ENOMEM. */
int json_add_strv(json_object *o, const char *key, char *const *l);

/* Append val to array a, val consumed (also on failure). 0 or -ENOMEM. */
int json_array_append(json_object *a, json_object *val);

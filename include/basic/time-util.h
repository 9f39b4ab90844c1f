/* SPDX-License-Identifier: MIT */
#pragma once

/* Time units. usec_t is microseconds, nsec_t nanoseconds. Only edges read the clock; the pure
 * core receives `now` as an argument. */

#include <stdint.h>
#include <time.h>

typedef uint64_t usec_t;
typedef uint64_t nsec_t;

#define USEC_INFINITY ((usec_t) UINT64_MAX)
#define NSEC_INFINITY ((nsec_t) UINT64_MAX)
#define NSEC_PER_USEC ((nsec_t) 1000ULL)
#define NSEC_PER_MSEC ((nsec_t) 1000000ULL)
#define NSEC_PER_SEC  ((nsec_t) 1000000000ULL)
#define USEC_PER_MSEC ((usec_t) 1000ULL)
#define USEC_PER_SEC  ((usec_t) 1000000ULL)

/* Current time of `clock` in µs (CLOCK_MONOTONIC unless said otherwise). */
usec_t now(clockid_t clock);
/* Current time of `clock` in ns. */
nsec_t now_nsec(clockid_t clock);

usec_t timespec_load(const struct timespec *ts);
nsec_t timespec_load_nsec(const struct timespec *ts);
struct timespec *timespec_store_nsec(struct timespec *ts, nsec_t n);

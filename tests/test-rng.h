/* SPDX-License-Identifier: MIT */
#pragma once

/* The seeded random numbers the unit tests share: splitmix64, so a test's series is the same on
 * every run and machine. */

#include <math.h>
#include <stdint.h>

typedef struct Rng {
        uint64_t s;
} Rng;

static inline uint64_t rng_next(Rng *r) {
        uint64_t z = (r->s += UINT64_C(0x9e3779b97f4a7c15));

        z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
        return z ^ (z >> 31);
}

/* Uniform in (0, 1), never 0 or 1. */
static inline double rng_uniform(Rng *r) {
        return ((double) (rng_next(r) >> 11) + 0.5) / 9007199254740992.0;
}

/* Standard normal (Box-Muller). */
static inline double rng_normal(Rng *r) {
        return sqrt(-2 * log(rng_uniform(r))) * cos(2 * M_PI * rng_uniform(r));
}

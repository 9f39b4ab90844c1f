/* SPDX-License-Identifier: MIT */
#pragma once

/* Arithmetic the compiler expands inline. storpulsed links no libm: the shared library alone
 * would be about 0.3 MiB of its idle RSS (its IFUNC resolvers run at load time), for the three
 * functions the code used (round, llround, log). trunc() and fabs() are builtins GCC and clang
 * inline at -O1 and above. Pure. */

/* round(): the nearest integer, halfway cases away from zero. Exact: x - trunc(x) is exact in
 * binary floating point. */
static inline double round_half_away(double x) {
        double t = __builtin_trunc(x);

        if (__builtin_fabs(x - t) >= 0.5)
                t += x < 0 ? -1.0 : 1.0;
        return t;
}

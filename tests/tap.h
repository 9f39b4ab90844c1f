/* SPDX-License-Identifier: MIT */
#pragma once

/* A tiny TAP producer for meson's `protocol: 'tap'`. Each check prints "ok N - name" or
 * "not ok N - name" with a diagnostic naming the file:line and both values. tap_done() prints
 * the plan and returns the exit status (non-zero if anything failed), so `return tap_done();`
 * ends every test main(). A test program that runs zero checks fails: a test that cannot fail
 * is a defect. */

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned tap_count_, tap_failed_;

static inline void tap_result_(int pass, const char *file, int line, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
static inline void tap_result_(int pass, const char *file, int line, const char *fmt, ...) {
        va_list ap;

        tap_count_++;
        if (!pass)
                tap_failed_++;
        printf("%sok %u - ", pass ? "" : "not ", tap_count_);
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        printf("\n");
        if (!pass)
                printf("#   failed at %s:%d\n", file, line);
        fflush(stdout);
}

#define ok(cond, ...) tap_result_(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

#define is_int(got, want, ...)                                                                     \
        do {                                                                                       \
                long long g_ = (long long) (got), w_ = (long long) (want);                         \
                tap_result_(g_ == w_, __FILE__, __LINE__, __VA_ARGS__);                            \
                if (g_ != w_)                                                                      \
                        printf("#   got %lld, want %lld\n", g_, w_);                               \
        } while (0)

#define is_u64(got, want, ...)                                                                     \
        do {                                                                                       \
                uint64_t g_ = (uint64_t) (got), w_ = (uint64_t) (want);                            \
                tap_result_(g_ == w_, __FILE__, __LINE__, __VA_ARGS__);                            \
                if (g_ != w_)                                                                      \
                        printf("#   got %" PRIu64 ", want %" PRIu64 "\n", g_, w_);                 \
        } while (0)

#define is_str(got, want, ...)                                                                     \
        do {                                                                                       \
                const char *g_ = (got), *w_ = (want);                                              \
                int eq_ = (g_ && w_) ? strcmp(g_, w_) == 0 : g_ == w_;                             \
                tap_result_(eq_, __FILE__, __LINE__, __VA_ARGS__);                                 \
                if (!eq_)                                                                          \
                        printf("#   got \"%s\", want \"%s\"\n", g_ ? g_ : "(null)",                \
                               w_ ? w_ : "(null)");                                                \
        } while (0)

#define is_double(got, want, tol, ...)                                                             \
        do {                                                                                       \
                double g_ = (got), w_ = (want), t_ = (tol);                                        \
                int eq_ = (g_ - w_ <= t_) && (w_ - g_ <= t_);                                      \
                tap_result_(eq_, __FILE__, __LINE__, __VA_ARGS__);                                 \
                if (!eq_)                                                                          \
                        printf("#   got %.9g, want %.9g (tolerance %.3g)\n", g_, w_, t_);          \
        } while (0)

static inline void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void tap_diag(const char *fmt, ...) {
        va_list ap;

        printf("# ");
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        printf("\n");
}

/* Skip the whole program (e.g. no root for loop devices): the "1..0 # SKIP" plan makes meson count
 * it as skipped. Returns 0, the exit status to use: meson's TAP protocol counts 77 as an error. */
static inline int tap_skip_all(const char *reason) {
        printf("1..0 # SKIP %s\n", reason);
        return 0;
}

static inline int tap_done(void) {
        printf("1..%u\n", tap_count_);
        if (tap_count_ == 0) {
                printf("# no checks ran: failing\n");
                return 1;
        }
        return tap_failed_ ? 1 : 0;
}

/* SPDX-License-Identifier: MIT */
#pragma once

/* Small macros every module uses: cleanup attributes, ownership transfer, errno helpers.
 * Modelled on systemd's src/fundamental/macro-fundamental.h; only what we need. */

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define _cleanup_(f)         __attribute__((cleanup(f)))
#define _unused_             __attribute__((unused))
#define _pure_               __attribute__((pure))
#define _const_              __attribute__((const))
#define _printf_(a, b)       __attribute__((format(printf, a, b)))
#define _sentinel_           __attribute__((sentinel))
#define _noreturn_           __attribute__((noreturn))
#define _warn_unused_result_ __attribute__((warn_unused_result))
#define _likely_(x)          (__builtin_expect(!!(x), 1))
#define _unlikely_(x)        (__builtin_expect(!!(x), 0))

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))

#define MIN(a, b)        ((a) < (b) ? (a) : (b))
#define MAX(a, b)        ((a) > (b) ? (a) : (b))
#define CLAMP(x, lo, hi) ((x) < (lo) ? (lo) : (x) > (hi) ? (hi) : (x))

/* Round x up to a multiple of the power-of-two-or-not a (a > 0). */
#define ROUND_UP(x, a) ((((x) + (a) -1) / (a)) * (a))

/* Take ownership: return the value and reset the variable. */
#define TAKE_GENERIC(var, type, nullvalue)                                                         \
        ({                                                                                         \
                type *_pvar_ = &(var);                                                             \
                type _var_ = *_pvar_;                                                              \
                type _nullvalue_ = nullvalue;                                                      \
                *_pvar_ = _nullvalue_;                                                             \
                _var_;                                                                             \
        })
#define TAKE_PTR(ptr) TAKE_GENERIC(ptr, typeof(ptr), NULL)
#define TAKE_FD(fd)   TAKE_GENERIC(fd, int, -EBADF)

/* Turn a libc "-1 and errno" result into "-errno". */
static inline int negative_errno(void) {
        return errno > 0 ? -errno : -EINVAL;
}
#define RET_NERRNO(expr)                                                                           \
        ({                                                                                         \
                __auto_type _r_ = (expr);                                                          \
                _r_ < 0 ? negative_errno() : _r_;                                                  \
        })

/* free(p) and return NULL, for "x = mfree(x);". */
static inline void *mfree(void *p) {
        free(p);
        return NULL;
}

static inline void freep(void *p) {
        free(*(void **) p);
}
#define _cleanup_free_ _cleanup_(freep)

static inline int safe_close(int fd) {
        if (fd >= 0) {
                int saved = errno;
                (void) close(fd);
                errno = saved;
        }
        return -EBADF;
}
static inline void closep(int *fd) {
        *fd = safe_close(*fd);
}
#define _cleanup_close_ _cleanup_(closep)

static inline void fclosep(FILE **f) {
        if (*f)
                (void) fclose(*f);
}
#define _cleanup_fclose_ _cleanup_(fclosep)

/* Define x_freep() for a type whose destructor is x_free(T*) returning T*. */
#define DEFINE_TRIVIAL_CLEANUP_FUNC(type, func)                                                    \
        static inline void func##p(type *p) {                                                      \
                if (*p)                                                                            \
                        *p = func(*p);                                                             \
        }

#define ERRNO_IS_TRANSIENT(r) ((r) == -EAGAIN || (r) == -EINTR)

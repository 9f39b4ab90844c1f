/* SPDX-License-Identifier: MIT */
/* Clock reading and timespec conversion. The only module allowed to call clock_gettime(). */

#include "basic/time-util.h"

usec_t timespec_load(const struct timespec *ts) {
        return (usec_t) ts->tv_sec * USEC_PER_SEC + (usec_t) ts->tv_nsec / NSEC_PER_USEC;
}

nsec_t timespec_load_nsec(const struct timespec *ts) {
        return (nsec_t) ts->tv_sec * NSEC_PER_SEC + (nsec_t) ts->tv_nsec;
}

struct timespec *timespec_store_nsec(struct timespec *ts, nsec_t n) {
        ts->tv_sec = (time_t) (n / NSEC_PER_SEC);
        ts->tv_nsec = (long) (n % NSEC_PER_SEC);
        return ts;
}

usec_t now(clockid_t clock) {
        struct timespec ts;

        (void) clock_gettime(clock, &ts);
        return timespec_load(&ts);
}

nsec_t now_nsec(clockid_t clock) {
        struct timespec ts;

        (void) clock_gettime(clock, &ts);
        return timespec_load_nsec(&ts);
}

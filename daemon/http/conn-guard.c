/* SPDX-License-Identifier: MIT */
/* Request-head deadlines and room for new clients (http/conn-guard.h).
 *
 * The waiting connections form a list in the order their heads began, so the oldest is the
 * first: the deadline check stops at the first one not expired, and eviction takes the first.
 * A connection leaves the list when its head is complete and rejoins at the end when its
 * response is done. The thread sleeps on a condition variable (CLOCK_MONOTONIC) until the first
 * waiting connection's deadline, or a second when none waits (then it only checks for stop).
 *
 * Race-free closing: the guard only shuts down sockets of connections still listed, under the
 * mutex, and libmicrohttpd reports a connection closed (http_conn_guard_remove(), which takes
 * the mutex) before it closes its socket, so a socket number is never shut down after it was
 * closed and reused. */

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#include "http/conn-guard.h"

struct HttpConn {
        int fd;
        usec_t since_usec; /* when the head began; valid while waiting */
        bool waiting, closing;
        HttpConnGuard *g;
        HttpConn *prev, *next; /* the waiting list, oldest first */
};

struct HttpConnGuard {
        pthread_mutex_t lock;
        pthread_cond_t wake;
        pthread_t thread;
        bool thread_started, stop;
        unsigned max, n;
        usec_t timeout_usec;
        HttpConn *first, *last; /* waiting, oldest first */
        atomic_bool full;       /* n >= max: every response closes its connection */
        unsigned long n_expired, n_evicted;
};

static void unlink_waiting(HttpConnGuard *g, HttpConn *c) {
        if (!c->waiting)
                return;
        if (c->prev)
                c->prev->next = c->next;
        else
                g->first = c->next;
        if (c->next)
                c->next->prev = c->prev;
        else
                g->last = c->prev;
        c->prev = c->next = NULL;
        c->waiting = false;
}

static void append_waiting(HttpConnGuard *g, HttpConn *c, usec_t now_usec) {
        unlink_waiting(g, c);
        c->since_usec = now_usec;
        c->waiting = true;
        c->prev = g->last;
        if (g->last)
                g->last->next = c;
        else
                g->first = c;
        g->last = c;
}

/* Under the lock: shut c's socket down (libmicrohttpd closes it) and take it off the list, so it
 * is closed once. */
static void close_conn(HttpConnGuard *g, HttpConn *c) {
        unlink_waiting(g, c);
        c->closing = true;
        (void) shutdown(c->fd, SHUT_RDWR);
}

static void *guard_thread(void *userdata) {
        HttpConnGuard *g = userdata;

        pthread_mutex_lock(&g->lock);
        while (!g->stop) {
                usec_t t = now(CLOCK_MONOTONIC), wake_usec = t + USEC_PER_SEC;
                struct timespec ts;

                while (g->first && t - g->first->since_usec >= g->timeout_usec) {
                        close_conn(g, g->first);
                        g->n_expired++;
                }
                if (g->first)
                        wake_usec = MIN(wake_usec, g->first->since_usec + g->timeout_usec);
                ts = (struct timespec){ .tv_sec = (time_t) (wake_usec / USEC_PER_SEC),
                                        .tv_nsec = (long) (wake_usec % USEC_PER_SEC) * 1000 };
                (void) pthread_cond_timedwait(&g->wake, &g->lock, &ts);
        }
        pthread_mutex_unlock(&g->lock);
        return NULL;
}

int http_conn_guard_new(unsigned max_connections, usec_t request_timeout_usec,
                        HttpConnGuard **ret) {
        _cleanup_(http_conn_guard_freep) HttpConnGuard *g = NULL;
        pthread_condattr_t ca;
        int r;

        if (!ret || max_connections == 0 || request_timeout_usec == 0)
                return -EINVAL;
        g = calloc(1, sizeof(*g));
        if (!g)
                return -ENOMEM;
        g->max = max_connections;
        g->timeout_usec = request_timeout_usec;
        pthread_mutex_init(&g->lock, NULL);
        (void) pthread_condattr_init(&ca);
        (void) pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&g->wake, &ca);
        (void) pthread_condattr_destroy(&ca);
        r = pthread_create(&g->thread, NULL, guard_thread, g);
        if (r != 0)
                return -r;
        g->thread_started = true;
        *ret = TAKE_PTR(g);
        return 0;
}

HttpConnGuard *http_conn_guard_free(HttpConnGuard *g) {
        if (!g)
                return NULL;
        if (g->thread_started) {
                pthread_mutex_lock(&g->lock);
                g->stop = true;
                pthread_cond_signal(&g->wake);
                pthread_mutex_unlock(&g->lock);
                (void) pthread_join(g->thread, NULL);
        }
        /* empty: a stopped libmicrohttpd daemon reported every connection closed */
        pthread_cond_destroy(&g->wake);
        pthread_mutex_destroy(&g->lock);
        free(g);
        return NULL;
}

/* The table is full: libmicrohttpd accepts nobody until one closes, so room is made at once:
 * the connection whose head has waited longest is closed (a slowloris, an idle keep-alive
 * connection; a newcomer that sends its request at once is never the oldest). And while full,
 * every response closes its connection (Connection: close), so busy keep-alive clients give
 * their slots back too. The price: clients slower to send their head than newcomers arrive are
 * closed again and again (bench/README.md, http-abuse). */
static void make_room(HttpConnGuard *g, HttpConn *new) {
        if (g->first && g->first != new) {
                close_conn(g, g->first);
                g->n_evicted++;
        }
}

HttpConn *http_conn_guard_add(HttpConnGuard *g, int fd) {
        HttpConn *c;

        if (!g)
                return NULL;
        c = calloc(1, sizeof(*c));
        if (!c)
                return NULL;
        c->fd = fd;
        pthread_mutex_lock(&g->lock);
        c->g = g;
        append_waiting(g, c, now(CLOCK_MONOTONIC));
        g->n++;
        atomic_store(&g->full, g->n >= g->max);
        if (g->n >= g->max)
                make_room(g, c);
        pthread_cond_signal(&g->wake); /* a first deadline, perhaps */
        pthread_mutex_unlock(&g->lock);
        return c;
}

void http_conn_guard_head_done(HttpConnGuard *g, HttpConn *c) {
        if (!g || !c)
                return;
        pthread_mutex_lock(&g->lock);
        unlink_waiting(g, c);
        pthread_mutex_unlock(&g->lock);
}

void http_conn_guard_response_done(HttpConnGuard *g, HttpConn *c) {
        if (!g || !c)
                return;
        pthread_mutex_lock(&g->lock);
        if (!c->closing)
                append_waiting(g, c, now(CLOCK_MONOTONIC));
        pthread_mutex_unlock(&g->lock);
}

void http_conn_guard_remove(HttpConnGuard *g, HttpConn *c) {
        if (!g || !c)
                return;
        pthread_mutex_lock(&g->lock);
        unlink_waiting(g, c);
        g->n--;
        atomic_store(&g->full, g->n >= g->max);
        pthread_mutex_unlock(&g->lock);
        free(c);
}

bool http_conn_retiring(HttpConn *c) {
        return c && atomic_load(&c->g->full);
}

void http_conn_guard_counts(HttpConnGuard *g, unsigned long *ret_expired,
                            unsigned long *ret_evicted) {
        pthread_mutex_lock(&g->lock);
        if (ret_expired)
                *ret_expired = g->n_expired;
        if (ret_evicted)
                *ret_evicted = g->n_evicted;
        pthread_mutex_unlock(&g->lock);
}

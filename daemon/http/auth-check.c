/* SPDX-License-Identifier: MIT */
/* Basic auth off the serving thread (http/auth-check.h).
 *
 * One worker thread takes checks from a FIFO and runs http_password_verify() (crypt_rn()) with no
 * lock held. The per-address records (failures in a row, refused until, a check waiting) live in
 * a small table replaced least recently used first: an attacker with many addresses can push a
 * record out, which then costs it one more check, never a scraper its answer. Addresses are
 * compared as IPv4 or IPv6 bytes (an IPv4-mapped IPv6 address as the IPv4 one). */

#include <crypt.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "basic/dlopen-util.h"
#include "basic/time-util.h"
#include "config.h"
#include "http/auth-check.h"
#include "http/server.h"

#define FAILURES_FREE  5 /* failures in a row before an address is refused */
#define BLOCK_MAX_USEC (60 * USEC_PER_SEC)
#define QUEUE_MAX      64
#define ADDRESSES_MAX  256
#define CACHE_MAX      4

typedef struct AuthPeer {
        unsigned char addr[16];
        size_t addr_len; /* 0: free slot */
        unsigned failures;
        usec_t blocked_until_usec, used_usec;
        bool waiting;
} AuthPeer;

struct HttpAuthJob {
        char *header, *user, *password;
        unsigned char addr[16];
        size_t addr_len;
        HttpAuthResult result;
        void (*done)(void *userdata);
        void *userdata;
        HttpAuthJob *next;
        bool queued;
};

struct HttpAuth {
        pthread_mutex_t lock;
        pthread_cond_t wake;
        pthread_t thread;
        bool thread_started, stop;
        char *user, *hash;
        HttpAuthJob *first, *last;
        size_t n_queued;
        AuthPeer peers[ADDRESSES_MAX];
        char *cache[CACHE_MAX]; /* Authorization values that verified, newest first */
};

/* Constant time in the length of b. */
static bool secure_streq(const char *a, const char *b) {
        size_t na = strlen(a), nb = strlen(b);
        unsigned char d = na != nb;

        for (size_t i = 0; i < nb; i++)
                d |= (unsigned char) (a[i % (na ?: 1)] ^ b[i]);
        return na > 0 ? d == 0 : nb == 0;
}

/* libcrypt is dlopen()ed at the first verification (a configured hash is checked at start), so
 * a daemon without basic auth never maps it (basic/dlopen-util.h). */
static typeof(crypt_rn) *crypt_rn_fn;
static int libcrypt_error;

static void libcrypt_load(void) {
        const DlopenSymbol symbols[] = { { "crypt_rn", (void **) &crypt_rn_fn } };

        libcrypt_error = dlopen_symbols(LIBCRYPT_SONAME, symbols, ELEMENTSOF(symbols), NULL);
}

int http_password_verify(const char *password, const char *hash) {
        static pthread_once_t load_once = PTHREAD_ONCE_INIT;
        struct crypt_data *cd;
        const char *out;
        int r;

        if (!password || !hash || hash[0] != '$')
                return -EINVAL;
        (void) pthread_once(&load_once, libcrypt_load);
        if (libcrypt_error < 0)
                return libcrypt_error;
        cd = calloc(1, sizeof(*cd));
        if (!cd)
                return -ENOMEM;
        /* crypt_rn(), libxcrypt's variant that returns NULL on failure: no "*0" magic to
         * check, and no sanitizer interceptor (ASan's crypt_r one jumps to a NULL libcrypt
         * symbol when libcrypt was not loaded at its start). */
        out = crypt_rn_fn(password, hash, cd, sizeof(*cd));
        if (!out || out[0] == '*')
                r = -EINVAL;
        else
                r = secure_streq(out, hash);
        explicit_bzero(cd, sizeof(*cd));
        free(cd);
        return r;
}

static size_t peer_key(const struct sockaddr *sa, unsigned char key[static 16]) {
        if (sa && sa->sa_family == AF_INET) {
                memcpy(key, &((const struct sockaddr_in *) sa)->sin_addr, 4);
                return 4;
        }
        if (sa && sa->sa_family == AF_INET6) {
                const struct in6_addr *a = &((const struct sockaddr_in6 *) sa)->sin6_addr;

                if (IN6_IS_ADDR_V4MAPPED(a)) {
                        memcpy(key, a->s6_addr + 12, 4);
                        return 4;
                }
                memcpy(key, a->s6_addr, 16);
                return 16;
        }
        return 0; /* unknown: all such peers share one record */
}

/* Under the lock: the record of an address, made (replacing the least recently used one that
 * has no check waiting) when missing. */
static AuthPeer *peer_get(HttpAuth *a, const unsigned char *key, size_t len, usec_t t) {
        AuthPeer *victim = NULL;

        for (size_t i = 0; i < ADDRESSES_MAX; i++) {
                AuthPeer *p = &a->peers[i];

                if (p->addr_len == MAX(len, (size_t) 1) && memcmp(p->addr, key, len) == 0) {
                        p->used_usec = t;
                        return p;
                }
                if (!p->waiting && (!victim || p->used_usec < victim->used_usec))
                        victim = p;
        }
        if (!victim)
                return NULL;
        *victim = (AuthPeer){ .addr_len = MAX(len, (size_t) 1), .used_usec = t };
        memcpy(victim->addr, key, len);
        return victim;
}

static bool cache_has(HttpAuth *a, const char *header) {
        for (size_t i = 0; i < CACHE_MAX && a->cache[i]; i++)
                if (strcmp(a->cache[i], header) == 0)
                        return true;
        return false;
}

static void cache_add(HttpAuth *a, char *header) {
        if (cache_has(a, header)) {
                free(header);
                return;
        }
        free(a->cache[CACHE_MAX - 1]);
        memmove(a->cache + 1, a->cache, (CACHE_MAX - 1) * sizeof(a->cache[0]));
        a->cache[0] = header;
}

static void job_clear_secrets(HttpAuthJob *j) {
        if (j->password) {
                explicit_bzero(j->password, strlen(j->password));
                j->password = mfree(j->password);
        }
}

/* Under the lock: record a finished check for its address. */
static void record_result(HttpAuth *a, HttpAuthJob *j, usec_t t) {
        AuthPeer *p = peer_get(a, j->addr, j->addr_len, t);

        if (!p)
                return;
        p->waiting = false;
        if (j->result == HTTP_AUTH_OK) {
                p->failures = 0;
                p->blocked_until_usec = 0;
                if (j->header) {
                        cache_add(a, j->header);
                        j->header = NULL;
                }
                return;
        }
        if (++p->failures >= FAILURES_FREE) {
                unsigned shift = MIN(p->failures - FAILURES_FREE, 6U);

                p->blocked_until_usec = t + MIN(USEC_PER_SEC << shift, BLOCK_MAX_USEC);
        }
}

static void *auth_thread(void *userdata) {
        HttpAuth *a = userdata;

        pthread_mutex_lock(&a->lock);
        for (;;) {
                HttpAuthJob *j = a->first;
                void (*done)(void *);
                void *done_userdata;
                int r;

                if (!j) {
                        if (a->stop)
                                break;
                        (void) pthread_cond_wait(&a->wake, &a->lock);
                        continue;
                }
                a->first = j->next;
                if (!a->first)
                        a->last = NULL;
                a->n_queued--;
                j->queued = false;
                if (a->stop)
                        r = 0; /* stopping: everything waiting is refused */
                else {
                        pthread_mutex_unlock(&a->lock);
                        r = j->user && j->password && strcmp(j->user, a->user) == 0
                                    ? http_password_verify(j->password, a->hash)
                                    : 0;
                        pthread_mutex_lock(&a->lock);
                }
                job_clear_secrets(j);
                j->result = r > 0 ? HTTP_AUTH_OK : HTTP_AUTH_DENIED;
                record_result(a, j, now(CLOCK_MONOTONIC));
                done = j->done;
                done_userdata = j->userdata;
                /* j belongs to the caller again from done() on: not touched after it */
                pthread_mutex_unlock(&a->lock);
                done(done_userdata);
                pthread_mutex_lock(&a->lock);
        }
        pthread_mutex_unlock(&a->lock);
        return NULL;
}

int http_auth_start(HttpAuth *a) {
        int r;

        if (!a || a->thread_started)
                return 0;
        a->stop = false;
        r = pthread_create(&a->thread, NULL, auth_thread, a);
        if (r != 0)
                return -r;
        a->thread_started = true;
        return 0;
}

int http_auth_new(const char *user, const char *hash, HttpAuth **ret) {
        _cleanup_(http_auth_freep) HttpAuth *a = NULL;
        int r;

        if (!user || !hash || !ret)
                return -EINVAL;
        a = calloc(1, sizeof(*a));
        if (!a)
                return -ENOMEM;
        pthread_mutex_init(&a->lock, NULL);
        pthread_cond_init(&a->wake, NULL);
        a->user = strdup(user);
        a->hash = strdup(hash);
        if (!a->user || !a->hash)
                return -ENOMEM;
        r = http_auth_start(a);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(a);
        return 0;
}

void http_auth_stop(HttpAuth *a) {
        if (!a || !a->thread_started)
                return;
        pthread_mutex_lock(&a->lock);
        a->stop = true;
        pthread_cond_signal(&a->wake);
        pthread_mutex_unlock(&a->lock);
        (void) pthread_join(a->thread, NULL);
        a->thread_started = false;
}

HttpAuth *http_auth_free(HttpAuth *a) {
        if (!a)
                return NULL;
        http_auth_stop(a);
        for (size_t i = 0; i < CACHE_MAX; i++)
                free(a->cache[i]);
        pthread_cond_destroy(&a->wake);
        pthread_mutex_destroy(&a->lock);
        free(a->user);
        free(a->hash);
        free(a);
        return NULL;
}

static HttpAuthJob *job_new(const char *header, const char *user, const char *password) {
        HttpAuthJob *j = calloc(1, sizeof(*j));

        if (!j)
                return NULL;
        j->result = HTTP_AUTH_PENDING;
        j->header = strdup(header);
        j->user = user ? strdup(user) : NULL;
        j->password = password ? strdup(password) : NULL;
        if (!j->header || (user && !j->user) || (password && !j->password)) {
                job_clear_secrets(j);
                free(j->header);
                free(j->user);
                free(j);
                return NULL;
        }
        return j;
}

bool http_auth_same(const HttpAuth *a, const HttpAuth *b) {
        if (!a || !b)
                return a == b;
        return strcmp(a->user, b->user) == 0 && strcmp(a->hash, b->hash) == 0;
}

HttpAuthResult http_auth_check(HttpAuth *a, const char *header, const char *user,
                               const char *password, const struct sockaddr *peer,
                               void (*done)(void *userdata), void *userdata,
                               HttpAuthJob **ret_job) {
        unsigned char key[16] = {};
        size_t len = peer_key(peer, key);
        usec_t t = now(CLOCK_MONOTONIC);
        HttpAuthResult res = HTTP_AUTH_LIMITED;
        HttpAuthJob *j = NULL;
        AuthPeer *p;

        if (!a || !header || !done || !ret_job)
                return HTTP_AUTH_DENIED;
        pthread_mutex_lock(&a->lock);
        if (cache_has(a, header))
                res = HTTP_AUTH_OK;
        else if (a->stop)
                res = HTTP_AUTH_DENIED;
        else if ((p = peer_get(a, key, len, t)) && !p->waiting && p->blocked_until_usec <= t &&
                 a->n_queued < QUEUE_MAX && (j = job_new(header, user, password))) {
                memcpy(j->addr, key, len);
                j->addr_len = len;
                j->done = done;
                j->userdata = userdata;
                p->waiting = true; /* from now on: one check per address */
                res = HTTP_AUTH_PENDING;
        }
        pthread_mutex_unlock(&a->lock);
        if (res == HTTP_AUTH_PENDING)
                *ret_job = j;
        return res;
}

void http_auth_submit(HttpAuth *a, HttpAuthJob *j) {
        pthread_mutex_lock(&a->lock);
        if (a->stop) { /* stopped since the check: nobody would take it */
                job_clear_secrets(j);
                j->result = HTTP_AUTH_DENIED;
                record_result(a, j, now(CLOCK_MONOTONIC));
                pthread_mutex_unlock(&a->lock);
                j->done(j->userdata);
                return;
        }
        j->queued = true;
        if (a->last)
                a->last->next = j;
        else
                a->first = j;
        a->last = j;
        a->n_queued++;
        pthread_cond_signal(&a->wake);
        pthread_mutex_unlock(&a->lock);
}

unsigned http_auth_retry_after_sec(HttpAuth *a, const struct sockaddr *peer) {
        unsigned char key[16] = {};
        size_t len = peer_key(peer, key);
        usec_t t = now(CLOCK_MONOTONIC), left = 0;

        if (!a)
                return 1;
        pthread_mutex_lock(&a->lock);
        for (size_t i = 0; i < ADDRESSES_MAX; i++) {
                const AuthPeer *p = &a->peers[i];

                if (p->addr_len == MAX(len, (size_t) 1) && memcmp(p->addr, key, len) == 0 &&
                    p->blocked_until_usec > t)
                        left = p->blocked_until_usec - t;
        }
        pthread_mutex_unlock(&a->lock);
        return (unsigned) MAX((left + USEC_PER_SEC - 1) / USEC_PER_SEC, (usec_t) 1);
}

HttpAuthResult http_auth_job_result(HttpAuthJob *j) {
        return j ? j->result : HTTP_AUTH_DENIED;
}

void http_auth_job_free(HttpAuth *a, HttpAuthJob *j) {
        if (!j)
                return;
        if (a && j->result == HTTP_AUTH_PENDING) {
                AuthPeer *p;

                pthread_mutex_lock(&a->lock);
                p = peer_get(a, j->addr, j->addr_len, now(CLOCK_MONOTONIC));
                if (p)
                        p->waiting = false; /* never checked: the address may try again */
                for (HttpAuthJob **q = &a->first, *prev = NULL; *q; prev = *q, q = &(*q)->next)
                        if (*q == j) {
                                *q = j->next;
                                if (a->last == j)
                                        a->last = prev;
                                a->n_queued--;
                                break;
                        }
                j->queued = false;
                pthread_mutex_unlock(&a->lock);
        }
        job_clear_secrets(j);
        free(j->header);
        free(j->user);
        free(j);
}

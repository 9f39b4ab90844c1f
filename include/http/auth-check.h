/* SPDX-License-Identifier: MIT */
#pragma once

/* HTTP basic auth checked off the serving thread. A password hash is slow by design (yescrypt,
 * bcrypt: tens of milliseconds and more), so the server's thread never computes one: it asks
 * http_auth_check(), which answers at once when it can (no credentials, credentials that
 * verified before, an address that failed too often or already has a check waiting), and
 * otherwise queues the check for the worker thread and calls done(userdata) from that thread
 * when the result is known (the server suspends the connection meanwhile and resumes it in
 * done()).
 *
 * Bounds: at most one check per client address waits at a time, so a stream of wrong passwords
 * from one address delays another address by one check at most; after FAILURES_FREE failures in
 * a row an address is refused without a check for a time that doubles up to a minute (a
 * success forgets its failures); the queue holds at most QUEUE_MAX checks; the last few
 * Authorization values that verified are remembered, so a scraper's steady credentials cost one
 * check per daemon start. Thread-safe. */

#include <stdbool.h>
#include <sys/socket.h>

#include "basic/macro.h"

typedef enum HttpAuthResult {
        HTTP_AUTH_OK,      /* serve */
        HTTP_AUTH_DENIED,  /* 401 */
        HTTP_AUTH_LIMITED, /* 429: too many failures, or a check of this address still waits */
        HTTP_AUTH_PENDING, /* queued: done() will be called */
} HttpAuthResult;

typedef struct HttpAuth HttpAuth;
typedef struct HttpAuthJob HttpAuthJob;

/* user and hash are copied; the hash must be one libcrypt knows (http_password_verify()).
 * Starts the worker thread. Returns 0 or -errno. */
int http_auth_new(const char *user, const char *hash, HttpAuth **ret);

/* Stops the worker: checks still queued complete as DENIED (their done() is called), later ones
 * are DENIED at once. The object stays usable (for the requests those done() resume) until
 * http_auth_free(), which stops it too. */
void http_auth_stop(HttpAuth *a);
/* Starts a stopped worker again (harmless when running, or for NULL). Returns 0 or -errno. */
int http_auth_start(HttpAuth *a);
/* Accepts NULL, returns NULL. */
HttpAuth *http_auth_free(HttpAuth *a);
DEFINE_TRIVIAL_CLEANUP_FUNC(HttpAuth *, http_auth_free);

/* Whether two checkers (either NULL: none) check the same user and hash. */
bool http_auth_same(const HttpAuth *a, const HttpAuth *b);

/* header: the Authorization value (NULL: none); user, password: decoded from it by the caller
 * (NULL when it is not basic auth); peer: the client's address. On HTTP_AUTH_PENDING *ret_job
 * is a check prepared for the worker, owned by the caller: hand it over with
 * http_auth_submit() (after suspending the connection: done() may come at once), free it with
 * http_auth_job_free() after done() was called. */
HttpAuthResult http_auth_check(HttpAuth *a, const char *header, const char *user,
                               const char *password, const struct sockaddr *peer,
                               void (*done)(void *userdata), void *userdata, HttpAuthJob **ret_job);

void http_auth_submit(HttpAuth *a, HttpAuthJob *j);

/* For a 429: seconds (rounded up, at least 1) until `peer`'s failure back-off ends; 1 when it
 * is not backed off (a check of its own still waits, or the queue is full). */
unsigned http_auth_retry_after_sec(HttpAuth *a, const struct sockaddr *peer);

/* The result of a check whose done() was called: HTTP_AUTH_OK or HTTP_AUTH_DENIED; before
 * that HTTP_AUTH_PENDING. */
HttpAuthResult http_auth_job_result(HttpAuthJob *j);

/* Frees a check; one still queued is first taken off the queue. Accepts NULL. */
void http_auth_job_free(HttpAuth *a, HttpAuthJob *j);

/* 1 if `password` matches the crypt(5) `hash`, 0 if not, -EINVAL for a hash libcrypt cannot
 * use (unknown prefix, "*" or "!" locked entries), -ENOMEM, -ELIBACC/-ELIBBAD when libcrypt
 * (dlopen()ed at the first call) does not load. Constant-time comparison. */
int http_password_verify(const char *password, const char *hash);

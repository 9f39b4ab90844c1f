/* SPDX-License-Identifier: MIT */
#pragma once

/* The connection table of one listening socket, kept beside libmicrohttpd's: when each request
 * head began, so that (1) a whole request head must arrive within a deadline however slowly it
 * drips (libmicrohttpd's timeout is an idle timeout, reset by every byte), and (2) a full table
 * makes room for the next client by closing the connection whose request head has waited
 * longest (and, while it is full, by closing each connection after its response). A connection
 * "waits" from its accept or the end of its last response (an idle
 * keep-alive connection waits too) until its request head is complete.
 *
 * Closing means shutdown(SHUT_RDWR) of the connection's socket: libmicrohttpd then sees the end
 * of the stream and closes the connection itself, in its own thread. The guard's own thread
 * (asleep but once a second while a connection waits) applies the deadline. Every function is
 * thread-safe (one mutex, held for a few list operations). */

#include <stdbool.h>

#include "basic/macro.h"
#include "basic/time-util.h"

typedef struct HttpConnGuard HttpConnGuard;
typedef struct HttpConn HttpConn;

/* max_connections: the listener's table size (libmicrohttpd's connection limit);
 * request_timeout_usec: the deadline of a request head. Starts the guard's thread. Returns 0 or
 * -errno. */
int http_conn_guard_new(unsigned max_connections, usec_t request_timeout_usec, HttpConnGuard **ret);

/* Stops the thread (waits for it). Connections still listed are forgotten, not closed. Accepts
 * NULL, returns NULL. */
HttpConnGuard *http_conn_guard_free(HttpConnGuard *g);
DEFINE_TRIVIAL_CLEANUP_FUNC(HttpConnGuard *, http_conn_guard_free);

/* A new connection on socket fd (owned by libmicrohttpd), waiting for its first request head.
 * When the table is then full, the longest-waiting other connection is closed, and responses
 * close their connections while it stays full (http_conn_retiring()). Returns the handle, or
 * NULL without memory (then not guarded). */
HttpConn *http_conn_guard_add(HttpConnGuard *g, int fd);

/* Its request head is complete (no deadline while it is answered), or its response is done
 * (it waits for the next head from now). Accept NULL. */
void http_conn_guard_head_done(HttpConnGuard *g, HttpConn *c);
void http_conn_guard_response_done(HttpConnGuard *g, HttpConn *c);

/* Whether c's responses should close it (Connection: close): the table needs its slot. Lock-free,
 * for the serving thread. Accepts NULL (false). */
bool http_conn_retiring(HttpConn *c);

/* The connection is closed: forget it. Must come before its socket is closed. Accepts NULL. */
void http_conn_guard_remove(HttpConnGuard *g, HttpConn *c);

/* Connections closed by the deadline and by a full table so far (tests, logs). */
void http_conn_guard_counts(HttpConnGuard *g, unsigned long *ret_expired,
                            unsigned long *ret_evicted);

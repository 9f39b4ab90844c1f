/* SPDX-License-Identifier: MIT */
#pragma once

/* The read-only HTTP endpoint: /metrics (Prometheus text 0.0.4, OpenMetrics 1.0 on request,
 * gzip on request), /api/v1/{volumes,volumes/NAME,history} (JSON) and the embedded web page.
 * It serves whatever Snapshot (report/snapshot.h) it was handed last; until the first one it
 * answers 503. Only GET and HEAD; 405 for other methods, 404 for unknown paths, 4xx from
 * libmicrohttpd for malformed or oversized requests. Optional TLS (GnuTLS inside
 * libmicrohttpd) and HTTP basic auth against a crypt(5) hash (bcrypt "$2b$", sha-crypt "$5$" /
 * "$6$", yescrypt "$y$"), verified with libcrypt off the serving threads (http/auth-check.h).
 *
 * Threading: libmicrohttpd runs its own thread per listening socket; the owner's thread (the
 * daemon's sd-event loop) only ever calls http_server_set_snapshot(), which swaps a pointer
 * under a mutex held for a few instructions, http_server_start() once, and
 * http_server_reconfigure() on a reload. See server.c for why not the sd-event loop. */

#include <stdbool.h>
#include <stddef.h>

#include "basic/macro.h"
#include "report/snapshot.h"

/* Chosen from the exporter range 9100-9999 (https://github.com/prometheus/prometheus/wiki/
 * Default-port-allocations); see the README for its status. */
#define HTTP_DEFAULT_PORT 9977

/* GnuTLS priorities unless TLSPriorities= says otherwise: GnuTLS's NORMAL (its maintained
 * default, with the system's policy applied) restricted to TLS 1.3 and 1.2 (1.0 and 1.1 are
 * deprecated by RFC 8996, and NORMAL still offers them in GnuTLS 3.7), forward-secret key
 * exchange only (ECDHE, DHE; no static RSA) and AEAD ciphers only (no CBC: Lucky13, POODLE-style
 * padding oracles). Every client of the last decade, Prometheus (Go) included, speaks this. */
#define HTTP_TLS_PRIORITIES                                                                        \
        "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:-RSA:-AES-128-CBC:-AES-256-CBC:"               \
        "-CAMELLIA-128-CBC:-CAMELLIA-256-CBC:-3DES-CBC:-ARCFOUR-128:-SHA1:-MD5"

typedef struct HttpServerOptions {
        char *const *listen; /* NULL-terminated "ADDR:PORT" (http_listen_parse()), may be NULL */
        const int *fds;      /* already listening sockets (socket activation), taken over */
        size_t n_fds;
        unsigned max_connections;        /* 0: 64 */
        unsigned max_connections_per_ip; /* 0: 16 */
        size_t connection_memory_bytes;  /* per connection, bounds the request head; 0: 32 KiB */
        unsigned timeout_sec;            /* idle connection timeout; 0: 10 s */
        unsigned request_timeout_sec;    /* a whole request head must arrive within; 0: 10 s */
        const char *tls_priorities;      /* GnuTLS priority string; NULL: HTTP_TLS_PRIORITIES */
        const char *tls_cert_file;       /* PEM; both or neither */
        const char *tls_key_file;
        const char *auth_user; /* basic auth: both or neither */
        const char *auth_hash; /* crypt(5) hash of the password */
        bool lazy;             /* bind now, serve from http_server_start() on (not with TLS) */
} HttpServerOptions;

typedef struct HttpServer HttpServer;

/* Bind (unless fds are given: then listen is ignored), then start serving (a lazy one without
 * TLS: at http_server_start()). With neither listen nor fds the default
 * "*:HTTP_DEFAULT_PORT". Returns 0, or -errno with *ret_error (optional) a malloc'd message
 * naming what failed ("bind [::]:9977: Address already in use"). */
int http_server_new(const HttpServerOptions *o, HttpServer **ret, char **ret_error);

/* Replace everything but the sockets (limits, TLS, auth) by what o says (its listen and fds are
 * ignored): a reload. The files are read and the hash checked first; then serving stops (on the
 * same sockets: connections wait in the backlog; requests in progress are cut) and starts again
 * with the new settings. When that fails (a certificate libmicrohttpd refuses) it serves with the
 * old ones again. Returns 1 when it changed something, 0 when all was the same (the files
 * included: a certificate renewed under the same name is a change), or -errno with *ret_error
 * (optional) as http_server_new() and the old settings in force. */
int http_server_reconfigure(HttpServer *h, const HttpServerOptions *o, char **ret_error);

/* Load libmicrohttpd and start serving, when a lazy server was made; harmless when started.
 * Until then connections wait in the sockets' backlog: the owner watches http_server_listen_fd()
 * for EPOLLIN and calls this then (from its own thread; it never blocks on a client). Returns 0
 * or -errno with *ret_error as http_server_new(). */
int http_server_start(HttpServer *h, char **ret_error);
bool http_server_started(const HttpServer *h) _pure_;

/* The i-th listening socket (owned by the server), or -EINVAL. */
int http_server_listen_fd(const HttpServer *h, size_t i) _pure_;

/* Serve s from now on (takes a reference; NULL serves 503 again). Thread-safe, never blocks
 * beyond a short mutex. The previous snapshot is released once its last response is sent. */
void http_server_set_snapshot(HttpServer *h, Snapshot *s);

/* Number of listening sockets, and the i-th one's address as "ADDR:PORT" ("[::1]:9977",
 * "127.0.0.1:41231"), for logs and tests. Returns 0 or -errno. */
size_t http_server_n_listen(const HttpServer *h) _pure_;
int http_server_listen_address(const HttpServer *h, size_t i, char *buf, size_t size);

/* Stops the threads (waits for them; they never block on anything but their sockets) and
 * closes the sockets. Accepts NULL, returns NULL. */
HttpServer *http_server_free(HttpServer *h);
DEFINE_TRIVIAL_CLEANUP_FUNC(HttpServer *, http_server_free);

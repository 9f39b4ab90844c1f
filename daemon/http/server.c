/* SPDX-License-Identifier: MIT */
/* libmicrohttpd serving immutable snapshots.
 *
 * Why MHD's own thread and not the daemon's sd-event loop: MHD offers both (its epoll fd as an
 * io source plus a timer from MHD_get_timeout(), or MHD_USE_INTERNAL_POLLING_THREAD). We use the
 * thread because (1) nothing a client does can then delay the loop that watches the arrays: a
 * slow TLS handshake, a slowloris client or a 1000-connection flood costs this thread, never the
 * md monitor; (2) what it serves is immutable (report/snapshot.h: rendered and gzip'd once per
 * change), so the only shared state is one pointer swapped under a mutex held for a few
 * instructions, and a response holds its own reference, so an old snapshot lives exactly as long
 * as a client still downloads it; (3) an earlier attempt in external-epoll mode with MHD 0.9.75
 * saw an overlong request answered only at the idle timeout, because MHD queues the 414/431
 * for a write that the external loop only learns of at the next timeout; the internal thread
 * drives that itself. The cost is one thread per listening socket, mostly asleep in epoll.
 *
 * Limits (all per server, from HttpServerOptions): connections in total and per client address,
 * memory per connection (which bounds the request line and headers: MHD answers 414 or 431
 * beyond it), an idle timeout per connection, a deadline for each whole request head and room
 * made when the table is full (http/conn-guard.h); request bodies are never read (only
 * GET/HEAD). Passwords are checked off these threads (http/auth-check.h): the request is
 * suspended meanwhile. A reload (http_server_reconfigure()) restarts libmicrohttpd on the same
 * sockets, which it only ever holds a dup of.
 *
 * Started late on request (HttpServerOptions.lazy): the sockets are bound at once (a port in use
 * is reported at start), but libmicrohttpd is loaded and its threads started only when the
 * owner says so, at the first connection waiting on a socket. A daemon nobody scrapes then holds
 * neither the library nor a thread; the first client waits in the backlog for the few
 * milliseconds of the load, never on anything else. With TLS the start is at once: a bad
 * certificate must fail the start, not the first scrape. */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/dlopen-util.h"
#include "basic/fileio.h"
#include "config.h"
#include "http/auth-check.h"
#include "http/conn-guard.h"
#include "http/mhd-api.h"
#include "http/request.h"
#include "http/server.h"
#include "http/web-assets.h"

#define REALM "storpulse"
/* Clients beyond the connection table wait here for their turn (a full table turns over, see
 * http/conn-guard.h) instead of having their SYNs dropped, which costs them 1, 3, 7 s of
 * retransmission: 1000 clients must not push a scraper into that. The kernel caps it at
 * net.core.somaxconn (4096 since Linux 5.4); systemd's Backlog= is the same for passed sockets. */
#define LISTEN_BACKLOG 1024
#define STR_(x)        #x
#define STR(x)         STR_(x)

typedef struct HttpServer HttpServer;

typedef struct Listener {
        HttpServer *h;
        int fd;
        struct MHD_Daemon *daemon;
        HttpConnGuard *guard; /* request-head deadlines, room when full */
        char address[INET6_ADDRSTRLEN + 16];
} Listener;

/* One request (libmicrohttpd's req_cls), from its complete head to its end. */
typedef struct Request {
        Listener *l;
        struct MHD_Connection *c;
        HttpConn *conn;
        HttpAuthJob *job;         /* a password check off this thread, while the connection waits */
        unsigned retry_after_sec; /* of a 429 */
} Request;

static const MhdApi *mhd; /* set by the first start; the process keeps the library */

/* What http_server_reconfigure() replaces as a whole: everything but the sockets. */
typedef struct HttpSettings {
        HttpServerOptions limits; /* the numbers (the pointers cleared) */
        bool tls;
        char *tls_cert, *tls_key, *tls_priorities;
        HttpAuth *auth; /* checks the passwords off the serving threads */
} HttpSettings;

struct HttpServer {
        Listener *listeners;
        size_t n_listeners;
        bool started;
        HttpSettings set;

        pthread_mutex_t lock; /* guards snapshot */
        Snapshot *snapshot;
};

static int fail(char **ret_error, int r, const char *fmt, ...) _printf_(3, 4);
static int fail(char **ret_error, int r, const char *fmt, ...) {
        va_list ap;
        char *m = NULL, *full = NULL;

        if (!ret_error)
                return r;
        va_start(ap, fmt);
        if (vasprintf(&m, fmt, ap) < 0)
                m = NULL;
        va_end(ap);
        if (m && asprintf(&full, "%s: %s", m, strerror(-r)) < 0)
                full = NULL;
        free(m);
        *ret_error = full;
        return r;
}

/* ---- responses ------------------------------------------------------------------------- */

static void add_common_headers(HttpServer *h, struct MHD_Response *resp) {
        (void) mhd->add_response_header(resp, "X-Content-Type-Options", "nosniff");
        (void) mhd->add_response_header(resp, "Cache-Control", "no-store");
        if (h->set.tls)
                (void) mhd->add_response_header(resp, "Strict-Transport-Security",
                                                "max-age=31536000");
}

static void add_page_headers(struct MHD_Response *resp) {
        (void) mhd->add_response_header(resp, "Content-Security-Policy",
                                        "default-src 'none'; script-src 'self'; style-src 'self'; "
                                        "img-src 'self' data:; connect-src 'self'; "
                                        "base-uri 'none'; form-action 'none'; "
                                        "frame-ancestors 'none'");
        (void) mhd->add_response_header(resp, "X-Frame-Options", "DENY");
        (void) mhd->add_response_header(resp, "Referrer-Policy", "no-referrer");
        (void) mhd->add_response_header(resp, "Cross-Origin-Opener-Policy", "same-origin");
        (void) mhd->add_response_header(resp, "Cross-Origin-Resource-Policy", "same-origin");
}

static enum MHD_Result queue(HttpServer *h, struct MHD_Connection *c, unsigned status,
                             struct MHD_Response *resp) {
        const union MHD_ConnectionInfo *ci;
        enum MHD_Result ret;

        if (!resp)
                return MHD_NO;
        add_common_headers(h, resp);
        ci = mhd->get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
        if (ci && http_conn_retiring(ci->socket_context)) /* the table needs the slot */
                (void) mhd->add_response_header(resp, "Connection", "close");
        if (status == MHD_HTTP_UNAUTHORIZED)
                ret = mhd->queue_basic_auth_fail_response(c, REALM, resp);
        else
                ret = mhd->queue_response(c, status, resp);
        mhd->destroy_response(resp);
        return ret;
}

/* retry_sec: the Retry-After of a 429 or 503 */
static enum MHD_Result reply_retry(HttpServer *h, struct MHD_Connection *c, unsigned status,
                                   const char *text, unsigned retry_sec) {
        struct MHD_Response *resp;
        char retry[16];

        resp = mhd->create_response_from_buffer(strlen(text), (void *) text,
                                                MHD_RESPMEM_PERSISTENT);
        if (!resp)
                return MHD_NO;
        (void) mhd->add_response_header(resp, "Content-Type", "text/plain; charset=utf-8");
        if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
                (void) mhd->add_response_header(resp, "Allow", "GET, HEAD");
        (void) snprintf(retry, sizeof(retry), "%u", retry_sec);
        if (status == MHD_HTTP_SERVICE_UNAVAILABLE || status == MHD_HTTP_TOO_MANY_REQUESTS)
                (void) mhd->add_response_header(resp, "Retry-After", retry);
        return queue(h, c, status, resp);
}

static enum MHD_Result reply_text(HttpServer *h, struct MHD_Connection *c, unsigned status,
                                  const char *text) {
        return reply_retry(h, c, status, text, 1);
}

static void unref_snapshot(void *userdata) {
        snapshot_unref(userdata);
}

/* Serve a snapshot body; takes over the reference `s`. */
static enum MHD_Result reply_body(HttpServer *h, struct MHD_Connection *c, Snapshot *s,
                                  const SnapshotBody *b, const char *content_type, bool gzip,
                                  const char *vary) {
        struct MHD_Response *resp;

        resp = mhd->create_response_from_buffer_with_free_callback_cls(
                gzip ? b->gzip_size : b->size, (void *) (gzip ? b->gzip : b->data), unref_snapshot,
                s);
        if (!resp) {
                snapshot_unref(s);
                return MHD_NO;
        }
        (void) mhd->add_response_header(resp, "Content-Type", content_type);
        if (gzip)
                (void) mhd->add_response_header(resp, "Content-Encoding", "gzip");
        (void) mhd->add_response_header(resp, "Vary", vary);
        return queue(h, c, MHD_HTTP_OK, resp);
}

static enum MHD_Result reply_asset(HttpServer *h, struct MHD_Connection *c, const WebAsset *a) {
        struct MHD_Response *resp;

        resp = mhd->create_response_from_buffer(a->size, (void *) a->data, MHD_RESPMEM_PERSISTENT);
        if (!resp)
                return MHD_NO;
        (void) mhd->add_response_header(resp, "Content-Type", a->content_type);
        add_page_headers(resp);
        return queue(h, c, MHD_HTTP_OK, resp);
}

/* MHD_OPTION_UNESCAPE_CALLBACK: http_unescape_path() (http/request.h). */
static size_t unescape_path(void *cls, struct MHD_Connection *c, char *uri) {
        return http_unescape_path(uri);
}

static void auth_done(void *userdata) {
        Request *q = userdata;

        (void) mhd->resume_connection(q->c);
}

/* HTTP_AUTH_OK: serve; PENDING: the connection is suspended until the check is done (then this
 * runs again and answers); DENIED, LIMITED: refuse. Never computes a hash on this thread. */
static HttpAuthResult check_auth(HttpServer *h, Request *q) {
        struct MHD_Connection *c = q->c;
        const char *header = mhd->lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
        const union MHD_ConnectionInfo *ci;
        char *user, *pass = NULL;
        HttpAuthResult res;
        HttpAuthJob *job = NULL;

        if (q->job) /* resumed: the check is done */
                return http_auth_job_result(q->job);
        if (!header)
                return HTTP_AUTH_DENIED;
        ci = mhd->get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        user = mhd->basic_auth_get_username_password(c, &pass);
        res = http_auth_check(h->set.auth, header, user, pass, ci ? ci->client_addr : NULL,
                              auth_done, q, &job);
        if (pass) {
                explicit_bzero(pass, strlen(pass));
                mhd->free(pass);
        }
        if (user)
                mhd->free(user);
        if (res == HTTP_AUTH_LIMITED)
                q->retry_after_sec =
                        http_auth_retry_after_sec(h->set.auth, ci ? ci->client_addr : NULL);
        if (res == HTTP_AUTH_PENDING) {
                q->job = job;
                mhd->suspend_connection(c); /* first: done() may come at once */
                http_auth_submit(h->set.auth, job);
        }
        return res;
}

/* A route's body from snapshot s (whose reference this takes), in the format and encoding the
 * client asked for. */
static enum MHD_Result reply_snapshot(HttpServer *h, struct MHD_Connection *c, Snapshot *s,
                                      HttpRoute route, const char *arg) {
        bool gzip = http_accept_gzip(
                mhd->lookup_connection_value(c, MHD_HEADER_KIND, "Accept-Encoding"));
        const SnapshotBody *b = NULL;
        const char *type = "application/json";
        const char *vary = "Accept-Encoding";

        switch (route) {
        case HTTP_ROUTE_METRICS: {
                MetricsFormat f = http_accept_metrics_format(
                        mhd->lookup_connection_value(c, MHD_HEADER_KIND, "Accept"));
                b = snapshot_body(s, f == METRICS_FORMAT_OPENMETRICS ? SNAPSHOT_METRICS_OPENMETRICS
                                                                     : SNAPSHOT_METRICS_PROMETHEUS);
                type = metrics_format_content_type(f);
                vary = "Accept, Accept-Encoding";
                break;
        }
        case HTTP_ROUTE_VOLUMES:
                b = snapshot_body(s, SNAPSHOT_VOLUMES_JSON);
                break;
        case HTTP_ROUTE_VOLUME:
                b = snapshot_volume(s, arg);
                break;
        case HTTP_ROUTE_HISTORY:
                b = snapshot_body(s, SNAPSHOT_HISTORY_JSON);
                break;
        case HTTP_ROUTE_ASSET:
        case HTTP_ROUTE_NONE:
        case _HTTP_ROUTE_MAX:
        case _HTTP_ROUTE_INVALID:
                break;
        }
        if (!b) {
                snapshot_unref(s);
                return reply_text(h, c, MHD_HTTP_NOT_FOUND, "Not Found\n");
        }
        return reply_body(h, c, s, b, type, gzip, vary);
}

/* The first call of a request: its head is complete (the guard's deadline is met). */
static Request *request_new(Listener *l, struct MHD_Connection *c) {
        const union MHD_ConnectionInfo *ci =
                mhd->get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
        Request *q = calloc(1, sizeof(*q));

        if (!q)
                return NULL;
        q->l = l;
        q->c = c;
        q->conn = ci ? ci->socket_context : NULL;
        http_conn_guard_head_done(l->guard, q->conn);
        return q;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **req_cls) {
        Listener *l = cls;
        HttpServer *h = l->h;
        Request *q = *req_cls;
        const char *arg = NULL;
        Snapshot *s;
        HttpRoute route;

        /* The first call comes with the headers only; answering on the second one (after the
         * request was read in full) lets MHD keep the connection alive. */
        if (!q) {
                *req_cls = q = request_new(l, c);
                if (!q)
                        return MHD_NO;
                if (strcmp(method, MHD_HTTP_METHOD_GET) == 0 ||
                    strcmp(method, MHD_HTTP_METHOD_HEAD) == 0)
                        return MHD_YES;
        }
        if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
                return reply_text(h, c, MHD_HTTP_METHOD_NOT_ALLOWED, "Method Not Allowed\n");
        if (*upload_data_size > 0)
                return reply_text(h, c, MHD_HTTP_BAD_REQUEST, "A GET has no body\n");
        if (h->set.auth)
                switch (check_auth(h, q)) {
                case HTTP_AUTH_OK:
                        break;
                case HTTP_AUTH_PENDING:
                        return MHD_YES; /* suspended; called again when the check is done */
                case HTTP_AUTH_LIMITED:
                        return reply_retry(h, c, MHD_HTTP_TOO_MANY_REQUESTS, "Too Many Requests\n",
                                           q->retry_after_sec);
                case HTTP_AUTH_DENIED:
                        return reply_text(h, c, MHD_HTTP_UNAUTHORIZED, "Unauthorized\n");
                }

        route = http_route(url, &arg);
        switch (route) {
        case HTTP_ROUTE_ASSET: {
                const WebAsset *a = web_asset_lookup(arg);
                if (!a)
                        return reply_text(h, c, MHD_HTTP_NOT_FOUND, "Not Found\n");
                return reply_asset(h, c, a);
        }
        case HTTP_ROUTE_NONE:
                return reply_text(h, c, MHD_HTTP_NOT_FOUND, "Not Found\n");
        case HTTP_ROUTE_METRICS:
        case HTTP_ROUTE_VOLUMES:
        case HTTP_ROUTE_VOLUME:
        case HTTP_ROUTE_HISTORY:
                break;
        case _HTTP_ROUTE_MAX:
        case _HTTP_ROUTE_INVALID:
                return reply_text(h, c, MHD_HTTP_NOT_FOUND, "Not Found\n");
        }

        pthread_mutex_lock(&h->lock);
        s = snapshot_ref(h->snapshot);
        pthread_mutex_unlock(&h->lock);
        if (!s)
                return reply_text(h, c, MHD_HTTP_SERVICE_UNAVAILABLE, "Starting up\n");

        return reply_snapshot(h, c, s, route, arg);
}

/* ---- sockets ---------------------------------------------------------------------------- */

static void format_address(int fd, char *buf, size_t size) {
        struct sockaddr_storage ss = {};
        socklen_t len = sizeof(ss);
        char host[INET6_ADDRSTRLEN] = "?";

        if (getsockname(fd, (struct sockaddr *) &ss, &len) < 0) {
                (void) snprintf(buf, size, "fd %d", fd);
                return;
        }
        if (ss.ss_family == AF_INET6) {
                struct sockaddr_in6 *a = (struct sockaddr_in6 *) &ss;
                (void) inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof(host));
                (void) snprintf(buf, size, "[%s]:%u", host, ntohs(a->sin6_port));
        } else if (ss.ss_family == AF_INET) {
                struct sockaddr_in *a = (struct sockaddr_in *) &ss;
                (void) inet_ntop(AF_INET, &a->sin_addr, host, sizeof(host));
                (void) snprintf(buf, size, "%s:%u", host, ntohs(a->sin_port));
        } else
                (void) snprintf(buf, size, "fd %d", fd);
}

static int bind_one(const char *spec, int *ret_fd, char **ret_error) {
        struct sockaddr_storage ss;
        socklen_t len;
        int fd, one = 1, r;

        r = http_listen_parse(spec, &ss, &len);
        if (r < 0)
                return fail(ret_error, r, "invalid listen address '%s' (ADDR:PORT, [IPv6]:PORT)",
                            spec);
        fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return fail(ret_error, -errno, "socket for %s", spec);
        (void) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (ss.ss_family == AF_INET6) {
                /* "*:PORT" is dual-stack; an explicit IPv6 address is only that address */
                int v6only = !IN6_IS_ADDR_UNSPECIFIED(&((struct sockaddr_in6 *) &ss)->sin6_addr);
                (void) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof(v6only));
        }
        if (bind(fd, (struct sockaddr *) &ss, len) < 0 || listen(fd, LISTEN_BACKLOG) < 0) {
                r = -errno;
                close(fd);
                return fail(ret_error, r, "bind %s", spec);
        }
        *ret_fd = fd;
        return 0;
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode code) {
        Listener *l = cls;
        const union MHD_ConnectionInfo *ci;

        switch (code) {
        case MHD_CONNECTION_NOTIFY_STARTED:
                ci = mhd->get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
                *socket_context = ci ? http_conn_guard_add(l->guard, ci->connect_fd) : NULL;
                break;
        case MHD_CONNECTION_NOTIFY_CLOSED: /* before libmicrohttpd closes the socket */
                http_conn_guard_remove(l->guard, *socket_context);
                *socket_context = NULL;
                break;
        }
}

static void on_completed(void *cls, struct MHD_Connection *c, void **req_cls,
                         enum MHD_RequestTerminationCode code) {
        Listener *l = cls;
        Request *q = *req_cls;

        if (!q)
                return;
        http_conn_guard_response_done(l->guard, q->conn); /* waits for its next head */
        http_auth_job_free(l->h->set.auth, q->job);
        free(q);
        *req_cls = NULL;
}

/* Close fd if it is still a descriptor of the socket `of` (the same inode), else leave it: the
 * number may be another file's by now. */
static void close_if_same_socket(int fd, int of) {
        struct stat a, b;

        if (fstat(fd, &a) >= 0 && fstat(of, &b) >= 0 && a.st_ino == b.st_ino &&
            a.st_dev == b.st_dev)
                (void) close(fd);
}

static int start_listener(HttpServer *h, Listener *l, char **ret_error) {
        const HttpServerOptions *o = &h->set.limits;
        struct MHD_OptionItem opts[20];
        size_t n = 0;
        unsigned max = o->max_connections ?: 64;
        unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_ALLOW_SUSPEND_RESUME;
        int mhd_fd, r;

        l->h = h;
        r = http_conn_guard_new(max, (o->request_timeout_sec ?: 10) * USEC_PER_SEC, &l->guard);
        if (r < 0)
                return fail(ret_error, r, "connection guard for %s", l->address);
        /* libmicrohttpd gets its own descriptor of the socket: it closes that one when it stops
         * or fails to start (a bad certificate), while l->fd, and the clients waiting in its
         * backlog, stay for the next start (http_server_reconfigure()) */
        mhd_fd = fcntl(l->fd, F_DUPFD_CLOEXEC, 3);
        if (mhd_fd < 0) {
                r = -errno;
                l->guard = http_conn_guard_free(l->guard);
                return fail(ret_error, r, "dup the socket of %s", l->address);
        }
        opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_LISTEN_SOCKET, mhd_fd, NULL };
        opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_LIMIT, max, NULL };
        opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_CONNECTION, (intptr_t) on_connection,
                                             l };
        opts[n++] =
                (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_COMPLETED, (intptr_t) on_completed, l };
        opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_PER_IP_CONNECTION_LIMIT,
                                             o->max_connections_per_ip ?: 16, NULL };
        opts[n++] =
                (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_MEMORY_LIMIT,
                                         (intptr_t) (o->connection_memory_bytes ?: 32768), NULL };
        opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_TIMEOUT, o->timeout_sec ?: 10,
                                             NULL };
        opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_LISTEN_BACKLOG_SIZE, LISTEN_BACKLOG, NULL };
        opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_UNESCAPE_CALLBACK, (intptr_t) unescape_path,
                                             NULL };
        if (h->set.tls) {
                flags |= MHD_USE_TLS;
                opts[n++] =
                        (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0, h->set.tls_cert };
                opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0, h->set.tls_key };
                opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_PRIORITIES, 0,
                                                     h->set.tls_priorities };
        }
        opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };

        l->daemon = mhd->start_daemon(flags, 0, NULL, NULL, on_request, l, MHD_OPTION_ARRAY, opts,
                                      MHD_OPTION_END);
        if (!l->daemon) {
                close_if_same_socket(mhd_fd, l->fd); /* unless libmicrohttpd closed it */
                l->guard = http_conn_guard_free(l->guard);
                return fail(ret_error, -EIO, "libmicrohttpd failed to start on %s%s", l->address,
                            h->set.tls ? " (the certificate, key or TLSPriorities=?)" : "");
        }
        return 0;
}

static void settings_done(HttpSettings *t) {
        t->auth = http_auth_free(t->auth);
        if (t->tls_key)
                explicit_bzero(t->tls_key, strlen(t->tls_key));
        t->tls_key = mfree(t->tls_key);
        t->tls_cert = mfree(t->tls_cert);
        t->tls_priorities = mfree(t->tls_priorities);
}

/* Everything of o but the sockets, checked and read (the hash, the PEM files), into *ret. */
static int settings_load(const HttpServerOptions *o, HttpSettings *ret, char **ret_error) {
        HttpSettings t = { .limits = *o };
        int r;

        if (!!o->auth_user != !!o->auth_hash)
                return fail(ret_error, -EINVAL, "basic auth needs both a user and a hash");
        if (!!o->tls_cert_file != !!o->tls_key_file)
                return fail(ret_error, -EINVAL, "TLS needs both a certificate and a key");
        if (o->auth_hash) {
                r = http_password_verify("", o->auth_hash);
                if (r == -ELIBACC || r == -ELIBBAD)
                        return fail(ret_error, r, LIBCRYPT_SONAME " does not load");
                if (r < 0)
                        return fail(ret_error, r,
                                    "password hash is not a crypt(5) hash libcrypt knows");
        }
        t.limits.listen = NULL;
        t.limits.fds = NULL;
        t.limits.tls_cert_file = t.limits.tls_key_file = NULL;
        t.limits.auth_user = t.limits.auth_hash = t.limits.tls_priorities = NULL;
        t.tls_priorities = strdup(o->tls_priorities ?: HTTP_TLS_PRIORITIES);
        r = t.tls_priorities ? 0 : -ENOMEM;
        if (r >= 0 && o->auth_user) {
                r = http_auth_new(o->auth_user, o->auth_hash, &t.auth);
                if (r < 0)
                        (void) fail(ret_error, r, "password check thread");
        }
        if (r >= 0 && o->tls_cert_file) {
                r = read_full_file_at(AT_FDCWD, o->tls_cert_file, &t.tls_cert, NULL);
                if (r < 0)
                        (void) fail(ret_error, r, "read %s", o->tls_cert_file);
                else {
                        r = read_full_file_at(AT_FDCWD, o->tls_key_file, &t.tls_key, NULL);
                        if (r < 0)
                                (void) fail(ret_error, r, "read %s", o->tls_key_file);
                }
                t.tls = true;
        }
        if (r < 0) {
                settings_done(&t);
                return r;
        }
        *ret = t;
        return 0;
}

static bool streq_null(const char *a, const char *b) {
        return a == b || (a && b && strcmp(a, b) == 0);
}

static bool settings_equal(const HttpSettings *a, const HttpSettings *b) {
        const HttpServerOptions *x = &a->limits, *y = &b->limits;

        return x->max_connections == y->max_connections &&
               x->max_connections_per_ip == y->max_connections_per_ip &&
               x->connection_memory_bytes == y->connection_memory_bytes &&
               x->timeout_sec == y->timeout_sec &&
               x->request_timeout_sec == y->request_timeout_sec && a->tls == b->tls &&
               streq_null(a->tls_cert, b->tls_cert) && streq_null(a->tls_key, b->tls_key) &&
               streq_null(a->tls_priorities, b->tls_priorities) && http_auth_same(a->auth, b->auth);
}

/* Stop serving on l, keeping its socket (libmicrohttpd hands it back). */
static void stop_listener(Listener *l) {
        if (l->daemon) {
                /* quiesced first, libmicrohttpd leaves the socket alone and hands its descriptor
                 * back; otherwise it closes it: either way, l->fd stays */
                int fd = mhd->quiesce_daemon(l->daemon);

                mhd->stop_daemon(l->daemon);
                l->daemon = NULL;
                if (fd >= 0)
                        (void) close(fd);
        }
        l->guard = http_conn_guard_free(l->guard);
}

static int start_all(HttpServer *h, char **ret_error) {
        int r;

        if (h->set.tls && !mhd->is_feature_supported(MHD_FEATURE_TLS))
                return fail(ret_error, -EOPNOTSUPP, "libmicrohttpd was built without TLS");
        for (size_t i = 0; i < h->n_listeners; i++) {
                r = start_listener(h, &h->listeners[i], ret_error);
                if (r < 0) {
                        for (size_t k = 0; k < i; k++)
                                stop_listener(&h->listeners[k]);
                        return r;
                }
        }
        return 0;
}

/* Stop serving, keeping the sockets: the checks waiting in the password thread are refused and
 * their connections resumed while libmicrohttpd still runs. */
static void stop_all(HttpServer *h) {
        http_auth_stop(h->set.auth);
        for (size_t i = 0; i < h->n_listeners; i++)
                stop_listener(&h->listeners[i]);
}

int http_server_new(const HttpServerOptions *o, HttpServer **ret, char **ret_error) {
        static char *const default_listen[] = { (char *) "*:" STR(HTTP_DEFAULT_PORT), NULL };
        _cleanup_(http_server_freep) HttpServer *h = NULL;
        char *const *listen;
        size_t n_listen = 0;
        int r;

        if (!o || !ret)
                return -EINVAL;
        h = calloc(1, sizeof(*h));
        if (!h)
                return -ENOMEM;
        pthread_mutex_init(&h->lock, NULL);
        r = settings_load(o, &h->set, ret_error);
        if (r < 0)
                return r;

        /* passed sockets are the endpoint: under systemd, the .socket unit says where */
        listen = o->n_fds > 0 ? NULL : o->listen && o->listen[0] ? o->listen : default_listen;
        for (char *const *l = listen; l && *l; l++)
                n_listen++;
        h->listeners = calloc(n_listen + o->n_fds + 1, sizeof(*h->listeners));
        if (!h->listeners)
                return -ENOMEM;
        for (size_t i = 0; i < o->n_fds; i++) {
                Listener *l = &h->listeners[h->n_listeners++];
                l->fd = o->fds[i];
                (void) fcntl(l->fd, F_SETFD, FD_CLOEXEC);
                (void) fcntl(l->fd, F_SETFL, fcntl(l->fd, F_GETFL) | O_NONBLOCK);
                format_address(l->fd, l->address, sizeof(l->address));
        }
        for (size_t i = 0; i < n_listen; i++) {
                Listener *l = &h->listeners[h->n_listeners];
                r = bind_one(listen[i], &l->fd, ret_error);
                if (r < 0)
                        return r;
                h->n_listeners++;
                format_address(l->fd, l->address, sizeof(l->address));
        }
        if (!o->lazy || h->set.tls) {
                r = http_server_start(h, ret_error);
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(h);
        return 0;
}

int http_server_start(HttpServer *h, char **ret_error) {
        _cleanup_free_ char *error = NULL;
        int r;

        if (!h)
                return -EINVAL;
        if (h->started)
                return 0;
        r = mhd_api_load(&mhd, &error);
        if (r < 0)
                return fail(ret_error, r, "cannot load libmicrohttpd (%s)", error ?: "?");
        r = start_all(h, ret_error);
        if (r < 0)
                return r;
        h->started = true;
        return 0;
}

int http_server_reconfigure(HttpServer *h, const HttpServerOptions *o, char **ret_error) {
        HttpSettings old, t;
        int r;

        if (!h || !o)
                return -EINVAL;
        r = settings_load(o, &t, ret_error);
        if (r < 0)
                return r;                  /* nothing touched */
        if (settings_equal(&h->set, &t)) { /* the same files, the same hash: keep serving */
                settings_done(&t);
                return 0;
        }
        old = h->set;
        if (!h->started) { /* lazy: nothing runs yet, but TLS starts at once */
                h->set = t;
                r = t.tls ? http_server_start(h, ret_error) : 0;
        } else {
                stop_all(h);
                h->set = t;
                r = start_all(h, ret_error);
        }
        if (r >= 0) {
                settings_done(&old);
                return 1;
        }
        /* the new settings do not start (a bad certificate): serve with the old ones again */
        h->set = old;
        settings_done(&t);
        if (h->started && (http_auth_start(h->set.auth) < 0 || start_all(h, NULL) < 0))
                h->started = false; /* only without memory; the owner was told r */
        return r;
}

bool http_server_started(const HttpServer *h) {
        return h && h->started;
}

int http_server_listen_fd(const HttpServer *h, size_t i) {
        if (!h || i >= h->n_listeners)
                return -EINVAL;
        return h->listeners[i].fd;
}

void http_server_set_snapshot(HttpServer *h, Snapshot *s) {
        Snapshot *old;

        if (!h)
                return;
        snapshot_ref(s);
        pthread_mutex_lock(&h->lock);
        old = h->snapshot;
        h->snapshot = s;
        pthread_mutex_unlock(&h->lock);
        snapshot_unref(old);
}

size_t http_server_n_listen(const HttpServer *h) {
        return h ? h->n_listeners : 0;
}

int http_server_listen_address(const HttpServer *h, size_t i, char *buf, size_t size) {
        if (!h || i >= h->n_listeners || !buf)
                return -EINVAL;
        if ((size_t) snprintf(buf, size, "%s", h->listeners[i].address) >= size)
                return -ENOBUFS;
        return 0;
}

HttpServer *http_server_free(HttpServer *h) {
        if (!h)
                return NULL;
        if (h->started)
                stop_all(h);
        for (size_t i = 0; i < h->n_listeners; i++)
                safe_close(h->listeners[i].fd);
        free(h->listeners);
        snapshot_unref(h->snapshot);
        pthread_mutex_destroy(&h->lock);
        settings_done(&h->set);
        free(h);
        return NULL;
}

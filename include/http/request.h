/* SPDX-License-Identifier: MIT */
#pragma once

/* The small parsers of the HTTP endpoint, pure and bounded (they read client input): content
 * negotiation for /metrics (Accept) and compression (Accept-Encoding) per RFC 9110 §12.5 with
 * q-values, the listen address syntax, and the request routing. A fuzz target drives them. */

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include "basic/macro.h"
#include "report/metrics.h"

/* The format a scraper asked for: OpenMetrics when Accept names application/openmetrics-text
 * (version 1.0.0, 0.0.1 or none) with a q-value above that of text/plain (or of the wildcards
 * when text/plain is not named), else the 0.0.4 text. NULL or garbage: the text format. */
MetricsFormat http_accept_metrics_format(const char *accept) _pure_;

/* Whether Accept-Encoding allows gzip (a "gzip" or "*" coding with q > 0 and gzip not refused
 * with q=0). */
bool http_accept_gzip(const char *accept_encoding) _pure_;

/* Parse a listen address: "ADDR:PORT" with ADDR an IPv4 address, "[IPv6]" or "*" / empty for
 * every address (IPv6 any, dual-stack); a bare "PORT" is the same as "*:PORT". PORT 0..65535
 * (0: the kernel picks, for tests). Returns 0 and the socket address, or -EINVAL. */
int http_listen_parse(const char *s, struct sockaddr_storage *ret, socklen_t *ret_len);

/* What a request path names. */
typedef enum HttpRoute {
        HTTP_ROUTE_ASSET,   /* a file of the embedded page (arg: the asset path, "/" -> index) */
        HTTP_ROUTE_METRICS, /* /metrics */
        HTTP_ROUTE_VOLUMES, /* /api/v1/volumes */
        HTTP_ROUTE_VOLUME,  /* /api/v1/volumes/NAME (arg: NAME, a plain file name) */
        HTTP_ROUTE_HISTORY, /* /api/v1/history */
        HTTP_ROUTE_NONE,    /* 404 */
        _HTTP_ROUTE_MAX,
        _HTTP_ROUTE_INVALID = -EINVAL,
} HttpRoute;

/* Route a decoded request path (no query). *ret_arg points into `path` (or at a static string).
 * Never fails: unknown paths are HTTP_ROUTE_NONE. Pure. */
HttpRoute http_route(const char *path, const char **ret_arg);

/* Percent-decoding of a request path in place: as libmicrohttpd's own, except that a path that
 * would decode to a NUL byte (or is malformed) becomes "%", which names nothing:
 * "/index.html%00.js" must not be read as "/index.html". Returns the new length. */
size_t http_unescape_path(char *uri);

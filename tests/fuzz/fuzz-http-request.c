/* SPDX-License-Identifier: MIT */
/* Fuzz the HTTP request parsers (http/request.h): the input is used as an Accept header, an
 * Accept-Encoding header, a listen address and a request path; each must give an answer, never
 * crash or read out of bounds. The format answer is also checked against its range. */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http/request.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct sockaddr_storage ss;
        socklen_t len;
        const char *arg;
        MetricsFormat f;
        HttpRoute r;
        char *s = malloc(size + 1);

        if (!s)
                return 0;
        memcpy(s, data, size);
        s[size] = 0;
        f = http_accept_metrics_format(s);
        if (f != METRICS_FORMAT_PROMETHEUS && f != METRICS_FORMAT_OPENMETRICS)
                abort();
        (void) http_accept_gzip(s);
        (void) http_listen_parse(s, &ss, &len);
        r = http_route(s, &arg);
        if (r == HTTP_ROUTE_VOLUME && (!arg || strchr(arg, '/')))
                abort();
        free(s);
        return 0;
}

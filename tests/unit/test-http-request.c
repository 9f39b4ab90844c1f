/* SPDX-License-Identifier: MIT */
/* http/request.c: content negotiation (the Accept headers real scrapers send: Prometheus 2 and 3,
 * curl, browsers), Accept-Encoding, listen addresses and routing, table-driven. */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "basic/macro.h"
#include "http/request.h"
#include "tap.h"

static void test_accept(void) {
        static const struct {
                const char *accept;
                MetricsFormat want;
        } t[] = {
                { NULL, METRICS_FORMAT_PROMETHEUS },
                { "", METRICS_FORMAT_PROMETHEUS },
                { "*/*", METRICS_FORMAT_PROMETHEUS },
                /* Prometheus 3 default scrape_protocols */
                { "application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,"
                  "application/openmetrics-text;version=0.0.1;q=0.5,text/plain;version=1.0.0;"
                  "escaping=allow-utf-8;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2",
                  METRICS_FORMAT_OPENMETRICS },
                /* Prometheus 2.x */
                { "application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
                  "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
                  METRICS_FORMAT_OPENMETRICS },
                { "text/plain;version=0.0.4;q=1,application/openmetrics-text;q=0.5",
                  METRICS_FORMAT_PROMETHEUS },
                { "application/openmetrics-text", METRICS_FORMAT_OPENMETRICS },
                { "APPLICATION/OpenMetrics-Text; Version=1.0.0", METRICS_FORMAT_OPENMETRICS },
                { "application/openmetrics-text;version=2.0.0", METRICS_FORMAT_PROMETHEUS },
                { "application/openmetrics-text;q=0", METRICS_FORMAT_PROMETHEUS },
                { "application/openmetrics-text;q=0.5,*/*;q=0.5", METRICS_FORMAT_PROMETHEUS },
                { "application/openmetrics-text;q=0.6,*/*;q=0.5", METRICS_FORMAT_OPENMETRICS },
                { "application/openmetrics-text;q=1.5", METRICS_FORMAT_PROMETHEUS },
                { "application/openmetrics-text;q=abc", METRICS_FORMAT_PROMETHEUS },
                { "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
                  METRICS_FORMAT_PROMETHEUS },
                { ",,,;;;===", METRICS_FORMAT_PROMETHEUS },
        };
        for (size_t i = 0; i < ELEMENTSOF(t); i++)
                is_int(http_accept_metrics_format(t[i].accept), t[i].want, "Accept: %s",
                       t[i].accept ?: "(none)");
}

static void test_gzip(void) {
        static const struct {
                const char *h;
                bool want;
        } t[] = {
                { NULL, false },        { "gzip", true },         { "gzip, deflate, br", true },
                { "identity", false },  { "gzip;q=0", false },    { "*", true },
                { "*;q=0", false },     { "gzip;q=0, *", false }, { "deflate, *;q=0.1", true },
                { "GZIP;Q=0.5", true }, { "x-gzip", true },       { "gzip;q=", false },
        };
        for (size_t i = 0; i < ELEMENTSOF(t); i++)
                is_int(http_accept_gzip(t[i].h), t[i].want, "Accept-Encoding: %s",
                       t[i].h ?: "(none)");
}

static void test_listen(void) {
        struct sockaddr_storage ss;
        socklen_t len;
        char buf[INET6_ADDRSTRLEN];

        is_int(http_listen_parse("127.0.0.1:9977", &ss, &len), 0, "IPv4");
        ok(ss.ss_family == AF_INET && ntohs(((struct sockaddr_in *) &ss)->sin_port) == 9977,
           "IPv4 port");
        is_int(http_listen_parse("[::1]:80", &ss, &len), 0, "IPv6");
        ok(ss.ss_family == AF_INET6 &&
                   inet_ntop(AF_INET6, &((struct sockaddr_in6 *) &ss)->sin6_addr, buf,
                             sizeof(buf)) &&
                   strcmp(buf, "::1") == 0,
           "IPv6 address");
        is_int(http_listen_parse("*:9977", &ss, &len), 0, "any");
        ok(ss.ss_family == AF_INET6 && len == sizeof(struct sockaddr_in6), "any is IPv6 any");
        is_int(http_listen_parse(":9977", &ss, &len), 0, "empty host");
        is_int(http_listen_parse("9977", &ss, &len), 0, "bare port");
        is_int(http_listen_parse("0.0.0.0:0", &ss, &len), 0, "port 0");
        static const char *const bad[] = { "",
                                           ":",
                                           "x:80",
                                           "127.0.0.1:",
                                           "1.2.3.4",
                                           "[::1]",
                                           "::1:80",
                                           "[::1:80",
                                           "1.2.3.4:65536",
                                           "1.2.3.4:-1",
                                           "1.2.3.4:80x",
                                           "[]:80",
                                           "localhost:80" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                is_int(http_listen_parse(bad[i], &ss, &len), -EINVAL, "refused: '%s'", bad[i]);
}

static void test_route(void) {
        const char *arg;

        is_int(http_route("/metrics", &arg), HTTP_ROUTE_METRICS, "/metrics");
        is_int(http_route("/", &arg), HTTP_ROUTE_ASSET, "/");
        is_str(arg, "/index.html", "/ is the index");
        is_int(http_route("/api/v1/volumes", &arg), HTTP_ROUTE_VOLUMES, "volumes");
        is_int(http_route("/api/v1/volumes/md0", &arg), HTTP_ROUTE_VOLUME, "one volume");
        is_str(arg, "md0", "its name");
        is_int(http_route("/api/v1/history", &arg), HTTP_ROUTE_HISTORY, "history");
        is_int(http_route("/api/v1/volumes/", &arg), HTTP_ROUTE_NONE, "empty name");
        is_int(http_route("/api/v1/volumes/..", &arg), HTTP_ROUTE_NONE, "..");
        is_int(http_route("/api/v1/volumes/a/b", &arg), HTTP_ROUTE_NONE, "a name has no /");
        is_int(http_route("metrics", &arg), HTTP_ROUTE_NONE, "relative");
        is_int(http_route(NULL, &arg), HTTP_ROUTE_NONE, "NULL");
        is_int(http_route("/../etc/passwd", &arg), HTTP_ROUTE_ASSET,
               "anything else is an asset lookup (the fixed table answers 404)");
}

int main(void) {
        test_accept();
        test_gzip();
        test_listen();
        test_route();
        return tap_done();
}

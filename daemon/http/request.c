/* SPDX-License-Identifier: MIT */
/* Content negotiation without allocation: the header is walked element by element (comma
 * separated), each element's media range and its parameters (semicolon separated) compared
 * case-insensitively, q-values parsed as RFC 9110 "qvalue" (0, 1, or 0.xxx / 1.000). Anything
 * malformed in one element makes that element count as absent, never the whole request fail:
 * a scraper with an odd header still gets the text format. */

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http/request.h"

#define WS " \t"

typedef struct Element {
        const char *type; /* media range or coding, not NUL-terminated */
        size_t type_len;
        const char *version; /* value of version=, not NUL-terminated, or NULL */
        size_t version_len;
        int q; /* 0..1000; -1 malformed */
} Element;

static bool token_eq(const char *p, size_t n, const char *word) {
        return strlen(word) == n && strncasecmp(p, word, n) == 0;
}

/* q-value: "0" ["." 0*3DIGIT] / "1" ["." 0*3("0")] */
static int parse_q(const char *p, size_t n) {
        int v = 0, digits = 0;

        if (n == 0 || (p[0] != '0' && p[0] != '1'))
                return -1;
        v = (p[0] - '0') * 1000;
        if (n == 1)
                return v;
        if (p[1] != '.' || n > 5)
                return -1;
        for (size_t i = 2; i < n; i++) {
                int scale[] = { 100, 10, 1 };
                if (!isdigit((unsigned char) p[i]))
                        return -1;
                v += (p[i] - '0') * scale[digits++];
        }
        return v > 1000 ? -1 : v;
}

static const char *trim(const char *b, const char **e) {
        while (b < *e && strchr(WS, *b))
                b++;
        while (*e > b && strchr(WS, (*e)[-1]))
                (*e)--;
        return b;
}

/* Parse one element [b, e). */
static void parse_element(const char *b, const char *e, Element *ret) {
        const char *semi;

        *ret = (Element){ .q = 1000 };
        semi = memchr(b, ';', (size_t) (e - b));
        {
                const char *te = semi ?: e;
                const char *tb = trim(b, &te);
                ret->type = tb;
                ret->type_len = (size_t) (te - tb);
        }
        while (semi) {
                const char *pb = semi + 1, *pe, *eq, *kb, *ke, *vb, *ve;

                semi = memchr(pb, ';', (size_t) (e - pb));
                pe = semi ?: e;
                eq = memchr(pb, '=', (size_t) (pe - pb));
                if (!eq) {
                        ret->q = -1;
                        return;
                }
                ke = eq;
                kb = trim(pb, &ke);
                ve = pe;
                vb = trim(eq + 1, &ve);
                if (ve - vb >= 2 && *vb == '"' && ve[-1] == '"')
                        vb++, ve--;
                if (token_eq(kb, (size_t) (ke - kb), "q")) {
                        ret->q = parse_q(vb, (size_t) (ve - vb));
                        if (ret->q < 0)
                                return;
                } else if (token_eq(kb, (size_t) (ke - kb), "version")) {
                        ret->version = vb;
                        ret->version_len = (size_t) (ve - vb);
                }
        }
}

/* Calls f for every element of a header value; stops early if f returns false. */
static void for_each_element(const char *h, void (*f)(const Element *e, void *userdata),
                             void *userdata) {
        const char *p = h;

        while (p && *p) {
                const char *comma = strchr(p, ','), *end = comma ?: p + strlen(p);
                Element el;

                parse_element(p, end, &el);
                if (el.q >= 0 && el.type_len > 0)
                        f(&el, userdata);
                p = comma ? comma + 1 : NULL;
        }
}

typedef struct AcceptState {
        int q_om, q_text, q_wild; /* best q seen; -1 not named */
} AcceptState;

static void accept_element(const Element *e, void *userdata) {
        AcceptState *s = userdata;

        if (token_eq(e->type, e->type_len, "application/openmetrics-text")) {
                if (!e->version || token_eq(e->version, e->version_len, "1.0.0") ||
                    token_eq(e->version, e->version_len, "0.0.1"))
                        s->q_om = e->q > s->q_om ? e->q : s->q_om;
        } else if (token_eq(e->type, e->type_len, "text/plain")) {
                if (!e->version || token_eq(e->version, e->version_len, "0.0.4"))
                        s->q_text = e->q > s->q_text ? e->q : s->q_text;
        } else if (token_eq(e->type, e->type_len, "*/*") ||
                   token_eq(e->type, e->type_len, "text/*"))
                s->q_wild = e->q > s->q_wild ? e->q : s->q_wild;
}

MetricsFormat http_accept_metrics_format(const char *accept) {
        AcceptState s = { -1, -1, -1 };
        int text;

        if (!accept)
                return METRICS_FORMAT_PROMETHEUS;
        for_each_element(accept, accept_element, &s);
        text = s.q_text >= 0 ? s.q_text : s.q_wild;
        if (s.q_om > 0 && s.q_om > text)
                return METRICS_FORMAT_OPENMETRICS;
        return METRICS_FORMAT_PROMETHEUS;
}

typedef struct EncodingState {
        int q_gzip, q_wild;
} EncodingState;

static void encoding_element(const Element *e, void *userdata) {
        EncodingState *s = userdata;

        if (token_eq(e->type, e->type_len, "gzip") || token_eq(e->type, e->type_len, "x-gzip"))
                s->q_gzip = e->q > s->q_gzip ? e->q : s->q_gzip;
        else if (token_eq(e->type, e->type_len, "*"))
                s->q_wild = e->q > s->q_wild ? e->q : s->q_wild;
}

bool http_accept_gzip(const char *accept_encoding) {
        EncodingState s = { -1, -1 };

        if (!accept_encoding)
                return false;
        for_each_element(accept_encoding, encoding_element, &s);
        if (s.q_gzip >= 0)
                return s.q_gzip > 0;
        return s.q_wild > 0;
}

int http_listen_parse(const char *s, struct sockaddr_storage *ret, socklen_t *ret_len) {
        char host[INET6_ADDRSTRLEN + 2];
        const char *colon, *port_s;
        struct sockaddr_storage ss = {};
        unsigned long port;
        char *end;
        size_t hl;

        if (!s || !ret || !ret_len)
                return -EINVAL;
        colon = strrchr(s, ':');
        if (!colon) {
                port_s = s;
                hl = 0;
        } else {
                port_s = colon + 1;
                hl = (size_t) (colon - s);
        }
        if (!isdigit((unsigned char) *port_s))
                return -EINVAL;
        errno = 0;
        port = strtoul(port_s, &end, 10);
        if (errno != 0 || *end || port > 65535 || end - port_s > 5)
                return -EINVAL;
        if (hl >= sizeof(host))
                return -EINVAL;
        memcpy(host, s, hl);
        host[hl] = '\0';

        if (hl == 0 || strcmp(host, "*") == 0 || strcmp(host, "[::]") == 0) {
                struct sockaddr_in6 *a = (struct sockaddr_in6 *) &ss;
                a->sin6_family = AF_INET6;
                a->sin6_addr = in6addr_any;
                a->sin6_port = htons((uint16_t) port);
                *ret_len = sizeof(*a);
        } else if (host[0] == '[') {
                struct sockaddr_in6 *a = (struct sockaddr_in6 *) &ss;
                if (hl < 3 || host[hl - 1] != ']')
                        return -EINVAL;
                host[hl - 1] = '\0';
                if (inet_pton(AF_INET6, host + 1, &a->sin6_addr) != 1)
                        return -EINVAL;
                a->sin6_family = AF_INET6;
                a->sin6_port = htons((uint16_t) port);
                *ret_len = sizeof(*a);
        } else {
                struct sockaddr_in *a = (struct sockaddr_in *) &ss;
                if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
                        return -EINVAL;
                a->sin_family = AF_INET;
                a->sin_port = htons((uint16_t) port);
                *ret_len = sizeof(*a);
        }
        *ret = ss;
        return 0;
}

HttpRoute http_route(const char *path, const char **ret_arg) {
        static const char prefix[] = "/api/v1/volumes/";
        const char *arg = NULL;
        HttpRoute r = HTTP_ROUTE_NONE;

        if (!path)
                ;
        else if (strcmp(path, "/metrics") == 0)
                r = HTTP_ROUTE_METRICS;
        else if (strcmp(path, "/api/v1/volumes") == 0)
                r = HTTP_ROUTE_VOLUMES;
        else if (strcmp(path, "/api/v1/history") == 0)
                r = HTTP_ROUTE_HISTORY;
        else if (strncmp(path, prefix, sizeof(prefix) - 1) == 0) {
                const char *name = path + sizeof(prefix) - 1;
                size_t n = strlen(name);
                /* a kernel name: a plain file name, no "/" and not "." or ".." */
                if (n > 0 && n < 256 && !strchr(name, '/') && strcmp(name, ".") != 0 &&
                    strcmp(name, "..") != 0) {
                        r = HTTP_ROUTE_VOLUME;
                        arg = name;
                }
        } else if (strcmp(path, "/") == 0) {
                r = HTTP_ROUTE_ASSET;
                arg = "/index.html";
        } else if (path[0] == '/') {
                r = HTTP_ROUTE_ASSET; /* looked up in the fixed table; anything else is a 404 */
                arg = path;
        }
        if (ret_arg)
                *ret_arg = arg;
        return r;
}

static int hex_digit(char ch) {
        if (ch >= '0' && ch <= '9')
                return ch - '0';
        if (ch >= 'a' && ch <= 'f')
                return ch - 'a' + 10;
        if (ch >= 'A' && ch <= 'F')
                return ch - 'A' + 10;
        return -1;
}

size_t http_unescape_path(char *uri) {
        char *w = uri;

        for (const char *r = uri; *r; r++) {
                if (*r == '%') {
                        int hi = r[1] ? hex_digit(r[1]) : -1,
                            lo = hi >= 0 && r[2] ? hex_digit(r[2]) : -1;
                        if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
                                strcpy(uri, "%"); /* never longer: the input has a '%' */
                                return 1;
                        }
                        *w++ = (char) (hi * 16 + lo);
                        r += 2;
                } else
                        *w++ = *r;
        }
        *w = '\0';
        return (size_t) (w - uri);
}

/* SPDX-License-Identifier: MIT */
/* [HTTP] TLSCertificate= and TLSKey= checked where --check-config sees them, with the FILE:LINE
 * of the key that names the file: both or neither; each a readable, non-empty regular file (a
 * FIFO would block the read) with a PEM block of the right kind; then
 * the pair loaded by libmicrohttpd as the endpoint would (http_tls_check(): parseable, the key
 * belongs to the certificate, TLSPriorities= accepted). The only module of the parser that
 * reads files other than the configuration, so it stays out of config_load() and
 * config_parse_string() (the fuzz target and the table tests). */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "basic/fileio.h"
#include "http/tls-check.h"
#include "manager/config-internal.h"
#include "manager/config.h"

/* p->file and p->line at the last assignment of [HTTP] key, if a file made one. */
static void at_key(ParseCtx *p, const char *key) {
        const ConfigOrigin *best = NULL;

        for (size_t i = 0; i < p->c->n_origins; i++) {
                const ConfigOrigin *o = &p->c->origins[i];

                if (strcmp(o->section, "HTTP") == 0 && strcmp(o->key, key) == 0 &&
                    (!best || o->seq > best->seq))
                        best = o;
        }
        if (best) {
                p->file = best->file;
                p->line = best->line;
        }
}

/* Reads [HTTP] key's file into *ret, which must hold a "-----BEGIN ...<kind>-----" line. */
static int read_pem(ParseCtx *p, const char *key, const char *path, const char *kind, char **ret) {
        _cleanup_free_ char *s = NULL;
        const char *b;
        struct stat st;
        int r;

        at_key(p, key);
        if (stat(path, &st) < 0) {
                r = -errno;
                config_error(p, "[HTTP] %s=%s: %s", key, path, strerror(-r));
                return r;
        }
        if (!S_ISREG(st.st_mode)) {
                config_error(p, "[HTTP] %s=%s: not a regular file", key, path);
                return -EINVAL;
        }
        r = read_full_file_at(AT_FDCWD, path, &s, NULL);
        if (r < 0) {
                config_error(p, "[HTTP] %s=%s: cannot read: %s", key, path, strerror(-r));
                return r;
        }
        if (!*s) {
                config_error(p, "[HTTP] %s=%s: empty file", key, path);
                return -EINVAL;
        }
        for (b = strstr(s, "-----BEGIN "); b; b = strstr(b + 1, "-----BEGIN ")) {
                const char *e = strstr(b + 11, "-----");
                size_t n = strlen(kind);

                if (e && (size_t) (e - b - 11) >= n && memcmp(e - n, kind, n) == 0)
                        break;
        }
        if (!b) {
                config_error(p, "[HTTP] %s=%s: no PEM \"-----BEGIN ...%s-----\" block", key, path,
                             kind);
                return -EINVAL;
        }
        *ret = TAKE_PTR(s);
        return 0;
}

int config_check_files(Config *c, const char *main_path, char **ret_error) {
        ParseCtx p = { .c = c, .file = main_path };
        _cleanup_free_ char *cert = NULL, *key = NULL, *lib_error = NULL;
        int r = 0;

        if (!c->http_tls_certificate != !c->http_tls_key) {
                at_key(&p, c->http_tls_certificate ? "TLSCertificate" : "TLSKey");
                config_error(&p, "[HTTP] TLSCertificate= and TLSKey= go together (one is missing)");
                r = -EINVAL;
        }
        if (r >= 0 && c->http_tls_certificate)
                r = read_pem(&p, "TLSCertificate", c->http_tls_certificate, "CERTIFICATE", &cert);
        if (r >= 0 && c->http_tls_key)
                r = read_pem(&p, "TLSKey", c->http_tls_key, "PRIVATE KEY", &key);
        if (r >= 0 && cert && key) {
                r = http_tls_check(cert, key, c->http_tls_priorities, &lib_error);
                at_key(&p, "TLSKey");
                if (r == -EINVAL)
                        config_error(&p,
                                     "[HTTP] TLSKey=%s does not load with TLSCertificate=%s "
                                     "(unparseable PEM, a key of another certificate, an "
                                     "encrypted key, or TLSPriorities= refused)",
                                     c->http_tls_key, c->http_tls_certificate);
                else if (r < 0)
                        config_error(&p, "[HTTP] TLS cannot be checked: %s",
                                     lib_error ?: strerror(-r));
        }
        if (key)
                explicit_bzero(key, strlen(key));
        if (r < 0 && ret_error)
                *ret_error = TAKE_PTR(p.error);
        free(p.error);
        return r;
}

/* SPDX-License-Identifier: MIT */
/* The TLS pair's check: a libmicrohttpd daemon started with the certificate, the key and the
 * priorities and no listening socket (MHD_USE_NO_LISTEN_SOCKET, no thread), then stopped at
 * once. Starting is where GnuTLS parses both PEM blocks and refuses a key that does not belong to
 * the certificate, so this is exactly the endpoint's own test, at no cost but the library load
 * the endpoint pays anyway. */

#include <errno.h>

#include "http/mhd-api.h"
#include "http/server.h"
#include "http/tls-check.h"

/* Never called: the daemon has no socket. */
static enum MHD_Result no_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *data,
                                  size_t *size, void **state) {
        return MHD_NO;
}

int http_tls_check(const char *cert_pem, const char *key_pem, const char *priorities,
                   char **ret_error) {
        const MhdApi *mhd;
        struct MHD_Daemon *d;
        int r;

        if (!cert_pem || !key_pem)
                return -EINVAL;
        r = mhd_api_load(&mhd, ret_error);
        if (r < 0)
                return r;
        d = mhd->start_daemon(MHD_USE_TLS | MHD_USE_NO_LISTEN_SOCKET, 0, NULL, NULL, no_request,
                              NULL, MHD_OPTION_HTTPS_MEM_CERT, cert_pem, MHD_OPTION_HTTPS_MEM_KEY,
                              key_pem, MHD_OPTION_HTTPS_PRIORITIES,
                              priorities ?: HTTP_TLS_PRIORITIES, MHD_OPTION_END);
        if (!d)
                return -EINVAL;
        mhd->stop_daemon(d);
        return 0;
}

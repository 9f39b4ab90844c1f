/* SPDX-License-Identifier: MIT */
#pragma once

/* Whether a PEM certificate and key load into libmicrohttpd (GnuTLS) together, checked without
 * a socket, so `storpulsed --check-config` and a reload see what the endpoint's start would. */

/* cert_pem, key_pem: the files' text; priorities: a GnuTLS priority string, NULL for
 * HTTP_TLS_PRIORITIES. Returns 0 when a TLS endpoint starts with them; -EINVAL when it does not
 * (unparseable PEM, a key of another certificate, an encrypted key, priorities GnuTLS refuses);
 * -ELIBACC etc. with *ret_error (optional, malloc'd) when libmicrohttpd does not load. Loads the
 * library (mhd_api_load()): call from the daemon's loop only. */
int http_tls_check(const char *cert_pem, const char *key_pem, const char *priorities,
                   char **ret_error);

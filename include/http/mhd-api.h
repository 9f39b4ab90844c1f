/* SPDX-License-Identifier: MIT */
#pragma once

/* libmicrohttpd, loaded with dlopen() when the endpoint first starts instead of linked: linked,
 * it and GnuTLS below it (with p11-kit, nettle, gmp, libtasn1, libunistring, ...) are mapped and
 * initialised at every exec of every program of this package, about 3 MiB of resident memory
 * in a daemon nobody has scraped yet, and storpulsectl pays the same. The table holds the few
 * functions server.c calls; the headers still come from libmicrohttpd's package, so the types
 * are checked at build time. */

#include <microhttpd.h>
#include <stdbool.h>

#include "basic/macro.h"

typedef struct MhdApi {
        typeof(MHD_start_daemon) *start_daemon;
        typeof(MHD_stop_daemon) *stop_daemon;
        typeof(MHD_is_feature_supported) *is_feature_supported;
        typeof(MHD_add_response_header) *add_response_header;
        typeof(MHD_create_response_from_buffer) *create_response_from_buffer;
        typeof(MHD_create_response_from_buffer_with_free_callback_cls)
                *create_response_from_buffer_with_free_callback_cls;
        typeof(MHD_destroy_response) *destroy_response;
        typeof(MHD_queue_response) *queue_response;
        typeof(MHD_queue_basic_auth_fail_response) *queue_basic_auth_fail_response;
        typeof(MHD_basic_auth_get_username_password) *basic_auth_get_username_password;
        typeof(MHD_lookup_connection_value) *lookup_connection_value;
        typeof(MHD_free) *free;
        typeof(MHD_get_connection_info) *get_connection_info;
        typeof(MHD_suspend_connection) *suspend_connection;
        typeof(MHD_resume_connection) *resume_connection;
        typeof(MHD_quiesce_daemon) *quiesce_daemon;
} MhdApi;

/* Load the library (MHD_SONAME; once per process, never unloaded) and resolve the table. Call
 * from one thread only (the daemon's loop). Returns 0 and the table, or -errno with *ret_error
 * (optional, malloc'd) saying what is missing. */
int mhd_api_load(const MhdApi **ret, char **ret_error);

/* Whether libmicrohttpd is mapped into this process (for tests and the benchmark's claim). */
bool mhd_api_loaded(void);

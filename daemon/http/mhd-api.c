/* SPDX-License-Identifier: MIT */
/* The dlopen() of libmicrohttpd (see include/http/mhd-api.h). RTLD_NOW: a symbol this build
 * expects and the installed library lacks fails the load, not a request later. */

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "config.h"
#include "http/mhd-api.h"

static MhdApi api;
static void *handle;

#define RESOLVE(field, symbol)                                                                     \
        do {                                                                                       \
                *(void **) &api.field = dlsym(handle, #symbol);                                    \
                if (!api.field) {                                                                  \
                        missing = #symbol;                                                         \
                        goto fail;                                                                 \
                }                                                                                  \
        } while (0)

int mhd_api_load(const MhdApi **ret, char **ret_error) {
        const char *missing = NULL;

        if (handle) {
                *ret = &api;
                return 0;
        }
        handle = dlopen(MHD_SONAME, RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
                if (ret_error && asprintf(ret_error, "%s", dlerror() ?: MHD_SONAME) < 0)
                        *ret_error = NULL;
                return -ELIBACC;
        }
        RESOLVE(start_daemon, MHD_start_daemon);
        RESOLVE(stop_daemon, MHD_stop_daemon);
        RESOLVE(is_feature_supported, MHD_is_feature_supported);
        RESOLVE(add_response_header, MHD_add_response_header);
        RESOLVE(create_response_from_buffer, MHD_create_response_from_buffer);
        RESOLVE(create_response_from_buffer_with_free_callback_cls,
                MHD_create_response_from_buffer_with_free_callback_cls);
        RESOLVE(destroy_response, MHD_destroy_response);
        RESOLVE(queue_response, MHD_queue_response);
        RESOLVE(queue_basic_auth_fail_response, MHD_queue_basic_auth_fail_response);
        RESOLVE(basic_auth_get_username_password, MHD_basic_auth_get_username_password);
        RESOLVE(lookup_connection_value, MHD_lookup_connection_value);
        RESOLVE(free, MHD_free);
        *ret = &api;
        return 0;

fail:
        if (ret_error && asprintf(ret_error, "%s lacks %s", MHD_SONAME, missing) < 0)
                *ret_error = NULL;
        (void) dlclose(handle);
        handle = NULL;
        api = (MhdApi){};
        return -ELIBBAD;
}

bool mhd_api_loaded(void) {
        return handle != NULL;
}

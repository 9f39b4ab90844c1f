/* SPDX-License-Identifier: MIT */
/* The dlopen() of libmicrohttpd (see include/http/mhd-api.h). RTLD_NOW: a symbol this build
 * expects and the installed library lacks fails the load, not a request later. */

#include "basic/dlopen-util.h"
#include "config.h"
#include "http/mhd-api.h"

static MhdApi api;
static bool loaded;

int mhd_api_load(const MhdApi **ret, char **ret_error) {
        const DlopenSymbol symbols[] = {
                DLOPEN_SYMBOL(api, start_daemon, MHD_start_daemon),
                DLOPEN_SYMBOL(api, stop_daemon, MHD_stop_daemon),
                DLOPEN_SYMBOL(api, is_feature_supported, MHD_is_feature_supported),
                DLOPEN_SYMBOL(api, add_response_header, MHD_add_response_header),
                DLOPEN_SYMBOL(api, create_response_from_buffer, MHD_create_response_from_buffer),
                DLOPEN_SYMBOL(api, create_response_from_buffer_with_free_callback_cls,
                              MHD_create_response_from_buffer_with_free_callback_cls),
                DLOPEN_SYMBOL(api, destroy_response, MHD_destroy_response),
                DLOPEN_SYMBOL(api, queue_response, MHD_queue_response),
                DLOPEN_SYMBOL(api, queue_basic_auth_fail_response,
                              MHD_queue_basic_auth_fail_response),
                DLOPEN_SYMBOL(api, basic_auth_get_username_password,
                              MHD_basic_auth_get_username_password),
                DLOPEN_SYMBOL(api, lookup_connection_value, MHD_lookup_connection_value),
                DLOPEN_SYMBOL(api, free, MHD_free),
                DLOPEN_SYMBOL(api, get_connection_info, MHD_get_connection_info),
                DLOPEN_SYMBOL(api, suspend_connection, MHD_suspend_connection),
                DLOPEN_SYMBOL(api, resume_connection, MHD_resume_connection),
                DLOPEN_SYMBOL(api, quiesce_daemon, MHD_quiesce_daemon),
        };
        int r;

        if (!loaded) {
                r = dlopen_symbols(MHD_SONAME, symbols, ELEMENTSOF(symbols), ret_error);
                if (r < 0)
                        return r;
                loaded = true;
        }
        *ret = &api;
        return 0;
}

bool mhd_api_loaded(void) {
        return loaded;
}

/* SPDX-License-Identifier: MIT */
/* See include/basic/dlopen-util.h. */

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "basic/dlopen-util.h"

/* "A" or "A lacks B" */
static void set_error(char **ret_error, const char *a, const char *lacks) {
        if (ret_error && asprintf(ret_error, "%s%s%s", a, lacks ? " lacks " : "", lacks ?: "") < 0)
                *ret_error = NULL;
}

int dlopen_symbols(const char *soname, const DlopenSymbol *symbols, size_t n_symbols,
                   char **ret_error) {
        void *handle;

        if (ret_error)
                *ret_error = NULL;
        handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
                const char *e = dlerror();

                set_error(ret_error, e ?: soname, NULL);
                return -ELIBACC;
        }
        for (size_t i = 0; i < n_symbols; i++) {
                *symbols[i].ptr = dlsym(handle, symbols[i].name);
                if (*symbols[i].ptr)
                        continue;
                set_error(ret_error, soname, symbols[i].name);
                for (size_t j = 0; j < n_symbols; j++)
                        *symbols[j].ptr = NULL;
                (void) dlclose(handle);
                return -ELIBBAD;
        }
        return 0;
}

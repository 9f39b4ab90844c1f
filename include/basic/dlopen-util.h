/* SPDX-License-Identifier: MIT */
#pragma once

/* Libraries loaded with dlopen() where first needed instead of linked: a linked shared library
 * is mapped, relocated and initialised at every exec of every program of the package (at least
 * its ELF headers, symbol tables, relocated data and the text around its initialisers: about
 * 0.1 MiB resident for even a small one), although an idle daemon may never call it. The callers
 * keep a table of function pointers typed from the library's own header, so the types are still
 * checked at build time; the soname comes from config.h (meson.build checks it exists). */

#include <stddef.h>

typedef struct DlopenSymbol {
        const char *name;
        void **ptr;
} DlopenSymbol;

/* One entry of a DlopenSymbol array: table.field from the symbol of the same spelling. */
#define DLOPEN_SYMBOL(table, field, symbol)                                                        \
        { #symbol, (void **) &(table).field }

/* dlopen(soname, RTLD_NOW | RTLD_LOCAL) and resolve every symbol (the handle is never closed:
 * the pointers stay valid for the process). Returns 0; -ELIBACC when the library does not load,
 * -ELIBBAD when it lacks a symbol (then nothing stays loaded and every pointer is NULL again).
 * *ret_error (optional) gets the reason, malloc'd (NULL when out of memory). */
int dlopen_symbols(const char *soname, const DlopenSymbol *symbols, size_t n_symbols,
                   char **ret_error);

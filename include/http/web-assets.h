/* SPDX-License-Identifier: MIT */
#pragma once

/* The web page's files (web/), embedded at build time (build-aux/embed-web.py): the server
 * answers only for these paths, so no request ever names a file on disk. */

#include <stddef.h>

typedef struct WebAsset {
        const char *path; /* "/index.html" */
        const char *content_type;
        const unsigned char *data;
        size_t size;
} WebAsset;

/* Terminated by an entry with path NULL. */
extern const WebAsset web_assets[];

/* The asset at `path` (exact match), NULL if none. */
const WebAsset *web_asset_lookup(const char *path);

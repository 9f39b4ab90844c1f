/* SPDX-License-Identifier: MIT */
/* Lookup in the generated table (web-assets-data.c): a handful of entries, a linear scan. */

#include <string.h>

#include "http/web-assets.h"

const WebAsset *web_asset_lookup(const char *path) {
        if (!path)
                return NULL;
        for (const WebAsset *a = web_assets; a->path; a++)
                if (strcmp(a->path, path) == 0)
                        return a;
        return NULL;
}

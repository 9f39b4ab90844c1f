/* SPDX-License-Identifier: MIT */
/* /proc/mdstat parser. (In progress: mdstat_parse() and mdstat_parse_progress() return
 * -EOPNOTSUPP until implemented.) */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mdstat.h"

int mdstat_parse(const char *text, Mdstat **ret) {
        (void) text;
        (void) ret;
        return -EOPNOTSUPP;
}

int mdstat_parse_progress(const char *line, MdstatProgress *ret) {
        (void) line;
        (void) ret;
        return -EOPNOTSUPP;
}

Mdstat *mdstat_free(Mdstat *m) {
        free(m);
        return NULL;
}

const MdstatArray *mdstat_find(const Mdstat *m, const char *name) {
        (void) m;
        (void) name;
        return NULL;
}

double mdstat_progress_ratio(const MdstatProgress *p) {
        (void) p;
        return -1.0;
}

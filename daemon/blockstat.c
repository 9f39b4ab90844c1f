/* SPDX-License-Identifier: MIT */
/* /sys/block/X/stat parser and delta. (In progress: return -EOPNOTSUPP until implemented.) */

#include <errno.h>

#include "blockstat.h"

int blockstat_parse(const char *s, BlockStat *ret) {
        (void) s;
        (void) ret;
        return -EOPNOTSUPP;
}

int blockstat_delta(const BlockStat *prev, const BlockStat *cur, usec_t elapsed_usec,
                    BlockStatDelta *ret) {
        (void) prev;
        (void) cur;
        (void) elapsed_usec;
        (void) ret;
        return -EOPNOTSUPP;
}

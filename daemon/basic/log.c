/* SPDX-License-Identifier: MIT */
/* Minimal edge logger: one line per call to stderr. When stderr is connected to the journal
 * ($JOURNAL_STREAM set) each line carries a "<N>" priority prefix that journald understands.
 * The errno passed in is restored into errno before formatting so "%m" works as in systemd. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/log.h"

static int max_level = LOG_INFO;
static const char *prefix; /* "storpulsectl volumes": every line then reads "PREFIX: message" */

void log_set_prefix(const char *p) {
        prefix = p && *p ? p : NULL;
}

void log_set_max_level(int level) {
        max_level = level;
}

int log_get_max_level(void) {
        return max_level;
}

int log_internal(int level, int error, const char *format, ...) {
        int e = error < 0 ? -error : error;
        char buf[2048];
        va_list ap;

        if (level > max_level)
                return -e;

        errno = e;
        va_start(ap, format);
        (void) vsnprintf(buf, sizeof(buf), format, ap);
        va_end(ap);

        if (getenv("JOURNAL_STREAM"))
                fprintf(stderr, "<%d>%s%s%s\n", level, prefix ?: "", prefix ? ": " : "", buf);
        else
                fprintf(stderr, "%s%s%s\n", prefix ?: "", prefix ? ": " : "", buf);
        return -e;
}

/* SPDX-License-Identifier: MIT */
#pragma once

/* The rebuild tests' view of the events one feed produced, as one string an expectation can be
 * compared with: "type:operation:severity[:reason][@mark][=mismatches]", space-separated, "" for
 * none (test-rebuild.c, test-rebuild-observe.c). */

#include <stdio.h>

#include "analysis/rebuild.h"

static inline void events_to_string(const RebuildEvent *ev, int n, char *buf, size_t size) {
        size_t len = 0;

        buf[0] = 0;
        for (int i = 0; i < n; i++) {
                len += (size_t) snprintf(buf + len, size - len, "%s%s:%s:%s", i ? " " : "",
                                         rebuild_event_type_to_string(ev[i].type),
                                         rebuild_operation_to_string(ev[i].operation),
                                         rebuild_severity_to_string(ev[i].severity));
                if (ev[i].reason != REBUILD_REASON_NONE)
                        len += (size_t) snprintf(buf + len, size - len, ":%s",
                                                 rebuild_reason_to_string(ev[i].reason));
                if (ev[i].type == REBUILD_EVENT_PROGRESS)
                        len += (size_t) snprintf(buf + len, size - len, "@%u", ev[i].percent);
                if (ev[i].mismatch_count != REBUILD_UNKNOWN)
                        len += (size_t) snprintf(buf + len, size - len, "=%llu",
                                                 (unsigned long long) ev[i].mismatch_count);
        }
}

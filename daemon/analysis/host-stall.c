/* SPDX-License-Identifier: MIT */
/* Host stalls from a timer's lateness (the header says why a timer, not io_ticks): a ring of
 * late firings and the overlap of their stall intervals with a probe's window. */

#include <string.h>

#include "analysis/host-stall.h"

void host_stall_init(HostStall *h) {
        memset(h, 0, sizeof(*h));
}

bool host_stall_note(HostStall *h, const HostStallConfig *c, usec_t scheduled_usec,
                     usec_t fired_usec) {
        usec_t late;

        if (fired_usec <= scheduled_usec)
                return false;
        late = fired_usec - scheduled_usec;
        if (late <= c->tolerance_usec)
                return false;
        h->e[h->next] = (HostStallEntry){ .fired_usec = fired_usec, .late_usec = late };
        h->next = (h->next + 1) % HOST_STALL_RING;
        if (h->n < HOST_STALL_RING)
                h->n++;
        h->stalls++;
        h->total_usec += late;
        if (late > h->max_late_usec)
                h->max_late_usec = late;
        return true;
}

usec_t host_stall_late_in(const HostStall *h, usec_t start_usec, usec_t end_usec) {
        usec_t sum = 0;

        for (unsigned i = 0; i < h->n; i++) {
                const HostStallEntry *e = &h->e[i];
                usec_t a = e->fired_usec > e->late_usec ? e->fired_usec - e->late_usec : 0;
                usec_t b = e->fired_usec;

                if (a < start_usec)
                        a = start_usec;
                if (b > end_usec)
                        b = end_usec;
                if (b > a)
                        sum += b - a;
        }
        return sum;
}

bool host_stall_starved(const HostStallConfig *c, usec_t late_usec, usec_t wall_usec) {
        return late_usec >= c->min_usec && (double) late_usec >= c->fraction * (double) wall_usec;
}

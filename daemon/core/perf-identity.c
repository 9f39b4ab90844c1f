/* SPDX-License-Identifier: MIT */
/* What a learned baseline is keyed by (see perf-monitor.h): the device's identity (md or dm uuid,
 * partition of a parent, serial, else major:minor and size; arrays and stacked devices add their
 * members' identities) and the probe profile; and a probe run as a baseline sample. Pure. */

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/perf-monitor.h"

void perf_volume_identity(const Inventory *inv, const Volume *v,
                          char ret[static BASELINE_IDENTITY_MAX]) {
        char ids[16][BASELINE_IDENTITY_MAX];
        const char *mids[16];
        const char *own = NULL;
        char buf[BASELINE_IDENTITY_MAX];
        size_t n = 0;

        if (v->kind == VOLUME_MD && v->md && v->md->uuid) {
                snprintf(buf, sizeof(buf), "md-uuid-%s", v->md->uuid);
                own = buf;
        } else if ((v->kind == VOLUME_LVM || v->kind == VOLUME_DM) && v->dm_uuid) {
                snprintf(buf, sizeof(buf), "dm-uuid-%s", v->dm_uuid);
                own = buf;
        }
        /* Arrays and stacked devices carry their members' identities (one level is enough: a
         * member's own identity already carries its members). */
        if (inv && (v->kind == VOLUME_MD || v->kind == VOLUME_LVM || v->kind == VOLUME_DM))
                for (size_t i = 0; v->members && v->members[i] && n < ELEMENTSOF(ids); i++) {
                        const Volume *w = inventory_get(inv, v->members[i]);

                        if (!w)
                                continue;
                        perf_volume_identity(NULL, w, ids[n]);
                        mids[n] = ids[n];
                        n++;
                }
        if (v->kind == VOLUME_PARTITION && v->parent) {
                snprintf(buf, sizeof(buf), "part-%s-%d-%" PRIu64, v->parent, v->partition_number,
                         v->size_bytes);
                own = buf;
        }
        baseline_identity_compose(NULL, own ? NULL : v->serial, own, v->major, v->minor,
                                  v->size_bytes, n > 0 ? mids : NULL, n, ret);
}

void perf_baseline_key(const char *identity, const char *profile,
                       char ret[static BASELINE_IDENTITY_MAX]) {
        if (profile && *profile)
                (void) snprintf(ret, BASELINE_IDENTITY_MAX, "%s|%s", profile, identity);
        else
                (void) snprintf(ret, BASELINE_IDENTITY_MAX, "%s", identity);
}

const char *perf_baseline_key_split(const char *key, char *ret_profile, size_t size) {
        const char *bar = strchr(key, '|');

        if (ret_profile && size > 0)
                (void) snprintf(ret_profile, size, "%.*s", bar ? (int) (bar - key) : 0, key);
        return bar ? bar + 1 : key;
}

void perf_sample_from_probe(double seq, double iops, double p50, double p99, double max, double cpu,
                            BaselineSample *ret) {
        baseline_sample_init(ret);
        ret->v[BASELINE_SEQ_BYTES_PER_SEC] = seq > 0 ? seq : NAN;
        ret->v[BASELINE_RAND_IOPS] = iops > 0 ? iops : NAN;
        ret->v[BASELINE_LAT_P50_NS] = p50 > 0 ? p50 : NAN;
        ret->v[BASELINE_LAT_P99_NS] = p99 > 0 ? p99 : NAN;
        ret->v[BASELINE_LAT_MAX_NS] = max > 0 ? max : NAN;
        ret->v[BASELINE_CPU_USEC_PER_RUN] = cpu >= 0 ? cpu : NAN;
}

void perf_sample_add_write(BaselineSample *s, double bytes_per_sec, double iops, double p99,
                           double sync_p99) {
        s->v[BASELINE_WRITE_BYTES_PER_SEC] = bytes_per_sec > 0 ? bytes_per_sec : NAN;
        s->v[BASELINE_WRITE_IOPS] = iops > 0 ? iops : NAN;
        s->v[BASELINE_WRITE_LAT_P99_NS] = p99 > 0 ? p99 : NAN;
        s->v[BASELINE_SYNC_LAT_P99_NS] = sync_p99 > 0 ? sync_p99 : NAN;
}

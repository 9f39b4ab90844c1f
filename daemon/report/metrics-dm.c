/* SPDX-License-Identifier: MIT */
/* /metrics series of the device-mapper target judges (list in the header): figures, not
 * verdicts (those are storpulse_volume_health and _problem), so that an alert can fire before
 * a thin pool is full, at the thresholds lvm2's own autoextend uses (contrib/prometheus). */

#include <math.h>
#include <stddef.h>

#include "model/dm-judge.h"
#include "report/metrics-dm.h"

typedef struct DmFamily {
        const char *name, *help;
        double (*value)(const DmJudgement *j); /* NAN: no sample for this volume */
} DmFamily;

static double thin_data(const DmJudgement *j) {
        return j->target == DM_TARGET_THIN_POOL && j->data_usage >= 0 ? j->data_usage : NAN;
}

static double thin_meta(const DmJudgement *j) {
        return j->target == DM_TARGET_THIN_POOL && j->metadata_usage >= 0 ? j->metadata_usage : NAN;
}

static double snap_usage(const DmJudgement *j) {
        return (j->target == DM_TARGET_SNAPSHOT || j->target == DM_TARGET_SNAPSHOT_MERGE) &&
                               j->data_usage >= 0
                       ? j->data_usage
                       : NAN;
}

static double mp_paths(const DmJudgement *j) {
        return j->target == DM_TARGET_MULTIPATH ? (double) j->paths : NAN;
}

static double mp_failed(const DmJudgement *j) {
        return j->target == DM_TARGET_MULTIPATH ? (double) j->paths_failed : NAN;
}

static double mp_queueing(const DmJudgement *j) {
        return j->target == DM_TARGET_MULTIPATH ? (double) j->queueing : NAN;
}

static double integrity_mismatches(const DmJudgement *j) {
        return j->target == DM_TARGET_INTEGRITY && j->mismatches != DM_UNSET
                       ? (double) j->mismatches
                       : NAN;
}

static const DmFamily families[] = {
        { "storpulse_thin_pool_data_usage_ratio", "Used share of a thin pool's data blocks.",
          thin_data },
        { "storpulse_thin_pool_metadata_usage_ratio",
          "Used share of a thin pool's metadata blocks.", thin_meta },
        { "storpulse_snapshot_usage_ratio",
          "Allocated share of a snapshot's COW store (the kernel invalidates it when full).",
          snap_usage },
        { "storpulse_multipath_paths", "Paths of a multipath device.", mp_paths },
        { "storpulse_multipath_paths_failed", "Failed paths of a multipath device.", mp_failed },
        { "storpulse_multipath_queueing",
          "1 while a multipath device without a path queues I/O (writers hang).", mp_queueing },
        { "storpulse_dm_integrity_mismatches",
          "Checksum mismatches dm-integrity counted since activation.", integrity_mismatches },
};

void metrics_dm_families(MetricsWriter *w, Volume *const *vols, size_t n) {
        for (size_t f = 0; f < ELEMENTSOF(families); f++) {
                bool written = false;

                for (size_t i = 0; i < n; i++) {
                        const Volume *v = vols[i];
                        double x;

                        if (!v->dm_judgement || isnan(x = families[f].value(v->dm_judgement)))
                                continue;
                        if (!written)
                                metrics_writer_family(w, families[f].name, METRIC_GAUGE,
                                                      families[f].help);
                        written = true;
                        metrics_writer_sample(w, "", x, "volume", v->name, "vg", v->vg_name ?: "",
                                              "lv", v->lv_name ?: "", NULL);
                }
        }
}

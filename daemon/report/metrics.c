/* SPDX-License-Identifier: MIT */
/* Prometheus text 0.0.4 and OpenMetrics 1.0 from a ReportInput. One writer serves both formats;
 * they differ only in the family lines (OpenMetrics names a counter's family without "_total"
 * and has an "info" type), in HELP escaping and in the closing "# EOF". Families are written in a
 * fixed order, each with all of its samples, volumes in inventory (name) order; volumes hidden in
 * the inventory (LVM sub-LVs folded into their LV) are left out, as in `volumes --json`.
 * The latency families and their bucket sets are report/metrics-latency.c's. */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/math-util.h"
#include "basic/string-table.h"
#include "model/md.h"
#include "report/metrics.h"
#include "report/metrics-latency.h"
#include "report/metrics-baseline.h"
#include "report/metrics-write.h"
#include "report/metrics-dm.h"
#include "report/report.h"
#include "report/stack-metrics.h"

struct MetricsWriter {
        MetricsFormat format;
        char *buf;
        size_t size, allocated;
        int error;
        char family[128]; /* current family's sample base name */
        MetricType type;
};

static const char *const report_probe_result_table[_REPORT_PROBE_RESULT_MAX] = {
        [REPORT_PROBE_OK] = "ok",
        [REPORT_PROBE_ERROR] = "error",
        [REPORT_PROBE_STALLED] = "stalled",
        [REPORT_PROBE_FAILED] = "failed",
};

DEFINE_STRING_TABLE_LOOKUP(report_probe_result, ReportProbeResult, report_probe_result_table);

const ReportProbe *report_input_get_probe(const ReportInput *in, const char *name) {
        if (!in || !name)
                return NULL;
        for (size_t i = 0; i < in->n_probes; i++)
                if (in->probes[i].volume && strcmp(in->probes[i].volume, name) == 0)
                        return &in->probes[i];
        return NULL;
}

const char *metrics_format_content_type(MetricsFormat f) {
        switch (f) {
        case METRICS_FORMAT_PROMETHEUS:
                return "text/plain; version=0.0.4; charset=utf-8";
        case METRICS_FORMAT_OPENMETRICS:
                return "application/openmetrics-text; version=1.0.0; charset=utf-8";
        case _METRICS_FORMAT_MAX:
        case _METRICS_FORMAT_INVALID:
                break;
        }
        return NULL;
}

static int grow(MetricsWriter *w, size_t extra) {
        size_t need;
        char *p;

        if (w->error < 0)
                return w->error;
        need = w->size + extra + 1;
        if (need <= w->allocated)
                return 0;
        need = need < 4096 ? 4096 : need * 2;
        p = realloc(w->buf, need);
        if (!p)
                return (w->error = -ENOMEM);
        w->buf = p;
        w->allocated = need;
        return 0;
}

static void put(MetricsWriter *w, const char *s, size_t n) {
        if (grow(w, n) < 0)
                return;
        memcpy(w->buf + w->size, s, n);
        w->size += n;
        w->buf[w->size] = '\0';
}

static void puts_(MetricsWriter *w, const char *s) {
        put(w, s, strlen(s));
}

/* Label values (both formats) and OpenMetrics HELP: backslash, double quote, newline.
 * 0.0.4 HELP: backslash and newline only. */
static void put_escaped(MetricsWriter *w, const char *s, bool quote) {
        for (const char *p = s; *p; p++) {
                if (*p == '\\')
                        puts_(w, "\\\\");
                else if (*p == '\n')
                        puts_(w, "\\n");
                else if (*p == '"' && quote)
                        puts_(w, "\\\"");
                else
                        put(w, p, 1);
        }
}

static void put_value(MetricsWriter *w, double v) {
        char b[64];

        if (isnan(v))
                puts_(w, "NaN");
        else if (isinf(v))
                puts_(w, v > 0 ? "+Inf" : "-Inf");
        else if (v == trunc(v) && fabs(v) < 1e18)
                (void) snprintf(b, sizeof(b), "%" PRId64, (int64_t) v), puts_(w, b);
        else {
                /* the shortest %g that reads back exactly */
                for (int prec = 6; prec <= 17; prec++) {
                        (void) snprintf(b, sizeof(b), "%.*g", prec, v);
                        if (strtod(b, NULL) == v)
                                break;
                }
                puts_(w, b);
        }
}

int metrics_writer_family(MetricsWriter *w, const char *name, MetricType type, const char *help) {
        size_t n = strlen(name);
        const char *drop = NULL;

        if (w->error < 0)
                return w->error;
        if (n >= sizeof(w->family))
                return (w->error = -EINVAL);
        memcpy(w->family, name, n + 1);
        w->type = type;

        if (w->format == METRICS_FORMAT_OPENMETRICS && type == METRIC_COUNTER)
                drop = "_total";
        else if (w->format == METRICS_FORMAT_OPENMETRICS && type == METRIC_INFO)
                drop = "_info";
        if (drop && (n < strlen(drop) || strcmp(name + n - strlen(drop), drop) != 0))
                return (w->error = -EINVAL);
        if (drop)
                n -= strlen(drop);

        puts_(w, "# HELP ");
        put(w, name, n);
        puts_(w, " ");
        put_escaped(w, help, w->format == METRICS_FORMAT_OPENMETRICS);
        puts_(w, "\n# TYPE ");
        put(w, name, n);
        switch (type) {
        case METRIC_GAUGE:
                puts_(w, " gauge\n");
                break;
        case METRIC_COUNTER:
                puts_(w, " counter\n");
                break;
        case METRIC_HISTOGRAM:
                puts_(w, " histogram\n");
                break;
        case METRIC_INFO:
                puts_(w, w->format == METRICS_FORMAT_OPENMETRICS ? " info\n" : " gauge\n");
                break;
        case _METRIC_TYPE_MAX:
        case _METRIC_TYPE_INVALID:
                return (w->error = -EINVAL);
        }
        return w->error;
}

static int sample_va(MetricsWriter *w, const char *suffix, double value, va_list ap) {
        const char *k;
        bool first = true;

        if (w->error < 0)
                return w->error;
        puts_(w, w->family);
        puts_(w, suffix ?: "");
        while ((k = va_arg(ap, const char *))) {
                const char *v = va_arg(ap, const char *);

                puts_(w, first ? "{" : ",");
                first = false;
                puts_(w, k);
                puts_(w, "=\"");
                put_escaped(w, v ?: "", true);
                puts_(w, "\"");
        }
        if (!first)
                puts_(w, "}");
        puts_(w, " ");
        put_value(w, value);
        puts_(w, "\n");
        return w->error;
}

int metrics_writer_sample(MetricsWriter *w, const char *suffix, double value, ...) {
        va_list ap;
        int r;

        va_start(ap, value);
        r = sample_va(w, suffix, value, ap);
        va_end(ap);
        return r;
}

/* ---- the families ----------------------------------------------------------------------- */

#define PROBE_HELP " (from the last probe run)"

/* Bucket bounds of the latency histograms, seconds. */
typedef struct Ctx {
        const ReportInput *in;
        MetricsWriter *w;
        Volume **vols;              /* visible volumes, name order */
        const ReportProbe **probes; /* per vols[i], NULL if none */
        size_t n;
} Ctx;

static double usec_to_sec(usec_t u) {
        return (double) u / 1e6;
}

static const char *member_state_bucket(const VolumeMember *m) {
        const char *s = volume_member_state(m);

        if (!s)
                return "unknown";
        if (strstr(s, "faulty"))
                return "faulty";
        if (strstr(s, "missing"))
                return "missing";
        if (strstr(s, "in_sync"))
                return "in_sync";
        if (strstr(s, "syncing") || strstr(s, "rebuilding"))
                return "rebuilding";
        if (strstr(s, "spare"))
                return "spare";
        return "unknown";
}

static const char *const member_states[] = { "in_sync", "rebuilding", "spare",
                                             "faulty",  "missing",    "unknown" };
static const char *const sync_actions[] = { "idle",   "resync",  "recover", "check",
                                            "repair", "reshape", "frozen",  "other" };

static const char *sync_action_bucket(const char *a) {
        for (size_t i = 0; i + 1 < ELEMENTSOF(sync_actions); i++)
                if (strcmp(a, sync_actions[i]) == 0)
                        return sync_actions[i];
        return "other";
}

static bool sync_running(const Volume *v) {
        return v->sync.action && strcmp(v->sync.action, "idle") != 0;
}

static void daemon_families(Ctx *c) {
        MetricsWriter *w = c->w;
        const ReportInput *in = c->in;
        size_t per_kind[_VOLUME_KIND_MAX] = {};

        metrics_writer_family(w, "storpulse_build_info", METRIC_INFO,
                              "Build information of storpulse, value 1.");
        metrics_writer_sample(w, "", 1, "version", in->version ?: "", NULL);

        if (in->start_realtime_usec > 0) {
                metrics_writer_family(w, "storpulse_start_time_seconds", METRIC_GAUGE,
                                      "When the daemon started, seconds since the epoch.");
                metrics_writer_sample(w, "", usec_to_sec(in->start_realtime_usec), NULL);
        }
        metrics_writer_family(w, "storpulse_snapshot_timestamp_seconds", METRIC_GAUGE,
                              "When the state served here was taken, seconds since the epoch "
                              "(rendered once per change, not per scrape).");
        metrics_writer_sample(w, "", usec_to_sec(in->now_realtime_usec), NULL);
        metrics_writer_family(w, "storpulse_snapshot_render_duration_seconds", METRIC_GAUGE,
                              "Time the daemon took to render the previous snapshot of its "
                              "state (the collection cost of a change).");
        metrics_writer_sample(w, "", usec_to_sec(in->render_duration_usec), NULL);
        metrics_writer_family(w, "storpulse_state_save_errors_total", METRIC_COUNTER,
                              "Saves of the state files (probe records, baselines) that failed.");
        metrics_writer_sample(w, "", (double) in->state_save_errors, NULL);
        metrics_writer_family(w, "storpulse_state_unsaved", METRIC_GAUGE,
                              "1 while the state is not being saved: the last save failed, or a "
                              "file of a newer version is kept and not overwritten.");
        metrics_writer_sample(w, "", in->state_unsaved ? 1 : 0, NULL);

        for (size_t i = 0; i < c->n; i++)
                if (c->vols[i]->kind >= 0 && c->vols[i]->kind < _VOLUME_KIND_MAX)
                        per_kind[c->vols[i]->kind]++;
        metrics_writer_family(w, "storpulse_volumes", METRIC_GAUGE,
                              "Volumes known to the daemon by kind (LVM sub-LVs not counted).");
        for (VolumeKind k = 0; k < _VOLUME_KIND_MAX; k++)
                metrics_writer_sample(w, "", (double) per_kind[k], "kind", volume_kind_to_string(k),
                                      NULL);
}

static void volume_families(Ctx *c) {
        MetricsWriter *w = c->w;

        metrics_writer_family(w, "storpulse_volume_info", METRIC_INFO,
                              "Volume identity, value 1: kind, level (arrays), device path and "
                              "the first volume stacked on it (parent, empty for a top).");
        for (size_t i = 0; i < c->n; i++) {
                const Volume *v = c->vols[i];
                const char *parent = "";

                for (char **h = v->holders; h && *h; h++) {
                        const Volume *hv = inventory_get(c->in->inventory, *h);
                        if (hv && !hv->hidden) {
                                parent = *h;
                                break;
                        }
                }
                metrics_writer_sample(w, "", 1, "volume", v->name, "kind",
                                      volume_kind_to_string(v->kind) ?: "", "level", v->level ?: "",
                                      "path", v->path ?: "", "parent", parent, NULL);
        }

        metrics_writer_family(w, "storpulse_volume_member_info", METRIC_INFO,
                              "Stack graph, value 1: volume sits on member.");
        for (size_t i = 0; i < c->n; i++)
                for (char **m = c->vols[i]->members; m && *m; m++)
                        metrics_writer_sample(w, "", 1, "volume", c->vols[i]->name, "member", *m,
                                              NULL);

        metrics_writer_family(w, "storpulse_volume_size_bytes", METRIC_GAUGE,
                              "Volume size in bytes.");
        for (size_t i = 0; i < c->n; i++)
                metrics_writer_sample(w, "", (double) c->vols[i]->size_bytes, "volume",
                                      c->vols[i]->name, NULL);

        metrics_writer_family(w, "storpulse_volume_health", METRIC_GAUGE,
                              "Health the kernel shows for the volume itself, one series per "
                              "state, 1 for the current one.");
        for (size_t i = 0; i < c->n; i++)
                for (VolumeHealth h = 0; h < _VOLUME_HEALTH_MAX; h++)
                        metrics_writer_sample(w, "", c->vols[i]->health == h, "volume",
                                              c->vols[i]->name, "state", volume_health_to_string(h),
                                              NULL);

        metrics_writer_family(w, "storpulse_volume_problem", METRIC_GAUGE,
                              "1 if the volume itself shows a problem (degraded, failed, a "
                              "faulty member, flagged slow, or its last probe had read errors, "
                              "stalled or could not run: until a clean probe).");
        for (size_t i = 0; i < c->n; i++)
                metrics_writer_sample(w, "", report_volume_problem(c->vols[i], c->probes[i]),
                                      "volume", c->vols[i]->name, NULL);
        if (stack_metrics_render(w, c->in, c->vols, c->probes, c->n) < 0 && w->error >= 0)
                w->error = -ENOMEM;

        metrics_writer_family(w, "storpulse_volume_read_only", METRIC_GAUGE,
                              "1 if the block device is read-only.");
        for (size_t i = 0; i < c->n; i++)
                metrics_writer_sample(w, "", c->vols[i]->read_only, "volume", c->vols[i]->name,
                                      NULL);
}

/* Slots, degradation and members of md arrays and dm-raid volumes. */
static void array_families(Ctx *c) {
        MetricsWriter *w = c->w;

        metrics_writer_family(w, "storpulse_array_raid_disks", METRIC_GAUGE,
                              "Member slots of the array (md raid_disks, dm-raid legs).");
        for (size_t i = 0; i < c->n; i++)
                if (volume_is_array(c->vols[i]) && c->vols[i]->raid_disks >= 0)
                        metrics_writer_sample(w, "", c->vols[i]->raid_disks, "volume",
                                              c->vols[i]->name, NULL);

        metrics_writer_family(w, "storpulse_array_degraded_devices", METRIC_GAUGE,
                              "Missing member devices of the array (md degraded, dm-raid dead "
                              "legs); above 0 means degraded.");
        for (size_t i = 0; i < c->n; i++)
                if (volume_is_array(c->vols[i]) && c->vols[i]->degraded >= 0)
                        metrics_writer_sample(w, "", c->vols[i]->degraded, "volume",
                                              c->vols[i]->name, NULL);

        metrics_writer_family(w, "storpulse_array_member_state", METRIC_GAUGE,
                              "State of each array member, one series per state, 1 for the "
                              "current one (rebuilding: a spare in a slot, or a syncing leg).");
        for (size_t i = 0; i < c->n; i++) {
                const Volume *v = c->vols[i];
                for (size_t j = 0; volume_is_array(v) && j < v->n_array_members; j++) {
                        const VolumeMember *m = &v->array_members[j];
                        const char *b = member_state_bucket(m);
                        for (size_t k = 0; k < ELEMENTSOF(member_states); k++)
                                metrics_writer_sample(w, "", strcmp(b, member_states[k]) == 0,
                                                      "volume", v->name, "member", m->name ?: "",
                                                      "state", member_states[k], NULL);
                }
        }

        metrics_writer_family(w, "storpulse_array_member_read_errors_total", METRIC_COUNTER,
                              "Read errors md corrected on the member without evicting it "
                              "(md dev-X/errors).");
        for (size_t i = 0; i < c->n; i++) {
                const Volume *v = c->vols[i];
                for (size_t j = 0; volume_is_array(v) && j < v->n_array_members; j++)
                        if (v->array_members[j].errors >= 0)
                                metrics_writer_sample(w, "", v->array_members[j].errors, "volume",
                                                      v->name, "member",
                                                      v->array_members[j].name ?: "", NULL);
        }
}

/* The sync machinery of md arrays and dm-raid volumes: action, progress, speed, ETA. */
static void sync_families(Ctx *c) {
        MetricsWriter *w = c->w;

        metrics_writer_family(w, "storpulse_sync_action", METRIC_GAUGE,
                              "What the array's sync machinery does, one series per action, 1 "
                              "for the current one (idle, resync, recover, check, repair, "
                              "reshape, frozen, other).");
        for (size_t i = 0; i < c->n; i++) {
                const Volume *v = c->vols[i];
                if (!v->sync.action)
                        continue;
                const char *b = sync_action_bucket(v->sync.action);
                for (size_t k = 0; k < ELEMENTSOF(sync_actions); k++)
                        metrics_writer_sample(w, "", strcmp(b, sync_actions[k]) == 0, "volume",
                                              v->name, "action", sync_actions[k], NULL);
        }

        metrics_writer_family(w, "storpulse_sync_delayed", METRIC_GAUGE,
                              "1 if the array's sync is queued behind another array on the same "
                              "disks.");
        for (size_t i = 0; i < c->n; i++)
                if (c->vols[i]->sync.action)
                        metrics_writer_sample(w, "", c->vols[i]->sync.delayed, "volume",
                                              c->vols[i]->name, NULL);

        metrics_writer_family(w, "storpulse_sync_progress_ratio", METRIC_GAUGE,
                              "Progress of the running sync (rebuild, check, reshape), 0 to 1.");
        for (size_t i = 0; i < c->n; i++)
                if (sync_running(c->vols[i]) && c->vols[i]->sync.has_progress)
                        metrics_writer_sample(w, "", c->vols[i]->sync.progress, "volume",
                                              c->vols[i]->name, NULL);

        metrics_writer_family(w, "storpulse_sync_completed_bytes", METRIC_GAUGE,
                              "Bytes of the running sync done so far.");
        for (size_t i = 0; i < c->n; i++)
                if (sync_running(c->vols[i]) && c->vols[i]->sync.total_sectors > 0)
                        metrics_writer_sample(w, "", (double) c->vols[i]->sync.done_sectors * 512,
                                              "volume", c->vols[i]->name, NULL);

        metrics_writer_family(w, "storpulse_sync_total_bytes", METRIC_GAUGE,
                              "Bytes the running sync covers in all.");
        for (size_t i = 0; i < c->n; i++)
                if (sync_running(c->vols[i]) && c->vols[i]->sync.total_sectors > 0)
                        metrics_writer_sample(w, "", (double) c->vols[i]->sync.total_sectors * 512,
                                              "volume", c->vols[i]->name, NULL);

        metrics_writer_family(w, "storpulse_sync_speed_bytes_per_second", METRIC_GAUGE,
                              "Speed of the running sync as the kernel averages it, bytes per "
                              "second.");
        for (size_t i = 0; i < c->n; i++)
                if (sync_running(c->vols[i]) && c->vols[i]->sync.speed_bytes_per_second > 0)
                        metrics_writer_sample(w, "",
                                              (double) c->vols[i]->sync.speed_bytes_per_second,
                                              "volume", c->vols[i]->name, NULL);

        metrics_writer_family(w, "storpulse_sync_eta_seconds", METRIC_GAUGE,
                              "Estimated time left for the running sync at its current speed.");
        for (size_t i = 0; i < c->n; i++)
                if (sync_running(c->vols[i]) && c->vols[i]->sync.has_eta)
                        metrics_writer_sample(w, "", (double) c->vols[i]->sync.eta_seconds,
                                              "volume", c->vols[i]->name, NULL);

        metrics_writer_family(w, "storpulse_sync_mismatch_bytes", METRIC_GAUGE,
                              "Bytes found inconsistent by the last check or repair (md "
                              "mismatch_cnt, dm-raid mismatch count, 512-byte sectors).");
        for (size_t i = 0; i < c->n; i++)
                if (c->vols[i]->sync.has_mismatch_count)
                        metrics_writer_sample(w, "", (double) c->vols[i]->sync.mismatch_count * 512,
                                              "volume", c->vols[i]->name, NULL);
}

static void md_dm_families(Ctx *c) {
        MetricsWriter *w = c->w;
        bool any_md = false, any_dm = false, any_array = false;

        for (size_t i = 0; i < c->n; i++) {
                any_md = any_md || c->vols[i]->md;
                any_dm = any_dm || c->vols[i]->dm_name;
                any_array = any_array || volume_is_array(c->vols[i]);
        }

        if (any_md) {
                metrics_writer_family(w, "storpulse_md_array_state", METRIC_GAUGE,
                                      "md array_state, one series per state, 1 for the current "
                                      "one.");
                for (size_t i = 0; i < c->n; i++) {
                        const Volume *v = c->vols[i];
                        if (!v->md)
                                continue;
                        for (MdArrayState s = 0; s < _MD_ARRAY_STATE_MAX; s++)
                                metrics_writer_sample(w, "", v->md->array_state == s, "volume",
                                                      v->name, "state", md_array_state_to_string(s),
                                                      NULL);
                }
        }
        if (any_dm) {
                metrics_writer_family(w, "storpulse_dm_suspended", METRIC_GAUGE,
                                      "1 if the device-mapper device (LVM or other) is "
                                      "suspended.");
                for (size_t i = 0; i < c->n; i++)
                        if (c->vols[i]->dm_name)
                                metrics_writer_sample(w, "", c->vols[i]->dm_suspended, "volume",
                                                      c->vols[i]->name, NULL);
                metrics_dm_families(w, c->vols, c->n);
        }
        if (!any_array)
                return;
        array_families(c);
        sync_families(c);
}

/* The last probe of each volume that has one: when, how long, how it ended, per phase. */
static void probe_last_families(Ctx *c) {
        MetricsWriter *w = c->w;

        metrics_writer_family(w, "storpulse_probe_last_run_timestamp_seconds", METRIC_GAUGE,
                              "When the last probe of the volume ended, seconds since "
                              "the epoch.");
        for (size_t i = 0; i < c->n; i++)
                if (c->probes[i] && c->probes[i]->has_last)
                        metrics_writer_sample(w, "", usec_to_sec(c->probes[i]->last.realtime_usec),
                                              "volume", c->vols[i]->name, NULL);

        metrics_writer_family(w, "storpulse_probe_last_duration_seconds", METRIC_GAUGE,
                              "Wall time of the probe" PROBE_HELP ".");
        for (size_t i = 0; i < c->n; i++)
                if (c->probes[i] && c->probes[i]->has_last)
                        metrics_writer_sample(w, "", usec_to_sec(c->probes[i]->last.duration_usec),
                                              "volume", c->vols[i]->name, NULL);

        metrics_writer_family(w, "storpulse_probe_last_result", METRIC_GAUGE,
                              "How the probe ended, one series per result (ok, error, "
                              "stalled, failed), 1 for the actual one" PROBE_HELP ".");
        for (size_t i = 0; i < c->n; i++)
                if (c->probes[i] && c->probes[i]->has_last)
                        for (ReportProbeResult r = 0; r < _REPORT_PROBE_RESULT_MAX; r++)
                                metrics_writer_sample(w, "", c->probes[i]->last.result == r,
                                                      "volume", c->vols[i]->name, "result",
                                                      report_probe_result_to_string(r), NULL);

        metrics_writer_family(w, "storpulse_probe_last_errors", METRIC_GAUGE,
                              "Failed and short reads" PROBE_HELP ".");
        for (size_t i = 0; i < c->n; i++)
                if (c->probes[i] && c->probes[i]->has_last)
                        metrics_writer_sample(w, "", (double) c->probes[i]->last.errors, "volume",
                                              c->vols[i]->name, NULL);

        metrics_writer_family(w, "storpulse_probe_read_bytes_per_second", METRIC_GAUGE,
                              "Read throughput per phase (sequential, random, "
                              "random_deep)" PROBE_HELP ".");
        for (size_t i = 0; i < c->n; i++)
                for (ProbePhase p = 0;
                     c->probes[i] && c->probes[i]->has_last && p < _PROBE_PHASE_MAX; p++)
                        if (c->probes[i]->last.phases[p].ran && !probe_phase_is_write(p))
                                metrics_writer_sample(w, "",
                                                      c->probes[i]->last.phases[p].bytes_per_second,
                                                      "volume", c->vols[i]->name, "phase",
                                                      probe_phase_to_string(p), NULL);

        metrics_writer_family(w, "storpulse_probe_read_iops", METRIC_GAUGE,
                              "Reads completed per second per phase" PROBE_HELP ".");
        for (size_t i = 0; i < c->n; i++)
                for (ProbePhase p = 0;
                     c->probes[i] && c->probes[i]->has_last && p < _PROBE_PHASE_MAX; p++)
                        if (c->probes[i]->last.phases[p].ran && !probe_phase_is_write(p))
                                metrics_writer_sample(w, "", c->probes[i]->last.phases[p].iops,
                                                      "volume", c->vols[i]->name, "phase",
                                                      probe_phase_to_string(p), NULL);

        metrics_latency_render(w, c->in->latency_histogram, c->vols, c->probes, c->n);
        metrics_write_render(w, c->vols, c->probes, c->n);
}

_Static_assert(sizeof(usec_t) == sizeof(uint64_t), "probe_counter() reads a usec_t as uint64_t");

/* A counter family with one sample per probed volume: the uint64_t (or usec_t, in seconds with
 * `usec`) at `offset` in its ReportProbe. */
static void probe_counter(Ctx *c, const char *name, const char *help, size_t offset, bool usec) {
        metrics_writer_family(c->w, name, METRIC_COUNTER, help);
        for (size_t i = 0; i < c->n; i++)
                if (c->probes[i]) {
                        uint64_t v = *(const uint64_t *) ((const char *) c->probes[i] + offset);

                        metrics_writer_sample(c->w, "", usec ? usec_to_sec(v) : (double) v,
                                              "volume", c->vols[i]->name, NULL);
                }
}

/* What the daemon spent on probing each volume since it started. */
static void probe_counter_families(Ctx *c) {
        MetricsWriter *w = c->w;

        probe_counter(c, "storpulse_probe_runs_total",
                      "Probes of the volume since the daemon started.",
                      offsetof(ReportProbe, n_probes), false);
        probe_counter(c, "storpulse_probe_stalls_total",
                      "Probes that stalled (no result before the timeout).",
                      offsetof(ReportProbe, n_stalls), false);
        probe_counter(c, "storpulse_probe_failures_total",
                      "Probes that saw I/O errors or could not run.",
                      offsetof(ReportProbe, n_failed), false);
        metrics_writer_family(w, "storpulse_probe_skips_total", METRIC_COUNTER,
                              "Probes not run, by reason.");
        for (size_t i = 0; i < c->n; i++)
                for (ProbeSkipReason r = 0; c->probes[i] && r < _PROBE_SKIP_REASON_MAX; r++)
                        metrics_writer_sample(w, "", (double) c->probes[i]->skips[r], "volume",
                                              c->vols[i]->name, "reason",
                                              probe_skip_reason_to_string(r), NULL);
        probe_counter(c, "storpulse_probe_forced_total",
                      "Probes run despite foreground I/O: the volume's probes had been given up "
                      "for foreign I/O for MaxDeferral=.",
                      offsetof(ReportProbe, n_forced), false);
        probe_counter(c, "storpulse_probe_second_looks_total",
                      "Probe results that read bad against the baseline and were measured again "
                      "before they counted.",
                      offsetof(ReportProbe, n_second_looks), false);
        metrics_writer_family(w, "storpulse_probe_deferred_since_timestamp_seconds", METRIC_GAUGE,
                              "Since when the volume's probes are given up for foreign I/O "
                              "(only volumes deferred now).");
        for (size_t i = 0; i < c->n; i++)
                if (c->probes[i] && c->probes[i]->deferred_usec > 0)
                        metrics_writer_sample(w, "", usec_to_sec(c->probes[i]->deferred_usec),
                                              "volume", c->vols[i]->name, NULL);
        probe_counter(c, "storpulse_probe_cpu_seconds_total",
                      "CPU time (user + system) the probe helper spent on the volume.",
                      offsetof(ReportProbe, cpu_usec), true);
        probe_counter(c, "storpulse_probe_device_seconds_total",
                      "Device time spent probing the volume.", offsetof(ReportProbe, device_usec),
                      true);
}

static void probe_families(Ctx *c) {
        MetricsWriter *w = c->w;
        bool any = false, any_last = false;

        for (size_t i = 0; i < c->n; i++)
                if (c->probes[i]) {
                        any = true;
                        any_last = any_last || c->probes[i]->has_last;
                }

        if (c->in->next_probe_realtime_usec > 0) {
                metrics_writer_family(w, "storpulse_probe_next_run_timestamp_seconds", METRIC_GAUGE,
                                      "When the built-in schedule runs the next probe, seconds "
                                      "since the epoch.");
                metrics_writer_sample(w, "", usec_to_sec(c->in->next_probe_realtime_usec), NULL);
        }
        if (!any)
                return;

        metrics_writer_family(w, "storpulse_probe_running", METRIC_GAUGE,
                              "1 while a probe reads the volume.");
        for (size_t i = 0; i < c->n; i++)
                if (c->probes[i])
                        metrics_writer_sample(w, "", c->probes[i]->running, "volume",
                                              c->vols[i]->name, NULL);

        metrics_writer_family(w, "storpulse_probe_stalled", METRIC_GAUGE,
                              "1 if the last probe got no result before its timeout (the "
                              "volume stalled)" PROBE_HELP ".");
        for (size_t i = 0; i < c->n; i++)
                if (c->probes[i])
                        metrics_writer_sample(w, "", c->probes[i]->stalled, "volume",
                                              c->vols[i]->name, NULL);

        if (any_last)
                probe_last_families(c);

        probe_counter_families(c);
        metrics_baseline_render(c->w, c->vols, c->probes, c->n); /* families with a learnt figure */
}

static int cmp_probe(const void *a, const void *b) {
        const ReportProbe *const *x = a, *const *y = b;
        return strcmp((*x)->volume, (*y)->volume);
}

int metrics_render(const ReportInput *in, MetricsFormat f, char **ret, size_t *ret_size) {
        _cleanup_free_ Volume **vols = NULL;
        _cleanup_free_ const ReportProbe **probes = NULL, **sorted = NULL;
        MetricsWriter w = { .format = f };
        char *fit;
        Ctx c = { .in = in, .w = &w };
        size_t n_total, n_sorted = 0;
        Volume *v;

        if (!in || !in->inventory || !ret || f < 0 || f >= _METRICS_FORMAT_MAX)
                return -EINVAL;

        n_total = inventory_size(in->inventory);
        vols = calloc(n_total + 1, sizeof(*vols));
        probes = calloc(n_total + 1, sizeof(*probes));
        sorted = calloc(in->n_probes + 1, sizeof(*sorted));
        if (!vols || !probes || !sorted)
                return -ENOMEM;
        for (size_t i = 0; i < in->n_probes; i++)
                if (in->probes[i].volume)
                        sorted[n_sorted++] = &in->probes[i];
        qsort(sorted, n_sorted, sizeof(*sorted), cmp_probe);
        INVENTORY_FOREACH(v, in->inventory) {
                ReportProbe key = { .volume = v->name };
                const ReportProbe *kp = &key, **hit;

                if (!volume_is_listed(v))
                        continue;
                hit = n_sorted ? bsearch(&kp, sorted, n_sorted, sizeof(*sorted), cmp_probe) : NULL;
                probes[c.n] = hit ? *hit : NULL;
                vols[c.n++] = v;
        }
        c.vols = vols;
        c.probes = probes;

        daemon_families(&c);
        volume_families(&c);
        md_dm_families(&c);
        probe_families(&c);
        for (size_t i = 0; i < in->n_extensions && w.error >= 0; i++)
                if (in->extensions[i].metrics) {
                        int r = in->extensions[i].metrics(&w, in->extensions[i].userdata);
                        if (r < 0 && w.error >= 0)
                                w.error = r;
                }
        if (f == METRICS_FORMAT_OPENMETRICS)
                puts_(&w, "# EOF\n");
        if (w.error < 0) {
                free(w.buf);
                return w.error;
        }
        if (ret_size)
                *ret_size = w.size;
        /* grown by doubling: up to half of it unused, for as long as the snapshot lives */
        fit = realloc(w.buf, w.size + 1);
        *ret = fit ?: w.buf;
        return 0;
}

/* SPDX-License-Identifier: MIT */
#pragma once

/* The Manager's parts talking to each other (manager.c, manager-volumes.c, manager-probe.c,
 * manager-control.c). Not for modules outside the manager folder. */

#include <json-c/json.h>

#include "core/perf-monitor.h"
#include "manager/control-protocol.h"
#include "manager/manager.h"
#include "manager/state-writer.h"
#include "report/report.h"

/* manager.c */
void manager_apply_config(Manager *m);
/* Arm the dm-raid status poll while the inventory holds a dm-raid volume, drop it otherwise. */
int manager_dm_poll_update(Manager *m);
void manager_state_load(Manager *m); /* $STATE_DIRECTORY/probes.json, once at start */
void manager_state_save(Manager *m); /* after every run and at exit; failures logged once */
/* Why the state is not being saved (the last failure, or a newer file kept), NULL when it is. */
const char *manager_state_unsaved(const Manager *m);
/* A save of `file` ended with r (0 or -errno): counted, logged once per error, kept in *error. */
void manager_state_save_result(Manager *m, const char *file, int *error, int r);
/* *w ready for the next save of `file`: kept while a save is in flight, else replaced by one on
 * the state directory opened afresh (it may have been replaced since the last save). The ESTALE
 * once blamed on the VM's overlayfs came from sd_event_add_io() on the finished loop at exit
 * (state-writer.c). 0 or -errno. */
int manager_state_writer_prepare(Manager *m, StateWriter **w, const char *file,
                                 StateWriterDone done, void *userdata);

/* manager-volumes.c: per-volume records and the inventory/md events */
void manager_on_changes(Inventory *inv, const InventoryChange *changes, size_t n, void *userdata);
void manager_on_md_event(MdMonitor *mon, const MdMonitorEvent *ev, void *userdata);
void manager_volumes_coldplug(Manager *m);
void manager_volumes_free(Manager *m);
ManagerVolume *manager_volume_ensure(Manager *m, Volume *v);
/* Free a record whose volume is gone (after its probe ended). */
void manager_volume_release(Manager *m, ManagerVolume *r);

/* manager-stack.c: problems and health through the stack */
/* Why the record's probes make its volume a problem until a clean probe: "stalled",
 * "read-errors", "probe-failed", or NULL. */
const char *manager_volume_probe_problem(const ManagerVolume *r) _pure_;
/* Listed volumes with a problem of their own (volume_has_problem() or a probe problem). */
unsigned manager_count_problems(const Manager *m);
/* After a change set: recount Manager.n_problems and raise problem-below / problem-below-cleared
 * for every listed volume whose effective state from below changed. */
void manager_stack_update(Manager *m);
/* `status`'s list of listed volumes with a problem of their own or from below: name, kind,
 * state, verdict_reason, probe_problem, effective_state, effective_cause. NULL on OOM. */
json_object *manager_problems_json(const Manager *m);

/* manager-probe.c: profile runs, the back-off, the built-in schedule */
int manager_probe_setup(Manager *m);
void manager_probe_stop(Manager *m);     /* at SIGTERM: kill the helpers, stop scheduling */
void manager_probe_shutdown(Manager *m); /* after the loop: bounded wait for the reaper */
void manager_probe_free(Manager *m);
void manager_schedule_apply(Manager *m);

/* manager-scratch.c: the write probe's scratch files when their directory leaves the config */
/* After a configuration is applied (start, reload): the first time, load the record of
 * directories from the state directory; then remove, in the probe helper, the scratch file of
 * each recorded directory no longer in [WriteProbe] Directory=. */
void manager_scratch_apply(Manager *m);
/* A write slice is about to run in dir: recorded (and saved) before the helper creates a file. */
void manager_scratch_note(Manager *m, const char *dir);
/* Whether a write slice may start in dir: configured now and not being cleaned. */
bool manager_scratch_usable(const Manager *m, const char *dir);
/* Start the next removal that is due and free (no write slice in its directory); from the probe
 * kick, as slices end. */
void manager_scratch_kick(Manager *m);
void manager_scratch_stop(Manager *m); /* at SIGTERM: a removal's helper goes to the reaper */
void manager_scratch_free(Manager *m); /* before the reaper: stops, flushes the record (bounded) */

/* manager-controller.c: vendor CLIs in a worker thread */
int manager_cli_setup(Manager *m);
void manager_cli_apply(Manager *m);
bool manager_cli_free(Manager *m); /* true: a worker still runs and uses the reaper */

/* manager-control.c: the control socket */
int manager_control_setup(Manager *m);
void manager_control_free(Manager *m);

/* manager-http.c: the HTTP endpoint and its snapshot, rebuilt from a publish hook */
int manager_http_setup(Manager *m);
void manager_http_free(Manager *m);
/* A sample and a volume's record as the report layer reads them (one JSON schema for the API and
 * the control socket: report/api.h). h has room for r->n_history samples; pm may be NULL (no
 * baseline then). The results point into s, r, h and b. */
void manager_report_sample(const ManagerProbeSample *s, ReportSample *ret);
/* An event as the report layer reads it; the strings point into e. */
void manager_report_event(const ManagerEvent *e, ReportEvent *ret);
void manager_report_probe(const PerfMonitor *pm, const ManagerVolume *r, ReportProbe *p,
                          ReportSample *h, ReportBaseline *b);
/* On reload, before c replaces m->config: apply [HTTP] of c to the running endpoint (limits,
 * TLS files, auth; the sockets stay). Returns NULL, or what waits for a restart or was not
 * applied, a static string for the reload's reply (also logged). */
const char *manager_http_reload(Manager *m, const Config *c);
/* The control socket's history: /api/v1/history's document (report/api.h), its "volumes" only
 * those named in `only` (NULL-terminated; NULL all). 0 and a new reference in *ret, or -errno
 * with the message in error (-ENOENT: a name that is no listed volume). */
int manager_history_json(Manager *m, char *const *only, json_object **ret, char *error,
                         size_t error_size);
/* The HTTP endpoint's addresses ("http://127.0.0.1:9977"), a JSON array (empty without an
 * endpoint), NULL on -ENOMEM. */
json_object *manager_http_urls_json(const Manager *m);
/* manager-perf.c: baselines, verdicts, fail-slow members, slow rebuilds (core/perf-monitor),
 * fed from the publish hook; the baselines persist in the state directory. */
int manager_perf_setup(Manager *m);
void manager_perf_free(Manager *m); /* saves the baselines */
/* Apply the [Detection] settings of m->config to the running monitor (reload); learned state is
 * kept (perf_monitor_set_config()). */
void manager_perf_apply(Manager *m);
/* The daemon's performance monitor (for the report snapshot: perf_report_baseline(),
 * perf_report_extension()); NULL before setup. */
const PerfMonitor *manager_perf_monitor(const Manager *m);
/* Whether the probe result s of v, just taken, should be measured again before it counts
 * (perf_monitor_second_look()); ret_worst: why. */
bool manager_perf_second_look(Manager *m, const Volume *v, const ManagerProbeSample *s,
                              DetectorFinding *ret_worst);
/* Answer baseline-reset / report: 0 and *ret (a reply member, may stay NULL), or -errno with
 * the message in error. */
int manager_perf_control(Manager *m, const ControlRequest *req, json_object **ret, char *error,
                         size_t error_size);

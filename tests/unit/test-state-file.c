/* SPDX-License-Identifier: MIT */
/* manager/state-file: records written and read back unchanged (a round trip through the JSON
 * text), the history ring kept newest-last, bad files refused with a message, bad items
 * skipped. */

#include <errno.h>
#include <math.h>
#include <string.h>

#include "manager/state-file.h"
#include "tap.h"

typedef struct Got {
        ManagerVolume v[4];
        char names[4][64];
        ManagerProbeSample history[4][MANAGER_HISTORY_MAX]; /* f->history lives only in the call */
        size_t n;
        unsigned skipped;
} Got;

static void restore(const ManagerVolume *f, void *userdata) {
        Got *g = userdata;

        if (g->n >= 4)
                return;
        g->v[g->n] = *f;
        (void) snprintf(g->names[g->n], sizeof(g->names[0]), "%s", f->name);
        g->v[g->n].name = g->names[g->n];
        if (f->history) {
                memcpy(g->history[g->n], f->history, sizeof(g->history[0]));
                g->v[g->n].history = g->history[g->n];
        }
        g->n++;
}

static int parse(const char *s, Got *g, const char **error) {
        *g = (Got){};
        *error = NULL;
        return state_file_parse(s, strlen(s), restore, g, &g->skipped, error);
}

/* md0's skips and more samples than the history ring holds: the ring wraps */
static void add_samples(ManagerVolume *r) {
        r->skips[PROBE_SKIP_FOREIGN_IO] = 7;
        r->skips[PROBE_SKIP_STANDBY] = 3;
        for (unsigned i = 0; i < MANAGER_HISTORY_MAX + 4; i++) { /* ring wrapped */
                ManagerProbeSample sample, *s = &sample;

                *s = (ManagerProbeSample){ .realtime_usec = 1000 + i,
                                           .status = PROBE_RUNNER_DONE,
                                           .state = i == MANAGER_HISTORY_MAX + 3 ? PROBE_STATE_ERROR
                                                                                 : PROBE_STATE_OK,
                                           .duration_usec = 5 * i,
                                           .errors = i,
                                           .forced = i == MANAGER_HISTORY_MAX + 3 };
                (void) snprintf(s->profile, sizeof(s->profile), "quick");
                s->phases[PROBE_PHASE_RANDOM] = (ManagerProbePhaseSummary){
                        .ran = true, .iops = 100.5, .p50_ns = 1000, .p99_ns = 9000, .max_ns = 20000
                };
                is_int(manager_volume_add_sample(r, s), 0, "sample %u added", i);
        }
}

/* The state file of m as text, parsed back into g. */
static void round_trip(const Manager *m, Got *g) {
        json_object *doc = NULL;
        const char *error, *text;

        is_int(state_file_build(m, &doc), 0, "build");
        text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN);
        ok(strstr(text, "\"sdz\"") == NULL, "a volume with nothing measured is left out");
        is_int(parse(text, g, &error), 2, "parse back: two volumes");
        json_object_put(doc);
}

/* the counters of md0 and the deferral of sdy, read back */
static void check_counters(const Got *g) {
        is_str(g->v[0].name, "md0", "name");
        is_u64(g->v[0].n_probes, 20, "probes");
        is_u64(g->v[0].n_stalls, 2, "stalls");
        is_u64(g->v[0].n_errors, 1, "errors");
        is_u64(g->v[0].cpu_usec, 1234, "cpu");
        is_u64(g->v[0].device_usec, 99999, "device time");
        ok(g->v[0].stalled, "stalled");
        is_u64(g->v[0].skips[PROBE_SKIP_FOREIGN_IO], 7, "skips foreign-io");
        is_u64(g->v[0].skips[PROBE_SKIP_STANDBY], 3, "skips standby");
        is_u64(g->v[0].n_forced, 2, "forced probes");
        is_u64(g->v[0].deferred_usec, 0, "md0 not deferred");
        is_str(g->v[1].name, "sdy", "a deferred volume is kept although never probed");
        is_u64(g->v[1].deferred_usec, 777, "since when it is deferred");
        is_int((int) g->v[0].n_history, MANAGER_HISTORY_MAX, "history full");
}

/* md0's history read back: newest last, the wrapped ring's oldest the 5th written */
static void check_history(const Got *g) {
        const ManagerProbeSample *newest = manager_volume_get_sample(&g->v[0], 0);
        const ManagerProbeSample *oldest =
                manager_volume_get_sample(&g->v[0], MANAGER_HISTORY_MAX - 1);

        ok(newest && newest->realtime_usec == 1000 + MANAGER_HISTORY_MAX + 3,
           "newest sample is the newest");
        ok(newest && newest->state == PROBE_STATE_ERROR, "its state");
        ok(newest && newest->forced, "it was forced");
        ok(oldest && !oldest->forced, "the oldest was not");
        ok(newest && isnan(newest->foreground_share) && newest->cpu_wait_usec == USEC_INFINITY,
           "foreground and CPU wait not kept: unknown, not 0");
        ok(oldest && oldest->realtime_usec == 1004, "oldest kept is the 5th written");
        ok(newest && newest->phases[PROBE_PHASE_RANDOM].ran &&
                   newest->phases[PROBE_PHASE_RANDOM].p99_ns == 9000 &&
                   newest->phases[PROBE_PHASE_RANDOM].iops == 100.5,
           "phase summary");
        is_str(newest ? newest->profile : NULL, "quick", "profile");
}

/* bad files refused with a message, bad items skipped */
static void test_bad_files(void) {
        const char *error;
        Got g;

        is_int(parse("", &g, &error), -EBADMSG, "empty file: damaged");
        ok(strcmp(error, "not a JSON object") == 0, "empty file: the message");
        is_int(parse("{\"version\":1,\"volu", &g, &error), -EBADMSG, "truncated: damaged");
        is_int(parse("{\"version\":9,\"volumes\":{}}", &g, &error), -EPROTONOSUPPORT,
               "a newer version: not damaged, not ours to overwrite");
        is_int(parse("{\"version\":0,\"volumes\":{}}", &g, &error), -EBADMSG, "version 0: damaged");
        ok(parse("[]", &g, &error) < 0, "array refused");
        ok(parse("{\"version\":2,\"volumes\":{}}", &g, &error) < 0 &&
                   strcmp(error, "unknown version") == 0,
           "other version refused");
        ok(parse("{\"version\":1}", &g, &error) < 0 && strcmp(error, "no volumes object") == 0,
           "no volumes");
        is_int(parse("{\"version\":1,\"volumes\":{\"a/b\":{},\"x\":3,\"ok\":{\"probes\":\"7\","
                     "\"history\":[1,{\"profile\":\"q\"},{\"profile\":\"q\",\"status\":\"done\","
                     "\"state\":\"ok\",\"time_usec\":5}]}}}",
                     &g, &error),
               1, "bad items skipped, the good volume kept");
        ok(g.n == 1 && g.v[0].n_probes == 0 && g.v[0].n_history == 1, "only the valid sample");
        is_int(g.skipped, 4, "skipped counted: volumes a/b and x, samples 1 and {profile only}");
        ok(parse("{\"version\":1,\"volumes\":{\"v\":{\"probes\":-5}}}", &g, &error) == 1 &&
                   g.v[0].n_probes == 0,
           "negative count ignored");
}

int main(void) {
        ManagerProbeSample history[MANAGER_HISTORY_MAX];
        ManagerVolume r = { .name = "md0",
                            .history = history,
                            .n_probes = 20,
                            .n_stalls = 2,
                            .n_errors = 1,
                            .cpu_usec = 1234,
                            .device_usec = 99999,
                            .n_forced = 2,
                            .stalled = true };
        ManagerVolume idle = { .name = "sdz" };
        /* never probed, its probes given up for foreign I/O since 777: MaxDeferral= counts on */
        ManagerVolume deferred = { .name = "sdy", .deferred_usec = 777 };
        ManagerVolume *vols[] = { &r, &idle, &deferred };
        Manager m = { .volumes = vols, .n_volumes = 3 };
        Got g;

        add_samples(&r);
        round_trip(&m, &g);
        check_counters(&g);
        check_history(&g);
        test_bad_files();
        return tap_done();
}

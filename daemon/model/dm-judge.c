/* SPDX-License-Identifier: MIT */
/* A judge per device-mapper target, on the status text the kernel prints (see
 * include/model/dm-judge.h for the rule per target and where its format comes from).
 *
 * Why not libdevmapper's dm_get_status_thin_pool() & co.: the judge has to stay a pure function
 * on text, testable on captured lines without loading libdevmapper (which the daemon dlopen()s
 * only on a host with dm devices); those parsers allocate from a dm_pool, cover six of the ten
 * targets judged here and stop at fields, not verdicts. The formats are the kernel's documented
 * ones, the same fields libdevmapper reads; test-dm-judge holds our reading of every captured line
 * against libdevmapper's own parsers where it has one.
 *
 * Kernel text is trusted for shape, not for sanity: an unexpected word makes the verdict
 * UNKNOWN, never a crash; numbers beyond 64 bits or a zero total give no figure. Among several
 * segments (a linear LV over two PVs) the worst line's verdict wins. */

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "basic/parse-util.h"
#include "basic/string-word.h"
#include "model/dm-judge.h"

/* The next word of *p into buf (basic/string-word.h); false at the end or if it does not fit. */
static bool next_tok(const char **p, char *buf, size_t n) {
        return string_next_word_copy(p, buf, n) > 0;
}

static bool next_u64(const char **c, uint64_t *ret) {
        char buf[32];

        return next_tok(c, buf, sizeof(buf)) && parse_u64_strict(buf, ret) >= 0;
}

/* "<a>/<b>" as a ratio; *ret < 0 when b is 0. */
static bool next_ratio(const char **c, double *ret) {
        char buf[64], *slash;
        uint64_t a, b;

        if (!next_tok(c, buf, sizeof(buf)) || !(slash = strchr(buf, '/')))
                return false;
        *slash = 0;
        if (parse_u64_strict(buf, &a) < 0 || parse_u64_strict(slash + 1, &b) < 0)
                return false;
        *ret = b > 0 ? (double) MIN(a, b) / (double) b : -1.0;
        return true;
}

static bool skip_toks(const char **c, uint64_t k) {
        char buf[256];

        for (uint64_t i = 0; i < k; i++)
                if (!next_tok(c, buf, sizeof(buf)))
                        return false;
        return true;
}

static int verdict_rank(RaidVerdict v) {
        return v == RAID_VERDICT_FAILED     ? 3
               : v == RAID_VERDICT_DEGRADED ? 2
               : v == RAID_VERDICT_OK       ? 0
                                            : 1;
}

/* Raise the verdict to v (never lower it) with a reason; an equal verdict appends its reason. */
_printf_(3, 4) static void judge_set(DmJudgement *j, RaidVerdict v, const char *fmt, ...) {
        size_t l = strlen(j->reason);
        va_list ap;

        if (verdict_rank(v) < verdict_rank(j->verdict))
                return;
        if (verdict_rank(v) > verdict_rank(j->verdict))
                l = 0;
        else if (l > 0 && l + 2 < sizeof(j->reason)) {
                memcpy(j->reason + l, "; ", 3);
                l += 2;
        }
        j->verdict = v;
        va_start(ap, fmt);
        (void) vsnprintf(j->reason + l, sizeof(j->reason) - l, fmt, ap);
        va_end(ap);
}

/* A device token "MAJ:MIN" as its name (name_of), else verbatim, into buf. */
typedef struct Namer {
        DmDeviceNameFunc fn;
        void *userdata;
} Namer;

static const char *dev_name(const Namer *nm, const char *tok, char *buf, size_t n) {
        unsigned ma, mi;
        int end = 0;

        if (nm->fn && sscanf(tok, "%u:%u%n", &ma, &mi, &end) == 2 && tok[end] == 0 &&
            nm->fn(ma, mi, nm->userdata, buf, n))
                return buf;
        (void) snprintf(buf, n, "%s", tok);
        return buf;
}

static void list_add(char *list, size_t n, const char *name) {
        size_t l = strlen(list);

        (void) snprintf(list + l, n - l, "%s%s", l ? ", " : "", name);
}

/* thin-pool: "<transaction id> <used>/<total meta> <used>/<total data> <held root> ro|rw|
 * out_of_data_space [no_]discard_passdown error|queue_if_no_space needs_check|- ..." or
 * "Fail"/"Error" (dm-thin.c pool_status()). */
static void judge_thin_pool(const char **c, DmJudgement *j) {
        char mode[32], discard[32], nospace[32], check[32];
        uint64_t u;

        if (!next_u64(c, &u)) {
                j->failed = true;
                judge_set(j, RAID_VERDICT_FAILED,
                          "thin pool failed (metadata full, or a metadata or device error): all "
                          "I/O fails");
                return;
        }
        if (!next_ratio(c, &j->metadata_usage) || !next_ratio(c, &j->data_usage) ||
            !skip_toks(c, 1) || !next_tok(c, mode, sizeof(mode)) ||
            !next_tok(c, discard, sizeof(discard)) || !next_tok(c, nospace, sizeof(nospace))) {
                judge_set(j, RAID_VERDICT_UNKNOWN, "thin pool status not understood");
                return;
        }
        if (strcmp(mode, "out_of_data_space") == 0) {
                j->out_of_data_space = true;
                j->queueing = strcmp(nospace, "queue_if_no_space") == 0;
                judge_set(j, RAID_VERDICT_FAILED,
                          j->queueing ? "thin pool out of data space: writes to new blocks are "
                                        "queued (writers hang)"
                                      : "thin pool out of data space: writes to new blocks fail");
        } else if (strcmp(mode, "ro") == 0) {
                j->read_only = true;
                judge_set(j, RAID_VERDICT_FAILED,
                          "thin pool read-only (metadata full or a metadata error): writes to new "
                          "or shared blocks fail");
        } else if (strcmp(mode, "rw") != 0)
                judge_set(j, RAID_VERDICT_UNKNOWN, "thin pool mode '%s' not understood", mode);
        if (next_tok(c, check, sizeof(check)) && strcmp(check, "needs_check") == 0) {
                j->needs_check = true;
                judge_set(j, RAID_VERDICT_DEGRADED,
                          "thin pool metadata needs thin_check before the next activation");
        }
}

/* snapshot, snapshot-merge: "<allocated>/<total> <metadata>" or "Invalid", "Merge failed",
 * "Overflow", "Unknown" (dm-snap.c snapshot_status()). */
static void judge_snapshot(const char **c, DmJudgement *j) {
        const char *c0 = *c;
        char w[32];

        if (next_ratio(c, &j->data_usage))
                return;
        *c = c0;
        if (!next_tok(c, w, sizeof(w)))
                judge_set(j, RAID_VERDICT_UNKNOWN, "snapshot status empty");
        else if (strcmp(w, "Invalid") == 0) {
                j->invalid = true;
                judge_set(
                        j, RAID_VERDICT_FAILED,
                        "snapshot invalid (its COW store overflowed or failed): its data is lost");
        } else if (strcmp(w, "Merge") == 0) {
                j->merge_failed = true;
                judge_set(j, RAID_VERDICT_FAILED, "snapshot merge into the origin failed");
        } else if (strcmp(w, "Overflow") == 0) {
                j->overflow = true;
                judge_set(j, RAID_VERDICT_DEGRADED, "snapshot COW store full: writes to it fail");
        } else
                judge_set(j, RAID_VERDICT_UNKNOWN, "snapshot status '%s' not understood", w);
}

/* Whether a multipath table's features include queue_if_no_path: "<#features> <features>...". */
static int table_queues(const char *table_params) {
        const char *c = table_params; /* one line: dm_judge() splits the table into lines */
        char w[64];
        uint64_t n;

        if (!next_u64(&c, &n))
                return -1;
        for (uint64_t i = 0; i < n && next_tok(&c, w, sizeof(w)); i++)
                if (strcmp(w, "queue_if_no_path") == 0)
                        return 1;
        return 0;
}

/* multipath: "<#features> <queue_io> <pg_init_count> <#handler args> [args] <#pgs> <next pg>
 * {<pg state> <#ps args> [args] <#paths> <#path selector args> {<dev> A|F <fail count>
 * [args]}...}..." (dm-mpath.c multipath_status(), STATUSTYPE_INFO). */
static void judge_multipath(const char **c, const char *table_params, const Namer *nm,
                            DmJudgement *j) {
        char failed[sizeof(j->reason)] = "", dev[32], st[8], nbuf[64];
        uint64_t nfeat, queue_io = 0, nhw, npg, nps, npaths, nsel;
        int tq;

        if (!next_u64(c, &nfeat) || (nfeat >= 1 && !next_u64(c, &queue_io)) ||
            (nfeat >= 1 && !skip_toks(c, nfeat - 1)) || !next_u64(c, &nhw) || !skip_toks(c, nhw) ||
            !next_u64(c, &npg) || !skip_toks(c, 1))
                goto unknown;
        for (uint64_t g = 0; g < npg; g++) {
                if (!skip_toks(c, 1) || !next_u64(c, &nps) || !skip_toks(c, nps) ||
                    !next_u64(c, &npaths) || !next_u64(c, &nsel))
                        goto unknown;
                for (uint64_t p = 0; p < npaths; p++) {
                        if (!next_tok(c, dev, sizeof(dev)) || !next_tok(c, st, sizeof(st)) ||
                            !skip_toks(c, 1 + nsel))
                                goto unknown;
                        j->paths++;
                        if (strcmp(st, "A") != 0) {
                                j->paths_failed++;
                                list_add(failed, sizeof(failed),
                                         dev_name(nm, dev, nbuf, sizeof(nbuf)));
                        }
                }
        }
        if (j->paths > 0 && j->paths_failed < j->paths) {
                if (j->paths_failed > 0)
                        judge_set(j, RAID_VERDICT_DEGRADED, "%u of %u paths failed: %s",
                                  j->paths_failed, j->paths, failed);
                return;
        }
        tq = table_params ? table_queues(table_params) : -1;
        j->queueing = tq > 0 || (tq < 0 && queue_io > 0);
        judge_set(j, RAID_VERDICT_FAILED, "%s%s%s", j->paths ? "every path failed (" : "no path",
                  failed,
                  j->queueing ? (j->paths ? "): I/O is queued (writers hang)"
                                          : ": I/O is queued (writers hang)")
                              : (j->paths ? "): I/O fails" : ": I/O fails"));
        return;
unknown:
        judge_set(j, RAID_VERDICT_UNKNOWN, "multipath status not understood");
}

/* striped: "<#stripes> <dev>... 1 <A|D per stripe>" (dm-stripe.c stripe_status()). */
static void judge_striped(const char **c, const Namer *nm, DmJudgement *j) {
        char devs[8][32], health[260], bad[sizeof(j->reason)] = "", nbuf[64];
        uint64_t n, nstat;

        if (!next_u64(c, &n) || n == 0 || n > 256)
                goto unknown;
        for (uint64_t i = 0; i < n; i++)
                if (!next_tok(c, i < 8 ? devs[i] : nbuf, 32))
                        goto unknown;
        if (!next_u64(c, &nstat))
                return; /* older kernels print no health */
        if (nstat != 1 || !next_tok(c, health, sizeof(health)) || strlen(health) != n)
                goto unknown;
        for (uint64_t i = 0; i < n; i++)
                if (health[i] == 'D')
                        list_add(bad, sizeof(bad),
                                 i < 8 ? dev_name(nm, devs[i], nbuf, sizeof(nbuf)) : "?");
                else if (health[i] != 'A')
                        goto unknown;
        if (*bad)
                judge_set(j, RAID_VERDICT_FAILED,
                          "I/O errors on the stripe of %s (striped: no redundancy)", bad);
        return;
unknown:
        judge_set(j, RAID_VERDICT_UNKNOWN, "striped status not understood");
}

/* mirror: "<#legs> <dev>... <in sync>/<regions> 1 <A|D|S|R|F|U per leg> <#log args> <log type>
 * [<log dev> <A|D...>]" (dm-raid1.c mirror_status(), dm-log.c). */
static void judge_mirror(const char **c, const Namer *nm, DmJudgement *j) {
        char devs[8][32], health[260], bad[sizeof(j->reason)] = "", nbuf[64], w[32], ld[32];
        uint64_t n, nstat, nlog;
        unsigned n_bad = 0;
        double sync;

        if (!next_u64(c, &n) || n == 0 || n > 8)
                goto unknown;
        for (uint64_t i = 0; i < n; i++)
                if (!next_tok(c, devs[i], sizeof(devs[i])))
                        goto unknown;
        if (!next_ratio(c, &sync) || !next_u64(c, &nstat) || nstat != 1 ||
            !next_tok(c, health, sizeof(health)) || strlen(health) != n)
                goto unknown;
        for (uint64_t i = 0; i < n; i++)
                if (health[i] != 'A') {
                        n_bad++;
                        list_add(bad, sizeof(bad), dev_name(nm, devs[i], nbuf, sizeof(nbuf)));
                }
        if (n_bad == n)
                judge_set(j, RAID_VERDICT_FAILED, "every mirror leg failed (%s)", bad);
        else if (n_bad > 0)
                judge_set(j, RAID_VERDICT_DEGRADED, "mirror leg failed: %s", bad);
        if (next_u64(c, &nlog) && nlog >= 3 && next_tok(c, w, sizeof(w)) &&
            strcmp(w, "disk") == 0 && next_tok(c, ld, sizeof(ld)) && next_tok(c, w, sizeof(w)) &&
            strcmp(w, "A") != 0)
                judge_set(j, RAID_VERDICT_DEGRADED, "mirror log on %s failed",
                          dev_name(nm, ld, nbuf, sizeof(nbuf)));
        return;
unknown:
        judge_set(j, RAID_VERDICT_UNKNOWN, "mirror status not understood");
}

/* cache: "Fail", "Error", or "... <policy args> rw|ro needs_check|-" (dm-cache-target.c
 * cache_status(): the metadata mode and needs_check are the last two words). */
static void judge_cache(const char **c, DmJudgement *j) {
        char w[64], prev[64] = "", last[64] = "";

        while (next_tok(c, w, sizeof(w))) {
                memcpy(prev, last, sizeof(prev));
                memcpy(last, w, sizeof(last));
        }
        if (strcmp(last, "Fail") == 0 || strcmp(last, "Error") == 0 || !*prev) {
                j->failed = true;
                judge_set(j, RAID_VERDICT_FAILED, "cache failed (metadata or device error)");
                return;
        }
        if (strcmp(prev, "ro") == 0) {
                j->read_only = true;
                judge_set(j, RAID_VERDICT_DEGRADED,
                          "cache metadata read-only (metadata error): no promotion or demotion");
        } else if (strcmp(prev, "rw") != 0)
                judge_set(j, RAID_VERDICT_UNKNOWN, "cache status not understood");
        if (strcmp(last, "needs_check") == 0) {
                j->needs_check = true;
                judge_set(j, RAID_VERDICT_DEGRADED,
                          "cache metadata needs cache_check before the next activation");
        }
}

/* writecache: "<error> <#blocks> <#free> <#under writeback> ..." (dm-writecache.c). The
 * documentation calls the first word an "error number"; Linux 6.1 prints 1 (writecache_has_error()
 * is unlikely(wc->error), a truth value) after an I/O error on the cache device, so any non-zero
 * value is an error and its value is no errno. Once set, every write fails with EIO. */
static void judge_writecache(const char **c, DmJudgement *j) {
        char w[32];
        int e;

        if (!next_tok(c, w, sizeof(w)) || sscanf(w, "%d", &e) != 1)
                judge_set(j, RAID_VERDICT_UNKNOWN, "writecache status not understood");
        else {
                j->writecache_error = e;
                if (e != 0)
                        judge_set(j, RAID_VERDICT_FAILED,
                                  "writecache I/O error (status %d): every write fails", e);
        }
}

/* integrity: "<#mismatches> <provided data sectors> <recalculate position|->" (dm-integrity.c). */
static void judge_integrity(const char **c, DmJudgement *j) {
        if (!next_u64(c, &j->mismatches)) {
                j->mismatches = DM_UNSET;
                judge_set(j, RAID_VERDICT_UNKNOWN, "integrity status not understood");
        } else if (j->mismatches > 0)
                judge_set(j, RAID_VERDICT_DEGRADED,
                          "%llu checksum mismatches: reads of those sectors fail",
                          (unsigned long long) j->mismatches);
}

bool dm_judgement_equal(const DmJudgement *a, const DmJudgement *b) {
        return a->verdict == b->verdict && strcmp(a->reason, b->reason) == 0 &&
               a->target == b->target && a->data_usage == b->data_usage &&
               a->metadata_usage == b->metadata_usage && a->queueing == b->queueing &&
               a->paths == b->paths && a->paths_failed == b->paths_failed &&
               a->mismatches == b->mismatches && a->failed == b->failed &&
               a->read_only == b->read_only && a->out_of_data_space == b->out_of_data_space &&
               a->needs_check == b->needs_check && a->invalid == b->invalid &&
               a->merge_failed == b->merge_failed && a->overflow == b->overflow &&
               a->corrupted == b->corrupted && a->writecache_error == b->writecache_error;
}

bool dm_target_is_judged(DmTargetType t) {
        switch (t) {
        case DM_TARGET_STRIPED:
        case DM_TARGET_MIRROR:
        case DM_TARGET_SNAPSHOT:
        case DM_TARGET_SNAPSHOT_MERGE:
        case DM_TARGET_THIN:
        case DM_TARGET_THIN_POOL:
        case DM_TARGET_CACHE:
        case DM_TARGET_WRITECACHE:
        case DM_TARGET_INTEGRITY:
        case DM_TARGET_VERITY:
        case DM_TARGET_MULTIPATH:
                return true;
        case DM_TARGET_LINEAR:
        case DM_TARGET_RAID:
        case DM_TARGET_SNAPSHOT_ORIGIN:
        case DM_TARGET_CRYPT:
        case DM_TARGET_VDO:
        case DM_TARGET_DELAY:
        case DM_TARGET_FLAKEY:
        case DM_TARGET_ERROR:
        case DM_TARGET_ZERO:
        case DM_TARGET_UNKNOWN:
        case _DM_TARGET_TYPE_MAX:
        case _DM_TARGET_TYPE_INVALID:
                break;
        }
        return false;
}

/* Judge one status line; table_params: the same segment's table parameters or NULL. */
static void judge_line(const DmTargetLine *l, const char *table_params, const Namer *nm,
                       DmJudgement *j) {
        const char *c = l->params;
        char w[16];

        switch (l->target_type) {
        case DM_TARGET_THIN_POOL:
                judge_thin_pool(&c, j);
                return;
        case DM_TARGET_THIN:
                if (next_tok(&c, w, sizeof(w)) && strcmp(w, "Fail") == 0) {
                        j->failed = true;
                        judge_set(j, RAID_VERDICT_FAILED, "thin volume failed (its pool failed)");
                }
                return;
        case DM_TARGET_SNAPSHOT:
        case DM_TARGET_SNAPSHOT_MERGE:
                judge_snapshot(&c, j);
                return;
        case DM_TARGET_MULTIPATH:
                judge_multipath(&c, table_params, nm, j);
                return;
        case DM_TARGET_STRIPED:
                judge_striped(&c, nm, j);
                return;
        case DM_TARGET_MIRROR:
                judge_mirror(&c, nm, j);
                return;
        case DM_TARGET_CACHE:
                judge_cache(&c, j);
                return;
        case DM_TARGET_WRITECACHE:
                judge_writecache(&c, j);
                return;
        case DM_TARGET_INTEGRITY:
                judge_integrity(&c, j);
                return;
        case DM_TARGET_VERITY:
                if (next_tok(&c, w, sizeof(w)) && strcmp(w, "C") == 0) {
                        j->corrupted = true;
                        judge_set(j, RAID_VERDICT_FAILED, "verity found corrupted data");
                }
                return;
        case DM_TARGET_LINEAR:
        case DM_TARGET_RAID:
        case DM_TARGET_SNAPSHOT_ORIGIN:
        case DM_TARGET_CRYPT:
        case DM_TARGET_VDO:
        case DM_TARGET_DELAY:
        case DM_TARGET_FLAKEY:
        case DM_TARGET_ERROR:
        case DM_TARGET_ZERO:
        case DM_TARGET_UNKNOWN:
        case _DM_TARGET_TYPE_MAX:
        case _DM_TARGET_TYPE_INVALID:
                break;
        }
}

/* Line k (0-based) of text into buf; false if there is none or it does not fit. */
static bool nth_line(const char *text, unsigned k, char *buf, size_t n) {
        for (const char *p = text; p && *p;) {
                size_t l = strcspn(p, "\n");

                if (strspn(p, " \t") < l) {
                        if (k == 0) {
                                if (l >= n)
                                        return false;
                                memcpy(buf, p, l);
                                buf[l] = 0;
                                return true;
                        }
                        k--;
                }
                p += l + (p[l] == '\n');
        }
        return false;
}

void dm_judge(const char *status, const char *table, DmDeviceNameFunc name_of, void *userdata,
              DmJudgement *ret) {
        DmJudgement j = { .verdict = RAID_VERDICT_OK,
                          .target = _DM_TARGET_TYPE_INVALID,
                          .data_usage = -1.0,
                          .metadata_usage = -1.0,
                          .mismatches = DM_UNSET };
        Namer nm = { name_of, userdata };
        unsigned k;

        for (k = 0;; k++) {
                char sbuf[4096], tbuf[4096];
                DmTargetLine sl, tl;
                const char *tp = NULL;

                if (!status || !nth_line(status, k, sbuf, sizeof(sbuf)))
                        break;
                if (dm_parse_target_line(sbuf, &sl) < 0) {
                        judge_set(&j, RAID_VERDICT_UNKNOWN, "status line not understood");
                        break;
                }
                if (k == 0)
                        j.target = sl.target_type;
                if (table && nth_line(table, k, tbuf, sizeof(tbuf)) &&
                    dm_parse_target_line(tbuf, &tl) >= 0 && tl.target_type == sl.target_type)
                        tp = tl.params;
                judge_line(&sl, tp, &nm, &j);
        }
        if (k == 0)
                j.verdict = RAID_VERDICT_UNKNOWN;
        *ret = j;
}

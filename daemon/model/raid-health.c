/* SPDX-License-Identifier: MIT */
/* The one verdict rule for md arrays, dm-raid targets and linear/striped dm tables (see
 * include/model/raid-health.h for the rule and where in the kernel each part comes from). */

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/string-word.h"
#include "basic/string-table.h"
#include "model/dm.h"
#include "model/md.h"
#include "model/raid-health.h"

static const char *const raid_verdict_table[_RAID_VERDICT_MAX] = {
        [RAID_VERDICT_OK] = "ok",
        [RAID_VERDICT_DEGRADED] = "degraded",
        [RAID_VERDICT_FAILED] = "failed",
        [RAID_VERDICT_CONTAINER] = "container",
        [RAID_VERDICT_ASSEMBLING] = "assembling",
        [RAID_VERDICT_STOPPED] = "stopped",
        [RAID_VERDICT_NOT_ASSEMBLED] = "not-assembled",
        [RAID_VERDICT_UNKNOWN] = "unknown",
};

DEFINE_STRING_TABLE_LOOKUP(raid_verdict, RaidVerdict, raid_verdict_table)

int raid_level_tolerance(RaidLevel level, unsigned n_slots) {
        switch (level) {
        case RAID_LEVEL_LINEAR:
        case RAID_LEVEL_RAID0:
                return 0;
        case RAID_LEVEL_RAID1:
                return n_slots > 0 ? (int) n_slots - 1 : 0;
        case RAID_LEVEL_RAID4:
        case RAID_LEVEL_RAID5:
                return 1;
        case RAID_LEVEL_RAID6:
                return 2;
        case RAID_LEVEL_RAID10:
        case RAID_LEVEL_OTHER:
        case _RAID_LEVEL_MAX:
        case _RAID_LEVEL_INVALID:
                break;
        }
        return -1;
}

/* raid10.c _enough(): walk the stripes; each covers `copies` consecutive slots starting at
 * `first`, and the next starts near_copies further on, until first wraps to 0. */
static bool raid10_survives(const RaidGeometry *g, const bool *lost) {
        unsigned n = g->n_slots, near = g->near_copies ? g->near_copies : 2,
                 far = g->far_copies ? g->far_copies : 1, copies = near * far, first = 0;

        if (copies == 0 || near > n)
                return false;
        do {
                unsigned alive = 0, this = first;
                for (unsigned k = 0; k < copies; k++) {
                        if (!lost[this])
                                alive++;
                        this = (this + 1) % n;
                }
                if (alive == 0)
                        return false;
                first = (first + near) % n;
        } while (first != 0);
        return true;
}

bool raid_data_survives(const RaidGeometry *g, const bool *lost) {
        unsigned n_lost = 0;
        int tol;

        if (!g || !lost || g->n_slots == 0 || g->n_slots > RAID_SLOTS_MAX)
                return false;
        for (unsigned i = 0; i < g->n_slots; i++)
                n_lost += lost[i];
        if (g->level == RAID_LEVEL_RAID10)
                return raid10_survives(g, lost);
        tol = raid_level_tolerance(g->level, g->n_slots);
        if (tol < 0) /* unknown level: only losing everything is known to lose data */
                return n_lost < g->n_slots;
        return n_lost <= (unsigned) tol;
}

int raid10_copies_from_layout(uint64_t layout, unsigned *ret_near, unsigned *ret_far) {
        unsigned near = (unsigned) (layout & 0xff), far = (unsigned) ((layout >> 8) & 0xff);

        if (near == 0 || far == 0)
                return -EINVAL;
        *ret_near = near;
        *ret_far = far;
        return 0;
}

static RaidLevel raid_level_from_md(MdLevel l) {
        switch (l) {
        case MD_LEVEL_LINEAR:
                return RAID_LEVEL_LINEAR;
        case MD_LEVEL_RAID0:
                return RAID_LEVEL_RAID0;
        case MD_LEVEL_RAID1:
                return RAID_LEVEL_RAID1;
        case MD_LEVEL_RAID4:
                return RAID_LEVEL_RAID4;
        case MD_LEVEL_RAID5:
                return RAID_LEVEL_RAID5;
        case MD_LEVEL_RAID6:
                return RAID_LEVEL_RAID6;
        case MD_LEVEL_RAID10:
                return RAID_LEVEL_RAID10;
        case MD_LEVEL_MULTIPATH:
        case MD_LEVEL_FAULTY:
        case MD_LEVEL_CONTAINER:
        case MD_LEVEL_UNKNOWN:
        case _MD_LEVEL_MAX:
        case _MD_LEVEL_INVALID:
                break;
        }
        return RAID_LEVEL_OTHER;
}

RaidLevel raid_level_from_dm_raid_type(const char *t) {
        if (!t)
                return RAID_LEVEL_OTHER;
        if (strncmp(t, "raid0", 5) == 0)
                return RAID_LEVEL_RAID0;
        if (strncmp(t, "raid10", 6) == 0)
                return RAID_LEVEL_RAID10;
        if (strcmp(t, "raid1") == 0)
                return RAID_LEVEL_RAID1;
        if (strncmp(t, "raid4", 5) == 0)
                return RAID_LEVEL_RAID4;
        if (strncmp(t, "raid5", 5) == 0)
                return RAID_LEVEL_RAID5;
        if (strncmp(t, "raid6", 5) == 0)
                return RAID_LEVEL_RAID6;
        return RAID_LEVEL_OTHER;
}

#define HAS(m, s) (((m)->state & MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_##s)) != 0)

static void judge_slots(const RaidGeometry *g, const bool *lost, unsigned n_lost, RaidHealth *h) {
        h->lost = n_lost;
        if (n_lost == 0) {
                h->verdict = RAID_VERDICT_OK;
                h->reason = "";
        } else if (raid_data_survives(g, lost)) {
                h->verdict = RAID_VERDICT_DEGRADED;
                h->reason = "members lost within the level's tolerance";
        } else {
                h->verdict = RAID_VERDICT_FAILED;
                h->reason = g->level == RAID_LEVEL_RAID10
                                    ? "a stripe lost every copy"
                                    : "more members lost than the level tolerates";
        }
}

/* The verdicts an array's state decides alone (stopped, container, assembling, unreadable):
 * true with h set. */
static bool judge_array_state(const MdArray *a, RaidHealth *h) {
        if (a->array_state == MD_ARRAY_STATE_CLEAR) {
                h->verdict = RAID_VERDICT_STOPPED;
                h->reason = "no array behind the node (stopped)";
                return true;
        }
        if (md_array_is_container(a)) {
                h->verdict = RAID_VERDICT_CONTAINER;
                h->reason = "metadata container; its member arrays serve the data";
                return true;
        }
        if (a->array_state == MD_ARRAY_STATE_INACTIVE) {
                h->verdict = a->n_members > 0 ? RAID_VERDICT_ASSEMBLING : RAID_VERDICT_STOPPED;
                h->reason = a->n_members > 0 ? "inactive with members: not started yet"
                                             : "inactive without members (stopped)";
                return true;
        }
        return a->array_state == _MD_ARRAY_STATE_INVALID;
}

static void md_geometry(const MdArray *a, RaidGeometry *g) {
        *g = (RaidGeometry){
                .level = raid_level_from_md(a->level),
                .n_slots = a->raid_disks != MD_UNSET && a->raid_disks <= RAID_SLOTS_MAX
                                   ? (unsigned) a->raid_disks
                                   : 0,
                .near_copies = 2, /* mdadm's default n2 when md/layout is unreadable */
                .far_copies = 1,
        };
        if (g->level == RAID_LEVEL_RAID10 && a->layout != MD_UNSET)
                (void) raid10_copies_from_layout(a->layout, &g->near_copies, &g->far_copies);
}

/* The members into lost[] (a slot with a working member is not lost), h->working, h->replacing
 * and h->replaced. Returns whether every member's state and slot could be read. */
static bool scan_members(const MdArray *a, const RaidGeometry *g, bool *lost, RaidHealth *h) {
        bool states_known = a->n_members > 0;

        for (unsigned i = 0; i < g->n_slots; i++)
                lost[i] = true;
        for (size_t i = 0; i < a->n_members; i++) {
                const MdMember *m = &a->members[i];
                bool working;

                if (!m->state_raw || HAS(m, UNKNOWN))
                        states_known = false;
                /* blocked: md holds writes to it (a write error not yet acknowledged, by mdmon
                 * or the bad-block list); write_error: writes to it failed. Neither carries the
                 * array's data as a working member does. */
                working = HAS(m, IN_SYNC) && !HAS(m, FAULTY) && !HAS(m, JOURNAL) &&
                          !HAS(m, BLOCKED) && !HAS(m, WRITE_ERROR) && !m->device_gone;
                if (HAS(m, WANT_REPLACEMENT) && !HAS(m, FAULTY))
                        h->replacing = true;
                if (HAS(m, REPLACEMENT) && !HAS(m, FAULTY) && !HAS(m, IN_SYNC))
                        h->replacing = true;
                if (working)
                        h->working++;
                if (m->slot >= 0 && (unsigned) m->slot < g->n_slots) {
                        if (working)
                                lost[m->slot] = false;
                } else if (m->slot == MD_SLOT_UNKNOWN)
                        states_known = false;
        }
        /* md marks the old member faulty at the end of a replace (6.1: plain "faulty", slot
         * none; want_replacement is gone by then) while no slot is lost. */
        for (size_t i = 0; i < a->n_members; i++) {
                const MdMember *m = &a->members[i];
                if (md_member_was_replaced(m) && (a->degraded == 0 || a->degraded == MD_UNSET))
                        h->replaced = true;
        }
        return states_known;
}

/* The verdict from the lost slots: counted from the members where their states are known (the
 * kernel's degraded count wins where it is higher), else from md's degraded alone. */
static void judge_lost(const MdArray *a, const RaidGeometry *g, bool *lost, bool states_known,
                       RaidHealth *h) {
        unsigned n_lost = 0;

        if (g->n_slots > 0 && states_known) {
                for (unsigned i = 0; i < g->n_slots; i++)
                        n_lost += lost[i];
                /* the kernel's count wins where it is higher (a member directory gone) */
                if (a->degraded != MD_UNSET && a->degraded > n_lost &&
                    g->level != RAID_LEVEL_RAID10) {
                        unsigned k = (unsigned) MIN(a->degraded, (uint64_t) g->n_slots);
                        for (unsigned i = 0; i < g->n_slots && n_lost < k; i++)
                                if (!lost[i]) {
                                        lost[i] = true;
                                        n_lost++;
                                }
                }
                judge_slots(g, lost, n_lost, h);
        } else if (g->n_slots > 0 && a->degraded != MD_UNSET && g->level != RAID_LEVEL_RAID10) {
                n_lost = (unsigned) MIN(a->degraded, (uint64_t) g->n_slots);
                for (unsigned i = 0; i < g->n_slots; i++)
                        lost[i] = i < n_lost;
                judge_slots(g, lost, n_lost, h);
        } else if (g->n_slots > 0 && g->level == RAID_LEVEL_RAID10 && a->degraded != MD_UNSET) {
                /* slots unknown: a lost pair could be adjacent, so more than one is unsure */
                h->lost = (unsigned) MIN(a->degraded, (uint64_t) g->n_slots);
                h->verdict = h->lost == 0 ? RAID_VERDICT_OK : RAID_VERDICT_DEGRADED;
                h->reason = h->lost == 0 ? "" : "members lost; which ones is unknown";
        } else if (a->array_state == MD_ARRAY_STATE_UNKNOWN) {
                h->verdict = RAID_VERDICT_UNKNOWN;
        } else {
                h->verdict = RAID_VERDICT_OK;
                h->reason = "";
        }
}

void raid_health_from_md(const MdArray *a, RaidHealth *ret) {
        RaidHealth h = { .verdict = RAID_VERDICT_UNKNOWN, .tolerance = -1, .reason = "" };
        bool lost[RAID_SLOTS_MAX], states_known;
        RaidGeometry g;

        if (!a || judge_array_state(a, &h)) {
                *ret = h;
                return;
        }
        h.broken = a->array_state == MD_ARRAY_STATE_BROKEN;
        md_geometry(a, &g);
        h.tolerance = raid_level_tolerance(g.level, g.n_slots);
        states_known = scan_members(a, &g, lost, &h);
        judge_lost(a, &g, lost, states_known, &h);

        if (states_known && a->n_members > 0 && h.working == 0) {
                h.verdict = RAID_VERDICT_FAILED;
                h.reason = "no working member left";
        }
        if (h.broken) {
                h.verdict = RAID_VERDICT_FAILED;
                h.reason = "md reports the array broken (a member is gone)";
        }
        if (h.verdict == RAID_VERDICT_OK && a->array_state == MD_ARRAY_STATE_UNKNOWN)
                h.verdict = RAID_VERDICT_UNKNOWN;
        *ret = h;
}

bool md_member_was_replaced(const MdMember *m) {
        return m && HAS(m, FAULTY) && (HAS(m, WANT_REPLACEMENT) || m->slot == MD_SLOT_NONE);
}

/* raid10 copies from a dm-raid table's parameters ("raid10 <#params> <chunk> [raid10_copies N]
 * [raid10_format near|far|offset] ... <#devs> ...", dm-raid.rst) or, without one, from the
 * status's raid type ("raid10_far", "raid10_offset"; LVM's default is near with 2 copies). far
 * and offset both keep `copies` copies in consecutive slots, as raid10.c _enough() reads them. */
static void dm_raid10_geometry(const char *raid_type, const char *table, RaidGeometry *g) {
        char fmt[16] = "near";
        unsigned copies = 2, nparams = 0;

        if (strstr(raid_type, "far") || strstr(raid_type, "offset"))
                snprintf(fmt, sizeof(fmt), "far");
        if (table && sscanf(table, "%*s %u", &nparams) == 1) {
                const char *p = table;
                for (unsigned k = 0; k < 2 + nparams && p; k++) {
                        char w[32];
                        unsigned u;
                        int n = 0;

                        if (sscanf(p, " %31s%n", w, &n) != 1)
                                break;
                        p += n;
                        if (strcmp(w, "raid10_copies") == 0 && sscanf(p, " %u%n", &u, &n) == 1 &&
                            u > 0) {
                                copies = u;
                                p += n, k++;
                        } else if (strcmp(w, "raid10_format") == 0 &&
                                   sscanf(p, " %15s%n", fmt, &n) == 1)
                                p += n, k++;
                }
        }
        g->near_copies = strcmp(fmt, "near") == 0 ? copies : 1;
        g->far_copies = strcmp(fmt, "near") == 0 ? 1 : copies;
}

void raid_health_from_dm_raid_table(const DmRaidStatus *s, const char *table, RaidHealth *ret) {
        RaidHealth h = { .verdict = RAID_VERDICT_UNKNOWN, .tolerance = -1, .reason = "" };
        bool lost[RAID_SLOTS_MAX];
        RaidGeometry g = {};
        unsigned n_lost = 0;

        if (!s || s->n_devices == 0 || s->n_devices > RAID_SLOTS_MAX) {
                *ret = h;
                return;
        }
        g.level = raid_level_from_dm_raid_type(s->raid_type);
        g.n_slots = s->n_devices;
        g.near_copies = 2;
        g.far_copies = 1;
        if (g.level == RAID_LEVEL_RAID10)
                dm_raid10_geometry(s->raid_type, table, &g);
        h.tolerance = raid_level_tolerance(g.level, g.n_slots);
        for (unsigned i = 0; i < g.n_slots; i++) {
                DmRaidHealth lh = dm_raid_health_from_char(s->health[i]);
                /* 'a' during a resync of a fresh array is a leg being written, not lost; during
                 * a recover it is a leg being rebuilt, which md counts as missing (degraded) */
                lost[i] = lh == DM_RAID_HEALTH_DEAD || lh == DM_RAID_HEALTH_ABSENT ||
                          (lh == DM_RAID_HEALTH_ALIVE_NOT_IN_SYNC &&
                           s->sync_action == DM_RAID_SYNC_ACTION_RECOVER);
                if (lh == DM_RAID_HEALTH_ALIVE_IN_SYNC)
                        h.working++;
                n_lost += lost[i];
        }
        judge_slots(&g, lost, n_lost, &h);
        if (n_lost == g.n_slots) {
                h.verdict = RAID_VERDICT_FAILED;
                h.reason = "no working leg left";
        }
        /* a dead raid4/5/6 journal: the write hole is open again, and md stops writes to it */
        if (s->journal == 'D' && h.verdict == RAID_VERDICT_OK) {
                h.verdict = RAID_VERDICT_DEGRADED;
                h.reason = "the raid journal device is dead";
        }
        *ret = h;
}

void raid_health_from_dm_raid(const DmRaidStatus *s, RaidHealth *ret) {
        raid_health_from_dm_raid_table(s, NULL, ret);
}

/* "MAJ:MIN" at p (n chars). */
static bool parse_devnum(const char *p, size_t n, unsigned *maj, unsigned *min) {
        char buf[32];
        int end = 0;

        if (n == 0 || n >= sizeof(buf))
                return false;
        memcpy(buf, p, n);
        buf[n] = 0;
        return sscanf(buf, "%u:%u%n", maj, min, &end) == 2 && (size_t) end == n;
}

static void set_missing(char *buf, size_t n, const char *s, size_t len) {
        if (buf && n > 0)
                (void) snprintf(buf, n, "%.*s", (int) MIN(len, (size_t) 64), s);
}

RaidVerdict dm_table_verdict(const char *table,
                             bool (*device_exists)(unsigned major, unsigned minor, void *ud),
                             void *userdata, char *ret_missing, size_t n_missing) {
        const char *line = table;
        unsigned n_lines = 0;

        if (!table)
                return RAID_VERDICT_UNKNOWN;
        if (ret_missing && n_missing > 0)
                ret_missing[0] = 0;
        while (line && *line) {
                char buf[4096];
                const char *nl = strchr(line, '\n');
                size_t len = nl ? (size_t) (nl - line) : strlen(line);
                DmTargetLine tl;

                if (len >= sizeof(buf))
                        return RAID_VERDICT_UNKNOWN;
                memcpy(buf, line, len);
                buf[len] = 0;
                line = nl ? nl + 1 : NULL;
                if (strspn(buf, " \t") == len)
                        continue;
                if (dm_parse_target_line(buf, &tl) < 0)
                        return RAID_VERDICT_UNKNOWN;
                n_lines++;
                if (tl.target_type == DM_TARGET_ERROR) {
                        set_missing(ret_missing, n_missing, "error", 5);
                        return RAID_VERDICT_FAILED;
                }
                if (tl.target_type == DM_TARGET_LINEAR || tl.target_type == DM_TARGET_STRIPED) {
                        unsigned first = 0, step = 2, count = 1, maj, min;
                        size_t n;
                        const char *t;

                        if (tl.target_type == DM_TARGET_STRIPED) {
                                t = string_word_at(tl.params, 0, &n);
                                if (!t || sscanf(t, "%u", &count) != 1 || count == 0)
                                        return RAID_VERDICT_UNKNOWN;
                                first = 2;
                        }
                        for (unsigned k = 0; k < count; k++) {
                                t = string_word_at(tl.params, first + k * step, &n);
                                if (!t)
                                        return RAID_VERDICT_UNKNOWN;
                                if (!parse_devnum(t, n, &maj, &min))
                                        continue; /* a path: not the kernel's own output */
                                if (device_exists && !device_exists(maj, min, userdata)) {
                                        set_missing(ret_missing, n_missing, t, n);
                                        return RAID_VERDICT_FAILED;
                                }
                        }
                }
        }
        return n_lines > 0 ? RAID_VERDICT_OK : RAID_VERDICT_UNKNOWN;
}

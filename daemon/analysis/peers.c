/* SPDX-License-Identifier: MIT */
/* Peer comparison of array members: HDFS's outlier rule per source over the group, the own
 * baseline for groups too small to have a majority, and per-member hysteresis plus a 32-run
 * history for flapping. The whole group is updated on a copy and committed at the end, so an
 * error leaves it as it was. */

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/peers.h"
#include "basic/string-table.h"

static const char *const peer_source_table[_PEER_SOURCE_MAX] = {
        [PEER_SOURCE_PROBE] = "probe",
        [PEER_SOURCE_AWAIT] = "await",
        [PEER_SOURCE_WRITE_AWAIT] = "write-await",
};
DEFINE_STRING_TABLE_LOOKUP(peer_source, PeerSource, peer_source_table);

static const char *const peer_event_type_table[_PEER_EVENT_TYPE_MAX] = {
        [PEER_EVENT_SLOW] = "slow",
        [PEER_EVENT_NORMAL] = "normal",
        [PEER_EVENT_FLAPPING] = "flapping",
};
DEFINE_STRING_TABLE_LOOKUP(peer_event_type, PeerEventType, peer_event_type_table);

int peer_config_validate(const PeerConfig *c) {
        if (!c)
                return -EINVAL;
        for (PeerSource s = 0; s < _PEER_SOURCE_MAX; s++)
                if (!(c->floor_ms[s] >= 0) || !isfinite(c->floor_ms[s]))
                        return -EINVAL;
        if (!(c->factor >= 1) || !isfinite(c->factor) || !(c->mad_k >= 0) || !isfinite(c->mad_k))
                return -EINVAL;
        if (c->k_slow == 0 || c->m_normal == 0 || c->k_slow > 32 || c->m_normal > 1000)
                return -EINVAL;
        if (c->flap_edges < 2 || c->flap_edges > 16)
                return -EINVAL;
        return 0;
}

void peer_sample_init(PeerSample *s, const char *name) {
        *s = (PeerSample){ .name = name };
        for (PeerSource k = 0; k < _PEER_SOURCE_MAX; k++) {
                s->value_ms[k] = NAN;
                s->own[k] = (BaselineStat){ .median = NAN, .mad = NAN };
        }
}

void peer_group_init(PeerGroup *g) {
        memset(g, 0, sizeof(*g));
}

const PeerMemberState *peer_group_find(const PeerGroup *g, const char *name) {
        if (!g || !name)
                return NULL;
        for (size_t i = 0; i < g->n; i++)
                if (strncmp(g->m[i].name, name, sizeof(g->m[i].name) - 1) == 0)
                        return &g->m[i];
        return NULL;
}

const char *peer_group_suspect(const PeerGroup *g) {
        for (size_t i = 0; g && i < g->n; i++)
                if (g->m[i].suspect)
                        return g->m[i].name;
        return NULL;
}

const char *peer_group_slowing(const PeerGroup *g) {
        const PeerMemberState *best = NULL;

        for (size_t i = 0; g && i < g->n; i++)
                if (g->m[i].slow_streak[PEER_SOURCE_PROBE] > 0 &&
                    (!best ||
                     g->m[i].slow_streak[PEER_SOURCE_PROBE] > best->slow_streak[PEER_SOURCE_PROBE]))
                        best = &g->m[i];
        return best ? best->name : NULL;
}

double peers_limit(const double *values, size_t n, double floor_ms, double factor, double mad_k,
                   double *ret_median, double *ret_mad) {
        double v[PEERS_MAX], med, mad;
        size_t k = 0;

        for (size_t i = 0; i < n && k < ELEMENTSOF(v); i++)
                if (isfinite(values[i]))
                        v[k++] = values[i];
        if (k == 0) {
                if (ret_median)
                        *ret_median = NAN;
                if (ret_mad)
                        *ret_mad = NAN;
                return NAN;
        }
        baseline_median_mad(v, k, &med, &mad);
        if (ret_median)
                *ret_median = med;
        if (ret_mad)
                *ret_mad = mad;
        return MAX(floor_ms, MAX(factor * med, med + mad_k * mad));
}

static bool sample_valid(const PeerConfig *c, const PeerSample *s, PeerSource k) {
        double v = s->value_ms[k];

        if (!isfinite(v) || v < 0)
                return false;
        if (k == PEER_SOURCE_AWAIT)
                return s->await_ios >= c->min_await_ios;
        if (k == PEER_SOURCE_WRITE_AWAIT)
                return s->write_await_ios >= c->min_await_ios;
        return true;
}

static unsigned count_stretches(uint32_t history, unsigned judged) {
        unsigned n = 0;

        /* Bit i is run i back; a stretch starts where a slow run follows a normal one (or the
         * beginning of the history). */
        for (unsigned i = 0; i < judged; i++) {
                bool cur = history & (UINT32_C(1) << i);
                bool older = i + 1 < judged && (history & (UINT32_C(1) << (i + 1)));

                if (cur && !older)
                        n++;
        }
        return n;
}

static PeerMemberState *group_get(PeerGroup *g, const char *name) {
        PeerMemberState *m = (PeerMemberState *) peer_group_find(g, name);
        size_t len;

        if (m)
                return m;
        if (g->n >= PEERS_MAX)
                return NULL;
        m = &g->m[g->n++];
        memset(m, 0, sizeof(*m));
        len = strnlen(name, sizeof(m->name) - 1);
        memcpy(m->name, name, len);
        m->name[len] = 0;
        return m;
}

static int emit(PeerEvent *ev, size_t n_events, size_t *k, PeerEventType t,
                const PeerMemberState *m, unsigned runs) {
        if (*k >= n_events)
                return -ENOBUFS;
        ev[*k] = (PeerEvent){
                .type = t,
                .source = m->source,
                .value_ms = m->value_ms,
                .limit_ms = m->limit_ms,
                .reference_ms = m->reference_ms,
                .by_own_baseline = m->by_own_baseline,
                .runs = runs,
                .episodes = m->episodes,
        };
        memcpy(ev[*k].member, m->name, sizeof(m->name));
        (*k)++;
        return 0;
}

/* One member's sample against the group's limits (with three or more peers of a source) or its
 * own baseline: per source 1 slow, 0 normal, -1 not judged into verdict[]; returns 1 if a source
 * found it slow, 0 if one judged it normal, -1 if none was usable. m keeps the figures of the
 * source that found it slow, else of the last source judged. */
static int judge_member(const PeerConfig *c, const PeerSample *p, const unsigned *n_src,
                        const double *limit, const double *median, PeerMemberState *m,
                        int *verdict) {
        bool slow = false, judged = false;

        for (PeerSource s = 0; s < _PEER_SOURCE_MAX; s++) {
                double v = p->value_ms[s], lim, ref;
                bool own;

                verdict[s] = -1;
                if (!sample_valid(c, p, s))
                        continue;
                if (n_src[s] >= 3) {
                        lim = limit[s];
                        ref = median[s];
                        own = false;
                } else if (p->own[s].ready && isfinite(p->own[s].median)) {
                        ref = p->own[s].median;
                        lim = MAX(c->floor_ms[s],
                                  MAX(c->factor * ref, ref + c->mad_k * p->own[s].mad));
                        own = true;
                } else
                        continue;
                judged = true;
                verdict[s] = v > lim;
                if (slow)
                        continue; /* keep the figures of the source that found it */
                m->source = s;
                m->value_ms = v;
                m->limit_ms = lim;
                m->reference_ms = ref;
                m->by_own_baseline = own;
                slow = v > lim;
        }
        return judged ? slow : -1;
}

/* A judged run (verdict[] per source, see judge_member()) into m's history and per-source
 * streaks, and the events its state changes give. */
static int member_step(const PeerConfig *c, PeerMemberState *m, const int *verdict, PeerEvent *ev,
                       size_t n_events, size_t *k) {
        PeerSource hit = _PEER_SOURCE_INVALID;
        bool any_slow_streak = false, any_slow_now = false;
        int r;

        for (PeerSource s = 0; s < _PEER_SOURCE_MAX; s++) {
                if (verdict[s] > 0) {
                        any_slow_now = true;
                        m->slow_streak[s]++;
                        m->normal_streak[s] = 0;
                        if (m->slow_streak[s] >= c->k_slow && hit < 0)
                                hit = s;
                } else if (verdict[s] == 0) {
                        m->normal_streak[s]++;
                        m->slow_streak[s] = 0;
                }
                any_slow_streak = any_slow_streak || m->slow_streak[s] > 0;
        }
        /* A run counts slow in the history while some source is in a slow streak: a normal tick
         * of one source between slow runs of another is no edge of a new stretch. */
        m->history = (m->history << 1) | (any_slow_streak ? 1 : 0);
        m->judged = MIN(m->judged + 1, 32U);
        if (!m->suspect && hit >= 0) {
                m->suspect = true;
                m->raised_by = hit;
                m->clean_runs = 0;
                m->episodes++;
                r = emit(ev, n_events, k, PEER_EVENT_SLOW, m, m->slow_streak[hit]);
                if (r < 0)
                        return r;
        } else if (m->suspect) {
                /* Recovery has its own rule: m_normal runs of the probe (it reads now) or of the
                 * raising source judged normal, with no source slow since. A source that stopped
                 * reading (an await with no foreground) holds no verdict with a stale streak. */
                if (any_slow_now)
                        m->clean_runs = 0;
                else if (verdict[PEER_SOURCE_PROBE] == 0 || verdict[m->raised_by] == 0)
                        m->clean_runs++;
                if (m->clean_runs >= c->m_normal) {
                        m->suspect = false;
                        r = emit(ev, n_events, k, PEER_EVENT_NORMAL, m, m->clean_runs);
                        if (r < 0)
                                return r;
                }
        }
        if (count_stretches(m->history, m->judged) < c->flap_edges) {
                m->flapping = false;
                return 0;
        }
        if (!m->flapping) {
                m->flapping = true;
                r = emit(ev, n_events, k, PEER_EVENT_FLAPPING, m,
                         count_stretches(m->history, m->judged));
                if (r < 0)
                        return r;
        }
        return 0;
}

int peers_feed(PeerGroup *g, const PeerConfig *c, const PeerSample *samples, size_t n,
               PeerEvent *ret_events, size_t n_events) {
        double limit[_PEER_SOURCE_MAX], median[_PEER_SOURCE_MAX];
        unsigned n_src[_PEER_SOURCE_MAX] = {};
        PeerGroup w;
        size_t k = 0;
        int r;

        if (!g || !c || (n > 0 && !samples) || (n_events > 0 && !ret_events))
                return -EINVAL;
        if (n > PEERS_MAX)
                return -E2BIG;

        for (PeerSource s = 0; s < _PEER_SOURCE_MAX; s++) {
                double v[PEERS_MAX];

                for (size_t i = 0; i < n; i++)
                        v[i] = sample_valid(c, &samples[i], s) ? samples[i].value_ms[s] : NAN;
                for (size_t i = 0; i < n; i++)
                        n_src[s] += isfinite(v[i]);
                limit[s] = peers_limit(v, n, c->floor_ms[s], c->factor, c->mad_k, &median[s], NULL);
        }

        w = *g; /* on a full event buffer the group stays as it was */
        for (size_t i = 0; i < n; i++) {
                const PeerSample *p = &samples[i];
                int verdict[_PEER_SOURCE_MAX];
                PeerMemberState *m;

                if (!p->name || !*p->name)
                        continue;
                m = group_get(&w, p->name);
                if (!m)
                        continue;
                if (judge_member(c, p, n_src, limit, median, m, verdict) < 0)
                        continue; /* no source usable */
                r = member_step(c, m, verdict, ret_events, n_events, &k);
                if (r < 0)
                        return r;
        }
        *g = w;
        return (int) k;
}

char *peer_event_format(const PeerEvent *e, char *buf, size_t size) {
        const char *src = e->source == PEER_SOURCE_AWAIT         ? "read await"
                          : e->source == PEER_SOURCE_WRITE_AWAIT ? "write await"
                                                                 : "probe latency";
        const char *ref = e->by_own_baseline ? "its own baseline" : "peers' median";

        switch (e->type) {
        case PEER_EVENT_SLOW:
                snprintf(buf, size,
                         "member %s slow: %s %.2f ms, %.1fx %s %.2f ms (limit %.2f ms) for %u runs",
                         e->member, src, e->value_ms,
                         e->reference_ms > 0 ? e->value_ms / e->reference_ms : 0.0, ref,
                         e->reference_ms, e->limit_ms, e->runs);
                break;
        case PEER_EVENT_NORMAL:
                snprintf(buf, size, "member %s normal again: %s %.2f ms, %s %.2f ms for %u runs",
                         e->member, src, e->value_ms, ref, e->reference_ms, e->runs);
                break;
        case PEER_EVENT_FLAPPING:
                snprintf(buf, size,
                         "member %s flapping: %u slow stretches in its last 32 runs (%" PRIu64
                         " suspect episodes)",
                         e->member, e->runs, e->episodes);
                break;
        case _PEER_EVENT_TYPE_MAX:
        case _PEER_EVENT_TYPE_INVALID:
                snprintf(buf, size, "member %s", e->member);
                break;
        }
        return buf;
}

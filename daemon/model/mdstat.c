/* SPDX-License-Identifier: MIT */
/* /proc/mdstat parser.
 *
 * The file is a human-readable report (md.c md_seq_show(), the personalities' ->status() and
 * status_resync()), not an interface with a grammar, so the parser is line-oriented and lenient:
 * an array starts at a line "<name> : active|inactive ...", and the indented lines that follow
 * belong to it and are recognised by content (the "N blocks" status line, a progress line, a
 * "bitmap:" line). Unknown lines are skipped. A malformed header skips that array; a malformed
 * member token skips that member; a number beyond 64 bits leaves its field MD_UNSET. The only
 * failures are -ENOMEM and a NULL input.
 *
 * Units: mdstat prints sizes in KiB ("blocks" are 1 KiB; the progress "(done/total)" is
 * sectors/2), times in minutes with one decimal, speed in KiB/s ("K/sec"). */

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "basic/string-word.h"
#include "basic/string-table.h"
#include "model/mdstat.h"
#include "basic/parse-util.h"

static const char *const mdstat_member_flag_table[_MDSTAT_MEMBER_FLAG_MAX] = {
        [MDSTAT_MEMBER_WRITE_MOSTLY] = "W", [MDSTAT_MEMBER_JOURNAL] = "J",
        [MDSTAT_MEMBER_FAULTY] = "F",       [MDSTAT_MEMBER_SPARE] = "S",
        [MDSTAT_MEMBER_REPLACEMENT] = "R",  [MDSTAT_MEMBER_UNKNOWN] = "?",
};

static const char *const mdstat_progress_kind_table[_MDSTAT_PROGRESS_KIND_MAX] = {
        [MDSTAT_PROGRESS_NONE] = "none",       [MDSTAT_PROGRESS_RUNNING] = "running",
        [MDSTAT_PROGRESS_DELAYED] = "delayed", [MDSTAT_PROGRESS_PENDING] = "pending",
        [MDSTAT_PROGRESS_OTHER] = "other",
};

DEFINE_STRING_TABLE_LOOKUP(mdstat_member_flag, MdstatMemberFlag, mdstat_member_flag_table)

DEFINE_STRING_TABLE_LOOKUP(mdstat_progress_kind, MdstatProgressKind, mdstat_progress_kind_table)

static const char *skip_space(const char *p) {
        while (*p == ' ' || *p == '\t')
                p++;
        return p;
}

/* Leading decimal number at *p. Returns 0 (value in *ret, or MD_UNSET if it does not fit in 64
 * bits), -EINVAL if *p is not a digit. Advances *p past the digits. */
static int scan_u64(const char **p, uint64_t *ret) {
        const char *s = *p;
        uint64_t v = 0;
        bool overflow = false;

        if (!isdigit((unsigned char) *s))
                return -EINVAL;
        for (; isdigit((unsigned char) *s); s++) {
                unsigned d = (unsigned) (*s - '0');
                if (v > (UINT64_MAX - d) / 10)
                        overflow = true;
                else
                        v = v * 10 + d;
        }
        *p = s;
        *ret = overflow ? MD_UNSET : v;
        return 0;
}

static bool skip_prefix(const char **p, const char *prefix) {
        size_t l = strlen(prefix);

        if (strncmp(*p, prefix, l) != 0)
                return false;
        *p += l;
        return true;
}

static MdSyncAction mdstat_action_from_word(const char *w, size_t l) {
        static const struct {
                const char *word;
                MdSyncAction action;
        } map[] = {
                { "resync", MD_SYNC_ACTION_RESYNC },   { "recovery", MD_SYNC_ACTION_RECOVER },
                { "check", MD_SYNC_ACTION_CHECK },     { "repair", MD_SYNC_ACTION_REPAIR },
                { "reshape", MD_SYNC_ACTION_RESHAPE },
        };
        for (size_t i = 0; i < ELEMENTSOF(map); i++)
                if (strlen(map[i].word) == l && strncmp(map[i].word, w, l) == 0)
                        return map[i].action;
        return MD_SYNC_ACTION_UNKNOWN;
}

/* After a number: ".D..." gives D (tenths; further digits are dropped), no fraction 0, a dot
 * without a digit -EINVAL (with *p past the dot). */
static int scan_tenths(const char **p) {
        int t;

        if (**p != '.')
                return 0;
        (*p)++;
        if (!isdigit((unsigned char) **p))
                return -EINVAL;
        t = **p - '0';
        while (isdigit((unsigned char) **p))
                (*p)++;
        return t;
}

/* The optional progress bar "[==>....]" and the blanks after it. */
static int skip_bar(const char **p) {
        const char *q = *p;

        if (*q != '[')
                return 0;
        for (q++; *q == '=' || *q == '>' || *q == '.'; q++)
                ;
        if (*q != ']')
                return -EINVAL;
        *p = skip_space(q + 1);
        return 0;
}

/* "resync=DELAYED", "resync=PENDING", or another word=WORD: v is the value after "=", the rest of
 * the line must be blank. */
static int parse_state_word(const char *word, size_t wl, const char *v, MdstatProgress *pr) {
        const char *p = v;
        char *raw;

        while (*p && !isspace((unsigned char) *p))
                p++;
        if (p == v)
                return -EINVAL;
        for (const char *q = p; *q; q++)
                if (!isspace((unsigned char) *q))
                        return -EINVAL;
        if ((size_t) (p - v) == 7 && strncmp(v, "DELAYED", 7) == 0)
                pr->kind = MDSTAT_PROGRESS_DELAYED;
        else if ((size_t) (p - v) == 7 && strncmp(v, "PENDING", 7) == 0)
                pr->kind = MDSTAT_PROGRESS_PENDING;
        else
                pr->kind = MDSTAT_PROGRESS_OTHER;
        raw = strndup(word, (size_t) (p - word));
        if (!raw)
                return -ENOMEM;
        pr->action = mdstat_action_from_word(word, wl);
        pr->raw = raw;
        pr->done_kib = pr->total_kib = MD_UNSET;
        return 0;
}

/* "8.6%" as 86 permille, at most 100%. */
static int parse_percent(const char **p, unsigned *ret_permille) {
        uint64_t a;
        int b;

        if (scan_u64(p, &a) < 0)
                return -EINVAL;
        b = scan_tenths(p);
        if (b < 0 || **p != '%')
                return -EINVAL;
        (*p)++;
        if (a > 100 || (a == 100 && b > 0))
                return -EINVAL;
        *ret_permille = (unsigned) (a * 10 + (unsigned) b);
        return 0;
}

/* The optional "(done/total)" in KiB. */
static int parse_done_total(const char **p, MdstatProgress *pr) {
        *p = skip_space(*p);
        if (**p != '(')
                return 0;
        (*p)++;
        if (scan_u64(p, &pr->done_kib) < 0 || **p != '/')
                return -EINVAL;
        (*p)++;
        if (scan_u64(p, &pr->total_kib) < 0 || **p != ')')
                return -EINVAL;
        (*p)++;
        return 0;
}

/* "finish=1.5min" and "speed=1234K/sec"; other key=value tokens and malformed values are
 * skipped. */
static void parse_tokens(const char *p, MdstatProgress *pr) {
        const char *w;
        size_t n;

        /* any whitespace separates: a stray \r stalls nothing */
        while (string_next_word(&p, &w, &n)) {
                const char *q = w;

                if (skip_prefix(&q, "finish=")) {
                        uint64_t m;

                        if (scan_u64(&q, &m) == 0) {
                                int t = scan_tenths(&q); /* "5.min": 5 minutes */

                                if (skip_prefix(&q, "min") && m != MD_UNSET &&
                                    m <= (UINT64_MAX - 60) / 60)
                                        pr->finish_sec = m * 60 + (uint64_t) MAX(t, 0) * 6;
                        }
                } else if (skip_prefix(&q, "speed=")) {
                        uint64_t s;

                        if (scan_u64(&q, &s) == 0 && skip_prefix(&q, "K/sec"))
                                pr->speed_kib_per_sec = s;
                }
        }
}

int mdstat_parse_progress(const char *line, MdstatProgress *ret) {
        MdstatProgress pr = {
                .kind = MDSTAT_PROGRESS_RUNNING,
                .done_kib = MD_UNSET,
                .total_kib = MD_UNSET,
                .finish_sec = MD_UNSET,
                .speed_kib_per_sec = MD_UNSET,
        };
        const char *p, *word;
        size_t wl;
        int r;

        if (!line)
                return -EINVAL;
        p = skip_space(line);
        if (skip_bar(&p) < 0)
                return -EINVAL;

        /* "recovery =" */
        word = p;
        while (isalpha((unsigned char) *p) || *p == '_')
                p++;
        wl = (size_t) (p - word);
        if (wl == 0)
                return -EINVAL;
        p = skip_space(p);
        if (*p != '=')
                return -EINVAL;
        p = skip_space(p + 1);

        if (!isdigit((unsigned char) *p)) {
                r = parse_state_word(word, wl, p, &pr);
                if (r < 0)
                        return r;
                *ret = pr;
                return 0;
        }

        pr.action = mdstat_action_from_word(word, wl);
        if (parse_percent(&p, &pr.permille) < 0 || parse_done_total(&p, &pr) < 0)
                return -EINVAL;
        parse_tokens(p, &pr);
        *ret = pr;
        return 0;
}

double mdstat_progress_ratio(const MdstatProgress *p) {
        double v;

        if (!p || p->kind != MDSTAT_PROGRESS_RUNNING)
                return -1.0;
        if (p->done_kib == MD_UNSET || p->total_kib == MD_UNSET || p->total_kib == 0)
                return (double) p->permille / 1000.0;
        v = (double) p->done_kib / (double) p->total_kib;
        return CLAMP(v, 0.0, 1.0);
}

static void mdstat_array_done(MdstatArray *a) {
        for (size_t i = 0; i < a->n_members; i++)
                free(a->members[i].name);
        free(a->members);
        free(a->name);
        free(a->personality);
        free(a->super);
        free(a->health);
        free(a->progress.raw);
}

Mdstat *mdstat_free(Mdstat *m) {
        if (!m)
                return NULL;
        for (size_t i = 0; i < m->n_arrays; i++)
                mdstat_array_done(&m->arrays[i]);
        free(m->arrays);
        if (m->personalities)
                for (char **p = m->personalities; *p; p++)
                        free(*p);
        free(m->personalities);
        free(m);
        return NULL;
}

const MdstatArray *mdstat_find(const Mdstat *m, const char *name) {
        if (!m || !name)
                return NULL;
        for (size_t i = 0; i < m->n_arrays; i++)
                if (strcmp(m->arrays[i].name, name) == 0)
                        return &m->arrays[i];
        return NULL;
}

/* "vdb[1](F)(S)": returns 0 and fills *ret, -EINVAL if malformed, -ENOMEM. */
static int parse_member(const char *tok, size_t len, MdstatMember *ret) {
        const char *br = memchr(tok, '[', len), *p, *end = tok + len;
        uint64_t nr;
        unsigned flags = 0;
        char *name;

        if (!br || br == tok)
                return -EINVAL;
        p = br + 1;
        if (scan_u64(&p, &nr) < 0 || p >= end || *p != ']' || nr > UINT32_MAX)
                return -EINVAL;
        p++;
        while (p < end) {
                const char *close;
                char f[8];
                MdstatMemberFlag fl;

                if (*p != '(')
                        return -EINVAL;
                close = memchr(p, ')', (size_t) (end - p));
                if (!close || close == p + 1 || (size_t) (close - p - 1) >= sizeof(f))
                        return -EINVAL;
                memcpy(f, p + 1, (size_t) (close - p - 1));
                f[close - p - 1] = 0;
                fl = mdstat_member_flag_from_string(f);
                if (fl < 0)
                        fl = MDSTAT_MEMBER_UNKNOWN;
                flags |= MDSTAT_MEMBER_FLAG(fl);
                p = close + 1;
        }
        name = strndup(tok, (size_t) (br - tok));
        if (!name)
                return -ENOMEM;
        *ret = (MdstatMember){ .name = name, .desc_nr = (unsigned) nr, .flags = flags };
        return 0;
}

/* Header "md0 : active (auto-read-only) raid1 vdb[1] vda[0]". 1 = parsed, 0 = not an array line
 * or malformed (skip the array), -ENOMEM. */
static int parse_header(const char *line, MdstatArray *a) {
        const char *p = line, *tok, *colon;
        size_t len;
        int r;

        colon = strstr(line, " : ");
        if (!colon || colon == line)
                return 0;
        for (const char *q = line; q < colon; q++)
                if (isspace((unsigned char) *q))
                        return 0;
        a->name = strndup(line, (size_t) (colon - line));
        if (!a->name)
                return -ENOMEM;
        p = colon + 3;

        if (!string_next_word(&p, &tok, &len))
                return 0;
        if (string_word_is(tok, len, "active"))
                a->active = true;
        else if (!string_word_is(tok, len, "inactive"))
                return 0;

        while (string_next_word(&p, &tok, &len)) {
                if (string_word_is(tok, len, "(read-only)")) {
                        a->read_only = true;
                        continue;
                }
                if (string_word_is(tok, len, "(auto-read-only)")) {
                        a->auto_read_only = true;
                        continue;
                }
                if (!a->personality && a->n_members == 0 && a->active && !memchr(tok, '[', len)) {
                        a->personality = strndup(tok, len);
                        if (!a->personality)
                                return -ENOMEM;
                        continue;
                }
                {
                        MdstatMember m, *n;

                        r = parse_member(tok, len, &m);
                        if (r == -ENOMEM)
                                return r;
                        if (r < 0)
                                continue;
                        n = reallocarray(a->members, a->n_members + 1, sizeof(MdstatMember));
                        if (!n) {
                                free(m.name);
                                return -ENOMEM;
                        }
                        a->members = n;
                        a->members[a->n_members++] = m;
                }
        }
        return 1;
}

/* "261120 blocks super 1.2 level 5, 64k chunk, algorithm 2 [3/2] [UU_]". 1 = parsed, 0 = not a
 * status line, -ENOMEM. */
static int parse_status(const char *line, MdstatArray *a) {
        const char *p = skip_space(line), *tok;
        size_t len;
        uint64_t blocks;

        if (scan_u64(&p, &blocks) < 0)
                return 0;
        if (!string_next_word(&p, &tok, &len) || !string_word_is(tok, len, "blocks"))
                return 0;
        a->blocks_kib = blocks;

        while (string_next_word(&p, &tok, &len)) {
                if (string_word_is(tok, len, "super")) {
                        if (!string_next_word(&p, &tok, &len))
                                break;
                        free(a->super);
                        a->super = strndup(tok, len);
                        if (!a->super)
                                return -ENOMEM;
                        continue;
                }
                if (tok[0] == '[' && tok[len - 1] == ']' && len > 2 && memchr(tok, '/', len)) {
                        const char *q = tok + 1;
                        uint64_t n, m;

                        if (scan_u64(&q, &n) < 0 || *q != '/')
                                continue;
                        q++;
                        if (scan_u64(&q, &m) < 0 || q != tok + len - 1)
                                continue;
                        a->disks_total = n;
                        a->disks_up = m;
                        continue;
                }
                if (tok[0] == '[' && tok[len - 1] == ']' && len > 2 && !a->health) {
                        bool ok = true;

                        for (size_t i = 1; i < len - 1; i++)
                                if (!isalpha((unsigned char) tok[i]) && tok[i] != '_')
                                        ok = false;
                        if (!ok)
                                continue;
                        a->health = strndup(tok + 1, len - 2);
                        if (!a->health)
                                return -ENOMEM;
                }
        }
        return 1;
}

/* "bitmap: 3/4 pages [12KB], 65536KB chunk[, file: /path]". Returns 1 if parsed, else 0. */
static int parse_bitmap(const char *line, MdstatArray *a) {
        const char *p = skip_space(line);
        uint64_t used, total, chunk = MD_UNSET;

        if (!skip_prefix(&p, "bitmap:"))
                return 0;
        p = skip_space(p);
        if (scan_u64(&p, &used) < 0 || *p != '/')
                return 0;
        p++;
        if (scan_u64(&p, &total) < 0)
                return 0;
        p = skip_space(p);
        if (!skip_prefix(&p, "pages"))
                return 0;
        p = strchr(p, ',');
        if (p) {
                p = skip_space(p + 1);
                if (scan_u64(&p, &chunk) < 0 || !skip_prefix(&p, "KB chunk"))
                        chunk = MD_UNSET;
        }
        a->has_bitmap = true;
        a->bitmap_pages_used = used;
        a->bitmap_pages_total = total;
        a->bitmap_chunk_kib = chunk;
        return 1;
}

static int parse_personalities(const char *line, Mdstat *m) {
        const char *p = line + strlen("Personalities :"), *tok;
        size_t len, n = 0;

        /* A repeated "Personalities" line appends (the kernel prints one). */
        while (m->personalities && m->personalities[n])
                n++;

        while (string_next_word(&p, &tok, &len)) {
                char **np;

                if (len < 3 || tok[0] != '[' || tok[len - 1] != ']')
                        continue;
                np = reallocarray(m->personalities, n + 2, sizeof(char *));
                if (!np)
                        return -ENOMEM;
                m->personalities = np;
                np[n] = strndup(tok + 1, len - 2);
                if (!np[n])
                        return -ENOMEM;
                np[++n] = NULL;
        }
        return 0;
}

static void mdstat_array_init(MdstatArray *a) {
        *a = (MdstatArray){
                .blocks_kib = MD_UNSET,
                .disks_total = MD_UNSET,
                .disks_up = MD_UNSET,
                .progress = { .kind = MDSTAT_PROGRESS_NONE },
                .bitmap_chunk_kib = MD_UNSET,
        };
}

/* A header line ("md0 : active raid1 sdb1[1] sda1[0]"): *cur is the new array, or NULL when the
 * line is not one. */
static int parse_array_line(Mdstat *m, const char *line, MdstatArray **cur) {
        MdstatArray a, *na;
        int r;

        mdstat_array_init(&a);
        r = parse_header(line, &a);
        if (r <= 0) {
                mdstat_array_done(&a);
                *cur = NULL;
                return r;
        }
        na = reallocarray(m->arrays, m->n_arrays + 1, sizeof(MdstatArray));
        if (!na) {
                mdstat_array_done(&a);
                return -ENOMEM;
        }
        m->arrays = na;
        m->arrays[m->n_arrays] = a;
        *cur = &m->arrays[m->n_arrays++];
        return 0;
}

/* A line below an array's header: its status (the first), its bitmap, or its sync progress
 * (the first one that parses). */
static int parse_detail_line(const char *line, MdstatArray *cur) {
        MdstatProgress pr;
        int r;

        if (cur->blocks_kib == MD_UNSET) {
                r = parse_status(line, cur);
                if (r != 0)
                        return r < 0 ? r : 0;
        }
        if (parse_bitmap(line, cur) || cur->progress.kind != MDSTAT_PROGRESS_NONE)
                return 0;
        r = mdstat_parse_progress(line, &pr);
        if (r == -ENOMEM)
                return r;
        if (r == 0)
                cur->progress = pr;
        return 0;
}

int mdstat_parse(const char *text, Mdstat **ret) {
        _cleanup_(mdstat_freep) Mdstat *m = NULL;
        _cleanup_free_ char *buf = NULL;
        MdstatArray *cur = NULL;
        char *line, *next;
        int r;

        if (!text)
                return -EINVAL;
        m = calloc(1, sizeof(Mdstat));
        buf = strdup(text);
        if (!m || !buf)
                return -ENOMEM;
        m->personalities = calloc(1, sizeof(char *));
        if (!m->personalities)
                return -ENOMEM;

        for (line = buf; line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = 0;

                if (strncmp(line, "Personalities :", 15) == 0) {
                        r = parse_personalities(line, m);
                        if (r < 0)
                                return r;
                        cur = NULL;
                        continue;
                }
                if (strncmp(line, "unused devices:", 15) == 0) {
                        cur = NULL;
                        continue;
                }
                if (*line && !isspace((unsigned char) *line)) {
                        r = parse_array_line(m, line, &cur);
                        if (r < 0)
                                return r;
                        continue;
                }
                if (!cur || !*skip_space(line))
                        continue;
                r = parse_detail_line(line, cur);
                if (r < 0)
                        return r;
        }

        *ret = TAKE_PTR(m);
        return 0;
}

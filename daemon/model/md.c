/* SPDX-License-Identifier: MIT */
/* md array model: string tables, pure per-attribute parsers and the one sysfs loader.
 *
 * Every attribute of /sys/block/mdX/md is interpreted by a pure function over its text, so the
 * tables in tests/unit/test-md.c cover the interpretation completely; md_array_load() only opens
 * and reads files relative to the directory fd it is given and hands the text to those functions.
 *
 * Invariant: one bad or missing attribute never fails the array. The kernel adds words over time
 * (`broken` in array_state, `reshape`/`frozen` in sync_action, `delayed` in sync_completed, new
 * member states); an unknown word becomes the enum's _UNKNOWN value with the raw text kept, and
 * unreadable or malformed text leaves the field unset. Only running out of memory or being unable
 * to list the directory fails a load. */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/string-table.h"
#include "basic/fileio.h"
#include "model/md.h"
#include "basic/parse-util.h"

static const char *const md_level_table[_MD_LEVEL_MAX] = {
        [MD_LEVEL_LINEAR] = "linear",   [MD_LEVEL_RAID0] = "raid0",
        [MD_LEVEL_RAID1] = "raid1",     [MD_LEVEL_RAID4] = "raid4",
        [MD_LEVEL_RAID5] = "raid5",     [MD_LEVEL_RAID6] = "raid6",
        [MD_LEVEL_RAID10] = "raid10",   [MD_LEVEL_MULTIPATH] = "multipath",
        [MD_LEVEL_FAULTY] = "faulty",   [MD_LEVEL_CONTAINER] = "container",
        [MD_LEVEL_UNKNOWN] = "unknown",
};

static const char *const md_array_state_table[_MD_ARRAY_STATE_MAX] = {
        [MD_ARRAY_STATE_CLEAR] = "clear",
        [MD_ARRAY_STATE_INACTIVE] = "inactive",
        [MD_ARRAY_STATE_SUSPENDED] = "suspended",
        [MD_ARRAY_STATE_READONLY] = "readonly",
        [MD_ARRAY_STATE_READ_AUTO] = "read-auto",
        [MD_ARRAY_STATE_CLEAN] = "clean",
        [MD_ARRAY_STATE_ACTIVE] = "active",
        [MD_ARRAY_STATE_WRITE_PENDING] = "write-pending",
        [MD_ARRAY_STATE_ACTIVE_IDLE] = "active-idle",
        [MD_ARRAY_STATE_BROKEN] = "broken",
        [MD_ARRAY_STATE_UNKNOWN] = "unknown",
};

static const char *const md_sync_action_table[_MD_SYNC_ACTION_MAX] = {
        [MD_SYNC_ACTION_RESYNC] = "resync",   [MD_SYNC_ACTION_RECOVER] = "recover",
        [MD_SYNC_ACTION_CHECK] = "check",     [MD_SYNC_ACTION_REPAIR] = "repair",
        [MD_SYNC_ACTION_RESHAPE] = "reshape", [MD_SYNC_ACTION_FROZEN] = "frozen",
        [MD_SYNC_ACTION_IDLE] = "idle",       [MD_SYNC_ACTION_UNKNOWN] = "unknown",
};

static const char *const md_sync_completed_kind_table[_MD_SYNC_COMPLETED_KIND_MAX] = {
        [MD_SYNC_COMPLETED_NONE] = "none",
        [MD_SYNC_COMPLETED_DELAYED] = "delayed",
        [MD_SYNC_COMPLETED_PROGRESS] = "progress",
        [MD_SYNC_COMPLETED_UNKNOWN] = "unknown",
};

static const char *const md_speed_limit_source_table[_MD_SPEED_LIMIT_SOURCE_MAX] = {
        [MD_SPEED_LIMIT_SYSTEM] = "system",
        [MD_SPEED_LIMIT_LOCAL] = "local",
};

static const char *const md_member_state_table[_MD_MEMBER_STATE_MAX] = {
        [MD_MEMBER_STATE_FAULTY] = "faulty",
        [MD_MEMBER_STATE_IN_SYNC] = "in_sync",
        [MD_MEMBER_STATE_JOURNAL] = "journal",
        [MD_MEMBER_STATE_WRITE_MOSTLY] = "write_mostly",
        [MD_MEMBER_STATE_BLOCKED] = "blocked",
        [MD_MEMBER_STATE_SPARE] = "spare",
        [MD_MEMBER_STATE_WRITE_ERROR] = "write_error",
        [MD_MEMBER_STATE_WANT_REPLACEMENT] = "want_replacement",
        [MD_MEMBER_STATE_REPLACEMENT] = "replacement",
        [MD_MEMBER_STATE_EXTERNAL_BBL] = "external_bbl",
        [MD_MEMBER_STATE_FAILFAST] = "failfast",
        [MD_MEMBER_STATE_UNKNOWN] = "unknown",
};

DEFINE_STRING_TABLE_LOOKUP(md_level, MdLevel, md_level_table)
DEFINE_STRING_TABLE_LOOKUP(md_array_state, MdArrayState, md_array_state_table)
DEFINE_STRING_TABLE_LOOKUP(md_sync_action, MdSyncAction, md_sync_action_table)
DEFINE_STRING_TABLE_LOOKUP(md_sync_completed_kind, MdSyncCompletedKind,
                           md_sync_completed_kind_table)
DEFINE_STRING_TABLE_LOOKUP(md_speed_limit_source, MdSpeedLimitSource, md_speed_limit_source_table)

const char *md_member_state_to_string(MdMemberState s) {
        return string_table_get(md_member_state_table, ELEMENTSOF(md_member_state_table), s);
}

MdMemberState md_member_state_from_string(const char *s) {
        if (s && strcmp(s, "writemostly") == 0) /* md.rst's spelling, accepted on write */
                return MD_MEMBER_STATE_WRITE_MOSTLY;
        return (MdMemberState) string_table_lookup(md_member_state_table, _MD_MEMBER_STATE_MAX, s);
}

/* Copy s without surrounding whitespace into buf (size n). -EINVAL if empty, -E2BIG if too long. */
static int strip_copy(const char *s, char *buf, size_t n) {
        const char *e;
        size_t l;

        if (!s)
                return -EINVAL;
        while (isspace((unsigned char) *s))
                s++;
        e = s + strlen(s);
        while (e > s && isspace((unsigned char) e[-1]))
                e--;
        l = (size_t) (e - s);
        if (l == 0)
                return -EINVAL;
        if (l >= n)
                return -E2BIG;
        memcpy(buf, s, l);
        buf[l] = 0;
        return 0;
}

/* A word: non-empty, printable, no whitespace. */
static bool is_word(const char *s) {
        if (!*s)
                return false;
        for (; *s; s++)
                if (!isgraph((unsigned char) *s))
                        return false;
        return true;
}

/* Parse a single word attribute: known word -> its value, other word -> unknown_value. */
static int parse_word(const char *s, const char *const *table, size_t n, int unknown_value) {
        char buf[64];
        int r;

        r = strip_copy(s, buf, sizeof(buf));
        if (r == -E2BIG)
                return unknown_value; /* a very long word is still a word */
        if (r < 0)
                return r;
        if (!is_word(buf))
                return -EINVAL;
        r = string_table_lookup(table, n, buf);
        if (r < 0 || r == unknown_value) /* "unknown" itself is not a kernel word */
                return unknown_value;
        return r;
}

/* md.c level_show() prints the personality name, or while an array is being assembled the level
 * as a number (md.h: LEVEL_LINEAR -1, LEVEL_MULTIPATH -4, LEVEL_FAULTY -5). */
static MdLevel md_level_from_number(int n) {
        switch (n) {
        case -1:
                return MD_LEVEL_LINEAR;
        case 0:
                return MD_LEVEL_RAID0;
        case 1:
                return MD_LEVEL_RAID1;
        case 4:
                return MD_LEVEL_RAID4;
        case 5:
                return MD_LEVEL_RAID5;
        case 6:
                return MD_LEVEL_RAID6;
        case 10:
                return MD_LEVEL_RAID10;
        case -4:
                return MD_LEVEL_MULTIPATH;
        case -5:
                return MD_LEVEL_FAULTY;
        }
        return MD_LEVEL_UNKNOWN;
}

int md_parse_level(const char *s, MdLevel *ret) {
        int n, r;

        r = parse_word(s, md_level_table, _MD_LEVEL_MAX, MD_LEVEL_UNKNOWN);
        if (r < 0)
                return r;
        if (r == MD_LEVEL_UNKNOWN && safe_atoi(s, &n) == 0)
                r = md_level_from_number(n);
        *ret = (MdLevel) r;
        return 0;
}

int md_parse_array_state(const char *s, MdArrayState *ret) {
        int r = parse_word(s, md_array_state_table, _MD_ARRAY_STATE_MAX, MD_ARRAY_STATE_UNKNOWN);
        if (r < 0)
                return r;
        *ret = (MdArrayState) r;
        return 0;
}

int md_parse_sync_action(const char *s, MdSyncAction *ret) {
        int r = parse_word(s, md_sync_action_table, _MD_SYNC_ACTION_MAX, MD_SYNC_ACTION_UNKNOWN);
        if (r < 0)
                return r;
        *ret = (MdSyncAction) r;
        return 0;
}

/* Split "A SEP B" where SEP is a single character with optional whitespace around it; both parts
 * are copied into a and b. */
static int split2(const char *s, char sep, char *a, size_t na, char *b, size_t nb) {
        char buf[128];
        char *p;
        int r;

        r = strip_copy(s, buf, sizeof(buf));
        if (r < 0)
                return r == -E2BIG ? -EINVAL : r;
        p = strchr(buf, sep);
        if (!p)
                return -EINVAL;
        *p = 0;
        r = strip_copy(buf, a, na);
        if (r < 0)
                return -EINVAL;
        r = strip_copy(p + 1, b, nb);
        if (r < 0)
                return -EINVAL;
        return 0;
}

int md_parse_sync_completed(const char *s, MdSyncCompleted *ret) {
        char a[64], b[64], buf[64];
        uint64_t done, total;
        int r;

        if (!s)
                return -EINVAL;
        if (strchr(s, '/')) {
                r = split2(s, '/', a, sizeof(a), b, sizeof(b));
                if (r < 0)
                        return r;
                r = parse_u64_strict(a, &done);
                if (r < 0)
                        return r;
                r = parse_u64_strict(b, &total);
                if (r < 0)
                        return r;
                *ret = (MdSyncCompleted){
                        .kind = MD_SYNC_COMPLETED_PROGRESS,
                        .done_sectors = done,
                        .total_sectors = total,
                };
                return 0;
        }
        r = strip_copy(s, buf, sizeof(buf));
        if (r == -E2BIG)
                r = 0, strcpy(buf, "?");
        if (r < 0)
                return r;
        if (!is_word(buf))
                return -EINVAL;
        if (strcmp(buf, "none") == 0)
                *ret = (MdSyncCompleted){ .kind = MD_SYNC_COMPLETED_NONE };
        else if (strcmp(buf, "delayed") == 0)
                *ret = (MdSyncCompleted){ .kind = MD_SYNC_COMPLETED_DELAYED };
        else if (isdigit((unsigned char) buf[0]))
                return -EINVAL; /* a lone number is not a kernel format */
        else
                *ret = (MdSyncCompleted){ .kind = MD_SYNC_COMPLETED_UNKNOWN };
        return 0;
}

double md_sync_completed_ratio(const MdSyncCompleted *c) {
        double v;

        if (!c || c->kind != MD_SYNC_COMPLETED_PROGRESS || c->total_sectors == 0)
                return -1.0;
        v = (double) c->done_sectors / (double) c->total_sectors;
        return CLAMP(v, 0.0, 1.0);
}

int md_parse_speed_limit(const char *s, MdSpeedLimit *ret) {
        char buf[64], num[32], *p, *q;
        MdSpeedLimitSource src = _MD_SPEED_LIMIT_SOURCE_INVALID;
        uint64_t v;
        int r;

        r = strip_copy(s, buf, sizeof(buf));
        if (r < 0)
                return r == -E2BIG ? -EINVAL : r;
        p = strchr(buf, '(');
        if (p) {
                q = strchr(p, ')');
                if (!q || q[1] != 0)
                        return -EINVAL;
                *q = 0;
                src = md_speed_limit_source_from_string(p + 1);
                if (src < 0)
                        return -EINVAL;
                *p = 0;
        }
        r = strip_copy(buf, num, sizeof(num));
        if (r < 0)
                return -EINVAL;
        r = parse_u64_strict(num, &v);
        if (r < 0)
                return r;
        *ret = (MdSpeedLimit){ .kib_per_sec = v, .source = src };
        return 0;
}

int md_parse_new_old(const char *s, uint64_t *ret_new, uint64_t *ret_old) {
        char buf[64], a[32], b[32], *p, *q;
        uint64_t n, o;
        int r;

        r = strip_copy(s, buf, sizeof(buf));
        if (r < 0)
                return r == -E2BIG ? -EINVAL : r;
        p = strchr(buf, '(');
        if (!p) {
                r = parse_u64_strict(buf, &n);
                if (r < 0)
                        return r;
                *ret_new = *ret_old = n;
                return 0;
        }
        q = strchr(p, ')');
        if (!q || q[1] != 0)
                return -EINVAL;
        *q = 0;
        *p = 0;
        if (strip_copy(buf, a, sizeof(a)) < 0 || strip_copy(p + 1, b, sizeof(b)) < 0)
                return -EINVAL;
        r = parse_u64_strict(a, &n);
        if (r < 0)
                return r;
        r = parse_u64_strict(b, &o);
        if (r < 0)
                return r;
        *ret_new = n;
        *ret_old = o;
        return 0;
}

int md_parse_member_state(const char *s, unsigned *ret_flags) {
        char buf[512], *p;
        unsigned flags = 0;
        int r;

        if (!s)
                return -EINVAL;
        r = strip_copy(s, buf, sizeof(buf));
        if (r == -EINVAL) { /* empty: a member with no state word */
                *ret_flags = 0;
                return 0;
        }
        if (r < 0)
                return -EINVAL;
        p = buf;
        for (;;) {
                char *comma = strchr(p, ',');
                MdMemberState st;

                if (comma)
                        *comma = 0;
                if (!is_word(p))
                        return -EINVAL;
                st = md_member_state_from_string(p);
                if (st < 0 || st == MD_MEMBER_STATE_UNKNOWN)
                        st = MD_MEMBER_STATE_UNKNOWN;
                flags |= MD_MEMBER_STATE_FLAG(st);
                if (!comma)
                        break;
                p = comma + 1;
        }
        *ret_flags = flags;
        return 0;
}

int md_parse_slot(const char *s, int *ret) {
        uint64_t v;
        int r;

        /* Same words as any "N or none" attribute; only the range differs. */
        r = md_parse_u64_or_none(s, &v);
        if (r < 0)
                return r;
        if (v == MD_UNSET) {
                *ret = MD_SLOT_NONE;
                return 0;
        }
        if (v > INT32_MAX)
                return -ERANGE;
        *ret = (int) v;
        return 0;
}

int md_parse_u64_or_none(const char *s, uint64_t *ret) {
        char buf[32];
        uint64_t v;
        int r;

        r = strip_copy(s, buf, sizeof(buf));
        if (r < 0)
                return r == -E2BIG ? -EINVAL : r;
        if (strcmp(buf, "none") == 0) {
                *ret = MD_UNSET;
                return 0;
        }
        r = parse_u64_strict(buf, &v);
        if (r < 0)
                return r;
        if (v == MD_UNSET)
                return -ERANGE;
        *ret = v;
        return 0;
}

/* Read one attribute. Returns NULL text for a missing/unreadable file; only -ENOMEM is an error. */
static int read_attr(int dir_fd, const char *path, char **ret) {
        char *s = NULL;
        int r;

        r = read_one_line_at(dir_fd, path, &s);
        if (r == -ENOMEM)
                return r;
        *ret = r < 0 ? NULL : s;
        return 0;
}

/* Read a plain number attribute; unset on any problem. */
static int load_u64(int dir_fd, const char *path, uint64_t *ret) {
        _cleanup_free_ char *s = NULL;
        uint64_t v;
        int r;

        r = read_attr(dir_fd, path, &s);
        if (r < 0)
                return r;
        if (!s || md_parse_u64_or_none(s, &v) < 0)
                v = MD_UNSET;
        *ret = v;
        return 0;
}

static int member_cmp(const void *a, const void *b) {
        return strcmp(((const MdMember *) a)->name, ((const MdMember *) b)->name);
}

static void md_member_done(MdMember *m) {
        free(m->name);
        free(m->state_raw);
}

static int md_member_load(int md_dir_fd, const char *dev_dir, MdMember *ret) {
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *slot = NULL, *name = NULL, *state = NULL;
        MdMember m = {
                .slot = MD_SLOT_UNKNOWN,
                .errors = MD_UNSET,
                .recovery_start_sectors = MD_UNSET,
        };
        int r;

        name = strdup(dev_dir + strlen("dev-"));
        if (!name)
                return -ENOMEM;
        /* A member directory that vanished between readdir and open is kept with unknown fields:
         * the caller sees the name, the next load sees it gone. */
        fd = openat(md_dir_fd, dev_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd >= 0) {
                r = read_attr(fd, "state", &state);
                if (r < 0)
                        return r;
                if (state && md_parse_member_state(state, &m.state) < 0)
                        m.state = MD_MEMBER_STATE_FLAG(MD_MEMBER_STATE_UNKNOWN);
                r = read_attr(fd, "slot", &slot);
                if (r < 0)
                        return r;
                if (slot && md_parse_slot(slot, &m.slot) < 0)
                        m.slot = MD_SLOT_UNKNOWN;
                r = load_u64(fd, "errors", &m.errors);
                if (r < 0)
                        return r;
                r = load_u64(fd, "recovery_start", &m.recovery_start_sectors);
                if (r < 0)
                        return r;
                m.device_gone = faccessat(fd, "block/dev", F_OK, 0) < 0 && errno == ENOENT;
        }
        m.name = TAKE_PTR(name);
        m.state_raw = TAKE_PTR(state);
        *ret = m;
        return 0;
}

static int md_members_load(int md_dir_fd, MdArray *a) {
        _cleanup_close_ int fd = -EBADF;
        DIR *d;
        struct dirent *de;
        int r = 0;

        fd = openat(md_dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        d = fdopendir(fd);
        if (!d)
                return negative_errno();
        TAKE_FD(fd);

        while ((errno = 0, de = readdir(d))) {
                MdMember *n;

                if (strncmp(de->d_name, "dev-", 4) != 0 || de->d_name[4] == 0)
                        continue;
                n = reallocarray(a->members, a->n_members + 1, sizeof(MdMember));
                if (!n) {
                        r = -ENOMEM;
                        break;
                }
                a->members = n;
                r = md_member_load(md_dir_fd, de->d_name, &a->members[a->n_members]);
                if (r < 0)
                        break;
                a->n_members++;
        }
        if (r == 0 && errno > 0)
                r = -errno;
        (void) closedir(d);
        if (r < 0)
                return r;
        if (a->n_members > 1)
                qsort(a->members, a->n_members, sizeof(MdMember), member_cmp);
        return 0;
}

static MdArray *new0_md_array(void) {
        MdArray *a = calloc(1, sizeof(MdArray));

        if (!a)
                return NULL;
        *a = (MdArray){
                .level = _MD_LEVEL_INVALID,
                .raid_disks = MD_UNSET,
                .raid_disks_old = MD_UNSET,
                .array_state = _MD_ARRAY_STATE_INVALID,
                .degraded = MD_UNSET,
                .sync_action = _MD_SYNC_ACTION_INVALID,
                .last_sync_action = _MD_SYNC_ACTION_INVALID,
                .sync_completed = { .kind = _MD_SYNC_COMPLETED_KIND_INVALID },
                .sync_speed_kib_per_sec = MD_UNSET,
                .sync_speed_min = { MD_UNSET, _MD_SPEED_LIMIT_SOURCE_INVALID },
                .sync_speed_max = { MD_UNSET, _MD_SPEED_LIMIT_SOURCE_INVALID },
                .mismatch_cnt = MD_UNSET,
                .chunk_size_bytes = MD_UNSET,
                .chunk_size_old_bytes = MD_UNSET,
                .layout = MD_UNSET,
                .layout_old = MD_UNSET,
                .level_new = _MD_LEVEL_INVALID,
                .component_size_kib = MD_UNSET,
                .reshape_position_sectors = MD_UNSET,
                .resync_start_sectors = MD_UNSET,
        };
        return a;
}

/* The parsers of the attributes that are more than a plain number. Each fills its field(s) from
 * the attribute's text and leaves them at new0_md_array()'s unset values when the text is
 * garbage: one bad attribute never costs the others. */
static void attr_level(const char *s, MdArray *a) {
        if (md_parse_level(s, &a->level) < 0)
                a->level = _MD_LEVEL_INVALID;
}

static void attr_raid_disks(const char *s, MdArray *a) {
        if (md_parse_new_old(s, &a->raid_disks, &a->raid_disks_old) < 0)
                a->raid_disks = a->raid_disks_old = MD_UNSET;
}

static void attr_array_state(const char *s, MdArray *a) {
        if (md_parse_array_state(s, &a->array_state) < 0)
                a->array_state = _MD_ARRAY_STATE_INVALID;
}

static void attr_sync_action(const char *s, MdArray *a) {
        if (md_parse_sync_action(s, &a->sync_action) < 0)
                a->sync_action = _MD_SYNC_ACTION_INVALID;
}

static void attr_last_sync_action(const char *s, MdArray *a) {
        if (md_parse_sync_action(s, &a->last_sync_action) < 0)
                a->last_sync_action = _MD_SYNC_ACTION_INVALID;
}

static void attr_sync_completed(const char *s, MdArray *a) {
        if (md_parse_sync_completed(s, &a->sync_completed) < 0)
                a->sync_completed = (MdSyncCompleted){ .kind = _MD_SYNC_COMPLETED_KIND_INVALID };
}

static void attr_sync_speed_min(const char *s, MdArray *a) {
        if (md_parse_speed_limit(s, &a->sync_speed_min) < 0)
                a->sync_speed_min = (MdSpeedLimit){ MD_UNSET, _MD_SPEED_LIMIT_SOURCE_INVALID };
}

static void attr_sync_speed_max(const char *s, MdArray *a) {
        if (md_parse_speed_limit(s, &a->sync_speed_max) < 0)
                a->sync_speed_max = (MdSpeedLimit){ MD_UNSET, _MD_SPEED_LIMIT_SOURCE_INVALID };
}

static void attr_chunk_size(const char *s, MdArray *a) {
        if (md_parse_new_old(s, &a->chunk_size_bytes, &a->chunk_size_old_bytes) < 0)
                a->chunk_size_bytes = a->chunk_size_old_bytes = MD_UNSET;
}

static void attr_layout(const char *s, MdArray *a) {
        if (md_parse_new_old(s, &a->layout, &a->layout_old) < 0)
                a->layout = a->layout_old = MD_UNSET;
}

/* new_level: the level a reshape goes to; md prints the current level when none runs. */
static void attr_new_level(const char *s, MdArray *a) {
        if (md_parse_level(s, &a->level_new) < 0)
                a->level_new = _MD_LEVEL_INVALID;
}

typedef enum MdAttrKind {
        MD_ATTR_U64,    /* a plain number (or "none") into a uint64_t field */
        MD_ATTR_PARSED, /* text handed to .parse, then dropped */
        MD_ATTR_KEPT,   /* text kept in a char * field, and handed to .parse if there is one */
} MdAttrKind;

typedef struct MdAttr {
        const char *name;
        MdAttrKind kind;
        size_t offset; /* of the uint64_t (U64) or char * (KEPT) field in MdArray */
        void (*parse)(const char *s, MdArray *a);
} MdAttr;

#define MD_U64(n, field)                                                                           \
        { n, MD_ATTR_U64, offsetof(MdArray, field), NULL }
#define MD_PARSED(n, fn)                                                                           \
        { n, MD_ATTR_PARSED, 0, fn }
#define MD_KEPT(n, field, fn)                                                                      \
        { n, MD_ATTR_KEPT, offsetof(MdArray, field), fn }

/* Every attribute of /sys/block/mdX/md/ that md_array_load() reads (Documentation/admin-guide/
 * md.rst). A missing one leaves its field unset; only -ENOMEM fails the load. */
static const MdAttr md_attrs[] = {
        MD_KEPT("level", level_raw, attr_level),
        MD_PARSED("raid_disks", attr_raid_disks),
        MD_KEPT("array_state", array_state_raw, attr_array_state),
        MD_U64("degraded", degraded),
        MD_KEPT("sync_action", sync_action_raw, attr_sync_action),
        MD_PARSED("last_sync_action", attr_last_sync_action),
        MD_PARSED("sync_completed", attr_sync_completed),
        MD_U64("sync_speed", sync_speed_kib_per_sec),
        MD_PARSED("sync_speed_min", attr_sync_speed_min),
        MD_PARSED("sync_speed_max", attr_sync_speed_max),
        MD_U64("mismatch_cnt", mismatch_cnt),
        MD_PARSED("chunk_size", attr_chunk_size),
        MD_PARSED("layout", attr_layout),
        MD_PARSED("new_level", attr_new_level),
        MD_U64("component_size", component_size_kib),
        MD_U64("reshape_position", reshape_position_sectors),
        MD_U64("resync_start", resync_start_sectors),
        MD_KEPT("uuid", uuid, NULL),
        MD_KEPT("metadata_version", metadata_version, NULL),
};

static int md_attr_load(int md_dir_fd, const MdAttr *at, MdArray *a) {
        _cleanup_free_ char *s = NULL;
        int r;

        if (at->kind == MD_ATTR_U64)
                return load_u64(md_dir_fd, at->name, (uint64_t *) ((uint8_t *) a + at->offset));
        r = read_attr(md_dir_fd, at->name, &s);
        if (r < 0 || !s)
                return r;
        if (at->parse)
                at->parse(s, a);
        if (at->kind == MD_ATTR_KEPT)
                *(char **) ((uint8_t *) a + at->offset) = TAKE_PTR(s);
        return 0;
}

int md_array_load(int md_dir_fd, MdArray **ret) {
        _cleanup_(md_array_freep) MdArray *a = NULL;
        int r;

        if (md_dir_fd < 0)
                return -EBADF;

        a = new0_md_array();
        if (!a)
                return -ENOMEM;
        for (size_t i = 0; i < ELEMENTSOF(md_attrs); i++) {
                r = md_attr_load(md_dir_fd, &md_attrs[i], a);
                if (r < 0)
                        return r;
        }
        r = md_members_load(md_dir_fd, a);
        if (r < 0)
                return r;

        *ret = TAKE_PTR(a);
        return 0;
}

MdArray *md_array_free(MdArray *a) {
        if (!a)
                return NULL;
        for (size_t i = 0; i < a->n_members; i++)
                md_member_done(&a->members[i]);
        free(a->members);
        free(a->level_raw);
        free(a->array_state_raw);
        free(a->sync_action_raw);
        free(a->uuid);
        free(a->metadata_version);
        free(a);
        return NULL;
}

const MdMember *md_array_find_member(const MdArray *a, const char *name) {
        if (!a || !name)
                return NULL;
        for (size_t i = 0; i < a->n_members; i++)
                if (strcmp(a->members[i].name, name) == 0)
                        return &a->members[i];
        return NULL;
}

bool md_array_is_container(const MdArray *a) {
        const char *m = a ? a->metadata_version : NULL;

        if (a && a->level == MD_LEVEL_CONTAINER)
                return true;
        return m && strncmp(m, "external:", 9) == 0 && m[9] != '/' && m[9] != '-' && m[9] != 0;
}

bool md_array_container_name(const MdArray *a, char *buf, size_t size) {
        const char *p;
        size_t n;

        if (size == 0)
                return false;
        buf[0] = 0;
        if (!a || !a->metadata_version || strncmp(a->metadata_version, "external:/", 10) != 0)
                return false;
        p = a->metadata_version + 10;
        n = strcspn(p, "/");
        if (n == 0 || n >= size)
                return false;
        memcpy(buf, p, n);
        buf[n] = 0;
        return true;
}

uint64_t md_array_size_after_reshape(const MdArray *a) {
        uint64_t n, data, comp;
        MdLevel l;

        if (!a || a->raid_disks == MD_UNSET || a->component_size_kib == MD_UNSET)
                return 0;
        l = a->level_new >= 0 ? a->level_new : a->level;
        n = a->raid_disks;
        comp = a->component_size_kib;
        if (comp == 0 || n == 0)
                return 0;
        switch (l) {
        case MD_LEVEL_RAID1:
                data = n > 0 ? 1 : 0;
                break;
        case MD_LEVEL_RAID4:
        case MD_LEVEL_RAID5:
                data = n > 1 ? n - 1 : 0;
                break;
        case MD_LEVEL_RAID6:
                data = n > 2 ? n - 2 : 0;
                break;
        case MD_LEVEL_RAID0:
                data = n;
                break;
        case MD_LEVEL_RAID10: {
                uint64_t copies =
                        a->layout != MD_UNSET ? (a->layout & 0xff) * ((a->layout >> 8) & 0xff) : 2;
                if (copies == 0)
                        return 0;
                if (n > UINT64_MAX / comp)
                        return 0;
                return n * comp / copies * 1024;
        }
        default:
                return 0;
        }
        if (data > 0 && comp > UINT64_MAX / 1024 / data)
                return 0;
        return data * comp * 1024;
}

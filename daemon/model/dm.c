/* SPDX-License-Identifier: MIT */
/* device-mapper text parsers: target lines, dm-raid status, LVM names.
 *
 * The dm-raid status line grew fields over the target's versions (mismatch_cnt in 1.5.0,
 * data_offset in 1.9.0, journal char in 1.10.0), so everything after the sync action is optional
 * and parsed only when present; fields after the ones we know are ignored so that a future version
 * adding one does not break us. Kernel output is trusted for shape but not for sanity: a health
 * string of the wrong length, an unknown health char or a number beyond 64 bits is an error, never
 * a wrap or a crash.
 *
 * LVM naming rules are from lvm2 (lib/misc/lvm-string.c, libdm dm_split_lvm_name(), lib/uuid):
 * in a dm name, '-' inside a VG or LV name is doubled and a single '-' separates VG, LV and an
 * optional layer; an LVM uuid id is 32 chars from [A-Za-z0-9!#]. */

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "basic/string-table.h"
#include "basic/string-word.h"
#include "model/dm.h"
#include "basic/parse-util.h"

static const char *const dm_target_type_table[_DM_TARGET_TYPE_MAX] = {
        [DM_TARGET_LINEAR] = "linear",
        [DM_TARGET_STRIPED] = "striped",
        [DM_TARGET_RAID] = "raid",
        [DM_TARGET_MIRROR] = "mirror",
        [DM_TARGET_SNAPSHOT] = "snapshot",
        [DM_TARGET_SNAPSHOT_ORIGIN] = "snapshot-origin",
        [DM_TARGET_SNAPSHOT_MERGE] = "snapshot-merge",
        [DM_TARGET_THIN] = "thin",
        [DM_TARGET_THIN_POOL] = "thin-pool",
        [DM_TARGET_CACHE] = "cache",
        [DM_TARGET_WRITECACHE] = "writecache",
        [DM_TARGET_CRYPT] = "crypt",
        [DM_TARGET_INTEGRITY] = "integrity",
        [DM_TARGET_VERITY] = "verity",
        [DM_TARGET_MULTIPATH] = "multipath",
        [DM_TARGET_VDO] = "vdo",
        [DM_TARGET_DELAY] = "delay",
        [DM_TARGET_FLAKEY] = "flakey",
        [DM_TARGET_ERROR] = "error",
        [DM_TARGET_ZERO] = "zero",
        [DM_TARGET_UNKNOWN] = "unknown",
};

static const char *const dm_raid_sync_action_table[_DM_RAID_SYNC_ACTION_MAX] = {
        [DM_RAID_SYNC_ACTION_IDLE] = "idle",       [DM_RAID_SYNC_ACTION_FROZEN] = "frozen",
        [DM_RAID_SYNC_ACTION_RESYNC] = "resync",   [DM_RAID_SYNC_ACTION_RECOVER] = "recover",
        [DM_RAID_SYNC_ACTION_CHECK] = "check",     [DM_RAID_SYNC_ACTION_REPAIR] = "repair",
        [DM_RAID_SYNC_ACTION_RESHAPE] = "reshape", [DM_RAID_SYNC_ACTION_INIT] = "init",
        [DM_RAID_SYNC_ACTION_UNDEF] = "undef",     [DM_RAID_SYNC_ACTION_UNKNOWN] = "unknown",
};

static const char *const dm_raid_health_table[_DM_RAID_HEALTH_MAX] = {
        [DM_RAID_HEALTH_ALIVE_IN_SYNC] = "alive",
        [DM_RAID_HEALTH_ALIVE_NOT_IN_SYNC] = "alive-not-in-sync",
        [DM_RAID_HEALTH_DEAD] = "dead",
        [DM_RAID_HEALTH_ABSENT] = "absent",
};

DEFINE_STRING_TABLE_LOOKUP(dm_target_type, DmTargetType, dm_target_type_table)

DEFINE_STRING_TABLE_LOOKUP(dm_raid_sync_action, DmRaidSyncAction, dm_raid_sync_action_table)

DEFINE_STRING_TABLE_LOOKUP(dm_raid_health, DmRaidHealth, dm_raid_health_table)

DmRaidHealth dm_raid_health_from_char(char c) {
        switch (c) {
        case 'A':
                return DM_RAID_HEALTH_ALIVE_IN_SYNC;
        case 'a':
                return DM_RAID_HEALTH_ALIVE_NOT_IN_SYNC;
        case 'D':
                return DM_RAID_HEALTH_DEAD;
        case '-':
                return DM_RAID_HEALTH_ABSENT;
        }
        return _DM_RAID_HEALTH_INVALID;
}

/* A number token; a token too long for any 64-bit number is -ERANGE if all digits. */
static int next_u64(const char **p, uint64_t *ret) {
        char buf[32];
        const char *w;
        size_t l;

        if (!string_next_word(p, &w, &l))
                return -EINVAL;
        if (l >= sizeof(buf)) {
                for (size_t i = 0; i < l; i++)
                        if (!isdigit((unsigned char) w[i]))
                                return -EINVAL;
                return -ERANGE;
        }
        memcpy(buf, w, l);
        buf[l] = 0;
        return parse_u64_strict(buf, ret);
}

static bool is_type_name(const char *s) {
        if (!*s)
                return false;
        for (; *s; s++)
                if (!isalnum((unsigned char) *s) && !strchr("-_.", *s))
                        return false;
        return true;
}

int dm_parse_target_line(const char *line, DmTargetLine *ret) {
        DmTargetLine t = {};
        const char *p = line;
        int r;

        if (!line)
                return -EINVAL;
        r = next_u64(&p, &t.start_sectors);
        if (r < 0)
                return r;
        r = next_u64(&p, &t.length_sectors);
        if (r < 0)
                return r;
        r = string_next_word_copy(&p, t.target_type_name, sizeof(t.target_type_name));
        if (r == 0)
                return -EINVAL;
        if (r < 0)
                return r;
        if (!is_type_name(t.target_type_name))
                return -EINVAL;
        t.target_type = dm_target_type_from_string(t.target_type_name);
        if (t.target_type < 0 || t.target_type == DM_TARGET_UNKNOWN)
                t.target_type = DM_TARGET_UNKNOWN;
        /* params: everything after the separating blanks, verbatim (no copy). */
        while (*p == ' ' || *p == '\t')
                p++;
        t.params = p;
        *ret = t;
        return 0;
}

/* Room for the longest token of a raid status: the health string of DM_RAID_MAX_DEVICES. */
#define RAID_TOKEN_MAX (DM_RAID_MAX_DEVICES + 2)

/* "<#devices> <health chars>", one health character per device. */
static int raid_parse_devices(const char **p, DmRaidStatus *s) {
        char tok[RAID_TOKEN_MAX];
        uint64_t n;
        int r;

        r = next_u64(p, &n);
        if (r < 0)
                return r;
        if (n == 0)
                return -EINVAL;
        if (n > DM_RAID_MAX_DEVICES)
                return -ERANGE;
        s->n_devices = (unsigned) n;

        r = string_next_word_copy(p, tok, sizeof(tok));
        if (r <= 0) /* none, or longer than any valid health string */
                return -EINVAL;
        if (strlen(tok) != s->n_devices)
                return -EINVAL;
        for (size_t i = 0; tok[i]; i++)
                if (dm_raid_health_from_char(tok[i]) < 0)
                        return -EINVAL;
        memcpy(s->health, tok, s->n_devices + 1);
        return 0;
}

/* "<done>/<total> <sync_action>" */
static int raid_parse_sync(const char **p, DmRaidStatus *s) {
        char tok[RAID_TOKEN_MAX], *slash;
        int r;

        r = string_next_word_copy(p, tok, sizeof(tok));
        if (r <= 0)
                return -EINVAL;
        slash = strchr(tok, '/');
        if (!slash)
                return -EINVAL;
        *slash = 0;
        r = parse_u64_strict(tok, &s->sync_done_sectors);
        if (r < 0)
                return r;
        r = parse_u64_strict(slash + 1, &s->sync_total_sectors);
        if (r < 0)
                return r;

        r = string_next_word_copy(p, tok, sizeof(tok));
        if (r <= 0)
                return -EINVAL;
        if (!is_type_name(tok))
                return -EINVAL;
        s->sync_action = dm_raid_sync_action_from_string(tok);
        if (s->sync_action < 0 || s->sync_action == DM_RAID_SYNC_ACTION_UNKNOWN)
                s->sync_action = DM_RAID_SYNC_ACTION_UNKNOWN;
        memcpy(s->sync_action_raw, tok, MIN(strlen(tok), sizeof(s->sync_action_raw) - 1));
        return 0;
}

/* Optional, in the order kernel versions added them: "<mismatch_cnt> <data_offset>
 * <journal_char>". */
static int raid_parse_optional(const char **p, DmRaidStatus *s) {
        char tok[RAID_TOKEN_MAX];
        int r;

        r = string_next_word_copy(p, tok, sizeof(tok));
        if (r < 0)
                return -ERANGE;
        if (r > 0) {
                r = parse_u64_strict(tok, &s->mismatch_cnt);
                if (r < 0)
                        return r;
                r = string_next_word_copy(p, tok, sizeof(tok));
                if (r < 0)
                        return -ERANGE;
        }
        if (r > 0) {
                r = parse_u64_strict(tok, &s->data_offset_sectors);
                if (r < 0)
                        return r;
                r = string_next_word_copy(p, tok, sizeof(tok));
                if (r < 0)
                        return -EINVAL;
        }
        if (r > 0) {
                if (strlen(tok) != 1 || dm_raid_health_from_char(tok[0]) < 0)
                        return -EINVAL;
                s->journal = tok[0];
        }
        return 0;
}

int dm_raid_status_parse(const char *params, DmRaidStatus *ret) {
        DmRaidStatus s = {
                .mismatch_cnt = DM_UNSET,
                .data_offset_sectors = DM_UNSET,
        };
        const char *p = params;
        int r;

        if (!params)
                return -EINVAL;

        r = string_next_word_copy(&p, s.raid_type, sizeof(s.raid_type));
        if (r <= 0)
                return r == 0 ? -EINVAL : r;
        if (!is_type_name(s.raid_type))
                return -EINVAL;
        r = raid_parse_devices(&p, &s);
        if (r < 0)
                return r;
        r = raid_parse_sync(&p, &s);
        if (r < 0)
                return r;
        r = raid_parse_optional(&p, &s);
        if (r < 0)
                return r;

        *ret = s;
        return 0;
}

unsigned dm_raid_status_count(const DmRaidStatus *s, DmRaidHealth h) {
        unsigned n = 0;

        if (!s)
                return 0;
        for (unsigned i = 0; i < s->n_devices && s->health[i]; i++)
                if (dm_raid_health_from_char(s->health[i]) == h)
                        n++;
        return n;
}

double dm_raid_status_sync_ratio(const DmRaidStatus *s) {
        double v;

        if (!s || s->sync_total_sectors == 0)
                return -1.0;
        v = (double) s->sync_done_sectors / (double) s->sync_total_sectors;
        return CLAMP(v, 0.0, 1.0);
}

static bool is_lvm_id_char(char c) {
        return isalnum((unsigned char) c) || c == '!' || c == '#';
}

int lvm_uuid_split(const char *dm_uuid, LvmUuid *ret) {
        LvmUuid u = {};
        size_t l;

        if (!dm_uuid || strncmp(dm_uuid, "LVM-", 4) != 0)
                return -EINVAL;
        dm_uuid += 4;
        for (l = 0; dm_uuid[l] && dm_uuid[l] != '-'; l++)
                if (!is_lvm_id_char(dm_uuid[l]))
                        return -EINVAL;
        if (l != 32 && l != 64)
                return -EINVAL;
        memcpy(u.vg_uuid, dm_uuid, 32);
        if (l == 64)
                memcpy(u.lv_uuid, dm_uuid + 32, 32);
        if (dm_uuid[l] == '-') {
                if (!dm_uuid[l + 1])
                        return -EINVAL;
                u.layer = dm_uuid + l + 1;
        }
        *ret = u;
        return 0;
}

/* Copy one '-'-escaped name component starting at *p up to the next single '-' (or end),
 * un-doubling "--". Returns the allocated string or NULL on OOM; *p is left at the separator. */
static char *unescape_component(const char **p) {
        const char *s = *p;
        char *out, *o;

        out = o = malloc(strlen(s) + 1);
        if (!out)
                return NULL;
        while (*s) {
                if (*s == '-') {
                        if (s[1] == '-') {
                                *o++ = '-';
                                s += 2;
                                continue;
                        }
                        break;
                }
                *o++ = *s++;
        }
        *o = 0;
        *p = s;
        return out;
}

int lvm_name_split(const char *dm_name, char **ret_vg, char **ret_lv, char **ret_layer) {
        _cleanup_free_ char *vg = NULL, *lv = NULL, *layer = NULL;
        const char *p = dm_name;

        if (!dm_name || !ret_vg || !ret_lv)
                return -EINVAL;
        vg = unescape_component(&p);
        if (!vg)
                return -ENOMEM;
        if (*p != '-' || !*vg)
                return -EINVAL;
        p++;
        lv = unescape_component(&p);
        if (!lv)
                return -ENOMEM;
        if (!*lv)
                return -EINVAL;
        if (*p == '-') {
                p++;
                if (!*p)
                        return -EINVAL;
                layer = strdup(p); /* the layer is not escaped ("real", "cow", "tpool", ...) */
                if (!layer)
                        return -ENOMEM;
        }
        *ret_vg = TAKE_PTR(vg);
        *ret_lv = TAKE_PTR(lv);
        if (ret_layer)
                *ret_layer = TAKE_PTR(layer);
        return 0;
}

/* Suffixes of hidden sub-LVs. "_N" marks a suffix followed by "_<digits>". */
static const struct {
        const char *suffix;
        bool numbered;
} sub_lv_suffixes[] = {
        { "_rimage", true }, { "_rmeta", true },   { "_mimage", true },   { "_mimagetmp", true },
        { "_mlog", false },  { "_rmlog", false },  { "_tdata", false },   { "_tmeta", false },
        { "_cdata", false }, { "_cmeta", false },  { "_cpool", false },   { "_corig", false },
        { "_cvol", false },  { "_wcorig", false }, { "_vdata", false },   { "_vorigin", false },
        { "_imeta", false }, { "_iorig", false },  { "_pmspare", false },
};

/* If name ends in a known sub-LV suffix, return the length of the part before it, else 0. */
static size_t strip_sub_lv_suffix(const char *name, size_t len) {
        for (size_t i = 0; i < ELEMENTSOF(sub_lv_suffixes); i++) {
                const char *suf = sub_lv_suffixes[i].suffix;
                size_t sl = strlen(suf), end = len;

                if (sub_lv_suffixes[i].numbered) {
                        size_t d = end;

                        while (d > 0 && isdigit((unsigned char) name[d - 1]))
                                d--;
                        if (d == end || d == 0 || name[d - 1] != '_')
                                continue;
                        end = d - 1;
                }
                if (end <= sl || strncmp(name + end - sl, suf, sl) != 0)
                        continue;
                return end - sl;
        }
        return 0;
}

int lvm_sub_lv_parent(const char *lv_name, char **ret_parent) {
        size_t len, l;
        char *parent;

        if (!lv_name || !ret_parent)
                return -EINVAL;
        len = strlen(lv_name);
        l = strip_sub_lv_suffix(lv_name, len);
        if (l == 0)
                return 0;
        /* "lvol0_pmspare" is the VG's pool metadata spare: hidden, but part of no LV. */
        if (len - l == strlen("_pmspare") && strcmp(lv_name + l, "_pmspare") == 0)
                return 0;
        for (;;) {
                size_t k = strip_sub_lv_suffix(lv_name, l);
                if (k == 0)
                        break;
                l = k;
        }
        parent = strndup(lv_name, l);
        if (!parent)
                return -ENOMEM;
        *ret_parent = parent;
        return 1;
}

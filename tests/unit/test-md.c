/* SPDX-License-Identifier: MIT */
/* md model: every per-attribute parser by table (kernel words, unknown words, garbage, empty, huge
 * numbers), the string tables, and the IMSM/DDF container names. md_array_load() over real and
 * temp sysfs trees is in test-md-load.c. */

#include <errno.h>

#include "basic/macro.h"
#include "model/md.h"
#include "tap.h"
#include "test-md-flags.h"

/* Printable copy of a test input for TAP descriptions (a newline would end the TAP line). */
static const char *E(const char *s) {
        static char bufs[4][128];
        static unsigned k;
        char *b = bufs[k++ % 4];
        size_t o = 0;

        for (; s && *s && o < sizeof(bufs[0]) - 5; s++) {
                if (*s == '\n')
                        o += (size_t) snprintf(b + o, 5, "\\n");
                else if ((unsigned char) *s < 0x20)
                        o += (size_t) snprintf(b + o, 5, "\\x%02x", (unsigned char) *s);
                else
                        b[o++] = *s;
        }
        b[o] = 0;
        return b;
}

static void test_tables(void) {
        for (int i = 0; i < _MD_LEVEL_MAX; i++)
                is_int(md_level_from_string(md_level_to_string(i)), i, "level %d round trip", i);
        for (int i = 0; i < _MD_ARRAY_STATE_MAX; i++)
                is_int(md_array_state_from_string(md_array_state_to_string(i)), i,
                       "array_state %d round trip", i);
        for (int i = 0; i < _MD_SYNC_ACTION_MAX; i++)
                is_int(md_sync_action_from_string(md_sync_action_to_string(i)), i,
                       "sync_action %d round trip", i);
        for (int i = 0; i < _MD_SYNC_COMPLETED_KIND_MAX; i++)
                is_int(md_sync_completed_kind_from_string(md_sync_completed_kind_to_string(i)), i,
                       "sync_completed kind %d round trip", i);
        for (int i = 0; i < _MD_SPEED_LIMIT_SOURCE_MAX; i++)
                is_int(md_speed_limit_source_from_string(md_speed_limit_source_to_string(i)), i,
                       "speed limit source %d round trip", i);
        for (int i = 0; i < _MD_MEMBER_STATE_MAX; i++)
                is_int(md_member_state_from_string(md_member_state_to_string(i)), i,
                       "member state %d round trip", i);
        ok(md_level_to_string(_MD_LEVEL_MAX) == NULL, "level out of range -> NULL");
        ok(md_level_to_string(_MD_LEVEL_INVALID) == NULL, "level invalid -> NULL");
        is_int(md_level_from_string("raid7"), _MD_LEVEL_INVALID, "from_string of unknown word");
        is_int(md_level_from_string(NULL), _MD_LEVEL_INVALID, "from_string(NULL)");
        is_int(md_member_state_from_string("writemostly"), MD_MEMBER_STATE_WRITE_MOSTLY,
               "md.rst spelling writemostly accepted");
        is_str(md_array_state_to_string(MD_ARRAY_STATE_READ_AUTO), "read-auto", "read-auto");
        is_str(md_array_state_to_string(MD_ARRAY_STATE_ACTIVE_IDLE), "active-idle", "active-idle");
}

static void test_words(void) {
        static const struct {
                const char *in;
                int r, level, state, action;
        } t[] = {
                /* in             r        level                 array_state             sync_action
                 */
                { "raid1\n", 0, MD_LEVEL_RAID1, MD_ARRAY_STATE_UNKNOWN, MD_SYNC_ACTION_UNKNOWN },
                { "linear", 0, MD_LEVEL_LINEAR, MD_ARRAY_STATE_UNKNOWN, MD_SYNC_ACTION_UNKNOWN },
                { " raid10 ", 0, MD_LEVEL_RAID10, MD_ARRAY_STATE_UNKNOWN, MD_SYNC_ACTION_UNKNOWN },
                { "clean", 0, MD_LEVEL_UNKNOWN, MD_ARRAY_STATE_CLEAN, MD_SYNC_ACTION_UNKNOWN },
                { "broken\n", 0, MD_LEVEL_UNKNOWN, MD_ARRAY_STATE_BROKEN, MD_SYNC_ACTION_UNKNOWN },
                { "read-auto", 0, MD_LEVEL_UNKNOWN, MD_ARRAY_STATE_READ_AUTO,
                  MD_SYNC_ACTION_UNKNOWN },
                { "write-pending", 0, MD_LEVEL_UNKNOWN, MD_ARRAY_STATE_WRITE_PENDING,
                  MD_SYNC_ACTION_UNKNOWN },
                { "reshape", 0, MD_LEVEL_UNKNOWN, MD_ARRAY_STATE_UNKNOWN, MD_SYNC_ACTION_RESHAPE },
                { "frozen\n", 0, MD_LEVEL_UNKNOWN, MD_ARRAY_STATE_UNKNOWN, MD_SYNC_ACTION_FROZEN },
                { "recover", 0, MD_LEVEL_UNKNOWN, MD_ARRAY_STATE_UNKNOWN, MD_SYNC_ACTION_RECOVER },
                { "idle", 0, MD_LEVEL_UNKNOWN, MD_ARRAY_STATE_UNKNOWN, MD_SYNC_ACTION_IDLE },
                /* md.c level_show() prints the number while assembling */
                { "5\n", 0, MD_LEVEL_RAID5, MD_ARRAY_STATE_UNKNOWN, MD_SYNC_ACTION_UNKNOWN },
                { "-1", 0, MD_LEVEL_LINEAR, MD_ARRAY_STATE_UNKNOWN, MD_SYNC_ACTION_UNKNOWN },
                { "-4", 0, MD_LEVEL_MULTIPATH, MD_ARRAY_STATE_UNKNOWN, MD_SYNC_ACTION_UNKNOWN },
                { "10", 0, MD_LEVEL_RAID10, MD_ARRAY_STATE_UNKNOWN, MD_SYNC_ACTION_UNKNOWN },
                { "7", 0, MD_LEVEL_UNKNOWN, MD_ARRAY_STATE_UNKNOWN, MD_SYNC_ACTION_UNKNOWN },
                { "99999999999999999999", 0, MD_LEVEL_UNKNOWN, MD_ARRAY_STATE_UNKNOWN,
                  MD_SYNC_ACTION_UNKNOWN },
                /* future words are valid */
                { "raid7", 0, MD_LEVEL_UNKNOWN, MD_ARRAY_STATE_UNKNOWN, MD_SYNC_ACTION_UNKNOWN },
                { "unknown", 0, MD_LEVEL_UNKNOWN, MD_ARRAY_STATE_UNKNOWN, MD_SYNC_ACTION_UNKNOWN },
                { "a-very-long-word-that-is-longer-than-sixty-four-characters-but-still-one-word",
                  0, MD_LEVEL_UNKNOWN, MD_ARRAY_STATE_UNKNOWN, MD_SYNC_ACTION_UNKNOWN },
                /* garbage */
                { "", -EINVAL, 0, 0, 0 },
                { "\n", -EINVAL, 0, 0, 0 },
                { "raid 1", -EINVAL, 0, 0, 0 },
                { "cl\001ean", -EINVAL, 0, 0, 0 },
        };

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                MdLevel l = 1234;
                MdArrayState s = 1234;
                MdSyncAction a = 1234;

                is_int(md_parse_level(t[i].in, &l), t[i].r, "level(\"%s\") r", E(t[i].in));
                is_int(md_parse_array_state(t[i].in, &s), t[i].r, "array_state(\"%s\") r",
                       E(t[i].in));
                is_int(md_parse_sync_action(t[i].in, &a), t[i].r, "sync_action(\"%s\") r",
                       E(t[i].in));
                if (t[i].r == 0) {
                        is_int(l, t[i].level, "level(\"%s\")", E(t[i].in));
                        is_int(s, t[i].state, "array_state(\"%s\")", E(t[i].in));
                        is_int(a, t[i].action, "sync_action(\"%s\")", E(t[i].in));
                } else
                        ok(l == 1234 && s == 1234 && a == 1234, "\"%s\": outputs untouched",
                           E(t[i].in));
        }
        is_int(md_parse_level(NULL, &(MdLevel){ 0 }), -EINVAL, "level(NULL)");
}

static void test_sync_completed(void) {
        static const struct {
                const char *in;
                int r;
                MdSyncCompletedKind kind;
                uint64_t done, total;
        } t[] = {
                { "none\n", 0, MD_SYNC_COMPLETED_NONE, 0, 0 },
                { "delayed\n", 0, MD_SYNC_COMPLETED_DELAYED, 0, 0 },
                { "32768 / 522240\n", 0, MD_SYNC_COMPLETED_PROGRESS, 32768, 522240 },
                { "0/100", 0, MD_SYNC_COMPLETED_PROGRESS, 0, 100 },
                { "5 / 0", 0, MD_SYNC_COMPLETED_PROGRESS, 5, 0 },
                { "18446744073709551615 / 18446744073709551615", 0, MD_SYNC_COMPLETED_PROGRESS,
                  UINT64_MAX, UINT64_MAX },
                { "pending", 0, MD_SYNC_COMPLETED_UNKNOWN, 0, 0 },
                { "18446744073709551616 / 1", -ERANGE, 0, 0, 0 },
                { "1 / 99999999999999999999999", -ERANGE, 0, 0, 0 },
                { "", -EINVAL, 0, 0, 0 },
                { "12", -EINVAL, 0, 0, 0 },
                { "1 /", -EINVAL, 0, 0, 0 },
                { "/ 5", -EINVAL, 0, 0, 0 },
                { "1 / 2 / 3", -EINVAL, 0, 0, 0 },
                { "a / b", -EINVAL, 0, 0, 0 },
                { "-1 / 5", -EINVAL, 0, 0, 0 },
                { "none please", -EINVAL, 0, 0, 0 },
        };

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                MdSyncCompleted c = { .kind = 99 };
                int r = md_parse_sync_completed(t[i].in, &c);

                is_int(r, t[i].r, "sync_completed(\"%s\") r", E(t[i].in));
                if (t[i].r == 0) {
                        is_int(c.kind, t[i].kind, "sync_completed(\"%s\") kind", E(t[i].in));
                        is_u64(c.done_sectors, t[i].done, "sync_completed(\"%s\") done",
                               E(t[i].in));
                        is_u64(c.total_sectors, t[i].total, "sync_completed(\"%s\") total",
                               E(t[i].in));
                } else
                        is_int(c.kind, 99, "sync_completed(\"%s\") untouched", E(t[i].in));
        }

        is_double(md_sync_completed_ratio(
                          &(MdSyncCompleted){ MD_SYNC_COMPLETED_PROGRESS, 32768, 522240 }),
                  32768.0 / 522240.0, 1e-12, "ratio");
        is_double(md_sync_completed_ratio(&(MdSyncCompleted){ MD_SYNC_COMPLETED_PROGRESS, 5, 0 }),
                  -1.0, 0, "ratio with total 0 unknown");
        is_double(md_sync_completed_ratio(&(MdSyncCompleted){ MD_SYNC_COMPLETED_PROGRESS, 7, 5 }),
                  1.0, 0, "ratio clamped");
        is_double(md_sync_completed_ratio(&(MdSyncCompleted){ MD_SYNC_COMPLETED_DELAYED, 0, 0 }),
                  -1.0, 0, "delayed has no ratio");
        is_double(md_sync_completed_ratio(NULL), -1.0, 0, "NULL has no ratio");
}

static void test_speed_limit(void) {
        static const struct {
                const char *in;
                int r;
                uint64_t v;
                MdSpeedLimitSource src;
        } t[] = {
                { "1000 (system)\n", 0, 1000, MD_SPEED_LIMIT_SYSTEM },
                { "2000 (local)", 0, 2000, MD_SPEED_LIMIT_LOCAL },
                { "2000000 (system)", 0, 2000000, MD_SPEED_LIMIT_SYSTEM },
                { "2000(local)", 0, 2000, MD_SPEED_LIMIT_LOCAL },
                { "5000", 0, 5000, _MD_SPEED_LIMIT_SOURCE_INVALID },
                { "1000 (bogus)", -EINVAL, 0, 0 },
                { "(system)", -EINVAL, 0, 0 },
                { "1000 (system", -EINVAL, 0, 0 },
                { "1000 (system) x", -EINVAL, 0, 0 },
                { "x (local)", -EINVAL, 0, 0 },
                { "", -EINVAL, 0, 0 },
                { "99999999999999999999 (local)", -ERANGE, 0, 0 },
        };

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                MdSpeedLimit l = { 77, 77 };

                is_int(md_parse_speed_limit(t[i].in, &l), t[i].r, "speed_limit(\"%s\") r",
                       E(t[i].in));
                if (t[i].r == 0) {
                        is_u64(l.kib_per_sec, t[i].v, "speed_limit(\"%s\") value", E(t[i].in));
                        is_int(l.source, t[i].src, "speed_limit(\"%s\") source", E(t[i].in));
                } else
                        is_u64(l.kib_per_sec, 77, "speed_limit(\"%s\") untouched", E(t[i].in));
        }
}

static void test_new_old(void) {
        static const struct {
                const char *in;
                int r;
                uint64_t n, o;
        } t[] = {
                { "2\n", 0, 2, 2 },
                { "4 (3)\n", 0, 4, 3 },
                { "65536 (131072)", 0, 65536, 131072 },
                { "4(3)", 0, 4, 3 },
                { "4 (", -EINVAL, 0, 0 },
                { "(3)", -EINVAL, 0, 0 },
                { "4 ()", -EINVAL, 0, 0 },
                { "4 (3) 5", -EINVAL, 0, 0 },
                { "", -EINVAL, 0, 0 },
                { "x", -EINVAL, 0, 0 },
                { "-4", -EINVAL, 0, 0 },
                { "4 (99999999999999999999)", -ERANGE, 0, 0 },
        };

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                uint64_t n = 9, o = 9;

                is_int(md_parse_new_old(t[i].in, &n, &o), t[i].r, "new_old(\"%s\") r", E(t[i].in));
                is_u64(n, t[i].r == 0 ? t[i].n : 9, "new_old(\"%s\") new", E(t[i].in));
                is_u64(o, t[i].r == 0 ? t[i].o : 9, "new_old(\"%s\") old", E(t[i].in));
        }
}

static void test_member_state(void) {
        static const struct {
                const char *in;
                int r;
                unsigned flags;
        } t[] = {
                { "in_sync\n", 0, FLAG(IN_SYNC) },
                { "in_sync,write_mostly", 0, FLAG(IN_SYNC) | FLAG(WRITE_MOSTLY) },
                { "in_sync,writemostly", 0, FLAG(IN_SYNC) | FLAG(WRITE_MOSTLY) },
                { "faulty", 0, FLAG(FAULTY) },
                { "spare", 0, FLAG(SPARE) },
                { "faulty,write_error,blocked", 0,
                  FLAG(FAULTY) | FLAG(WRITE_ERROR) | FLAG(BLOCKED) },
                { "in_sync,want_replacement", 0, FLAG(IN_SYNC) | FLAG(WANT_REPLACEMENT) },
                { "spare,replacement", 0, FLAG(SPARE) | FLAG(REPLACEMENT) },
                { "journal", 0, FLAG(JOURNAL) },
                { "in_sync,external_bbl,failfast", 0,
                  FLAG(IN_SYNC) | FLAG(EXTERNAL_BBL) | FLAG(FAILFAST) },
                { "in_sync,frobnicated", 0, FLAG(IN_SYNC) | FLAG(UNKNOWN) },
                { "unknown", 0, FLAG(UNKNOWN) },
                { "", 0, 0 },
                { "\n", 0, 0 },
                { ",in_sync", -EINVAL, 0 },
                { "in_sync,", -EINVAL, 0 },
                { "in_sync,,faulty", -EINVAL, 0 },
                { "in sync", -EINVAL, 0 },
        };

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                unsigned f = 0xdead;

                is_int(md_parse_member_state(t[i].in, &f), t[i].r, "member_state(\"%s\") r",
                       E(t[i].in));
                is_int(f, t[i].r == 0 ? t[i].flags : 0xdead, "member_state(\"%s\") flags",
                       E(t[i].in));
        }
        is_int(md_parse_member_state(NULL, &(unsigned){ 0 }), -EINVAL, "member_state(NULL)");
}

static void test_slot_and_numbers(void) {
        static const struct {
                const char *in;
                int r, slot;
        } s[] = {
                { "0\n", 0, 0 },      { "3", 0, 3 },           { "none\n", 0, MD_SLOT_NONE },
                { "-1", -EINVAL, 0 }, { "", -EINVAL, 0 },      { "2147483648", -ERANGE, 0 },
                { "1x", -EINVAL, 0 }, { "noneX", -EINVAL, 0 },
        };
        static const struct {
                const char *in;
                int r;
                uint64_t v;
        } u[] = {
                { "none\n", 0, MD_UNSET },
                { "6869\n", 0, 6869 },
                { "0", 0, 0 },
                { "18446744073709551614", 0, UINT64_MAX - 1 },
                { "18446744073709551615", -ERANGE, 0 }, /* would alias MD_UNSET */
                { "18446744073709551616", -ERANGE, 0 },
                { "", -EINVAL, 0 },
                { "12 KiB", -EINVAL, 0 },
                { "default", -EINVAL, 0 },
        };

        for (size_t i = 0; i < ELEMENTSOF(s); i++) {
                int v = 4242;
                is_int(md_parse_slot(s[i].in, &v), s[i].r, "slot(\"%s\") r", E(s[i].in));
                is_int(v, s[i].r == 0 ? s[i].slot : 4242, "slot(\"%s\") value", E(s[i].in));
        }
        for (size_t i = 0; i < ELEMENTSOF(u); i++) {
                uint64_t v = 4242;
                is_int(md_parse_u64_or_none(u[i].in, &v), u[i].r, "u64_or_none(\"%s\") r",
                       E(u[i].in));
                is_u64(v, u[i].r == 0 ? u[i].v : 4242, "u64_or_none(\"%s\") value", E(u[i].in));
        }
}

/* IMSM/DDF: metadata_version as mdadm 4.2 and md 6.1 write it (see verdict-imsm in the VM). */
static void test_container(void) {
        static const struct {
                const char *metadata, *container;
                MdLevel level;
                bool is_container;
        } t[] = {
                { "external:imsm", "", MD_LEVEL_CONTAINER, true },
                { "external:ddf", "", _MD_LEVEL_INVALID, true },
                { "external:/md127/0", "md127", MD_LEVEL_RAID1, false },
                { "external:-md127/0", "", MD_LEVEL_RAID1, false }, /* frozen by mdmon */
                { "external://0", "", MD_LEVEL_RAID1, false },
                { "1.2", "", MD_LEVEL_RAID1, false },
                { NULL, "", MD_LEVEL_RAID1, false },
        };
        char buf[64], tiny[4];

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                MdArray a = { .metadata_version = (char *) t[i].metadata, .level = t[i].level };

                is_int(md_array_is_container(&a), t[i].is_container, "%s: container",
                       t[i].metadata ?: "(null)");
                is_int(md_array_container_name(&a, buf, sizeof(buf)), t[i].container[0] != 0,
                       "%s: names a container", t[i].metadata ?: "(null)");
                is_str(buf, t[i].container, "%s: container name", t[i].metadata ?: "(null)");
        }
        MdArray a = { .metadata_version = (char *) "external:/md127/0" };
        ok(!md_array_container_name(&a, tiny, sizeof(tiny)) && tiny[0] == 0,
           "a name that does not fit is refused, not cut");
        ok(!md_array_is_container(NULL) && !md_array_container_name(NULL, buf, sizeof(buf)),
           "NULL array");
}

int main(void) {
        test_tables();
        test_container();
        test_words();
        test_sync_completed();
        test_speed_limit();
        test_new_old();
        test_member_state();
        test_slot_and_numbers();
        return tap_done();
}

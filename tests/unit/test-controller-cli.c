/* SPDX-License-Identifier: MIT */
/* Vendor CLI parsers on recorded outputs (tests/fixtures/controller/, see SOURCE there), on
 * variants derived from them, on garbage/empty/truncated input; and the runner against fake CLIs
 * on PATH (fixtures/controller/fake-cli/: ok, hang, fail, garbage). */

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sources/controller-cli-run.h"
#include "basic/fileio.h"
#include "basic/macro.h"
#include "tap.h"

#define GIB 1073741824.0
#define TIB 1099511627776.0
#define MIB 1048576.0

static const char *fixtures;

static char *load(const char *rel, size_t *ret_size) {
        char path[4096];
        char *buf = NULL;
        size_t n = 0;
        int r;

        snprintf(path, sizeof(path), "%s/controller/%s", fixtures, rel);
        r = read_full_file_at(AT_FDCWD, path, &buf, &n);
        ok(r >= 0, "read fixture %s", rel);
        if (r < 0) {
                buf = strdup("");
                n = 0;
        }
        *ret_size = n;
        return buf;
}

/* Copy of `s` with the first occurrence of `from` replaced by `to` (test-derived variants of a
 * recorded output; the recorded file itself stays verbatim). */
static char *replace1(const char *s, const char *from, const char *to) {
        const char *p = strstr(s, from);
        size_t a, b, c;
        char *out;

        if (!p)
                return strdup(s);
        a = (size_t) (p - s);
        b = strlen(to);
        c = strlen(p + strlen(from));
        out = malloc(a + b + c + 1);
        memcpy(out, s, a);
        memcpy(out + a, to, b);
        memcpy(out + a + b, p + strlen(from), c + 1);
        return out;
}

/* Like replace1, but only after the first occurrence of `after`. */
static char *replace1_after(const char *s, const char *after, const char *from, const char *to) {
        const char *a = strstr(s, after);
        _cleanup_free_ char *tail = NULL;
        char *out;

        if (!a)
                return strdup(s);
        tail = replace1(a, from, to);
        if (asprintf(&out, "%.*s%s", (int) (a - s), s, tail) < 0)
                abort();
        return out;
}

static void test_states(void) {
        static const struct {
                const char *s;
                ControllerVolumeState want;
        } storcli[] = {
                { "Optl", CONTROLLER_VOLUME_OPTIMAL },    { "Dgrd", CONTROLLER_VOLUME_DEGRADED },
                { "Pdgd", CONTROLLER_VOLUME_DEGRADED },   { "Rec", CONTROLLER_VOLUME_REBUILDING },
                { "OfLn", CONTROLLER_VOLUME_OFFLINE },    { "optl", CONTROLLER_VOLUME_OPTIMAL },
                { "Optimal", CONTROLLER_VOLUME_OPTIMAL }, { "", CONTROLLER_VOLUME_UNKNOWN },
                { "Opt", CONTROLLER_VOLUME_UNKNOWN },     { "Optlx", CONTROLLER_VOLUME_UNKNOWN },
                { NULL, CONTROLLER_VOLUME_UNKNOWN },
        };
        static const struct {
                const char *s;
                ControllerVolumeState want;
                double progress;
        } ssacli[] = {
                { "OK", CONTROLLER_VOLUME_OPTIMAL, -1 },
                { "Interim Recovery Mode", CONTROLLER_VOLUME_DEGRADED, -1 },
                { "Ready for Rebuild", CONTROLLER_VOLUME_DEGRADED, -1 },
                { "Recovering, 26% complete", CONTROLLER_VOLUME_REBUILDING, 0.26 },
                { "Recovering, 100% complete", CONTROLLER_VOLUME_REBUILDING, 1.0 },
                { "Recovering, 101% complete", CONTROLLER_VOLUME_REBUILDING, -1 },
                { "Recovering, junk", CONTROLLER_VOLUME_REBUILDING, -1 },
                { "Recovering", CONTROLLER_VOLUME_REBUILDING, -1 },
                { "Failed", CONTROLLER_VOLUME_FAILED, -1 },
                { "Transforming, 5% complete", CONTROLLER_VOLUME_UNKNOWN, -1 },
                { "OKAY", CONTROLLER_VOLUME_UNKNOWN, -1 },
                { "", CONTROLLER_VOLUME_UNKNOWN, -1 },
        };
        static const struct {
                const char *s;
                ControllerVolumeState want;
        } arcconf[] = {
                { "Optimal", CONTROLLER_VOLUME_OPTIMAL },
                { "Degraded", CONTROLLER_VOLUME_DEGRADED },
                { "Suboptimal, Fault Tolerant", CONTROLLER_VOLUME_DEGRADED },
                { "Degraded, Rebuilding", CONTROLLER_VOLUME_REBUILDING },
                { "Failed", CONTROLLER_VOLUME_FAILED },
                { "Offline", CONTROLLER_VOLUME_OFFLINE },
                { "Impacted", CONTROLLER_VOLUME_UNKNOWN },
                { "", CONTROLLER_VOLUME_UNKNOWN },
        };

        for (size_t i = 0; i < ELEMENTSOF(storcli); i++)
                is_int(storcli_vd_state_from_string(storcli[i].s), storcli[i].want,
                       "storcli state \"%s\"", storcli[i].s ?: "(null)");
        for (size_t i = 0; i < ELEMENTSOF(ssacli); i++) {
                double p = 42;

                is_int(ssacli_ld_state_from_string(ssacli[i].s, &p), ssacli[i].want,
                       "ssacli state \"%s\"", ssacli[i].s);
                is_double(p, ssacli[i].progress, 1e-9, "ssacli progress of \"%s\"", ssacli[i].s);
        }
        for (size_t i = 0; i < ELEMENTSOF(arcconf); i++)
                is_int(arcconf_ld_state_from_string(arcconf[i].s), arcconf[i].want,
                       "arcconf state \"%s\"", arcconf[i].s);

        for (int i = 0; i < _CONTROLLER_VOLUME_STATE_MAX; i++)
                is_int(controller_volume_state_from_string(controller_volume_state_to_string(i)), i,
                       "volume state %d round-trips", i);
        ok(controller_volume_state_to_string(_CONTROLLER_VOLUME_STATE_MAX) == NULL, "MAX -> NULL");
        is_int(controller_volume_state_from_string("bogus"), -EINVAL, "bogus -> -EINVAL");
}

/* storcli `/call/vall show all J`: the recorded RAID1 VD, whose wwid it matches; the progress
 * table of a drive that is not a rebuilding member changes nothing */
static void test_storcli_vall(const char *vall, size_t n_vall, const char *prog, size_t n_prog) {
        ControllerVolumeList l = {};
        ControllerVolume *v;

        is_int(storcli_parse_volumes(vall, n_vall, &l), 0, "storcli vall parses");
        is_int(l.n, 1, "one VD");
        if (l.n == 1) {
                v = &l.volumes[0];
                is_str(v->controller, "0", "controller 0");
                is_str(v->volume_id, "239", "VD 239 (from /c0/v239)");
                is_str(v->raid_level, "RAID1", "TYPE RAID1");
                is_str(v->name, "NVMe-RAID-1", "name");
                is_int(v->state, CONTROLLER_VOLUME_OPTIMAL, "Optl -> optimal");
                is_str(v->state_raw, "Optl", "raw state kept");
                is_str(v->os_device, "/dev/sda", "OS Drive Name from VD239 Properties");
                is_str(v->naa_id, "600062b2073a48402a7be3283fc1215e", "SCSI NAA Id");
                ok(controller_volume_matches_wwid(v, "naa.600062b2073a48402a7be3283fc1215e\n"),
                   "matches sysfs wwid");
                ok(controller_volume_matches_wwid(v, "0x600062B2073A48402A7BE3283FC1215E"),
                   "matches udev ID_WWN_WITH_EXTENSION, any case");
                ok(!controller_volume_matches_wwid(v, "naa.600062b2073a48402a7be3283fc1215f"),
                   "another id does not match");
                ok(!controller_volume_matches_wwid(v, "t10.ATA     QEMU HARDDISK"),
                   "a non-NAA wwid does not match");
                ok(!controller_volume_matches_wwid(v, NULL), "NULL wwid does not match");
                /* "744.687 GiB" against the independent "Number of Blocks" 1561722880 x 512 */
                is_double((double) v->size_bytes, 1561722880.0 * 512.0, 0.001 * GIB,
                          "size matches the block count");
                ok(v->rebuild_drive == NULL, "no member rebuilding");
                is_double(v->progress, CONTROLLER_PROGRESS_UNKNOWN, 0, "no progress");
                ok(v->operation == NULL, "no operation");

                /* progress table for a drive that is not a rebuilding member: nothing changes */
                is_int(storcli_apply_rebuild(&l, prog, n_prog), 0, "progress of another drive");
                is_int(v->state, CONTROLLER_VOLUME_OPTIMAL, "still optimal");
        }
        controller_volume_list_done(&l);
        is_int(l.n, 0, "list reset");
}

/* derived: the first member in Rbld */
static void test_storcli_rebuilding_member(const char *vall) {
        ControllerVolumeList l = {};
        ControllerVolume *v;
        _cleanup_free_ char *rbld = replace1(vall, "\"State\" : \"Onln\"", "\"State\" : \"Rbld\"");
        _cleanup_free_ char *dgrd = replace1(rbld, "\"State\" : \"Optl\"", "\"State\" : \"Dgrd\"");

        is_int(storcli_parse_volumes(dgrd, strlen(dgrd), &l), 0, "derived Dgrd/Rbld parses");
        if (l.n == 1) {
                v = &l.volumes[0];
                is_int(v->state, CONTROLLER_VOLUME_DEGRADED, "Dgrd -> degraded");
                is_str(v->rebuild_drive, "/c0/e251/s1", "rebuilding member path");
        }
        controller_volume_list_done(&l);
}

/* derived: two controllers with the same VD number; only /c1's member rebuilds */
static void test_storcli_two_controllers(const char *vall) {
        ControllerVolumeList l = {};
        const char *a = strstr(vall, "[\n{"), *b = strrchr(vall, ']');
        _cleanup_free_ char *obj0 = NULL, *obj1a = NULL, *obj1 = NULL, *two = NULL;

        ok(a && b && b > a, "fixture has the Controllers array");
        if (a && b && b > a) {
                obj0 = strndup(a + 1, (size_t) (b - a - 1));
                obj1a = replace1(obj0, "/c0/v239", "/c1/v239");
                obj1 = replace1(obj1a, "\"State\" : \"Onln\"", "\"State\" : \"Rbld\"");
                if (asprintf(&two, "{\"Controllers\":[%s,%s]}", obj0, obj1) < 0)
                        abort();
                is_int(storcli_parse_volumes(two, strlen(two), &l), 0, "two controllers");
                is_int(l.n, 2, "two VDs");
                if (l.n == 2) {
                        is_str(l.volumes[0].controller, "0", "first on c0");
                        ok(l.volumes[0].rebuild_drive == NULL, "c0's VD 239 not rebuilding");
                        is_str(l.volumes[1].controller, "1", "second on c1");
                        is_str(l.volumes[1].rebuild_drive, "/c1/e251/s1",
                               "c1's member list applied to c1's VD 239");
                        is_str(l.volumes[1].os_device, "/dev/sda", "c1 properties");
                }
                controller_volume_list_done(&l);
        }
}

/* perccli `/cALL show all J`: VD LIST / PD LIST rows */
static void test_perccli(void) {
        ControllerVolumeList l = {};
        ControllerVolume *v;
        _cleanup_free_ char *perc = NULL, *dg1 = NULL, *dg2 = NULL;
        size_t n_perc;

        perc = load("perccli/call-show-all-perc-h345.json", &n_perc);
        is_int(storcli_parse_volumes(perc, n_perc, &l), 0, "perccli show all parses");
        is_int(l.n, 1, "one VD from VD LIST");
        if (l.n == 1) {
                v = &l.volumes[0];
                is_str(v->controller, "0", "controller from Basics");
                is_str(v->volume_id, "0", "VD 0 from DG/VD 0/0");
                is_str(v->raid_level, "RAID0", "RAID0");
                is_int(v->state, CONTROLLER_VOLUME_OPTIMAL, "Optl");
                is_double((double) v->size_bytes, 1.089 * TIB, 1.0, "1.089 TB");
                ok(v->os_device == NULL, "no OS device in this shape");
                ok(v->rebuild_drive == NULL, "no member rebuilding");
        }
        controller_volume_list_done(&l);

        dg1 = replace1_after(perc, "\"VD LIST\"", "\"Optl\"", "\"Pdgd\"");
        dg2 = replace1_after(dg1, "\"PD LIST\"", "\"Onln\"", "\"Rbld\"");
        is_int(storcli_parse_volumes(dg2, strlen(dg2), &l), 0, "derived Pdgd/Rbld parses");
        if (l.n == 1) {
                is_int(l.volumes[0].state, CONTROLLER_VOLUME_DEGRADED, "Pdgd -> degraded");
                is_str(l.volumes[0].rebuild_drive, "/c0/e69/s0", "PD LIST member of DG 0");
        }
        controller_volume_list_done(&l);
}

/* rebuild progress applied to a volume whose member /c0/e252/s0 rebuilds */
static void test_storcli_progress(const char *prog, size_t n_prog, const char *idle,
                                  size_t n_idle) {
        ControllerVolume *v;
        ControllerVolumeList m = {};

        m.volumes = calloc(1, sizeof(ControllerVolume));
        m.n = 1;
        v = &m.volumes[0];
        v->controller = strdup("0");
        v->volume_id = strdup("0");
        v->rebuild_drive = strdup("/c0/e252/s0");
        v->state = CONTROLLER_VOLUME_DEGRADED;
        v->progress = CONTROLLER_PROGRESS_UNKNOWN;
        v->eta_usec = USEC_INFINITY;

        is_int(storcli_apply_rebuild(&m, idle, n_idle), 0, "not in progress: no update");
        is_int(v->state, CONTROLLER_VOLUME_DEGRADED, "still degraded");
        is_int(storcli_apply_rebuild(&m, "garbage", 7), -EBADMSG, "garbage progress");
        is_int(v->state, CONTROLLER_VOLUME_DEGRADED, "untouched after garbage");
        is_int(storcli_apply_rebuild(&m, prog, n_prog), 1, "in progress: one update");
        is_int(v->state, CONTROLLER_VOLUME_REBUILDING, "rebuilding");
        is_double(v->progress, 0.39, 1e-9, "Progress%% 39");
        is_u64(v->eta_usec, 5 * 60 * USEC_PER_SEC, "Estimated Time Left 5 Minutes");
        is_str(v->operation, "Rebuild", "operation Rebuild");
        {
                _cleanup_free_ char *str =
                        replace1(prog, "\"Progress%\" : 39", "\"Progress%\" : \"57\"");

                is_int(storcli_apply_rebuild(&m, str, strlen(str)), 1, "Progress%% as a string");
                is_double(v->progress, 0.57, 1e-9, "string progress 57");
        }
        controller_volume_list_done(&m);
}

/* garbage, empty, truncated, wrong shapes */
static const char *const storcli_bad[] = {
        "",
        "{",
        "[]",
        "null",
        "{\"Controllers\": {}}",
        "{\"Controllers\": []}",
        "{\"Controllers\": [1, \"x\"]}",
        "{\"Controllers\":[{\"Command Status\":{\"Status\":\"Success\"}}]} trailing",
        "<html>storcli: command not found</html>",
};

static void test_storcli_bad_input(const char *vall, size_t n_vall) {
        ControllerVolumeList l = {};
        char with_nul[] = "{\"Controllers\":[]}\0{}";

        for (size_t i = 0; i < ELEMENTSOF(storcli_bad); i++) {
                ControllerVolumeList x = {};

                is_int(storcli_parse_volumes(storcli_bad[i], strlen(storcli_bad[i]), &x), -EBADMSG,
                       "storcli bad input #%zu", i);
                is_int(x.n, 0, "nothing written for bad input #%zu", i);
        }
        is_int(storcli_parse_volumes(vall, n_vall / 2, &l), -EBADMSG, "truncated JSON");
        is_int(storcli_parse_volumes(NULL, 0, &l), -EBADMSG, "NULL text");
        is_int(storcli_parse_volumes(vall, n_vall, NULL), -EINVAL, "NULL ret");
        is_int(storcli_parse_volumes(with_nul, sizeof(with_nul) - 1, &l), -EBADMSG, "embedded NUL");
}

/* a failed command, no VDs, an overflowing size, a malformed VD key */
static void test_storcli_odd_responses(const char *vall) {
        ControllerVolumeList l = {};
        const char *fail = "{\"Controllers\":[{\"Command Status\":{\"Controller\":0,"
                           "\"Status\":\"Failure\",\"Description\":\"No VDs have "
                           "been configured\"}}]}";
        const char *novd = "{\"Controllers\":[{\"Command Status\":{\"Status\":"
                           "\"Success\"},\"Response Data\":{}}]}";
        _cleanup_free_ char *huge = replace1(vall, "744.687 GiB", "99999999999999999999 TiB");
        _cleanup_free_ char *badkey = replace1(vall, "/c0/v239", "/c0/v");

        is_int(storcli_parse_volumes(fail, strlen(fail), &l), -EIO,
               "all controllers failed -> -EIO");

        is_int(storcli_parse_volumes(novd, strlen(novd), &l), 0, "no VDs -> 0");
        is_int(l.n, 0, "empty list");
        controller_volume_list_done(&l);

        is_int(storcli_parse_volumes(huge, strlen(huge), &l), 0, "huge size parses");
        if (l.n == 1)
                is_u64(l.volumes[0].size_bytes, CONTROLLER_SIZE_UNKNOWN,
                       "overflowing size -> unknown");
        controller_volume_list_done(&l);
        is_int(storcli_parse_volumes(badkey, strlen(badkey), &l), 0, "malformed VD key parses");
        is_int(l.n, 0, "malformed VD key skipped");
        controller_volume_list_done(&l);
}

static void test_storcli(void) {
        _cleanup_free_ char *vall = NULL, *prog = NULL, *idle = NULL;
        size_t n_vall, n_prog, n_idle;

        vall = load("storcli/vall-nvme-raid1-optimal.json", &n_vall);
        prog = load("storcli/drive-progress-in-progress.json", &n_prog);
        idle = load("storcli/drive-progress-not-in-progress.json", &n_idle);

        test_storcli_vall(vall, n_vall, prog, n_prog);
        test_storcli_rebuilding_member(vall);
        test_storcli_two_controllers(vall);
        test_perccli();
        test_storcli_progress(prog, n_prog, idle, n_idle);
        test_storcli_bad_input(vall, n_vall);
        test_storcli_odd_responses(vall);
}

/* `ctrl all show config detail` of a P440ar */
static void test_ssacli_detail(const char *detail, size_t n_detail) {
        ControllerVolumeList l = {};
        ControllerVolume *v;

        is_int(ssacli_parse_config(detail, n_detail, &l), 0, "ssacli detail parses");
        is_int(l.n, 1, "one logical drive");
        if (l.n == 1) {
                v = &l.volumes[0];
                is_str(v->controller, "0", "Slot 0");
                is_str(v->volume_id, "1", "Logical Drive: 1");
                is_str(v->raid_level, "1+0", "Fault Tolerance 1+0");
                is_int(v->state, CONTROLLER_VOLUME_OPTIMAL, "Status: OK");
                is_str(v->os_device, "/dev/sda", "Disk Name");
                is_str(v->name, "A9255E2C50123456789ABCDE7239", "Logical Drive Label");
                is_str(v->naa_id, "600508b1001c158b69c0104da29e6ff7", "Unique Identifier");
                ok(controller_volume_matches_wwid(v, "naa.600508b1001c158b69c0104da29e6ff7"),
                   "ssacli volume matches its wwid");
                is_double((double) v->size_bytes, 5.2 * TIB, 1.0,
                          "5.2 TB (not the member's 1.9 TB)");
        }
        controller_volume_list_done(&l);
}

/* an E200i in Interim Recovery Mode, and derived from it a recovering one */
static void test_ssacli_interim_recovery(const char *irm, size_t n_irm) {
        ControllerVolumeList l = {};
        ControllerVolume *v;

        is_int(ssacli_parse_config(irm, n_irm, &l), 0, "interim recovery parses");
        is_int(l.n, 1, "one logical drive");
        if (l.n == 1) {
                v = &l.volumes[0];
                is_int(v->state, CONTROLLER_VOLUME_DEGRADED, "Interim Recovery Mode -> degraded");
                is_str(v->state_raw, "Interim Recovery Mode", "raw state");
                is_str(v->raid_level, "RAID 5", "RAID 5");
                is_double((double) v->size_bytes, 136.7 * GIB, 1.0, "136.7 GB");
                is_str(v->controller, "0", "E200i in Slot 0");
        }
        controller_volume_list_done(&l);

        {
                _cleanup_free_ char *rec =
                        replace1(irm, "Interim Recovery Mode", "Recovering, 26% complete");

                is_int(ssacli_parse_config(rec, strlen(rec), &l), 0, "derived recovering parses");
                if (l.n == 1) {
                        v = &l.volumes[0];
                        is_int(v->state, CONTROLLER_VOLUME_REBUILDING, "recovering -> rebuilding");
                        is_double(v->progress, 0.26, 1e-9, "26%% complete");
                        is_str(v->operation, "Rebuild", "operation Rebuild");
                        is_str(v->state_raw, "Recovering, 26% complete", "raw state with comma");
                }
                controller_volume_list_done(&l);
        }
}

/* the one-line `ld all show` forms of a P420i and of a tab-indented B140i */
static void test_ssacli_short_forms(const char *okp, size_t n_ok, const char *tab, size_t n_tab) {
        ControllerVolumeList l = {};

        is_int(ssacli_parse_config(okp, n_ok, &l), 0, "P420i short form parses");
        if (l.n == 1) {
                is_int(l.volumes[0].state, CONTROLLER_VOLUME_OPTIMAL, "OK -> optimal");
                is_str(l.volumes[0].raid_level, "RAID 1", "RAID 1");
        } else
                ok(0, "P420i: one logical drive (got %zu)", l.n);
        controller_volume_list_done(&l);

        is_int(ssacli_parse_config(tab, n_tab, &l), 0, "B140i tab-indented short form parses");
        if (l.n == 1) {
                is_str(l.volumes[0].controller, "0b", "Slot 0b");
                is_double((double) l.volumes[0].size_bytes, 10.9 * TIB, 1.0, "10.9 TB");
        } else
                ok(0, "B140i: one logical drive (got %zu)", l.n);
        controller_volume_list_done(&l);
}

/* the "no logical drives" error, garbage, truncated and malformed output */
static void test_ssacli_bad_input(const char *err, size_t n_err, const char *detail,
                                  size_t n_detail) {
        ControllerVolumeList l = {};

        is_int(ssacli_parse_config(err, n_err, &l), -ENODATA,
               "Error: no logical drives -> -ENODATA");
        is_int(l.n, 0, "nothing written");
        is_int(ssacli_parse_config("", 0, &l), -EBADMSG, "empty -> -EBADMSG");
        is_int(ssacli_parse_config("hello\nworld\n", 12, &l), -EBADMSG, "garbage -> -EBADMSG");
        is_int(ssacli_parse_config(NULL, 0, &l), -EBADMSG, "NULL -> -EBADMSG");
        is_int(ssacli_parse_config(detail, n_detail / 3, &l), 0, "truncated detail parses");
        controller_volume_list_done(&l);
        {
                const char *odd =
                        "Smart Array X in Slot 1\n   logicaldrive 1 (\n   logicaldrive 2 (1 GB)\n"
                        "   logicaldrive 3 (99999999999999999999999 TB, RAID 0, OK)\n"
                        "   logicaldrive (1 GB, RAID 0, OK)\n";

                is_int(ssacli_parse_config(odd, strlen(odd), &l), 0, "malformed lines parse");
                is_int(l.n, 1, "only the well-formed drive is kept");
                if (l.n == 1)
                        is_u64(l.volumes[0].size_bytes, CONTROLLER_SIZE_UNKNOWN,
                               "overflowing size -> unknown");
                controller_volume_list_done(&l);
        }
}

static void test_ssacli(void) {
        _cleanup_free_ char *detail = NULL, *irm = NULL, *okp = NULL, *err = NULL, *tab = NULL;
        size_t n_detail, n_irm, n_ok, n_err, n_tab;

        detail = load("ssacli/config-detail-p440ar-head.txt", &n_detail);
        irm = load("ssacli/show-interim-recovery-e200i.txt", &n_irm);
        okp = load("ssacli/ld-show-ok-p420i.txt", &n_ok);
        err = load("ssacli/ld-show-error-no-ld.txt", &n_err);
        tab = load("ssacli/ld-show-b140i-tab.txt", &n_tab);

        test_ssacli_detail(detail, n_detail);
        test_ssacli_interim_recovery(irm, n_irm);
        test_ssacli_short_forms(okp, n_ok, tab, n_tab);
        test_ssacli_bad_input(err, n_err, detail, n_detail);
}

static void test_arcconf(void) {
        _cleanup_free_ char *ld = NULL, *al = NULL, *rb = NULL, *bv = NULL, *none = NULL;
        size_t n_ld, n_al, n_rb, n_bv, n_none;
        ControllerVolumeList l = {};
        ControllerVolume *v;

        ld = load("arcconf/getconfig-ld-raid10-optimal.txt", &n_ld);
        al = load("arcconf/getconfig-al-raid10-degraded.txt", &n_al);
        rb = load("arcconf/getstatus-rebuild.txt", &n_rb);
        bv = load("arcconf/getstatus-build-verify.txt", &n_bv);
        none = load("arcconf/getstatus-none.txt", &n_none);

        is_int(arcconf_parse_ld(ld, n_ld, "1", &l), 0, "arcconf LD parses");
        is_int(l.n, 1, "one logical device");
        if (l.n == 1) {
                v = &l.volumes[0];
                is_str(v->controller, "1", "controller 1 as asked");
                is_str(v->volume_id, "0", "Logical device number 0");
                is_str(v->name, "LogicalDrv 0", "name");
                is_str(v->raid_level, "10", "RAID level 10");
                is_int(v->state, CONTROLLER_VOLUME_OPTIMAL, "Optimal");
                is_u64(v->size_bytes, (uint64_t) 915446 * 1048576, "915446 MB");

                is_int(arcconf_apply_status(&l, bv, n_bv), 1, "Build/Verify task applies");
                is_str(v->operation, "Build/Verify with fix", "operation");
                is_double(v->progress, 0.90, 1e-9, "90 %%");
                is_int(v->state, CONTROLLER_VOLUME_OPTIMAL, "a verify is not a rebuild");
        }
        controller_volume_list_done(&l);

        is_int(arcconf_parse_ld(al, n_al, "1", &l), 0, "arcconf AL (degraded) parses");
        is_int(l.n, 1, "one logical device, physical devices ignored");
        if (l.n == 1) {
                v = &l.volumes[0];
                is_str(v->name, "data", "name data");
                is_int(v->state, CONTROLLER_VOLUME_DEGRADED, "Degraded");
                is_u64(v->size_bytes, (uint64_t) 1906678 * 1048576, "1906678 MB");
                is_int(arcconf_apply_status(&l, none, n_none), 0, "no task: no update");
                is_int(arcconf_apply_status(&l, "garbage\n", 8), -EBADMSG, "garbage status");
                is_int(v->state, CONTROLLER_VOLUME_DEGRADED, "untouched");
                is_int(arcconf_apply_status(&l, rb, n_rb), 1, "Rebuild task applies");
                is_int(v->state, CONTROLLER_VOLUME_REBUILDING, "rebuilding");
                is_double(v->progress, 0.01, 1e-9, "1 %%");
                is_str(v->operation, "Rebuild", "operation Rebuild");
        }
        controller_volume_list_done(&l);

        is_int(arcconf_parse_ld(none, n_none, "1", &l), -ENODATA, "no logical device -> -ENODATA");
        is_int(arcconf_parse_ld("", 0, "1", &l), -EBADMSG, "empty -> -EBADMSG");
        is_int(arcconf_parse_ld("Logical device number 0\n   Status of logical device : Optimal\n",
                                58, "1", &l),
               -EBADMSG, "no arcconf marker -> -EBADMSG");
        is_int(arcconf_parse_ld(ld, n_ld, NULL, &l), -EINVAL, "NULL controller");
        is_int(arcconf_parse_ld(ld, n_ld / 4, "1", &l), 0, "truncated output parses");
        controller_volume_list_done(&l);
        {
                _cleanup_free_ char *huge = replace1(ld, "915446 MB", "99999999999999999999999 TB");

                is_int(arcconf_parse_ld(huge, strlen(huge), "1", &l), 0, "huge size parses");
                if (l.n == 1)
                        is_u64(l.volumes[0].size_bytes, CONTROLLER_SIZE_UNKNOWN, "-> unknown");
                controller_volume_list_done(&l);
        }
}

/* Is a process running "sleep <tag>" (the hang fake's child started with --tag=<tag>) still
 * alive? Zombies have an empty cmdline and do not count. The tag contains our pid, so parallel
 * runs of this test (other build dirs on the same machine) do not see each other's child. */
static bool hang_child_alive(const char *tag) {
        char want[64];
        size_t wn;
        DIR *d = opendir("/proc");
        struct dirent *de;
        bool found = false;

        wn = (size_t) snprintf(want, sizeof(want), "sleep%c%s", 0, tag) + 1;
        if (!d)
                return false;
        while (!found && (de = readdir(d))) {
                char path[300], buf[64];
                ssize_t k;
                int fd;

                if (de->d_name[0] < '0' || de->d_name[0] > '9')
                        continue;
                snprintf(path, sizeof(path), "/proc/%s/cmdline", de->d_name);
                fd = open(path, O_RDONLY | O_CLOEXEC);
                if (fd < 0)
                        continue;
                k = read(fd, buf, sizeof(buf));
                close(fd);
                found = k >= (ssize_t) wn && memcmp(buf, want, wn) == 0;
        }
        closedir(d);
        return found;
}

static char *fake_path(const char *kind) {
        char *p;

        if (asprintf(&p, "%s/controller/fake-cli/%s:/usr/bin:/bin", fixtures, kind) < 0)
                abort();
        return p;
}

/* the runner itself: output captured, a failing exit, endless output, a failed exec */
static void test_runner_run(ProcessReaper *reaper) {
        char *out = NULL;
        size_t n;

        {
                char *argv[] = { (char *) "echo", (char *) "hi", NULL };

                is_int(controller_cli_run(reaper, "/bin/echo", argv, "/usr/bin:/bin",
                                          5 * USEC_PER_SEC, 1024, &out, &n),
                       0, "echo runs");
                is_str(out, "hi\n", "stdout captured");
                is_int(n, 3, "size");
                free(out);
                out = NULL;
                is_int(controller_cli_run(reaper, "/bin/echo", argv, NULL, USEC_INFINITY, 1024,
                                          &out, &n),
                       0, "no timeout (USEC_INFINITY) does not overflow the deadline");
                free(out);
                out = NULL;
        }
        {
                char *argv[] = { (char *) "false", NULL };

                is_int(controller_cli_run(reaper, "/bin/false", argv, NULL, 5 * USEC_PER_SEC, 1024,
                                          &out, &n),
                       -EPROTO, "exit 1 -> -EPROTO");
                ok(out == NULL, "no output on failure");
        }
        {
                char *argv[] = { (char *) "yes", NULL };

                is_int(controller_cli_run(reaper, "/usr/bin/yes", argv, NULL, 10 * USEC_PER_SEC,
                                          4096, &out, &n),
                       -EFBIG, "endless output -> -EFBIG");
        }
        {
                char *argv[] = { (char *) "nope", NULL };

                is_int(controller_cli_run(reaper, "/nonexistent/nope", argv, NULL, 5 * USEC_PER_SEC,
                                          1024, &out, &n),
                       -ENOENT, "exec failure -> the exec's -ENOENT, nothing left running");
        }
}

/* finding a CLI on PATH, and a query without one */
static void test_runner_find(ProcessReaper *reaper) {
        ControllerVolumeList l = {};
        char *out = NULL;

        is_int(controller_cli_find(CONTROLLER_CLI_STORCLI, NULL, &out), -ENOENT, "no PATH");
        is_int(controller_cli_find(CONTROLLER_CLI_STORCLI, "/nonexistent:relative::", &out),
               -ENOENT, "not on PATH");
        is_int(controller_cli_find(CONTROLLER_CLI_TW_CLI, "/bin", &out), -EOPNOTSUPP, "tw_cli");
        is_int(controller_cli_find(_CONTROLLER_CLI_MAX, "/bin", &out), -EINVAL, "invalid cli");
        is_int(controller_cli_query(reaper, CONTROLLER_CLI_STORCLI, "/nonexistent", USEC_PER_SEC,
                                    &l),
               -ENOENT, "query without CLI -> -ENOENT (no cli)");
        is_int(controller_cli_query(reaper, CONTROLLER_CLI_NONE, "/bin", USEC_PER_SEC, &l),
               -EOPNOTSUPP, "query for CLI none");
}

/* fake CLIs printing recorded output */
static void test_runner_fake_ok(ProcessReaper *reaper) {
        ControllerVolumeList l = {};
        char *p;

        p = fake_path("ok");
        is_int(controller_cli_query(reaper, CONTROLLER_CLI_STORCLI, p, 10 * USEC_PER_SEC, &l), 0,
               "fake storcli64 query");
        is_int(l.n, 1, "one VD through the fake storcli");
        if (l.n == 1)
                is_int(l.volumes[0].state, CONTROLLER_VOLUME_OPTIMAL, "optimal");
        controller_volume_list_done(&l);

        is_int(controller_cli_query(reaper, CONTROLLER_CLI_SSACLI, p, 10 * USEC_PER_SEC, &l), 0,
               "fake ssacli query");
        is_int(l.n, 1, "one logical drive through the fake ssacli");
        controller_volume_list_done(&l);

        is_int(controller_cli_query(reaper, CONTROLLER_CLI_ARCCONF, p, 10 * USEC_PER_SEC, &l), 0,
               "fake arcconf query (GETCONFIG + GETSTATUS)");
        if (l.n == 1) {
                is_int(l.volumes[0].state, CONTROLLER_VOLUME_REBUILDING,
                       "rebuilding via GETSTATUS");
                is_double(l.volumes[0].progress, 0.01, 1e-9, "1 %%");
        } else
                ok(0, "arcconf: one logical device (got %zu)", l.n);
        controller_volume_list_done(&l);
        free(p);
}

/* a hanging fake: the query times out and the CLI's whole process group is killed */
static void test_runner_fake_hang(ProcessReaper *reaper) {
        ControllerVolumeList l = {};
        char *p;

        p = fake_path("hang");
        is_int(controller_cli_query(reaper, CONTROLLER_CLI_STORCLI, p, 300 * USEC_PER_MSEC, &l),
               -ETIME, "hanging CLI -> -ETIME");
        is_int(l.n, 0, "nothing written");
        {
                /* the whole group is SIGKILLed: the shell's sleep child must go away too (give
                 * the kernel a bounded moment to finish the exit) */
                char tag[32], arg[48], *bin = NULL, *out2 = NULL;
                bool alive = true;

                snprintf(tag, sizeof(tag), "%ld", 900000000L + (long) getpid());
                snprintf(arg, sizeof(arg), "--tag=%s", tag);
                is_int(controller_cli_find(CONTROLLER_CLI_STORCLI, p, &bin), 0, "find hang fake");
                if (bin) {
                        char *argv[] = { bin, arg, NULL };

                        is_int(controller_cli_run(reaper, bin, argv, p, 300 * USEC_PER_MSEC,
                                                  1 << 20, &out2, NULL),
                               -ETIME, "hanging CLI run -> -ETIME");
                        for (int i = 0; i < 200 && (alive = hang_child_alive(tag)); i++)
                                (void) nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000 * 1000 },
                                                 NULL);
                        ok(!alive, "the CLI's child process was killed with it");
                }
                free(bin);
                free(out2);
        }
        free(p);
}

/* a fake that exits non-zero, and one that prints garbage */
static void test_runner_fake_fail_and_garbage(ProcessReaper *reaper) {
        ControllerVolumeList l = {};
        char *p;

        p = fake_path("fail");
        is_int(controller_cli_query(reaper, CONTROLLER_CLI_STORCLI, p, 10 * USEC_PER_SEC, &l),
               -EPROTO, "non-zero exit -> -EPROTO even with valid output");
        free(p);

        p = fake_path("garbage");
        is_int(controller_cli_query(reaper, CONTROLLER_CLI_STORCLI, p, 10 * USEC_PER_SEC, &l),
               -EBADMSG, "garbage storcli -> -EBADMSG");
        is_int(controller_cli_query(reaper, CONTROLLER_CLI_SSACLI, p, 10 * USEC_PER_SEC, &l),
               -EBADMSG, "garbage ssacli -> -EBADMSG");
        is_int(controller_cli_query(reaper, CONTROLLER_CLI_ARCCONF, p, 10 * USEC_PER_SEC, &l),
               -EBADMSG, "garbage arcconf -> -EBADMSG");
        free(p);
}

static void test_runner(void) {
        _cleanup_(process_reaper_freep) ProcessReaper *reaper = NULL;

        is_int(process_reaper_new(NULL, NULL, &reaper), 0, "a reaper for killed CLIs");
        test_runner_run(reaper);
        test_runner_find(reaper);
        test_runner_fake_ok(reaper);
        test_runner_fake_hang(reaper);
        test_runner_fake_fail_and_garbage(reaper);

        /* The killed CLIs (yes, the hanging fakes) are collected, none is left behind. */
        is_int(process_reaper_settle(reaper, now(CLOCK_MONOTONIC) + 30 * USEC_PER_SEC), 0,
               "every killed CLI was reaped");
}

int main(void) {
        fixtures = getenv("STORPULSE_FIXTURES");
        if (!fixtures)
                return tap_skip_all("STORPULSE_FIXTURES not set");

        test_states();
        test_storcli();
        test_ssacli();
        test_arcconf();
        test_runner();
        return tap_done();
}

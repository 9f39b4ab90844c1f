/* SPDX-License-Identifier: MIT */
/* The baseline state file: a round trip that keeps every value exactly, a hand-written document
 * of the documented format, and a table of documents the strict parser must refuse. */

#include <math.h>
#include <string.h>

#include "analysis/baseline-file.h"
#include "tap.h"

static void fill(BaselineSet *s) {
        Baseline *b;

        (void) baseline_set_get(s, "serial:S3Z9", "sdb", 8, 1764750000000000, &b);
        for (int i = 0; i < 12; i++) {
                BaselineSample x;

                baseline_sample_init(&x);
                x.v[BASELINE_SEQ_BYTES_PER_SEC] = 1.0e8 + i * 1234567.891;
                x.v[BASELINE_LAT_P99_NS] = 1e7 / 3.0 + i;
                (void) baseline_learn(b, &x, 0, 8, 1764750000000000 + i);
                if (i % 3 == 0)
                        baseline_note_rebuild(b, &x, 1764750000000000 + i);
        }
        (void) baseline_set_get(s, "devt:7:0:1048576", "loop0", 0, 5, &b);
}

static void test_roundtrip(void) {
        _cleanup_(baseline_set_freep) BaselineSet *s = NULL, *t = NULL;
        _cleanup_free_ char *text = NULL, *again = NULL;

        ok(baseline_set_new(&s) == 0, "set");
        fill(s);
        is_int(baseline_file_format(s, &text), 0, "format");
        is_int(baseline_file_parse(text, strlen(text), &t), 0, "parse back");
        is_int(t->n, 2, "two entries");
        is_str(t->items[0].identity, "serial:S3Z9", "identity");
        is_str(t->items[0].name, "sdb", "name");
        is_int(t->items[0].window, 8, "window");
        is_int(t->items[0].ring[BASELINE_SEQ_BYTES_PER_SEC].n, 8, "ring length");
        ok(memcmp(&s->items[0], &t->items[0], offsetof(Baseline, ring)) == 0,
           "header fields equal");
        for (int m = 0; m < _BASELINE_METRIC_MAX; m++) {
                BaselineStat a, b;

                baseline_get_stat(&s->items[0], m, 1, &a);
                baseline_get_stat(&t->items[0], m, 1, &b);
                ok(a.n == b.n && (a.n == 0 || (a.median == b.median && a.mad == b.mad)),
                   "metric %s exact", baseline_metric_to_string(m));
                ok(s->items[0].reference[m] == t->items[0].reference[m] ||
                           (isnan(s->items[0].reference[m]) && isnan(t->items[0].reference[m])),
                   "reference %s exact", baseline_metric_to_string(m));
        }
        is_int(t->items[0].rebuild[BASELINE_LAT_P99_NS].n, 4, "rebuild values kept");
        is_int(baseline_file_format(t, &again), 0, "format again");
        is_str(again, text, "stable output");
}

static const char good[] =
        "{ \"format\": \"storpulse-baselines\", \"version\": 1, \"baselines\": ["
        " { \"identity\": \"wwn:0x5000\", \"name\": \"sdc\", \"window\": 4, \"generation\": 3,"
        "   \"values\": { \"rand_iops\": [ 100, 110.5, 90 ] } } ] }\n\n";

static void test_hand_written(void) {
        _cleanup_(baseline_set_freep) BaselineSet *s = NULL;
        BaselineStat st;

        is_int(baseline_file_parse(good, strlen(good), &s), 0, "hand-written document");
        is_int(s->n, 1, "one entry");
        is_u64(s->items[0].generation, 3, "generation");
        baseline_get_stat(&s->items[0], BASELINE_RAND_IOPS, 3, &st);
        ok(st.ready, "ready with 3 of min 3");
        is_double(st.median, 100, 1e-12, "median 100");
        ok(isnan(s->items[0].reference[BASELINE_RAND_IOPS]), "no reference given");
}

static const struct {
        const char *text;
        int error;
        const char *why;
} bad[] = {
        { "", -EBADMSG, "empty" },
        { "[]", -EBADMSG, "not an object" },
        { "{\"format\":\"storpulse-baselines\",\"version\":2,\"baselines\":[]}", -EPROTONOSUPPORT,
          "newer version" },
        { "{\"format\":\"other\",\"version\":1,\"baselines\":[]}", -EBADMSG, "other format" },
        { "{\"format\":\"storpulse-baselines\",\"baselines\":[]}", -EBADMSG, "no version" },
        { "{\"format\":\"storpulse-baselines\",\"version\":1,\"baselines\":[],\"x\":1}", -EBADMSG,
          "unknown top-level key" },
        { "{\"format\":\"storpulse-baselines\",\"version\":1,\"baselines\":[]} x", -EBADMSG,
          "trailing garbage" },
        { "{\"format\":\"storpulse-baselines\",\"version\":\"1\",\"baselines\":[]}", -EBADMSG,
          "version as string" },
        { "{\"format\":\"storpulse-baselines\",\"version\":1,\"baselines\":[{\"identity\":\"a\","
          "\"window\":4,\"generation\":1}]}",
          -EBADMSG, "no values" },
        { "{\"format\":\"storpulse-baselines\",\"version\":1,\"baselines\":[{\"identity\":\"a\","
          "\"window\":2,\"generation\":1,\"values\":{\"rand_iops\":[1,2,3]}}]}",
          -EBADMSG, "more values than the window" },
        { "{\"format\":\"storpulse-baselines\",\"version\":1,\"baselines\":[{\"identity\":\"a\","
          "\"window\":2,\"generation\":1,\"values\":{\"rand_iops\":[-1]}}]}",
          -EBADMSG, "negative value" },
        { "{\"format\":\"storpulse-baselines\",\"version\":1,\"baselines\":[{\"identity\":\"a\","
          "\"window\":2,\"generation\":1,\"values\":{\"rand_iops\":[NaN]}}]}",
          -EBADMSG, "NaN" },
        { "{\"format\":\"storpulse-baselines\",\"version\":1,\"baselines\":[{\"identity\":\"a\","
          "\"window\":2,\"generation\":1,\"values\":{\"bogus\":[1]}}]}",
          -EBADMSG, "unknown metric" },
        { "{\"format\":\"storpulse-baselines\",\"version\":1,\"baselines\":[{\"identity\":\"a\","
          "\"window\":0,\"generation\":1,\"values\":{}}]}",
          -EBADMSG, "window 0" },
        { "{\"format\":\"storpulse-baselines\",\"version\":1,\"baselines\":[{\"identity\":\"a\","
          "\"window\":65,\"generation\":1,\"values\":{}}]}",
          -EBADMSG, "window above the maximum" },
        { "{\"format\":\"storpulse-baselines\",\"version\":1,\"baselines\":[{\"identity\":\"\","
          "\"window\":4,\"generation\":1,\"values\":{}}]}",
          -EBADMSG, "empty identity" },
        { "{\"format\":\"storpulse-baselines\",\"version\":1,\"baselines\":[{\"identity\":\"a\\n\","
          "\"window\":4,\"generation\":1,\"values\":{}}]}",
          -EBADMSG, "control character in identity" },
        { "{\"format\":\"storpulse-baselines\",\"version\":1,\"baselines\":[{\"identity\":\"a\","
          "\"window\":4,\"generation\":1,\"values\":{}},{\"identity\":\"a\",\"window\":4,"
          "\"generation\":1,\"values\":{}}]}",
          -EBADMSG, "duplicate identity" },
        { "{\"format\":\"storpulse-baselines\",\"version\":1,\"baselines\":[{\"identity\":\"a\","
          "\"window\":4,\"generation\":99999999999999999999,\"values\":{}}]}",
          -EBADMSG, "generation beyond 64 bits" },
        { "{\"format\":\"storpulse-baselines\",\"version\":1,\"baselines\":[{\"identity\":\"a\","
          "\"window\":4,\"generation\":1,\"values\":{},\"extra\":true}]}",
          -EBADMSG, "unknown entry key" },
        { "{\"format\":\"storpulse-baselines\",\"version\":1,\"baselines\":[[[[[[[[[[1]]]]]]]]]]}",
          -EBADMSG, "nesting too deep" },
        { "{'format':'storpulse-baselines','version':1,'baselines':[]}", -EBADMSG,
          "single quotes (strict)" },
};

static void test_bad(void) {
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                BaselineSet *s = NULL;

                is_int(baseline_file_parse(bad[i].text, strlen(bad[i].text), &s), bad[i].error,
                       "refused: %s", bad[i].why);
                ok(s == NULL, "no output on error: %s", bad[i].why);
        }
        BaselineSet *s = NULL;
        const char nul[] = "{\"format\":\"storpulse-baselines\",\"version\":1,\"baselines\":[]}";
        is_int(baseline_file_parse(nul, sizeof(nul), &s), -EBADMSG, "embedded NUL refused");
        is_int(baseline_file_parse(nul, sizeof(nul) - 1, &s), 0, "the same without the NUL");
        baseline_set_free(s);
}

int main(void) {
        test_roundtrip();
        test_hand_written();
        test_bad();
        return tap_done();
}

/* SPDX-License-Identifier: MIT */
/* basic/string-word: words of kernel status lines, any whitespace separating (blanks, tabs, a
 * stray \r), without copying; table-driven with hand-written expectations. */

#include <errno.h>
#include <string.h>

#include "basic/macro.h"
#include "basic/string-word.h"
#include "tap.h"

static void test_next_word(void) {
        static const struct {
                const char *line;
                const char *want; /* the words joined by '|' */
        } t[] = {
                { "md0 : active raid1 vdb[1] vda[0]", "md0|:|active|raid1|vdb[1]|vda[0]" },
                { "  \t lead and trail \t ", "lead|and|trail" },
                { "finish=1.0min\rspeed=3754K/sec", "finish=1.0min|speed=3754K/sec" },
                { "", "" },
                { " \t\n", "" },
                { "one", "one" },
        };

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                const char *p = t[i].line, *w;
                char got[128] = "";
                size_t n;

                while (string_next_word(&p, &w, &n))
                        (void) snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%.*s",
                                        got[0] ? "|" : "", (int) n, w);
                is_str(got, t[i].want, "words of \"%s\"", t[i].line);
                ok(*p == 0, "at the end after \"%s\"", t[i].line);
        }
}

static void test_word_at(void) {
        const char *s = "0 2097152 striped 2 128 8:16 0 8:32 0";
        size_t n = 0;
        const char *w = string_word_at(s, 5, &n);

        ok(w && n == 4 && strncmp(w, "8:16", 4) == 0, "word 5 is 8:16");
        ok(!string_word_at(s, 9, &n), "no word 9 (9 words)");
        w = string_word_at(s, 8, &n);
        ok(w && n == 1 && *w == '0', "word 8 is the last 0");
        ok(string_word_is("active raid1", 6, "active"), "word is active");
        ok(!string_word_is("active", 6, "activ"), "a prefix is not the word");
        ok(!string_word_is("activ", 5, "active"), "nor a longer word");
}

/* The copying form model/dm.c and model/dm-judge.c keep words with: a word that fills the buffer
 * exactly (no room for the NUL) is -ERANGE and skipped, as a dm target name of 16 chars is. */
static void test_next_word_copy(void) {
        const char *s = "0 8192\tthin-pool  0123456789abcdef x", *p = s;
        char buf[16] = "unchanged";

        is_int(string_next_word_copy(&p, buf, sizeof(buf)), 1, "first word");
        is_str(buf, "0", "first word is 0");
        is_int(string_next_word_copy(&p, buf, sizeof(buf)), 1, "second word");
        is_str(buf, "8192", "second word, tab-ended");
        is_int(string_next_word_copy(&p, buf, sizeof(buf)), 1, "third word");
        is_str(buf, "thin-pool", "third word");
        is_int(string_next_word_copy(&p, buf, sizeof(buf)), -ERANGE, "16 chars do not fit 16");
        is_str(buf, "thin-pool", "buffer untouched by a word that does not fit");
        is_int(string_next_word_copy(&p, buf, sizeof(buf)), 1, "the word after it");
        is_str(buf, "x", "... is x");
        is_int(string_next_word_copy(&p, buf, sizeof(buf)), 0, "end");
        ok(*p == 0, "at the NUL after the end");
        p = "  ";
        is_int(string_next_word_copy(&p, buf, 1), 0, "only blanks: end, whatever the size");
}

int main(void) {
        test_next_word();
        test_word_at();
        test_next_word_copy();
        return tap_done();
}

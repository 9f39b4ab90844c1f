/* SPDX-License-Identifier: MIT */
/* basic/string-word: words of kernel status lines, any whitespace separating (blanks, tabs, a
 * stray \r), without copying; table-driven with hand-written expectations. */

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

int main(void) {
        test_next_word();
        test_word_at();
        return tap_done();
}

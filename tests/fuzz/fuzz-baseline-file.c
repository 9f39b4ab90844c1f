/* SPDX-License-Identifier: MIT */
/* Fuzz the baseline state file parser. A document that parses must format back to a document
 * that parses to the same output again (format(parse(x)) is a fixed point), and the summaries of
 * every parsed ring must be finite: a baseline from disk never feeds NAN into a verdict. */

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/baseline-file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        BaselineSet *s = NULL, *t = NULL;
        char *a = NULL, *b = NULL;

        if (baseline_file_parse((const char *) data, size, &s) < 0)
                return 0;
        for (size_t i = 0; i < s->n; i++)
                for (int m = 0; m < _BASELINE_METRIC_MAX; m++) {
                        BaselineStat st;

                        baseline_get_stat(&s->items[i], m, 1, &st);
                        if (st.n > 0 && (!isfinite(st.median) || !isfinite(st.mad)))
                                abort();
                }
        if (baseline_file_format(s, &a) < 0)
                abort();
        if (baseline_file_parse(a, strlen(a), &t) < 0)
                abort();
        if (baseline_file_format(t, &b) < 0 || strcmp(a, b) != 0)
                abort();
        free(a);
        free(b);
        baseline_set_free(s);
        baseline_set_free(t);
        return 0;
}

/* SPDX-License-Identifier: MIT */
/* Shared degradation of the members of one array: the factor of a run's worst finding, and the
 * rule comparing a member with the median of its peers (the header says why). */

#include <math.h>
#include <stdlib.h>

#include "analysis/common-mode.h"

int common_mode_config_validate(const CommonModeConfig *c) {
        if (!c || !(c->min_factor > 1) || !isfinite(c->min_factor) || !(c->spread >= 1) ||
            !isfinite(c->spread))
                return -EINVAL;
        return 0;
}

double common_mode_factor(const DetectorFinding *f) {
        double r;

        if (!f || f->metric < 0 || f->metric >= _BASELINE_METRIC_MAX)
                return 1;
        r = f->ratio;
        if (baseline_metric_higher_is_better(f->metric))
                r = r > 0 ? 1 / r : INFINITY; /* nothing read at all: infinitely worse */
        return r > 1 ? r : 1;                 /* NAN too */
}

static int cmp_double(const void *a, const void *b) {
        double x = *(const double *) a, y = *(const double *) b;

        return (x > y) - (x < y);
}

bool common_mode_shared(const CommonModeConfig *c, const double *factors, size_t n, size_t i) {
        double others[COMMON_MODE_MEMBERS_MAX], median;
        size_t k = 0;

        if (!c || !factors || i >= n || !isfinite(factors[i]) || factors[i] < c->min_factor)
                return false;
        for (size_t j = 0; j < n; j++)
                if (j != i && isfinite(factors[j]) && k < ELEMENTSOF(others))
                        others[k++] = factors[j];
        if (k == 0)
                return false;
        /* the lower median: at least half of the others are at least this far gone */
        qsort(others, k, sizeof(double), cmp_double);
        median = others[(k - 1) / 2];
        return median >= c->min_factor && median >= factors[i] / c->spread;
}

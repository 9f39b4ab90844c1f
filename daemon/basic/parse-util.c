/* SPDX-License-Identifier: MIT */
/* Number parsing that never trusts its input: sysfs files, config files and command-line options
 * all pass through here. No atoi(), no locale: doubles are parsed by hand with the "C" rules so a
 * de_DE locale cannot turn "1.5" into 1. */

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "basic/parse-util.h"

char *strstrip_trailing(char *s) {
        size_t n = strlen(s);

        while (n > 0 && isspace((unsigned char) s[n - 1]))
                s[--n] = 0;
        return s;
}

static const char *skip_ws(const char *s) {
        while (*s && isspace((unsigned char) *s))
                s++;
        return s;
}

static int only_ws(const char *s) {
        return *skip_ws(s) == 0;
}

int safe_atou64(const char *s, uint64_t *ret) {
        uint64_t v = 0;
        const char *p;

        if (!s)
                return -EINVAL;
        p = skip_ws(s);
        if (!isdigit((unsigned char) *p))
                return -EINVAL;
        for (; isdigit((unsigned char) *p); p++) {
                unsigned d = (unsigned) (*p - '0');
                if (v > (UINT64_MAX - d) / 10)
                        return -ERANGE;
                v = v * 10 + d;
        }
        if (!only_ws(p))
                return -EINVAL;
        *ret = v;
        return 0;
}

int safe_atoi64(const char *s, int64_t *ret) {
        const char *p;
        uint64_t u;
        int neg = 0, r;

        if (!s)
                return -EINVAL;
        p = skip_ws(s);
        if (*p == '-' || *p == '+') {
                neg = *p == '-';
                p++;
        }
        r = safe_atou64(p, &u);
        if (r < 0)
                return r;
        if (p[0] == ' ')
                return -EINVAL;
        if (neg) {
                if (u > (uint64_t) INT64_MAX + 1)
                        return -ERANGE;
                *ret = u == (uint64_t) INT64_MAX + 1 ? INT64_MIN : -(int64_t) u;
        } else {
                if (u > (uint64_t) INT64_MAX)
                        return -ERANGE;
                *ret = (int64_t) u;
        }
        return 0;
}

int safe_atou(const char *s, unsigned *ret) {
        uint64_t v;
        int r = safe_atou64(s, &v);

        if (r < 0)
                return r;
        if (v > UINT_MAX)
                return -ERANGE;
        *ret = (unsigned) v;
        return 0;
}

int safe_atoi(const char *s, int *ret) {
        int64_t v;
        int r = safe_atoi64(s, &v);

        if (r < 0)
                return r;
        if (v > INT_MAX || v < INT_MIN)
                return -ERANGE;
        *ret = (int) v;
        return 0;
}

/* Digits with an optional ".fraction" at p, by the "C" rules: the value, the end, and how many
 * digits there were (0: no number at p). */
static int scan_decimal(const char *p, double *ret_value, const char **ret_end) {
        double v = 0, scale = 1;
        int digits = 0;

        for (; isdigit((unsigned char) *p); p++, digits++)
                v = v * 10 + (*p - '0');
        if (*p == '.')
                for (p++; isdigit((unsigned char) *p); p++, digits++) {
                        scale /= 10;
                        v += (*p - '0') * scale;
                }
        *ret_value = v;
        *ret_end = p;
        return digits;
}

int safe_atod(const char *s, double *ret) {
        const char *p;
        double v;
        int neg = 0;

        if (!s)
                return -EINVAL;
        p = skip_ws(s);
        if (*p == '-' || *p == '+')
                neg = *p++ == '-';
        if (scan_decimal(p, &v, &p) == 0 || !only_ws(p))
                return -EINVAL;
        if (!isfinite(v))
                return -ERANGE;
        *ret = neg ? -v : v;
        return 0;
}

/* Split "123abc" into the numeric prefix (with optional fraction) and the suffix. */
static int split_number(const char *s, double *ret_value, const char **ret_suffix) {
        double v;

        if (scan_decimal(skip_ws(s), &v, ret_suffix) == 0)
                return -EINVAL;
        *ret_value = v;
        return 0;
}

/* "", "B", or one of K M G T P E followed by nothing, "B" or "iB", all case-insensitive: the
 * spellings fio's size options take ("64m", "64M", "64MB", "64MiB"), all powers of 1024 (fio's
 * default kb_base=1024 reads K/KB as 1024; unlike fio, "KiB" is 1024 here too, as its name says).
 */
static int size_factor(const char *suffix, size_t n, uint64_t *ret) {
        static const char prefixes[] = "KMGTPE";
        const char *p;

        if (n == 0 || (n == 1 && (suffix[0] == 'B' || suffix[0] == 'b'))) {
                *ret = 1;
                return 0;
        }
        p = strchr(prefixes, toupper((unsigned char) suffix[0]));
        if (!p || suffix[0] == 0)
                return -EINVAL;
        if (!(n == 1 || (n == 2 && strchr("Bb", suffix[1])) ||
              (n == 3 && strchr("Ii", suffix[1]) && strchr("Bb", suffix[2]))))
                return -EINVAL;
        *ret = 1ULL << (10 * (unsigned) (p - prefixes + 1));
        return 0;
}

int parse_size(const char *s, uint64_t *ret) {
        const char *suffix;
        uint64_t factor;
        double v, x;
        size_t n;
        int r;

        if (!s)
                return -EINVAL;
        r = split_number(s, &v, &suffix);
        if (r < 0)
                return r;
        n = strlen(suffix);
        while (n > 0 && isspace((unsigned char) suffix[n - 1]))
                n--;
        r = size_factor(suffix, n, &factor);
        if (r < 0)
                return r;
        x = v * (double) factor;
        if (x >= 18446744073709551616.0)
                return -ERANGE;
        if (factor == 1 && x != floor(x))
                return -EINVAL;
        *ret = (uint64_t) x;
        return 0;
}

int parse_u64_strict(const char *s, uint64_t *ret) {
        if (!s || !*s)
                return -EINVAL;
        for (const char *p = s; *p; p++)
                if (!isdigit((unsigned char) *p))
                        return -EINVAL;
        return safe_atou64(s, ret);
}

int parse_sec(const char *s, uint64_t *ret_usec) {
        static const struct {
                const char *suffix;
                double usec;
        } table[] = {
                { "", 1e6 },     { "s", 1e6 },  { "sec", 1e6 },  { "ms", 1e3 },    { "us", 1 },
                { "min", 60e6 }, { "m", 60e6 }, { "h", 3600e6 }, { "d", 86400e6 },
        };
        const char *suffix;
        double v;
        int r;

        if (!s)
                return -EINVAL;
        r = split_number(s, &v, &suffix);
        if (r < 0)
                return r;
        for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
                size_t n = strlen(table[i].suffix);
                double x;

                if (strncmp(suffix, table[i].suffix, n) != 0 || !only_ws(suffix + n))
                        continue;
                x = v * table[i].usec;
                if (x >= 1.8e19)
                        return -ERANGE;
                *ret_usec = (uint64_t) x;
                return 0;
        }
        return -EINVAL;
}

/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "basic/format-util.h"
#include "basic/parse-util.h"
#include "tap.h"

static void test_atou64(void) {
        static const struct {
                const char *in;
                int r;
                uint64_t v;
        } t[] = {
                { "0", 0, 0 },
                { "42\n", 0, 42 },
                { " 7 ", 0, 7 },
                { "18446744073709551615", 0, UINT64_MAX },
                { "18446744073709551616", -ERANGE, 0 },
                { "", -EINVAL, 0 },
                { "-1", -EINVAL, 0 },
                { "12abc", -EINVAL, 0 },
                { "none", -EINVAL, 0 },
                { "1 2", -EINVAL, 0 },
        };
        for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
                uint64_t v = 12345;
                int r = safe_atou64(t[i].in, &v);
                is_int(r, t[i].r, "safe_atou64(\"%s\") returns %d", t[i].in, t[i].r);
                if (t[i].r == 0)
                        is_u64(v, t[i].v, "safe_atou64(\"%s\") value", t[i].in);
                else
                        is_u64(v, 12345, "safe_atou64(\"%s\") leaves output alone", t[i].in);
        }
}

static void test_atoi(void) {
        int v;
        int64_t w;

        is_int(safe_atoi("-5", &v), 0, "safe_atoi -5");
        is_int(v, -5, "value -5");
        is_int(safe_atoi("2147483648", &v), -ERANGE, "safe_atoi overflow");
        is_int(safe_atoi64("-9223372036854775808", &w), 0, "INT64_MIN parses");
        ok(w == INT64_MIN, "INT64_MIN value");
        is_int(safe_atoi64("9223372036854775808", &w), -ERANGE, "INT64_MAX+1 overflows");
        is_int(safe_atoi("- 5", &v), -EINVAL, "sign then space rejected");
}

static void test_atod(void) {
        double d;

        setlocale(LC_NUMERIC, "de_DE.UTF-8");
        is_int(safe_atod("1.5", &d), 0, "1.5 parses under any locale");
        is_double(d, 1.5, 1e-12, "1.5 value");
        is_int(safe_atod("-0.25\n", &d), 0, "-0.25 parses");
        is_double(d, -0.25, 1e-12, "-0.25 value");
        is_int(safe_atod("1,5", &d), -EINVAL, "comma rejected");
        is_int(safe_atod(".", &d), -EINVAL, "lone dot rejected");
}

static void test_size(void) {
        static const struct {
                const char *in;
                int r;
                uint64_t v;
        } t[] = {
                { "4096", 0, 4096 },
                { "4K", 0, 4096 },
                { "4k", 0, 4096 },
                { "4KiB", 0, 4096 },
                { "64M", 0, 64ULL << 20 },
                { "1G", 0, 1ULL << 30 },
                { "1.5K", 0, 1536 },
                { "2T", 0, 2ULL << 40 },
                { "1.5", -EINVAL, 0 },
                { "4X", -EINVAL, 0 },
                { "", -EINVAL, 0 },
                { "K", -EINVAL, 0 },
                { "99999999P", -ERANGE, 0 },
                /* the spellings an admin copies from fio: all 64 MiB */
                { "64m", 0, 64ULL << 20 },
                { "64MB", 0, 64ULL << 20 },
                { "64mb", 0, 64ULL << 20 },
                { "64MiB", 0, 64ULL << 20 },
                { "64mib", 0, 64ULL << 20 },
                { "1g", 0, 1ULL << 30 },
                { "4kb", 0, 4096 },
                { "1E", 0, 1ULL << 60 },
                { "512b", 0, 512 },
                { "512B", 0, 512 },
                { "64 M", -EINVAL, 0 },
                { "64Mi", -EINVAL, 0 },
                { "64MBB", -EINVAL, 0 },
                { "64iB", -EINVAL, 0 },
                { "16E", -ERANGE, 0 },
        };
        for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
                uint64_t v = 0;
                int r = parse_size(t[i].in, &v);
                is_int(r, t[i].r, "parse_size(\"%s\") returns %d", t[i].in, t[i].r);
                if (t[i].r == 0)
                        is_u64(v, t[i].v, "parse_size(\"%s\") value", t[i].in);
        }
}

static void test_sec(void) {
        uint64_t u;

        is_int(parse_sec("10", &u), 0, "10 parses");
        is_u64(u, 10000000, "10 is 10 s");
        is_int(parse_sec("500ms", &u), 0, "500ms parses");
        is_u64(u, 500000, "500ms value");
        is_int(parse_sec("1.5s", &u), 0, "1.5s parses");
        is_u64(u, 1500000, "1.5s value");
        is_int(parse_sec("3min", &u), 0, "3min parses");
        is_u64(u, 180000000, "3min value");
        is_int(parse_sec("2d", &u), 0, "2d parses");
        is_u64(u, 172800000000ULL, "2d value");
        is_int(parse_sec("5 parsecs", &u), -EINVAL, "unknown unit rejected");
}

static void test_u64_strict(void) {
        uint64_t v = 0;

        is_int(parse_u64_strict("123", &v), 0, "strict: digits");
        is_u64(v, 123, "strict: value");
        is_int(parse_u64_strict("", &v), -EINVAL, "strict: empty");
        is_int(parse_u64_strict(" 1", &v), -EINVAL, "strict: leading space");
        is_int(parse_u64_strict("1\n", &v), -EINVAL, "strict: trailing newline");
        is_int(parse_u64_strict("-1", &v), -EINVAL, "strict: sign");
        is_int(parse_u64_strict("99999999999999999999", &v), -ERANGE, "strict: overflow");
        is_int(parse_u64_strict(NULL, &v), -EINVAL, "strict: NULL");
}

static void test_format_bytes(void) {
        static const struct {
                uint64_t in;
                const char *out;
        } t[] = {
                { 0, "0B" },
                { 1023, "1023B" },
                { 1024, "1.0KiB" },
                { 1536, "1.5KiB" },
                { 64ULL << 20, "64.0MiB" },
                { (1ULL << 30) - 1, "1.0GiB" }, /* never "1024.0MiB" */
                { 1000204886016ULL, "931.5GiB" },
                { UINT64_MAX, "16.0EiB" },
        };
        char buf[FORMAT_BYTES_MAX];

        for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
                is_str(format_bytes(buf, sizeof(buf), t[i].in), t[i].out, "format_bytes(%llu)",
                       (unsigned long long) t[i].in);
        is_str(format_bytes_per_second(buf, sizeof(buf), 123.0 * 1048576), "123.0MiB/s",
               "rate in MiB/s");
        is_str(format_bytes_per_second(buf, sizeof(buf), -1), "0B/s", "negative rate is 0");
        is_str(format_bytes_per_second(buf, sizeof(buf), 1e30), "15.6EiB/s", "huge rate clamped");
}

static void test_format_duration(void) {
        static const struct {
                double sec;
                bool days;
                const char *out;
        } t[] = {
                { 0, false, "0s" },
                { 59.4, false, "59s" },
                { 59.5, false, "1min 0s" },
                { 3599, false, "59min 59s" },
                { 3600, false, "1h 0min" },
                { 90000, false, "25h 0min" },
                { 90000, true, "1d 1h" },
                { 86399, true, "23h 59min" },
                { 3 * 86400 + 4 * 3600 + 59, true, "3d 4h" },
                { -1, false, "unknown" },
                { NAN, true, "unknown" },
                { 2e12, false, "unknown" },
        };
        char buf[32];

        for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
                is_str(format_duration(buf, sizeof(buf), t[i].sec, t[i].days), t[i].out,
                       "format_duration(%g, %s)", t[i].sec, t[i].days ? "days" : "hours");
}

int main(void) {
        test_u64_strict();
        test_format_bytes();
        test_format_duration();
        test_atou64();
        test_atoi();
        test_atod();
        test_size();
        test_sec();
        return tap_done();
}

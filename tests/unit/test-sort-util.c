/* SPDX-License-Identifier: MIT */
/* basic/sort-util: bsearch_index() finds every element and, for a missing key, the index that
 * keeps the array sorted (first, middle, last, empty array). */

#include <string.h>

#include "basic/macro.h"
#include "basic/sort-util.h"
#include "tap.h"

static int cmp_str(const void *key, const void *element) {
        return strcmp(key, *(const char *const *) element);
}

static int cmp_int(const void *key, const void *element) {
        int a = *(const int *) key, b = *(const int *) element;

        return (a > b) - (a < b);
}

static void test_strings(void) {
        static const char *const names[] = { "dm-0", "md0", "md1", "sda", "sdb" };
        static const struct {
                const char *key;
                bool found;
                size_t idx;
        } t[] = {
                { "dm-0", true, 0 }, { "md1", true, 2 },   { "sdb", true, 4 },  { "a", false, 0 },
                { "md", false, 1 },  { "md10", false, 3 }, { "sdc", false, 5 },
        };

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                size_t idx = 99;

                is_int(bsearch_index(t[i].key, names, ELEMENTSOF(names), sizeof(names[0]), cmp_str,
                                     &idx),
                       t[i].found, "%s found: %d", t[i].key, t[i].found);
                is_int((int) idx, (int) t[i].idx, "%s at %zu", t[i].key, t[i].idx);
        }
}

static void test_ints(void) {
        int a[101], key;
        size_t idx = 99;
        bool all = true;

        for (int i = 0; i < 101; i++)
                a[i] = 2 * i;
        for (int i = 0; i < 101; i++) {
                key = 2 * i;
                all = all && bsearch_index(&key, a, 101, sizeof(int), cmp_int, &idx) &&
                      idx == (size_t) i;
                key = 2 * i + 1;
                all = all && !bsearch_index(&key, a, 101, sizeof(int), cmp_int, &idx) &&
                      idx == (size_t) i + 1;
        }
        ok(all, "every even number found at its index, every odd one placed after it");
        key = -1;
        ok(!bsearch_index(&key, a, 101, sizeof(int), cmp_int, &idx) && idx == 0, "-1 goes first");
        ok(!bsearch_index(&key, NULL, 0, sizeof(int), cmp_int, &idx) && idx == 0,
           "empty array: not found, index 0");
}

int main(void) {
        test_strings();
        test_ints();
        return tap_done();
}

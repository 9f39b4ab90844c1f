/* SPDX-License-Identifier: MIT */
/* Fuzz every md sysfs attribute parser: any byte string must parse or fail cleanly. */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/md.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = malloc(size + 1);
        MdLevel l;
        MdArrayState st;
        MdSyncAction a;
        MdSyncCompleted c;
        MdSpeedLimit sl;
        uint64_t n, o;
        unsigned f;
        int slot;

        if (!s)
                return 0;
        memcpy(s, data, size);
        s[size] = 0;
        (void) md_parse_level(s, &l);
        (void) md_parse_array_state(s, &st);
        (void) md_parse_sync_action(s, &a);
        if (md_parse_sync_completed(s, &c) == 0)
                (void) md_sync_completed_ratio(&c);
        (void) md_parse_speed_limit(s, &sl);
        (void) md_parse_new_old(s, &n, &o);
        (void) md_parse_member_state(s, &f);
        (void) md_parse_slot(s, &slot);
        (void) md_parse_u64_or_none(s, &n);
        (void) md_level_from_string(s);
        (void) md_member_state_from_string(s);
        free(s);
        return 0;
}

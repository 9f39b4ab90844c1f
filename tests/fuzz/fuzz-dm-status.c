/* SPDX-License-Identifier: MIT */
/* Fuzz the device-mapper text parsers: target lines, dm-raid status (both on the whole input and
 * on the params of a parsed line), the target judges (the input as status, and as status and
 * table), LVM uuid and name splitting, sub-LV folding, and the binary DM_LIST_DEVICES reply (the
 * raw input as the ioctl buffer). */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/dm-judge.h"
#include "model/dm-list.h"
#include "model/dm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = malloc(size + 1), *vg = NULL, *lv = NULL, *layer = NULL, *parent = NULL;
        DmTargetLine l;
        DmRaidStatus st;
        LvmUuid u;
        DmJudgement j;

        if (!s)
                return 0;
        {
                DmListEntry *el = NULL;

                if (dm_list_parse(data, size, &el) >= 0)
                        free(el);
        }
        memcpy(s, data, size);
        s[size] = 0;
        if (dm_parse_target_line(s, &l) == 0 && dm_raid_status_parse(l.params, &st) == 0) {
                (void) dm_raid_status_count(&st, DM_RAID_HEALTH_DEAD);
                (void) dm_raid_status_sync_ratio(&st);
        }
        if (dm_raid_status_parse(s, &st) == 0)
                (void) dm_raid_status_count(&st, DM_RAID_HEALTH_ALIVE_NOT_IN_SYNC);
        dm_judge(s, NULL, NULL, NULL, &j);
        dm_judge(s, s, NULL, NULL, &j);
        (void) lvm_uuid_split(s, &u);
        if (lvm_name_split(s, &vg, &lv, &layer) == 0) {
                if (lvm_sub_lv_parent(lv, &parent) == 1)
                        free(parent);
                free(vg);
                free(lv);
                free(layer);
        }
        if (lvm_sub_lv_parent(s, &parent) == 1)
                free(parent);
        free(s);
        return 0;
}

/* SPDX-License-Identifier: MIT */
/* device-mapper text parsers. (In progress: functions return -EOPNOTSUPP until implemented.) */

#include <errno.h>
#include <string.h>

#include "dm.h"

int dm_parse_target_line(const char *line, DmTargetLine *ret) {
        (void) line;
        (void) ret;
        return -EOPNOTSUPP;
}

int dm_raid_status_parse(const char *params, DmRaidStatus *ret) {
        (void) params;
        (void) ret;
        return -EOPNOTSUPP;
}

int lvm_uuid_split(const char *dm_uuid, LvmUuid *ret) {
        (void) dm_uuid;
        (void) ret;
        return -EOPNOTSUPP;
}

int lvm_name_split(const char *dm_name, char **ret_vg, char **ret_lv, char **ret_layer) {
        (void) dm_name;
        (void) ret_vg;
        (void) ret_lv;
        (void) ret_layer;
        return -EOPNOTSUPP;
}

int lvm_sub_lv_parent(const char *lv_name, char **ret_parent) {
        (void) lv_name;
        (void) ret_parent;
        return -EOPNOTSUPP;
}

# SPDX-License-Identifier: MIT
# Helpers for the LVM scenarios.
export LVM_SUPPRESS_FD_WARNINGS=1

# dm_raid_field LVDM N: field N (1-based) of `dmsetup status` of a dm-raid device:
#   0 245760 raid raid1 2 aa 30976/245760 resync 0 0 -
#   1 2      3    4     5 6  7            8      9 ...
dm_field() {
        dmsetup status "$1" 2>/dev/null | awk -v n="$2" '{ print $n }'
}

dm_raid_is() { # dm_raid_is vg0-r1 resync
        [[ "$(dm_field "$1" 8)" == "$2" ]]
}

# dm_raid_sync_started DMNAME: the sync ratio numerator is > 0 and below the total.
dm_raid_sync_started() {
        local r
        r=$(dm_field "$1" 7)
        [[ $r =~ ^([0-9]+)/([0-9]+)$ ]] && ((BASH_REMATCH[1] > 0 && BASH_REMATCH[1] < BASH_REMATCH[2]))
}

dm_raid_in_sync() { # all legs 'A' and action idle
        local h
        h=$(dm_field "$1" 6)
        [[ $h =~ ^A+$ ]] && dm_raid_is "$1" idle
}

kname() { # kname /dev/mapper/x -> dm-3
        basename "$(readlink -f "$1")"
}

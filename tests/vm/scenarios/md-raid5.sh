# SPDX-License-Identifier: MIT
# md RAID5 on 3 virtio disks: initial sync, idle, fail, remove/add (recover), check, abort.
source ../lib.sh
source ./md-common.sh
require_verb volumes
md_lifecycle raid5 3

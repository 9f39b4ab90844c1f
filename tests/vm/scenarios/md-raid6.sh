# SPDX-License-Identifier: MIT
# md RAID6 on 4 virtio disks: initial sync, idle, fail, remove/add (recover), check, abort.
source ../lib.sh
source ./md-common.sh
require_verb volumes
md_lifecycle raid6 4

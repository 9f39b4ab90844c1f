# SPDX-License-Identifier: MIT
# capture_tree DEST SCENARIO DESCRIPTION: copy what storpulse's inventory reads from this (guest)
# kernel into the fixture tree DEST, in exactly the layout of tests/fixtures/README.md: the
# sys/class/block links and device directories (dev size ro removable stat partition start
# queue/{logical_block_size,rotational} slaves/ holders/ md/ dm/ device/...), SCSI host
# proc_names, /proc/mdstat, the udev database files and `dmsetup status|table` per dm device,
# plus SOURCE and live.json (the live `storpulsectl volumes --json`, for comparison).
# Unused loop and ram devices (size 0) are left out. Sourced inside the guest.

_cap_copy() { # _cap_copy SRC DST: a readable attribute file, verbatim
        [[ -f $1 && -r $1 ]] || return 0
        local tmp
        tmp=$(cat "$1" 2>/dev/null) || return 0
        mkdir -p "$(dirname "$2")"
        cat "$1" >"$2" 2>/dev/null || rm -f "$2"
}

_cap_links() { # _cap_links SRCDIR DSTDIR: the entries of slaves/ or holders/ as the kernel's links
        local e
        mkdir -p "$2"
        for e in "$1"/*; do
                [[ -L $e ]] || continue
                ln -sfn "$(readlink "$e")" "$2/$(basename "$e")"
        done
}

capture_tree() {
        local dest=$1 scenario=$2 desc=$3
        rm -rf "$dest"
        mkdir -p "$dest/sys/class/block" "$dest/proc" "$dest/run/udev/data" "$dest/dm"
        local l name dir rel f d h
        for l in /sys/class/block/*; do
                name=$(basename "$l")
                dir=$(readlink -f "$l")
                if [[ $name == loop* || $name == ram* ]] && [[ "$(cat "$dir/size")" == 0 ]]; then
                        continue
                fi
                ln -s "$(readlink "$l")" "$dest/sys/class/block/$name"
                rel=${dir#/}
                mkdir -p "$dest/$rel"
                for f in dev size ro removable stat partition start serial wwid \
                        queue/logical_block_size queue/rotational \
                        dm/name dm/uuid dm/suspended \
                        device/vendor device/model device/rev device/serial device/state \
                        device/raid_level; do
                        _cap_copy "$dir/$f" "$dest/$rel/$f"
                done
                [[ -d $dir/slaves ]] && _cap_links "$dir/slaves" "$dest/$rel/slaves"
                [[ -d $dir/holders ]] && _cap_links "$dir/holders" "$dest/$rel/holders"
                if [[ -d $dir/md ]]; then
                        mkdir -p "$dest/$rel/md"
                        for f in "$dir"/md/*; do
                                if [[ -L $f ]]; then
                                        ln -sfn "$(readlink "$f")" "$dest/$rel/md/$(basename "$f")"
                                elif [[ -d $f ]]; then
                                        d=$dest/$rel/md/$(basename "$f")
                                        mkdir -p "$d"
                                        for a in state slot errors recovery_start offset size; do
                                                _cap_copy "$f/$a" "$d/$a"
                                        done
                                        [[ -L $f/block ]] && ln -sfn "$(readlink "$f/block")" "$d/block"
                                else
                                        _cap_copy "$f" "$dest/$rel/md/$(basename "$f")"
                                fi
                        done
                fi
                # SCSI host the device path runs through
                if [[ $dir =~ ^(.*/(host[0-9]+))/ ]]; then
                        h=${BASH_REMATCH[2]}
                        _cap_copy "${BASH_REMATCH[1]}/scsi_host/$h/proc_name" \
                                "$dest/${BASH_REMATCH[1]#/}/scsi_host/$h/proc_name"
                        mkdir -p "$dest/sys/class/scsi_host"
                        [[ -L /sys/class/scsi_host/$h ]] &&
                                ln -sfn "$(readlink "/sys/class/scsi_host/$h")" "$dest/sys/class/scsi_host/$h"
                fi
                _cap_copy "/run/udev/data/b$(cat "$dir/dev")" "$dest/run/udev/data/b$(cat "$dir/dev")"
                if [[ -e $dir/dm/name ]]; then
                        local dmn
                        dmn=$(cat "$dir/dm/name")
                        dmsetup status "$dmn" >"$dest/dm/$dmn.status" 2>/dev/null || rm -f "$dest/dm/$dmn.status"
                        dmsetup table "$dmn" >"$dest/dm/$dmn.table" 2>/dev/null || rm -f "$dest/dm/$dmn.table"
                fi
        done
        cp /proc/mdstat "$dest/proc/mdstat" 2>/dev/null || rmdir "$dest/proc"
        rmdir "$dest/dm" 2>/dev/null
        if [[ -n ${STORPULSECTL:-} && -x $STORPULSECTL ]]; then
                STORPULSE_CONTROLLER_TEST=1 "$STORPULSECTL" volumes --json >"$dest/live.json" 2>/dev/null ||
                        rm -f "$dest/live.json"
        fi
        cat >"$dest/SOURCE" <<EOF
Scenario: $scenario.
$desc
CAPTURED (verbatim, every file): by tests/vm/capture-fixtures from a real kernel in the VM test bed
  (Debian kernel $(uname -r), qemu q35, virtio-blk disks with serials vmdisk1..N), $(date -u +%Y-%m-%dT%H:%MZ).
  Files: sys/ (attributes listed in tests/fixtures/README.md, copied with cat; links with readlink),
  proc/mdstat, run/udev/data/b*, dm/<name>.status and dm/<name>.table (dmsetup status|table <name>).
  live.json: \`storpulsectl volumes --json\` run live in the guest at capture time (not a golden file).
DERIVED: nothing.
EOF
        echo "captured $scenario: $(find "$dest" -type f | wc -l) files"
}

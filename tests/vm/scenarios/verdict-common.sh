# SPDX-License-Identifier: MIT
# Helpers of the verdict scenarios: what the kernel says right before and right after a
# `volumes --json` snapshot, so storpulse's figures can be held against the kernel's at the
# same moment (a moving counter must lie between the two readings).
# shellcheck disable=SC2016

# mdstat_done mdX: the "(done/total)" KiB pair of /proc/mdstat's progress line, "done total".
mdstat_done() {
        awk -v md="$1" '$1 == md { f = 1; next } f && /\(([0-9]+)\/([0-9]+)\)/ {
                match($0, /\(([0-9]+)\/([0-9]+)\)/); s = substr($0, RSTART + 1, RLENGTH - 2)
                split(s, p, "/"); print p[1], p[2]; exit } f && /^md/ { exit }' /proc/mdstat
}

# sync_check NAME DESC mdX: snapshot, and assert sync_completed_sectors between the kernel's
# mdstat counters read before and after, total equal, speed and ETA from the kernel's sync_speed
# read around it (speed within the two readings +-10 %, ETA = remaining / speed within 1 s).
sync_check() {
        local name=$1 desc=$2 md=$3 b a sb sa
        read -r b bt < <(mdstat_done "$md")
        sb=$(md_attr "$md" sync_speed)
        local f
        f=$(volumes "$name") || exit 1
        read -r a at < <(mdstat_done "$md")
        sa=$(md_attr "$md" sync_speed)
        echo "  kernel: mdstat done ${b:-?}..${a:-?} of ${bt:-?} KiB, sync_speed $sb..$sa KiB/s"
        [[ -n $b && -n $a ]] || fail "$md: no progress line in /proc/mdstat around the snapshot"
        python3 "$VMCHECK" "$f" "$desc" "
v = vol('$md')
x = v['sync_completed_sectors']
ok(2 * $b <= x <= 2 * $a, 'sync_completed_sectors %r within mdstat done x2 [%d, %d]' % (x, 2 * $b, 2 * $a))
eq(v['sync_total_sectors'], 2 * $bt, 'sync_total_sectors = mdstat total x2')
sp = [int(x) for x in '$sb $sa'.split() if x.isdigit()]
if sp and v['sync_speed_bytes_per_second'] is not None:
    s = v['sync_speed_bytes_per_second']
    # md's sync_speed is a moving average that moves between the reads: 10 % either way
    ok(min(sp) * 1024 * 0.9 <= s <= max(sp) * 1024 * 1.1,
       'speed %r within sync_speed %r KiB/s (+-10%%)' % (s, sp))
    rem = (v['sync_total_sectors'] - v['sync_completed_sectors']) * 512
    e = v['sync_eta_seconds']
    ok(rem // s - 1 <= e <= rem // s + 1, 'eta %r = remaining %d B / speed %d' % (e, rem, s))
" || fail "$desc"
}

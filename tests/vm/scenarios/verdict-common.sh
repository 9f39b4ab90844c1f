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

# speed_sampler mdX OUT STOP: every distinct md/sync_speed reading, one a line, ~2 ms apart
# (builtins only: no fork per sample), from before OUT's first line until one reading after STOP
# exists. md's sync_speed is db/dt with dt in whole seconds over marks that move every 3 s, so it
# jumps both ways between two reads far apart; two readings 2 ms apart bracket what a reader saw
# between them.
speed_sampler() {
        local f=/sys/block/$1/md/sync_speed x prev='' fd last=0
        exec {fd}<> <(:)
        while :; do
                [[ -e $3 ]] && last=1
                read -r x <"$f" || x=gone
                [[ $x != "$prev" ]] && echo "$x" >>"$2" && prev=$x
                ((last)) && { echo "$x" >>"$2"; break; }
                read -r -t 0.002 -u "$fd" _ || true
        done
}

# sync_check NAME DESC mdX: snapshot, and assert sync_completed_sectors between the kernel's
# mdstat counters read before and after, total equal, the speed one the kernel showed during the
# snapshot (between two consecutive readings of speed_sampler: the kernel's figure of the same
# moment, no tolerance), and ETA = remaining / speed within 1 s.
sync_check() {
        local name=$1 desc=$2 md=$3 b a sp tr=$SCRATCH/$1.speeds stop=$SCRATCH/$1.stop spid fd
        rm -f "$tr" "$stop"
        exec {fd}<> <(:)
        speed_sampler "$md" "$tr" "$stop" &
        spid=$!
        until [[ -s $tr ]]; do read -r -t 0.005 -u "$fd" _ || true; done
        read -r b bt < <(mdstat_done "$md")
        local f
        f=$(volumes "$name") || { touch "$stop"; wait $spid; exit 1; }
        read -r a at < <(mdstat_done "$md")
        touch "$stop"
        wait $spid
        sp=$(tr '\n' ' ' <"$tr")
        echo "  kernel: mdstat done ${b:-?}..${a:-?} of ${bt:-?} KiB, sync_speed during the snapshot: $sp KiB/s"
        [[ -n $b && -n $a ]] || fail "$md: no progress line in /proc/mdstat around the snapshot"
        python3 "$VMCHECK" "$f" "$desc" "
v = vol('$md')
x = v['sync_completed_sectors']
ok(2 * $b <= x <= 2 * $a, 'sync_completed_sectors %r within mdstat done x2 [%d, %d]' % (x, 2 * $b, 2 * $a))
eq(v['sync_total_sectors'], 2 * $bt, 'sync_total_sectors = mdstat total x2')
sp = [int(x) * 1024 for x in '$sp'.split() if x.isdigit()]
s = v['sync_speed_bytes_per_second']
if sp and s is not None:
    pairs = list(zip(sp, sp[1:])) or [(sp[0], sp[0])]
    ok(any(min(p) <= s <= max(p) for p in pairs),
       'speed %r one the kernel showed during the snapshot (sync_speed x1024: %r)' % (s, sp))
    rem = (v['sync_total_sectors'] - v['sync_completed_sectors']) * 512
    e = v['sync_eta_seconds']
    ok(rem // s - 1 <= e <= rem // s + 1, 'eta %r = remaining %d B / speed %d' % (e, rem, s))
" || fail "$desc"
}

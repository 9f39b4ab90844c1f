/* SPDX-License-Identifier: MIT */
#pragma once

/* Logical drive state from hardware RAID vendor CLIs (optional; without a CLI a controller volume
 * is still monitored by probes).
 *
 * Pure parsers turn recorded CLI output into ControllerVolume records:
 *   storcli/perccli  `/cALL/vALL show all J` (JSON) and `/cX/eY/sZ show rebuild J` (JSON)
 *   ssacli           `ctrl all show config detail` (also the short `show config` /
 *                    `logicaldrive all show` lines, and hpssacli/hpacucli output)
 *   arcconf          `GETCONFIG 1 LD` (or `AL`) and `GETSTATUS 1`
 * (parsers in daemon/controller-cli.c). The runner controller_cli_query() (daemon/
 * controller-cli-run.c) finds the CLI on a PATH it is given, runs it (fork/exec, argv, no shell,
 * stdout captured, hard timeout that kills the CLI's process group, output cap) and parses. It
 * blocks its caller up to the timeout per command (storcli: one more command per rebuilding VD):
 * call it from a worker or a one-shot CLI, never from the daemon's main loop. Note that storcli
 * and arcconf write log files into their working directory. */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/string-table.h"
#include "model/controller.h"
#include "basic/time-util.h"

typedef enum ControllerVolumeState {
        CONTROLLER_VOLUME_OPTIMAL,
        CONTROLLER_VOLUME_DEGRADED,   /* redundancy lost (storcli Dgrd/Pdgd, ssacli Interim
                                         Recovery Mode, arcconf Degraded/Suboptimal) */
        CONTROLLER_VOLUME_REBUILDING, /* a member is being rebuilt */
        CONTROLLER_VOLUME_FAILED,     /* data lost / volume failed */
        CONTROLLER_VOLUME_OFFLINE,    /* not accessible (storcli OfLn, arcconf Offline) */
        CONTROLLER_VOLUME_UNKNOWN,    /* a state word we do not know; see state_raw */
        _CONTROLLER_VOLUME_STATE_MAX,
        _CONTROLLER_VOLUME_STATE_INVALID = -EINVAL,
} ControllerVolumeState;

#define CONTROLLER_PROGRESS_UNKNOWN (-1.0)
#define CONTROLLER_SIZE_UNKNOWN     UINT64_MAX

typedef struct ControllerVolume {
        char *controller; /* controller as the CLI numbers it: storcli "0", ssacli slot "0", arcconf
                             "1" */
        char *volume_id;  /* storcli VD "239", ssacli logical drive "1", arcconf LD "0" */
        char *name;       /* VD name / logical drive label / LD name; NULL if none */
        char *raid_level; /* as printed: "RAID1", "RAID 5", "1+0", "10"; NULL if unknown */
        uint64_t size_bytes; /* CONTROLLER_SIZE_UNKNOWN if unknown; CLI units are binary */
        ControllerVolumeState state;
        char *state_raw;     /* the CLI's own words, e.g. "Dgrd", "Interim Recovery Mode" */
        char *os_device;     /* "/dev/sda" when the CLI names it, else NULL */
        char *operation;     /* running background operation ("Rebuild", "Build/Verify"), or NULL */
        double progress;     /* 0..1 of `operation`, or CONTROLLER_PROGRESS_UNKNOWN */
        usec_t eta_usec;     /* time left as the CLI estimates it, or USEC_INFINITY */
        char *rebuild_drive; /* storcli: first member in state Rbld ("/c0/e252/s4"), else NULL */
        /* The volume's SCSI NAA identifier as the CLI prints it (storcli "SCSI NAA Id", ssacli
         * "Unique Identifier"), lower-case hex without prefix, or NULL. It equals the block
         * device's WWN (sysfs device/wwid "naa.<id>", udev ID_WWN_WITH_EXTENSION "0x<id>"), which
         * matches a CLI volume to its disk when the CLI names no OS device. */
        char *naa_id;
} ControllerVolume;

typedef struct ControllerVolumeList {
        ControllerVolume *volumes;
        size_t n;
} ControllerVolumeList;

/* Free everything the list owns and reset it to empty. Accepts NULL and empty lists. */
void controller_volume_list_done(ControllerVolumeList *l);
/* For _cleanup_(controller_volume_list_donep). */
static inline void controller_volume_list_donep(ControllerVolumeList *l) {
        controller_volume_list_done(l);
}

/* storcli/perccli `/cALL/vALL show all J` (also `/cALL show all J`, whose "VD LIST"/"PD LIST"
 * rows give state, level, size and the rebuilding member, but no OS device name). Returns 0 with
 * *ret filled (possibly empty: a controller without VDs), -EBADMSG for text that is not the
 * expected JSON, -EIO if every controller reported a non-Success command status. *ret must be
 * empty on entry; it is written only on success. */
int storcli_parse_volumes(const char *text, size_t size, ControllerVolumeList *ret);

/* storcli `/cX/eY/sZ show rebuild J` (the drive progress table: Drive-ID, Progress%, Status,
 * Estimated Time Left). For every volume in `l` whose rebuild_drive is listed "In progress", set
 * operation "Rebuild", state REBUILDING, progress and eta. Returns the number of volumes updated
 * (>= 0) or -EBADMSG (l untouched). */
int storcli_apply_rebuild(ControllerVolumeList *l, const char *text, size_t size);

/* ssacli/hpssacli/hpacucli `ctrl all show config detail` (or the short form). Returns 0 with
 * *ret filled, -ENODATA if the tool printed only an "Error:" (e.g. no logical drives), -EBADMSG
 * if nothing in the text looks like ssacli output. Written only on success. */
int ssacli_parse_config(const char *text, size_t size, ControllerVolumeList *ret);

/* arcconf `GETCONFIG <controller> LD` (or AL). `controller` names the controller queried (the
 * output does not say). Returns 0 with *ret filled, -ENODATA for "no logical devices" output,
 * -EBADMSG if the text is not arcconf output. Written only on success. */
int arcconf_parse_ld(const char *text, size_t size, const char *controller,
                     ControllerVolumeList *ret);

/* arcconf `GETSTATUS <controller>`: apply "Logical device Task" blocks (operation and percentage)
 * to matching volumes of `l`; a Rebuild task makes the volume REBUILDING. Returns the number of
 * volumes updated (>= 0) or -EBADMSG (l untouched). */
int arcconf_apply_status(ControllerVolumeList *l, const char *text, size_t size);

/* Does `wwid` (sysfs "naa.600508b1...", udev "0x600508b1...", or bare hex; case-insensitive,
 * trailing whitespace ignored) name the same device as v->naa_id? False if either is missing. */
bool controller_volume_matches_wwid(const ControllerVolume *v, const char *wwid);

/* Map a CLI state word to the enum (exposed for tests and for the CLI-less case). */
ControllerVolumeState storcli_vd_state_from_string(const char *s);
ControllerVolumeState ssacli_ld_state_from_string(const char *s, double *ret_progress);
ControllerVolumeState arcconf_ld_state_from_string(const char *s);

DECLARE_STRING_TABLE_LOOKUP(controller_volume_state, ControllerVolumeState);

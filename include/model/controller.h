/* SPDX-License-Identifier: MIT */
#pragma once

/* Hardware RAID controllers, recognised by the SCSI host driver that drives them.
 *
 * The kernel names the driver of every SCSI host in /sys/class/scsi_host/hostN/proc_name (the
 * `proc_name` of the driver's scsi_host_template, e.g. "megaraid_sas"). A block device whose
 * host driver is in this table sits on a hardware RAID controller: the disk the kernel sees is
 * (usually) a logical drive assembled by controller firmware, whose health only the controller
 * and its vendor CLI know. The table says which vendor family made the controller, which CLI
 * reads it, and how to tell a logical drive from a pass-through physical disk on the same host.
 *
 * Everything here is pure: strings in, const table entries out; no I/O. The caller (inventory)
 * reads proc_name, the SCSI address and the model from sysfs through its injected root. */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "basic/macro.h"
#include "basic/string-table.h"

typedef enum ControllerVendor {
        CONTROLLER_VENDOR_BROADCOM,  /* LSI / Avago / Broadcom: MegaRAID, Fusion-MPT, MPI3 */
        CONTROLLER_VENDOR_HPE,       /* HP / HPE Smart Array (cciss, hpsa) */
        CONTROLLER_VENDOR_MICROCHIP, /* Adaptec, PMC-Sierra, Microsemi, Microchip, DPT, ICP */
        CONTROLLER_VENDOR_ARECA,
        CONTROLLER_VENDOR_3WARE, /* 3ware / AMCC (later bought by LSI) */
        CONTROLLER_VENDOR_MYLEX, /* Mylex DAC960 / eXtremeRAID (later bought by LSI) */
        CONTROLLER_VENDOR_IBM,   /* ServeRAID (ips), Power RAID (ipr) */
        CONTROLLER_VENDOR_ATTO,
        CONTROLLER_VENDOR_PROMISE,
        CONTROLLER_VENDOR_HIGHPOINT,
        CONTROLLER_VENDOR_MARVELL,
        CONTROLLER_VENDOR_LINUX, /* scsi_debug, the test stand-in */
        _CONTROLLER_VENDOR_MAX,
        _CONTROLLER_VENDOR_INVALID = -EINVAL,
} ControllerVendor;

/* The vendor command-line tool that reads a controller's logical drives. One tool family may
 * have several binary names (storcli64/storcli/perccli64/perccli print the same JSON). */
typedef enum ControllerCli {
        CONTROLLER_CLI_NONE,      /* no CLI known (or none still available) */
        CONTROLLER_CLI_STORCLI,   /* Broadcom storcli / Dell perccli: `show all J` JSON */
        CONTROLLER_CLI_STORCLI2,  /* Broadcom storcli2 (MPI3 / 9600 series), not parsed yet */
        CONTROLLER_CLI_SSACLI,    /* HPE ssacli (formerly hpssacli, hpacucli) */
        CONTROLLER_CLI_ARCCONF,   /* Microchip/Adaptec arcconf */
        CONTROLLER_CLI_TW_CLI,    /* 3ware tw_cli, not parsed yet */
        CONTROLLER_CLI_CLI64,     /* Areca cli64/cli32, not parsed yet */
        CONTROLLER_CLI_SAS3IRCU,  /* Broadcom sas2ircu/sas3ircu for IR volumes, not parsed yet */
        CONTROLLER_CLI_IPRCONFIG, /* IBM iprconfig, not parsed yet */
        _CONTROLLER_CLI_MAX,
        _CONTROLLER_CLI_INVALID = -EINVAL,
} ControllerCli;

/* How a driver exposes logical drives (volumes) next to pass-through physical disks. */
typedef enum ControllerVolumeRule {
        /* Every disk on the host is a controller volume (3ware units, Areca volume sets, ...). */
        CONTROLLER_VOLUMES_ALL,
        /* Volumes are on SCSI channels >= volume_channel (megaraid_sas: LDs on 2 and 3, system
         * PDs / JBOD on 0 and 1; MEGASAS_MAX_PD_CHANNELS). */
        CONTROLLER_VOLUMES_CHANNEL_MIN,
        /* Volumes are exactly on SCSI channel volume_channel (mpt2sas/mpt3sas RAID_CHANNEL 1,
         * mptsas MPTSAS_RAID_CHANNEL 1, aacraid CONTAINER_CHANNEL 0). */
        CONTROLLER_VOLUMES_CHANNEL_EQ,
        /* Only per-device hints tell (hpsa/smartpqi `raid_level` attribute, model "LOGICAL
         * VOLUME"); a device without a hint is unknown. */
        CONTROLLER_VOLUMES_BY_HINT,
        _CONTROLLER_VOLUME_RULE_MAX,
        _CONTROLLER_VOLUME_RULE_INVALID = -EINVAL,
} ControllerVolumeRule;

typedef enum ControllerKind {
        /* A RAID controller: its firmware builds the logical drives the host sees. */
        CONTROLLER_KIND_RAID,
        /* A host bus adapter whose firmware may also build simple "integrated RAID" volumes
         * (Fusion-MPT IR firmware). Most of these run IT (plain HBA) firmware, so a disk on it
         * counts as a controller volume only when the per-device rule says so. */
        CONTROLLER_KIND_HBA_IR,
        /* scsi_debug, accepted only with CONTROLLER_ALLOW_TEST. */
        CONTROLLER_KIND_TEST,
        _CONTROLLER_KIND_MAX,
        _CONTROLLER_KIND_INVALID = -EINVAL,
} ControllerKind;

#define CONTROLLER_CLI_PER_DRIVER 2

typedef struct ControllerDriver {
        const char *proc_name;   /* scsi_host/hostN/proc_name, e.g. "megaraid_sas" */
        const char *module;      /* kernel module, when it differs from proc_name, else NULL */
        const char *description; /* human-readable, e.g. "Broadcom/LSI MegaRAID SAS" */
        ControllerVendor vendor;
        ControllerKind kind;
        ControllerVolumeRule volume_rule;
        int volume_channel; /* for the CHANNEL rules, else -1 */
        /* CLIs that read it, best first; unused slots are CONTROLLER_CLI_NONE. */
        ControllerCli cli[CONTROLLER_CLI_PER_DRIVER];
} ControllerDriver;

typedef enum ControllerLookupFlags {
        /* Accept test stand-ins (scsi_debug). The VM suite sets this; production never does.
         * Edges may derive it from the environment with controller_lookup_flags_from_env(). */
        CONTROLLER_ALLOW_TEST = 1 << 0,
} ControllerLookupFlags;

/* Environment variable the edges read to set CONTROLLER_ALLOW_TEST ("1", "yes", "true"). */
#define CONTROLLER_TEST_ENV "STORPULSE_CONTROLLER_TEST"

/* Look up a SCSI host driver by its proc_name (as read from sysfs; trailing whitespace and one
 * newline are tolerated, case matters as in the kernel). Returns the static table entry, or NULL
 * for NULL/empty/unknown names and for test entries unless `flags` has CONTROLLER_ALLOW_TEST.
 * Pure; the returned pointer is valid forever. */
const ControllerDriver *controller_lookup(const char *proc_name, ControllerLookupFlags flags);

/* The whole table (test entries included) for listings and docs; *ret_n gets its length. */
const ControllerDriver *controller_table(size_t *ret_n);

/* CONTROLLER_ALLOW_TEST if the value of CONTROLLER_TEST_ENV (passed in, may be NULL) is a true
 * boolean, else 0. Pure: the edge calls it with getenv(CONTROLLER_TEST_ENV). */
ControllerLookupFlags controller_lookup_flags_from_env(const char *value);

/* What one SCSI disk on a known controller is. */
typedef enum ControllerDeviceRole {
        CONTROLLER_DEVICE_VOLUME,   /* a logical drive built by the controller */
        CONTROLLER_DEVICE_PHYSICAL, /* a pass-through / JBOD / HBA-mode physical disk */
        CONTROLLER_DEVICE_UNKNOWN,  /* no rule or hint decides */
        _CONTROLLER_DEVICE_ROLE_MAX,
        _CONTROLLER_DEVICE_ROLE_INVALID = -EINVAL,
} ControllerDeviceRole;

/* Facts about one SCSI device, read by the caller from sysfs. Any string may be NULL. */
typedef struct ControllerDeviceInfo {
        int channel;            /* C of H:C:T:L (block/X/device -> .../H:C:T:L), -1 unknown */
        const char *vendor;     /* device/vendor, e.g. "LSI", "HP" (space padded is fine) */
        const char *model;      /* device/model, e.g. "Logical Volume", "LOGICAL VOLUME" */
        const char *raid_level; /* device/raid_level (hpsa, smartpqi): "RAID 1(ADM)", "N/A" */
        bool raid_class;        /* /sys/class/raid_devices/H:C:T:L exists (mpt*sas, myrb, myrs) */
} ControllerDeviceInfo;

/* Decide whether a device on controller `driver` is a volume or a physical disk. Hints that name
 * a volume outright (raid_class entry, a raid_level other than "N/A", an "Logical Volume" model)
 * win; then the driver's volume_rule decides; CONTROLLER_DEVICE_UNKNOWN if neither does.
 * Returns -EINVAL for a NULL driver or info. Pure. */
ControllerDeviceRole controller_device_role(const ControllerDriver *driver,
                                            const ControllerDeviceInfo *info);

DECLARE_STRING_TABLE_LOOKUP(controller_vendor, ControllerVendor);
DECLARE_STRING_TABLE_LOOKUP(controller_cli, ControllerCli);
DECLARE_STRING_TABLE_LOOKUP(controller_kind, ControllerKind);
DECLARE_STRING_TABLE_LOOKUP(controller_volume_rule, ControllerVolumeRule);
DECLARE_STRING_TABLE_LOOKUP(controller_device_role, ControllerDeviceRole);

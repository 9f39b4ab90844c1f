/* SPDX-License-Identifier: MIT */
/* The table of hardware RAID host drivers and the rule that tells their logical drives from
 * pass-through disks.
 *
 * A controller volume hides its members from the kernel, so the only thing the host can say
 * about it without a vendor CLI is "this disk is a logical drive of controller X, driven by Y".
 * The table below is keyed by the SCSI host template's proc_name, the string the kernel prints
 * in /sys/class/scsi_host/hostN/proc_name. It lists the in-tree drivers whose Kconfig calls them
 * RAID controllers, plus the Fusion-MPT HBAs whose IR firmware builds volumes; drivers removed
 * from newer kernels (gdth, dpt_i2o, megaraid_legacy) stay in because long-term enterprise
 * kernels still ship them and a stale entry costs nothing.
 *
 * mpt2sas/mpt3sas/mptsas are usually plain HBAs (IT firmware) and their disks are ordinary
 * disks; with IR firmware they put volumes on SCSI channel 1 (RAID_CHANNEL) and register them
 * with the raid_class. So they are CONTROLLER_KIND_HBA_IR and a disk counts as a volume only
 * through controller_device_role(). MegaRAID firmware on the same chips binds megaraid_sas.
 *
 * scsi_debug is in the table as the VM suite's stand-in, returned only on explicit request.
 * Everything here is pure and allocation-free. */

#include <string.h>
#include <strings.h>

#include "basic/string-table.h"
#include "model/controller.h"

#define CLI1(a)                                                                                    \
        { CONTROLLER_CLI_##a, CONTROLLER_CLI_NONE }
#define CLI2(a, b)                                                                                 \
        { CONTROLLER_CLI_##a, CONTROLLER_CLI_##b }

static const ControllerDriver table[] = {
        /* Broadcom / LSI / Avago */
        { "megaraid_sas", NULL, "Broadcom/LSI MegaRAID SAS (incl. Dell PERC)",
          CONTROLLER_VENDOR_BROADCOM, CONTROLLER_KIND_RAID, CONTROLLER_VOLUMES_CHANNEL_MIN, 2,
          CLI1(STORCLI) },
        { "megaraid", "megaraid_mbox", "LSI MegaRAID SCSI/SATA (mailbox)",
          CONTROLLER_VENDOR_BROADCOM, CONTROLLER_KIND_RAID, CONTROLLER_VOLUMES_ALL, -1,
          CLI1(NONE) },
        { "megaraid_legacy", "megaraid", "LSI/AMI MegaRAID legacy", CONTROLLER_VENDOR_BROADCOM,
          CONTROLLER_KIND_RAID, CONTROLLER_VOLUMES_ALL, -1, CLI1(NONE) },
        { "mpi3mr", NULL, "Broadcom MPI3 tri-mode RAID/HBA (9500/9600)", CONTROLLER_VENDOR_BROADCOM,
          CONTROLLER_KIND_RAID, CONTROLLER_VOLUMES_BY_HINT, -1, CLI1(STORCLI2) },
        { "mpt3sas", NULL, "Broadcom/LSI Fusion-MPT SAS-3 (IR volumes)", CONTROLLER_VENDOR_BROADCOM,
          CONTROLLER_KIND_HBA_IR, CONTROLLER_VOLUMES_CHANNEL_EQ, 1, CLI1(SAS3IRCU) },
        { "mpt2sas", "mpt3sas", "Broadcom/LSI Fusion-MPT SAS-2 (IR volumes)",
          CONTROLLER_VENDOR_BROADCOM, CONTROLLER_KIND_HBA_IR, CONTROLLER_VOLUMES_CHANNEL_EQ, 1,
          CLI1(SAS3IRCU) },
        { "mptsas", NULL, "LSI Fusion-MPT SAS (IR volumes)", CONTROLLER_VENDOR_BROADCOM,
          CONTROLLER_KIND_HBA_IR, CONTROLLER_VOLUMES_CHANNEL_EQ, 1, CLI1(NONE) },
        { "mptspi", NULL, "LSI Fusion-MPT parallel SCSI (IM volumes)", CONTROLLER_VENDOR_BROADCOM,
          CONTROLLER_KIND_HBA_IR, CONTROLLER_VOLUMES_BY_HINT, -1, CLI1(NONE) },

        /* HPE */
        { "hpsa", NULL, "HPE Smart Array", CONTROLLER_VENDOR_HPE, CONTROLLER_KIND_RAID,
          CONTROLLER_VOLUMES_BY_HINT, -1, CLI1(SSACLI) },
        /* cciss logical drives are a block driver of their own (/dev/cciss/cXdY); only its
         * tape/changer side registers a SCSI host. */
        { "cciss", NULL, "HP Smart Array (cciss, legacy)", CONTROLLER_VENDOR_HPE,
          CONTROLLER_KIND_RAID, CONTROLLER_VOLUMES_ALL, -1, CLI1(SSACLI) },

        /* Microchip / Microsemi / PMC-Sierra / Adaptec (smartpqi also drives HPE Gen10+
         * Smart Array, read with ssacli there) */
        { "smartpqi", NULL, "Microchip SmartRAID/SmartHBA (PQI)", CONTROLLER_VENDOR_MICROCHIP,
          CONTROLLER_KIND_RAID, CONTROLLER_VOLUMES_BY_HINT, -1, CLI2(ARCCONF, SSACLI) },
        { "aacraid", NULL, "Adaptec/Microchip RAID (aacraid)", CONTROLLER_VENDOR_MICROCHIP,
          CONTROLLER_KIND_RAID, CONTROLLER_VOLUMES_CHANNEL_EQ, 0, CLI1(ARCCONF) },
        { "pmcraid", NULL, "PMC-Sierra MaxRAID", CONTROLLER_VENDOR_MICROCHIP, CONTROLLER_KIND_RAID,
          CONTROLLER_VOLUMES_CHANNEL_EQ, 1, CLI1(NONE) },
        { "dpt_i2o", NULL, "Adaptec/DPT I2O RAID (removed in Linux 5.x)",
          CONTROLLER_VENDOR_MICROCHIP, CONTROLLER_KIND_RAID, CONTROLLER_VOLUMES_ALL, -1,
          CLI1(NONE) },
        { "gdth", NULL, "ICP vortex GDT RAID (removed in Linux 5.14)", CONTROLLER_VENDOR_MICROCHIP,
          CONTROLLER_KIND_RAID, CONTROLLER_VOLUMES_ALL, -1, CLI1(NONE) },

        /* Areca */
        { "arcmsr", NULL, "Areca SATA/SAS RAID", CONTROLLER_VENDOR_ARECA, CONTROLLER_KIND_RAID,
          CONTROLLER_VOLUMES_ALL, -1, CLI1(CLI64) },

        /* 3ware (units only; no pass-through block devices) */
        { "3w-9xxx", NULL, "3ware 9000 series", CONTROLLER_VENDOR_3WARE, CONTROLLER_KIND_RAID,
          CONTROLLER_VOLUMES_ALL, -1, CLI1(TW_CLI) },
        { "3w-sas", NULL, "3ware/LSI 9750 SAS", CONTROLLER_VENDOR_3WARE, CONTROLLER_KIND_RAID,
          CONTROLLER_VOLUMES_ALL, -1, CLI1(TW_CLI) },
        { "3w-xxxx", NULL, "3ware 5000/6000/7000/8000 series", CONTROLLER_VENDOR_3WARE,
          CONTROLLER_KIND_RAID, CONTROLLER_VOLUMES_ALL, -1, CLI1(TW_CLI) },

        /* Mylex (DAC960 successors; physical devices get no block device) */
        { "myrb", NULL, "Mylex DAC960/AcceleRAID/eXtremeRAID (older)", CONTROLLER_VENDOR_MYLEX,
          CONTROLLER_KIND_RAID, CONTROLLER_VOLUMES_ALL, -1, CLI1(NONE) },
        { "myrs", NULL, "Mylex eXtremeRAID/AcceleRAID (newer)", CONTROLLER_VENDOR_MYLEX,
          CONTROLLER_KIND_RAID, CONTROLLER_VOLUMES_ALL, -1, CLI1(NONE) },

        /* IBM */
        { "ips", NULL, "IBM ServeRAID", CONTROLLER_VENDOR_IBM, CONTROLLER_KIND_RAID,
          CONTROLLER_VOLUMES_ALL, -1, CLI1(NONE) },
        /* SIS-64 adapters put volume sets on IPR_VSET_VIRTUAL_BUS (2). */
        { "ipr", NULL, "IBM Power Linux RAID", CONTROLLER_VENDOR_IBM, CONTROLLER_KIND_RAID,
          CONTROLLER_VOLUMES_CHANNEL_EQ, 2, CLI1(IPRCONFIG) },

        /* Others */
        { "esas2r", NULL, "ATTO ExpressSAS RAID", CONTROLLER_VENDOR_ATTO, CONTROLLER_KIND_RAID,
          CONTROLLER_VOLUMES_ALL, -1, CLI1(NONE) },
        { "stex", NULL, "Promise SuperTrak EX", CONTROLLER_VENDOR_PROMISE, CONTROLLER_KIND_RAID,
          CONTROLLER_VOLUMES_ALL, -1, CLI1(NONE) },
        { "hptiop", NULL, "HighPoint RocketRAID (IOP)", CONTROLLER_VENDOR_HIGHPOINT,
          CONTROLLER_KIND_RAID, CONTROLLER_VOLUMES_ALL, -1, CLI1(NONE) },
        { "mvumi", NULL, "Marvell UMI RAID", CONTROLLER_VENDOR_MARVELL, CONTROLLER_KIND_RAID,
          CONTROLLER_VOLUMES_ALL, -1, CLI1(NONE) },

        /* Test stand-in: only with CONTROLLER_ALLOW_TEST. Read by storcli: the VM suite puts a
         * fake storcli64 on the CLI path to follow a CLI's output from the helper's unit to
         * the daemon (where no storcli is installed, nothing is asked). */
        { "scsi_debug", NULL, "Linux scsi_debug (test stand-in)", CONTROLLER_VENDOR_LINUX,
          CONTROLLER_KIND_TEST, CONTROLLER_VOLUMES_ALL, -1, CLI1(STORCLI) },
};

/* Compare `s` (possibly followed by whitespace/newline, as sysfs prints) with `name`. */
static bool streq_trailing_ws(const char *s, const char *name) {
        size_t n = strlen(name);

        if (strncmp(s, name, n) != 0)
                return false;
        for (s += n; *s; s++)
                if (!strchr(" \t\n", *s))
                        return false;
        return true;
}

/* Case-insensitive compare ignoring leading and trailing blanks (SCSI INQUIRY strings are
 * space padded). */
static bool strcaseeq_trimmed(const char *s, const char *want) {
        size_t n, w = strlen(want);

        if (!s)
                return false;
        s += strspn(s, " \t\n");
        n = strlen(s);
        while (n > 0 && strchr(" \t\n", s[n - 1]))
                n--;
        return n == w && strncasecmp(s, want, n) == 0;
}

static bool str_is_blank(const char *s) {
        return !s || s[strspn(s, " \t\n")] == '\0';
}

const ControllerDriver *controller_lookup(const char *proc_name, ControllerLookupFlags flags) {
        if (!proc_name || !*proc_name)
                return NULL;

        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                if (!streq_trailing_ws(proc_name, table[i].proc_name))
                        continue;
                if (table[i].kind == CONTROLLER_KIND_TEST && !(flags & CONTROLLER_ALLOW_TEST))
                        return NULL;
                return &table[i];
        }
        return NULL;
}

const ControllerDriver *controller_table(size_t *ret_n) {
        if (ret_n)
                *ret_n = ELEMENTSOF(table);
        return table;
}

ControllerLookupFlags controller_lookup_flags_from_env(const char *value) {
        static const char *const yes[] = { "1", "yes", "y", "true", "t", "on" };

        if (!value)
                return 0;
        for (size_t i = 0; i < ELEMENTSOF(yes); i++)
                if (strcaseeq_trimmed(value, yes[i]))
                        return CONTROLLER_ALLOW_TEST;
        return 0;
}

ControllerDeviceRole controller_device_role(const ControllerDriver *driver,
                                            const ControllerDeviceInfo *info) {
        if (!driver || !info)
                return -EINVAL;

        /* Hints that name the device outright. */
        if (info->raid_class)
                return CONTROLLER_DEVICE_VOLUME;
        if (!str_is_blank(info->raid_level))
                return strcaseeq_trimmed(info->raid_level, "N/A") ? CONTROLLER_DEVICE_PHYSICAL
                                                                  : CONTROLLER_DEVICE_VOLUME;
        if (strcaseeq_trimmed(info->model, "Logical Volume"))
                return CONTROLLER_DEVICE_VOLUME;

        switch (driver->volume_rule) {
        case CONTROLLER_VOLUMES_ALL:
                return CONTROLLER_DEVICE_VOLUME;
        case CONTROLLER_VOLUMES_CHANNEL_MIN:
                if (info->channel < 0 || driver->volume_channel < 0)
                        return CONTROLLER_DEVICE_UNKNOWN;
                return info->channel >= driver->volume_channel ? CONTROLLER_DEVICE_VOLUME
                                                               : CONTROLLER_DEVICE_PHYSICAL;
        case CONTROLLER_VOLUMES_CHANNEL_EQ:
                if (info->channel < 0 || driver->volume_channel < 0)
                        return CONTROLLER_DEVICE_UNKNOWN;
                return info->channel == driver->volume_channel ? CONTROLLER_DEVICE_VOLUME
                                                               : CONTROLLER_DEVICE_PHYSICAL;
        case CONTROLLER_VOLUMES_BY_HINT:
                return CONTROLLER_DEVICE_UNKNOWN;
        case _CONTROLLER_VOLUME_RULE_MAX:
        case _CONTROLLER_VOLUME_RULE_INVALID:
                break;
        }
        return -EINVAL;
}

static const char *const vendor_table[_CONTROLLER_VENDOR_MAX] = {
        [CONTROLLER_VENDOR_BROADCOM] = "broadcom",
        [CONTROLLER_VENDOR_HPE] = "hpe",
        [CONTROLLER_VENDOR_MICROCHIP] = "microchip",
        [CONTROLLER_VENDOR_ARECA] = "areca",
        [CONTROLLER_VENDOR_3WARE] = "3ware",
        [CONTROLLER_VENDOR_MYLEX] = "mylex",
        [CONTROLLER_VENDOR_IBM] = "ibm",
        [CONTROLLER_VENDOR_ATTO] = "atto",
        [CONTROLLER_VENDOR_PROMISE] = "promise",
        [CONTROLLER_VENDOR_HIGHPOINT] = "highpoint",
        [CONTROLLER_VENDOR_MARVELL] = "marvell",
        [CONTROLLER_VENDOR_LINUX] = "linux",
};

static const char *const cli_table[_CONTROLLER_CLI_MAX] = {
        [CONTROLLER_CLI_NONE] = "none",           [CONTROLLER_CLI_STORCLI] = "storcli",
        [CONTROLLER_CLI_STORCLI2] = "storcli2",   [CONTROLLER_CLI_SSACLI] = "ssacli",
        [CONTROLLER_CLI_ARCCONF] = "arcconf",     [CONTROLLER_CLI_TW_CLI] = "tw_cli",
        [CONTROLLER_CLI_CLI64] = "cli64",         [CONTROLLER_CLI_SAS3IRCU] = "sas3ircu",
        [CONTROLLER_CLI_IPRCONFIG] = "iprconfig",
};

static const char *const kind_table[_CONTROLLER_KIND_MAX] = {
        [CONTROLLER_KIND_RAID] = "raid",
        [CONTROLLER_KIND_HBA_IR] = "hba-ir",
        [CONTROLLER_KIND_TEST] = "test",
};

static const char *const volume_rule_table[_CONTROLLER_VOLUME_RULE_MAX] = {
        [CONTROLLER_VOLUMES_ALL] = "all",
        [CONTROLLER_VOLUMES_CHANNEL_MIN] = "channel-min",
        [CONTROLLER_VOLUMES_CHANNEL_EQ] = "channel-eq",
        [CONTROLLER_VOLUMES_BY_HINT] = "by-hint",
};

static const char *const device_role_table[_CONTROLLER_DEVICE_ROLE_MAX] = {
        [CONTROLLER_DEVICE_VOLUME] = "volume",
        [CONTROLLER_DEVICE_PHYSICAL] = "physical",
        [CONTROLLER_DEVICE_UNKNOWN] = "unknown",
};

DEFINE_STRING_TABLE_LOOKUP(controller_vendor, ControllerVendor, vendor_table)
DEFINE_STRING_TABLE_LOOKUP(controller_cli, ControllerCli, cli_table)
DEFINE_STRING_TABLE_LOOKUP(controller_kind, ControllerKind, kind_table)
DEFINE_STRING_TABLE_LOOKUP(controller_volume_rule, ControllerVolumeRule, volume_rule_table)
DEFINE_STRING_TABLE_LOOKUP(controller_device_role, ControllerDeviceRole, device_role_table)

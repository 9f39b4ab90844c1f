/* SPDX-License-Identifier: MIT */
/* Controller table lookups and the volume/physical rule; the CLI parsers and the runner are
 * tested in test-controller-cli.c. */

#include <string.h>

#include "model/controller.h"
#include "basic/macro.h"
#include "tap.h"

static void test_lookup_table(void) {
        static const struct {
                const char *proc_name;
                ControllerVendor vendor;
                ControllerKind kind;
                ControllerCli cli0;
        } cases[] = {
                { "megaraid_sas", CONTROLLER_VENDOR_BROADCOM, CONTROLLER_KIND_RAID,
                  CONTROLLER_CLI_STORCLI },
                { "megaraid_sas\n", CONTROLLER_VENDOR_BROADCOM, CONTROLLER_KIND_RAID,
                  CONTROLLER_CLI_STORCLI },
                { "megaraid", CONTROLLER_VENDOR_BROADCOM, CONTROLLER_KIND_RAID,
                  CONTROLLER_CLI_NONE },
                { "megaraid_legacy", CONTROLLER_VENDOR_BROADCOM, CONTROLLER_KIND_RAID,
                  CONTROLLER_CLI_NONE },
                { "mpt3sas", CONTROLLER_VENDOR_BROADCOM, CONTROLLER_KIND_HBA_IR,
                  CONTROLLER_CLI_SAS3IRCU },
                { "mpt2sas", CONTROLLER_VENDOR_BROADCOM, CONTROLLER_KIND_HBA_IR,
                  CONTROLLER_CLI_SAS3IRCU },
                { "mptsas", CONTROLLER_VENDOR_BROADCOM, CONTROLLER_KIND_HBA_IR,
                  CONTROLLER_CLI_NONE },
                { "hpsa", CONTROLLER_VENDOR_HPE, CONTROLLER_KIND_RAID, CONTROLLER_CLI_SSACLI },
                { "cciss", CONTROLLER_VENDOR_HPE, CONTROLLER_KIND_RAID, CONTROLLER_CLI_SSACLI },
                { "smartpqi", CONTROLLER_VENDOR_MICROCHIP, CONTROLLER_KIND_RAID,
                  CONTROLLER_CLI_ARCCONF },
                { "aacraid", CONTROLLER_VENDOR_MICROCHIP, CONTROLLER_KIND_RAID,
                  CONTROLLER_CLI_ARCCONF },
                { "3w-9xxx", CONTROLLER_VENDOR_3WARE, CONTROLLER_KIND_RAID, CONTROLLER_CLI_TW_CLI },
                { "3w-sas", CONTROLLER_VENDOR_3WARE, CONTROLLER_KIND_RAID, CONTROLLER_CLI_TW_CLI },
                { "3w-xxxx", CONTROLLER_VENDOR_3WARE, CONTROLLER_KIND_RAID, CONTROLLER_CLI_TW_CLI },
                { "arcmsr", CONTROLLER_VENDOR_ARECA, CONTROLLER_KIND_RAID, CONTROLLER_CLI_CLI64 },
                { "ips", CONTROLLER_VENDOR_IBM, CONTROLLER_KIND_RAID, CONTROLLER_CLI_NONE },
                { "ipr", CONTROLLER_VENDOR_IBM, CONTROLLER_KIND_RAID, CONTROLLER_CLI_IPRCONFIG },
                { "gdth", CONTROLLER_VENDOR_MICROCHIP, CONTROLLER_KIND_RAID, CONTROLLER_CLI_NONE },
                { "dpt_i2o", CONTROLLER_VENDOR_MICROCHIP, CONTROLLER_KIND_RAID,
                  CONTROLLER_CLI_NONE },
                { "myrb", CONTROLLER_VENDOR_MYLEX, CONTROLLER_KIND_RAID, CONTROLLER_CLI_NONE },
                { "myrs", CONTROLLER_VENDOR_MYLEX, CONTROLLER_KIND_RAID, CONTROLLER_CLI_NONE },
                { "pmcraid", CONTROLLER_VENDOR_MICROCHIP, CONTROLLER_KIND_RAID,
                  CONTROLLER_CLI_NONE },
                { "esas2r", CONTROLLER_VENDOR_ATTO, CONTROLLER_KIND_RAID, CONTROLLER_CLI_NONE },
                { "stex", CONTROLLER_VENDOR_PROMISE, CONTROLLER_KIND_RAID, CONTROLLER_CLI_NONE },
                { "hptiop", CONTROLLER_VENDOR_HIGHPOINT, CONTROLLER_KIND_RAID,
                  CONTROLLER_CLI_NONE },
                { "mvumi", CONTROLLER_VENDOR_MARVELL, CONTROLLER_KIND_RAID, CONTROLLER_CLI_NONE },
                { "mpi3mr", CONTROLLER_VENDOR_BROADCOM, CONTROLLER_KIND_RAID,
                  CONTROLLER_CLI_STORCLI2 },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                const ControllerDriver *d = controller_lookup(cases[i].proc_name, 0);

                ok(d != NULL, "lookup case %zu (%.*s) finds an entry", i,
                   (int) strcspn(cases[i].proc_name, "\n"), cases[i].proc_name);
                if (!d)
                        continue;
                ok(strncmp(d->proc_name, cases[i].proc_name, strlen(d->proc_name)) == 0,
                   "case %zu -> entry %s", i, d->proc_name);
                is_int(d->vendor, cases[i].vendor, "%s vendor %s", d->proc_name,
                       controller_vendor_to_string(d->vendor));
                is_int(d->kind, cases[i].kind, "%s kind", d->proc_name);
                is_int(d->cli[0], cases[i].cli0, "%s cli %s", d->proc_name,
                       controller_cli_to_string(d->cli[0]));
                ok(d->description && *d->description, "%s has a description", d->proc_name);
        }
        is_int(controller_lookup("smartpqi", 0)->cli[1], CONTROLLER_CLI_SSACLI,
               "smartpqi also read by ssacli (HPE Gen10)");
}

static void test_lookup_negative(void) {
        static const char *const bad[] = {
                "",
                "\n",
                " megaraid_sas",
                "MEGARAID_SAS",
                "megaraid_sa",
                "megaraid_sass",
                "ahci",
                "virtio_scsi",
                "usb-storage",
                "sd",
                "scsi_debugX",
                "hpsa x",
                "\xff\xfe",
        };

        ok(controller_lookup(NULL, 0) == NULL, "NULL -> NULL");
        ok(controller_lookup(NULL, CONTROLLER_ALLOW_TEST) == NULL, "NULL with test flag -> NULL");
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                ok(controller_lookup(bad[i], CONTROLLER_ALLOW_TEST) == NULL,
                   "unknown/garbage proc_name #%zu rejected", i);
}

static void test_scsi_debug(void) {
        const ControllerDriver *d;

        ok(controller_lookup("scsi_debug", 0) == NULL, "scsi_debug hidden without the flag");
        ok(controller_lookup("scsi_debug\n", 0) == NULL, "scsi_debug\\n hidden without the flag");
        d = controller_lookup("scsi_debug", CONTROLLER_ALLOW_TEST);
        ok(d != NULL, "scsi_debug found with CONTROLLER_ALLOW_TEST");
        if (d) {
                is_int(d->kind, CONTROLLER_KIND_TEST, "scsi_debug is a test entry");
                is_int(d->vendor, CONTROLLER_VENDOR_LINUX, "scsi_debug vendor linux");
                is_int(d->cli[0], CONTROLLER_CLI_STORCLI, "scsi_debug read by a (fake) storcli");
        }
        ok(controller_lookup("megaraid_sas", CONTROLLER_ALLOW_TEST) != NULL,
           "real entries still found with the flag");

        is_int(controller_lookup_flags_from_env(NULL), 0, "env unset -> 0");
        is_int(controller_lookup_flags_from_env(""), 0, "env empty -> 0");
        is_int(controller_lookup_flags_from_env("0"), 0, "env 0 -> 0");
        is_int(controller_lookup_flags_from_env("no"), 0, "env no -> 0");
        is_int(controller_lookup_flags_from_env("garbage"), 0, "env garbage -> 0");
        is_int(controller_lookup_flags_from_env("1"), CONTROLLER_ALLOW_TEST, "env 1 -> allow");
        is_int(controller_lookup_flags_from_env("yes\n"), CONTROLLER_ALLOW_TEST,
               "env yes\\n -> allow");
        is_int(controller_lookup_flags_from_env("TRUE"), CONTROLLER_ALLOW_TEST,
               "env TRUE -> allow");
}

static void test_table_consistency(void) {
        const ControllerDriver *t;
        size_t n = 0, tests = 0;

        t = controller_table(&n);
        ok(t && n >= 25, "table has %zu entries", n);
        for (size_t i = 0; i < n; i++) {
                ok(controller_vendor_to_string(t[i].vendor) != NULL &&
                           controller_kind_to_string(t[i].kind) != NULL &&
                           controller_volume_rule_to_string(t[i].volume_rule) != NULL &&
                           controller_cli_to_string(t[i].cli[0]) != NULL &&
                           controller_cli_to_string(t[i].cli[1]) != NULL,
                   "%s: every enum has a name", t[i].proc_name);
                ok((t[i].volume_rule == CONTROLLER_VOLUMES_CHANNEL_MIN ||
                    t[i].volume_rule == CONTROLLER_VOLUMES_CHANNEL_EQ) ==
                           (t[i].volume_channel >= 0),
                   "%s: channel set iff a channel rule", t[i].proc_name);
                for (size_t j = i + 1; j < n; j++)
                        if (strcmp(t[i].proc_name, t[j].proc_name) == 0)
                                ok(0, "duplicate proc_name %s", t[i].proc_name);
                if (t[i].kind == CONTROLLER_KIND_TEST)
                        tests++;
                else
                        ok(controller_lookup(t[i].proc_name, 0) == &t[i], "%s: lookup round-trip",
                           t[i].proc_name);
        }
        is_int(tests, 1, "exactly one test entry");
}

static void test_strings(void) {
        is_str(controller_vendor_to_string(CONTROLLER_VENDOR_HPE), "hpe", "vendor hpe");
        is_int(controller_vendor_from_string("areca"), CONTROLLER_VENDOR_ARECA, "areca parses");
        is_int(controller_vendor_from_string("nope"), -EINVAL, "unknown vendor -> -EINVAL");
        is_int(controller_vendor_from_string(NULL), -EINVAL, "NULL vendor -> -EINVAL");
        ok(controller_vendor_to_string(_CONTROLLER_VENDOR_MAX) == NULL, "vendor MAX -> NULL");
        ok(controller_vendor_to_string(_CONTROLLER_VENDOR_INVALID) == NULL,
           "vendor INVALID -> NULL");
        is_int(controller_cli_from_string("storcli"), CONTROLLER_CLI_STORCLI, "storcli parses");
        is_int(controller_kind_from_string("hba-ir"), CONTROLLER_KIND_HBA_IR, "hba-ir parses");
        is_int(controller_device_role_from_string("physical"), CONTROLLER_DEVICE_PHYSICAL,
               "physical parses");
        is_int(controller_volume_rule_from_string("by-hint"), CONTROLLER_VOLUMES_BY_HINT,
               "by-hint parses");
        for (int i = 0; i < _CONTROLLER_CLI_MAX; i++)
                is_int(controller_cli_from_string(controller_cli_to_string(i)), i,
                       "cli %d round-trips", i);
}

static void test_device_role(void) {
        const ControllerDriver *mega = controller_lookup("megaraid_sas", 0),
                               *mpt = controller_lookup("mpt3sas", 0),
                               *hpsa = controller_lookup("hpsa", 0),
                               *aac = controller_lookup("aacraid", 0),
                               *tw = controller_lookup("3w-9xxx", 0);
        static const ControllerDeviceInfo empty = { .channel = -1 };

        is_int(controller_device_role(NULL, &empty), -EINVAL, "NULL driver -> -EINVAL");
        is_int(controller_device_role(mega, NULL), -EINVAL, "NULL info -> -EINVAL");

        /* megaraid_sas: system PDs on channel 0/1, LDs on 2/3 */
        is_int(controller_device_role(mega, &(ControllerDeviceInfo){ .channel = 2,
                                                                     .vendor = "AVAGO",
                                                                     .model = "MR9361-8i" }),
               CONTROLLER_DEVICE_VOLUME, "megaraid_sas channel 2 is a VD");
        is_int(controller_device_role(mega, &(ControllerDeviceInfo){ .channel = 3 }),
               CONTROLLER_DEVICE_VOLUME, "megaraid_sas channel 3 is a VD");
        is_int(controller_device_role(
                       mega, &(ControllerDeviceInfo){ .channel = 0, .model = "ST4000NM0035" }),
               CONTROLLER_DEVICE_PHYSICAL, "megaraid_sas channel 0 is a JBOD disk");
        is_int(controller_device_role(mega, &empty), CONTROLLER_DEVICE_UNKNOWN,
               "megaraid_sas unknown channel -> unknown");

        /* mpt3sas: IT mode disks on channel 0, IR volumes on 1 */
        is_int(controller_device_role(
                       mpt, &(ControllerDeviceInfo){ .channel = 0, .model = "ST4000NM0035" }),
               CONTROLLER_DEVICE_PHYSICAL, "mpt3sas channel 0 disk is physical");
        is_int(controller_device_role(mpt, &(ControllerDeviceInfo){ .channel = 1 }),
               CONTROLLER_DEVICE_VOLUME, "mpt3sas RAID_CHANNEL 1 is a volume");
        is_int(controller_device_role(
                       mpt, &(ControllerDeviceInfo){ .channel = -1, .model = "Logical Volume  " }),
               CONTROLLER_DEVICE_VOLUME, "model 'Logical Volume' is a volume");
        is_int(controller_device_role(mpt,
                                      &(ControllerDeviceInfo){ .channel = 0, .raid_class = true }),
               CONTROLLER_DEVICE_VOLUME, "raid_class entry wins over the channel");

        /* hpsa: only hints decide */
        is_int(controller_device_role(
                       hpsa, &(ControllerDeviceInfo){ .channel = 0, .model = "LOGICAL VOLUME" }),
               CONTROLLER_DEVICE_VOLUME, "hpsa LOGICAL VOLUME");
        is_int(controller_device_role(
                       hpsa,
                       &(ControllerDeviceInfo){ .channel = 0, .raid_level = "RAID 1(ADM)\n" }),
               CONTROLLER_DEVICE_VOLUME, "hpsa raid_level RAID 1(ADM)");
        is_int(controller_device_role(hpsa, &(ControllerDeviceInfo){ .channel = 2,
                                                                     .model = "MB4000GCWDC",
                                                                     .raid_level = "N/A\n" }),
               CONTROLLER_DEVICE_PHYSICAL, "hpsa raid_level N/A is an HBA-mode disk");
        is_int(controller_device_role(hpsa,
                                      &(ControllerDeviceInfo){ .channel = 0, .raid_level = "  " }),
               CONTROLLER_DEVICE_UNKNOWN, "hpsa blank raid_level -> unknown");

        /* aacraid: containers on channel 0, native disks on 1 */
        is_int(controller_device_role(aac, &(ControllerDeviceInfo){ .channel = 0 }),
               CONTROLLER_DEVICE_VOLUME, "aacraid channel 0 is a container");
        is_int(controller_device_role(aac, &(ControllerDeviceInfo){ .channel = 1 }),
               CONTROLLER_DEVICE_PHYSICAL, "aacraid channel 1 is a native disk");

        /* scsi_debug (VM stand-in): every disk is a volume once the test entry is allowed */
        is_int(controller_device_role(controller_lookup("scsi_debug", CONTROLLER_ALLOW_TEST),
                                      &(ControllerDeviceInfo){ .channel = 0,
                                                               .vendor = "Linux   ",
                                                               .model = "scsi_debug      " }),
               CONTROLLER_DEVICE_VOLUME, "scsi_debug disk is a volume");

        /* 3ware: every unit */
        is_int(controller_device_role(tw, &empty), CONTROLLER_DEVICE_VOLUME,
               "3w-9xxx: every disk is a unit");
}

int main(void) {
        test_lookup_table();
        test_lookup_negative();
        test_scsi_debug();
        test_table_consistency();
        test_strings();
        test_device_role();
        return tap_done();
}

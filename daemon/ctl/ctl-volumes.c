/* SPDX-License-Identifier: MIT */
/* `storpulsectl volumes [--json] [--root DIR]`: the volume tree from a direct scan (no daemon
 * needed; the daemon's control socket will answer the same question later).
 *
 * Human output is an lsblk-like tree: top-level volumes first, what each sits on indented
 * beneath, with kind, level, size, health, members' states and any running operation with a
 * progress bar, speed and ETA. A one-shot scan has md's own sync_speed (KiB/s, a ~30 s average)
 * but no speed for dm-raid (that needs two readings), which prints as "-" / null.
 *
 * --json prints an array of objects, one per visible volume, name order. Keys (volume.c):
 *   name kind path size_bytes state (ok|degraded|failed|unknown) kernel_state members holders
 *   read_only major_minor logical_block_size rotational
 *   partitions: parent partition_number
 *   arrays (md, dm-raid): level raid_disks degraded (count of missing/dead legs) sync_action
 *     sync_delayed sync_progress (0..1|null) sync_completed_sectors sync_total_sectors
 *     sync_speed_bytes_per_second (null if unknown) sync_eta_seconds (null if unknown)
 *     mismatch_count member_states {name: state} array_members [{name,state,slot,errors}]
 *   md: md {array_state metadata_version uuid chunk_size_bytes raid_disks_old
 *     reshape_position_sectors sync_speed_{min,max}_kib_per_second sync_speed_{min,max}_source}
 *   dm: dm {name uuid vg_name lv_name target suspended raid{raid_type health sync_action
 *     sync_done_sectors sync_total_sectors journal}}
 *   disks/controller volumes: vendor model serial transport scsi_host driver
 *   controller volumes: controller {cli volume_id state state_raw} (null without a vendor CLI);
 *     with a CLI also the array keys (level from the CLI, sync_action "idle"/"rebuild"/...,
 *     progress, ETA)
 * Exit codes: 0 ok, 1 usage, 2 the root or its sys/class/block cannot be read. */

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/controller-cli-run.h"
#include "model/controller.h"
#include "ctl/ctl.h"
#include "core/inventory.h"
#include "basic/format-util.h"
#include "basic/log.h"
#include "basic/macro.h"
#include "basic/sysfs.h"

static void format_duration(char *buf, size_t n, uint64_t sec) {
        if (sec >= 86400)
                (void) snprintf(buf, n, "%" PRIu64 "d%02" PRIu64 "h", sec / 86400,
                                sec % 86400 / 3600);
        else if (sec >= 3600)
                (void) snprintf(buf, n, "%" PRIu64 "h%02" PRIu64 "m", sec / 3600, sec % 3600 / 60);
        else if (sec >= 60)
                (void) snprintf(buf, n, "%" PRIu64 "m%02" PRIu64 "s", sec / 60, sec % 60);
        else
                (void) snprintf(buf, n, "%" PRIu64 "s", sec);
}

static const char *volume_label(const Volume *v, char *buf, size_t n) {
        if (v->kind == VOLUME_LVM && v->vg_name && v->lv_name)
                (void) snprintf(buf, n, "%s (%s/%s)", v->name, v->vg_name, v->lv_name);
        else if (v->dm_name && v->kind == VOLUME_DM)
                (void) snprintf(buf, n, "%s (%s)", v->name, v->dm_name);
        else
                (void) snprintf(buf, n, "%s", v->name);
        return buf;
}

static const char *member_state_of(const Volume *array, const char *name) {
        for (size_t i = 0; array && i < array->n_array_members; i++)
                if (array->array_members[i].name && strcmp(array->array_members[i].name, name) == 0)
                        return array->array_members[i].state;
        return NULL;
}

static void print_sync_line(FILE *f, const char *indent, const Volume *v) {
        const VolumeSync *s = &v->sync;
        char bar[21], speed[32] = "-", eta[32] = "-";
        size_t fill;

        if (s->delayed) {
                fprintf(f, "%s  %s delayed (waiting for another array on the same disks)\n", indent,
                        s->action ? s->action : "sync");
                return;
        }
        if (s->action && strcmp(s->action, "frozen") == 0) {
                fprintf(f, "%s  sync frozen (resync/recovery suspended by the administrator)\n",
                        indent);
                return;
        }
        if (!s->action || !s->has_progress)
                return;
        fill = (size_t) (s->progress * 20.0 + 0.5);
        fill = MIN(fill, (size_t) 20);
        memset(bar, '=', fill);
        memset(bar + fill, '.', 20 - fill);
        bar[20] = 0;
        if (s->speed_bytes_per_second > 0)
                format_bytes_per_second(speed, sizeof(speed), (double) s->speed_bytes_per_second);
        if (s->has_eta)
                format_duration(eta, sizeof(eta), s->eta_seconds);
        fprintf(f, "%s  %-8s [%s] %5.1f%%  speed %s  eta %s\n", indent, s->action, bar,
                s->progress * 100.0, speed, eta);
}

/* lsblk-style: a disk whose partitions are all unused is shown with its partitions beneath it;
 * once a partition carries something (md, LVM), the stack is shown top-down through it. */
static bool disk_shows_partitions(const Inventory *inv, const Volume *v) {
        if (!v || v->kind == VOLUME_PARTITION || strv_length(v->holders) == 0)
                return false;
        for (size_t i = 0; v->holders[i]; i++) {
                const Volume *h = inventory_get(inv, v->holders[i]);
                if (!h || h->kind != VOLUME_PARTITION || !h->parent ||
                    strcmp(h->parent, v->name) != 0 || strv_length(h->holders) > 0)
                        return false;
        }
        return true;
}

static bool display_top_level(const Inventory *inv, const Volume *v) {
        if (v->hidden)
                return false;
        /* Unbound loop devices (size 0), as lsblk leaves them out; --json lists them. */
        if (v->size_bytes == 0 && v->transport && strcmp(v->transport, "loop") == 0 &&
            strv_length(v->holders) == 0)
                return false;
        if (v->kind == VOLUME_PARTITION && strv_length(v->holders) == 0 &&
            disk_shows_partitions(inv, inventory_get(inv, v->parent)))
                return false;
        if (disk_shows_partitions(inv, v))
                return true;
        return inventory_is_top_level(inv, v);
}

/* dst = a + b, truncated to fit (depth is capped, so the tree prefixes always fit in practice). */
static void prefix_join(char *dst, size_t size, const char *a, const char *b) {
        size_t la = strnlen(a, size - 1), lb = strnlen(b, size - 1 - la);

        memcpy(dst, a, la);
        memcpy(dst + la, b, lb);
        dst[la + lb] = 0;
}

static void print_volume(FILE *f, const Inventory *inv, const Volume *v, const Volume *above,
                         const char *prefix, bool last, unsigned depth) {
        char label[160], size[32], line_prefix[256], child_prefix[256], info[256] = "";
        char name_col[420];
        const char *mstate = member_state_of(above, v->name);
        size_t n_children;

        if (depth == 0) {
                line_prefix[0] = 0;
                child_prefix[0] = 0;
        } else {
                prefix_join(line_prefix, sizeof(line_prefix), prefix, last ? "`-" : "|-");
                prefix_join(child_prefix, sizeof(child_prefix), prefix, last ? "  " : "| ");
        }
        format_bytes(size, sizeof(size), v->size_bytes);
        if (v->kind == VOLUME_DISK || v->kind == VOLUME_CONTROLLER)
                (void) snprintf(info, sizeof(info), "%s%s%s%s%s", v->model ? v->model : "",
                                v->transport ? " [" : "", v->transport ? v->transport : "",
                                v->driver ? (v->transport ? " " : " [") : "",
                                v->driver ? v->driver : "");
        if (info[0] && (v->transport || v->driver))
                strncat(info, "]", sizeof(info) - strlen(info) - 1);
        if (v->kind == VOLUME_DM && v->dm_target)
                (void) snprintf(info, sizeof(info), "%s", v->dm_target);
        if (v->kind == VOLUME_LVM && v->dm_target && !v->dm_raid)
                (void) snprintf(info, sizeof(info), "%s", v->dm_target);

        (void) snprintf(name_col, sizeof(name_col), "%s%s", line_prefix,
                        volume_label(v, label, sizeof(label)));
        fprintf(f, "%-24s %-10s %-9s %7s  %-9s%s%s%s %s\n", name_col,
                volume_kind_to_string(v->kind), v->level ? v->level : "-", size,
                volume_health_to_string(v->health), mstate ? " (" : "", mstate ? mstate : "",
                mstate ? ")" : "", info);

        if (volume_is_array(v)) {
                print_sync_line(f, child_prefix[0] ? child_prefix : "", v);
                if (v->sync.has_mismatch_count && v->sync.mismatch_count > 0)
                        fprintf(f, "%s  mismatches: %" PRIu64 " sectors\n", child_prefix,
                                v->sync.mismatch_count);
                for (size_t i = 0; i < v->n_array_members; i++) {
                        const VolumeMember *m = &v->array_members[i];
                        /* Members the kernel lists but that are not devices of their own. */
                        if (!m->name || !strv_contains(v->members, m->name))
                                fprintf(f, "%s  member %s: %s\n", child_prefix,
                                        m->name ? m->name : "(missing)", m->state ? m->state : "?");
                }
        }
        if (depth == 0) {
                const Volume *where = NULL;
                const char *bad = NULL;

                /* Say which layer shows the problem when it is not this volume itself. */
                if (inventory_attribute_problem(inv, v, &where, &bad) > 0 && where != v)
                        fprintf(f, "  problem below: %s%s%s\n", where->name, bad ? ", member " : "",
                                bad ? bad : "");
        }
        if (depth > 12)
                return;
        if (depth == 0 && disk_shows_partitions(inv, v)) {
                n_children = strv_length(v->holders);
                for (size_t i = 0; i < n_children; i++) {
                        const Volume *p = inventory_get(inv, v->holders[i]);
                        char psize[32];

                        format_bytes(psize, sizeof(psize), p->size_bytes);
                        (void) snprintf(name_col, sizeof(name_col), "%s%s",
                                        i + 1 == n_children ? "`-" : "|-", p->name);
                        fprintf(f, "%-24s %-10s %-9s %7s  %-9s\n", name_col,
                                volume_kind_to_string(p->kind), "-", psize,
                                volume_health_to_string(p->health));
                }
                return;
        }
        n_children = strv_length(v->members);
        for (size_t i = 0; i < n_children; i++) {
                const Volume *c = inventory_get(inv, v->members[i]);
                if (c)
                        print_volume(f, inv, c, v, child_prefix, i + 1 == n_children, depth + 1);
                else
                        fprintf(f, "%s%s%s (not present)\n", child_prefix,
                                i + 1 == n_children ? "`-" : "|-", v->members[i]);
        }
}

/* Ask the installed vendor CLIs about the controller volumes (storcli, ssacli, arcconf). A
 * missing CLI is normal (the volume is still monitored by probes); a failing one is reported and
 * ignored. Each command is bounded by a timeout, so a hung CLI cannot hang us. */
static void query_controller_clis(Inventory *inv, unsigned flags) {
        _cleanup_(process_reaper_freep) ProcessReaper *reaper = NULL;
        bool asked[_CONTROLLER_CLI_MAX] = {};
        const char *path = getenv("PATH");
        size_t stuck;
        Volume *v;
        int k;

        k = process_reaper_new(NULL, NULL, &reaper);
        if (k < 0) {
                log_warning_errno(k, "Cannot run vendor CLIs, ignoring: %m");
                return;
        }
        if (!path)
                path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
        INVENTORY_FOREACH(v, inv) {
                const ControllerDriver *d;

                if (v->kind != VOLUME_CONTROLLER || !v->driver)
                        continue;
                d = controller_lookup(v->driver, flags);
                for (size_t i = 0; d && i < CONTROLLER_CLI_PER_DRIVER; i++) {
                        ControllerVolumeList l = {};
                        ControllerCli cli = d->cli[i];
                        int r;

                        if (cli <= CONTROLLER_CLI_NONE || cli >= _CONTROLLER_CLI_MAX || asked[cli])
                                continue;
                        asked[cli] = true;
                        r = controller_cli_query(reaper, cli, path, 10 * USEC_PER_SEC, &l);
                        if (r == -ENOENT || r == -EOPNOTSUPP)
                                continue;
                        if (r < 0) {
                                log_warning_errno(r, "Querying %s failed, ignoring: %m",
                                                  controller_cli_to_string(cli));
                                continue;
                        }
                        r = inventory_apply_controller_cli(inv, cli, &l);
                        if (r < 0)
                                log_warning_errno(r, "Applying %s output failed, ignoring: %m",
                                                  controller_cli_to_string(cli));
                        controller_volume_list_done(&l);
                }
        }
        /* A killed CLI stuck in the kernel (a wedged controller) is left behind, not waited for. */
        stuck = process_reaper_settle(reaper, now(CLOCK_MONOTONIC) + USEC_PER_SEC);
        if (stuck > 0)
                log_warning("%zu killed vendor CLI process(es) still stuck in the kernel, left "
                            "behind",
                            stuck);
}

static int help(void) {
        printf("Usage: storpulsectl volumes [--json] [--root DIR]\n\n"
               "Show md arrays, LVM/dm volumes, controller volumes, disks and partitions as a "
               "tree,\n"
               "with health, member states and running resync/recovery/check progress.\n\n"
               "  --json      print a JSON array of volumes instead of the tree\n"
               "  --root DIR  scan DIR (a fixture tree with sys/, proc/, run/udev/, dm/) instead "
               "of /\n"
               "  --no-controller-cli\n"
               "              do not run vendor RAID CLIs (storcli, ssacli, arcconf) found on "
               "$PATH\n"
               "  -h --help   show this help\n\n"
               "Exit status: 0 ok, 1 usage error, 2 the scan root cannot be read.\n");
        return 0;
}

int ctl_volumes_main(int argc, char **argv) {
        static const struct option options[] = {
                { "json", no_argument, NULL, 'j' },
                { "root", required_argument, NULL, 'r' },
                { "help", no_argument, NULL, 'h' },
                { "no-controller-cli", no_argument, NULL, 'C' },
                {},
        };
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        const char *root = "/";
        bool json = false, use_cli = true;
        unsigned flags;
        int c, r;

        optind = 0;
        while ((c = getopt_long(argc, argv, "hjr:", options, NULL)) >= 0)
                switch (c) {
                case 'j':
                        json = true;
                        break;
                case 'r':
                        root = optarg;
                        break;
                case 'h':
                        return help();
                case 'C':
                        use_cli = false;
                        break;
                default:
                        return 1;
                }
        if (optind < argc) {
                log_error("volumes: unexpected argument '%s'", argv[optind]);
                return 1;
        }

        r = inventory_new_for_root(root, &inv);
        if (r < 0) {
                log_error_errno(r, "Failed to open scan root %s: %m", root);
                return 2;
        }
        flags = controller_lookup_flags_from_env(getenv(CONTROLLER_TEST_ENV));
        inventory_set_controller_flags(inv, flags);
        r = inventory_scan(inv);
        if (r < 0) {
                log_error_errno(r, "Failed to list block devices below %s: %m", root);
                return 2;
        }
        if (use_cli)
                query_controller_clis(inv, flags);

        if (json) {
                json_object *a = NULL;

                r = inventory_to_json(inv, &a);
                if (r < 0) {
                        log_error_errno(r, "Failed to build JSON: %m");
                        return 3;
                }
                printf("%s\n", json_object_to_json_string_ext(
                                       a, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
                                                  JSON_C_TO_STRING_NOSLASHESCAPE));
                json_object_put(a);
                return 0;
        }

        printf("%-24s %-10s %-9s %7s  %-9s\n", "NAME", "KIND", "LEVEL", "SIZE", "STATE");
        {
                Volume *v;
                INVENTORY_FOREACH(v, inv)
                if (display_top_level(inv, v))
                        print_volume(stdout, inv, v, NULL, "", true, 0);
        }
        return 0;
}

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
 *   read_only major_minor logical_block_size_bytes rotational
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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/controller-cli-run.h"
#include "model/controller.h"
#include "model/md.h"
#include "ctl/ctl.h"
#include "core/inventory.h"
#include "basic/format-util.h"
#include "basic/utf8.h"
#include "ctl/ctl-util.h"
#include "basic/log.h"
#include "basic/macro.h"
#include "basic/sysfs.h"

/* The ETA column: "1d02h", "3h05m", "4m10s", "42s". */
static void format_duration_compact(char *buf, size_t n, uint64_t sec) {
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

/* The tree is collected first and printed once every column's width is known, so long names
 * (deep stacks, dm names) and odd characters (shown escaped) never shift the other columns. */
typedef enum Col {
        COL_NAME,
        COL_KIND,
        COL_LEVEL,
        COL_SIZE,
        COL_STATE,
        COL_MEMBER,
        COL_INFO,
        _COL_MAX
} Col;

static const char *const col_header[_COL_MAX] = {
        [COL_NAME] = "NAME",   [COL_KIND] = "KIND",     [COL_LEVEL] = "LEVEL", [COL_SIZE] = "SIZE",
        [COL_STATE] = "STATE", [COL_MEMBER] = "MEMBER", [COL_INFO] = "INFO",
};

typedef struct Row {
        char *cell[_COL_MAX]; /* NULL: a free-text line in cell[COL_INFO] (sync, problems) */
        bool text;
} Row;

typedef struct Table {
        Row *rows;
        size_t n;
        bool oom;
        unsigned unknown_sizes;
} Table;

static void table_done(Table *t) {
        for (size_t i = 0; i < t->n; i++)
                for (Col c = 0; c < _COL_MAX; c++)
                        free(t->rows[i].cell[c]);
        free(t->rows);
        *t = (Table){};
}

static Row *table_add(Table *t) {
        Row *n = reallocarray(t->rows, t->n + 1, sizeof(Row));

        if (!n) {
                t->oom = true;
                return NULL;
        }
        t->rows = n;
        n[t->n] = (Row){};
        return &n[t->n++];
}

/* cell = escaped copy of s (NULL -> "") */
static void set_cell(Table *t, Row *r, Col c, const char *s) {
        if (!r)
                return;
        r->cell[c] = utf8_escape_display(s ?: "");
        if (!r->cell[c])
                t->oom = true;
}

static void _printf_(3, 4) add_text(Table *t, const char *indent, const char *fmt, ...) {
        char buf[512], line[1024];
        va_list ap;
        Row *r;

        va_start(ap, fmt);
        (void) vsnprintf(buf, sizeof(buf), fmt, ap);
        va_end(ap);
        (void) snprintf(line, sizeof(line), "%s%s", indent, buf);
        r = table_add(t);
        if (!r)
                return;
        r->text = true;
        set_cell(t, r, COL_INFO, line);
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
                        return volume_member_state(&array->array_members[i]);
        return NULL;
}

/* A member the array has given up on (md "faulty", dm-raid "faulty"/"missing"). */
static bool member_state_failed(const char *s) {
        return s && (strstr(s, "faulty") || strcmp(s, "missing") == 0);
}

/* The STATE column: the volume's own health, but "faulty" for a member its array failed (the
 * disk itself may still answer, which is not what matters to the array), and "replaced" for the
 * old disk of a finished mdadm --replace (md marks it faulty on purpose; it no longer serves). */
static const char *state_cell(const Volume *v, const char *mstate) {
        if (mstate && strcmp(mstate, "replaced") == 0)
                return "replaced";
        if (member_state_failed(mstate))
                return "faulty";
        return volume_health_to_string(v->health);
}

static void size_cell(Table *t, Row *r, const Volume *v) {
        char size[FORMAT_BYTES_MAX];

        if (v->size_unknown) {
                t->unknown_sizes++;
                set_cell(t, r, COL_SIZE, "unknown");
                return;
        }
        /* an IMSM/DDF container holds metadata only: its arrays have the size */
        if (v->md && md_array_is_container(v->md) && v->size_bytes == 0) {
                set_cell(t, r, COL_SIZE, "-");
                return;
        }
        set_cell(t, r, COL_SIZE, format_bytes(size, sizeof(size), v->size_bytes));
}

static void add_sync_line(Table *t, const char *indent, const Volume *v) {
        const VolumeSync *s = &v->sync;
        char bar[21], speed[FORMAT_BYTES_MAX + 4] = "-", eta[32] = "-";
        size_t fill;

        if (s->delayed) {
                add_text(t, indent, "  %s delayed (waiting for another array on the same disks)",
                         s->action ? s->action : "sync");
                return;
        }
        if (s->action && strcmp(s->action, "frozen") == 0) {
                add_text(t, indent,
                         "  sync frozen (resync/recovery suspended by the administrator)");
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
                format_duration_compact(eta, sizeof(eta), s->eta_seconds);
        add_text(t, indent, "  %-8s [%s] %5.1f%%  speed %s  eta %s", s->action, bar,
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
        if (!volume_is_listed(v))
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

static void info_of(const Volume *v, char *info, size_t n) {
        info[0] = 0;
        if (v->kind == VOLUME_DISK || v->kind == VOLUME_CONTROLLER) {
                char bus[128] = "";

                if (v->transport || v->driver)
                        (void) snprintf(bus, sizeof(bus), "[%s%s%s]", v->transport ?: "",
                                        v->transport && v->driver ? " " : "", v->driver ?: "");
                (void) snprintf(info, n, "%s%s%s", v->model ?: "", v->model && bus[0] ? " " : "",
                                bus);
        }
        if ((v->kind == VOLUME_DM || (v->kind == VOLUME_LVM && !v->dm_raid)) && v->dm_target)
                (void) snprintf(info, n, "%s", v->dm_target);
        if (v->md) {
                char container[64];

                /* IMSM/DDF: the container and its member arrays name each other */
                if (md_array_container_name(v->md, container, sizeof(container)))
                        (void) snprintf(info, n, "in container %s", container);
                else if (md_array_is_container(v->md)) {
                        size_t k = (size_t) snprintf(info, n, "arrays:");

                        for (char **a = v->container_arrays; a && *a && k < n; a++)
                                k += (size_t) snprintf(info + k, n - k, "%s %s",
                                                       a == v->container_arrays ? "" : ",", *a);
                        if (!v->container_arrays || !v->container_arrays[0])
                                (void) snprintf(info, n, "arrays: none assembled");
                }
        }
}

static void add_volume_row(Table *t, const Volume *v, const char *name_col, const char *mstate) {
        char info[256];
        Row *r = table_add(t);

        info_of(v, info, sizeof(info));
        set_cell(t, r, COL_NAME, name_col);
        set_cell(t, r, COL_KIND, volume_kind_to_string(v->kind));
        set_cell(t, r, COL_LEVEL, v->level ?: "-");
        if (r)
                size_cell(t, r, v);
        set_cell(t, r, COL_STATE, state_cell(v, mstate));
        set_cell(t, r, COL_MEMBER, mstate ?: "");
        set_cell(t, r, COL_INFO, info);
}

static void add_volume(Table *t, const Inventory *inv, const Volume *v, const Volume *above,
                       const char *prefix, bool last, unsigned depth) {
        char label[512], line_prefix[256], child_prefix[256], name_col[800];
        const char *mstate = member_state_of(above, v->name);
        size_t n_children;

        if (depth == 0) {
                line_prefix[0] = 0;
                child_prefix[0] = 0;
        } else {
                prefix_join(line_prefix, sizeof(line_prefix), prefix, last ? "`-" : "|-");
                prefix_join(child_prefix, sizeof(child_prefix), prefix, last ? "  " : "| ");
        }
        (void) snprintf(name_col, sizeof(name_col), "%s%s", line_prefix,
                        volume_label(v, label, sizeof(label)));
        add_volume_row(t, v, name_col, mstate);

        /* why the array/LV is judged as it is (the JSON's verdict_reason) */
        if (v->verdict != RAID_VERDICT_UNKNOWN && v->verdict_reason && *v->verdict_reason)
                add_text(t, child_prefix, "  %s: %s",
                         raid_verdict_to_string(v->verdict) ?: "verdict", v->verdict_reason);
        if (volume_is_array(v)) {
                add_sync_line(t, child_prefix, v);
                if (v->sync.has_mismatch_count && v->sync.mismatch_count > 0)
                        add_text(t, child_prefix, "  mismatches: %" PRIu64 " sectors",
                                 v->sync.mismatch_count);
                for (size_t i = 0; i < v->n_array_members; i++) {
                        const VolumeMember *m = &v->array_members[i];
                        /* Members the kernel lists but that are not devices of their own. */
                        if (!m->name || !strv_contains(v->members, m->name))
                                add_text(t, child_prefix, "  member %s: %s",
                                         m->name ? m->name : "(missing)",
                                         volume_member_state(m) ?: "?");
                }
        }
        if (depth == 0) {
                const Volume *where = NULL;
                const char *bad = NULL;

                /* Say which layer shows the problem when it is not this volume itself. */
                if (inventory_attribute_problem(inv, v, &where, &bad) > 0 && where != v)
                        add_text(t, "", "  problem below: %s%s%s", where->name,
                                 bad ? ", member " : "", bad ? bad : "");
        }
        if (depth > 12)
                return;
        if (depth == 0 && disk_shows_partitions(inv, v)) {
                n_children = strv_length(v->holders);
                for (size_t i = 0; i < n_children; i++) {
                        const Volume *p = inventory_get(inv, v->holders[i]);

                        (void) snprintf(name_col, sizeof(name_col), "%s%s",
                                        i + 1 == n_children ? "`-" : "|-", p->name);
                        add_volume_row(t, p, name_col, NULL);
                }
                return;
        }
        n_children = strv_length(v->members);
        for (size_t i = 0; i < n_children; i++) {
                const Volume *c = inventory_get(inv, v->members[i]);
                if (c)
                        add_volume(t, inv, c, v, child_prefix, i + 1 == n_children, depth + 1);
                else
                        add_text(t, child_prefix, "%s%s (not present)",
                                 i + 1 == n_children ? "`-" : "|-", v->members[i]);
        }
}

/* Append s padded to width (right-aligned for numbers) to the line; returns the new length. */
static size_t put_cell(char *line, size_t pos, size_t size, const char *s, size_t width,
                       bool right) {
        size_t w = utf8_display_width(s), pad = width - MIN(w, width);
        int k;

        k = snprintf(line + pos, size - pos, "%s%*s%s%*s", pos > 0 ? "  " : "",
                     right ? (int) pad : 0, "", s, right ? 0 : (int) pad, "");
        return k < 0 ? pos : MIN(pos + (size_t) k, size - 1);
}

static void print_line(FILE *f, const Table *t, const size_t width[], char *const cells[]) {
        char line[4096];
        size_t pos = 0;

        (void) t;
        for (Col c = 0; c < _COL_MAX; c++)
                pos = put_cell(line, pos, sizeof(line), cells[c] ?: "", width[c], c == COL_SIZE);
        while (pos > 0 && line[pos - 1] == ' ')
                pos--;
        line[pos] = 0;
        fprintf(f, "%s\n", line);
}

static void table_print(FILE *f, const Table *t) {
        size_t width[_COL_MAX];

        for (Col c = 0; c < _COL_MAX; c++)
                width[c] = strlen(col_header[c]);
        for (size_t i = 0; i < t->n; i++)
                for (Col c = 0; c < _COL_MAX && !t->rows[i].text; c++)
                        width[c] = MAX(width[c], utf8_display_width(t->rows[i].cell[c] ?: ""));
        print_line(f, t, width, (char *const *) col_header);
        for (size_t i = 0; i < t->n; i++) {
                const Row *r = &t->rows[i];

                if (r->text)
                        fprintf(f, "%s\n", r->cell[COL_INFO] ?: "");
                else
                        print_line(f, t, width, r->cell);
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
        printf("Usage: storpulsectl volumes [--json] [--root DIR] [--no-controller-cli]\n\n"
               "Show md arrays, LVM/dm volumes, controller volumes, disks and partitions as a "
               "tree,\n"
               "with health, member states and running resync/recovery/check progress.\n\n"
               "  --json      print a JSON array of volumes instead of the tree\n"
               "  --root DIR  scan DIR (a fixture tree with sys/, proc/, run/udev/, dm/) instead "
               "of /\n"
               "  --no-controller-cli\n"
               "              do not run vendor RAID CLIs (storcli, ssacli, arcconf) found on "
               "$PATH\n"
               "  --daemon    ask the running storpulsed instead: its volumes with their probe\n"
               "              records (takes --json, --socket PATH, --timeout SEC; see\n"
               "              'storpulsectl volumes --daemon --help')\n"
               "  -v --verbose  debug lines on stderr\n"
               "  -h --help   show this help\n\n"
               "Columns: NAME (tree of what sits on what), KIND, LEVEL, SIZE (IEC units; "
               "\"unknown\"\n"
               "when sysfs gives no usable size), STATE (ok, degraded, failed, unknown; \"faulty\" "
               "for\n"
               "a member its array failed), MEMBER (the member's state in the array above it),\n"
               "INFO (model [transport driver], or the dm target).\n"
               "Unbound loop devices (size 0) are not listed.\n\n"
               "Exit status: 0 ok, 1 usage error, 2 the scan root cannot be read, 3 the JSON could "
               "not\n"
               "be built, 5 the output could not be written.\n");
        return 0;
}

static void warn_unknown_sizes(const Inventory *inv) {
        const Volume *v;

        INVENTORY_FOREACH(v, inv)
        if (v->size_unknown && !v->hidden)
                log_warning("%s: the size in sysfs (%s/size) is unreadable or absurd; shown as "
                            "unknown",
                            v->name, v->syspath ?: "?");
}

static int print_tree(const Inventory *inv) {
        _cleanup_(table_done) Table t = {};
        Volume *v;

        INVENTORY_FOREACH(v, inv)
        if (display_top_level(inv, v))
                add_volume(&t, inv, v, NULL, "", true, 0);
        if (t.oom)
                return log_oom();
        table_print(stdout, &t);
        return 0;
}

int ctl_volumes_main(int argc, char **argv) {
        static const struct option options[] = {
                { "json", no_argument, NULL, 'j' },
                { "root", required_argument, NULL, 'r' },
                { "help", no_argument, NULL, 'h' },
                { "no-controller-cli", no_argument, NULL, 'C' },
                { "verbose", no_argument, NULL, 'v' },
                {},
        };
        _cleanup_(inventory_freep) Inventory *inv = NULL;
        const char *root = "/";
        bool json = false, use_cli = true;
        unsigned flags;
        int c, r;

        ctl_setup_log("volumes");
        optind = 0;
        while ((c = getopt_long(argc, argv, "hjr:v", options, NULL)) >= 0)
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
                case 'v':
                        ctl_set_verbose(true);
                        break;
                default:
                        return 1;
                }
        if (optind < argc) {
                log_error("unexpected argument '%s'; see --help", argv[optind]);
                return 1;
        }

        r = inventory_new_for_root(root, &inv);
        if (r < 0) {
                log_error_errno(r, "failed to open the scan root %s: %m", root);
                return 2;
        }
        flags = controller_lookup_flags_from_env(getenv(CONTROLLER_TEST_ENV));
        inventory_set_controller_flags(inv, flags);
        r = inventory_scan(inv);
        if (r < 0) {
                log_error_errno(r, "failed to list the block devices below %s: %m", root);
                return 2;
        }
        if (use_cli)
                query_controller_clis(inv, flags);
        warn_unknown_sizes(inv);

        if (json) {
                json_object *a = NULL;

                r = inventory_to_json(inv, &a);
                if (r < 0) {
                        log_error_errno(r, "failed to build the JSON: %m");
                        return 3;
                }
                r = ctl_json_print(a, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
                                              JSON_C_TO_STRING_NOSLASHESCAPE);
                json_object_put(a);
                return r == -ENOMEM ? 3 : 0; /* a write error: main() says so */
        }
        r = print_tree(inv);
        return r < 0 ? 3 : 0;
}

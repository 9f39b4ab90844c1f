/* SPDX-License-Identifier: MIT */
/* `storpulsed --dump-config`: the effective configuration (defaults, the file, its drop-ins) as a
 * config file. Driven by the key table (config_sections()), so a new key is dumped without a
 * change here: each value parser has one writer below that prints what that parser reads back to
 * the same value (durations in the largest exact unit, sizes in bytes, fractions as percent). */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "http/server.h"
#include "manager/config-internal.h"
#include "manager/config.h"

static void write_usec(FILE *f, usec_t u, bool zero_off) {
        static const struct {
                const char *suffix;
                usec_t unit;
        } units[] = {
                { "d", 24ULL * 3600 * USEC_PER_SEC },
                { "h", 3600ULL * USEC_PER_SEC },
                { "min", 60ULL * USEC_PER_SEC },
                { "s", USEC_PER_SEC },
                { "ms", USEC_PER_MSEC },
        };

        if (u == USEC_INFINITY && zero_off) {
                fputs("infinity", f);
                return;
        }
        if (u == 0) {
                fputs("0", f);
                return;
        }
        for (size_t i = 0; i < ELEMENTSOF(units); i++)
                if (u % units[i].unit == 0) {
                        fprintf(f, "%" PRIu64 "%s", (uint64_t) (u / units[i].unit),
                                units[i].suffix);
                        return;
                }
        fprintf(f, "%" PRIu64 "us", (uint64_t) u);
}

static void write_list(FILE *f, char *const *l) {
        for (size_t i = 0; l && l[i]; i++)
                fprintf(f, "%s%s", i > 0 ? " " : "", l[i]);
}

static void write_kinds(FILE *f, unsigned mask) {
        bool first = true;

        for (VolumeKind k = 0; k < _VOLUME_KIND_MAX; k++)
                if (mask & (1U << k)) {
                        fprintf(f, "%s%s", first ? "" : " ", volume_kind_to_string(k));
                        first = false;
                }
}

static const char *level_name(int level) {
        static const char *const levels[] = { "emerg",   "alert",  "crit", "err",
                                              "warning", "notice", "info", "debug" };

        return level >= 0 && level < (int) ELEMENTSOF(levels) ? levels[level] : "info";
}

/* One "Key=value" line (or a comment for a value that cannot be written). */
static void write_key(FILE *f, const ConfigKey *k, const void *base) {
        const void *v = (const uint8_t *) base + k->offset;
        ConfigParser p = k->parse;

        if (p == config_value_name && !*(const char *) v) {
                fprintf(f, "#%s= (unset)\n", k->key);
                return;
        }
        /* a list appends to what it had (the defaults): an empty value resets it first */
        if ((p == config_value_list || p == config_value_listen) && *(char **const *) v)
                fprintf(f, "%s=\n", k->key);
        fprintf(f, "%s=", k->key);
        if (p == config_value_usec || p == config_value_span)
                write_usec(f, *(const usec_t *) v, p == config_value_usec);
        else if (p == config_value_bytes64)
                fprintf(f, "%" PRIu64, *(const uint64_t *) v);
        else if (p == config_value_bytes32)
                fprintf(f, "%" PRIu32, *(const uint32_t *) v);
        else if (p == config_value_uint)
                fprintf(f, "%u", *(const unsigned *) v);
        else if (p == config_value_percent)
                fprintf(f, "%.10g%%", *(const double *) v * 100);
        else if (p == config_value_factor)
                fprintf(f, "%.10g", *(const double *) v);
        else if (p == config_value_bool)
                fputs(*(const bool *) v ? "yes" : "no", f);
        else if (p == config_value_tristate)
                fputs(*(const int *) v < 0 ? "auto" : *(const int *) v ? "yes" : "no", f);
        else if (p == config_value_log_level)
                fputs(level_name(*(const int *) v), f);
        else if (p == config_value_latency_histogram)
                fputs(metrics_latency_to_string(*(const MetricsLatency *) v), f);
        else if (p == config_value_name)
                fputs((const char *) v, f);
        else if (p == config_value_string || p == config_value_group)
                fputs(*(char *const *) v ?: "", f);
        else if (p == config_value_listen && !*(char **const *) v)
                fprintf(f, "*:%d", HTTP_DEFAULT_PORT); /* http/server.h's default */
        else if (p == config_value_list || p == config_value_listen)
                write_list(f, *(char **const *) v);
        else if (p == config_value_kinds)
                write_kinds(f, *(const unsigned *) v);
        fputc('\n', f);
}

static void write_section(FILE *f, const ConfigSection *s, const char *name, const void *base) {
        fprintf(f, "\n[%s%s%s]\n", s->name, name ? " " : "", name ?: "");
        for (const ConfigKey *k = s->keys; k->key; k++)
                write_key(f, k, base);
}

int config_dump(const Config *c, FILE *f) {
        size_t n;
        const ConfigSection *s = config_sections(&n);

        fprintf(f, "# The effective configuration of storpulsed (storpulsed --dump-config):\n"
                   "# the defaults, the file and its drop-ins, every key with its value.\n");
        for (size_t i = 0; i < n; i++) {
                if (!s[i].profile) {
                        write_section(f, &s[i], NULL, c);
                        continue;
                }
                for (size_t j = 0; j < c->n_profiles; j++)
                        write_section(f, &s[i], c->profiles[j].name, &c->profiles[j]);
        }
        if (fflush(f) != 0 || ferror(f))
                return -EIO;
        return 0;
}

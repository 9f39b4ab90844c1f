/* SPDX-License-Identifier: MIT */
#pragma once

/* The config parser's parts (config.c: the table, the INI handler, loading; config-value.c: the
 * value parsers the table points to). Not for modules outside the manager folder.
 *
 * A value parser parses VALUE into *FIELD within [MIN, MAX] (its unit: microseconds, bytes, a
 * count, ...; 0/0 where no range applies). On error it records "FILE:LINE: message" in the
 * context through config_error() (the first error wins) and returns a negative errno. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "basic/macro.h"
#include "manager/config.h"

typedef struct ParseCtx ParseCtx;
typedef int (*ConfigParser)(ParseCtx *p, const char *value, void *field, uint64_t min,
                            uint64_t max);

typedef struct ConfigKey {
        const char *key;
        ConfigParser parse;
        size_t offset; /* in Config, or in Profile for profile sections */
        uint64_t min, max;
} ConfigKey;

typedef struct ConfigSection {
        const char *name; /* "Daemon"; for a profile "Profile" (followed by " NAME") */
        const ConfigKey *keys;
        bool profile; /* keys are Profile fields */
        bool open;    /* any key accepted (reserved for another module: [HTTP]) */
} ConfigSection;

struct ParseCtx {
        Config *c;
        const char *file;
        unsigned line;
        char *error; /* the first error */
        char seen[64][48];
        size_t n_seen;
        char last_section[48];
        const char *str; /* the rest of the text inih reads through our reader */
};

/* The key table (config.c), in the order of the sample config. */
const ConfigSection *config_sections(size_t *ret_n);

void config_error(ParseCtx *p, const char *format, ...) _printf_(2, 3);
int config_value_usec(ParseCtx *p, const char *value, void *field, uint64_t min, uint64_t max);
int config_value_bytes64(ParseCtx *p, const char *value, void *field, uint64_t min, uint64_t max);
int config_value_bytes32(ParseCtx *p, const char *value, void *field, uint64_t min, uint64_t max);
int config_value_uint(ParseCtx *p, const char *value, void *field, uint64_t min, uint64_t max);
int config_value_span(ParseCtx *p, const char *value, void *field, uint64_t min, uint64_t max);
int config_value_percent(ParseCtx *p, const char *value, void *field, uint64_t min, uint64_t max);
int config_value_factor(ParseCtx *p, const char *value, void *field, uint64_t min, uint64_t max);
int config_value_bool_text(const char *v);
int config_value_bool(ParseCtx *p, const char *value, void *field, uint64_t min, uint64_t max);
int config_value_tristate(ParseCtx *p, const char *value, void *field, uint64_t min, uint64_t max);
int config_value_log_level(ParseCtx *p, const char *value, void *field, uint64_t min, uint64_t max);
int config_value_latency_histogram(ParseCtx *p, const char *value, void *field, uint64_t min,
                                   uint64_t max);
int config_value_name(ParseCtx *p, const char *value, void *field, uint64_t min, uint64_t max);
int config_value_string(ParseCtx *p, const char *value, void *field, uint64_t min, uint64_t max);
void config_strv_free(char **l);
int config_value_list(ParseCtx *p, const char *value, void *field, uint64_t min, uint64_t max);
int config_value_group(ParseCtx *p, const char *value, void *field, uint64_t min, uint64_t max);
int config_value_listen(ParseCtx *p, const char *value, void *field, uint64_t min, uint64_t max);
int config_value_kinds(ParseCtx *p, const char *value, void *field, uint64_t min, uint64_t max);

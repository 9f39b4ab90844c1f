/* SPDX-License-Identifier: MIT */
/* The config's value parsers: one per value type of the key table in config.c (durations, sizes,
 * counts, percentages, factors, booleans, names, lists, volume kinds). Each one checks the range
 * the table gives and says what is wrong in the words an admin reads next to FILE:LINE. */

#include <errno.h>
#include <grp.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>

#include "basic/parse-util.h"
#include "http/request.h"
#include "manager/config-internal.h"
#include "manager/config.h"

void config_error(ParseCtx *p, const char *format, ...) {
        char msg[256];
        va_list ap;

        if (p->error)
                return;
        va_start(ap, format);
        (void) vsnprintf(msg, sizeof(msg), format, ap);
        va_end(ap);
        if (asprintf(&p->error, "%s:%u: %s", p->file, p->line, msg) < 0)
                p->error = NULL;
}

/* ---- value parsers ------------------------------------------------------------------------ */

int config_value_usec(ParseCtx *p, const char *value, void *field, uint64_t min, uint64_t max) {
        uint64_t u;

        if (strcasecmp(value, "infinity") == 0 || strcmp(value, "0") == 0)
                u = strcmp(value, "0") == 0 ? 0 : USEC_INFINITY;
        else if (parse_sec(value, &u) < 0) {
                config_error(p, "invalid time span '%s' (use e.g. 30s, 500ms, 5min)", value);
                return -EINVAL;
        }
        if (u != 0 && u != USEC_INFINITY && (u < min || u > max)) { /* 0: off */
                config_error(p, "time span '%s' out of range (%.3gs..%.3gs)", value,
                             (double) min / USEC_PER_SEC, (double) max / USEC_PER_SEC);
                return -ERANGE;
        }
        *(usec_t *) field = u;
        return 0;
}

int config_value_bytes64(ParseCtx *p, const char *value, void *field, uint64_t min, uint64_t max) {
        uint64_t u;

        if (parse_size(value, &u) < 0) {
                config_error(p, "invalid size '%s' (use e.g. 4096, 64K, 64M, 1G)", value);
                return -EINVAL;
        }
        if (u < min || u > max) {
                config_error(p, "size '%s' out of range (%llu..%llu bytes)", value,
                             (unsigned long long) min, (unsigned long long) max);
                return -ERANGE;
        }
        *(uint64_t *) field = u;
        return 0;
}

int config_value_bytes32(ParseCtx *p, const char *value, void *field, uint64_t min, uint64_t max) {
        uint64_t u;
        int r = config_value_bytes64(p, value, &u, min, max);

        if (r < 0)
                return r;
        *(uint32_t *) field = (uint32_t) u;
        return 0;
}

int config_value_uint(ParseCtx *p, const char *value, void *field, uint64_t min, uint64_t max) {
        uint64_t u;

        if (safe_atou64(value, &u) < 0) {
                config_error(p, "invalid number '%s'", value);
                return -EINVAL;
        }
        if (u < min || u > max) {
                config_error(p, "number %s out of range (%llu..%llu)", value,
                             (unsigned long long) min, (unsigned long long) max);
                return -ERANGE;
        }
        *(unsigned *) field = (unsigned) u;
        return 0;
}

/* A time span checked against [min, max] as it is: 0 is a value here, not "off", and infinity is
 * refused (a floor or a sustain time). */
int config_value_span(ParseCtx *p, const char *value, void *field, uint64_t min, uint64_t max) {
        uint64_t u;

        if (parse_sec(value, &u) < 0) {
                config_error(p, "invalid time span '%s' (use e.g. 30s, 500ms, 5min)", value);
                return -EINVAL;
        }
        if (u < min || u > max) {
                config_error(p, "time span '%s' out of range (%.3gs..%.3gs)", value,
                             (double) min / USEC_PER_SEC, (double) max / USEC_PER_SEC);
                return -ERANGE;
        }
        *(usec_t *) field = u;
        return 0;
}

/* "50%" (or "50": percent either way) into a fraction 0.5; min/max in percent. */
int config_value_percent(ParseCtx *p, const char *value, void *field, uint64_t min, uint64_t max) {
        char buf[64];
        size_t n = strlen(value);
        double d;

        if (n > 0 && value[n - 1] == '%')
                n--;
        if (n == 0 || n >= sizeof(buf)) {
                config_error(p, "invalid percentage '%s' (use e.g. 50%%)", value);
                return -EINVAL;
        }
        memcpy(buf, value, n);
        buf[n] = 0;
        if (safe_atod(buf, &d) < 0) {
                config_error(p, "invalid percentage '%s' (use e.g. 50%%)", value);
                return -EINVAL;
        }
        if (!(d >= (double) min && d <= (double) max)) {
                config_error(p, "percentage '%s' out of range (%llu%%..%llu%%)", value,
                             (unsigned long long) min, (unsigned long long) max);
                return -ERANGE;
        }
        *(double *) field = d / 100;
        return 0;
}

/* A factor such as "3" or "2.5"; min/max in hundredths. */
int config_value_factor(ParseCtx *p, const char *value, void *field, uint64_t min, uint64_t max) {
        double d;

        if (safe_atod(value, &d) < 0) {
                config_error(p, "invalid factor '%s' (use e.g. 3 or 2.5)", value);
                return -EINVAL;
        }
        if (!(d * 100 >= (double) min && d * 100 <= (double) max)) {
                config_error(p, "factor %s out of range (%.2f..%.2f)", value, (double) min / 100,
                             (double) max / 100);
                return -ERANGE;
        }
        *(double *) field = d;
        return 0;
}

int config_value_bool_text(const char *v) {
        static const char *const yes[] = { "1", "yes", "true", "on" };
        static const char *const no[] = { "0", "no", "false", "off" };

        for (size_t i = 0; i < ELEMENTSOF(yes); i++)
                if (strcasecmp(v, yes[i]) == 0)
                        return 1;
        for (size_t i = 0; i < ELEMENTSOF(no); i++)
                if (strcasecmp(v, no[i]) == 0)
                        return 0;
        return -EINVAL;
}

int config_value_bool(ParseCtx *p, const char *value, void *field, uint64_t min, uint64_t max) {
        int b = config_value_bool_text(value);

        if (b < 0) {
                config_error(p, "invalid boolean '%s' (yes/no)", value);
                return -EINVAL;
        }
        *(bool *) field = b;
        return 0;
}

int config_value_tristate(ParseCtx *p, const char *value, void *field, uint64_t min, uint64_t max) {
        int b = strcasecmp(value, "auto") == 0 ? -1 : config_value_bool_text(value);

        if (b == -EINVAL) {
                config_error(p, "invalid value '%s' (yes/no/auto)", value);
                return -EINVAL;
        }
        *(int *) field = b;
        return 0;
}

int config_value_log_level(ParseCtx *p, const char *value, void *field, uint64_t min,
                           uint64_t max) {
        static const char *const levels[] = { "emerg",   "alert",  "crit", "err",
                                              "warning", "notice", "info", "debug" };

        for (size_t i = 0; i < ELEMENTSOF(levels); i++)
                if (strcasecmp(value, levels[i]) == 0) {
                        *(int *) field = (int) i;
                        return 0;
                }
        config_error(p, "invalid log level '%s' (err, warning, notice, info, debug)", value);
        return -EINVAL;
}

int config_value_latency_histogram(ParseCtx *p, const char *value, void *field, uint64_t min,
                                   uint64_t max) {
        MetricsLatency h = metrics_latency_from_string(value);

        if (h < 0) {
                config_error(p, "invalid latency histogram '%s' (coarse, full, off)", value);
                return -EINVAL;
        }
        *(MetricsLatency *) field = h;
        return 0;
}

int config_value_name(ParseCtx *p, const char *value, void *field, uint64_t min, uint64_t max) {
        size_t n = strlen(value);

        if (n == 0 || n >= CONFIG_PROFILE_NAME_MAX ||
            strspn(value, "abcdefghijklmnopqrstuvwxyz"
                          "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                          "0123456789-_.") != n) {
                config_error(p, "invalid name '%s' (letters, digits, -_. up to %d)", value,
                             CONFIG_PROFILE_NAME_MAX - 1);
                return -EINVAL;
        }
        memcpy(field, value, n + 1);
        return 0;
}

int config_value_string(ParseCtx *p, const char *value, void *field, uint64_t min, uint64_t max) {
        char **s = field, *d = NULL;

        if (*value) {
                d = strdup(value);
                if (!d)
                        return -ENOMEM;
        }
        free(*s);
        *s = d;
        return 0;
}

void config_strv_free(char **l) {
        for (size_t i = 0; l && l[i]; i++)
                free(l[i]);
        free(l);
}

/* Whitespace-separated list; an empty value resets the list (systemd's convention), otherwise the
 * words are appended. */
int config_value_list(ParseCtx *p, const char *value, void *field, uint64_t min, uint64_t max) {
        char ***l = field;
        size_t n = 0;

        if (!*value) {
                config_strv_free(*l);
                *l = NULL;
                return 0;
        }
        while (*l && (*l)[n])
                n++;
        for (const char *s = value; *s;) {
                size_t k;
                char **a;

                s += strspn(s, " \t");
                k = strcspn(s, " \t");
                if (k == 0)
                        break;
                if (n >= 256) {
                        config_error(p, "too many entries (at most 256)");
                        return -E2BIG;
                }
                a = realloc(*l, (n + 2) * sizeof(char *));
                if (!a)
                        return -ENOMEM;
                *l = a;
                a[n] = strndup(s, k);
                if (!a[n])
                        return -ENOMEM;
                a[++n] = NULL;
                s += k;
        }
        return 0;
}

/* A group name or number, resolved here once (NSS may be slow or remote: never per connection
 * on the event loop) into Config.control_gid or .admin_gid (by the field: ControlGroup= or
 * AdminGroup=); a name that does not resolve is an error, so --check-config shows it. The field
 * is the name; the gid sits beside it. */
int config_value_group(ParseCtx *p, const char *value, void *field, uint64_t min, uint64_t max) {
        gid_t gid = CONFIG_GID_INVALID;
        unsigned u;
        int r;

        if (*value && safe_atou(value, &u) >= 0 && (gid_t) u != CONFIG_GID_INVALID)
                gid = (gid_t) u;
        else if (*value) {
                struct group *gr = getgrnam(value);

                if (!gr) {
                        config_error(p, "unknown group '%s'", value);
                        return -ENOENT;
                }
                gid = gr->gr_gid;
        }
        r = config_value_string(p, value, field, min, max);
        if (r < 0)
                return r;
        if (field == &p->c->admin_group)
                p->c->admin_gid = gid;
        else
                p->c->control_gid = gid;
        return 0;
}

/* Listen=: each word as the HTTP server will read it (ADDR:PORT, [ADDR6]:PORT, *:PORT or PORT). */
int config_value_listen(ParseCtx *p, const char *value, void *field, uint64_t min, uint64_t max) {
        char **old = *(char ***) field;
        size_t n = 0;
        int r;

        while (old && old[n])
                n++;
        r = config_value_list(p, value, field, min, max);
        if (r < 0)
                return r;
        for (char **l = *(char ***) field; l && l[n]; n++) {
                struct sockaddr_storage ss;
                socklen_t len;

                if (http_listen_parse(l[n], &ss, &len) < 0) {
                        config_error(p,
                                     "invalid listen address '%s' (use ADDR:PORT, [ADDR6]:PORT, "
                                     "*:PORT or PORT; numeric, port 0-65535)",
                                     l[n]);
                        return -EINVAL;
                }
        }
        return 0;
}

int config_value_kinds(ParseCtx *p, const char *value, void *field, uint64_t min, uint64_t max) {
        unsigned mask = 0;

        for (const char *s = value; *s;) {
                char word[32];
                size_t k;
                VolumeKind kind;

                s += strspn(s, " \t");
                k = strcspn(s, " \t");
                if (k == 0)
                        break;
                (void) snprintf(word, sizeof(word), "%.*s", (int) MIN(k, sizeof(word) - 1), s);
                kind = volume_kind_from_string(word);
                if (kind < 0 || k >= sizeof(word)) {
                        config_error(p,
                                     "unknown volume kind '%s' (md, lvm, dm, controller, disk, "
                                     "partition)",
                                     word);
                        return -EINVAL;
                }
                mask |= 1U << kind;
                s += k;
        }
        *(unsigned *) field = mask;
        return 0;
}

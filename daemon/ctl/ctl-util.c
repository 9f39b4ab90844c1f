/* SPDX-License-Identifier: MIT */
/* Shared by the storpulsectl verbs: output that cannot fail silently, JSON that is always valid,
 * one style of diagnostics (see ctl-util.h). */

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "basic/log.h"
#include "basic/macro.h"
#include "basic/utf8.h"
#include "basic/json-util.h"
#include "ctl/ctl-util.h"

static int stdout_error;
static char log_prefix[64];
static bool verbose;

void ctl_setup_log(const char *verb) {
        (void) snprintf(log_prefix, sizeof(log_prefix), "storpulsectl%s%s", verb ? " " : "",
                        verb ?: "");
        log_set_prefix(log_prefix);
        log_set_max_level(verbose ? LOG_DEBUG : LOG_NOTICE);
}

void ctl_set_verbose(bool v) {
        verbose = verbose || v; /* "storpulsectl --verbose VERB" and "VERB --verbose" alike */
        log_set_max_level(verbose ? LOG_DEBUG : LOG_NOTICE);
}

int ctl_flush_stdout(void) {
        if (fflush(stdout) != 0 && stdout_error == 0)
                stdout_error = errno > 0 ? -errno : -EIO;
        if (ferror(stdout) && stdout_error == 0)
                stdout_error = -EIO;
        return stdout_error;
}

int ctl_stdout_error(void) {
        return ctl_flush_stdout();
}

int ctl_finish_stdout(const char *verb, int code) {
        int r = ctl_flush_stdout();

        /* close() is where some file systems (NFS) report a failed write. */
        if (fclose(stdout) != 0 && r == 0)
                r = errno > 0 ? -errno : -EIO;
        if (r == 0)
                return code;
        fprintf(stderr, "storpulsectl%s%s: failed to write to standard output: %s\n",
                verb ? " " : "", verb ?: "", strerror(-r));
        return CTL_EXIT_OUTPUT;
}

static int hex_of(const char *s, json_object **ret) {
        size_t n = strlen(s);
        _cleanup_free_ char *h = malloc(n * 2 + 1);

        if (!h)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                (void) snprintf(h + 2 * i, 3, "%02x", (unsigned char) s[i]);
        h[n * 2] = 0;
        *ret = json_object_new_string(h);
        return *ret ? 0 : -ENOMEM;
}

/* A replacement for a leaf that needs one, or NULL when it is fine as it is. *ret_hex gets the
 * raw bytes of a repaired string. */
static int sanitize_leaf(json_object *v, json_object **ret, json_object **ret_hex) {
        *ret = *ret_hex = NULL;
        if (json_object_is_type(v, json_type_double)) {
                double d = json_object_get_double(v);

                if (!isfinite(d))
                        return 1; /* null */
                *ret = json_number_new(d);
                return *ret ? 1 : -ENOMEM;
        }
        if (json_object_is_type(v, json_type_string)) {
                const char *s = json_object_get_string(v);
                _cleanup_free_ char *fixed = NULL;
                int r;

                if (utf8_is_valid(s))
                        return 0;
                fixed = utf8_replace_invalid(s);
                if (!fixed)
                        return -ENOMEM;
                r = hex_of(s, ret_hex);
                if (r < 0)
                        return r;
                *ret = json_object_new_string(fixed);
                return *ret ? 1 : -ENOMEM;
        }
        return 0;
}

int ctl_json_sanitize(json_object *o) {
        int r;

        if (json_object_is_type(o, json_type_array)) {
                size_t n = json_object_array_length(o);

                for (size_t i = 0; i < n; i++) {
                        json_object *v = json_object_array_get_idx(o, i), *nv, *hex;

                        r = ctl_json_sanitize(v);
                        if (r < 0)
                                return r;
                        r = sanitize_leaf(v, &nv, &hex);
                        if (r < 0)
                                return r;
                        json_object_put(hex); /* no key to hang it on in an array */
                        if (r > 0 && json_object_array_put_idx(o, i, nv) < 0)
                                return -ENOMEM;
                }
                return 0;
        }
        if (json_object_is_type(o, json_type_object)) {
                /* Replacing a member's value while iterating is safe in json-c; adding new members
                 * is not, so the "_hex" siblings are collected and added afterwards. */
                json_object *hexes = json_object_new_object();

                if (!hexes)
                        return -ENOMEM;
                json_object_object_foreach(o, key, v) {
                        json_object *nv, *hex;
                        char hkey[256];

                        r = ctl_json_sanitize(v);
                        if (r >= 0)
                                r = sanitize_leaf(v, &nv, &hex);
                        if (r < 0) {
                                json_object_put(hexes);
                                return r;
                        }
                        if (r == 0)
                                continue;
                        if (json_object_object_add(o, key, nv) < 0) {
                                json_object_put(hex);
                                json_object_put(hexes);
                                return -ENOMEM;
                        }
                        (void) snprintf(hkey, sizeof(hkey), "%s_hex", key);
                        if (hex && json_object_object_add(hexes, hkey, hex) < 0) {
                                json_object_put(hexes);
                                return -ENOMEM;
                        }
                }
                json_object_object_foreach(hexes, hkey, hv) {
                        if (json_object_object_add(o, hkey, json_object_get(hv)) < 0) {
                                json_object_put(hexes);
                                return -ENOMEM;
                        }
                }
                json_object_put(hexes);
        }
        return 0;
}

int ctl_json_print(json_object *o, int flags) {
        int r = ctl_json_sanitize(o);

        if (r < 0)
                return r;
        if (puts(json_object_to_json_string_ext(o, flags)) < 0)
                (void) ctl_flush_stdout(); /* remembers the error */
        return ctl_flush_stdout();
}

void ctl_options_help(FILE *f, const CtlOption *opts, size_t n) {
        fprintf(f, "Options:\n");
        for (size_t i = 0; i < n; i++) {
                char left[64];

                (void) snprintf(left, sizeof(left), "--%s%s%s", opts[i].name,
                                opts[i].arg ? " " : "", opts[i].arg ?: "");
                fprintf(f, "  %-22s ", left);
                /* a help text of several lines: each further line under the first */
                for (const char *h = opts[i].help; *h; h++)
                        if (*h == '\n')
                                fprintf(f, "\n%25s", "");
                        else
                                fputc(*h, f);
                fputc('\n', f);
        }
        fprintf(f, "  %-22s %s\n", "-v --verbose", "debug lines on stderr");
        fprintf(f, "  %-22s %s\n", "-h --help", "show this help");
}

int ctl_getopt(int argc, char **argv, const CtlOption *opts, size_t n, const char *usage_head,
               const char *usage_tail) {
        static struct option longopts[34];
        static const CtlOption *current;
        int c;

        if (current != opts) {
                size_t k = 0;

                for (size_t i = 0; i < n && k < ELEMENTSOF(longopts) - 3; i++)
                        longopts[k++] =
                                (struct option){ opts[i].name,
                                                 opts[i].arg ? required_argument : no_argument,
                                                 NULL, opts[i].id };
                longopts[k++] = (struct option){ "help", no_argument, NULL, 'h' };
                longopts[k++] = (struct option){ "verbose", no_argument, NULL, 'v' };
                longopts[k] = (struct option){};
                current = opts;
                optind = 0;
        }
        for (;;) {
                c = getopt_long(argc, argv, "hv", longopts, NULL);
                if (c == 'v') {
                        ctl_set_verbose(true);
                        continue;
                }
                break;
        }
        if (c == 'h') {
                if (usage_head)
                        printf("%s\n", usage_head);
                ctl_options_help(stdout, opts, n);
                if (usage_tail)
                        printf("\n%s", usage_tail);
        }
        if (c < 0 || c == 'h' || c == '?')
                current = NULL; /* the parse ends: the next one starts afresh */
        return c;
}

char *ctl_format_latency(char *buf, size_t size, double seconds) {
        if (!(seconds >= 0))
                (void) snprintf(buf, size, "-");
        else if (seconds < 1e-4)
                (void) snprintf(buf, size, "%.1fus", seconds * 1e6);
        else if (seconds < 1e-3)
                (void) snprintf(buf, size, "%.0fus", seconds * 1e6);
        else if (seconds < 1)
                (void) snprintf(buf, size, "%.2fms", seconds * 1e3);
        else
                (void) snprintf(buf, size, "%.2fs", seconds);
        return buf;
}

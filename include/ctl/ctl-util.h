/* SPDX-License-Identifier: MIT */
#pragma once

/* What every storpulsectl verb shares, so that none of them can lie by accident:
 *  - stdout write errors (a full disk, a closed pipe with SIGPIPE ignored) are remembered and
 *    turn into exit status CTL_EXIT_OUTPUT with a message, for every verb and --help alike;
 *  - --json output is valid JSON: strings that are not UTF-8 are repaired (see
 *    ctl_json_sanitize()), floats carry no 17-digit noise, NaN/inf become null;
 *  - one error prefix ("storpulsectl VERB: ..."), debug lines only with --verbose. */

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>

/* Exit status of every verb when its output could not be written. The verbs' own codes are
 * 0..4 (see each --help). */
#define CTL_EXIT_OUTPUT 5

/* Diagnostics: "storpulsectl VERB: " before every log line; the log level is notice, or debug
 * once ctl_set_verbose(true) was called (--verbose before or after the verb). Called by each
 * verb's main before it parses its options. */
void ctl_setup_log(const char *verb);
void ctl_set_verbose(bool verbose);

/* fflush(stdout), remembering the first error. 0 or -errno. */
int ctl_flush_stdout(void);

/* The first write error on stdout so far (after flushing it), or 0. */
int ctl_stdout_error(void);

/* For main(): flush and close stdout; on a write error print "storpulsectl VERB: failed to write
 * to standard output: ERROR" and return CTL_EXIT_OUTPUT, else return code. */
int ctl_finish_stdout(const char *verb, int code);

/* Make o printable as strict JSON, recursively: a string value that is not well-formed UTF-8
 * has every bad byte replaced by U+FFFD and, in an object, its exact bytes in a sibling member
 * "KEY_hex" (lower-case hex of the raw bytes); a double is reprinted with 10 significant digits
 * ("%.10g"), and a NaN or infinity becomes null. Returns 0 or -ENOMEM. */
int ctl_json_sanitize(json_object *o);

/* ctl_json_sanitize(), then print o with json-c `flags` and a newline, and flush. 0 or -errno. */
int ctl_json_print(json_object *o, int flags);

/* One long option of a verb: one table drives both getopt and the verb's --help, so the help
 * cannot miss an option the verb accepts. */
typedef struct CtlOption {
        const char *name; /* "socket" for --socket */
        const char *arg;  /* the argument's name ("PATH"), NULL for a flag */
        int id;           /* what ctl_getopt() returns for it (>= 0x100) */
        const char *help; /* one line */
} CtlOption;

/* getopt_long() over `opts` (n entries) plus -h/--help and -v/--verbose (both handled here).
 * Returns the next option's id; 'h' after printing usage_head, the options and usage_tail
 * (either may be NULL) to stdout; -1 at the end; '?' for a usage error (getopt printed it).
 * Starts a new parse when called with a different table or after -1. */
int ctl_getopt(int argc, char **argv, const CtlOption *opts, size_t n, const char *usage_head,
               const char *usage_tail);

/* The "Options:" block of --help for `opts` (n entries) and -v/-h, to f. */
void ctl_options_help(FILE *f, const CtlOption *opts, size_t n);

/* A latency or short duration in seconds with a unit that shows it: "3.7us", "850us", "1.25ms",
 * "2.10s"; "-" for NaN or a negative value. Returns buf. */
char *ctl_format_latency(char *buf, size_t size, double seconds);

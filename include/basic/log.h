/* SPDX-License-Identifier: MIT */
#pragma once

/* Diagnostics for the edges (main, manager, CLI). Modules below never log; they return -errno.
 * log_*_errno() return the (negative) error so the edge can `return log_error_errno(r, ...)`.
 * "%m" in a format prints strerror(-r). Output goes to stderr with a syslog priority prefix
 * ("<3>") when stderr is the journal ($JOURNAL_STREAM), plain text otherwise. */

#include <stdarg.h>
#include <syslog.h>

#include "basic/macro.h"

void log_set_max_level(int level);
/* Every line is then "PREFIX: message" (the CLI: "storpulsectl VERB"); NULL for none. The string
 * must outlive the logging. */
void log_set_prefix(const char *prefix);
int log_get_max_level(void);

/* Log at `level`; if error != 0 its strerror replaces %m. Returns -abs(error). */
int log_internal(int level, int error, const char *format, ...) _printf_(3, 4);

#define log_debug(...)   log_internal(LOG_DEBUG, 0, __VA_ARGS__)
#define log_info(...)    log_internal(LOG_INFO, 0, __VA_ARGS__)
#define log_notice(...)  log_internal(LOG_NOTICE, 0, __VA_ARGS__)
#define log_warning(...) log_internal(LOG_WARNING, 0, __VA_ARGS__)
#define log_error(...)   log_internal(LOG_ERR, 0, __VA_ARGS__)

#define log_debug_errno(e, ...)   log_internal(LOG_DEBUG, e, __VA_ARGS__)
#define log_info_errno(e, ...)    log_internal(LOG_INFO, e, __VA_ARGS__)
#define log_notice_errno(e, ...)  log_internal(LOG_NOTICE, e, __VA_ARGS__)
#define log_warning_errno(e, ...) log_internal(LOG_WARNING, e, __VA_ARGS__)
#define log_error_errno(e, ...)   log_internal(LOG_ERR, e, __VA_ARGS__)

#define log_oom() log_internal(LOG_ERR, ENOMEM, "Out of memory.")

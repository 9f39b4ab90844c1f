/* SPDX-License-Identifier: MIT */
#pragma once

/* The probe helper's sandbox: what the storpulse-probe helper gives up once its target is open
 * and before it reads a block (daemon/probe/probe-sandbox.c says why each step). */

#include <stdbool.h>

/* Drops every capability (ambient, bounding where CAP_SETPCAP allows, then effective, permitted
 * and inheritable), sets no_new_privs and installs a seccomp allow-list of the syscalls a
 * running probe makes (libaio, reads and writes on fds already open, memory, clocks, exit); any
 * other syscall, or a syscall of another ABI, kills the process (SIGSYS). Irreversible: call it
 * only in the helper, after every open(). Returns 0, or -errno of the step that failed (the
 * process may then be half-dropped and must not go on). On a build architecture other than
 * x86_64 and aarch64 the seccomp step is skipped and *ret_filtered is false. */
int probe_sandbox_enter(bool *ret_filtered);

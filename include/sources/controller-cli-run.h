/* SPDX-License-Identifier: MIT */
#pragma once

/* Runs the hardware-RAID vendor CLIs (storcli, ssacli, arcconf) as child processes and hands
 * their output to the pure parsers of model/controller-cli.h. Everything here spawns and waits
 * with a deadline: worker context only, never the main loop. A CLI that has to be killed is
 * handed to the caller's ProcessReaper (basic/process.h, thread safe), which collects it when it
 * dies. */

#include "basic/process.h"
#include "basic/time-util.h"
#include "model/controller-cli.h"

/* Run `path` with `argv` (argv[0] included, NULL-terminated), environment {LC_ALL=C,
 * PATH=path_env}, stdin and stderr on /dev/null, no other fd, in its own process group. Captures
 * stdout up to `max_output` bytes. Returns 0 with the output (NUL-terminated) in *ret, -ETIME if
 * it did not finish within `timeout_usec`, -EFBIG if it printed more than max_output (both: the
 * group is SIGKILLed and the leader handed to `reaper`), -EPROTO if it exited non-zero or died
 * of a signal, or -errno from pipe/spawn (-ENOENT, -EACCES, -ENOEXEC: the exec failed). Blocks
 * the caller for at most about timeout_usec, never longer. */
/* Where the daemon and the helper look for the CLIs. */
#define CONTROLLER_CLI_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

#define CONTROLLER_CLI_MAX_OUTPUT (16U * 1024U * 1024U) /* bytes of stdout per command */

/* Reads fd until EOF into a growing buffer (NUL-terminated), waiting in poll() until
 * deadline_usec (CLOCK_MONOTONIC). Returns 0 with the bytes in *ret and their count in
 * *ret_size, -ETIME, -EFBIG (more than max_output bytes), -ENOMEM or -errno. */
int controller_cli_read_output(int fd, usec_t deadline_usec, size_t max_output, char **ret,
                               size_t *ret_size);

int controller_cli_run(ProcessReaper *reaper, const char *path, char *const argv[],
                       const char *path_env, usec_t timeout_usec, size_t max_output, char **ret,
                       size_t *ret_size);

/* Find the first executable binary of `cli` (storcli64, storcli, perccli64, perccli; ssacli,
 * hpssacli, hpacucli; arcconf) in the colon-separated `path_env`. Returns 0 and a malloc'd path,
 * -ENOENT if none is installed, -EOPNOTSUPP for a CLI we cannot read. */
int controller_cli_find(ControllerCli cli, const char *path_env, char **ret_path);

/* Query every logical drive the CLI `cli` can see: find it on `path_env`, run it (each command
 * limited to `timeout_usec`, a hung one handed to `reaper`), parse. Returns 0 with *ret filled,
 * -ENOENT ("no cli": the volume is still monitored by probes), -EOPNOTSUPP for a CLI without a
 * parser, or the runner's/parser's error. Blocking: worker context only. arcconf is asked about
 * controller 1 only. */
int controller_cli_query(ProcessReaper *reaper, ControllerCli cli, const char *path_env,
                         usec_t timeout_usec, ControllerVolumeList *ret);

/* The same queries, each command run by the vendor CLI helper behind `socket_path`
 * (storpulse-controller-cli, sources/controller-cli-remote.h) instead of a child of ours: the
 * helper finds the CLI on its own PATH. Returns as controller_cli_query() (-ENOENT: the helper
 * found no CLI), plus -ECONNREFUSED when the helper cannot be reached. Blocking: worker context
 * only. */
int controller_cli_query_remote(const char *socket_path, ControllerCli cli, usec_t timeout_usec,
                                ControllerVolumeList *ret);

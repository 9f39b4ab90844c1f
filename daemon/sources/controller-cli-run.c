/* SPDX-License-Identifier: MIT */
/* Running a vendor RAID CLI without trusting it to finish.
 *
 * Controller firmware that is busy, wedged or mid-reset can make storcli/ssacli/arcconf hang for
 * minutes, and some CLIs fork helpers. So the runner execs the CLI directly (argv, no shell)
 * through basic/process (nothing inherited: stdin and stderr on /dev/null, no other fd, signals
 * reset) with a fixed minimal environment (LC_ALL=C for stable output, PATH as given), in a
 * process group of its own, reads its stdout through a pipe with poll() against a monotonic
 * deadline and caps the output size. On timeout or overflow the CLI goes to the caller's
 * ProcessReaper, which SIGKILLs the whole group and collects the leader whenever it dies (a CLI
 * stuck in the kernel on a wedged controller may not die at once); after a normal exit the
 * group is SIGKILLed too, before the leader is reaped, so no stray helper of the CLI survives it
 * (the unreaped leader keeps the group id reserved, so the kill can never hit a recycled group).
 * This file is the only I/O of the controller-cli module; it blocks its caller for at most the
 * timeout and belongs in a worker. The parsers it feeds are in controller-cli.c. */

#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sources/controller-cli-run.h"
#include "sources/controller-cli-remote.h"
#include "basic/macro.h"

int controller_cli_read_output(int fd, usec_t deadline_usec, size_t max_output, char **ret,
                               size_t *ret_size) {
        _cleanup_free_ char *buf = NULL;
        size_t n = 0, cap = 0;

        for (;;) {
                struct pollfd pfd = { .fd = fd, .events = POLLIN };
                usec_t t = now(CLOCK_MONOTONIC);
                ssize_t k;
                int p;

                if (t >= deadline_usec)
                        return -ETIME;
                p = poll(
                        &pfd, 1,
                        deadline_usec == USEC_INFINITY
                                ? -1
                                : (int) MIN((deadline_usec - t + USEC_PER_MSEC - 1) / USEC_PER_MSEC,
                                            (usec_t) INT32_MAX));
                if (p < 0 && errno != EINTR)
                        return -errno;
                if (p <= 0)
                        continue; /* deadline check at the top */

                if (cap - n < 4096) {
                        size_t ncap = MIN(MAX(cap * 2, (size_t) 65536), max_output + 1 + 4096);
                        char *nb = realloc(buf, ncap + 1);

                        if (!nb)
                                return -ENOMEM;
                        buf = nb;
                        cap = ncap;
                }
                k = read(fd, buf + n, cap - n);
                if (k < 0) {
                        if (errno == EINTR || errno == EAGAIN)
                                continue;
                        return -errno;
                }
                if (k == 0)
                        break;
                n += (size_t) k;
                if (n > max_output)
                        return -EFBIG;
        }
        if (!buf) {
                buf = malloc(1);
                if (!buf)
                        return -ENOMEM;
        }
        buf[n] = 0;
        *ret = TAKE_PTR(buf);
        *ret_size = n;
        return 0;
}

int controller_cli_run(ProcessReaper *reaper, const char *path, char *const argv[],
                       const char *path_env, usec_t timeout_usec, size_t max_output, char **ret,
                       size_t *ret_size) {
        _cleanup_free_ char *env_path = NULL, *buf = NULL;
        _cleanup_(process_freep) Process *p = NULL;
        _cleanup_close_ int rfd = -EBADF;
        ProcessExit e;
        usec_t deadline;
        int pipefd[2], r;
        size_t n = 0;

        if (!reaper || !path || !argv || !argv[0] || !ret)
                return -EINVAL;
        if (asprintf(&env_path, "PATH=%s", path_env ?: "/usr/sbin:/usr/bin:/sbin:/bin") < 0)
                return -ENOMEM;

        if (pipe2(pipefd, O_CLOEXEC) < 0)
                return -errno;
        rfd = pipefd[0];
        r = process_spawn(path, argv, (char *const[]){ (char *) "LC_ALL=C", env_path, NULL },
                          (const int[]){ -EBADF, pipefd[1] }, 2, PROCESS_NEW_PGROUP, &p);
        (void) safe_close(pipefd[1]);
        if (r < 0)
                return r;

        deadline = now(CLOCK_MONOTONIC);
        deadline =
                timeout_usec > USEC_INFINITY - deadline ? USEC_INFINITY : deadline + timeout_usec;
        r = controller_cli_read_output(rfd, deadline, max_output, &buf, &n);
        /* stdout closed: wait for the exit, still bounded by the deadline. */
        if (r >= 0) {
                r = process_wait(p, deadline, &e);
                if (r == 0)
                        r = -ETIME;
        }
        if (r < 0) {
                (void) process_reaper_adopt(reaper, TAKE_PTR(p), 0);
                return r;
        }
        if (!process_exit_ok(&e))
                return -EPROTO;

        *ret = TAKE_PTR(buf);
        if (ret_size)
                *ret_size = n;
        return 0;
}

typedef struct CliQuery CliQuery;
static int query_storcli(const CliQuery *q, ControllerVolumeList *l);
static int query_ssacli(const CliQuery *q, ControllerVolumeList *l);
static int query_arcconf(const CliQuery *q, ControllerVolumeList *l);

/* The CLIs we can read: their binary names (first found on $PATH wins) and how to ask them.
 * Every other ControllerCli (storcli2, tw_cli, ...) is known but not read: -EOPNOTSUPP. */
static const struct {
        const char *const *names;
        int (*query)(const CliQuery *q, ControllerVolumeList *l);
} cli_readers[_CONTROLLER_CLI_MAX] = {
        [CONTROLLER_CLI_STORCLI] = { (const char *const[]){ "storcli64", "storcli", "perccli64",
                                                            "perccli", NULL },
                                     query_storcli },
        [CONTROLLER_CLI_SSACLI] = { (const char *const[]){ "ssacli", "hpssacli", "hpacucli", NULL },
                                    query_ssacli },
        [CONTROLLER_CLI_ARCCONF] = { (const char *const[]){ "arcconf", NULL }, query_arcconf },
};

int controller_cli_find(ControllerCli cli, const char *path_env, char **ret_path) {
        const char *const *names;

        if (!ret_path || cli < 0 || cli >= _CONTROLLER_CLI_MAX)
                return -EINVAL;
        names = cli_readers[cli].names;
        if (!names)
                return -EOPNOTSUPP;
        if (!path_env)
                return -ENOENT;

        for (const char *const *name = names; *name; name++) {
                const char *p = path_env;

                for (;;) {
                        size_t len = strcspn(p, ":");
                        char *full;

                        /* empty PATH elements mean the cwd; never run a CLI from there */
                        if (len > 0 && p[0] == '/') {
                                if (asprintf(&full, "%.*s/%s", (int) len, p, *name) < 0)
                                        return -ENOMEM;
                                if (access(full, X_OK) == 0) {
                                        *ret_path = full;
                                        return 0;
                                }
                                free(full);
                        }
                        if (!p[len])
                                break;
                        p += len + 1;
                }
        }
        return -ENOENT;
}

/* One query's fixed inputs: which binary, how to run it; or (socket_path set) which CLI to ask
 * the helper behind socket_path for (bin is then only the CLI's name, never run here). */
struct CliQuery {
        ProcessReaper *reaper;
        char *bin;
        const char *path_env;
        usec_t timeout_usec;
        const char *socket_path;
        ControllerCli cli;
};

static int query_run(const CliQuery *q, char *const argv[], char **ret, size_t *ret_size) {
        if (q->socket_path)
                return controller_cli_remote_run(q->socket_path, q->cli, argv + 1, q->timeout_usec,
                                                 CONTROLLER_CLI_MAX_OUTPUT, ret, ret_size);
        return controller_cli_run(q->reaper, q->bin, argv, q->path_env, q->timeout_usec,
                                  CONTROLLER_CLI_MAX_OUTPUT, ret, ret_size);
}

/* Run argv and hand its output to the parser. */
static int query_parse(const CliQuery *q, char *const argv[],
                       int (*parse)(const char *text, size_t size, ControllerVolumeList *l),
                       ControllerVolumeList *l) {
        _cleanup_free_ char *out = NULL;
        size_t size;
        int r;

        r = query_run(q, argv, &out, &size);
        if (r < 0)
                return r;
        return parse(out, size, l);
}

/* storcli: all virtual drives, then the rebuild progress of each drive that rebuilds. */
static int query_storcli(const CliQuery *q, ControllerVolumeList *l) {
        char *argv[] = { q->bin,         (char *) "/call/vall", (char *) "show",
                         (char *) "all", (char *) "J",          NULL };
        int r;

        r = query_parse(q, argv, storcli_parse_volumes, l);
        if (r < 0)
                return r;
        for (size_t i = 0; i < l->n; i++) {
                char *argv2[] = { q->bin,          l->volumes[i].rebuild_drive,
                                  (char *) "show", (char *) "rebuild",
                                  (char *) "J",    NULL };
                _cleanup_free_ char *rb = NULL;
                size_t rb_size;

                if (!l->volumes[i].rebuild_drive)
                        continue;
                /* best effort: a failed progress query leaves the state as is */
                if (query_run(q, argv2, &rb, &rb_size) >= 0)
                        (void) storcli_apply_rebuild(l, rb, rb_size);
        }
        return 0;
}

static int query_ssacli(const CliQuery *q, ControllerVolumeList *l) {
        char *argv[] = { q->bin,
                         (char *) "ctrl",
                         (char *) "all",
                         (char *) "show",
                         (char *) "config",
                         (char *) "detail",
                         NULL };
        return query_parse(q, argv, ssacli_parse_config, l);
}

static int arcconf_parse_ld_1(const char *text, size_t size, ControllerVolumeList *l) {
        return arcconf_parse_ld(text, size, "1", l);
}

/* arcconf: the logical devices of controller 1, then (best effort) its task status. */
static int query_arcconf(const CliQuery *q, ControllerVolumeList *l) {
        char *argv[] = { q->bin, (char *) "GETCONFIG", (char *) "1", (char *) "LD", NULL };
        char *argv2[] = { q->bin, (char *) "GETSTATUS", (char *) "1", NULL };
        _cleanup_free_ char *st = NULL;
        size_t st_size;
        int r;

        r = query_parse(q, argv, arcconf_parse_ld_1, l);
        if (r < 0)
                return r;
        if (query_run(q, argv2, &st, &st_size) >= 0)
                (void) arcconf_apply_status(l, st, st_size);
        return 0;
}

int controller_cli_query(ProcessReaper *reaper, ControllerCli cli, const char *path_env,
                         usec_t timeout_usec, ControllerVolumeList *ret) {
        _cleanup_(controller_volume_list_donep) ControllerVolumeList l = {};
        _cleanup_free_ char *bin = NULL;
        CliQuery q;
        int r;

        if (!ret)
                return -EINVAL;
        r = controller_cli_find(cli, path_env, &bin);
        if (r < 0)
                return r;
        q = (CliQuery){ .reaper = reaper,
                        .bin = bin,
                        .path_env = path_env,
                        .timeout_usec = timeout_usec,
                        .cli = cli };

        r = cli_readers[cli].query(&q, &l); /* controller_cli_find() checked cli */
        if (r < 0)
                return r;

        *ret = l;
        l = (ControllerVolumeList){};
        return 0;
}

int controller_cli_query_remote(const char *socket_path, ControllerCli cli, usec_t timeout_usec,
                                ControllerVolumeList *ret) {
        _cleanup_(controller_volume_list_donep) ControllerVolumeList l = {};
        CliQuery q;
        int r;

        if (!ret || !socket_path || cli < 0 || cli >= _CONTROLLER_CLI_MAX)
                return -EINVAL;
        if (!cli_readers[cli].query)
                return -EOPNOTSUPP;
        q = (CliQuery){ .bin = (char *) controller_cli_to_string(cli),
                        .timeout_usec = timeout_usec,
                        .socket_path = socket_path,
                        .cli = cli };
        r = cli_readers[cli].query(&q, &l);
        if (r < 0)
                return r;

        *ret = l;
        l = (ControllerVolumeList){};
        return 0;
}

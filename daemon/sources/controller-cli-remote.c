/* SPDX-License-Identifier: MIT */
/* Vendor CLI commands through the helper's socket (controller-cli-remote.h).
 *
 * Why a helper at all: the daemon's unit denies every character device (DevicePolicy=closed,
 * only block devices read-only), and the CLIs need the controllers' management nodes
 * (/dev/megaraid_sas_ioctl_node, /dev/sg*, the aac node). A child inherits its parent's cgroup,
 * so nothing the daemon spawns can reach them; a unit of its own can, with only those nodes.
 * Socket activation (Accept=yes) starts one helper per connection with no D-Bus and no polkit,
 * and the daemon only needs to connect() to a socket in its runtime directory, which its sandbox
 * allows. One connection is one command, so the runner's queries (storcli asks again about a
 * rebuilding drive) work through it unchanged and the daemon keeps parsing the raw output with
 * the same parsers. Every wait is bounded: the client by its deadline, the helper by its CLI
 * timeout, the unit by RuntimeMaxSec=. */

#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "sources/controller-cli-remote.h"
#include "basic/macro.h"
#include "basic/process.h"
#include "model/controller-cli-protocol.h"
#include "sources/controller-cli-run.h"

#define REQUEST_TIMEOUT_USEC (5 * USEC_PER_SEC)

static int connect_unix(const char *path, int *ret_fd) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        _cleanup_close_ int fd = -EBADF;

        if (strlen(path) >= sizeof(sa.sun_path))
                return -EINVAL;
        strcpy(sa.sun_path, path);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return -errno;
        /* AF_UNIX connects at once or fails (EAGAIN: the backlog is full) */
        if (connect(fd, (const struct sockaddr *) &sa, sizeof(sa)) < 0)
                return -ECONNREFUSED;
        *ret_fd = TAKE_FD(fd);
        return 0;
}

int controller_cli_remote_run(const char *socket_path, ControllerCli cli, char *const args[],
                              usec_t timeout_usec, size_t max_output, char **ret,
                              size_t *ret_size) {
        _cleanup_free_ char *line = NULL, *buf = NULL;
        _cleanup_close_ int fd = -EBADF;
        const char *body;
        size_t n, body_size, len;
        usec_t deadline;
        int r, status;

        if (!socket_path || !ret)
                return -EINVAL;
        r = controller_cli_request_format(cli, args, &line);
        if (r < 0)
                return r;
        r = connect_unix(socket_path, &fd);
        if (r < 0)
                return r;
        /* a fresh stream socket takes a few hundred bytes at once */
        len = strlen(line);
        if (send(fd, line, len, MSG_NOSIGNAL) != (ssize_t) len)
                return errno > 0 ? -errno : -EIO;
        (void) shutdown(fd, SHUT_WR);

        deadline = now(CLOCK_MONOTONIC);
        timeout_usec = MIN(timeout_usec, USEC_INFINITY - CONTROLLER_CLI_REMOTE_SLACK_USEC);
        timeout_usec += CONTROLLER_CLI_REMOTE_SLACK_USEC;
        deadline =
                timeout_usec > USEC_INFINITY - deadline ? USEC_INFINITY : deadline + timeout_usec;
        r = controller_cli_read_output(fd, deadline, max_output + CONTROLLER_CLI_HEADER_MAX, &buf,
                                       &n);
        if (r < 0)
                return r == -ECONNRESET ? -EBADMSG : r;
        r = controller_cli_response_parse(buf, n, &status, &body, &body_size);
        if (r < 0)
                return r;
        if (status < 0)
                return status;
        if (body_size > max_output)
                return -EFBIG;
        memmove(buf, body, body_size);
        buf[body_size] = '\0';
        *ret = TAKE_PTR(buf);
        if (ret_size)
                *ret_size = body_size;
        return 0;
}

static int write_all(int fd, const char *p, size_t n) {
        while (n > 0) {
                ssize_t k = write(fd, p, n);

                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        if (errno == EAGAIN) {
                                struct pollfd pfd = { .fd = fd, .events = POLLOUT };

                                (void) poll(&pfd, 1, -1);
                                continue;
                        }
                        return -errno;
                }
                p += k;
                n -= (size_t) k;
        }
        return 0;
}

static int answer(int out_fd, int status, const char *body, size_t size) {
        char header[CONTROLLER_CLI_HEADER_MAX];
        int r, k;

        k = snprintf(header, sizeof(header), "%d %zu\n", status, status < 0 ? (size_t) 0 : size);
        r = write_all(out_fd, header, (size_t) k);
        if (r >= 0 && status >= 0)
                r = write_all(out_fd, body, size);
        return r;
}

/* Run the request; returns the status to answer (0 with the output, or a negative errno). */
static int run_request(const ControllerCliRequest *req, const char *path_env, usec_t timeout_usec,
                       char **ret, size_t *ret_size) {
        _cleanup_(process_reaper_freep) ProcessReaper *reaper = NULL;
        _cleanup_free_ char *bin = NULL;
        char *argv[CONTROLLER_CLI_ARGS_MAX + 2] = {};
        int r;

        r = controller_cli_find(req->cli, path_env, &bin);
        if (r < 0)
                return r;
        r = process_reaper_new(NULL, NULL, &reaper);
        if (r < 0)
                return r;
        argv[0] = bin;
        for (size_t i = 0; i < req->n_args; i++)
                argv[i + 1] = req->args[i];
        r = controller_cli_run(reaper, bin, argv, path_env, timeout_usec, CONTROLLER_CLI_MAX_OUTPUT,
                               ret, ret_size);
        /* a killed CLI stuck in the kernel stays behind for systemd to deal with (the unit's
         * cgroup is killed when the helper exits) */
        (void) process_reaper_settle(reaper, now(CLOCK_MONOTONIC) + USEC_PER_SEC);
        return r;
}

int controller_cli_serve(int in_fd, int out_fd, const char *path_env, usec_t timeout_usec,
                         int *ret_status, char **ret_line) {
        _cleanup_(controller_cli_request_donep) ControllerCliRequest req = {};
        _cleanup_free_ char *text = NULL, *out = NULL;
        size_t n, size = 0;
        int r, status;

        if (!ret_status || !ret_line)
                return -EINVAL;
        r = controller_cli_read_output(in_fd, now(CLOCK_MONOTONIC) + REQUEST_TIMEOUT_USEC,
                                       CONTROLLER_CLI_REQUEST_MAX, &text, &n);
        if (r < 0)
                return r;
        status = controller_cli_request_parse(text, n, &req);
        if (status >= 0)
                status = run_request(&req, path_env, timeout_usec, &out, &size);
        r = answer(out_fd, status, out, size);
        if (r < 0)
                return r;
        text[strcspn(text, "\n")] = '\0';
        *ret_status = status;
        *ret_line = TAKE_PTR(text);
        return 0;
}

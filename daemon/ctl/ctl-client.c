/* SPDX-License-Identifier: MIT */
/* One request, one reply over the control socket (ctl-client.h). The reply may be large (a
 * report or the history of every volume): up to REPLY_MAX bytes are read, within the timeout. */

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/log.h"
#include "basic/macro.h"
#include "ctl/ctl-client.h"
#include "manager/control-protocol.h"

#define REPLY_MAX (4U << 20)

const char *ctl_socket_path(const char *opt) {
        const char *e = getenv("STORPULSE_SOCKET");

        return opt ?: (e && *e ? e : "/run/storpulse/" CONTROL_SOCKET_NAME);
}

void ctl_log_connect_error(int r, const char *path, const char *hint) {
        if (r == -ENOENT || r == -ECONNREFUSED)
                log_error_errno(r, "Failed to connect to storpulsed at %s: %m (is it running?%s%s)",
                                path, hint ? " " : "", hint ?: "");
        else if (r == -EACCES || r == -EPERM)
                log_error_errno(r,
                                "Failed to connect to storpulsed at %s: %m (the control socket "
                                "admits root and the groups of [Daemon] ControlGroup= and "
                                "AdminGroup=: run as root or as a member of one)",
                                path);
        else
                log_error_errno(r, "Failed to connect to storpulsed at %s: %m", path);
}

static int connect_to(const char *path, int *ret_fd) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        _cleanup_close_ int fd = -EBADF;

        if (strlen(path) >= sizeof(sa.sun_path))
                return -ENAMETOOLONG;
        memcpy(sa.sun_path, path, strlen(path) + 1);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || connect(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0)
                return -errno;
        *ret_fd = TAKE_FD(fd);
        return 0;
}

/* The next line of buf (n bytes) as a JSON object, NULL with *ret_bad when it does not parse. */
static json_object *take_line(char *buf, size_t *n, char *nl, bool *ret_bad) {
        json_object *o;

        *nl = 0;
        o = json_tokener_parse(buf);
        memmove(buf, nl + 1, *n - (size_t) (nl - buf) - 1);
        *n -= (size_t) (nl - buf) + 1;
        *ret_bad = !o;
        return o;
}

/* Read lines until the "reply" one: 0 and *ret, or -EBADMSG, -ETIMEDOUT, -ECONNRESET, -E2BIG. */
static int read_reply(int fd, usec_t timeout, json_object **ret) {
        _cleanup_free_ char *buf = malloc(REPLY_MAX + 1);
        usec_t deadline = now(CLOCK_MONOTONIC) + timeout;
        size_t n = 0;

        if (!buf)
                return -ENOMEM;
        for (;;) {
                char *nl = memchr(buf, '\n', n);
                struct pollfd p = { .fd = fd, .events = POLLIN };
                usec_t t = now(CLOCK_MONOTONIC);
                json_object *o, *type;
                bool bad;
                ssize_t k;

                if (nl) {
                        o = take_line(buf, &n, nl, &bad);
                        if (bad)
                                return -EBADMSG;
                        if (json_object_object_get_ex(o, "type", &type) &&
                            strcmp(json_object_get_string(type), "reply") == 0) {
                                *ret = o;
                                return 0;
                        }
                        json_object_put(o);
                        continue;
                }
                if (n >= REPLY_MAX)
                        return -E2BIG;
                if (t >= deadline)
                        return -ETIMEDOUT;
                k = poll(&p, 1, (int) MIN((deadline - t) / 1000 + 1, (usec_t) 1 << 30));
                if (k < 0 && errno != EINTR)
                        return -errno;
                if (k <= 0)
                        continue;
                k = recv(fd, buf + n, REPLY_MAX - n, 0);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0)
                        return k < 0 ? -errno : -ECONNRESET;
                n += (size_t) k;
        }
}

static json_object *request_new(const char *command, char *const *names, int n) {
        json_object *req = json_object_new_object(), *a = n > 0 ? json_object_new_array() : NULL;

        if (!req || (n > 0 && !a)) {
                json_object_put(req);
                json_object_put(a);
                return NULL;
        }
        json_object_object_add(req, "command", json_object_new_string(command));
        for (int i = 0; i < n; i++) {
                const char *name = names[i];

                if (strncmp(name, "/dev/", 5) == 0)
                        name += 5;
                json_object_array_add(a, json_object_new_string(name));
        }
        if (a)
                json_object_object_add(req, "volumes", a);
        return req;
}

int ctl_request(const char *sock, const char *command, char *const *names, int n, usec_t timeout,
                const char *hint, json_object **ret_reply) {
        const char *path = ctl_socket_path(sock), *s;
        _cleanup_close_ int fd = -EBADF;
        json_object *req, *o = NULL, *ok, *err;
        int r;

        req = request_new(command, names, n);
        if (!req)
                return log_oom(), CTL_EXIT_DAEMON;
        r = connect_to(path, &fd);
        if (r < 0) {
                json_object_put(req);
                ctl_log_connect_error(r, path, hint);
                return CTL_EXIT_DAEMON;
        }
        s = json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN);
        if (send(fd, s, strlen(s), MSG_NOSIGNAL) != (ssize_t) strlen(s) ||
            send(fd, "\n", 1, MSG_NOSIGNAL) != 1) {
                r = -errno;
                json_object_put(req);
                log_error_errno(r, "Failed to send to storpulsed: %m");
                return CTL_EXIT_DAEMON;
        }
        json_object_put(req);
        r = read_reply(fd, timeout, &o);
        if (r < 0) {
                log_error_errno(r, "No complete answer from storpulsed: %m");
                return CTL_EXIT_DAEMON;
        }
        if (!json_object_object_get_ex(o, "ok", &ok) || !json_object_get_boolean(ok)) {
                log_error("storpulsed refused: %s", json_object_object_get_ex(o, "error", &err)
                                                            ? json_object_get_string(err)
                                                            : "unknown error");
                json_object_put(o);
                return CTL_EXIT_DAEMON;
        }
        *ret_reply = o;
        return 0;
}

/* SPDX-License-Identifier: MIT */
/* The vendor CLI helper's protocol (model/controller-cli-protocol.h: the allow-list, the request
 * line, the response header) and both ends of it (sources/controller-cli-remote.h): a forked
 * server process answers on a real AF_UNIX socket with controller_cli_serve(), as
 * storpulse-controller-cli does under its socket unit, running the fake CLIs of
 * fixtures/controller/fake-cli/; the daemon's queries through it give what they give run
 * directly; refused, missing, hung and failing CLIs and a helper that never answers give their
 * errors within their bounds. */

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/macro.h"
#include "model/controller-cli-protocol.h"
#include "sources/controller-cli-remote.h"
#include "sources/controller-cli-run.h"
#include "tap.h"

static const char *fixtures;
static char tmpdir[] = "/tmp/test-cli-remote-XXXXXX";

static int parse(const char *line, ControllerCliRequest *req) {
        return controller_cli_request_parse(line, strlen(line), req);
}

static void test_request(void) {
        static const char *const good[] = {
                "storcli /call/vall show all J\n", "storcli /c0/e252/s4 show rebuild J\n",
                "storcli /c1/s7 show rebuild J\n", "ssacli ctrl all show config detail\n",
                "arcconf GETCONFIG 1 LD\n",        "arcconf GETSTATUS 1\n",
        };
        static const struct {
                const char *line;
                int want;
        } bad[] = {
                { "storcli /call/vall show all J", -EBADMSG },     /* no newline */
                { "storcli /call/vall show all J\n\n", -EBADMSG }, /* two lines */
                { "storcli  /call/vall show all J\n", -EBADMSG },  /* empty word */
                { "storcli /call/vall show all J \n", -EBADMSG },  /* trailing space */
                { "\n", -EBADMSG },
                { "storcli /c0/e252/s4;reboot show rebuild J\n", -EBADMSG },
                { "storcli $(reboot)\n", -EBADMSG },
                { "storcli /call/vall delete force\n", -EPERM },
                { "storcli /call/vall show all\n", -EPERM },
                { "storcli /call/vall show all J J\n", -EPERM },
                { "storcli /c0/e/s4 show rebuild J\n", -EPERM },
                { "storcli /c0/e252/s4 start rebuild\n", -EPERM },
                { "storcli /cx/s4 show rebuild J\n", -EPERM },
                { "arcconf GETCONFIG 2 LD\n", -EPERM },
                { "arcconf SETSTATE 1 DEVICE 0 0 DDD\n", -EPERM },
                { "ssacli ctrl slot=0 ld 1 delete forced\n", -EBADMSG }, /* '=' */
                { "ssacli ctrl all delete forced\n", -EPERM },
                { "tw_cli /c0 show\n", -EOPNOTSUPP },
                { "sh -c reboot\n", -EOPNOTSUPP },
                { "bash x\n", -EOPNOTSUPP },
                { "storcli a b c d e f g h i\n", -EBADMSG }, /* more than 8 arguments */
        };
        ControllerCliRequest req = {};
        char big[400], *line = NULL;

        for (size_t i = 0; i < ELEMENTSOF(good); i++) {
                is_int(parse(good[i], &req), 0, "allowed: %.*s", (int) strlen(good[i]) - 1,
                       good[i]);
                /* and formatted back to the same line */
                is_int(controller_cli_request_format(req.cli, req.args, &line), 0, "format");
                is_str(line, good[i], "round trip");
                free(line);
                line = NULL;
                controller_cli_request_done(&req);
        }
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                is_int(parse(bad[i].line, &req), bad[i].want, "refused: %s", bad[i].line);
                is_int(req.n_args, 0, "nothing written");
        }
        is_int(controller_cli_request_parse("arcconf GETSTATUS 1\0\n", 21, &req), -EBADMSG,
               "NUL in the request");
        memset(big, 'a', sizeof(big));
        big[sizeof(big) - 1] = '\n';
        is_int(controller_cli_request_parse(big, sizeof(big), &req), -EBADMSG, "too long");
        is_int(controller_cli_request_format(
                       CONTROLLER_CLI_STORCLI,
                       (char *[]){ (char *) "/call/vall", (char *) "delete", NULL }, &line),
               -EPERM, "the client does not format what the helper would refuse");
}

static void test_response(void) {
        static const struct {
                const char *text;
                int want, status;
                const char *body;
        } cases[] = {
                { "0 3\nabc", 0, 0, "abc" },
                { "0 0\n", 0, 0, "" },
                { "-2 0\n", 0, -2, "" },
                { "-62 0\n", 0, -62, "" },
                { "0 4\nabc", -EBADMSG }, /* truncated */
                { "0 2\nabc", -EBADMSG }, /* more than announced */
                { "-2 1\nx", -EBADMSG },  /* a failure with a body */
                { "-0 0\n", -EBADMSG },
                { "1 0\n", -EBADMSG },
                { "0 3", -EBADMSG },
                { "0  3\nabc", -EBADMSG },
                { "0 +3\nabc", -EBADMSG },
                { "-99999 0\n", -EBADMSG },
                { "", -EBADMSG },
                { "garbage\n", -EBADMSG },
                { "0 3 \nabc", -EBADMSG },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                const char *body = NULL;
                size_t size = 0;
                int status = 1;

                is_int(controller_cli_response_parse(cases[i].text, strlen(cases[i].text), &status,
                                                     &body, &size),
                       cases[i].want, "response %zu", i);
                if (cases[i].want < 0)
                        continue;
                is_int(status, cases[i].status, "status");
                ok(size == strlen(cases[i].body) && memcmp(body, cases[i].body, size) == 0, "body");
        }
}

/* A helper server on a socket in tmpdir: a forked process that serves every connection with
 * controller_cli_serve() on the fake CLIs of `kind` (or never answers, kind NULL). */
static pid_t serve(const char *kind, usec_t timeout_usec, char *ret_path, size_t path_size) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        char path_env[4096];
        pid_t pid;
        int fd;

        snprintf(ret_path, path_size, "%s/%s", tmpdir, kind ?: "mute");
        snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", ret_path);
        snprintf(path_env, sizeof(path_env), "%s/controller/fake-cli/%s:/usr/bin:/bin", fixtures,
                 kind ?: "ok");
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || bind(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0 || listen(fd, 8) < 0)
                abort();
        pid = fork();
        if (pid < 0)
                abort();
        if (pid == 0) {
                (void) signal(SIGPIPE, SIG_IGN);
                for (;;) {
                        int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC), status;
                        char *line = NULL;

                        if (c < 0)
                                _exit(1);
                        if (!kind) {
                                pause(); /* a helper that hangs before answering */
                                _exit(0);
                        }
                        (void) controller_cli_serve(c, c, path_env, timeout_usec, &status, &line);
                        free(line);
                        close(c);
                }
        }
        close(fd);
        return pid;
}

static void stop(pid_t pid) {
        (void) kill(pid, SIGKILL);
        (void) waitpid(pid, NULL, 0);
}

/* A request off the list, sent raw (the client would not format it): the helper refuses it
 * (status -EPERM) and runs nothing. */
static void test_raw_refused(const char *sock) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        const char req[] = "storcli /call/vall delete force\n";
        char buf[64] = "";
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        ssize_t k;

        snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
        ok(fd >= 0 && connect(fd, (struct sockaddr *) &sa, sizeof(sa)) == 0, "connect");
        ok(write(fd, req, sizeof(req) - 1) == (ssize_t) sizeof(req) - 1, "raw request");
        (void) shutdown(fd, SHUT_WR);
        k = read(fd, buf, sizeof(buf) - 1);
        buf[MAX(k, (ssize_t) 0)] = '\0';
        is_str(buf, "-1 0\n", "the helper answers -EPERM");
        close(fd);
}

static void test_remote(void) {
        char sock[100], *out = NULL;
        ControllerVolumeList l = {};
        usec_t t0;
        size_t n;
        pid_t pid;

        pid = serve("ok", 10 * USEC_PER_SEC, sock, sizeof(sock));
        is_int(controller_cli_query_remote(sock, CONTROLLER_CLI_STORCLI, 10 * USEC_PER_SEC, &l), 0,
               "storcli through the helper");
        is_int(l.n, 1, "one VD, as run directly");
        if (l.n == 1)
                is_int(l.volumes[0].state, CONTROLLER_VOLUME_OPTIMAL, "optimal");
        controller_volume_list_done(&l);
        is_int(controller_cli_query_remote(sock, CONTROLLER_CLI_SSACLI, 10 * USEC_PER_SEC, &l), 0,
               "ssacli through the helper");
        is_int(l.n, 1, "one logical drive");
        controller_volume_list_done(&l);
        is_int(controller_cli_query_remote(sock, CONTROLLER_CLI_ARCCONF, 10 * USEC_PER_SEC, &l), 0,
               "arcconf through the helper (GETCONFIG + GETSTATUS)");
        if (l.n == 1) {
                is_int(l.volumes[0].state, CONTROLLER_VOLUME_REBUILDING, "rebuilding");
                is_double(l.volumes[0].progress, 0.01, 1e-9, "1 %%");
        } else
                ok(0, "arcconf: one logical device (got %zu)", l.n);
        controller_volume_list_done(&l);
        is_int(controller_cli_query_remote(sock, CONTROLLER_CLI_TW_CLI, USEC_PER_SEC, &l),
               -EOPNOTSUPP, "a CLI without a reader is not asked");
        is_int(controller_cli_remote_run(
                       sock, CONTROLLER_CLI_STORCLI,
                       (char *[]){ (char *) "/call/vall", (char *) "delete", NULL }, USEC_PER_SEC,
                       1024, &out, &n),
               -EPERM, "a command off the list is not sent");
        test_raw_refused(sock);
        stop(pid);

        pid = serve("fail", 10 * USEC_PER_SEC, sock, sizeof(sock));
        is_int(controller_cli_query_remote(sock, CONTROLLER_CLI_STORCLI, 10 * USEC_PER_SEC, &l),
               -EPROTO, "failing CLI -> -EPROTO, as run directly");
        is_int(controller_cli_query_remote(sock, CONTROLLER_CLI_ARCCONF, 10 * USEC_PER_SEC, &l),
               -ENOENT, "no arcconf where the helper looks -> -ENOENT (no cli)");
        stop(pid);

        pid = serve("garbage", 10 * USEC_PER_SEC, sock, sizeof(sock));
        is_int(controller_cli_query_remote(sock, CONTROLLER_CLI_SSACLI, 10 * USEC_PER_SEC, &l),
               -EBADMSG, "garbage ssacli -> -EBADMSG from our parser");
        stop(pid);

        pid = serve("hang", 300 * USEC_PER_MSEC, sock, sizeof(sock));
        is_int(controller_cli_query_remote(sock, CONTROLLER_CLI_STORCLI, 300 * USEC_PER_MSEC, &l),
               -ETIME, "hung CLI: the helper kills it, -ETIME");
        stop(pid);

        pid = serve(NULL, 0, sock, sizeof(sock));
        t0 = now(CLOCK_MONOTONIC);
        is_int(controller_cli_query_remote(sock, CONTROLLER_CLI_STORCLI, 100 * USEC_PER_MSEC, &l),
               -ETIME, "a helper that never answers -> -ETIME");
        ok(now(CLOCK_MONOTONIC) - t0 <
                   100 * USEC_PER_MSEC + CONTROLLER_CLI_REMOTE_SLACK_USEC + 5 * USEC_PER_SEC,
           "bounded by the timeout and the slack");
        stop(pid);

        (void) unlink(sock);
        is_int(controller_cli_query_remote(sock, CONTROLLER_CLI_STORCLI, USEC_PER_SEC, &l),
               -ECONNREFUSED, "no socket -> -ECONNREFUSED (helper unreachable)");
        is_int(l.n, 0, "nothing written on any failure");
}

int main(void) {
        char path[600];

        fixtures = getenv("STORPULSE_FIXTURES");
        if (!fixtures)
                return tap_skip_all("STORPULSE_FIXTURES not set");
        if (!mkdtemp(tmpdir))
                return tap_skip_all("mkdtemp failed");

        test_request();
        test_response();
        test_remote();

        for (const char *const *k =
                     (const char *const[]){ "ok", "fail", "garbage", "hang", "mute", NULL };
             *k; k++) {
                snprintf(path, sizeof(path), "%s/%s", tmpdir, *k);
                (void) unlink(path);
        }
        (void) rmdir(tmpdir);
        return tap_done();
}

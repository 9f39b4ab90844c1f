/* SPDX-License-Identifier: MIT */
/* The request and response of the vendor CLI helper (controller-cli-protocol.h). The allow-list
 * is the point: the helper runs as root with the controllers' device nodes open to it, so it
 * runs only the handful of read-only queries the runner (sources/controller-cli-run.c) issues,
 * never a command a client made up. A request word is matched exactly, except storcli's drive
 * path, which must be "/c<N>/e<N>/s<N>" or "/c<N>/s<N>" (what storcli_parse_volumes() builds). */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/controller-cli-protocol.h"
#include "basic/macro.h"
#include "basic/parse-util.h"

#define DRIVE "\001" /* the pattern word for a storcli drive path */

static const char *const *const allowed[_CONTROLLER_CLI_MAX] = {
        [CONTROLLER_CLI_STORCLI] =
                (const char *const[]){ "/call/vall show all J", DRIVE " show rebuild J", NULL },
        [CONTROLLER_CLI_SSACLI] = (const char *const[]){ "ctrl all show config detail", NULL },
        [CONTROLLER_CLI_ARCCONF] = (const char *const[]){ "GETCONFIG 1 LD", "GETSTATUS 1", NULL },
};

void controller_cli_request_done(ControllerCliRequest *req) {
        if (!req)
                return;
        for (size_t i = 0; i < req->n_args; i++)
                free(req->args[i]);
        *req = (ControllerCliRequest){};
}

/* 1 to 10 decimal digits at s: returns what follows them, or NULL. */
static const char *digits(const char *s) {
        size_t n = strspn(s, "0123456789");

        return n > 0 && n <= 10 ? s + n : NULL;
}

static bool is_drive(const char *s) {
        if (strncmp(s, "/c", 2) != 0 || !(s = digits(s + 2)))
                return false;
        if (strncmp(s, "/e", 2) == 0 && !(s = digits(s + 2)))
                return false;
        if (strncmp(s, "/s", 2) != 0 || !(s = digits(s + 2)))
                return false;
        return *s == '\0';
}

/* Does `args` spell the pattern `pat` (words separated by single spaces)? */
static bool matches(const char *pat, char *const args[]) {
        size_t i = 0;

        for (;;) {
                size_t len = strcspn(pat, " ");

                if (!args[i])
                        return false;
                if (len == 1 && pat[0] == DRIVE[0]) {
                        if (!is_drive(args[i]))
                                return false;
                } else if (strlen(args[i]) != len || strncmp(args[i], pat, len) != 0)
                        return false;
                i++;
                if (!pat[len])
                        return !args[i];
                pat += len + 1;
        }
}

bool controller_cli_command_allowed(ControllerCli cli, char *const args[]) {
        if (cli < 0 || cli >= _CONTROLLER_CLI_MAX || !allowed[cli] || !args)
                return false;
        for (const char *const *p = allowed[cli]; *p; p++)
                if (matches(*p, args))
                        return true;
        return false;
}

int controller_cli_request_format(ControllerCli cli, char *const args[], char **ret) {
        const char *name = controller_cli_to_string(cli);
        size_t len;
        char *line, *q;

        if (!ret || !args || !name)
                return -EINVAL;
        if (!controller_cli_command_allowed(cli, args))
                return -EPERM;
        len = strlen(name) + 2;
        for (size_t i = 0; args[i]; i++)
                len += strlen(args[i]) + 1;
        if (len > CONTROLLER_CLI_REQUEST_MAX)
                return -EINVAL;
        line = malloc(len);
        if (!line)
                return -ENOMEM;
        q = stpcpy(line, name);
        for (size_t i = 0; args[i]; i++) {
                *q++ = ' ';
                q = stpcpy(q, args[i]);
        }
        *q++ = '\n';
        *q = '\0';
        *ret = line;
        return 0;
}

/* Split the line's words into req (the first is the CLI). -EBADMSG for empty or doubled
 * spaces, too many words, or a character outside [A-Za-z0-9/_.-]. */
static int split_words(const char *s, size_t n, char **ret_name, ControllerCliRequest *req) {
        _cleanup_free_ char *name = NULL;

        if (strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/_.- ") != n)
                return -EBADMSG;
        for (size_t i = 0, k = 0; i <= n; i = k + 1) {
                char *w;

                k = i + strcspn(s + i, " ");
                if (k == i)
                        return -EBADMSG; /* empty word */
                w = strndup(s + i, k - i);
                if (!w)
                        return -ENOMEM;
                if (!name)
                        name = w;
                else if (req->n_args >= CONTROLLER_CLI_ARGS_MAX) {
                        free(w);
                        return -EBADMSG;
                } else
                        req->args[req->n_args++] = w;
                if (k == n)
                        break;
        }
        *ret_name = TAKE_PTR(name);
        return 0;
}

int controller_cli_request_parse(const char *text, size_t size, ControllerCliRequest *ret) {
        _cleanup_(controller_cli_request_donep) ControllerCliRequest req = {};
        _cleanup_free_ char *name = NULL, *line = NULL;
        int r;

        if (!ret || (!text && size > 0))
                return -EINVAL;
        if (size < 2 || size > CONTROLLER_CLI_REQUEST_MAX || text[size - 1] != '\n' ||
            memchr(text, '\n', size - 1) || memchr(text, '\0', size))
                return -EBADMSG;
        line = strndup(text, size - 1);
        if (!line)
                return -ENOMEM;
        r = split_words(line, size - 1, &name, &req);
        if (r < 0)
                return r;
        req.cli = controller_cli_from_string(name);
        if (req.cli < 0 || !allowed[req.cli])
                return -EOPNOTSUPP;
        if (!controller_cli_command_allowed(req.cli, req.args))
                return -EPERM;
        *ret = req;
        req = (ControllerCliRequest){};
        return 0;
}

int controller_cli_response_parse(const char *text, size_t size, int *ret_status,
                                  const char **ret_body, size_t *ret_body_size) {
        char header[CONTROLLER_CLI_HEADER_MAX], *sp;
        const char *nl;
        uint64_t body, err;
        size_t hlen;
        int status;

        if (!ret_status || !ret_body || !ret_body_size || (!text && size > 0))
                return -EINVAL;
        nl = size > 0 ? memchr(text, '\n', MIN(size, sizeof(header))) : NULL;
        if (!nl)
                return -EBADMSG;
        hlen = (size_t) (nl - text);
        memcpy(header, text, hlen);
        header[hlen] = '\0';
        sp = strchr(header, ' ');
        if (!sp || strchr(sp + 1, ' '))
                return -EBADMSG;
        *sp = '\0';
        /* "0" or "-N" (1 <= N <= 4095), then the body size: digits only, nothing else */
        if (header[0] == '-') {
                if (parse_u64_strict(header + 1, &err) < 0 || err == 0 || err > 4095)
                        return -EBADMSG;
                status = -(int) err;
        } else if (strcmp(header, "0") == 0)
                status = 0;
        else
                return -EBADMSG;
        if (parse_u64_strict(sp + 1, &body) < 0)
                return -EBADMSG;
        if (body != size - hlen - 1 || (status < 0 && body != 0))
                return -EBADMSG;
        *ret_status = status;
        *ret_body = nl + 1;
        *ret_body_size = (size_t) body;
        return 0;
}

/* SPDX-License-Identifier: MIT */
/* storpulsed: the daemon. `storpulsed [--config FILE] [--root DIR] [--runtime-dir DIR]
 * [--state-dir DIR] [--controller-cli-socket PATH]`; runs under systemd (Type=notify) or by
 * hand in the foreground. Only parses the command line; the Manager (manager.h) is the daemon.
 * Exit status: 0 after SIGTERM/SIGINT, 1 usage, 2 start refused (bad config, loop setup, another
 * storpulsed on the same runtime or state directory). */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/log.h"
#include "config.h"
#include "manager/manager.h"

static int help(void) {
        printf("Usage: storpulsed [OPTIONS...]\n\n"
               "Storage health and performance monitor daemon.\n\n"
               "  -h --help             show this help\n"
               "     --version          show the version\n"
               "  -c --config FILE      configuration file (default %s/storpulse/storpulse.conf;\n"
               "                        FILE.d/*.conf are read after it)\n"
               "     --root DIR         read sys/ and proc/ below DIR (tests)\n"
               "     --runtime-dir DIR  control socket directory (default $RUNTIME_DIRECTORY\n"
               "                        or %s)\n"
               "     --state-dir DIR    state directory (default $STATE_DIRECTORY or\n"
               "                        %s)\n"
               "  -l --listen ADDR:PORT  serve HTTP there instead of [HTTP] Listen= (repeatable;\n"
               "                        127.0.0.1:%d, [::1]:%d, *:%d = every address)\n"
               "     --controller-cli-socket PATH\n"
               "                        run the vendor RAID CLIs through the helper listening\n"
               "                        there (storpulse-controller-cli.socket) instead of as\n"
               "                        children\n"
               "     --check-config     load the configuration, report errors, exit\n"
               "     --dump-config      print the effective configuration (defaults, the file\n"
               "                        and its drop-ins: every key with its value), exit\n",
               SYSCONFDIR, PKGRUNDIR, PKGSTATEDIR, HTTP_DEFAULT_PORT, HTTP_DEFAULT_PORT,
               HTTP_DEFAULT_PORT);
        return 0;
}

/* The daemon is small and mostly asleep: one malloc arena for its few threads (the loop, the HTTP
 * thread, a CLI worker now and then) instead of one per thread, and memory freed after a render
 * (the snapshot's bodies are tens of KiB, rendered again at every change) goes back to the kernel
 * instead of staying in the heap: a fixed mmap threshold (a dynamic one climbs after the first
 * large free and keeps later bodies in the heap) and a low trim threshold. */
static void setup_malloc(void) {
        (void) mallopt(M_ARENA_MAX, 1);
        (void) mallopt(M_MMAP_THRESHOLD, 64 * 1024);
        (void) mallopt(M_TRIM_THRESHOLD, 128 * 1024);
}

/* One daemon per runtime and state directory: a second one would unlink the first one's control
 * socket and write the same state files. Both are flock()ed for the life of the process (the
 * kernel drops a lock with the process, however it dies: nothing stale to clean up), before
 * anything else is touched: the runtime directory through a lock file that holds the pid for
 * the message, the state directory itself (an fd of the directory: no file of ours in it, and
 * it works when the directory is read-only, which the daemon supports). A directory that cannot
 * be opened is left unguarded with a warning: the daemon says later what it cannot do there.
 * The fds are O_CLOEXEC, and children never inherit them (basic/process closes every other
 * fd). Returns 0, or -EBUSY when another daemon holds it. */
static int lock_dir(const char *opt, const char *env, const char *def, bool runtime) {
        const char *e = opt ?: getenv(env);
        _cleanup_free_ char *dir = NULL, *path = NULL;
        _cleanup_close_ int fd = -EBADF;
        char pid[32] = "";
        ssize_t n;

        dir = e && *e ? strndup(e, strcspn(e, ":")) : strdup(def); /* as manager_new() */
        if (!dir || asprintf(&path, "%s%s", dir, runtime ? "/storpulsed.lock" : "") < 0)
                return log_oom();
        (void) mkdir(dir, 0755);
        fd = runtime ? open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644)
                     : open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) {
                log_warning_errno(-errno,
                                  "Failed to open %s for the single-instance lock: %m, "
                                  "ignoring",
                                  path);
                return 0;
        }
        if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
                if (errno != EWOULDBLOCK) {
                        log_warning_errno(-errno, "Failed to lock %s: %m, ignoring", path);
                        return 0;
                }
                n = runtime ? pread(fd, pid, sizeof(pid) - 1, 0) : 0;
                pid[MAX(n, (ssize_t) 0)] = '\0';
                pid[strcspn(pid, "\n")] = '\0';
                return log_error_errno(-EBUSY,
                                       "Another storpulsed%s%s%s holds %s: refusing to start.",
                                       pid[0] ? " (pid " : "", pid, pid[0] ? ")" : "", path);
        }
        if (runtime) {
                n = snprintf(pid, sizeof(pid), "%d\n", (int) getpid());
                if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, (size_t) n, 0) != n)
                        log_warning_errno(-errno, "Failed to write the pid to %s: %m, ignoring",
                                          path);
        }
        (void) TAKE_FD(fd); /* held until exit */
        return 0;
}

/* --check-config, --dump-config: load the configuration as the daemon would, then say it is ok
 * or print it. The exit status of main(). */
static int check_config(const char *opt_path, bool dump) {
        _cleanup_(config_freep) Config *c = NULL;
        _cleanup_free_ char *error = NULL;
        const char *path = opt_path ?: SYSCONFDIR "/storpulse/storpulse.conf";
        int r;

        r = config_load(path, opt_path != NULL, &c, &error);
        if (r >= 0 && !dump)
                r = config_check_files(c, path, &error);
        if (r < 0) {
                log_error("%s", error ?: "Failed to load the configuration");
                return 2;
        }
        if (!dump) {
                printf("%s: ok, %zu profiles\n", path, c->n_profiles);
                return 0;
        }
        printf("# from %s and %s.d/*.conf\n", path, path);
        r = config_dump(c, stdout);
        if (r >= 0 && fclose(stdout) != 0)
                r = -errno;
        if (r < 0) {
                log_error_errno(r, "Failed to write the configuration: %m");
                return 2;
        }
        return 0;
}

/* The daemon proper, once the command line is read: the exit status of main(). */
static int run_daemon(const ManagerOptions *o) {
        _cleanup_(manager_freep) Manager *m = NULL;

        if (lock_dir(o->runtime_dir, "RUNTIME_DIRECTORY", PKGRUNDIR, true) < 0 ||
            lock_dir(o->state_dir, "STATE_DIRECTORY", PKGSTATEDIR, false) < 0)
                return 2;
        setup_malloc();
        if (manager_new(o, &m) < 0)
                return 2;
        return manager_run(m) < 0 ? 2 : 0;
}

int main(int argc, char **argv) {
        enum {
                ARG_VERSION = 0x100,
                ARG_ROOT,
                ARG_RUNTIME,
                ARG_STATE,
                ARG_CHECK,
                ARG_DUMP,
                ARG_CLI
        };
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                { "config", required_argument, NULL, 'c' },
                { "root", required_argument, NULL, ARG_ROOT },
                { "runtime-dir", required_argument, NULL, ARG_RUNTIME },
                { "state-dir", required_argument, NULL, ARG_STATE },
                { "check-config", no_argument, NULL, ARG_CHECK },
                { "dump-config", no_argument, NULL, ARG_DUMP },
                { "listen", required_argument, NULL, 'l' },
                { "controller-cli-socket", required_argument, NULL, ARG_CLI },
                {},
        };
        ManagerOptions o = {};
        char *listen[33] = {};
        size_t n_listen = 0;
        bool check = false, dump = false;
        int opt;

        while ((opt = getopt_long(argc, argv, "hc:l:", options, NULL)) >= 0)
                switch (opt) {
                case 'h':
                        return help();
                case ARG_VERSION:
                        printf("storpulsed %s\n", PACKAGE_VERSION);
                        return 0;
                case 'c':
                        o.config_path = optarg;
                        break;
                case ARG_ROOT:
                        o.root = optarg;
                        break;
                case ARG_RUNTIME:
                        o.runtime_dir = optarg;
                        break;
                case ARG_STATE:
                        o.state_dir = optarg;
                        break;
                case ARG_CHECK:
                        check = true;
                        break;
                case ARG_DUMP:
                        dump = true;
                        break;
                case ARG_CLI:
                        o.cli_socket = optarg;
                        break;
                case 'l':
                        if (n_listen + 1 >= ELEMENTSOF(listen)) {
                                log_error("At most %zu --listen addresses.",
                                          ELEMENTSOF(listen) - 1);
                                return 1;
                        }
                        listen[n_listen++] = optarg;
                        break;
                default:
                        return 1;
                }
        if (optind < argc) {
                log_error("storpulsed takes no arguments; see --help.");
                return 1;
        }
        if (check || dump)
                return check_config(o.config_path, dump);

        o.listen = n_listen > 0 ? listen : NULL;
        return run_daemon(&o);
}

/* SPDX-License-Identifier: MIT */
/* `storpulsectl volumes` in-process over fixture trees: exit codes, the human tree (top-level
 * first, members indented, progress line with speed and ETA) and that --json is a JSON array. */

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl/ctl.h"
#include "basic/fileio.h"
#include "basic/macro.h"
#include "tap.h"

/* Run the verb with stdout redirected into a temp file; returns its exit code, *ret the text. */
static int run(char **ret, const char *a1, const char *a2, const char *a3, const char *a4) {
        char tmpl[] = "/tmp/test-ctl-volumes-XXXXXX";
        char *argv[] = { (char *) "volumes", (char *) a1, (char *) a2,
                         (char *) a3,        (char *) a4, NULL };
        int argc = 1, fd, saved, rc;
        size_t n;

        while (argc < 5 && argv[argc])
                argc++;
        fd = mkstemp(tmpl);
        if (fd < 0)
                return -errno;
        fflush(stdout);
        saved = dup(STDOUT_FILENO);
        (void) dup2(fd, STDOUT_FILENO);
        rc = ctl_volumes_main(argc, argv);
        fflush(stdout);
        (void) dup2(saved, STDOUT_FILENO);
        close(saved);
        close(fd);
        *ret = NULL;
        (void) read_full_file_at(AT_FDCWD, tmpl, ret, &n);
        (void) unlink(tmpl);
        return rc;
}

static char *fixture(const char *name) {
        static char buf[4096];
        const char *e = getenv("STORPULSE_FIXTURES");
        (void) snprintf(buf, sizeof(buf), "%s/%s", e ? e : "tests/fixtures", name);
        return buf;
}

int main(void) {
        _cleanup_free_ char *out = NULL;
        json_object *j;

        is_int(run(&out, "--root", fixture("md-raid1-recover"), NULL, NULL), 0, "recover: exit 0");
        ok(out && strstr(out, "md0 ") && strstr(out, "degraded"), "md0 degraded shown");
        ok(out && strstr(out, "recover  [==...") && strstr(out, "8.6%"), "progress bar, 8.6%%");
        ok(out && strstr(out, "speed 3.7MiB/s") && strstr(out, "eta 1m03s"), "speed and eta");
        ok(out && strstr(out, "|-vda") && strstr(out, "`-vdb") && strstr(out, "(spare)"),
           "members indented with their state");
        ok(out && strstr(out, "md0") < strstr(out, "vda"), "top-level first");
        out = mfree(out);

        is_int(run(&out, "--root", fixture("lvm-on-md"), NULL, NULL), 0, "lvm-on-md: exit 0");
        ok(out && strstr(out, "dm-0 (vgmd/data)") && strstr(out, "`-md0") && strstr(out, "  |-vda"),
           "LV -> md -> disks");
        ok(out && strstr(out, "problem below: md0, member vdb"), "problem attributed to md0/vdb");
        out = mfree(out);

        is_int(run(&out, "--root", fixture("lvm-raid1-syncing"), NULL, NULL), 0, "lvm: exit 0");
        ok(out && strstr(out, "resync") && strstr(out, "speed -  eta -"),
           "dm-raid: no speed/eta from one reading");
        ok(out && !strstr(out, "rimage"), "sub-LVs folded");
        out = mfree(out);

        is_int(run(&out, "--json", "--root", fixture("md-raid1-delayed"), NULL), 0, "json exit 0");
        j = out ? json_tokener_parse(out) : NULL;
        ok(j && json_object_is_type(j, json_type_array), "--json prints an array");
        is_int(j ? (long long) json_object_array_length(j) : -1, 8, "8 volumes");
        json_object_put(j);
        out = mfree(out);

        {
                char path[8192];
                const char *fx = getenv("STORPULSE_FIXTURES");

                (void) snprintf(path, sizeof(path), "%s/controller/fake-cli/ok:%s",
                                fx ? fx : "tests/fixtures", getenv("PATH") ? getenv("PATH") : "");
                setenv("PATH", path, 1);
                is_int(run(&out, "--root", fixture("megaraid-sas"), NULL, NULL), 0,
                       "megaraid with a (fake) storcli on PATH");
                ok(out && strstr(out, "controller RAID1"), "RAID level from storcli");
                out = mfree(out);
                is_int(run(&out, "--no-controller-cli", "--root", fixture("megaraid-sas"), NULL), 0,
                       "--no-controller-cli");
                ok(out && !strstr(out, "RAID1"), "CLI not asked");
                out = mfree(out);
        }

        is_int(run(&out, "--root", "/nonexistent-root", NULL, NULL), 2, "missing root: exit 2");
        out = mfree(out);
        is_int(run(&out, "--bogus", NULL, NULL, NULL), 1, "unknown option: exit 1");
        out = mfree(out);
        is_int(run(&out, "extra", NULL, NULL, NULL), 1, "stray argument: exit 1");
        out = mfree(out);
        is_int(run(&out, "--help", NULL, NULL, NULL), 0, "--help: exit 0");
        ok(out && strstr(out, "--root DIR"), "help text");
        return tap_done();
}

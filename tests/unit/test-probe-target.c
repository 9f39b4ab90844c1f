/* SPDX-License-Identifier: MIT */
/* probe-target: opening regular files for direct reads and refusing everything else with a
 * distinct reason. Uses real files under /var/tmp (a disk filesystem: O_DIRECT works there),
 * a FIFO (must be refused without blocking), /dev/null, /dev/shm (tmpfs) and an unreadable file
 * opened by a child that dropped root. */

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe/probe-target.h"
#include "tap.h"
#include "test-files.h"

static int open_expect(const char *path) {
        ProbeTarget *t = (ProbeTarget *) 0x1;
        int r = probe_target_open(path, -EBADF, &t);

        if (r >= 0)
                probe_target_free(t);
        else if (t != (ProbeTarget *) 0x1)
                return -EFAULT; /* output written on failure */
        return r;
}

static void test_unreadable(const char *path) {
        pid_t pid;
        int status = 0;

        /* As root, permissions do not apply: open as nobody in a child. */
        pid = fork();
        if (pid == 0) {
                if (setgid(65534) < 0 || setuid(65534) < 0)
                        _exit(100);
                _exit(open_expect(path) == -EACCES ? 0 : 1);
        }
        ok(pid > 0 && waitpid(pid, &status, 0) == pid, "unreadable: child ran");
        if (WIFEXITED(status) && WEXITSTATUS(status) == 100) {
                ok(1, "unreadable: # SKIP cannot drop privileges");
                return;
        }
        ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "unreadable: -EACCES as uid 65534");
}

/* tap_skip_all() prints the skip plan; exit 0, since meson's TAP protocol counts 77 as an error. */
/* A fake sysfs in the working directory claiming a 1 MiB logical block size for the file's
 * backing device: probe_target_open(AT_FDCWD) must not read it (AT_FDCWD is "no sysfs", never
 * "relative to wherever the caller runs"). 0 when it was left alone. */
static int check_no_cwd_sysfs(const char *dir, const char *file) {
        _cleanup_close_ int here = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        ProbeTarget *t = NULL;
        char q[512];
        struct stat st;
        uint32_t lbs;
        FILE *f;
        int r;

        if (here < 0 || stat(file, &st) < 0)
                return -errno;
        (void) snprintf(q, sizeof(q), "%s/dev", dir);
        (void) mkdir(q, 0755);
        (void) snprintf(q, sizeof(q), "%s/dev/block", dir);
        (void) mkdir(q, 0755);
        (void) snprintf(q, sizeof(q), "%s/dev/block/%u:%u", dir, major(st.st_dev),
                        minor(st.st_dev));
        (void) mkdir(q, 0755);
        (void) snprintf(q, sizeof(q), "%s/dev/block/%u:%u/queue", dir, major(st.st_dev),
                        minor(st.st_dev));
        (void) mkdir(q, 0755);
        (void) snprintf(q, sizeof(q), "%s/dev/block/%u:%u/queue/logical_block_size", dir,
                        major(st.st_dev), minor(st.st_dev));
        f = fopen(q, "we");
        if (!f)
                return -errno;
        fputs("1048576\n", f);
        fclose(f);
        if (chdir(dir) < 0)
                return -errno;
        r = probe_target_open(file, AT_FDCWD, &t);
        (void) fchdir(here);
        if (r < 0)
                return r;
        lbs = t->info.logical_block_size;
        t = probe_target_free(t);
        return lbs == 1048576 ? -EBADE : 0;
}

static int skip_all(const char *reason) {
        (void) tap_skip_all(reason);
        return 0;
}

/* the kind names, and which file types probe_target_check_mode() lets through */
static void test_kinds_and_modes(void) {
        for (ProbeTargetKind k = 0; k < _PROBE_TARGET_KIND_MAX; k++)
                is_int(probe_target_kind_from_string(probe_target_kind_to_string(k)), k,
                       "kind %d round trip", k);
        is_int(probe_target_kind_from_string("pipe"), -EINVAL, "unknown kind");

        is_int(probe_target_check_mode(S_IFBLK), 0, "mode: block ok");
        is_int(probe_target_check_mode(S_IFREG), 0, "mode: regular ok");
        is_int(probe_target_check_mode(S_IFDIR), -EISDIR, "mode: directory");
        is_int(probe_target_check_mode(S_IFCHR), -ENOTBLK, "mode: char device");
        is_int(probe_target_check_mode(S_IFIFO), -ESPIPE, "mode: fifo");
        is_int(probe_target_check_mode(S_IFSOCK), -ENXIO, "mode: socket");
}

/* a regular file of 1 MiB opens for direct reads, with and without a sysfs root */
static void test_regular_file(const char *dir) {
        _cleanup_(probe_target_freep) ProbeTarget *t = NULL;
        char p[256];

        (void) snprintf(p, sizeof(p), "%s/data", dir);
        is_int(write_random_file(p, 1 << 20, 0644), 0, "write 1 MiB of random data");
        is_int(probe_target_open(p, -EBADF, &t), 0, "regular file opens");
        if (t) {
                is_int(t->info.kind, PROBE_TARGET_FILE, "file: kind");
                is_u64(t->info.size_bytes, 1 << 20, "file: size from st_size");
                ok(t->info.logical_block_size >= 512 && t->info.logical_block_size <= 65536,
                   "file: alignment %u plausible", t->info.logical_block_size);
                ok(t->info.mem_align >= 512 && (t->info.mem_align & (t->info.mem_align - 1)) == 0,
                   "file: buffer alignment %u is a power of two", t->info.mem_align);
                ok((fcntl(t->fd, F_GETFL) & (O_ACCMODE | O_DIRECT)) == (O_RDONLY | O_DIRECT),
                   "file: opened O_RDONLY|O_DIRECT");
                ok(fcntl(t->fd, F_GETFD) & FD_CLOEXEC, "file: close-on-exec");
                is_str(t->path, p, "file: path kept");
        }
        t = probe_target_free(t);

        (void) snprintf(p, sizeof(p), "%s/data", dir);
        {
                _cleanup_close_ int sys = open("/sys", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

                ok(sys >= 0, "open /sys");
                is_int(probe_target_open(p, sys, &t), 0, "regular file opens with /sys as root");
                t = probe_target_free(t);
        }
        is_int(check_no_cwd_sysfs(dir, p), 0, "AT_FDCWD: no sysfs read relative to the cwd");
}

/* each thing that is not a probe target is refused with its own reason */
static void test_refusals(const char *dir) {
        char p[256];

        (void) snprintf(p, sizeof(p), "%s/missing", dir);
        is_int(open_expect(p), -ENOENT, "nonexistent: -ENOENT");
        is_int(open_expect(dir), -EISDIR, "directory: -EISDIR");
        is_int(open_expect("/dev/null"), -ENOTBLK, "char device /dev/null: -ENOTBLK");

        (void) snprintf(p, sizeof(p), "%s/fifo", dir);
        is_int(mkfifo(p, 0644), 0, "mkfifo");
        is_int(open_expect(p), -ESPIPE, "FIFO: -ESPIPE, without blocking");

        (void) snprintf(p, sizeof(p), "%s/tiny", dir);
        is_int(write_random_file(p, 100, 0644), 0, "write 100 bytes");
        is_int(open_expect(p), -ENODATA, "smaller than one block: -ENODATA");
        (void) snprintf(p, sizeof(p), "%s/empty", dir);
        is_int(write_random_file(p, 0, 0644), 0, "write empty file");
        is_int(open_expect(p), -ENODATA, "empty file: -ENODATA");

        (void) snprintf(p, sizeof(p), "%s/secret", dir);
        is_int(write_random_file(p, 8192, 0600), 0, "write mode 0600 file");
        test_unreadable(p);
}

/* a tmpfs file: no O_DIRECT, and no cached fallback */
static void test_tmpfs(void) {
        struct statfs sfs;

        if (statfs("/dev/shm", &sfs) == 0 && sfs.f_type == TMPFS_MAGIC) {
                char shm[] = "/dev/shm/test-probe-target-XXXXXX";
                _cleanup_close_ int fd = mkstemp(shm);

                ok(fd >= 0 && write_random_file(shm, 65536, 0600) == 0, "tmpfs file written");
                is_int(open_expect(shm), -EOPNOTSUPP, "tmpfs: -EOPNOTSUPP, no cached fallback");
                (void) unlink(shm);
        } else
                ok(1, "tmpfs: # SKIP /dev/shm is not tmpfs");
}

static void test_strerror_and_null(void) {
        ProbeTarget *t = NULL;

        ok(probe_target_strerror(-EISDIR) && probe_target_strerror(-12345), "strerror never NULL");
        ok(strstr(probe_target_strerror(-EOPNOTSUPP), "O_DIRECT") != NULL,
           "strerror names O_DIRECT");
        is_int(probe_target_open(NULL, -EBADF, &t), -EINVAL, "NULL path");
        ok(probe_target_free(NULL) == NULL, "free(NULL)");
}

int main(void) {
        char dir[] = "/var/tmp/test-probe-target-XXXXXX";
        char p[256];
        struct statfs sfs;

        test_kinds_and_modes();
        if (statfs("/var/tmp", &sfs) == 0 &&
            (sfs.f_type == TMPFS_MAGIC || sfs.f_type == RAMFS_MAGIC))
                return skip_all("/var/tmp is memory-backed: no O_DIRECT file to test with");
        ok(mkdtemp(dir) != NULL, "mkdtemp %s", dir);
        (void) chmod(dir, 0755);

        test_regular_file(dir);
        test_refusals(dir);
        test_tmpfs();
        test_strerror_and_null();

        (void) snprintf(p, sizeof(p), "rm -rf '%s'", dir);
        (void) system(p);
        return tap_done();
}

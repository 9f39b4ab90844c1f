/* SPDX-License-Identifier: MIT */
/* Small-file I/O relative to a directory fd. sysfs attributes report a size of 4096 whatever
 * their content, so we read until EOF rather than trusting st_size. State files are replaced
 * atomically (temp + fsync + rename) so a crash never leaves half a file. */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/macro.h"
#include "basic/parse-util.h"

static int read_fd_all(int fd, int use_pread, char **ret, size_t *ret_size) {
        _cleanup_free_ char *buf = NULL;
        size_t size = 0, alloc = 0;

        for (;;) {
                ssize_t n;

                if (alloc - size < 4096) {
                        char *p;

                        if (alloc >= READ_FULL_FILE_MAX)
                                return -EFBIG;
                        alloc = alloc ? alloc * 2 : 4096 + 1;
                        p = realloc(buf, alloc);
                        if (!p)
                                return -ENOMEM;
                        buf = p;
                }
                n = use_pread ? pread(fd, buf + size, alloc - size - 1, (off_t) size)
                              : read(fd, buf + size, alloc - size - 1);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (n == 0)
                        break;
                size += (size_t) n;
                if (size > READ_FULL_FILE_MAX)
                        return -EFBIG;
        }
        if (!buf) {
                buf = malloc(1);
                if (!buf)
                        return -ENOMEM;
        }
        buf[size] = 0;
        *ret = TAKE_PTR(buf);
        if (ret_size)
                *ret_size = size;
        return 0;
}

int read_full_file_at(int dir_fd, const char *path, char **ret, size_t *ret_size) {
        _cleanup_close_ int fd = -EBADF;

        fd = openat(dir_fd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return -errno;
        return read_fd_all(fd, 0, ret, ret_size);
}

int read_one_line_at(int dir_fd, const char *path, char **ret) {
        _cleanup_free_ char *buf = NULL;
        char *nl;
        int r;

        r = read_full_file_at(dir_fd, path, &buf, NULL);
        if (r < 0)
                return r;
        nl = strchr(buf, '\n');
        if (nl)
                *nl = 0;
        strstrip_trailing(buf);
        *ret = TAKE_PTR(buf);
        return 0;
}

int read_fd_from_start(int fd, char **ret) {
        char *buf = NULL;
        int r;

        r = read_fd_all(fd, 1, &buf, NULL);
        if (r < 0)
                return r;
        *ret = strstrip_trailing(buf);
        return 0;
}

/* fsync the directory holding path (relative to dir_fd), so a rename into it is durable. */
static int fsync_parent_at(int dir_fd, const char *path) {
        _cleanup_free_ char *dir = NULL;
        _cleanup_close_ int fd = -EBADF;
        const char *slash = strrchr(path, '/');

        if (slash) {
                dir = slash == path ? strdup("/") : strndup(path, (size_t) (slash - path));
                if (!dir)
                        return -ENOMEM;
        }
        fd = openat(dir_fd, dir ?: ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (fsync(fd) < 0)
                return -errno;
        return 0;
}

int write_file_atomic_at(int dir_fd, const char *path, const void *data, size_t size) {
        _cleanup_free_ char *tmp = NULL;
        _cleanup_close_ int fd = -EBADF;
        const char *p = data;
        int r;

        if (asprintf(&tmp, "%s.tmp.%d", path, (int) getpid()) < 0)
                return -ENOMEM;
        fd = openat(dir_fd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0)
                return -errno;
        while (size > 0) {
                ssize_t n = write(fd, p, size);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        r = -errno;
                        goto out_unlink;
                }
                p += n;
                size -= (size_t) n;
        }
        if (fsync(fd) < 0) {
                r = -errno;
                goto out_unlink;
        }
        if (renameat(dir_fd, tmp, dir_fd, path) < 0) {
                r = -errno;
                goto out_unlink;
        }
        return fsync_parent_at(dir_fd, path);

out_unlink:
        (void) unlinkat(dir_fd, tmp, 0);
        return r;
}

void unlink_stale_temps_at(int dir_fd, const char *path) {
        _cleanup_free_ char *prefix = NULL;
        _cleanup_close_ int fd = -EBADF;
        DIR *d;

        if (strchr(path, '/'))
                return; /* only files directly in dir_fd */
        if (asprintf(&prefix, "%s.tmp.", path) < 0)
                return;
        fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return;
        d = fdopendir(fd);
        if (!d)
                return;
        fd = -EBADF; /* owned by d now */
        for (struct dirent *de; (de = readdir(d));)
                if (strncmp(de->d_name, prefix, strlen(prefix)) == 0)
                        (void) unlinkat(dirfd(d), de->d_name, 0);
        (void) closedir(d);
}

int rename_aside_at(int dir_fd, const char *path, const char *suffix, char **ret_name) {
        for (unsigned i = 0; i < 1000; i++) {
                _cleanup_free_ char *aside = NULL;
                int n = i == 0 ? asprintf(&aside, "%s.%s", path, suffix)
                               : asprintf(&aside, "%s.%s.%u", path, suffix, i);

                if (n < 0)
                        return -ENOMEM;
                if (renameat2(dir_fd, path, dir_fd, aside, RENAME_NOREPLACE) >= 0) {
                        if (ret_name)
                                *ret_name = TAKE_PTR(aside);
                        return 0;
                }
                if (errno != EEXIST)
                        return -errno;
        }
        return -EEXIST;
}

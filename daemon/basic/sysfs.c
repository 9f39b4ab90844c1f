/* SPDX-License-Identifier: MIT */
/* sysfs attribute readers below an injected directory fd, plus the tiny string-vector helpers
 * the inventory needs. Everything here is a plain read of a small text file; sysfs reads of
 * attributes return at once, so nothing can hang on a missing attribute (it is -ENOENT). */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "basic/fileio.h"
#include "basic/macro.h"
#include "basic/parse-util.h"
#include "basic/sysfs.h"

int sysfs_read_string(int dir_fd, const char *attr, char **ret) {
        char *s = NULL;
        int r;

        if (dir_fd < 0 || !attr || !ret)
                return -EINVAL;
        r = read_one_line_at(dir_fd, attr, &s);
        if (r < 0)
                return r;
        strstrip_trailing(s);
        *ret = s;
        return 0;
}

int sysfs_read_stripped(int dir_fd, const char *attr, char **ret) {
        _cleanup_free_ char *s = NULL;
        const char *p;
        char *t;
        int r;

        r = sysfs_read_string(dir_fd, attr, &s);
        if (r < 0)
                return r;
        p = s + strspn(s, " \t");
        if (!*p)
                return -ENODATA;
        t = strdup(p);
        if (!t)
                return -ENOMEM;
        *ret = t;
        return 0;
}

int sysfs_read_u64(int dir_fd, const char *attr, uint64_t *ret) {
        _cleanup_free_ char *s = NULL;
        uint64_t v;
        int r;

        r = sysfs_read_string(dir_fd, attr, &s);
        if (r < 0)
                return r;
        r = safe_atou64(s, &v);
        if (r < 0)
                return r;
        *ret = v;
        return 0;
}

int sysfs_read_bool(int dir_fd, const char *attr, bool *ret) {
        uint64_t v;
        int r;

        r = sysfs_read_u64(dir_fd, attr, &v);
        if (r < 0)
                return r;
        *ret = v != 0;
        return 0;
}

int sysfs_read_devnum(int dir_fd, const char *attr, unsigned *ret_major, unsigned *ret_minor) {
        _cleanup_free_ char *s = NULL;
        unsigned maj, min;
        char *colon;
        int r;

        r = sysfs_read_string(dir_fd, attr, &s);
        if (r < 0)
                return r;
        colon = strchr(s, ':');
        if (!colon)
                return -EINVAL;
        *colon = 0;
        r = safe_atou(s, &maj);
        if (r < 0)
                return r;
        r = safe_atou(colon + 1, &min);
        if (r < 0)
                return r;
        *ret_major = maj;
        *ret_minor = min;
        return 0;
}

static int cmp_str(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

int sysfs_list_dir(int dir_fd, const char *subdir, char ***ret, size_t *ret_n) {
        _cleanup_strv_free_ char **l = NULL;
        size_t n = 0, allocated = 0;
        struct dirent *de;
        DIR *d;
        int fd;

        if (dir_fd < 0 || !subdir || !ret)
                return -EINVAL;
        fd = openat(dir_fd, subdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) {
                if (errno != ENOENT && errno != ENOTDIR)
                        return -errno;
                l = calloc(1, sizeof(char *));
                if (!l)
                        return -ENOMEM;
                *ret = TAKE_PTR(l);
                if (ret_n)
                        *ret_n = 0;
                return 0;
        }
        d = fdopendir(fd);
        if (!d) {
                int r = -errno;
                safe_close(fd);
                return r;
        }
        l = calloc(1, sizeof(char *));
        if (!l)
                goto out_nomem;
        allocated = 1;
        while ((de = readdir(d))) {
                if (de->d_name[0] == '.')
                        continue;
                if (n + 2 > allocated) {
                        size_t na = allocated * 2 + 8;
                        char **nl = reallocarray(l, na, sizeof(char *));
                        if (!nl)
                                goto out_nomem;
                        l = nl;
                        allocated = na;
                }
                l[n] = strdup(de->d_name);
                if (!l[n])
                        goto out_nomem;
                l[++n] = NULL;
        }
        closedir(d);
        qsort(l, n, sizeof(char *), cmp_str);
        *ret = TAKE_PTR(l);
        if (ret_n)
                *ret_n = n;
        return 0;

out_nomem:
        closedir(d);
        return -ENOMEM;
}

char **strv_free(char **l) {
        if (!l)
                return NULL;
        for (char **p = l; *p; p++)
                free(*p);
        free(l);
        return NULL;
}

size_t strv_length(char *const *l) {
        size_t n = 0;

        if (!l)
                return 0;
        while (l[n])
                n++;
        return n;
}

bool strv_contains(char *const *l, const char *s) {
        if (!l || !s)
                return false;
        for (; *l; l++)
                if (strcmp(*l, s) == 0)
                        return true;
        return false;
}

int strv_extend_unique(char ***l, const char *s) {
        size_t n;
        char **nl, *t;

        if (!l || !s)
                return -EINVAL;
        if (strv_contains(*l, s))
                return 0;
        n = strv_length(*l);
        t = strdup(s);
        if (!t)
                return -ENOMEM;
        nl = reallocarray(*l, n + 2, sizeof(char *));
        if (!nl) {
                free(t);
                return -ENOMEM;
        }
        nl[n] = t;
        nl[n + 1] = NULL;
        *l = nl;
        return 1;
}

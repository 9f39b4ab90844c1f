/* SPDX-License-Identifier: MIT */
/* The mountinfo lookup: one pass over the lines, each split into its words (fields 3, 5 and the
 * one after the " - " separator matter: major:minor, mount point, fstype), the mount point
 * unescaped into a bounded buffer and compared with the path by whole components. Lines that do
 * not have that shape are skipped, so a kernel that adds fields, or garbage, cannot mislead the
 * answer into another device; it can only fail to find one. */

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <string.h>

#include "model/mountinfo.h"

#define LINE_WORDS_MAX  64
#define MOUNT_POINT_MAX 4096

/* Unescapes the kernel's octal escapes of a mount point into out (at most n - 1 bytes); false
 * when it does not fit or holds a bad escape. */
static bool unescape(const char *s, size_t len, char *out, size_t n) {
        size_t k = 0;

        for (size_t i = 0; i < len; i++) {
                char c = s[i];

                if (c == '\\') {
                        if (i + 3 >= len)
                                return false;
                        if (s[i + 1] < '0' || s[i + 1] > '3' || s[i + 2] < '0' || s[i + 2] > '7' ||
                            s[i + 3] < '0' || s[i + 3] > '7')
                                return false;
                        c = (char) ((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 +
                                    (s[i + 3] - '0'));
                        i += 3;
                }
                if (k + 1 >= n)
                        return false;
                out[k++] = c;
        }
        out[k] = 0;
        return true;
}

/* Length of the mount point's match of path, or -1: "/" holds everything, "/a" holds "/a" and
 * "/a/...". */
static ssize_t match_len(const char *mp, const char *path) {
        size_t n = strlen(mp);

        if (n == 1 && mp[0] == '/')
                return 1;
        while (n > 1 && mp[n - 1] == '/')
                n--;
        if (strncmp(mp, path, n) != 0 || (path[n] != 0 && path[n] != '/'))
                return -1;
        return (ssize_t) n;
}

/* One line into its words (pointers into line, lengths); the number of words. */
static size_t split(const char *line, size_t len, const char **w, size_t *wl) {
        size_t n = 0, i = 0;

        while (i < len && n < LINE_WORDS_MAX) {
                while (i < len && line[i] == ' ')
                        i++;
                if (i >= len)
                        break;
                w[n] = line + i;
                while (i < len && line[i] != ' ')
                        i++;
                wl[n] = (size_t) (line + i - w[n]);
                n++;
        }
        return n;
}

/* Parses one line; true with its device, fstype and unescaped mount point. */
static bool parse_line(const char *line, size_t len, MountinfoEntry *e, char *mp, size_t mp_n) {
        const char *w[LINE_WORDS_MAX];
        size_t wl[LINE_WORDS_MAX], n = split(line, len, w, wl), sep = 0;
        char dev[32];

        for (size_t i = 6; i < n && !sep; i++)
                if (wl[i] == 1 && w[i][0] == '-')
                        sep = i;
        if (n < 7 || sep == 0 || sep + 1 >= n || wl[2] >= sizeof(dev) ||
            wl[sep + 1] >= sizeof(e->fstype))
                return false;
        memcpy(dev, w[2], wl[2]);
        dev[wl[2]] = 0;
        if (sscanf(dev, "%u:%u", &e->major, &e->minor) != 2)
                return false;
        memcpy(e->fstype, w[sep + 1], wl[sep + 1]);
        e->fstype[wl[sep + 1]] = 0;
        return unescape(w[4], wl[4], mp, mp_n) && mp[0] == '/';
}

int mountinfo_find(const char *text, const char *path, MountinfoEntry *ret) {
        char mp[MOUNT_POINT_MAX];
        MountinfoEntry best = {};
        ssize_t best_len = -1;

        if (!text || !path || path[0] != '/' || !ret)
                return -EINVAL;
        for (const char *s = text; *s;) {
                size_t len = strcspn(s, "\n");
                MountinfoEntry e = {};
                ssize_t m;

                if (parse_line(s, len, &e, mp, sizeof(mp)) && (m = match_len(mp, path)) >= 0 &&
                    m >= best_len) {
                        best = e;
                        best_len = m;
                }
                s += len;
                if (*s == '\n')
                        s++;
        }
        if (best_len < 0)
                return -ENOENT;
        *ret = best;
        return 0;
}

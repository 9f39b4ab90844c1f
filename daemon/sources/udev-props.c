/* SPDX-License-Identifier: MIT */
/* udev property providers (see include/sources/udev-props.h). The live one asks libudev, which
 * owns the database format; the fixture one parses the "E:KEY=value" lines of
 * run/udev/data/b<major>:<minor>, the layout tests/fixtures and the VM capture tool write. Both
 * return a plain strv so the inventory's readers do not care which one ran. */

#include <errno.h>
#include <libudev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "basic/fileio.h"
#include "basic/sysfs.h"
#include "sources/udev-props.h"

int udev_props_get_files(void *userdata, unsigned major, unsigned minor, char ***ret) {
        const int *root_fd = userdata;
        _cleanup_free_ char *text = NULL;
        _cleanup_strv_free_ char **l = NULL;
        char path[64];
        size_t n;
        int r;

        if (!root_fd || *root_fd < 0 || !ret)
                return -EINVAL;
        (void) snprintf(path, sizeof(path), "run/udev/data/b%u:%u", major, minor);
        r = read_full_file_at(*root_fd, path, &text, &n);
        if (r == -ENOENT || r == -ENOTDIR) {
                *ret = NULL;
                return 0;
        }
        if (r < 0)
                return r;
        for (char *line = text, *next; line && *line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = 0;
                if (strncmp(line, "E:", 2) != 0 || !strchr(line + 2, '='))
                        continue;
                r = strv_extend_unique(&l, line + 2);
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(l);
        return 0;
}

int udev_props_get_libudev(void *userdata, unsigned major, unsigned minor, char ***ret) {
        struct udev *udev = userdata;
        _cleanup_strv_free_ char **l = NULL;
        struct udev_list_entry *e;
        struct udev_device *d;
        int r = 0;

        if (!udev || !ret)
                return -EINVAL;
        d = udev_device_new_from_devnum(udev, 'b', makedev(major, minor));
        if (!d) {
                if (errno == ENOMEM)
                        return -ENOMEM;
                *ret = NULL; /* gone since the sysfs read, or never known to udev */
                return 0;
        }
        udev_list_entry_foreach(e, udev_device_get_properties_list_entry(d)) {
                const char *k = udev_list_entry_get_name(e), *v = udev_list_entry_get_value(e);
                char *kv;

                if (!k || !*k)
                        continue;
                if (asprintf(&kv, "%s=%s", k, v ? v : "") < 0) {
                        r = -ENOMEM;
                        break;
                }
                r = strv_extend_unique(&l, kv);
                free(kv);
                if (r < 0)
                        break;
        }
        udev_device_unref(d);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(l);
        return 0;
}

const char *udev_props_get_value(char *const *props, const char *key) {
        size_t k;

        if (!key)
                return NULL;
        k = strlen(key);
        for (size_t i = 0; props && props[i]; i++)
                if (strncmp(props[i], key, k) == 0 && props[i][k] == '=')
                        return props[i][k + 1] ? props[i] + k + 1 : NULL;
        return NULL;
}

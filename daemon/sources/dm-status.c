/* SPDX-License-Identifier: MIT */
/* device-mapper table/status text providers. The live one uses libdevmapper's DM_DEVICE_STATUS
 * and DM_DEVICE_TABLE tasks, which are ioctls on /dev/mapper/control: they do not open the
 * mapped device and return without waiting on a suspended one. The device is named by its
 * major:minor, the identity sysfs showed, never by its dm name: a rename between the sysfs read
 * and the ioctl then cannot hand back another device's table. Status is taken with
 * dm_task_no_flush() so a status query never flushes (and waits on) outstanding I/O. Text is
 * rendered exactly as `dmsetup status|table NAME` prints it, so the dm parsers see the same
 * lines live and in fixtures.
 *
 * libdevmapper is dlopen()ed at the first query of a dm device, not linked: with libselinux and
 * pcre2 below it that is 0.35 MiB resident in every process of the package, and most hosts
 * watched have no dm volume at all. The table holds the few functions used here; the headers
 * still come from the -dev package, so the types are checked at build time. */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <libdevmapper.h>
#include <linux/dm-ioctl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "basic/dlopen-util.h"
#include "basic/string-table.h"
#include "config.h"
#include "sources/dm-status.h"
#include "basic/fileio.h"
#include "basic/macro.h"

static const char *const dm_query_table[_DM_QUERY_MAX] = {
        [DM_QUERY_STATUS] = "status",
        [DM_QUERY_TABLE] = "table",
};

DEFINE_STRING_TABLE_LOOKUP(dm_query, DmQuery, dm_query_table)

static bool dm_name_is_valid(const char *name) {
        return name && *name && name[0] != '.' && !strchr(name, '/') && strlen(name) < 128;
}

/* libdevmapper prints its errors to stderr by default; modules do not log. */
static void dm_log_quiet(int level, const char *file, int line, int dm_errno_or_class,
                         const char *f, ...) {
}

/* libdevmapper's log handler is process-global state: set it once, not on every query. */
static struct {
        typeof(dm_log_with_errno_init) *log_with_errno_init;
        typeof(dm_task_create) *task_create;
        typeof(dm_task_destroy) *task_destroy;
        typeof(dm_task_set_major) *task_set_major;
        typeof(dm_task_set_minor) *task_set_minor;
        typeof(dm_task_no_flush) *task_no_flush;
        typeof(dm_task_run) *task_run;
        typeof(dm_task_get_info) *task_get_info;
        typeof(dm_get_next_target) *get_next_target;
} libdm;
static int libdm_error;

/* Once per process (never unloaded); then the quiet log handler. */
static void libdm_load(void) {
        const DlopenSymbol symbols[] = {
                DLOPEN_SYMBOL(libdm, log_with_errno_init, dm_log_with_errno_init),
                DLOPEN_SYMBOL(libdm, task_create, dm_task_create),
                DLOPEN_SYMBOL(libdm, task_destroy, dm_task_destroy),
                DLOPEN_SYMBOL(libdm, task_set_major, dm_task_set_major),
                DLOPEN_SYMBOL(libdm, task_set_minor, dm_task_set_minor),
                DLOPEN_SYMBOL(libdm, task_no_flush, dm_task_no_flush),
                DLOPEN_SYMBOL(libdm, task_run, dm_task_run),
                DLOPEN_SYMBOL(libdm, task_get_info, dm_task_get_info),
                DLOPEN_SYMBOL(libdm, get_next_target, dm_get_next_target),
        };

        libdm_error = dlopen_symbols(LIBDM_SONAME, symbols, ELEMENTSOF(symbols), NULL);
        if (libdm_error >= 0)
                libdm.log_with_errno_init(dm_log_quiet);
}

static void dm_task_destroyp(struct dm_task **t) {
        if (*t)
                libdm.task_destroy(*t);
}

int dm_status_get_libdm(void *userdata, const DmDeviceId *id, DmQuery q, char **ret) {
        static pthread_once_t load_once = PTHREAD_ONCE_INIT;
        __attribute__((cleanup(dm_task_destroyp))) struct dm_task *dmt = NULL;
        _cleanup_free_ char *buf = NULL;
        struct dm_info info;
        size_t size = 0;
        FILE *f;
        void *next = NULL;

        if (!id || id->major == 0 || id->major > INT_MAX || id->minor > INT_MAX || !ret)
                return -EINVAL;
        if (q != DM_QUERY_STATUS && q != DM_QUERY_TABLE)
                return -EINVAL;
        /* Without the control node there is no device-mapper in this kernel; never let
         * libdevmapper try to create one. */
        if (access("/dev/mapper/control", F_OK) < 0)
                return -ENODEV;

        (void) pthread_once(&load_once, libdm_load);
        if (libdm_error < 0)
                return libdm_error;

        dmt = libdm.task_create(q == DM_QUERY_STATUS ? DM_DEVICE_STATUS : DM_DEVICE_TABLE);
        if (!dmt)
                return -ENOMEM;
        if (!libdm.task_set_major(dmt, (int) id->major) ||
            !libdm.task_set_minor(dmt, (int) id->minor))
                return -EINVAL;
        if (q == DM_QUERY_STATUS)
                (void) libdm.task_no_flush(dmt);
        if (!libdm.task_run(dmt))
                return errno > 0 ? -errno : -EIO;
        if (!libdm.task_get_info(dmt, &info))
                return -EIO;
        if (!info.exists)
                return -ENOENT;

        f = open_memstream(&buf, &size);
        if (!f)
                return -ENOMEM;
        do {
                uint64_t start = 0, length = 0;
                char *target = NULL, *params = NULL;

                next = libdm.get_next_target(dmt, next, &start, &length, &target, &params);
                if (!target)
                        break;
                fprintf(f, "%" PRIu64 " %" PRIu64 " %s %s\n", start, length, target,
                        params ? params : "");
        } while (next);
        if (fclose(f) != 0)
                return -ENOMEM;
        if (!buf)
                return -ENOMEM;
        *ret = TAKE_PTR(buf);
        return 0;
}

int dm_status_list_ioctl(void *userdata, DmListEntry **ret) {
        _cleanup_close_ int fd = -EBADF;
        size_t size = 16 * 1024;

        if (!ret)
                return -EINVAL;
        fd = open("/dev/mapper/control", O_RDWR | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return errno == ENOENT ? -ENODEV : -errno;
        for (int tries = 0; tries < 8; tries++, size *= 4) {
                _cleanup_free_ struct dm_ioctl *h = calloc(1, size);
                int r;

                if (!h)
                        return -ENOMEM;
                *h = (struct dm_ioctl){
                        .version = { DM_VERSION_MAJOR, 0, 0 },
                        .data_size = (uint32_t) size,
                        .data_start = sizeof(struct dm_ioctl),
                };
                if (ioctl(fd, DM_LIST_DEVICES, h) < 0)
                        return -errno;
                r = dm_list_parse(h, size, ret);
                if (r != -ENOBUFS)
                        return r;
        }
        return -ENOBUFS;
}

int dm_status_get_files(void *userdata, const DmDeviceId *id, DmQuery q, char **ret) {
        char path[256];
        const int *root_fd = userdata;
        char *s = NULL;
        size_t n;
        int r;

        if (!root_fd || *root_fd < 0 || !id || !dm_name_is_valid(id->name) || !ret)
                return -EINVAL;
        if (!dm_query_to_string(q))
                return -EINVAL;
        (void) snprintf(path, sizeof(path), "dm/%s.%s", id->name, dm_query_to_string(q));
        r = read_full_file_at(*root_fd, path, &s, &n);
        if (r < 0)
                return r;
        *ret = s;
        return 0;
}

/* The fixture's event counters: dm/events below the root, one "MAJOR:MINOR EVENT_NR" line per
 * device, written by a test where the kernel's DM_LIST_DEVICES reply would be. */
int dm_status_list_files(void *userdata, DmListEntry **ret) {
        _cleanup_free_ char *s = NULL;
        _cleanup_free_ DmListEntry *l = NULL;
        const int *root_fd = userdata;
        size_t n = 0, len;
        int r;

        if (!root_fd || *root_fd < 0 || !ret)
                return -EINVAL;
        r = read_full_file_at(*root_fd, "dm/events", &s, &len);
        if (r < 0)
                return r == -ENOENT ? -EOPNOTSUPP : r;
        for (char *p = s, *e; *p; p = *e ? e + 1 : e) {
                DmListEntry x;
                int used = 0;
                DmListEntry *a;

                e = strchrnul(p, '\n');
                if (e == p)
                        continue;
                if (sscanf(p, "%u:%u %" SCNu32 "%n", &x.major, &x.minor, &x.event_nr, &used) != 3 ||
                    p + used != e)
                        return -EBADMSG;
                a = realloc(l, (n + 1) * sizeof(*l));
                if (!a)
                        return -ENOMEM;
                l = a;
                l[n++] = x;
        }
        *ret = TAKE_PTR(l);
        return (int) n;
}

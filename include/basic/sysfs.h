/* SPDX-License-Identifier: MIT */
#pragma once

/* Small readers of sysfs-style attribute directories below an injected directory fd (a device
 * directory, an md/ directory, a fixture tree). They never block on a missing attribute: a
 * missing file is -ENOENT, an empty or malformed one -EINVAL/-ERANGE. Outputs are written only
 * on success. No logging. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* First line of dir_fd/attr with trailing whitespace removed, as a new string. */
int sysfs_read_string(int dir_fd, const char *attr, char **ret);

/* As sysfs_read_string(), but also strips leading blanks: for the kernel's space-padded SCSI
 * vendor/model/rev text ("Linux   " -> "Linux"). An all-blank value gives -ENODATA. */
int sysfs_read_stripped(int dir_fd, const char *attr, char **ret);

/* Unsigned decimal attribute (e.g. "size", "ro", "queue/logical_block_size"). */
int sysfs_read_u64(int dir_fd, const char *attr, uint64_t *ret);

/* 0/1 attribute; any non-zero number reads as true. */
int sysfs_read_bool(int dir_fd, const char *attr, bool *ret);

/* "MAJ:MIN" attribute ("dev"). */
int sysfs_read_devnum(int dir_fd, const char *attr, unsigned *ret_major, unsigned *ret_minor);

/* Names of the entries of dir_fd/subdir (e.g. "slaves", "holders"), without "." and "..",
 * sorted, as a NULL-terminated strv; *ret_n is the count. A missing directory gives an empty
 * list and 0 (a device without holders/ simply has none). */
int sysfs_list_dir(int dir_fd, const char *subdir, char ***ret, size_t *ret_n);

/* Free a NULL-terminated string vector; returns NULL. Accepts NULL. */
char **strv_free(char **l);
static inline void strv_freep(char ***l) {
        *l = strv_free(*l);
}
#define _cleanup_strv_free_ __attribute__((cleanup(strv_freep)))

/* Number of entries of a NULL-terminated vector (0 for NULL). */
size_t strv_length(char *const *l);

/* True if s is in the NULL-terminated vector l. */
bool strv_contains(char *const *l, const char *s);

/* Append a copy of s to *l (which may be NULL) unless it is already there. Returns 1 if added,
 * 0 if present, -ENOMEM. */
int strv_extend_unique(char ***l, const char *s);

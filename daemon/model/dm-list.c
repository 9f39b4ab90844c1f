/* SPDX-License-Identifier: MIT */
/* DM_LIST_DEVICES reply parser (contract in include/model/dm-list.h). The layout is the kernel's
 * (include/uapi/linux/dm-ioctl.h, drivers/md/dm-ioctl.c list_devices()): records of
 * { u64 dev; u32 next; char name[] }, next the offset of the following record from the start of
 * this one (0: the last); after the name's NUL, aligned to 8 bytes from the start of the ioctl
 * buffer, u32 event_nr and u32 flags (then a uuid when asked for, which we do not). A first
 * record with dev 0 means no device. dev is the kernel's huge_encode_dev(). */

#include <errno.h>
#include <linux/dm-ioctl.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macro.h"
#include "model/dm-list.h"

#define NAME_OFFSET offsetof(struct dm_name_list, name)

static size_t align8(size_t x) {
        return (x + 7) & ~(size_t) 7;
}

static uint64_t get_u64(const uint8_t *p) {
        uint64_t v;

        memcpy(&v, p, sizeof(v));
        return v;
}

static uint32_t get_u32(const uint8_t *p) {
        uint32_t v;

        memcpy(&v, p, sizeof(v));
        return v;
}

/* One record at off (< end): the entry and the offset of the next record (0: none). */
static int parse_record(const uint8_t *b, size_t off, size_t end, DmListEntry *e,
                        size_t *ret_next) {
        const uint8_t *nul;
        size_t limit, ev;
        uint64_t dev;
        uint32_t next;

        if (end - off < NAME_OFFSET + 1)
                return -EBADMSG;
        dev = get_u64(b + off);
        next = get_u32(b + off + offsetof(struct dm_name_list, next));
        if (next != 0 && (next < NAME_OFFSET + 1 || next > end - off))
                return -EBADMSG;
        limit = next != 0 ? off + next : end;
        nul = memchr(b + off + NAME_OFFSET, 0, limit - off - NAME_OFFSET);
        if (!nul)
                return -EBADMSG;
        ev = align8((size_t) (nul - b) + 1);
        if (ev > limit || limit - ev < 2 * sizeof(uint32_t))
                return -EBADMSG;
        *e = (DmListEntry){
                .major = (unsigned) ((dev & 0xfff00) >> 8),
                .minor = (unsigned) ((dev & 0xff) | ((dev >> 12) & 0xfff00)),
                .event_nr = get_u32(b + ev),
        };
        *ret_next = next != 0 ? off + next : 0;
        return 0;
}

int dm_list_parse(const void *buf, size_t size, DmListEntry **ret) {
        const uint8_t *b = buf;
        struct dm_ioctl h;
        DmListEntry *l = NULL;
        size_t n = 0, off, end;

        if (!buf || !ret)
                return -EINVAL;
        *ret = NULL;
        if (size < sizeof(h))
                return -EBADMSG;
        memcpy(&h, b, sizeof(h));
        if (h.version[0] != DM_VERSION_MAJOR)
                return -EBADMSG;
        if (h.version[1] < DM_LIST_EVENT_NR_MINOR)
                return -EOPNOTSUPP;
        if (h.flags & DM_BUFFER_FULL_FLAG)
                return -ENOBUFS;
        end = MIN((size_t) h.data_size, size);
        off = h.data_start;
        if (off < sizeof(h) || off % 8 != 0 || off > end)
                return -EBADMSG;
        if (end - off < sizeof(uint64_t) || get_u64(b + off) == 0)
                return 0; /* no device */
        do {
                DmListEntry e, *t;
                size_t next;
                int r = parse_record(b, off, end, &e, &next);

                if (r < 0) {
                        free(l);
                        return r;
                }
                t = reallocarray(l, n + 1, sizeof(*l));
                if (!t) {
                        free(l);
                        return -ENOMEM;
                }
                l = t;
                l[n++] = e;
                off = next;
        } while (off != 0);
        *ret = l;
        return (int) MIN(n, (size_t) INT32_MAX);
}

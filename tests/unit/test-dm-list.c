/* SPDX-License-Identifier: MIT */
/* The DM_LIST_DEVICES reply parser on buffers laid out as the kernel's list_devices() writes
 * them (drivers/md/dm-ioctl.c: records of dev, next, name, then at the next 8-byte boundary
 * event_nr and flags): event numbers and device numbers (minors above 255 too), no device, an
 * old driver, a full buffer, and every kind of malformed record. The live ioctl itself runs
 * against real device-mapper in the VM (tests/vm, live-differential-dm). */

#include <errno.h>
#include <linux/dm-ioctl.h>
#include <stdlib.h>
#include <string.h>

#include "model/dm-list.h"
#include "tap.h"

#define DATA_START sizeof(struct dm_ioctl)

static union {
        struct dm_ioctl h;
        unsigned char b[4096];
} buf;
static size_t end;  /* offset after the last record written */
static size_t last; /* offset of the last record, to chain its next */

static size_t align8(size_t x) {
        return (x + 7) & ~(size_t) 7;
}

static void reset(unsigned minor_version) {
        memset(&buf, 0, sizeof(buf));
        buf.h.version[0] = 4;
        buf.h.version[1] = minor_version;
        buf.h.data_start = DATA_START;
        end = DATA_START;
        last = 0;
}

/* Append a record as the kernel does: dev, next = 0, name, aligned event_nr, flags = 0. */
static void add(unsigned major, unsigned minor, const char *name, uint32_t event_nr) {
        struct dm_name_list *nl = (struct dm_name_list *) (buf.b + end);
        size_t ev;

        if (last)
                ((struct dm_name_list *) (buf.b + last))->next = (uint32_t) (end - last);
        nl->dev = (minor & 0xff) | ((uint64_t) major << 8) | ((uint64_t) (minor & ~0xffU) << 12);
        nl->next = 0;
        strcpy(nl->name, name);
        ev = align8(end + offsetof(struct dm_name_list, name) + strlen(name) + 1);
        memcpy(buf.b + ev, &event_nr, sizeof(event_nr));
        last = end;
        end = align8(ev + 8);
        buf.h.data_size = (uint32_t) end;
}

/* three devices (minor 300 too), and a name that ends at an 8-byte boundary */
static void test_devices(void) {
        DmListEntry *l = NULL;

        reset(47);
        add(253, 0, "vg0-pool-tpool", 3);
        add(253, 1, "vg0-lv", 0);
        add(253, 300, "mpatha", 4000000000U);
        is_int(dm_list_parse(&buf, sizeof(buf), &l), 3, "three devices");
        ok(l && l[0].major == 253 && l[0].minor == 0 && l[0].event_nr == 3, "first: 253:0 event 3");
        ok(l && l[1].major == 253 && l[1].minor == 1 && l[1].event_nr == 0,
           "second: 253:1 event 0");
        ok(l && l[2].minor == 300 && l[2].event_nr == 4000000000U,
           "third: minor 300 decoded from the high bits, event 4000000000");
        free(l);
        l = NULL;
        is_int(dm_list_parse(&buf, end, &l), 3, "the caller's size exactly the reply");
        free(l);
        l = NULL;

        /* a name of 7 characters ends exactly at an 8-byte boundary: event_nr right after */
        reset(47);
        add(254, 7, "abcdefg", 9);
        is_int(dm_list_parse(&buf, sizeof(buf), &l), 1, "one device");
        ok(l && l[0].major == 254 && l[0].minor == 7 && l[0].event_nr == 9, "254:7 event 9");
        free(l);
        l = NULL;
}

/* no device, and what is refused before any record is read: an old driver, a full buffer, a
 * major version this parser does not know */
static void test_no_device_and_refusals(DmListEntry **l) {
        reset(47);
        buf.h.data_size = DATA_START + 8; /* the kernel's dev = 0: no device */
        is_int(dm_list_parse(&buf, sizeof(buf), l), 0, "dev 0: no device");
        ok(*l == NULL, "no array for no device");

        reset(36);
        add(253, 0, "a", 1);
        is_int(dm_list_parse(&buf, sizeof(buf), l), -EOPNOTSUPP, "driver 4.36: no event numbers");
        reset(47);
        add(253, 0, "a", 1);
        buf.h.flags |= DM_BUFFER_FULL_FLAG;
        is_int(dm_list_parse(&buf, sizeof(buf), l), -ENOBUFS, "buffer full");
        reset(47);
        add(253, 0, "a", 1);
        buf.h.version[0] = 5;
        is_int(dm_list_parse(&buf, sizeof(buf), l), -EBADMSG, "major version 5");
}

/* malformed replies: the header, data_start, a name, event_nr or next out of bounds */
static void test_malformed(DmListEntry **l) {
        is_int(dm_list_parse(&buf, 10, l), -EBADMSG, "shorter than the header");
        reset(47);
        add(253, 0, "a", 1);
        buf.h.data_start = 8;
        is_int(dm_list_parse(&buf, sizeof(buf), l), -EBADMSG, "data_start inside the header");
        reset(47);
        add(253, 0, "a", 1);
        buf.h.data_start = DATA_START + 4;
        is_int(dm_list_parse(&buf, sizeof(buf), l), -EBADMSG, "data_start not aligned");
        reset(47);
        add(253, 0, "abc", 1);
        buf.h.data_size = (uint32_t) (DATA_START + 14); /* the name's NUL is cut off */
        is_int(dm_list_parse(&buf, sizeof(buf), l), -EBADMSG, "name not terminated in the data");
        reset(47);
        add(253, 0, "abc", 1);
        buf.h.data_size = (uint32_t) (end - 4); /* event_nr cut off */
        is_int(dm_list_parse(&buf, sizeof(buf), l), -EBADMSG, "event_nr cut off");
        reset(47);
        add(253, 0, "abc", 1);
        is_int(dm_list_parse(&buf, end - 4, l), -EBADMSG, "event_nr beyond the caller's size");
        reset(47);
        add(253, 0, "abc", 1);
        add(253, 1, "def", 1);
        ((struct dm_name_list *) (buf.b + DATA_START))->next = 4096;
        is_int(dm_list_parse(&buf, sizeof(buf), l), -EBADMSG, "next beyond the data");
        ((struct dm_name_list *) (buf.b + DATA_START))->next = 8;
        is_int(dm_list_parse(&buf, sizeof(buf), l), -EBADMSG, "next inside the record");
        ((struct dm_name_list *) (buf.b + DATA_START))->next = 16;
        is_int(dm_list_parse(&buf, sizeof(buf), l), -EBADMSG,
               "next leaves no room for event_nr after the name");
        reset(47);
        add(253, 0, "abc", 1);
        memset(buf.b + DATA_START + offsetof(struct dm_name_list, name), 'x',
               end - DATA_START - offsetof(struct dm_name_list, name));
        is_int(dm_list_parse(&buf, sizeof(buf), l), -EBADMSG, "name runs to the end");
}

int main(void) {
        DmListEntry *l = NULL;

        test_devices();
        test_no_device_and_refusals(&l);
        test_malformed(&l);
        ok(l == NULL, "nothing returned on errors");
        is_int(dm_list_parse(NULL, 10, &l), -EINVAL, "NULL buffer");
        is_int(dm_list_parse(&buf, sizeof(buf), NULL), -EINVAL, "NULL result");
        return tap_done();
}

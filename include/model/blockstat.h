/* SPDX-License-Identifier: MIT */
#pragma once

/* /sys/block/X/stat (Documentation/block/stat.rst): one line of 11 (before 4.18), 15 (4.18+,
 * discards) or 17 (5.5+, flushes) unsigned decimal fields. blockstat_parse() turns the text into a
 * BlockStat; blockstat_delta() turns two samples and the time between them into rates, utilisation
 * and average latencies. Both are pure: the caller reads the file and the clock.
 *
 * Counter widths (block/genhd.c part_stat_show()): the I/O, merge and sector counters are unsigned
 * long (64 bit here), the millisecond time counters are printed as unsigned int and therefore wrap
 * at 2^32 ms (~49.7 days). blockstat_delta() treats a time counter that went backwards while the
 * I/O counters did not as one 32-bit wrap; any I/O or sector counter going backwards means the
 * device was re-created or its counters reset, and gives -ESTALE (no negative rates, ever). */

#include <stdint.h>

#include "basic/time-util.h" /* usec_t */

typedef struct BlockStat {
        uint64_t read_ios, read_merges, read_sectors, read_ticks_ms;
        uint64_t write_ios, write_merges, write_sectors, write_ticks_ms;
        uint64_t in_flight; /* a gauge, not a counter */
        uint64_t io_ticks_ms;
        uint64_t time_in_queue_ms;
        uint64_t discard_ios, discard_merges, discard_sectors,
                discard_ticks_ms;           /* 0 if n_fields < 15 */
        uint64_t flush_ios, flush_ticks_ms; /* 0 if n_fields < 17 */
        unsigned n_fields;                  /* 11, 15 or 17 */
} BlockStat;

typedef struct BlockStatDelta {
        double read_iops, write_iops, discard_iops, flush_iops; /* completed per second */
        double read_bytes_per_sec, write_bytes_per_sec;         /* sectors are 512 bytes */
        double utilization;     /* io_ticks delta / elapsed, clamped to 0..1 */
        double avg_queue_depth; /* time_in_queue delta / elapsed ("aqu-sz") */
        double read_await_ms;   /* read_ticks delta / read_ios delta; NaN when no reads completed */
        double write_await_ms;  /* likewise for writes */
        uint64_t in_flight;     /* from cur */
} BlockStatDelta;

/* Parse the text of a stat file. Accepts 11, 15 or 17 fields (more than 17: the first 17 are used,
 * for kernels that add fields). -EINVAL for fewer than 11 fields, non-numbers or other counts
 * (12..14, 16); -ERANGE for a number beyond 64 bits. Outputs written only on success. */
int blockstat_parse(const char *s, BlockStat *ret);

/* Rates over the interval from prev to cur, elapsed_usec apart (CLOCK_MONOTONIC difference
 * measured by the caller). Fields present in only one sample give 0 rates. -EINVAL if elapsed_usec
 * is 0; -ESTALE if a monotonic I/O or sector counter went backwards (device re-created or
 * counters reset: take cur as the new baseline). */
int blockstat_delta(const BlockStat *prev, const BlockStat *cur, usec_t elapsed_usec,
                    BlockStatDelta *ret);

/* SPDX-License-Identifier: MIT */
#pragma once

/* A state file written off the event loop. The loop serializes the state (cheap, in memory) and
 * hands the text over; a worker thread writes, fsyncs and renames it (write_file_atomic_at()) and
 * signals completion through an eventfd that the loop watches. At most one write is in flight per
 * file; text submitted meanwhile waits, and newer text replaces older waiting text (the latest
 * wins, nothing older is ever written after it). A state directory on a dying disk then delays
 * only the file, never the loop. */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "basic/macro.h"
#include "basic/time-util.h"

typedef struct StateWriter StateWriter;

/* Called on the loop when a write ended: r is 0 or the write's -errno. */
typedef void (*StateWriterDone)(StateWriter *w, int r, void *userdata);

/* A writer of `file` (a name in the directory dir_fd, which is duplicated). done may be NULL.
 * Returns 0 or -errno. */
int state_writer_new(sd_event *e, int dir_fd, const char *file, StateWriterDone done,
                     void *userdata, StateWriter **ret);

/* Write `text` (taken over, freed by the writer in every case) as soon as the write in flight,
 * if any, is done. Returns 0 or -errno (no memory, no thread). */
int state_writer_submit(StateWriter *w, char *text);

/* A write in flight or waiting. */
bool state_writer_busy(const StateWriter *w);

/* Waits (blocking, for the exit path once the loop has stopped) until every submitted text is
 * written or timeout_usec passed. Returns 0 when done, -ETIMEDOUT otherwise. */
int state_writer_flush(StateWriter *w, usec_t timeout_usec);

/* Frees w. A write still in flight is abandoned (its thread detached: a kill at this moment is
 * what write_file_atomic_at() is built for; the temp file is removed at the next start). */
StateWriter *state_writer_free(StateWriter *w);
DEFINE_TRIVIAL_CLEANUP_FUNC(StateWriter *, state_writer_free);

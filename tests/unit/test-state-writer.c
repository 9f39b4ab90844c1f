/* SPDX-License-Identifier: MIT */
/* manager/state-writer: a state file written off the event loop. A write that cannot finish is
 * made real, not simulated: a FIFO sits where write_file_atomic_at() creates its temp file, so the
 * worker's open() blocks in the kernel until the test opens the reading end (as a write to a
 * hung disk blocks until the disk answers). Meanwhile the loop must keep serving a timer, text
 * submitted in between must wait and only the latest be written, and a bounded flush must give
 * up. Expectations are the texts the test itself submitted. */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "manager/state-writer.h"
#include "tap.h"

typedef struct Ctx {
        int n_done, last_r, n_ticks;
} Ctx;

static void on_done(StateWriter *w, int r, void *userdata) {
        Ctx *c = userdata;

        c->n_done++;
        c->last_r = r;
}

static int on_tick(sd_event_source *s, uint64_t usec, void *userdata) {
        ((Ctx *) userdata)->n_ticks++;
        return sd_event_exit(sd_event_source_get_event(s), 0);
}

/* Runs the loop until `until` reports done or 30 s pass (a bound for a hung test, not a speed). */
static void run_until(sd_event *e, Ctx *c, int n_done) {
        for (int i = 0; i < 3000 && c->n_done < n_done; i++)
                (void) sd_event_run(e, 10 * USEC_PER_MSEC);
}

static char *file_text(int dir_fd, const char *name) {
        char *t = NULL;

        return read_full_file_at(dir_fd, name, &t, NULL) < 0 ? NULL : t;
}

int main(void) {
        char dir[] = "/tmp/test-state-writer-XXXXXX", tmp[64];
        _cleanup_(state_writer_freep) StateWriter *w = NULL;
        sd_event *e = NULL;
        sd_event_source *t = NULL;
        Ctx c = {};
        int dir_fd, rfd;
        char *got;

        if (!mkdtemp(dir) || sd_event_new(&e) < 0)
                return ok(0, "setup"), tap_done();
        dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        is_int(state_writer_new(e, dir_fd, "probes.json", on_done, &c, &w), 0, "new");

        /* an ordinary write */
        is_int(state_writer_submit(w, strdup("one")), 0, "submit");
        ok(state_writer_busy(w), "busy while in flight");
        run_until(e, &c, 1);
        is_int(c.last_r, 0, "written");
        got = file_text(dir_fd, "probes.json");
        is_str(got, "one", "the file holds the text");
        free(got);
        ok(!state_writer_busy(w), "idle again");

        /* a write stuck in the kernel: the loop goes on */
        (void) snprintf(tmp, sizeof(tmp), "probes.json.tmp.%d", (int) getpid());
        ok(mkfifoat(dir_fd, tmp, 0600) == 0, "a FIFO where the temp file goes");
        is_int(state_writer_submit(w, strdup("two")), 0, "submit the stuck one");
        is_int(state_writer_submit(w, strdup("three")), 0, "submit while it is stuck");
        is_int(state_writer_submit(w, strdup("four")), 0, "and again: replaces three");
        (void) sd_event_add_time_relative(e, &t, CLOCK_MONOTONIC, 50 * USEC_PER_MSEC, 0, on_tick,
                                          &c);
        (void) sd_event_loop(e);
        is_int(c.n_ticks, 1, "a timer fired while the write is stuck");
        is_int(c.n_done, 1, "the stuck write has not completed");
        ok(state_writer_busy(w), "still busy");
        is_int(state_writer_flush(w, 100 * USEC_PER_MSEC), -ETIMEDOUT, "a bounded flush gives up");
        got = file_text(dir_fd, "probes.json");
        is_str(got, "one", "the old file is intact meanwhile");
        free(got);

        /* the disk answers: the stuck write ends (a FIFO cannot be fsynced), then the latest */
        rfd = openat(dir_fd, tmp, O_RDONLY | O_CLOEXEC);
        ok(rfd >= 0, "open the reading end");
        is_int(state_writer_flush(w, 30 * USEC_PER_SEC), 0, "flush completes");
        is_int(c.n_done, 3, "two more completions: the stuck one and the latest");
        is_int(c.last_r, 0, "the latest written");
        got = file_text(dir_fd, "probes.json");
        is_str(got, "four", "the latest text wins, three never written");
        free(got);
        if (rfd >= 0)
                close(rfd);

        /* the exit path: the loop has finished (sd_event_add_io() refuses it with -ESTALE), and
         * the daemon's last save makes a new writer there; the flush alone reaps it */
        w = state_writer_free(w);
        is_int(sd_event_get_state(e), SD_EVENT_FINISHED, "the loop has finished");
        is_int(state_writer_new(e, dir_fd, "probes.json", on_done, &c, &w), 0,
               "a writer on the finished loop");
        is_int(w ? state_writer_submit(w, strdup("five")) : -EINVAL, 0, "the last save submitted");
        is_int(state_writer_flush(w, 30 * USEC_PER_SEC), 0, "flushed");
        got = file_text(dir_fd, "probes.json");
        is_str(got, "five", "the last save written");
        free(got);

        w = state_writer_free(w);
        (void) unlinkat(dir_fd, tmp, 0);
        (void) unlinkat(dir_fd, "probes.json", 0);
        close(dir_fd);
        (void) rmdir(dir);
        sd_event_source_unref(t);
        sd_event_unref(e);
        return tap_done();
}

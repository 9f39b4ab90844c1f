/* SPDX-License-Identifier: MIT */
/* State files written by a worker thread (state-writer.h). One job at a time per file: the job
 * holds its own copies of everything it touches (a dup of the directory fd and of the eventfd, the
 * name, the text), so the loop never shares memory with a running thread, and a job abandoned at
 * exit stays valid until the process ends. The thread does write_file_atomic_at() and one write to
 * the eventfd; the loop reads the eventfd, joins the thread, reports and starts the waiting text,
 * if any. */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/macro.h"
#include "manager/state-writer.h"

typedef struct Job {
        int dir_fd, efd; /* dups, closed with the job */
        char *file, *text;
        int result;
} Job;

struct StateWriter {
        sd_event_source *io;
        int dir_fd, efd;
        char *file;
        StateWriterDone done;
        void *userdata;
        Job *job; /* in flight, NULL when idle */
        pthread_t thread;
        char *waiting; /* the latest text submitted while a job runs */
};

static Job *job_free(Job *j) {
        if (!j)
                return NULL;
        safe_close(j->dir_fd);
        safe_close(j->efd);
        free(j->file);
        free(j->text);
        free(j);
        return NULL;
}

static void *job_run(void *userdata) {
        Job *j = userdata;
        uint64_t one = 1;

        j->result = write_file_atomic_at(j->dir_fd, j->file, j->text, strlen(j->text));
        (void) !write(j->efd, &one, sizeof(one));
        return NULL;
}

static int job_start(StateWriter *w, char *text) {
        Job *j = calloc(1, sizeof(*j));
        int r;

        if (!j) {
                free(text);
                return -ENOMEM;
        }
        j->text = text;
        j->dir_fd = fcntl(w->dir_fd, F_DUPFD_CLOEXEC, 3);
        j->efd = fcntl(w->efd, F_DUPFD_CLOEXEC, 3);
        j->file = strdup(w->file);
        if (j->dir_fd < 0 || j->efd < 0 || !j->file) {
                r = j->file ? -errno : -ENOMEM;
                job_free(j);
                return r;
        }
        r = -pthread_create(&w->thread, NULL, job_run, j);
        if (r < 0) {
                job_free(j);
                return r;
        }
        w->job = j;
        return 0;
}

/* The job in flight has signalled: join it, report, start the waiting text. */
static void job_reap(StateWriter *w) {
        uint64_t n;
        int r;

        (void) !read(w->efd, &n, sizeof(n));
        if (!w->job)
                return;
        (void) pthread_join(w->thread, NULL);
        r = w->job->result;
        w->job = job_free(w->job);
        if (w->waiting) {
                int q = job_start(w, TAKE_PTR(w->waiting));

                if (q < 0 && w->done)
                        w->done(w, q, w->userdata);
        }
        if (w->done)
                w->done(w, r, w->userdata);
}

static int on_done(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        job_reap(userdata);
        return 0;
}

int state_writer_new(sd_event *e, int dir_fd, const char *file, StateWriterDone done,
                     void *userdata, StateWriter **ret) {
        _cleanup_(state_writer_freep) StateWriter *w = calloc(1, sizeof(StateWriter));
        int r;

        if (!w)
                return -ENOMEM;
        w->dir_fd = w->efd = -EBADF;
        w->done = done;
        w->userdata = userdata;
        w->file = strdup(file);
        if (!w->file)
                return -ENOMEM;
        w->dir_fd = fcntl(dir_fd, F_DUPFD_CLOEXEC, 3);
        if (w->dir_fd < 0)
                return -errno;
        w->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (w->efd < 0)
                return -errno;
        /* A loop that has finished (the exit path's last save) refuses new sources with -ESTALE,
         * which lost that save: there the completion is reaped by state_writer_flush() alone. */
        if (sd_event_get_state(e) != SD_EVENT_FINISHED) {
                r = sd_event_add_io(e, &w->io, w->efd, EPOLLIN, on_done, w);
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(w);
        return 0;
}

int state_writer_submit(StateWriter *w, char *text) {
        if (!text)
                return -ENOMEM;
        if (w->job) {
                free(w->waiting); /* older than text: never written now */
                w->waiting = text;
                return 0;
        }
        return job_start(w, text);
}

bool state_writer_busy(const StateWriter *w) {
        return w && (w->job || w->waiting);
}

int state_writer_flush(StateWriter *w, usec_t timeout_usec) {
        usec_t t0 = now(CLOCK_MONOTONIC);
        usec_t deadline = timeout_usec > USEC_INFINITY - t0 ? USEC_INFINITY : t0 + timeout_usec;

        while (w && w->job) {
                struct pollfd pfd = { .fd = w->efd, .events = POLLIN };
                usec_t t = now(CLOCK_MONOTONIC);
                int ms;

                if (t >= deadline)
                        return -ETIMEDOUT;
                ms = (int) MIN((deadline - t + USEC_PER_MSEC - 1) / USEC_PER_MSEC, 60000ULL);
                if (poll(&pfd, 1, ms) < 0 && errno != EINTR)
                        return -errno;
                if (pfd.revents & POLLIN)
                        job_reap(w);
        }
        return 0;
}

StateWriter *state_writer_free(StateWriter *w) {
        if (!w)
                return NULL;
        if (w->job)
                (void) pthread_detach(w->thread); /* its Job stays: the thread still uses it */
        w->io = sd_event_source_disable_unref(w->io);
        safe_close(w->efd);
        safe_close(w->dir_fd);
        free(w->waiting);
        free(w->file);
        free(w);
        return NULL;
}

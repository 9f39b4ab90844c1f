/* SPDX-License-Identifier: MIT */
/* The baseline store on a real directory: save and load (restart), a missing file is an empty
 * set, a corrupt file is moved aside, a newer version is left alone, stale temp files go, and
 * kill -9 at any moment: a child saves state A and B alternately as fast as it can and is
 * SIGKILLed after a random delay, 150 times; each time the file parses to A or B (or the
 * initial state), never to anything torn. */

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "analysis/baseline-file.h"
#include "basic/fileio.h"
#include "core/baseline-store.h"
#include "tap.h"

static BaselineSet *make_state(unsigned tag, unsigned entries) {
        BaselineSet *s = NULL;

        if (baseline_set_new(&s) < 0)
                abort();
        for (unsigned i = 0; i < entries; i++) {
                char id[64];
                Baseline *b;

                snprintf(id, sizeof(id), "serial:DISK%04u", i);
                if (baseline_set_get(s, id, "sdx", 64, tag, &b) < 0)
                        abort();
                b->generation = tag;
                for (int k = 0; k < 64; k++) {
                        BaselineSample x;

                        baseline_sample_init(&x);
                        for (int m = 0; m < _BASELINE_METRIC_MAX; m++)
                                x.v[m] = tag * 1000.0 + k + m / 10.0;
                        (void) baseline_learn(b, &x, 0, 8, tag);
                }
        }
        return s;
}

/* The generation of the first entry: the tag of a complete state (all entries agree). */
static int state_tag(const BaselineSet *s) {
        if (s->n == 0)
                return -1;
        for (size_t i = 1; i < s->n; i++)
                if (s->items[i].generation != s->items[0].generation)
                        return -2;
        return (int) s->items[0].generation;
}

static void test_basic(int dfd) {
        _cleanup_(baseline_set_freep) BaselineSet *a = make_state(7, 3), *b = NULL;
        int fd;

        is_int(baseline_store_load(dfd, BASELINE_STORE_FILE, &b), 0, "missing file loads");
        is_int(b->n, 0, "as an empty set");
        b = baseline_set_free(b);
        is_int(baseline_store_save(dfd, BASELINE_STORE_FILE, a), 0, "save");
        is_int(baseline_store_load(dfd, BASELINE_STORE_FILE, &b), 0, "load (restart)");
        is_int(b->n, 3, "three entries");
        is_int(state_tag(b), 7, "same state");
        b = baseline_set_free(b);

        /* A stale temp file of a killed save is removed on load. */
        fd = openat(dfd, BASELINE_STORE_FILE ".tmp.99999", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        ok(fd >= 0, "stale temp created");
        close(fd);
        is_int(baseline_store_load(dfd, BASELINE_STORE_FILE, &b), 0, "load");
        ok(faccessat(dfd, BASELINE_STORE_FILE ".tmp.99999", F_OK, 0) < 0, "stale temp removed");
        b = baseline_set_free(b);

        /* Corrupt: moved aside, reported. */
        is_int(write_file_atomic_at(dfd, BASELINE_STORE_FILE, "{\"format\":", 10), 0, "corrupt");
        is_int(baseline_store_load(dfd, BASELINE_STORE_FILE, &b), -EBADMSG, "corrupt refused");
        ok(faccessat(dfd, BASELINE_STORE_FILE ".corrupt", F_OK, 0) == 0, "kept aside");
        ok(faccessat(dfd, BASELINE_STORE_FILE, F_OK, 0) < 0, "and out of the way");

        /* Another version: left alone (a downgrade must not eat it). */
        const char *v2 = "{\"format\":\"storpulse-baselines\",\"version\":2,\"baselines\":[]}";
        is_int(write_file_atomic_at(dfd, BASELINE_STORE_FILE, v2, strlen(v2)), 0, "v2 file");
        is_int(baseline_store_load(dfd, BASELINE_STORE_FILE, &b), -EPROTONOSUPPORT, "v2 refused");
        ok(faccessat(dfd, BASELINE_STORE_FILE, F_OK, 0) == 0, "v2 file left in place");
        (void) unlinkat(dfd, BASELINE_STORE_FILE, 0);
}

static void test_kill9(int dfd) {
        _cleanup_(baseline_set_freep) BaselineSet *a = make_state(1, 10), *b = make_state(2, 10);
        unsigned seen[3] = {}, torn = 0;
        struct timespec ts;

        ok(baseline_store_save(dfd, BASELINE_STORE_FILE, a) == 0, "initial state A");
        clock_gettime(CLOCK_MONOTONIC, &ts);
        srand((unsigned) ts.tv_nsec);
        for (int i = 0; i < 150; i++) {
                BaselineSet *got = NULL;
                pid_t pid = fork();
                int r, status;

                if (pid == 0) {
                        for (unsigned k = 0;; k++)
                                (void) baseline_store_save(dfd, BASELINE_STORE_FILE, k % 2 ? a : b);
                }
                ok(pid > 0, "fork %d", i);
                if (pid < 0)
                        break;
                usleep((useconds_t) (rand() % 30000));
                kill(pid, SIGKILL);
                (void) waitpid(pid, &status, 0);
                r = baseline_store_load(dfd, BASELINE_STORE_FILE, &got);
                if (r < 0) {
                        torn++;
                        ok(false, "kill %d: load failed %d", i, r);
                        continue;
                }
                r = state_tag(got);
                if (r == 1 || r == 2)
                        seen[r]++;
                else
                        torn++;
                baseline_set_free(got);
        }
        is_int(torn, 0, "never a torn or mixed state");
        tap_diag("old/new state after kill: A %u, B %u", seen[1], seen[2]);
        ok(seen[1] + seen[2] == 150, "every load found A or B");
}

int main(void) {
        char tmpl[] = "/tmp/test-baseline-store.XXXXXX";
        int dfd;

        ok(mkdtemp(tmpl) != NULL, "temp dir");
        dfd = open(tmpl, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        ok(dfd >= 0, "open dir");
        test_basic(dfd);
        test_kill9(dfd);
        /* Clean up: the file, temps of the last killed save, the dir. */
        BaselineSet *s = NULL;
        (void) baseline_store_load(dfd, BASELINE_STORE_FILE, &s);
        baseline_set_free(s);
        (void) unlinkat(dfd, BASELINE_STORE_FILE, 0);
        (void) unlinkat(dfd, BASELINE_STORE_FILE ".corrupt", 0);
        close(dfd);
        ok(rmdir(tmpl) == 0, "temp dir removed");
        return tap_done();
}

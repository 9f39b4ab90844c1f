/* SPDX-License-Identifier: MIT */
/* vm-process-stuck DEVICE N RESUME-COMMAND...: basic/process against children in real
 * uninterruptible sleep, for the VM test bed (scenario process-dm-stuck). DEVICE is a suspended
 * dm device: N children each read it with O_DIRECT (dd iflag=direct), which blocks in the kernel
 * until the device is resumed. They are SIGKILLed through the reaper, must stay tracked (they
 * cannot die), be listed, and be collected once RESUME-COMMAND (run through the same module)
 * has resumed the device. Prints TAP; exit status 0 when every check passed. No duration is
 * asserted; every wait is bounded. */

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/parse-util.h"
#include "basic/process.h"

static unsigned n_checks, n_failed;

static void check(bool cond, const char *what) {
        n_checks++;
        n_failed += !cond;
        printf("%sok %u - %s\n", cond ? "" : "not ", n_checks, what);
        fflush(stdout);
}

static char proc_state(pid_t pid) {
        char p[64], buf[512], *c;
        ssize_t n;
        int fd;

        (void) snprintf(p, sizeof(p), "/proc/%d/stat", (int) pid);
        fd = open(p, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return '-';
        n = read(fd, buf, sizeof(buf) - 1);
        (void) close(fd);
        if (n <= 0)
                return '-';
        buf[n] = 0;
        c = strrchr(buf, ')');
        return c && c[1] == ' ' ? c[2] : '?';
}

static unsigned n_reaped, n_sigkill;

static void on_reaped(pid_t pid, const ProcessExit *e, usec_t tracked_usec, void *userdata) {
        n_reaped++;
        n_sigkill += e->code == CLD_KILLED && e->status == SIGKILL;
        printf("# reaped pid %d after %.1f s: %s %d\n", (int) pid, (double) tracked_usec / 1e6,
               e->code == CLD_EXITED ? "exit" : "signal", e->status);
}

int main(int argc, char *argv[]) {
        _cleanup_(process_reaper_freep) ProcessReaper *r = NULL;
        _cleanup_free_ ProcessReaperEntry *l = NULL;
        _cleanup_(process_freep) Process *resume = NULL;
        char *const env[] = { (char *) "PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL };
        char ifarg[512];
        Process **procs;
        ProcessExit e = {};
        unsigned n = 0, in_d = 0;
        uint64_t want;
        usec_t deadline;
        int k;

        if (argc < 4 || safe_atou64(argv[2], &want) < 0 || want == 0 || want > 1000) {
                fprintf(stderr, "usage: vm-process-stuck DEVICE N RESUME-COMMAND...\n");
                return 2;
        }
        procs = calloc(want, sizeof(*procs));
        if (!procs || process_reaper_new(on_reaped, NULL, &r) < 0)
                return 2;
        (void) snprintf(ifarg, sizeof(ifarg), "if=%s", argv[1]);
        for (; n < want; n++) {
                char *dd[] = { (char *) "dd",
                               ifarg,
                               (char *) "of=/dev/null",
                               (char *) "bs=4096",
                               (char *) "count=1",
                               (char *) "iflag=direct",
                               NULL };

                if (process_spawn("/bin/dd", dd, env, NULL, 0, 0, &procs[n]) < 0)
                        break;
        }
        check(n == want, "readers of the suspended device spawned");

        /* Bounded: a reader that does not block would exit instead. */
        deadline = now(CLOCK_MONOTONIC) + 60 * USEC_PER_SEC;
        do {
                in_d = 0;
                for (unsigned i = 0; i < n; i++)
                        in_d += proc_state(process_pid(procs[i])) == 'D';
                if (in_d < n)
                        (void) usleep(50000);
        } while (in_d < n && now(CLOCK_MONOTONIC) < deadline);
        printf("# %u of %u readers in D state\n", in_d, n);
        check(in_d == n, "every reader is in uninterruptible sleep (D)");

        k = 0;
        for (unsigned i = 0; i < n; i++)
                k += process_reaper_adopt(r, procs[i], 0) == 0;
        free(procs);
        check((unsigned) k == n, "all SIGKILLed and handed to the reaper");
        check(process_reaper_settle(r, now(CLOCK_MONOTONIC) + 3 * USEC_PER_SEC) == n,
              "a bounded settle returns with all of them still stuck (no hang)");
        k = process_reaper_list(r, now(CLOCK_MONOTONIC), &l);
        check(k == (int) n, "all listed as tracked");
        in_d = 0;
        for (int i = 0; i < k; i++) {
                in_d += l[i].killed && proc_state(l[i].pid) == 'D';
                if (i < 3)
                        printf("# tracked pid %d, killed %.1f s ago, state %c\n", (int) l[i].pid,
                               (double) l[i].killed_usec / 1e6, proc_state(l[i].pid));
        }
        check(in_d == n, "each killed and still in D state: SIGKILL cannot end a sleep in I/O");
        check(n_reaped == 0, "none reported reaped while the device is suspended");

        /* Release them: the resume command runs through the same module, bounded. */
        k = process_spawn(argv[3], argv + 3, env, NULL, 0, 0, &resume);
        check(k >= 0 && process_wait(resume, now(CLOCK_MONOTONIC) + 60 * USEC_PER_SEC, &e) == 1 &&
                      process_exit_ok(&e),
              "resume command ran and succeeded");
        check(process_reaper_settle(r, now(CLOCK_MONOTONIC) + 120 * USEC_PER_SEC) == 0,
              "all collected once the device was resumed");
        check(n_reaped == n, "all reported reaped");
        check(n_sigkill == n, "all died of the SIGKILL sent while they were stuck");
        printf("1..%u\n", n_checks);
        return n_failed > 0;
}

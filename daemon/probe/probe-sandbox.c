/* SPDX-License-Identifier: MIT */
/* The probe helper's sandbox. The helper is spawned by a root daemon (or a root CLI) and needs
 * its privileges for one thing: opening the target (a root-owned block node; the device-mapper
 * ioctl the daemon holds CAP_SYS_ADMIN for is never made here; a write probe's scratch file).
 * Everything after that - libaio reads (or a write probe's writes and fdatasync) on the open fd,
 * frames on its socket, its clocks - needs none, so before the first read the helper gives up what
 * a bug in the read path or a hostile device could otherwise use:
 *
 * - capabilities: the ambient set is cleared, the bounding set emptied (needs CAP_SETPCAP: a
 *   helper that lacks it, e.g. under the shipped unit whose bounding set is CAP_SYS_ADMIN alone,
 *   keeps the bounding set, which no_new_privs and the missing execve() make unreachable), then
 *   capset() clears effective, permitted and inheritable. The uid stays 0: with no capability,
 *   no open() and no kill(), uid 0 reaches nothing, while a shared unprivileged uid such as
 *   nobody would let every other process of that uid signal the helper.
 * - no_new_privs, which seccomp requires of a process without CAP_SYS_ADMIN anyway.
 * - a seccomp allow-list written as raw BPF (no libseccomp dependency for forty instructions).
 *   Every syscall not listed, and every syscall of another ABI (i386 int 0x80 or x32 on x86_64,
 *   arm32 on aarch64), kills the process with SIGSYS (SECCOMP_RET_KILL_PROCESS) rather than
 *   failing with EPERM: a forbidden call after the drop is a bug or an exploit, never a case the
 *   probe can handle, and EPERM would send glibc down fallback paths that hide it. The parent
 *   sees a child that died without a result; the kernel's audit log names the syscall.
 *   mmap() and mprotect() are allowed only without PROT_EXEC.
 * In an ASan build the leak check runs just before the filter, not at exit (see below). */

#include <errno.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "basic/macro.h"
#include "probe/probe-sandbox.h"

#if defined(__SANITIZE_ADDRESS__)
#define SANDBOX_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANDBOX_LSAN 1
#endif
#endif
#ifdef SANDBOX_LSAN
#include <sanitizer/lsan_interface.h>
#endif

#if defined(__x86_64__)
#define SANDBOX_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SANDBOX_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

static int drop_capabilities(void) {
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = {};

        /* EINVAL: a kernel without ambient capabilities (< 4.3) has none to clear. */
        if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
                return -errno;
        for (unsigned long cap = 0;; cap++) {
                int k = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);

                if (k < 0)
                        break; /* EINVAL: past the kernel's last capability */
                if (k > 0 && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno != EPERM)
                        return -errno;
        }
        return RET_NERRNO(syscall(SYS_capset, &h, d));
}

#ifdef SANDBOX_AUDIT_ARCH

#define LOAD(field) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
#define RET(action) BPF_STMT(BPF_RET | BPF_K, (action))
#define ALLOW(nr)   BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), RET(SECCOMP_RET_ALLOW)
/* Allowed when args[2] (prot) lacks PROT_EXEC. The low 32 bits of an argument sit at its offset
 * on both little-endian architectures here; prot is an int. */
#define ALLOW_NO_EXEC(nr)                                                                          \
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 4), LOAD(args[2]),                            \
                BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, PROT_EXEC, 0, 1),                             \
                RET(SECCOMP_RET_KILL_PROCESS), RET(SECCOMP_RET_ALLOW)

static const struct sock_filter filter[] = {
        LOAD(arch),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SANDBOX_AUDIT_ARCH, 1, 0),
        RET(SECCOMP_RET_KILL_PROCESS),
        LOAD(nr),
#ifdef __x86_64__
        /* x32 syscalls carry AUDIT_ARCH_X86_64 too: refuse them by their number. */
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000U /* __X32_SYSCALL_BIT */, 0, 1),
        RET(SECCOMP_RET_KILL_PROCESS),
#endif
        /* the probe: libaio, the clocks, CPU time, the SIGALRM deadline */
        ALLOW(__NR_io_setup),
        ALLOW(__NR_io_destroy),
        ALLOW(__NR_io_submit),
        ALLOW(__NR_io_getevents),
#ifdef __NR_io_pgetevents
        ALLOW(__NR_io_pgetevents),
#endif
        ALLOW(__NR_clock_gettime),
        ALLOW(__NR_clock_getres),
        ALLOW(__NR_gettimeofday),
        ALLOW(__NR_getrusage),
        ALLOW(__NR_rt_sigreturn),
        ALLOW(__NR_restart_syscall),
        /* fds already open: the socket (frames, the parent's EOF), stderr, schedstat */
        ALLOW(__NR_read),
        ALLOW(__NR_pread64),
        ALLOW(__NR_write),
        ALLOW(__NR_writev),
        ALLOW(__NR_sendto),
        ALLOW(__NR_close),
        /* the write probe's write_sync phase, on its scratch file */
        ALLOW(__NR_fdatasync),
        /* malloc and the probe's buffer */
        ALLOW(__NR_brk),
        ALLOW(__NR_munmap),
        ALLOW(__NR_mremap),
        ALLOW(__NR_madvise),
        ALLOW(__NR_futex),
        ALLOW_NO_EXEC(__NR_mmap),
        ALLOW_NO_EXEC(__NR_mprotect),
        ALLOW(__NR_exit),
        ALLOW(__NR_exit_group),
        RET(SECCOMP_RET_KILL_PROCESS),
};

static int install_filter(void) {
        struct sock_fprog prog = {
                .len = (unsigned short) ELEMENTSOF(filter),
                .filter = (struct sock_filter *) filter,
        };

        /* prctl(), not seccomp(2): systemd's @system-service set has prctl but not seccomp. */
        return RET_NERRNO(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0));
}
#endif

int probe_sandbox_enter(bool *ret_filtered) {
        bool filtered = false;
        int r;

        r = drop_capabilities();
        if (r < 0)
                return r;
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                return -errno;
#ifdef SANDBOX_LSAN
        /* An ASan build (CI): LeakSanitizer's exit-time check needs clone, ptrace and /proc,
         * which the filter forbids; run it now instead (it then does not run at exit). What the
         * probe itself allocates is leak-checked in-process by test-probe-engine-aio. */
        __lsan_do_leak_check();
#endif
#ifdef SANDBOX_AUDIT_ARCH
        r = install_filter();
        if (r < 0)
                return r;
        filtered = true;
#endif
        if (ret_filtered)
                *ret_filtered = filtered;
        return 0;
}

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Record the kernel's sysfs notifications of one md array (the reference clock of
bench/event-latency): every EPOLLPRI wake-up of md/{array_state,degraded,sync_action,
sync_completed} and md/dev-*/state, one line `REALTIME ATTR VALUE` on stdout, flushed at once.
Kernfs semantics: read from offset 0 re-arms the notification (as daemon/sources/md-watch.c)."""
import os, select, sys, time

md = sys.argv[1]
base = f"/sys/block/{md}/md"
ep = select.epoll()
fds = {}  # fd -> attr


def read(fd):
    try:
        return os.pread(fd, 4096, 0).decode(errors="replace").strip()
    except OSError:
        return None


def add(attr):
    if attr in fds.values():
        return
    try:
        fd = os.open(f"{base}/{attr}", os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return
    read(fd)
    ep.register(fd, select.EPOLLPRI | select.EPOLLERR)
    fds[fd] = attr


def rescan():
    for a in ("array_state", "degraded", "sync_action", "sync_completed"):
        add(a)
    try:
        for d in os.listdir(base):
            if d.startswith("dev-"):
                add(f"{d}/state")
    except OSError:
        pass


rescan()
print(f"{time.time():.6f} watch-ready -", flush=True)
while True:
    for fd, _ in ep.poll(0.5):
        t = time.time()
        v = read(fd)
        if v is None:
            ep.unregister(fd)
            os.close(fd)
            del fds[fd]
            continue
        print(f"{t:.6f} {fds[fd]} {v.replace(' ', '_')}", flush=True)
    rescan()

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/fg-impact: throughput a steady foreground fio workload loses to storpulsed's probes.

A file in --dir (default /var/tmp, O_DIRECT capable) attached read-only as a loop device with
direct I/O, or an existing block device (--device, e.g. /dev/md0 in the VM test bed:
bench/fg-impact/vm.sh). Every round runs the foreground workload (fio randread, --bs, --iodepth, direct, for
--seconds) in three cases, in an order that rotates from round to round:
  none        nothing else;
  storpulsed  storpulsed started just before, its built-in schedule accelerated (FirstDelay=1s,
              RetryDelay=RetryDelayMax=--retry-delay (default 1s), MaxRetries=50) running the
              quick profile on the device, as shipped otherwise (back-off on foreign I/O, idle priority);
  naive       a fio probe at normal priority doing the quick profile's reads (64 MiB sequential
              1 MiB QD4, then 2 s of 4 KiB random QD1) 1 s into the round, no back-off.
Prints the medians and the throughput lost against `none` (goal: <= 2 % for storpulsed).
Root. Not run by CI."""
import argparse, json, os, shutil, signal, statistics, subprocess, sys, tempfile, time

ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument("--build", default=os.path.join(os.path.dirname(__file__), "../../build"))
ap.add_argument("--dir", default="/var/tmp")
ap.add_argument("--size", default="512M")
ap.add_argument("--rounds", type=int, default=5)
ap.add_argument("--seconds", type=int, default=10)
ap.add_argument("--bs", default="4k")
ap.add_argument("--iodepth", type=int, default=4)
ap.add_argument("--device", help="an existing block device instead of a loop device (read only)")
ap.add_argument("--retry-delay", default="1s", help="storpulsed's RetryDelay (shipped: 30s)")
a = ap.parse_args()
daemon = os.path.abspath(os.path.join(a.build, "daemon/storpulsed"))
if not os.access(daemon, os.X_OK):
    sys.exit(f"no {daemon} (ninja -C {a.build})")
if os.geteuid() != 0:
    sys.exit("needs root (loop device)")

work = tempfile.mkdtemp(prefix="fg-impact.", dir=a.dir)
img = os.path.join(work, "data.img")
loop = None
procs = []


def cleanup(*_):
    for p in procs:
        if p.poll() is None:
            p.terminate()
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
    if loop:
        subprocess.run(["losetup", "-d", loop])
    shutil.rmtree(work, ignore_errors=True)


signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
signal.signal(signal.SIGHUP, lambda *_: sys.exit(1))
try:
    if a.device:
        dev = os.path.realpath(a.device)
        name = os.path.basename(dev)
        print(f"# {a.device} ({name}), {int(open(f'/sys/block/{name}/size').read()) >> 11} MiB",
              file=sys.stderr)
    else:
        mib = int(a.size.rstrip("M"))
        subprocess.run(["dd", "if=/dev/urandom", f"of={img}", "bs=1M", f"count={mib}",
                        "status=none", "conv=fsync"], check=True)
        loop = subprocess.run(["losetup", "-f", "--show", "-r", "--direct-io=on", img],
                              check=True, capture_output=True, text=True).stdout.strip()
        dev = loop
        name = os.path.basename(loop)
        dio = open(f"/sys/block/{name}/loop/dio").read().strip()
        print(f"# {loop} over {img} ({a.size}), loop dio={dio}", file=sys.stderr)
    conf = os.path.join(work, "storpulse.conf")
    with open(conf, "w") as f:
        f.write(f"""[Daemon]
LogLevel=debug
[Schedule]
Builtin=yes
Profile=quick
Interval=60s
FirstDelay=1s
[Probe]
RetryDelay={a.retry_delay}
RetryDelayMax={a.retry_delay}
MaxRetries=50
[Volumes]
Name={name}
Exclude=
[HTTP]
Enable=no
""")

    def fio(extra, runtime):
        r = subprocess.run(["fio", "--name=fg", f"--filename={dev}", "--readonly",
                            "--invalidate=0", "--direct=1", "--ioengine=libaio",
                            "--output-format=json"] + extra, capture_output=True, text=True,
                           check=True)
        j = json.loads(r.stdout)["jobs"]
        fio_bytes[0] += sum(x["read"]["io_bytes"] for x in j)
        return sum(x["read"]["bw_bytes"] for x in j)

    fio_bytes = [0]

    def dev_read_bytes():
        return int(open(f"/sys/block/{name}/stat").read().split()[2]) * 512

    def foreground():
        return fio(["--rw=randread", f"--bs={a.bs}", f"--iodepth={a.iodepth}", "--time_based",
                    f"--runtime={a.seconds}", "--randrepeat=0", "--norandommap"], a.seconds)

    def naive():
        time.sleep(1)
        subprocess.run(["fio", f"--filename={dev}", "--readonly", "--invalidate=0", "--direct=1",
                        "--ioengine=libaio", "--output-format=json",
                        "--name=seq", "--rw=read", "--bs=1M", "--iodepth=4", "--size=64M",
                        "--offset=0",
                        "--name=rand", "--stonewall", "--rw=randread", "--bs=4k", "--iodepth=1",
                        "--time_based", "--runtime=2", "--norandommap", "--randrepeat=0"],
                       capture_output=True, check=True)

    def run_case(case):
        fio_bytes[0] = 0
        d0 = dev_read_bytes()
        bw, note = run_case1(case)
        extra = dev_read_bytes() - d0 - fio_bytes[0]
        extras[case].append(extra)
        return bw, f"{extra / 2**20:7.1f} MiB read besides the foreground  {note}"

    def run_case1(case):
        if case == "none":
            return foreground(), ""
        if case == "naive":
            import threading
            t = threading.Thread(target=naive)
            t.start()
            bw = foreground()
            t.join()
            return bw, ""
        rt = tempfile.mkdtemp(dir=work)
        st = tempfile.mkdtemp(dir=work)
        d = subprocess.Popen([daemon, "--config", conf, "--runtime-dir", rt, "--state-dir", st],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        procs.append(d)
        bw = foreground()
        d.terminate()
        err = d.communicate(timeout=30)[1]
        procs.remove(d)
        lines = err.splitlines()
        slices = sum(1 for l in lines if ": probing (" in l)
        foreign = sum(1 for l in lines if "foreign I/O, retrying" in l)
        abandoned = sum(1 for l in lines if ", abandoned after" in l)
        runs = [l for l in lines if "Probe run" in l and "started" not in l]
        return bw, (f"daemon: {slices} probe slices started, {foreign} attempts deferred for foreign"
                    f" I/O ({abandoned} of them abandoned while running)"
                    + (f"; {runs[-1].split(': ', 1)[-1]}" if runs else ", run not finished"))

    cases = ["none", "storpulsed", "naive"]
    res = {c: [] for c in cases}
    extras = {c: [] for c in cases}
    foreground()  # warm-up, not counted
    for r in range(a.rounds):
        order = cases[r % 3:] + cases[:r % 3]
        for c in order:
            bw, note = run_case(c)
            res[c].append(bw)
            print(f"# round {r + 1} {c:10} {bw / 2**20:8.2f} MiB/s {note}", file=sys.stderr)
    base = statistics.median(res["none"])
    spread = (max(res["none"]) - min(res["none"])) / base * 100
    print(f"foreground: fio randread bs={a.bs} iodepth={a.iodepth} {a.seconds}s on {dev} "
          f"(direct), {a.rounds} rounds, medians")
    print(f"{'case':12} {'MiB/s':>9} {'lost':>8} {'other MiB':>10}  note")
    for c in cases:
        m = statistics.median(res[c])
        lost = (1 - m / base) * 100
        note = "" if c == "none" else ("goal <= 2 %: " + ("ok" if lost <= 2 else "MISSED")
                                       if c == "storpulsed" else "naive fio probe")
        if c == "none":
            note = f"spread max-min {spread:.1f} % (the noise floor)"
        ex = statistics.median(extras[c]) / 2**20
        print(f"{c:12} {m / 2**20:9.2f} {lost:7.2f}% {ex:10.1f}  {note}")
finally:
    cleanup()

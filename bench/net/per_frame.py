"""What QEMU does per frame (issue 24's batching item): while a guest echoes UDP load, Linux
perf counts the QEMU process's system calls and context switches, and the TAP device counts the
frames both ways; each count divided by the frames says how much work one frame costs the host.

Under TCG a guest's notification (a kick) is an MMIO write that QEMU's vCPU thread turns into
a wake-up of its I/O thread (an eventfd write), and every frame crosses the TAP with a system
call of its own (QEMU 7.2 reads and writes the TAP one frame at a time): so writes to eventfds,
ppoll and futex calls and context switches per frame show how well guest and device batch.
Needs `perf` with syscall tracepoints; without them the figures are None and the report says so.
"""
import os
import re
import shutil
import subprocess

# (label, perf event): the QEMU process's system calls that carry or wake for frames.
EVENTS = [
    ("TAP writes (writev)", "syscalls:sys_enter_writev"),
    ("reads (TAP, eventfd)", "syscalls:sys_enter_read"),
    ("writes (eventfd wake-ups)", "syscalls:sys_enter_write"),
    ("ppoll", "syscalls:sys_enter_ppoll"),
    ("futex", "syscalls:sys_enter_futex"),
    ("context switches", "context-switches"),
]


# CPU time per frame (µs) of the guest's vCPU thread, and of QEMU's main loop.
CPU_LABELS = ("vCPU thread µs", "main loop µs")


def available():
    """None when perf can count the tracepoints here, else why not."""
    if not shutil.which("perf"):
        return "perf is not installed (Debian package linux-perf)"
    probe = subprocess.run(["perf", "stat", "-x,", "-e", EVENTS[0][1], "true"],
                           capture_output=True, text=True, timeout=30)
    if probe.returncode != 0:
        return "perf cannot count syscall tracepoints here: " + probe.stderr.strip()[-200:]
    return None


def tap_frames(ns, tap):
    """Frames the TAP has carried both ways (the guest's in and out)."""
    out = ns.sh(f"cat /sys/class/net/{tap}/statistics/rx_packets "
                f"/sys/class/net/{tap}/statistics/tx_packets").stdout.split()
    return int(out[0]) + int(out[1])


def thread_seconds(pid):
    """{"vCPU": s, "main": s}: CPU time of QEMU's main thread (its main loop, which serves the
    TAP) and of all its other threads (the TCG vCPU thread; the RCU thread is all but idle)."""
    tick = os.sysconf("SC_CLK_TCK")
    times = {"vCPU": 0.0, "main": 0.0}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue  # a thread that ended meanwhile
        times["main" if int(tid) == pid else "vCPU"] += (int(fields[11]) + int(fields[12])) / tick
    return times


def measure(ns, tap, pid, load):
    """{label: count per frame} over one run of `load()` (a callable that loads the guest and
    returns when done), and the frames counted; QEMU is process `pid`."""
    events = ",".join(event for _, event in EVENTS)
    before, cpu_before = tap_frames(ns, tap), thread_seconds(pid)
    perf = subprocess.Popen(["perf", "stat", "-x,", "-e", events, "-p", str(pid)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        load()
    finally:
        perf.send_signal(subprocess.signal.SIGINT)
        _, err = perf.communicate(timeout=30)
    frames = tap_frames(ns, tap) - before
    cpu = {k: v - cpu_before[k] for k, v in thread_seconds(pid).items()}
    counts = {}
    for line in err.splitlines():
        fields = line.split(",")
        if len(fields) > 2 and re.fullmatch(r"\d+", fields[0]):
            counts[fields[2]] = int(fields[0])
    figures = {label: counts[event] / frames if frames and event in counts else None
               for label, event in EVENTS}
    for thread, label in (("vCPU", CPU_LABELS[0]), ("main", CPU_LABELS[1])):
        figures[label] = cpu[thread] * 1e6 / frames if frames else None
    return figures, frames


LABELS = [label for label, _ in EVENTS] + list(CPU_LABELS)


def report(per_target, why_not):
    """Markdown lines for the report: one row per target."""
    lines = ["## What QEMU does per frame", ""]
    if why_not:
        return lines + [f"Not measured: {why_not}.", ""]
    lines += ["Counts of the QEMU process (Linux perf) divided by the frames its TAP carried both "
              "ways, during one 64 B UDP echo load after the rounds (bench/net/per_frame.py), and the CPU "
              "time of QEMU's threads per frame (from /proc): the vCPU thread runs the guest's "
              "code, the main loop serves the TAP.", "",
              "| target | frames | " + " | ".join(LABELS) + " |",
              "|---|---|" + "---|" * len(LABELS)]
    for target, (figures, frames) in per_target.items():
        cells = [f"{figures[label]:.3f}" if figures[label] is not None else "-"
                 for label in LABELS]
        lines.append(f"| {target} | {frames:,} | " + " | ".join(cells) + " |")
    return lines + [""]

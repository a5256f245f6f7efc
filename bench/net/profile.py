#!/usr/bin/python3
"""Where the time goes when Keel falls short of its goals against the Linux VM:
host-side profiles (Linux perf, software clock) of the QEMU process running
  1. examples/hello from QEMU start to exit (the boot), and
  2. examples/udp_echo under 64-byte UDP echo load,
with samples sorted into what QEMU was doing: running the guest's translated
code, translating it (TCG), emulating devices (virtio-net, the TAP device),
in the host kernel (system calls, TAP), or starting up. Not part of `keel
bench` (it needs linux-perf); writes bench/results/profile.md.

  bench/net/profile.py [--seconds 5]"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [os.path.join(ROOT, "tools"), os.path.join(ROOT, "bench", "boot"),
                os.path.join(ROOT, "test", "integration")]
from keelpy import bench_report, build, qemu  # noqa: E402
from measure import stop, tap_args  # noqa: E402
from netguest import Namespace, run  # noqa: E402

FREQUENCY = 4000  # samples per second of CPU time
# (category, pattern on "dso symbol"), first match wins.
CATEGORIES = [
    ("guest code (translated, run from the code cache)", r"^\[unknown\]|^\[JIT\]|perf-\d+\.map"),
    ("host kernel (system calls, TAP, scheduling)", r"^\[kernel"),
    ("TCG: translating guest code", r"tb_gen_code|tcg_|translator_|gen_intermediate|disas_insn|"
                                   r"gen_|tb_|liveness|la_"),
    ("devices: virtio, virtio-net, TAP backend, memory API", r"virtio|vring|virtqueue|tap_|"
                                                            r"qemu_net|net_|address_space|"
                                                            r"memory_region|flatview|mmio"),
    ("QEMU start-up: loader, modules, option parsing", r"ld-linux|_dl_|dl_|do_lookup|"
                                                       r"module_|qemu_opt|qdev_|object_"),
    ("TCG runtime: helpers, softmmu, exits", r"helper_|cpu_exec|cpu_loop|tlb_|io_readx|"
                                             r"io_writex|probe_access|page_|cpu_"),
    ("event loop, timers, locks", r"aio_|qemu_poll|g_main|ppoll|timer|qemu_mutex|"
                                  r"qemu_cond|rcu|bql|iothread"),
    ("QEMU functions without symbols (Debian strips static ones)",
     r"^qemu-system-x86_64 0x"),
    ("C library (memcpy, malloc, ...)", r"^libc\.so|^libglib"),
]


def perf_report(data):
    out = subprocess.run(["perf", "report", "-i", data, "--stdio", "--no-children",
                          "--sort", "dso,sym", "--percent-limit", "0"],
                         capture_output=True, text=True, check=True).stdout
    rows = []
    for line in out.splitlines():
        match = re.match(r"\s+([\d.]+)%\s+(\S+)\s+\[[.k]\]\s+(.*)$", line)
        if match:
            rows.append((float(match.group(1)), match.group(2), match.group(3).strip()))
    return rows


def categorize(rows):
    shares = collections.Counter()
    for percent, dso, symbol in rows:
        text = f"{dso} {symbol}"
        name = next((c for c, p in CATEGORIES if re.search(p, text)), "other")
        shares[name] += percent
    return shares


def record(data, args, ns=None, seconds=None):
    """perf record of a whole command, or of a running pid for `seconds`."""
    base = ["perf", "record", "-q", "-F", str(FREQUENCY), "-e", "cpu-clock", "-o", data]
    if seconds is None:
        run(base + ["--"] + args, timeout=120, check=False)
        return None
    return subprocess.Popen(base + ["-p", str(args), "--", "sleep", str(seconds)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def qemu_pid(leader):
    """QEMU under `ip netns exec` (which forks it)."""
    for _ in range(100):
        try:
            with open(f"/proc/{leader}/task/{leader}/children") as f:
                children = f.read().split()
            if children:
                return int(children[0])
        except FileNotFoundError:
            pass
        time.sleep(0.05)
    return leader


def profile_boot(work):
    hello = build.build(os.path.join(ROOT, "examples", "hello"), "kvm", quiet=True)
    data = os.path.join(work, "boot.data")
    record(data, qemu.command(hello, "microvm", "128M", 1, "", "tcg"))
    return perf_report(data)


def profile_echo(work, seconds):
    image = build.build(os.path.join(ROOT, "examples", "udp_echo"), "kvm", quiet=True)
    load = os.path.join(work, "udp_load")
    run(["gcc", "-O2", "-o", load, os.path.join(HERE, "udp_load.c")])
    ns = Namespace(taps=1)
    guest = None
    try:
        guest = subprocess.Popen(ns.exec_args(qemu.command(
            image, "microvm", "128M", 1, f"ip={ns.guest()}/24", "tcg", tap_args())),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        ns.sh(f"for i in $(seq 100); do ping -c1 -W1 {ns.guest()} && exit 0; done; exit 1")
        data = os.path.join(work, "echo.data")
        perf = record(data, qemu_pid(guest.pid), seconds=seconds)
        out = run(ns.exec_args([load, ns.guest(), "64", str(seconds), "32"]),
                  timeout=seconds + 30).stdout
        perf.wait(timeout=seconds + 60)
        return perf_report(data), out.strip()
    finally:
        if guest:
            stop(guest)
        ns.close()


def section(title, rows, note=""):
    lines = [f"## {title}", "", note, "", "| what QEMU was doing | share of samples |",
             "| --- | --- |"] if note else [f"## {title}", "",
                                              "| what QEMU was doing | share of samples |",
                                              "| --- | --- |"]
    shares = categorize(rows)
    for name, share in shares.most_common():
        lines.append(f"| {name} | {share:.1f} % |")
    # perf lists no line for samples it cannot place in any mapping: under
    # TCG that is mostly the guest's translated code in QEMU's code buffer.
    lines.append(f"| not listed by perf (mostly translated guest code) | "
                 f"{max(0.0, 100 - sum(shares.values())):.1f} % |")
    other = [f"`{d} {s}` {p:.1f} %" for p, d, s in rows
             if not any(re.search(pat, f"{d} {s}") for _, pat in CATEGORIES)][:6]
    if other:
        lines += ["", "Largest of 'other': " + ", ".join(other) + "."]
    lines += ["", "Top symbols:", "", "| share | dso | symbol |", "| --- | --- | --- |"]
    lines += [f"| {p:.1f} % | {d} | `{s}` |" for p, d, s in rows[:15]]
    return lines + [""]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5)
    args = parser.parse_args()
    if shutil.which("perf") is None:
        sys.exit("profile: needs Linux perf (Debian package linux-perf)")
    with tempfile.TemporaryDirectory(prefix="keel-profile-") as work:
        boot_rows = profile_boot(work)
        echo_rows, load_out = profile_echo(work, args.seconds)
    lines = ["# Where the time goes: QEMU profiles of Keel guests", "",
             f"`bench/net/profile.py --seconds {args.seconds:g}`, "
             f"{bench_report.machine_line('tcg')}. `perf record -e cpu-clock -F {FREQUENCY}` of "
             "the QEMU process (no hardware counters in this VM); samples in anonymous "
             "executable memory are the guest's own translated code.", ""]
    lines += section("Boot: examples/hello from QEMU start to exit (microvm, TCG)", boot_rows)
    lines += section("UDP echo under load: examples/udp_echo, 64-byte datagrams, 32 in flight",
                     echo_rows, f"Load generator during the profile: `{load_out}`.")
    out = os.path.join(bench_report.RESULTS, "profile.md")
    with open(out, "w") as f:
        f.write("\n".join(lines))
    print(f"profile: wrote {out}")


if __name__ == "__main__":
    main()

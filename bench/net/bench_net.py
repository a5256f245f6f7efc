#!/usr/bin/python3
"""Network benchmark (not a test): Keel's udp_echo beside its Linux peers, in one run.

  bench/net/run.sh [--rounds 3] [--seconds 5] [--quick]

In network namespaces it creates and deletes, measures ping round trips
(median, p99) and UDP echo packets/s at 64 and 1400 bytes of:
  - the Keel guest (examples/udp_echo on microvm, TCG, virtio-net on a TAP);
  - the Linux VM: the same QEMU line with Debian's kernel and the same echo
    written with Linux sockets (bench/linux-vm/, bench/net/udp_echo_server.c);
  - that echo as a process in a netns behind a veth pair (Linux netns);
  - udp_echo built as a Linux process on a TAP device (Keel Linux process).
Every round measures every target in turn, so drift hits all alike; each
figure is the median over rounds. Writes net.md, net.csv and net.png.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [os.path.join(ROOT, "tools"), os.path.join(ROOT, "bench", "linux-vm"),
                os.path.join(ROOT, "bench", "boot"), os.path.join(ROOT, "test", "integration")]
from keelpy import bench_report, build, qemu  # noqa: E402
from keelpy.bench_report import Comparison  # noqa: E402
import linux_guest  # noqa: E402
import per_frame  # noqa: E402
from measure import stop, tap_args  # noqa: E402
from netguest import Namespace, run  # noqa: E402

MEMORY = "128M"
SIZES = (64, 1400)
WINDOW = 32  # datagrams in flight
KEEL_VM, LINUX_VM = "Keel guest (microvm, TCG)", "Linux VM (microvm, TCG)"
LINUX_NETNS, KEEL_PROCESS = "Linux (netns, veth)", "Keel Linux process (TAP)"
# examples/reflector: frames turned around at the driver, no stack: the ceiling of this QEMU line.
REFLECTOR = "Keel reflector, no stack (microvm, TCG)"
CEILING_GOAL = 0.9  # issue 24: udp_echo at least 90% of the reflector


def ping_rtts(ns, address, count):
    out = ns.sh(f"ping -n -c {count} -i 0.005 -W 2 {address}", timeout=120, check=False).stdout
    return [float(x) for x in re.findall(r"time=([\d.]+) ms", out)]


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def udp_pps(ns, load, address, size, seconds):
    out = run(ns.exec_args([load, address, str(size), str(seconds), str(WINDOW)]),
              timeout=seconds + 30).stdout
    match = re.search(r"pps (\d+)", out)
    return int(match.group(1)) if match else 0


def wait_answering(ns, address, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if ns.sh(f"ping -n -c 1 -W 1 {address}", check=False).returncode == 0:
            return
    raise RuntimeError(f"{address} answered no ping within {timeout} s")


class Vm:
    """A guest on TAP `tap` of `ns` (Keel image or Linux guest, same QEMU line)."""

    def __init__(self, ns, tap, args):
        self.tap = tap
        self.proc = subprocess.Popen(ns.exec_args(args), stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True)

    def close(self):
        stop(self.proc)


class LinuxPeer:
    """A second namespace on a veth pair, running the Linux-sockets echo."""

    def __init__(self, ns, server):
        self.ns = ns.veth_peer("10.0.9.1/24", "10.0.9.2/24")
        self.server = self.ns.popen([server, "7"], start_new_session=True)
        self.address = "10.0.9.2"

    def sh(self, command):
        self.ns.sh(command)

    def close(self):
        stop(self.server)
        self.ns.close()


class LinuxProcess:
    """udp_echo built for the linux platform, on TAP tapl (10.0.8.2)."""

    def __init__(self, ns, executable):
        ns.sh("ip tuntap add tapl mode tap && ip link set tapl up && "
              "ip addr add 10.0.8.1/24 dev tapl")
        self.proc = subprocess.Popen(ns.exec_args([executable, "tap=tapl", "ip=10.0.8.2/24"]),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True)
        self.address = "10.0.8.2"

    def close(self):
        stop(self.proc)


def compile_tools(tmp):
    tools = {}
    for name in ("udp_load", "udp_echo_server"):
        tools[name] = os.path.join(tmp, name)
        run(["gcc", "-O2", "-o", tools[name], os.path.join(HERE, name + ".c")], timeout=120)
    return tools


def measure(args, tools, ns, targets):
    """{target: (rtts, {size: [pkt/s per round]})}, rounds alternating targets."""
    figures = {label: ([], {size: [] for size in SIZES}) for label in targets}
    for r in range(args.rounds):
        for label, address in targets.items():
            rtts, pps = figures[label]
            rtts += ping_rtts(ns, address, args.pings)
            for size in SIZES:
                pps[size].append(udp_pps(ns, tools["udp_load"], address, size, args.seconds))
            print(f"  round {r + 1}/{args.rounds} {label}: rtt median "
                  f"{statistics.median(rtts) if rtts else 0:.3f} ms, "
                  + ", ".join(f"{s} B {pps[s][-1]} pkt/s" for s in SIZES), flush=True)
    return figures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--pings", type=int, default=300)
    parser.add_argument("--quick", action="store_true",
                        help="a few seconds, to show the script works (CI); "
                             "writes to build/bench-quick/")
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.seconds, args.pings = 1, 0.5, 20
    out = bench_report.results_dir(args.quick)
    keel_image = build.build(os.path.join(ROOT, "examples", "udp_echo"), "kvm", quiet=True)
    reflector = build.build(os.path.join(ROOT, "examples", "reflector"), "kvm", quiet=True)
    linux_exe = build.build(os.path.join(ROOT, "examples", "udp_echo"), "linux", quiet=True)
    linux = linux_guest.build("echo")
    with tempfile.TemporaryDirectory(prefix="keel-bench-net-") as tmp:
        tools = compile_tools(tmp)
        ns, things = Namespace(taps=3), []
        try:
            things.append(Vm(ns, "tap0", qemu.command(keel_image, "microvm", MEMORY, 1,
                                                      f"ip={ns.guest(0)}/24", "tcg",
                                                      tap_args("tap0"))))
            things.append(Vm(ns, "tap1", linux.command(
                "microvm", MEMORY, f"run=udp_echo ip={ns.guest(1)}/24", "tcg", tap_args("tap1"))))
            things.append(LinuxPeer(ns, tools["udp_echo_server"]))
            things.append(LinuxProcess(ns, linux_exe))
            things.append(Vm(ns, "tap2", qemu.command(reflector, "microvm", MEMORY, 1,
                                                      f"ip={ns.guest(2)}/24", "tcg", tap_args("tap2"))))
            targets = {KEEL_VM: ns.guest(0), LINUX_VM: ns.guest(1),
                       LINUX_NETNS: things[2].address, KEEL_PROCESS: things[3].address,
                       REFLECTOR: ns.guest(2)}
            for address in targets.values():
                wait_answering(ns, address)
            print("net: all five targets answer; measuring", flush=True)
            figures = measure(args, tools, ns, targets)
            frames = per_frame_pass(args, tools, ns, targets,
                                    {KEEL_VM: things[0], LINUX_VM: things[1], REFLECTOR: things[4]})
        finally:
            for thing in reversed(things):
                thing.close()
            ns.close()
    write_report(out, args, figures, frames)


def per_frame_pass(args, tools, ns, targets, vms):
    """(per_frame figures of each guest under 64 B echo load, or None; why not)."""
    why_not = per_frame.available()
    if why_not:
        print(f"net: per-frame counts skipped: {why_not}", flush=True)
        return None, why_not
    figures = {}
    for label, vm in vms.items():
        figures[label] = per_frame.measure(
            ns, vm.tap, vm.proc.pid,
            lambda: udp_pps(ns, tools["udp_load"], targets[label], SIZES[0], args.seconds))
        print(f"  per frame {label}: " + ", ".join(
            f"{k} {v:.2f}" for k, v in figures[label][0].items() if v is not None), flush=True)
    return figures, None


def comparisons(figures):
    def pick(label, what):
        rtts, pps = figures[label]
        if what == "rtt":
            return statistics.median(rtts) if rtts else None
        if what == "p99":
            return percentile(rtts, 99) if rtts else None
        return statistics.median(pps[what])

    rows = [("ping round trip, median", "ms", "rtt", True, None),
            ("ping round trip, p99", "ms", "p99", True, None)]
    rows += [(f"UDP echo, {size} B", "pkt/s", size, False, 15) for size in SIZES]
    return [Comparison(name, unit, pick(KEEL_VM, what), pick(LINUX_VM, what),
                       pick(LINUX_NETNS, what), lower, goal)
            for name, unit, what, lower, goal in rows]


def write_report(out, args, figures, frames):
    table = comparisons(figures)
    lines = ["# Network benchmark", "",
             f"`tools/keel bench net{' --quick' if args.quick else ''}` (rounds {args.rounds}, "
             f"{args.seconds:g} s per UDP figure, {args.pings} pings per round), "
             f"{bench_report.machine_line('tcg')}. No vhost: QEMU serves virtio-net through "
             "the TAP device in user space.", "",
             "## Keel beside the Linux VM and Linux in a netns", "",
             "Both guests run on the same QEMU line (microvm, TCG, "
             f"`-m {MEMORY}`, virtio-net-device on a TAP); the Linux VM runs "
             "bench/net/udp_echo_server.c, as does the netns peer. Medians over rounds; "
             "targets alternate within each round.", ""]
    lines += bench_report.comparison_table(table)
    lines += ["", "## Every target", "",
              "| target | RTT median (ms) | RTT p99 (ms) | "
              + " | ".join(f"UDP echo {s} B (pkt/s)" for s in SIZES) + " |",
              "|---|---|---|" + "---|" * len(SIZES)]
    for label, (rtts, pps) in figures.items():
        cells = [label, f"{statistics.median(rtts):.3f}" if rtts else "-",
                 f"{percentile(rtts, 99):.3f}" if rtts else "-"]
        cells += [f"{statistics.median(pps[s]):.0f}" for s in SIZES]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "## Against the ceiling of this QEMU line", "",
              "examples/reflector turns every frame around at the driver with no stack in between "
              "(ARP, ICMP echo, UDP with addresses and ports swapped): the most a guest can echo on "
              "this QEMU line, measured in the same rounds.", ""]
    for size in SIZES:
        echo, ceiling = statistics.median(figures[KEEL_VM][1][size]), statistics.median(figures[REFLECTOR][1][size])
        share = echo / ceiling if ceiling else 0
        lines.append(f"- {size} B: udp_echo {echo:,.0f} pkt/s, reflector {ceiling:,.0f} pkt/s: {100 * share:.0f}% "
                     f"of the ceiling (goal ≥ {100 * CEILING_GOAL:.0f}%: {'met' if share >= CEILING_GOAL else 'not met'}).")
    lines += [""] + per_frame.report(*frames)
    lines += [f"UDP load: bench/net/udp_load.c, {WINDOW} datagrams in flight; ping: "
              "requests 5 ms apart. Boot to first ping is in boot.md.", ""]
    bench_report.write_results(out, "net", lines, table,
                               "Network: Keel beside a Linux guest (microvm, TCG)")


if __name__ == "__main__":
    main()

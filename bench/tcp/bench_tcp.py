#!/usr/bin/python3
"""TCP benchmark (not a test): Keel's TCP beside Linux's, in one run.

  bench/tcp/run.sh [--rounds 3] [--seconds 5] [--concurrent 1000] [--quick]

In network namespaces it creates and deletes, measures from Linux clients:
  - iperf3 throughput, Keel receiving (`iperf3 -c`) and sending (`-R`);
  - requests/s of 64-byte echoes on one connection, one at a time;
  - requests/s with a new connection per request (connect, echo, close);
  - requests/s of 1,000 connections held open, each echoing in turn;
for five targets, each running the same server:
  - the Keel image (examples/iperf3, examples/tcp_echo; microvm, TCG,
    virtio-net on a TAP), and the same image booted with tso=off (TCP
    sends MSS-sized segments, not 64 KiB ones: decision 0092);
  - the Linux VM: the same QEMU line with Debian's kernel running iperf3
    and bench/tcp/tcp_echo_server.c (bench/linux-vm/, profile tcp);
  - those as processes in a netns behind a veth pair (Linux netns);
  - the Keel services built as Linux processes on a TAP device, with its
    offloads (IFF_VNET_HDR: 64 KiB TCP segments both ways) and with
    tso=off (checksum offload only: decision 0094).
KEEL_NETNS_PREFIX names the namespace (keel-net-PID-N by default), for
machines where several runs must tell theirs apart.
Every round measures every target in turn, so drift hits all alike; each
figure is the median over rounds. Writes tcp.md, tcp.csv and tcp.png.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [os.path.join(ROOT, "tools"), os.path.join(ROOT, "bench", "linux-vm"),
                os.path.join(ROOT, "bench", "boot"), os.path.join(ROOT, "bench", "net"),
                os.path.join(ROOT, "test", "integration")]
from keelpy import bench_report, build, qemu  # noqa: E402
from keelpy.bench_report import Comparison  # noqa: E402
import linux_guest  # noqa: E402
from bench_net import wait_answering  # noqa: E402
from measure import stop, tap_args  # noqa: E402
from netguest import Namespace, run  # noqa: E402

MEMORY = "128M"
REQUEST_BYTES = 64
IPERF_PORT, ECHO_PORT = 5201, 7
KEEL_VM, LINUX_VM = "Keel guest (microvm, TCG)", "Linux VM (microvm, TCG)"
KEEL_VM_NO_TSO = "Keel guest, tso=off (microvm, TCG)"
LINUX_NETNS, KEEL_PROCESS = "Linux (netns, veth)", "Keel Linux process (TAP)"
KEEL_PROCESS_NO_TSO = "Keel Linux process, tso=off (TAP)"
# phase: (Keel service, Linux VM run=, Linux program and its arguments)
PHASES = {
    "iperf3": ("examples/iperf3", "iperf3", ["iperf3", "--server"]),
    "echo": ("examples/tcp_echo", "tcp_echo", ["{tcp_echo_server}", str(ECHO_PORT)]),
}
# (figure, unit, phase, what) in the report's order
FIGURES = [
    ("iperf3, Keel receiving", "Mbit/s", "iperf3", "forward"),
    ("iperf3, Keel sending (-R)", "Mbit/s", "iperf3", "reverse"),
    ("64 B echoes, one connection", "req/s", "echo", "rr"),
    ("64 B echoes, a connection each", "req/s", "echo", "crr"),
    ("64 B echoes, {concurrent} connections", "req/s", "echo", "many"),
]
THROUGHPUT_GOAL = 1.5  # issue 24 (issue 13 asked for 1x): TCP both ways, image ÷ Linux VM


class Process:
    """A server in a namespace (QEMU or a Linux process), killed with its group."""

    def __init__(self, args):
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, start_new_session=True)

    def close(self):
        stop(self.proc)


def peer_namespace(ns):
    """A second namespace on a veth pair (10.0.9.2), for Linux's own TCP."""
    peer = ns.veth_peer("10.0.9.1/24", "10.0.9.2/24")
    peer.address = "10.0.9.2"
    return peer


def start_servers(phase, ns, peer, binaries, tools):
    """The phase's server on every target; returns ({target: address}, processes)."""
    service, run_name, program = PHASES[phase]
    program = [word.format(**tools) for word in program]
    image, executable, guest = binaries[service]["kvm"], binaries[service]["linux"], binaries["vm"]
    processes = [
        Process(ns.exec_args(qemu.command(image, "microvm", MEMORY, 1, f"ip={ns.guest(0)}/24",
                                          "tcg", tap_args("tap0")))),
        Process(ns.exec_args(guest.command("microvm", MEMORY, f"run={run_name} ip={ns.guest(1)}/24",
                                           "tcg", tap_args("tap1")))),
        Process(peer.exec_args(program)),
        Process(ns.exec_args([executable, "tap=tapl", "ip=10.0.8.2/24"])),
        Process(ns.exec_args([executable, "tap=taplo", "ip=10.0.7.2/24", "tso=off"])),
        Process(ns.exec_args(qemu.command(image, "microvm", MEMORY, 1,
                                          f"ip={ns.guest(2)}/24 tso=off", "tcg",
                                          tap_args("tap2")))),
    ]
    targets = {KEEL_VM: ns.guest(0), LINUX_VM: ns.guest(1), LINUX_NETNS: peer.address,
               KEEL_PROCESS: "10.0.8.2", KEEL_VM_NO_TSO: ns.guest(2),
               KEEL_PROCESS_NO_TSO: "10.0.7.2"}
    for address in targets.values():
        wait_answering(ns, address)
    return targets, processes


def iperf3(ns, address, seconds, reverse, keel):
    """Mbit/s received by the receiving side (a few tries: a server may still be starting).
    A run that does not end is tried again against Linux (seen with the Linux VM's iperf3 and
    -R) but is an error against Keel: a hang there is a bug (issue 24), not noise."""
    for attempt in range(5):
        try:
            out = run(ns.exec_args(["iperf3", "-c", address, "-t", str(seconds), "-J",
                                    *(["-R"] if reverse else [])]),
                      timeout=seconds + 30, check=False).stdout
            report = json.loads(out)
        except subprocess.TimeoutExpired:
            if keel:
                raise RuntimeError(f"iperf3 to Keel at {address} hung (no end within "
                                   f"{seconds + 30} s)")
            report = {"error": f"no end within {seconds + 30} s"}
        except json.JSONDecodeError:
            report = {"error": out[-200:]}
        if "error" not in report:
            return report["end"]["sum_received"]["bits_per_second"] / 1e6
        print(f"  iperf3 to {address}: {report['error']}; again", flush=True)
        time.sleep(1)
    raise RuntimeError(f"iperf3 to {address} failed: {report['error']}")


def load(ns, tools, mode, address, seconds, connections):
    """Requests/s from bench/tcp/tcp_load.c; every request must succeed."""
    out = run(ns.exec_args([tools["tcp_load"], mode, address, str(ECHO_PORT), str(seconds),
                            str(connections), str(REQUEST_BYTES)]),
              timeout=seconds + 120).stdout
    fields = out.split()
    rate, failed = float(fields[3]), int(fields[5])
    if failed:
        print(f"  tcp_load {mode} {address}: {failed} requests failed", flush=True)
    return rate


def measure_phase(phase, args, ns, tools, targets, figures):
    for r in range(args.rounds):
        order = list(targets.items())
        if r % 2:
            order.reverse()  # no target always goes first
        for label, address in order:
            f = figures[label]
            if phase == "iperf3":
                keel = label in (KEEL_VM, KEEL_PROCESS, KEEL_VM_NO_TSO, KEEL_PROCESS_NO_TSO)
                f["forward"].append(iperf3(ns, address, args.iperf_seconds, False, keel))
                f["reverse"].append(iperf3(ns, address, args.iperf_seconds, True, keel))
            else:
                f["rr"].append(load(ns, tools, "rr", address, args.seconds, 1))
                f["crr"].append(load(ns, tools, "crr", address, args.seconds, 1))
                f["many"].append(load(ns, tools, "rr", address, args.seconds, args.concurrent))
            done = {k: v[-1] for k, v in f.items() if v}
            print(f"  {phase} round {r + 1}/{args.rounds} {label}: "
                  + ", ".join(f"{k} {v:,.0f}" for k, v in done.items()), flush=True)


def compile_tools(tmp):
    tools = {}
    for name in ("tcp_load", "tcp_echo_server"):
        tools[name] = os.path.join(tmp, name)
        run(["gcc", "-O2", "-o", tools[name], os.path.join(HERE, name + ".c")], timeout=120)
    return tools


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=5, help="per request/s figure")
    parser.add_argument("--iperf-seconds", type=int, default=5)
    parser.add_argument("--concurrent", type=int, default=1000)
    parser.add_argument("--quick", action="store_true",
                        help="a few seconds, to show the script works (CI); "
                             "writes to build/bench-quick/")
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.seconds, args.iperf_seconds, args.concurrent = 1, 0.5, 1, 100
    out = bench_report.results_dir(args.quick)
    args.load = os.getloadavg()
    binaries = {service: {platform: build.build(os.path.join(ROOT, service), platform, quiet=True)
                          for platform in ("kvm", "linux")}
                for service, _, _ in PHASES.values()}
    binaries["vm"] = linux_guest.build("tcp")
    figures = {label: {what: [] for _, _, _, what in FIGURES}
               for label in (KEEL_VM, LINUX_VM, LINUX_NETNS, KEEL_PROCESS, KEEL_VM_NO_TSO,
                             KEEL_PROCESS_NO_TSO)}
    with tempfile.TemporaryDirectory(prefix="keel-bench-tcp-") as tmp:
        tools = compile_tools(tmp)
        ns = Namespace(taps=3, prefix=os.environ.get("KEEL_NETNS_PREFIX", "keel-net"))
        peer = None
        try:
            # Many connections from one client address: every port, TIME_WAIT reused.
            ns.sh("sysctl -qw net.ipv4.ip_local_port_range='1024 65000' "
                  "net.ipv4.tcp_tw_reuse=1 && ip tuntap add tapl mode tap && "
                  "ip link set tapl up && ip addr add 10.0.8.1/24 dev tapl && "
                  "ip tuntap add taplo mode tap && ip link set taplo up && "
                  "ip addr add 10.0.7.1/24 dev taplo")
            peer = peer_namespace(ns)
            for phase in PHASES:
                targets, processes = start_servers(phase, ns, peer, binaries, tools)
                try:
                    print(f"tcp: {phase} servers answer on all six targets; measuring",
                          flush=True)
                    measure_phase(phase, args, ns, tools, targets, figures)
                finally:
                    for process in reversed(processes):
                        process.close()
        finally:
            if peer:
                peer.close()
            ns.close()
    write_report(out, args, figures)


def median(values):
    return statistics.median(values) if values else None


def comparisons(figures, args):
    return [Comparison(name.format(concurrent=args.concurrent), unit,
                       median(figures[KEEL_VM][what]), median(figures[LINUX_VM][what]),
                       median(figures[LINUX_NETNS][what]), False,
                       THROUGHPUT_GOAL if phase == "iperf3" else None)
            for name, unit, phase, what in FIGURES]


def write_report(out, args, figures):
    table = comparisons(figures, args)
    lines = ["# TCP benchmark", "",
             f"`tools/keel bench tcp{' --quick' if args.quick else ''}` (rounds {args.rounds}, "
             f"iperf3 {args.iperf_seconds} s a direction, {args.seconds:g} s per request/s "
             f"figure, {args.concurrent} concurrent connections), "
             f"{bench_report.machine_line('tcg')}. No vhost: QEMU serves virtio-net through "
             "the TAP device in user space. Clients (iperf3, bench/tcp/tcp_load.c) run on "
             "the host side of each TAP or veth.", "",
             "## Keel beside the Linux VM and Linux in a netns", "",
             f"Both guests run on the same QEMU line (microvm, TCG, `-m {MEMORY}`, "
             "virtio-net-device on a TAP). Medians over rounds; targets alternate within "
             f"each round. Echoes are {REQUEST_BYTES} bytes each way, one request in flight "
             "per connection, Nagle off on the client; 'a connection each' is connect, "
             "echo, close, one at a time.", ""]
    lines += bench_report.comparison_table(table)
    lines += ["", "## Every target", "",
              "| target | " + " | ".join(c.metric + f" ({c.unit})" for c in table) + " |",
              "|---|" + "---|" * len(table)]
    for label, f in figures.items():
        lines.append(f"| {label} | " + " | ".join(
            "—" if median(f[what]) is None else f"{median(f[what]):,.0f}"
            for _, _, _, what in FIGURES) + " |")
    lines += ["", "## Every round", "",
              "Each figure of each round, in the order measured (rounds alternate the "
              "targets' order), to show the spread the medians come from.", "",
              "| target | " + " | ".join(c.metric for c in table) + " |",
              "|---|" + "---|" * len(table)]
    for label, f in figures.items():
        lines.append(f"| {label} | " + " | ".join(
            ", ".join(f"{v:,.0f}" for v in f[what]) for _, _, _, what in FIGURES) + " |")
    lines += ["", "## Goals (issues 13 and 24)", ""]
    for what, name in (("forward", "receiving"), ("reverse", "sending")):
        image, vm = median(figures[KEEL_VM][what]), median(figures[LINUX_VM][what])
        process, netns = median(figures[KEEL_PROCESS][what]), median(figures[LINUX_NETNS][what])
        lines.append(f"- iperf3, Keel {name}: the image at {image / vm:.2f}× the Linux VM "
                     f"(goal ≥ {THROUGHPUT_GOAL:g}: "
                     f"{'met' if image >= THROUGHPUT_GOAL * vm else 'not met'}); the Linux-process "
                     f"build at {process / netns:.2f}× Linux over a veth (goal ≥ 0.5: "
                     f"{'met' if process >= netns / 2 else 'not met'}).")
    for what, name in (("forward", "receiving"), ("reverse", "sending")):
        image, off = median(figures[KEEL_VM][what]), median(figures[KEEL_VM_NO_TSO][what])
        lines.append(f"- TSO (decision 0092), Keel {name}: the image at {image / off:.2f}× "
                     "the same image booted with tso=off.")
    for what, name in (("forward", "receiving"), ("reverse", "sending")):
        on, off = median(figures[KEEL_PROCESS][what]), median(figures[KEEL_PROCESS_NO_TSO][what])
        lines.append(f"- TAP offloads (decision 0094), Keel {name}: the Linux-process build at "
                     f"{on / off:.2f}× the same build with tso=off.")
    lines += ["", "The Linux-process build and the netns peer share the host's two cores with "
              "the clients; the guests are limited by TCG, which runs each guest on one host "
              "thread. Linux over a veth moves 64 KiB GSO segments that are never cut into "
              "frames; Keel's Linux-process build reads and writes one frame per system call "
              "on its TAP, 64 KiB TCP segments both ways with its offloads on (IFF_VNET_HDR, "
              "decision 0094), MSS-sized ones with tso=off.", "",
              f"Host load average (1 min) when the run began and ended: {args.load[0]:.1f}, "
              f"{os.getloadavg()[0]:.1f} (the machine is shared; ratios come from alternated "
              "measurements in this run).", ""]
    bench_report.write_results(out, "tcp", lines, table,
                               "TCP: Keel beside a Linux guest (microvm, TCG)")


if __name__ == "__main__":
    main()

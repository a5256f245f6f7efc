#!/usr/bin/python3
"""Density benchmark (not a test): how many UDP echo appliances one host runs, and how fast
they all come up. For each N, N instances each on its own TAP on one bridge in a namespace
made here (bench/density/fleet.py), launched one after another as fast as they start:
  - the Keel image (examples/udp_echo, microvm, TCG, its smallest memory: decision 0090);
  - the Linux VM on the same QEMU line (bench/linux-vm/'s guest, run=udp_echo);
  - the service's Linux-process build in podman containers (keel package --format container).
Measures launch → every instance answering a UDP echo, guest memory, host RSS and PSS per
instance, the instances' host CPU while starting and idle. Writes density.md, .csv, .png.

  bench/density/run.sh [--counts 1,10,35,70,140] [--linux-counts ...] [--tcg tb-size=N]
                       [--container-memory MiB] [--quick]"""
import argparse
import os
import signal
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [HERE, os.path.join(ROOT, "tools"), os.path.join(ROOT, "bench", "linux-vm")]
from keelpy import bench_report, build, container, package  # noqa: E402
from keelpy.image import min_memory_mib  # noqa: E402
import density_report  # noqa: E402
import linux_guest  # noqa: E402
import sides  # noqa: E402
from fleet import RESERVE_MIB, Fleet, mem_available_mib  # noqa: E402

UDP_ECHO = os.path.join(ROOT, "examples", "udp_echo")
FULL_COUNTS = [1, 10, 35, 70, 140]
LINUX_MEMORY_MIB = 80  # bench/results/boot.md: the Linux VM's udp_echo answers from 77 MiB
CONTAINER_MEMORY_MIB = 8  # podman --memory: twice the smallest that answered (decision 0125)


def interrupted(*_):
    raise KeyboardInterrupt


def counts(text):
    return [int(x) for x in text.split(",") if x]


def container_image(workdir):
    """The udp_echo container in podman's store; returns (image id, note)."""
    program = build.build(UDP_ECHO, "linux", quiet=True)
    layout = package.package(program, "container", os.path.join(workdir, "udp_echo.container"))
    try:
        out = subprocess.run(container.podman("pull", "-q", f"oci:{layout}:latest"),
                             capture_output=True, text=True, timeout=300)
    except Exception as e:  # podman missing (KeelError) or hung
        return None, f"no container column: {e}"
    if out.returncode != 0:
        return None, f"no container column: podman pull failed: {out.stderr.strip()}"
    return out.stdout.split()[-1], ""


def measure(side, n, deadline, idle_seconds):
    name = f"density-{os.getpid()}-{n}"
    print(f"  {side.label}: N={n} ...", flush=True)
    with Fleet(name, side) as fleet:
        result = fleet.launch(n, deadline)
        memory = fleet.memory(result.pop("pids")[:result["started"]])
        result.update(side=side.label, guest_mib=side.memory_mib,
                      rss_mib=statistics.median(m[0] for m in memory) / 1024 if memory else None,
                      pss_mib=statistics.median(m[1] for m in memory) / 1024 if memory else None,
                      idle_cpu=fleet.idle_cpu(side.pids(fleet), idle_seconds)
                      if result["answered"] else None)
    took = result["all_answer_s"]
    print(f"    started {result['started']}, answered {result['answered']}, all answering "
          f"{'—' if took is None else f'{took:.1f} s'}, PSS {result['pss_mib'] or 0:.1f} MiB "
          f"each {result['note']}", flush=True)
    return result


def fits(side, n, results):
    """Whether n more instances fit in the host's memory: each as much as one took at the
    largest N run so far (PSS, which grows after launch as a guest touches its memory; the
    guest memory before any run), and RESERVE_MIB to spare. Returns a note when not."""
    before = [r for r in results if r["side"] == side.label and r["pss_mib"]]
    each = max(before, key=lambda r: r["n"])["pss_mib"] if before else (side.memory_mib or 0)
    have = mem_available_mib()
    if n * each * 1.1 + RESERVE_MIB <= have:
        return ""
    return (f"{side.label}: N={n} not run: {n} × {each:.0f} MiB (its PSS at a smaller N) "
            f"+ 10% does not fit in the {have:,.0f} MiB available less a {RESERVE_MIB} MiB "
            "reserve")


def run(side, n, args, idle_seconds, results, notes):
    note = fits(side, n, results)
    if note:
        print(f"  {note}", flush=True)
        notes.append(note)
    else:
        results.append(measure(side, n, args.deadline, idle_seconds))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--counts", type=counts, help="N (1,10,35,70,140)")
    parser.add_argument("--linux-counts", type=counts, help="N for Linux VMs (--counts)")
    parser.add_argument("--deadline", type=float, default=600, help="s until all answer")
    parser.add_argument("--linux-memory", type=int, default=LINUX_MEMORY_MIB, help="MiB")
    parser.add_argument("--container-memory", type=int, default=CONTAINER_MEMORY_MIB,
                        help="podman --memory, MiB (0: no limit)")
    parser.add_argument("--tcg", default="",
                        help="options for both VM sides' -accel tcg, e.g. tb-size=8 (MiB)")
    parser.add_argument("--quick", action="store_true",
                        help="into build/, and N=1,3 (Linux VMs 1) unless --counts is given")
    args = parser.parse_args()
    if args.quick:
        args.deadline = 120
        if args.counts is None:
            args.counts, args.linux_counts = [1, 3], [1]
    args.counts = args.counts or FULL_COUNTS
    linux_counts = args.linux_counts or args.counts
    idle_seconds = 2 if args.quick else 5
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):  # (SIGINT may come ignored)
        signal.signal(number, interrupted)  # each cleans up as Ctrl-C does
    load_before = density_report.uptime()
    image = build.build(UDP_ECHO, "kvm", quiet=True)
    keel_mib = min_memory_mib(image)
    guest = linux_guest.build("echo", quiet=True)
    linux_guest.host_tsc_khz()  # measured (a program compiled) once, before any timing
    workdir = os.path.join(bench_report.results_dir(True), "density")
    os.makedirs(workdir, exist_ok=True)
    container_ref, container_note = container_image(workdir)
    results, notes = [], [container_note] if container_note else []
    keel_side = sides.keel(image, keel_mib, args.tcg)
    linux_side = sides.linux_vm(guest, args.linux_memory, args.tcg)
    pods = sides.ContainerSide(container_ref, f"density-{os.getpid()}",
                               args.container_memory) if container_ref else None
    try:
        for n in sorted(set(args.counts) | set(linux_counts)):
            if n in args.counts:
                run(keel_side, n, args, idle_seconds, results, notes)
                if pods:
                    run(pods, n, args, idle_seconds, results, notes)
            if n in linux_counts:
                run(linux_side, n, args, idle_seconds, results, notes)
    finally:
        if container_ref:
            subprocess.run(container.podman("rmi", "-f", container_ref), capture_output=True)
    density_report.write(bench_report.results_dir(args.quick), results, notes, load_before,
                         density_report.uptime(), " ".join(sys.argv[1:]), args.tcg,
                         args.container_memory)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit("density: interrupted; what it started was stopped and removed")

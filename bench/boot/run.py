"""Boot benchmark, Keel beside a Linux guest on the same QEMU line (microvm,
TCG, the same memory, virtio-net-device on a TAP), the two sides alternating
in one run:
  - QEMU start to the first console line and to exit, for hello;
  - QEMU start to the first answered ping, for udp_echo;
  - image sizes (the stripped Keel image; the kernel plus initramfs);
  - the smallest memory each runs in; the host CPU an idle udp_echo costs.
Also QEMU start to exit of a minimal PVH kernel beside hello on microvm, pc
and q35 (QEMU's own share). Writes boot.md, boot.csv and boot.png.

  bench/boot/run.sh [--runs N] [--quick]"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [os.path.join(ROOT, "tools"), os.path.join(ROOT, "bench", "linux-vm"),
                os.path.join(ROOT, "test", "integration")]
from keelpy import accel, bench_report, build, qemu  # noqa: E402
from keelpy.bench_report import Comparison  # noqa: E402
import linux_guest  # noqa: E402
from measure import idle_cpu, smallest_memory, tap_args, timed_boot  # noqa: E402
from netguest import Namespace  # noqa: E402

MEMORY = "128M"  # both sides; the smallest each needs is measured separately
HELLO_LINE = r"Hello from"
ECHO_READY = r"listening on"
BOOT_TIMEOUT = 60
MEMORY_PROBE_TIMEOUT = 20  # a guest short of memory may hang rather than fail
ADDRESS = "ip=10.0.0.2/24"


def build_minimal(workdir):
    obj, elf = os.path.join(workdir, "minimal.o"), os.path.join(workdir, "minimal.elf")
    subprocess.run(["gcc", "-m32", "-c", os.path.join(HERE, "minimal.S"), "-o", obj], check=True)
    subprocess.run(["ld", "-m", "elf_i386", "-e", "start", "-Ttext=0x100000", "-o", elf, obj],
                   check=True)
    return elf


def summary(samples):
    ms = sorted(s * 1000 for s in samples)
    return statistics.median(ms), ms[0], ms[-1]


def median_ms(samples):
    return statistics.median(samples) * 1000 if samples else None


class Sides:
    """The QEMU lines of the two sides for hello and udp_echo."""

    def __init__(self, workdir):
        hello = build.build(os.path.join(ROOT, "examples", "hello"), "kvm", quiet=True)
        echo = build.build(os.path.join(ROOT, "examples", "udp_echo"), "kvm", quiet=True)
        self.keel_images = {"hello": hello, "udp_echo": echo}
        self.linux = linux_guest.build("echo")

    def keel(self, service, memory=MEMORY, net=False):
        return qemu.command(self.keel_images[service], "microvm", memory, 1,
                            ADDRESS if net else "", "tcg", tap_args() if net else [])

    def linux_vm(self, service, memory=MEMORY, net=False):
        append = f"run={service}" + (f" {ADDRESS}" if net else "")
        return self.linux.command("microvm", memory, append, "tcg", tap_args() if net else [])

    def command(self, side, service, memory=MEMORY, net=False):
        return (self.keel if side == "keel" else self.linux_vm)(service, memory, net)

    def stripped_size(self, service, workdir):
        stripped = os.path.join(workdir, service + ".stripped")
        subprocess.run(["strip", "-o", stripped, self.keel_images[service]], check=True)
        return os.path.getsize(stripped)

    def linux_size(self):
        return os.path.getsize(self.linux.kernel) + os.path.getsize(self.linux.initrd)


def hello_boot(sides, side, memory=MEMORY, timeout=BOOT_TIMEOUT):
    boot = timed_boot(sides.command(side, "hello", memory), line=HELLO_LINE, timeout=timeout)
    ok = boot.exit is not None and qemu.status_of(boot.status) == 0
    return boot, ok


def echo_boot(sides, side, memory=MEMORY, timeout=BOOT_TIMEOUT, static_arp=True):
    ns = Namespace(taps=1)
    try:
        return timed_boot(sides.command(side, "udp_echo", memory, net=True), ns=ns,
                          address=ns.guest(), timeout=timeout, wait_exit=False,
                          static_arp=static_arp)
    finally:
        ns.close()


def compare(sides, runs, idle_seconds, quick, workdir):
    """Every figure of both sides, alternating Keel and Linux run by run."""
    first, exit_, ping = ({"keel": [], "linux": []} for _ in range(3))
    for i in range(runs):
        for side in ("keel", "linux"):
            boot, ok = hello_boot(sides, side)
            if not ok:
                sys.exit(f"hello failed on the {side} side (QEMU status {boot.status}):\n"
                         f"{boot.output.decode(errors='replace')}")
            first[side].append(boot.line)
            exit_[side].append(boot.exit)
            boot = echo_boot(sides, side)
            if boot.ping is None:
                sys.exit(f"udp_echo on the {side} side answered no ping:\n"
                         f"{boot.output.decode(errors='replace')}")
            ping[side].append(boot.ping)
        print(f"  run {i + 1}/{runs}: first ping keel {ping['keel'][-1] * 1000:.0f} ms, "
              f"linux {ping['linux'][-1] * 1000:.0f} ms", flush=True)

    idle = {}
    for side in ("keel", "linux"):
        ns = Namespace(taps=1)
        try:
            idle[side] = idle_cpu(sides.command(side, "udp_echo", net=True), ECHO_READY, ns,
                                  idle_seconds)
        finally:
            ns.close()
    print(f"  idle CPU: keel {idle['keel']:.2f} %, linux {idle['linux']:.2f} %", flush=True)

    memory = {}
    for side, high in (("keel", 64), ("linux", 512)):
        hello_ok = lambda m: hello_boot(sides, side, f"{m}M", MEMORY_PROBE_TIMEOUT)[1]  # noqa
        # Without a static ARP entry: answering ARP needs a free buffer (issue 24).
        echo_ok = lambda m: echo_boot(sides, side, f"{m}M",  # noqa: E731
                                      MEMORY_PROBE_TIMEOUT, static_arp=False).ping is not None
        low = high - 1 if quick else 1  # quick: one probe that `high` works, no search
        memory[side] = (smallest_memory(hello_ok, low, high), smallest_memory(echo_ok, low, high))
        print(f"  smallest memory ({side}): hello {memory[side][0]} MiB, "
              f"udp_echo {memory[side][1]} MiB", flush=True)

    kib = 1024
    linux_kib = sides.linux_size() / kib
    return [
        Comparison("hello: QEMU start → first console line", "ms", median_ms(first["keel"]),
                   median_ms(first["linux"])),
        Comparison("hello: QEMU start → exit", "ms", median_ms(exit_["keel"]),
                   median_ms(exit_["linux"])),
        Comparison("udp_echo: QEMU start → first answered ping", "ms", median_ms(ping["keel"]),
                   median_ms(ping["linux"]), goal=50),
        Comparison("hello: image (Linux: kernel + initramfs)", "KiB",
                   sides.stripped_size("hello", workdir) / kib, linux_kib),
        Comparison("udp_echo: image (Linux: kernel + initramfs)", "KiB",
                   sides.stripped_size("udp_echo", workdir) / kib, linux_kib, goal=20),
        Comparison("hello: smallest memory", "MiB", memory["keel"][0], memory["linux"][0]),
        Comparison("udp_echo: smallest memory (answers ping)", "MiB", memory["keel"][1],
                   memory["linux"][1], goal=20),
        Comparison("udp_echo: idle host CPU", "% of a core", idle["keel"], idle["linux"]),
    ]


def machine_table(hello, runs, machines):
    """hello beside the minimal PVH kernel on each machine type (Keel only)."""
    rows = []
    with tempfile.TemporaryDirectory() as work:
        minimal = build_minimal(work)
        for machine, accel_name in machines:
            base, first, done = [], [], []
            for _ in range(runs):  # interleaved, so drift hits both alike
                base.append(timed_boot(qemu.command(minimal, machine, "64M", 1, "",
                                                    accel_name)).exit)
                boot = timed_boot(qemu.command(hello, machine, "64M", 1, "", accel_name),
                                  line=HELLO_LINE)
                if qemu.status_of(boot.status) != 0:
                    sys.exit(f"hello failed on {machine}/{accel_name}: status {boot.status}")
                first.append(boot.line)
                done.append(boot.exit)
            rows.append((machine, accel_name, summary(base), summary(first), summary(done)))
            print(f"  {machine}/{accel_name}: minimal {rows[-1][2][0]:.1f} ms, hello first "
                  f"line {rows[-1][3][0]:.1f} ms, exit {rows[-1][4][0]:.1f} ms", flush=True)
    return rows


def write_report(out, args, comparisons, machines, kvm_problem):
    cell = lambda s: f"{s[0]:.1f} [{s[1]:.1f}–{s[2]:.1f}]"  # noqa: E731
    lines = ["# Boot benchmark", "",
             f"`tools/keel bench boot{' --quick' if args.quick else ''}` (runs {args.runs}), "
             f"{bench_report.machine_line('tcg')}.", "",
             "## Keel beside a Linux guest on the same QEMU line", "",
             f"microvm, TCG, `-m {MEMORY}`, virtio-net-device on a TAP; the Linux guest is "
             "Debian's cloud kernel with a busybox initramfs (bench/linux-vm/, "
             "docs/decisions/0070). Times are medians of "
             f"{args.runs} runs in milliseconds from spawning QEMU, Keel and Linux alternating. "
             "The first console line is the service's own (`Hello from ...`); the first ping "
             "is the first ICMP echo reply to a request sent every millisecond with a static "
             "ARP entry. Idle CPU: QEMU's user+system time over "
             f"{args.idle_seconds:g} s while udp_echo waits for packets.", ""]
    lines += bench_report.comparison_table(comparisons)
    if args.quick:
        lines += ["", "Quick run: the smallest memory is not searched; the figure is the "
                  "memory the guest was shown to run in (an upper bound)."]
    lines += ["", "Keel ÷ Linux below 1 means Keel is smaller or faster. There is no Linux "
              "netns column here: a process in a namespace neither boots nor has an image.", "",
              "## QEMU's own share: hello beside a minimal PVH kernel", "",
              f"Medians of {args.runs} runs, min–max in brackets, `-m 64M`. The minimal "
              "kernel (bench/boot/minimal.S) only exits.", ""]
    if kvm_problem:
        lines += [f"KVM rows are missing: {kvm_problem} (see docs/decisions/0003).", ""]
    lines += ["| machine | accel | minimal: exit | hello: first line | hello: exit | "
              "hello − minimal |", "| --- | --- | --- | --- | --- | --- |"]
    for machine, accel_name, b, f, e in machines:
        lines.append(f"| {machine} | {accel_name} | {cell(b)} | {cell(f)} | {cell(e)} | "
                     f"{e[0] - b[0]:+.1f} |")
    with open(os.path.join(out, "boot.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--idle-seconds", type=float, default=10)
    parser.add_argument("--quick", action="store_true",
                        help="a few seconds, to show the script works (CI); "
                             "writes to build/bench-quick/")
    args = parser.parse_args()
    if args.quick:
        args.runs, args.idle_seconds = 1, 1
    out = bench_report.results_dir(args.quick)
    kvm_problem = accel.kvm_problem()
    machines = [("microvm", "tcg")] if args.quick else [("microvm", "tcg"), ("pc", "tcg"),
                                                         ("q35", "tcg")]
    if kvm_problem is None and not args.quick:
        machines = [("microvm", "kvm"), ("pc", "kvm")] + machines
    with tempfile.TemporaryDirectory() as work:
        sides = Sides(work)
        print("boot: Keel beside the Linux guest", flush=True)
        comparisons = compare(sides, args.runs, args.idle_seconds, args.quick, work)
        print("boot: QEMU's own share per machine type", flush=True)
        machine_rows = machine_table(sides.keel_images["hello"], args.runs, machines)
    write_report(out, args, comparisons, machine_rows, kvm_problem)
    bench_report.write_csv(os.path.join(out, "boot.csv"), comparisons)
    bench_report.plot_comparisons(os.path.join(out, "boot.png"),
                                  "Boot: Keel beside a Linux guest (microvm, TCG)", comparisons)
    print(f"boot: wrote {out}/boot.md, boot.csv, boot.png", flush=True)


if __name__ == "__main__":
    main()

"""Boot benchmark: QEMU start to the first console line and to exit for
examples/hello, next to a minimal PVH kernel that only exits, in one run;
the stripped image size; the smallest -m at which hello still runs.
Writes bench/results/boot.md."""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from keelpy import accel, build, qemu  # noqa: E402


def build_minimal(workdir):
    obj, elf = os.path.join(workdir, "minimal.o"), os.path.join(workdir, "minimal.elf")
    subprocess.run(["gcc", "-m32", "-c", os.path.join(HERE, "minimal.S"), "-o", obj], check=True)
    subprocess.run(["ld", "-m", "elf_i386", "-e", "start", "-Ttext=0x100000", "-o", elf, obj],
                   check=True)
    return elf


def one_boot(image, machine, accel_name, memory="64M"):
    """Seconds from spawning QEMU to the first console byte and to its exit."""
    args = qemu.command(image, machine, memory, 1, "", accel_name)
    start = time.monotonic()
    proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    first = None
    while True:
        chunk = os.read(proc.stdout.fileno(), 4096)
        if not chunk:
            break
        if first is None:
            first = time.monotonic() - start
    proc.wait()
    return first, time.monotonic() - start, proc.returncode


def summary(samples):
    ms = sorted(s * 1000 for s in samples)
    return statistics.median(ms), ms[0], ms[-1]


def smallest_memory(image):
    """Binary search in MiB for the smallest -m at which hello exits with 0."""
    low, high = 1, 64  # low fails (QEMU's minimum is above it), high works
    while high - low > 1:
        mid = (low + high) // 2
        _, _, status = one_boot(image, "microvm", "tcg", f"{mid}M")
        if qemu.status_of(status) == 0:
            high = mid
        else:
            low = mid
    return high


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    hello = build.build(os.path.join(ROOT, "examples", "hello"), "kvm", quiet=True)
    kvm_problem = accel.kvm_problem()
    configs = [("microvm", "tcg"), ("pc", "tcg"), ("q35", "tcg")]
    if kvm_problem is None:
        configs = [("microvm", "kvm"), ("pc", "kvm")] + configs
    rows = []
    with tempfile.TemporaryDirectory() as work:
        minimal = build_minimal(work)
        stripped = os.path.join(work, "hello.stripped")
        subprocess.run(["strip", "-o", stripped, hello], check=True)
        for machine, accel_name in configs:
            base_exit, hello_first, hello_exit = [], [], []
            for _ in range(args.runs):  # interleaved, so drift hits both alike
                base_exit.append(one_boot(minimal, machine, accel_name)[1])
                first, done, status = one_boot(hello, machine, accel_name)
                if qemu.status_of(status) != 0:
                    sys.exit(f"hello failed on {machine}/{accel_name}: status {status}")
                hello_first.append(first)
                hello_exit.append(done)
            b, f, e = summary(base_exit), summary(hello_first), summary(hello_exit)
            rows.append((machine, accel_name, b, f, e))
            print(f"{machine}/{accel_name}: minimal {b[0]:.1f} ms, hello first line {f[0]:.1f} ms, "
                  f"exit {e[0]:.1f} ms (+{e[0] - b[0]:.1f} ms)", flush=True)
        size = os.path.getsize(stripped)
        memory = smallest_memory(hello)

    lines = ["# Boot benchmark", "",
             f"`bench/boot/run.sh --runs {args.runs}`, {time.strftime('%Y-%m-%d')}, "
             f"{os.cpu_count()} cores. Medians of {args.runs} runs, min–max in brackets, "
             "milliseconds from spawning QEMU. The minimal kernel only exits: its time is "
             "QEMU's own share.", ""]
    if kvm_problem:
        lines += [f"KVM rows are missing: {kvm_problem} (see docs/decisions/0003).", ""]
    lines += ["| machine | accel | minimal: exit | hello: first line | hello: exit | hello − minimal |",
              "| --- | --- | --- | --- | --- | --- |"]
    for machine, accel_name, b, f, e in rows:
        cell = lambda s: f"{s[0]:.1f} [{s[1]:.1f}–{s[2]:.1f}]"  # noqa: E731
        lines.append(f"| {machine} | {accel_name} | {cell(b)} | {cell(f)} | {cell(e)} | "
                     f"{e[0] - b[0]:+.1f} |")
    lines += ["", f"- stripped hello image: {size} bytes ({size / 1024:.0f} KiB)",
              f"- smallest memory at which hello runs (microvm, TCG): {memory} MiB", ""]
    out = os.path.join(ROOT, "bench", "results", "boot.md")
    with open(out, "w") as f:
        f.write("\n".join(lines))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Two udp_echo images side by side (an A/B of a change), not a test:

  bench/net/ab.py OLD_IMAGE NEW_IMAGE [--rounds 7] [--seconds 4] [--out FILE.md]

Boots both on the same QEMU line (microvm, TCG, 128 MiB, virtio-net on a
TAP each) and measures, alternating A and B in every round, ping round
trips and UDP echo packets/s at 64 and 1400 bytes (bench/net/udp_load.c).
Prints medians and the ratio B/A; with --out, writes them as a table.
"""
import argparse
import os
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_net  # noqa: E402
from bench_net import Namespace, Vm, compile_tools, ping_rtts, qemu, tap_args, udp_pps, wait_answering  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=4)
    parser.add_argument("--pings", type=int, default=200)
    parser.add_argument("--out")
    args = parser.parse_args()
    images = {"A (old)": args.old, "B (new)": args.new}
    with tempfile.TemporaryDirectory(prefix="keel-bench-ab-") as tmp:
        tools = compile_tools(tmp)
        ns, vms = Namespace(taps=2), []
        try:
            targets = {}
            for i, (label, image) in enumerate(images.items()):
                vms.append(Vm(ns, f"tap{i}", qemu.command(image, "microvm", bench_net.MEMORY, 1,
                                                          f"ip={ns.guest(i)}/24", "tcg",
                                                          tap_args(f"tap{i}"))))
                targets[label] = ns.guest(i)
            for address in targets.values():
                wait_answering(ns, address)
            figures = {label: {"rtt": [], 64: [], 1400: []} for label in targets}
            for r in range(args.rounds):
                order = list(targets.items())
                if r % 2:
                    order.reverse()  # neither side always goes first
                for label, address in order:
                    f = figures[label]
                    f["rtt"].append(statistics.median(ping_rtts(ns, address, args.pings)))
                    for size in (64, 1400):
                        f[size].append(udp_pps(ns, tools["udp_load"], address, size, args.seconds))
                print(f"round {r + 1}/{args.rounds}: " + "; ".join(
                    f"{label} rtt {figures[label]['rtt'][-1]:.3f} ms, 64 B {figures[label][64][-1]}, "
                    f"1400 B {figures[label][1400][-1]} pkt/s" for label in targets), flush=True)
        finally:
            for vm in vms:
                vm.close()
            ns.close()
    a, b = (figures[label] for label in images)
    rows = [("ping round trip, median of round medians", "ms", "rtt"),
            ("UDP echo, 64 B", "pkt/s", 64), ("UDP echo, 1400 B", "pkt/s", 1400)]
    lines = ["| figure | A (old) | B (new) | B / A |", "| --- | --- | --- | --- |"]
    for name, unit, key in rows:
        ma, mb = statistics.median(a[key]), statistics.median(b[key])
        lines.append(f"| {name} ({unit}) | {ma:.3f} | {mb:.3f} | {mb / ma:.2f} |" if key == "rtt"
                     else f"| {name} ({unit}) | {ma:.0f} | {mb:.0f} | {mb / ma:.2f} |")
    print("\n".join(lines))
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()

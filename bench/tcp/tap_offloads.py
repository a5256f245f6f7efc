#!/usr/bin/python3
"""iperf3 against the Linux-process build with its TAP offloads on and with tso=off (decision
0094), interleaved. Not a test: the default takes about a minute.

  bench/tcp/tap_offloads.py [--rounds 5] [--seconds 5] [--out FILE]

Two namespaces this script makes, each with Keel's examples/iperf3 built for Linux on a TAP
(test/net/tcp_harness.py): one as it starts by default (IFF_VNET_HDR; checksums and 64 KiB TCP
segments both ways), one with tso=off (checksum offload only, MSS-sized segments). Every round
runs `iperf3 -c` (Keel receiving) and `iperf3 -c -R` (Keel sending) against both, the order
alternating between rounds so that drift hits both alike. Writes a markdown summary: every
round, the medians, and the load average (1 min) before and after. KEEL_NETNS_PREFIX names
the namespaces. bench/tcp/run.sh measures the same two beside the image and Linux.
"""
import argparse
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "test", "net"))
from tcp_harness import KEEL, LINUX_TSO_OFF, Net, run  # noqa: E402

IPERF = "examples/iperf3"
TARGETS = {"offloads on": "linux", "tso=off": LINUX_TSO_OFF}
DIRECTIONS = {"Keel receiving": [], "Keel sending (-R)": ["-R"]}


def iperf3(net, seconds, extra):
    out = run(net.args(["iperf3", "-c", KEEL, "-t", str(seconds), "-J", *extra]),
              timeout=seconds + 60, check=False).stdout
    report = json.loads(out)
    if "error" in report:
        raise RuntimeError(f"iperf3 {' '.join(extra)}: {report['error']}")
    return report["end"]["sum_received"]["bits_per_second"] / 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--out", default=os.path.join(ROOT, "build", "tap_offloads.md"))
    args = parser.parse_args()
    prefix = os.environ.get("KEEL_NETNS_PREFIX", "keel-tap")
    load_before = os.getloadavg()
    started = time.monotonic()
    rates = {(t, d): [] for t in TARGETS for d in DIRECTIONS}
    nets = {}
    try:
        for target, platform in TARGETS.items():
            nets[target] = Net(prefix=prefix)
            nets[target].keel(IPERF, platform, ready="listening on")
        for r in range(args.rounds):
            order = list(TARGETS) if r % 2 == 0 else list(reversed(TARGETS))
            for target in order:
                for direction, extra in DIRECTIONS.items():
                    rates[target, direction].append(iperf3(nets[target], args.seconds, extra))
                print(f"round {r + 1}/{args.rounds} {target}: " + ", ".join(
                    f"{d} {rates[target, d][-1]:,.0f}" for d in DIRECTIONS), flush=True)
    finally:
        for net in nets.values():
            net.close()
    rows = ["# iperf3 to the Linux-process build: TAP offloads on and tso=off",
            "",
            f"`bench/tcp/tap_offloads.py --rounds {args.rounds} --seconds {args.seconds}`, "
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
            f"{time.monotonic() - started:.0f} s; load average (1 min) {load_before[0]:.1f} "
            f"before, {os.getloadavg()[0]:.1f} after. Mbit/s received, medians over rounds; "
            "the two targets alternate within each round.",
            "",
            "| direction | offloads on | tso=off | on ÷ off | rounds, on | rounds, off |",
            "|---|---|---|---|---|---|"]
    for direction in DIRECTIONS:
        on, off = rates["offloads on", direction], rates["tso=off", direction]
        m_on, m_off = statistics.median(on), statistics.median(off)
        rows.append(f"| {direction} | {m_on:,.0f} | {m_off:,.0f} | {m_on / m_off:.2f}× | "
                    + ", ".join(f"{v:,.0f}" for v in on) + " | "
                    + ", ".join(f"{v:,.0f}" for v in off) + " |")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        f.write("\n".join(rows) + "\n")
    print("\n".join(rows) + f"\n(wrote {args.out})")


if __name__ == "__main__":
    main()

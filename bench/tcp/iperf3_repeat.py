#!/usr/bin/python3
"""iperf3 with four parallel streams against one Keel guest, many times in a row (issue 24's
check that the `-P 4` hang seen in CI is gone). Not a test: 200 runs take about 15 minutes.

  bench/tcp/iperf3_repeat.py [--runs 200] [--seconds 2] [--platform kvm|linux] [--out FILE]

Each run is `iperf3 -c 10.0.0.2 -P 4` (every second run with -R, Keel sending) from Linux in a
namespace this script makes, against examples/iperf3 (the image under TCG on a TAP, or the
Linux-process build). A run that has not ended `seconds + 60` s after it started is a hang: the
script prints what the guest printed and the namespace's sockets, and stops. It writes a
markdown summary (runs, hangs, failures, Mbit/s spread, the load average before and after).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "test", "net"))
from tcp_harness import KEEL, Net, run  # noqa: E402

IPERF = "examples/iperf3"
HANG_GRACE_SECONDS = 60


def one_run(net, seconds, reverse):
    """('ok', Mbit/s) | ('failed', message) | ('hung', None)."""
    command = ["iperf3", "-c", KEEL, "-t", str(seconds), "-P", "4", "-J", *(["-R"] if reverse else [])]
    try:
        out = run(net.args(command), timeout=seconds + HANG_GRACE_SECONDS, check=False).stdout
    except subprocess.TimeoutExpired:
        return "hung", None
    try:
        report = json.loads(out)
    except json.JSONDecodeError:
        return "failed", out[-300:]
    if "error" in report:
        return "failed", report["error"]
    if len(report["end"]["streams"]) != 4:
        return "failed", f"{len(report['end']['streams'])} streams"
    return "ok", report["end"]["sum_received"]["bits_per_second"] / 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--seconds", type=int, default=2)
    parser.add_argument("--platform", choices=["kvm", "linux"], default="kvm")
    parser.add_argument("--out", default=os.path.join(ROOT, "build", "iperf3_repeat.md"))
    args = parser.parse_args()
    load_before = os.getloadavg()
    started = time.monotonic()
    net = Net()
    rates, failures, hung_at = {False: [], True: []}, [], None
    try:
        guest = net.keel(IPERF, args.platform, ready="listening on")
        for i in range(args.runs):
            reverse = i % 2 == 1
            verdict, value = one_run(net, args.seconds, reverse)
            if verdict == "ok":
                rates[reverse].append(value)
            elif verdict == "failed":
                failures.append((i, value))
                print(f"run {i + 1}: failed: {value}", flush=True)
            else:
                hung_at = i + 1
                print(f"run {i + 1} ({'-R' if reverse else 'forward'}): HUNG; the guest said:\n"
                      f"{net.output(guest)[-3000:]}\nsockets:\n"
                      f"{net.sh('ss -tni', check=False).stdout}", flush=True)
                break
            if (i + 1) % 20 == 0:
                print(f"{i + 1} runs, {len(failures)} failed", flush=True)
    finally:
        net.close()
    done = sum(len(r) for r in rates.values()) + len(failures)
    target = "image (microvm, TCG)" if args.platform == "kvm" else "Linux process"
    rows = [f"# iperf3 -P 4, {args.runs} runs in a row against one Keel {target}",
            "",
            f"`bench/tcp/iperf3_repeat.py --runs {args.runs} --seconds {args.seconds} "
            f"--platform {args.platform}`, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
            f"{time.monotonic() - started:.0f} s; load average {load_before[0]:.1f} before, "
            f"{os.getloadavg()[0]:.1f} after.",
            "",
            f"- runs ended: {done} of {args.runs}; hung: {'run ' + str(hung_at) if hung_at else 'none'}; "
            f"failed: {len(failures)} {failures[:5] if failures else ''}"]
    for reverse, name in ((False, "Keel receiving"), (True, "Keel sending (-R)")):
        if rates[reverse]:
            r = rates[reverse]
            rows.append(f"- {name}: median {statistics.median(r):.0f} Mbit/s, "
                        f"min {min(r):.0f}, max {max(r):.0f} ({len(r)} runs)")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        f.write("\n".join(rows) + "\n")
    print("\n".join(rows) + f"\n(wrote {args.out})")
    return 1 if hung_at or failures else 0


if __name__ == "__main__":
    sys.exit(main())

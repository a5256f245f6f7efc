#!/usr/bin/python3
"""The soak benchmark (issue 24): the firewall appliance under mixed load for a long time,
watched for stalls, hangs, errors and memory. Not part of `keel bench` (an hour) nor of CI;
test/integration/test_soak.py runs two minutes of it.

  bench/soak/run.sh [--minutes 60] [--slice 10] [--out DIR] [--quick]     (keel bench soak)

examples/firewall as an image (microvm, TCG, virtio-net with EVENT_IDX, QEMU's default)
routes between side A (10.0.0.0/24) and side B (10.1.0.0/24), in namespaces this script
makes (test/firewall/appliance_net.py). All at once, until the time is up:
  - TCP bulk: iperf3 from A to B, then B to A (-R), a slice each in turn;
  - connections: `tcp_rr crr`, a new connection per request, one after another (some
    thousands a slice);
  - UDP: `udp_load`, 32 datagrams of 1,400 bytes in flight to B's echo server;
  - pings: A pings B through the firewall 5 times a second;
  - rule pushes: every 30 s a new rule set over the management port (push_rules.py), the two
    sets in turn, both accepting the load;
  - memory: the appliance prints os::memory_in_use() every 5 s (stats=5).
A tool that does not end within its slice plus 60 s is a hang (killed and counted); a slice that
moved nothing, or 10 s without a ping answer, is a stall. Memory is flat when the median of the
last quarter of samples is at most that of the second quarter (after the warm-up) plus 1 MiB.
Writes soak.md (one row a minute) and soak.json to --out (default bench/results)."""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [os.path.join(ROOT, "tools"), os.path.join(ROOT, "test", "firewall"),
                os.path.join(ROOT, "bench", "firewall-vm")]
from keelpy import bench_report  # noqa: E402
import appliance_net as net  # noqa: E402
import bench_firewall_vm  # noqa: E402

B = "10.1.0.1"
TCP_PORT, IPERF_PORT, UDP_SIZE, UDP_WINDOW = 8080, 5201, 1400, 32
PUSH_EVERY, MEMORY_EVERY, PING_STALL = 30, 5, 10.0
# iperf3's server closes and opens its listener again after each test: a client that connects
# meanwhile is queued on the closing one and reset ("unable to receive control message:
# Connection reset by peer"; esnet/iperf pull request 2066). Seen twice in an hour, so each run
# waits this long after the one before.
IPERF_GAP = 0.5
HANG_GRACE = 60
# Two rule sets pushed in turn: stateful, both accepting the load, each dropping one port.
RULES = ["interface eth0 { }\ninterface eth1 { }\nchain forward hook forward policy accept {\n"
         f"  ct state established,related accept\n  {port} drop\n}}\n"
         for port in ("tcp dport 22", "udp dport 9")]


class Soak:
    def __init__(self, router, seconds, slice_seconds, blobs):
        self.router, self.slice, self.blobs = router, slice_seconds, blobs
        self.start = time.monotonic()
        self.end = self.start + seconds
        self.records = []  # {"t", "load", "value", "ok", "hang", "detail"}
        self.memory = []  # (t, bytes)
        self.lock = threading.Lock()
        self.ping_replies, self.ping_window = [], (0, 0)

    def record(self, load, value, ok=True, hang=False, detail=""):
        with self.lock:
            self.records.append({"t": time.monotonic() - self.start, "load": load, "value": value, "ok": ok,
                                 "hang": hang, "detail": detail[-300:]})

    def tool(self, side, command, seconds):
        """Runs a load tool for a slice; (stdout, hung)."""
        try:
            out = side.sh(f"exec {command}", timeout=seconds + HANG_GRACE, check=False)
            return out.stdout + out.stderr, False
        except subprocess.TimeoutExpired:
            return "", True

    def tcp_bulk(self):
        reverse = False
        while time.monotonic() < self.end:
            load = "tcp B->A" if reverse else "tcp A->B"
            out, hung = self.tool(self.router.sides[0], f"iperf3 -c {B} -p {IPERF_PORT} -t {self.slice} -J "
                                  f"--connect-timeout 3000{' -R' if reverse else ''}", self.slice)
            try:
                bits = json.loads(out)["end"]["sum_received"]["bits_per_second"]
                self.record(load, bits / 1e6, ok=bits > 0)
            except (ValueError, KeyError):
                self.record(load, 0, ok=False, hang=hung, detail=out)
            reverse = not reverse
            time.sleep(IPERF_GAP)

    def counted(self, load, command, word):
        while time.monotonic() < self.end:
            out, hung = self.tool(self.router.sides[0], command, self.slice)
            value = bench_firewall_vm.first_number(out, word)
            self.record(load, value or 0, ok=bool(value), hang=hung, detail="" if value else out)

    def pushes(self):
        generation, turn = 1, 0
        while time.monotonic() + PUSH_EVERY < self.end:
            time.sleep(PUSH_EVERY)
            generation += 1
            began = time.monotonic()
            result = self.router.sides[0].sh(
                f"{net.DEBIAN_PYTHON} {os.path.join(net.FIREWALL, 'push_rules.py')} {net.SUBNETS[0]}{net.ROUTER_HOST} "
                f"{net.MGMT_PORT} {net.KEY} {self.blobs[turn]} --generation {generation}", check=False,
                timeout=120)
            self.record("rule push", time.monotonic() - began, ok=result.returncode == 0,
                        detail=result.stdout + result.stderr)
            turn = 1 - turn

    def memory_samples(self):
        while time.monotonic() < self.end:
            found = re.findall(r"^firewall: memory in_use=(\d+)", self.router.guest.output(), re.M)
            if found:
                with self.lock:
                    self.memory.append((time.monotonic() - self.start, int(found[-1])))
            time.sleep(MEMORY_EVERY)

    def run(self):
        side_a, side_b = self.router.sides
        tools = bench_firewall_vm.TOOLS
        servers = [subprocess.Popen(["ip", "netns", "exec", side_b.name, *args], stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
                   for args in ([os.path.join(tools, "udp_echo_server"), "7"],
                                [os.path.join(tools, "tcp_rr"), "serve", str(TCP_PORT)],
                                ["iperf3", "-s", "-p", str(IPERF_PORT)])]
        # The loads start once the servers listen (iperf3 was refused once when it came first).
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and len(side_b.sh(
                f"ss -Hltn '( sport = :{IPERF_PORT} or sport = :{TCP_PORT} )'").stdout.splitlines()) < 2:
            time.sleep(0.05)
        seconds = int(self.end - time.monotonic())
        self.ping_window = (time.time(), time.time() + seconds)
        # To a file, not a pipe: read only at the end, a pipe's 64 KiB filled after ~850 lines
        # and stopped ping (which an hour's run showed as 57 minutes without an answer).
        ping_out = tempfile.TemporaryFile(mode="w+")
        ping = subprocess.Popen(["ip", "netns", "exec", side_a.name, "ping", "-n", "-D", "-i", "0.2", "-W", "1",
                                 "-w", str(seconds), B], stdout=ping_out, text=True)
        loads = [self.tcp_bulk, self.memory_samples, self.pushes,
                 lambda: self.counted("connections", f"{os.path.join(tools, 'tcp_rr')} crr {B} {TCP_PORT} "
                                      f"{self.slice}", "cps"),
                 lambda: self.counted("udp echo", f"{os.path.join(tools, 'udp_load')} {B} {UDP_SIZE} {self.slice} "
                                      f"{UDP_WINDOW}", "pps")]
        threads = [threading.Thread(target=load, daemon=True) for load in loads]
        try:
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            ping.wait(timeout=HANG_GRACE)
            ping_out.seek(0)
            out = ping_out.read()
            self.ping_replies = [float(m) for m in re.findall(r"^\[(\d+\.\d+)\] \d+ bytes from", out, re.M)]
        finally:
            if ping.poll() is None:
                ping.kill()
            bench_firewall_vm.stop(servers)


def ping_gaps(replies, window):
    """The longest time without a ping answer in ping's window, edges included (s)."""
    times = [window[0]] + sorted(replies) + [window[1]]
    return max(b - a for a, b in zip(times, times[1:]))


def memory_flat(samples):
    """(flat, second-quarter median, last-quarter median) of the memory samples."""
    values = [v for _, v in samples]
    if len(values) < 8:
        return False, None, None
    q = len(values) // 4
    second, last = statistics.median(values[q:2 * q]), statistics.median(values[-q:])
    return last <= second + (1 << 20), second, last


def summary(soak, minutes):
    records = soak.records
    hangs = [r for r in records if r["hang"]]
    stalls = [r for r in records if not r["ok"] and r["load"] != "rule push"]
    failed_pushes = [r for r in records if r["load"] == "rule push" and not r["ok"]]
    gap = ping_gaps(soak.ping_replies, soak.ping_window)
    flat, second, last = memory_flat(soak.memory)
    return {"minutes": minutes, "records": records, "memory": soak.memory, "hangs": len(hangs),
            "stalls": len(stalls) + (1 if gap >= PING_STALL else 0), "failed_pushes": len(failed_pushes),
            "pushes": sum(r["load"] == "rule push" for r in records), "longest_ping_gap_s": gap,
            "pings_answered": len(soak.ping_replies), "memory_flat": flat,
            "memory_second_quarter": second, "memory_last_quarter": last,
            "problems": [r for r in hangs + stalls + failed_pushes]}


def report_lines(result, load):
    lines = ["# Soak: the firewall appliance under mixed load", "",
             f"`bench/soak/run.sh --minutes {result['minutes']:g}`, {bench_report.machine_line('tcg')}; host load "
             f"average {load[0]:.1f} at the start, {load[1]:.1f} at the end. What runs and what counts as a hang, "
             "a stall and flat memory: bench/soak/soak.py.", "",
             f"- hangs: {result['hangs']}; stalls: {result['stalls']}; rule pushes: {result['pushes']}, failed "
             f"{result['failed_pushes']}",
             f"- pings answered: {result['pings_answered']}; longest time without an answer: "
             f"{result['longest_ping_gap_s']:.1f} s",
             f"- memory in use (median, MiB): {mib(result['memory_second_quarter'])} in the second quarter, "
             f"{mib(result['memory_last_quarter'])} in the last: {'flat' if result['memory_flat'] else 'NOT flat'}",
             "", "| minute | TCP A→B Mbit/s | TCP B→A Mbit/s | connections/s | UDP echoes/s | memory MiB (max) |",
             "| --- | --- | --- | --- | --- | --- |"]
    for minute in range(int(result["minutes"] + 0.999)):
        def median(load):
            values = [r["value"] for r in result["records"] if r["load"] == load and minute * 60 <= r["t"] < minute * 60 + 60]
            return f"{statistics.median(values):,.0f}" if values else "—"
        memory = [v for t, v in result["memory"] if minute * 60 <= t < minute * 60 + 60]
        lines.append(f"| {minute + 1} | {median('tcp A->B')} | {median('tcp B->A')} | {median('connections')} | "
                     f"{median('udp echo')} | {mib(max(memory)) if memory else '—'} |")
    if result["problems"]:
        lines += ["", "Problems:", ""] + [f"- {r['t']:.0f} s {r['load']}: {'hang' if r['hang'] else 'failed'} "
                                          f"{r['detail'][:200]!r}" for r in result["problems"][:20]]
    return lines + [""]


def mib(value):
    return "—" if value is None else f"{value / (1 << 20):.1f}"


def compile_rules(work):
    blobs = []
    for i, text in enumerate(RULES):
        source, blob = os.path.join(work, f"soak{i}.fw"), os.path.join(work, f"soak{i}.bin")
        with open(source, "w") as f:
            f.write(text)
        net.keelfw("compile", source, "-o", blob)
        blobs.append(blob)
    return blobs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=60)
    parser.add_argument("--slice", type=int, default=10, help="seconds per load tool run")
    parser.add_argument("--out")
    parser.add_argument("--quick", action="store_true", help="one minute, into build/bench-quick/")
    args = parser.parse_args()
    if args.quick:
        args.minutes = 1
    args.out = args.out or bench_report.results_dir(args.quick)
    bench_firewall_vm.compile_tools()
    work = os.path.join(ROOT, "build", "bench-soak")
    os.makedirs(work, exist_ok=True)
    blobs = compile_rules(work)
    load_began = os.getloadavg()[0]
    router = net.KeelRouter("soak", blobs[0], machine="microvm", extra=f"stats={MEMORY_EVERY}")
    try:
        router.load(blobs[0])
        soak = Soak(router, args.minutes * 60, args.slice, blobs)
        print(f"soak: {args.minutes:g} minutes of mixed load through the firewall image", flush=True)
        soak.run()
        result = summary(soak, args.minutes)
    finally:
        console = router.guest.output() if router.guest else ""
        router.close()
    os.makedirs(args.out, exist_ok=True)
    # The appliance's counters every 5 s, for what went wrong: beside the images, not in the
    # results folder (up to 1 MiB a run).
    with open(os.path.join(work, "soak-console.log"), "w") as f:
        f.write(console[-(1 << 20):])
    with open(os.path.join(args.out, "soak.json"), "w") as f:
        json.dump(result, f, indent=1)
    with open(os.path.join(args.out, "soak.md"), "w") as f:
        f.write("\n".join(report_lines(result, (load_began, os.getloadavg()[0]))))
    print(f"soak: hangs {result['hangs']}, stalls {result['stalls']}, failed pushes {result['failed_pushes']}, "
          f"memory {'flat' if result['memory_flat'] else 'NOT flat'}; wrote {args.out}/soak.md", flush=True)
    return 0 if not result["problems"] and result["memory_flat"] else 1


if __name__ == "__main__":
    sys.exit(main())

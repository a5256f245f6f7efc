#!/usr/bin/python3
"""Network benchmark (not a test): Keel's udp_echo next to Linux, in one run.

  sudo bench/net/bench_net.py [--runs 20] [--seconds 5] [--out bench/results/net.md]

Measures, each in network namespaces it creates and deletes:
  1. time from QEMU start to the first answered ping (microvm, median of --runs);
  2. ping round-trip median and p99: the Keel guest vs a Linux peer (veth);
  3. UDP echo packets/s at 64 and 1400 bytes: through the guest, through the
     same echo written with Linux sockets in a netns, and through udp_echo
     built as a Linux process on a TAP device; reported as ratios to Linux.
The guest runs under TCG on this machine (see docs/decisions/0003), so the
guest figures are an emulator's, not a hypervisor's.
"""
import argparse
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "test", "integration"))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from netguest import Guest, Namespace, run, udp_echo_image  # noqa: E402
from keelpy import qemu  # noqa: E402

GUEST_MAC = "52:54:00:12:34:56"

# Sends an ICMP echo request every millisecond until the first reply from
# argv[1]; prints CLOCK_MONOTONIC of that reply (system-wide, so comparable
# with the parent's time.monotonic()).
PROBER = r"""
import os, select, socket, struct, sys, time
dst = sys.argv[1]
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
s.setblocking(False)
ident = os.getpid() & 0xffff
def packet(seq):
    h = struct.pack("!BBHHH", 8, 0, 0, ident, seq) + b"keel" * 8
    c = sum(struct.unpack("!%dH" % (len(h) // 2), h)); c = (c >> 16) + (c & 0xffff); c += c >> 16
    return h[:2] + struct.pack("!H", ~c & 0xffff) + h[4:]
print("ready", flush=True)
seq, deadline = 0, time.monotonic() + 30
while time.monotonic() < deadline:
    seq = (seq + 1) & 0xffff
    try: s.sendto(packet(seq), (dst, 0))
    except OSError: pass
    r, _, _ = select.select([s], [], [], 0.001)
    if r:
        data, addr = s.recvfrom(2048)
        ihl = (data[0] & 15) * 4
        if addr[0] == dst and data[ihl] == 0 and struct.unpack("!H", data[ihl+4:ihl+6])[0] == ident:
            print("reply", time.monotonic(), flush=True); sys.exit(0)
print("none", flush=True)
"""


def boot_to_ping(runs):
    times = []
    image = udp_echo_image()
    for _ in range(runs):
        ns = Namespace(taps=1)
        proc = prober = None
        try:
            # A static neighbour entry: the host's ARP back-off must not be measured.
            ns.sh(f"ip neigh replace {ns.guest()} lladdr {GUEST_MAC} dev tap0 nud permanent")
            prober = subprocess.Popen(ns.exec_args(["/usr/bin/python3", "-c", PROBER, ns.guest()]),
                                      stdout=subprocess.PIPE, text=True)
            assert prober.stdout.readline().strip() == "ready"
            extra = ["-netdev", "tap,id=n0,ifname=tap0,script=no,downscript=no",
                     "-device", f"virtio-net-device,netdev=n0,mac={GUEST_MAC}"]
            args = qemu.command(image, "microvm", "64M", 1, f"ip={ns.guest()}/24", "tcg", extra)
            start = time.monotonic()
            proc = subprocess.Popen(ns.exec_args(args), stdin=subprocess.DEVNULL,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            line = prober.stdout.readline().split()
            if line and line[0] == "reply":
                times.append((float(line[1]) - start) * 1000)
        finally:
            for p in (prober, proc):
                if p and p.poll() is None:
                    p.kill()
                    p.wait(timeout=10)
            ns.close()
    return times


def ping_rtts(ns, address, count=500):
    out = ns.sh(f"ping -n -c {count} -i 0.005 -W 2 {address}", timeout=120, check=False).stdout
    return [float(x) for x in re.findall(r"time=([\d.]+) ms", out)]


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def udp_pps(ns, load, address, size, seconds, window=32):
    out = run(ns.exec_args([load, address, str(size), str(seconds), str(window)]),
              timeout=seconds + 30).stdout
    match = re.search(r"pps (\d+)", out)
    return int(match.group(1)) if match else 0


class LinuxPeer:
    """A second namespace on a veth pair, running the Linux-sockets echo."""

    def __init__(self, ns, server):
        self.name = ns.name + "-peer"
        run(["ip", "netns", "add", self.name])
        ns.sh(f"ip link add vethk type veth peer name vethp netns {self.name} && "
              "ip addr add 10.0.9.1/24 dev vethk && ip link set vethk up")
        self.sh("ip link set lo up && ip addr add 10.0.9.2/24 dev vethp && ip link set vethp up")
        self.server = subprocess.Popen(["ip", "netns", "exec", self.name, server, "7"])
        self.address = "10.0.9.2"

    def sh(self, command):
        run(["ip", "netns", "exec", self.name, "sh", "-c", command])

    def close(self):
        self.server.kill()
        self.server.wait(timeout=10)
        subprocess.run(["ip", "netns", "del", self.name], capture_output=True, timeout=30)


class LinuxProcess:
    """udp_echo built for the linux platform, on TAP tapl (10.0.8.2)."""

    def __init__(self, ns, executable):
        ns.sh("ip tuntap add tapl mode tap && ip link set tapl up && "
              "ip addr add 10.0.8.1/24 dev tapl")
        self.proc = subprocess.Popen(ns.exec_args([executable, "tap=tapl", "ip=10.0.8.2/24"]),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.address = "10.0.8.2"
        time.sleep(0.5)

    def close(self):
        self.proc.kill()
        self.proc.wait(timeout=10)


def compile_tools(tmp):
    tools = {}
    for name in ("udp_load", "udp_echo_server"):
        tools[name] = os.path.join(tmp, name)
        run(["gcc", "-O2", "-o", tools[name], os.path.join(HERE, name + ".c")], timeout=120)
    return tools


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "net.md"))
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="keel-bench-net-")
    tools = compile_tools(tmp)
    from keelpy import build
    linux_exe = build.build(os.path.join(ROOT, "examples", "udp_echo"), "linux", quiet=True)

    boot = boot_to_ping(args.runs)
    print(f"boot to first ping: {len(boot)}/{args.runs} answered, median "
          f"{statistics.median(boot) if boot else float('nan'):.1f} ms", flush=True)

    rows = {}
    ns = Namespace(taps=1)
    guest = peer = proc = None
    try:
        guest = Guest(ns, machine="microvm", modern=True)
        peer = LinuxPeer(ns, tools["udp_echo_server"])
        proc = LinuxProcess(ns, linux_exe)
        targets = {"Keel guest (microvm, TCG)": ns.guest(), "Linux (netns, veth)": peer.address,
                   "Keel Linux process (TAP)": proc.address}
        for label, address in targets.items():
            rtts = ping_rtts(ns, address)
            pps = {size: udp_pps(ns, tools["udp_load"], address, size, args.seconds)
                   for size in (64, 1400)}
            rows[label] = (rtts, pps)
            print(label, f"rtt median {statistics.median(rtts) if rtts else 0:.3f} ms", pps,
                  flush=True)
    finally:
        for thing in (proc, peer, guest):
            if thing:
                thing.close()
        ns.close()
        shutil.rmtree(tmp, ignore_errors=True)
    write_report(args, boot, rows)


def write_report(args, boot, rows):
    linux = rows.get("Linux (netns, veth)")
    lines = [
        "# Network benchmark",
        "",
        f"`bench/net/bench_net.py --runs {args.runs} --seconds {args.seconds:g}` on "
        f"{platform.node()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. "
        "2 shared cores; QEMU with TCG (KVM here is PVM and cannot run the guest, see "
        "docs/decisions/0003), virtio-net on a TAP device without vhost.",
        "",
        "## Boot to first answered ping (microvm, TCG)",
        "",
        f"{len(boot)} of {args.runs} boots answered; median "
        f"**{statistics.median(boot):.1f} ms**, min {min(boot):.1f}, max {max(boot):.1f} ms "
        "(from starting QEMU to the first ICMP echo reply; the host sends a request every "
        "millisecond with a static ARP entry)." if boot else "no boot answered",
        "",
        "## Ping round trip and UDP echo",
        "",
        "| target | RTT median (ms) | RTT p99 (ms) | UDP echo 64 B (pkt/s) | ratio | "
        "UDP echo 1400 B (pkt/s) | ratio |",
        "|---|---|---|---|---|---|---|",
    ]
    for label, (rtts, pps) in rows.items():
        med = f"{statistics.median(rtts):.3f}" if rtts else "-"
        p99 = f"{percentile(rtts, 99):.3f}" if rtts else "-"
        cells = [label, med, p99]
        for size in (64, 1400):
            base = linux[1][size] if linux and linux[1][size] else 0
            cells += [str(pps[size]), f"{pps[size] / base:.2f}" if base else "-"]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "Ratios are to the Linux-sockets echo in a netns. UDP load: "
              "bench/net/udp_load.c, 32 datagrams in flight, "
              f"{args.seconds:g} s per figure; ping: 500 requests 5 ms apart.", ""]
    with open(args.out, "w") as f:
        f.write("\n".join(lines))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

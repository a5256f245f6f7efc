#!/usr/bin/python3
"""`keel bench firewall-vm`: the firewall appliance as a router, as the IncludeOS firewall study
measured it (Kurek et al., 2024), from 1 to 1,000,000 rules of bench/firewall's blocklist (mix b)
and ClassBench-style ACLs (mix acl): image size, launch time to the first forwarded packet,
forwarded UDP packets per second (64 and 1400 bytes), TCP throughput (iperf3), ICMP round
trip, UDP and TCP request/response rates and new TCP connections per second, for the Keel
image beside Linux routers — in the Linux VM peer on the same QEMU line and in a network
namespace — with the same rules as `keel-fw nft` exports them (sets for the blocklist) and as
iptables-style linear rules (one rule per address, what iptables-nft loads; up to 20,000).
Writes bench/results/firewall_vm.{md,csv,png} (build/bench-quick/ with --quick). Needs root.

Every router is up at once; each figure is measured in short rounds, the routers in alternating
order, and reported as the median with the rounds' range and the machine's load; a ratio the
rounds do not decide is reported as "no verdict" (docs/decisions/0063).

  bench/firewall-vm/run.sh [--quick] [--mixes b,acl] [--rules 1,100,10000] [--seconds 2] [--rounds 5] [--out DIR]

`--launches N` measures only the Keel image's launch: N boots per rule count, the counts
interleaved (1, 1M, 1, 1M, ...), each boot's time and the machine's load printed, then the
median and range per count (decision 0064).

  bench/firewall-vm/run.sh --launches 5 --rules 1,1000000"""
import argparse
import ipaddress
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, os.path.join(ROOT, "bench", "linux-vm"))
sys.path.insert(0, HERE)
from keelpy import bench_report, qemu  # noqa: E402
import linux_guest  # noqa: E402
import routers  # noqa: E402
from routers import PYTHON, Guest, Topology, sh  # noqa: E402

RULE_COUNTS = {"b": [1, 10, 100, 1000, 10000, 20000, 100000, 1000000], "acl": [1, 1000, 10000]}
QUICK_RULE_COUNTS = [100]  # one row: CI runs --quick so the script cannot rot, nobody reads it
ROUNDS, QUICK_ROUNDS = 5, 2  # rounds per figure and router; medians and ranges over them
LINEAR_MAX = 20000  # iptables-style linear rules beyond this take the VM minutes per packet burst
# `keel-fw nft` exports a ClassBench rule as one nftables rule (anonymous sets per field), so a
# Linux router walks them one by one; beyond this the VM forwards too little to measure.
ACL_LINUX_MAX = 10000
TRAFFIC = [ipaddress.ip_address(a) for a in ("10.0.0.1", "10.1.0.1")]
TCP_PORT, IPERF_PORT = 8080, 5201
WINDOW = 32
SIZES = (64, 1400)
TOOLS = os.path.join(ROOT, "build", "bench-firewall-vm")

# Sends a UDP datagram to 10.1.0.1:7 every 2 ms until one comes back; prints the monotonic time.
FIRST_ECHO = r"""
import socket, time, sys
deadline = time.monotonic() + float(sys.argv[1])
s = None
while time.monotonic() < deadline:
    try:
        if s is None:
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.settimeout(0.002)
        s.sendto(b"first", ("10.1.0.1", 7))
        if s.recv(64) == b"first":
            print(time.monotonic()); sys.exit(0)
    except OSError:
        time.sleep(0.002)
print("none")
"""


def may_match_traffic(line):
    """Whether a generated rule's addresses could match the test traffic (either direction)."""
    fields = dict(re.findall(r"ip (saddr|daddr) (\S+)", line))
    def covers(field, address):
        value = fields.get(field)
        if value is None:
            return True
        return address in ipaddress.ip_network(value if "/" in value else value + "/32", strict=False)
    return any(covers("saddr", s) and covers("daddr", d) for s in TRAFFIC for d in TRAFFIC if s != d)


def rules_file(mix, n, work):
    """A forward chain with policy accept and the mix's N rules, less any that could match the
    test traffic, so every packet is classified against all of them and passes; the Keel
    source, the nftables export, and linear rules."""
    bench = subprocess.run([os.path.join(ROOT, "bench", "firewall", "build.sh")], capture_output=True, text=True,
                           check=True).stdout.strip().splitlines()[-1]
    generated = os.path.join(work, f"{mix}-{n}.gen")
    subprocess.run([bench, "gen", mix, str(n), generated], check=True, capture_output=True)
    with open(generated) as f:
        body = [line for line in f if line.strip().startswith("ip ") or " drop" in line or " accept" in line]
    body = [line for line in body if not line.strip().startswith("chain") and not may_match_traffic(line)]
    source = os.path.join(work, f"{mix}-{n}.fw")
    with open(source, "w") as f:
        f.write("interface eth0 { }\ninterface eth1 { }\nchain forward hook forward policy accept {\n")
        f.writelines(body)
        f.write("}\n")
    if mix != "b":
        keelfw = os.path.join(ROOT, "build", "host", "tools", "keel-fw", "keel-fw")
        return source, subprocess.run([keelfw, "nft", source], check=True, capture_output=True, text=True).stdout, None
    # The blocklist as Linux is best at it: one set lookup (`keel-fw nft` would give one rule
    # per address, the linear case below); and as iptables loads it, one rule per address.
    addresses = list(dict.fromkeys(line.split()[2] for line in body))
    header = "table ip keel\ndelete table ip keel\ntable ip keel {\n"
    chain = "  chain forward {\n    type filter hook forward priority 0; policy accept;\n"
    nft = (header + "  set blocklist {\n    type ipv4_addr\n" +
           (f"    elements = {{ {', '.join(addresses)} }}\n" if addresses else "") + "  }\n" +
           chain + "    ip saddr @blocklist drop\n  }\n}\n")
    linear = None
    if n <= LINEAR_MAX:
        linear = header + chain + "".join(f"    ip saddr {a} drop\n" for a in addresses) + "  }\n}\n"
    return source, nft, linear


def build_keel(source, mix):
    """The image with `source` compiled in; one build tree per mix, so only the rules rebuild."""
    out = os.path.join(TOOLS, f"keel-{mix}")
    configure = ["cmake", "-S", os.path.join(ROOT, "examples", "firewall"), "-B", out, "-G", "Ninja",
                 f"-Dkeel_DIR={os.path.join(ROOT, 'cmake')}", "-DKEEL_PLATFORM=kvm",
                 f"-DKEEL_FIREWALL_RULES={source}"]
    for step in (configure, ["cmake", "--build", out, "-j", "2"]):
        subprocess.run(step, check=True, capture_output=True, text=True)
    image = os.path.join(out, "firewall")
    stripped = image + ".stripped"
    subprocess.run(["strip", "-o", stripped, image], check=True)
    return stripped


def rules_initrd(guest_vm, nft_text, work, name):
    """The Linux VM's initramfs plus /etc/keel-peer/rules.nft."""
    stage = os.path.join(work, f"stage-{name}")
    os.makedirs(os.path.join(stage, "etc", "keel-peer"), exist_ok=True)
    with open(os.path.join(stage, "etc", "keel-peer", "rules.nft"), "w") as f:
        f.write(nft_text)
    return guest_vm.initrd_with(stage, os.path.join(work, f"{name}.initrd"))


def servers(ns):
    """Side B's UDP echo (port 7), TCP echo (8080) and iperf3 servers."""
    return [subprocess.Popen(["ip", "netns", "exec", ns, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for args in ([os.path.join(TOOLS, "udp_echo_server"), "7"],
                         [os.path.join(TOOLS, "tcp_rr"), "serve", str(TCP_PORT)],
                         ["iperf3", "-s", "-p", str(IPERF_PORT)])]


def stop(processes):
    for p in processes:
        p.kill()
        p.wait()


def first_number(text, word):
    """The number after `word` at the start of a tool's output line, or None."""
    match = re.search(rf"^{word} (\d+(?:\.\d+)?)", text, re.M)
    return float(match.group(1)) if match else None


def tcp_throughput(topology, seconds):
    """iperf3's received bits per second from side A to side B, or None."""
    out = sh(topology.a, f"iperf3 -c 10.1.0.1 -p {IPERF_PORT} -t {seconds:g} -J --connect-timeout 3000",
             check=False, timeout=seconds + 60).stdout
    try:
        return json.loads(out)["end"]["sum_received"]["bits_per_second"]
    except (ValueError, KeyError):
        return None


def first_echo(topology, timeout):
    """The monotonic time of the first UDP echo through the router, or None."""
    probe = sh(topology.a, f"{PYTHON} -c '{FIRST_ECHO}' {timeout}", check=False, timeout=timeout + 30)
    first = probe.stdout.strip()
    return float(first) if first not in ("", "none") else None


def udp_pps(size):
    def measure(topology, seconds):
        line = sh(topology.a, f"{os.path.join(TOOLS, 'udp_load')} 10.1.0.1 {size} {seconds:g} {WINDOW}",
                  check=False, timeout=seconds + 60).stdout
        pps = first_number(line, "pps")
        return None if pps is None else 2 * pps  # each echo crosses the router twice
    return measure


def udp_rr(topology, seconds):
    # One datagram in flight: each answer before the next request.
    return first_number(sh(topology.a, f"{os.path.join(TOOLS, 'udp_load')} 10.1.0.1 64 {seconds:g} 1",
                           check=False, timeout=seconds + 60).stdout, "pps")


def tcp_rr(kind, word):
    def measure(topology, seconds):
        return first_number(sh(topology.a, f"{os.path.join(TOOLS, 'tcp_rr')} {kind} 10.1.0.1 {TCP_PORT} {seconds:g}",
                               check=False, timeout=seconds + 60).stdout, word)
    return measure


def ping_rtt(topology, seconds):
    ping = sh(topology.a, "ping -n -q -c 20 -i 0.05 -W 2 10.1.0.1", check=False).stdout
    rtt = [line for line in ping.splitlines() if "min/avg" in line]
    return float(rtt[0].split("=")[1].split("/")[1]) if rtt else None


# Each figure, measured for every router in one round before the next figure's round.
FIGURES = [(f"pps_{size}", udp_pps(size)) for size in SIZES] + [
    ("udp_rr", udp_rr), ("tcp_rr", tcp_rr("rr", "tps")), ("tcp_crr", tcp_rr("crr", "cps")),
    ("tcp_bps", tcp_throughput), ("rtt_ms", ping_rtt)]


def load_1min():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


class Router:
    """One router under test, up (with side B's servers) from start() to close()."""

    def __init__(self, name, topology):
        self.name, self.topology = name, topology
        self.running, self.guest = [], None

    def close(self):
        stop(self.running)
        if self.guest:
            self.guest.close()
        self.topology.close()


def start_guest(name, tag, args, boot_timeout=600):
    """A VM router; records launch to the first echo through it."""
    router = Router(name, Topology(tag))
    try:
        router.topology.taps()
        router.guest = Guest(router.topology, args, None)
        router.topology.move_taps()
        router.running = servers(router.topology.b)
        first = first_echo(router.topology, boot_timeout)
        router.launch_ms = None if first is None else (first - router.guest.launched) * 1000
        router.console = router.guest.output()[-2000:] if first is None else None
        return router
    except BaseException:
        router.close()
        raise


def start_netns(name, tag, nft_text):
    router = Router(name, Topology(tag))
    try:
        router.topology.veths()
        routers.run(["nft", "-f", "-"], ns=router.topology.middle, input=nft_text)
        router.running = servers(router.topology.b)
        first_echo(router.topology, 10)
        router.launch_ms, router.console = None, None
        return router
    except BaseException:
        router.close()
        raise


def summarize(row, name, figure, samples):
    """The median of a router's rounds for one figure, their least and greatest, and every
    sample (rounds that measured nothing are left out of the median and counted)."""
    got = [v for v in samples if v is not None]
    row[f"{name}_{figure}"] = statistics.median(got) if got else None
    row[f"{name}_{figure}_lo"] = min(got) if got else None
    row[f"{name}_{figure}_hi"] = max(got) if got else None
    row[f"{name}_{figure}_samples"] = ";".join("-" if v is None else f"{v:.6g}" for v in samples)


def measure_interleaved(row, up, seconds, rounds):
    """Every figure in `rounds` short rounds, each round measuring every router once, in the
    reverse order of the round before: a change in the machine's load lands on all routers
    alike, and shows as spread instead of as a ratio. /proc/loadavg before each round."""
    loads = []
    for figure, measure in FIGURES:
        samples = {r.name: [] for r in up}
        for n in range(rounds):
            loads.append(load_1min())
            for router in (up if n % 2 == 0 else list(reversed(up))):
                samples[router.name].append(measure(router.topology, seconds))
        for router in up:
            summarize(row, router.name, figure, samples[router.name])
    loads.append(load_1min())
    row["load_lo"], row["load_hi"], row["load_median"] = min(loads), max(loads), statistics.median(loads)


def compile_tools():
    os.makedirs(TOOLS, exist_ok=True)
    for name, source in (("udp_load", "bench/net/udp_load.c"), ("udp_echo_server", "bench/net/udp_echo_server.c"),
                         ("tcp_rr", "bench/firewall-vm/tcp_rr.c")):
        subprocess.run(["gcc", "-O2", "-o", os.path.join(TOOLS, name), os.path.join(ROOT, source)], check=True)


def measure_count(mix, n, seconds, rounds, work, guest_vm, reverse):
    """One row: every router with the mix's N rules, all started (in turn; `reverse`: the
    other way round, so no router always starts first), then measured interleaved."""
    source, nft, linear = rules_file(mix, n, work)
    if mix != "b" and n > ACL_LINUX_MAX:
        nft = None
    image = build_keel(source, mix)
    row = {"mix": mix, "rules": n, "rounds": rounds, "keel_image_bytes": os.path.getsize(image)}

    def keel():
        return keel_router(image, "k")

    def linux_vm(name, tag, text):
        initrd = rules_initrd(guest_vm, text, work, f"{name}-{mix}-{n}")
        args = guest_vm.command("microvm", routers.MEMORY, "run=router rules=rules.nft ip=10.0.0.254/24 "
                                "ip1=10.1.0.254/24", "tcg", routers.qemu_tap_args())
        args[args.index("-initrd") + 1] = initrd
        row[f"{name}_image_bytes"] = os.path.getsize(guest_vm.kernel) + os.path.getsize(initrd)
        return start_guest(name, tag, args)

    steps = [keel]
    for kind, text in (("nft", nft), ("linear", linear)):
        if text is not None:
            steps += [lambda k=kind, t=text: linux_vm(f"vm_{k}", f"v{k[0]}", t),
                      lambda k=kind, t=text: start_netns(f"netns_{k}", f"n{k[0]}", t)]
    up = []
    try:
        for step in (reversed(steps) if reverse else steps):
            router = step()
            up.append(router)
            row[f"{router.name}_launch_ms"] = router.launch_ms
            if router.console:
                row[f"{router.name}_console"] = router.console
        measure_interleaved(row, [r for r in up if not r.console], seconds, rounds)
    finally:
        for router in up:
            router.close()
    return row


def keel_router(image, tag):
    args = qemu.command(image, "microvm", routers.MEMORY, 1, "ip=10.0.0.254/24 ip1=10.1.0.254/24", "tcg",
                        routers.qemu_tap_args())
    return start_guest("keel", tag, args)


def measure_launches(mix, counts, launches, work):
    """Boots the Keel image with each rule count `launches` times, the counts interleaved, so a
    change in the machine's load lands on all of them; prints every boot and the medians."""
    images = {n: build_keel(rules_file(mix, n, work)[0], f"{mix}-{n}") for n in counts}
    tag = f"L{os.getpid() % 10000}"  # beside a full run's routers, in their own namespaces
    samples = {n: [] for n in counts}
    for i in range(launches):
        for n in (counts if i % 2 == 0 else list(reversed(counts))):
            load = load_1min()
            router = keel_router(images[n], tag)
            try:
                samples[n].append((router.launch_ms, load))
            finally:
                router.close()
            ms = "none" if router.launch_ms is None else f"{router.launch_ms:.0f}"
            print(f"  mix {mix} {n} rules: launch {ms} ms (load {load:.2f})", flush=True)
    for n in counts:
        got = [ms for ms, _ in samples[n] if ms is not None]
        loads = [load for _, load in samples[n]]
        if not got:
            print(f"mix {mix} {n} rules: no launch reached the first echo")
            continue
        print(f"mix {mix} {n:,} rules, image {os.path.getsize(images[n]):,} B: launch median "
              f"{statistics.median(got):.0f} ms ({min(got):.0f}-{max(got):.0f}, {len(got)} of "
              f"{len(samples[n])} boots), load {min(loads):.2f}-{max(loads):.2f}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rules", help="comma-separated rule counts (for every mix)")
    parser.add_argument("--mixes", help="comma-separated mixes (default: b,acl; b with --quick)")
    parser.add_argument("--seconds", type=float, help="length of one round of one figure")
    parser.add_argument("--rounds", type=int, help=f"rounds per figure and router (default {ROUNDS}; "
                        f"{QUICK_ROUNDS} with --quick)")
    parser.add_argument("--out", help="directory for the results (default bench/results, "
                        "build/bench-quick with --quick): a partial run need not replace the committed one")
    parser.add_argument("--launches", type=int, help="only the Keel image's launch, this many boots per "
                        "rule count, interleaved (default counts: 1,1000000)")
    args = parser.parse_args()
    if args.launches:
        compile_tools()
        counts = [int(x) for x in args.rules.split(",")] if args.rules else [1, 1000000]
        with tempfile.TemporaryDirectory(prefix="kfwb-") as work:
            for mix in (args.mixes.split(",") if args.mixes else ["b"]):
                measure_launches(mix, counts, args.launches, work)
        return 0
    rounds = args.rounds or (QUICK_ROUNDS if args.quick else ROUNDS)
    mixes = args.mixes.split(",") if args.mixes else (["b"] if args.quick else ["b", "acl"])
    seconds = args.seconds or (1 if args.quick else 2)
    compile_tools()
    subprocess.run(["cmake", "--build", os.path.join(ROOT, "build", "host"), "--target", "keel-fw"], check=True,
                   capture_output=True)
    guest_vm = linux_guest.build("peers")
    rows = []
    with tempfile.TemporaryDirectory(prefix="kfwb-") as work:
        for mix in mixes:
            counts = [int(x) for x in args.rules.split(",")] if args.rules else \
                (QUICK_RULE_COUNTS if args.quick else RULE_COUNTS[mix])
            for i, n in enumerate(counts):
                print(f"firewall-vm: {n} rules (mix {mix})", flush=True)
                row = measure_count(mix, n, seconds, rounds, work, guest_vm, reverse=i % 2 == 1)
                print("  " + " ".join(f"{k}={v:.0f}" if isinstance(v, float) else f"{k}={v}"
                                      for k, v in row.items() if "console" not in k and "samples" not in k
                                      and not k.endswith(("_lo", "_hi"))), flush=True)
                rows.append(row)
    import report
    out = args.out or bench_report.results_dir(args.quick)
    os.makedirs(out, exist_ok=True)
    report.write(out, rows, args, seconds, WINDOW, rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())

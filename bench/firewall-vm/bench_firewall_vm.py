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

  bench/firewall-vm/run.sh [--quick] [--mixes b,acl] [--rules 1,100,10000] [--seconds 2]"""
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
QUICK_RULE_COUNTS = [1, 100]
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


def extra_initrd(base, nft_text, work, name):
    """The Linux VM's initramfs plus an archive holding /etc/keel-peer/rules.nft."""
    stage = os.path.join(work, f"stage-{name}")
    os.makedirs(os.path.join(stage, "etc", "keel-peer"), exist_ok=True)
    with open(os.path.join(stage, "etc", "keel-peer", "rules.nft"), "w") as f:
        f.write(nft_text)
    extra = os.path.join(work, f"{name}.cpio")
    files = subprocess.run(["find", ".", "-mindepth", "1"], cwd=stage, capture_output=True, text=True).stdout
    with open(extra, "wb") as out:
        subprocess.run(["cpio", "-o", "-H", "newc", "-R", "0:0", "--quiet"], cwd=stage, input=files.encode(),
                       stdout=out, check=True)
    combined = os.path.join(work, f"{name}.initrd")
    with open(combined, "wb") as out:
        for part in (base, extra):
            with open(part, "rb") as f:
                out.write(f.read())
            # The kernel finds the next archive only at a 4-byte boundary (zeros are padding).
            out.write(b"\0" * (-out.tell() % 4))
    return combined


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


def measure_router(topology, seconds, launched=None, boot_timeout=600):
    """Launch (if `launched`), UDP echo rates through the router, ping RTT."""
    out = {}
    if launched is not None:
        probe = sh(topology.a, f"{PYTHON} -c '{FIRST_ECHO}' {boot_timeout}", check=False, timeout=boot_timeout + 30)
        first = probe.stdout.strip()
        out["launch_ms"] = (float(first) - launched) * 1000 if first not in ("", "none") else None
    else:
        sh(topology.a, f"{PYTHON} -c '{FIRST_ECHO}' 10", check=False)
    udp_load = os.path.join(TOOLS, "udp_load")
    for size in SIZES:
        line = sh(topology.a, f"{udp_load} 10.1.0.1 {size} {seconds} {WINDOW}", check=False,
                  timeout=seconds + 60).stdout
        out[f"pps_{size}"] = 2 * (first_number(line, "pps") or 0.0)  # each echo crosses the router twice
    # One datagram in flight: each answer before the next request.
    out["udp_rr"] = first_number(sh(topology.a, f"{udp_load} 10.1.0.1 64 {seconds} 1", check=False,
                                    timeout=seconds + 60).stdout, "pps")
    tcp_rr = os.path.join(TOOLS, "tcp_rr")
    out["tcp_rr"] = first_number(sh(topology.a, f"{tcp_rr} rr 10.1.0.1 {TCP_PORT} {seconds}", check=False,
                                    timeout=seconds + 60).stdout, "tps")
    out["tcp_crr"] = first_number(sh(topology.a, f"{tcp_rr} crr 10.1.0.1 {TCP_PORT} {seconds}", check=False,
                                     timeout=seconds + 60).stdout, "cps")
    out["tcp_bps"] = tcp_throughput(topology, seconds)
    ping = sh(topology.a, "ping -n -q -c 20 -i 0.05 -W 2 10.1.0.1", check=False).stdout
    rtt = [line for line in ping.splitlines() if "min/avg" in line]
    out["rtt_ms"] = float(rtt[0].split("=")[1].split("/")[1]) if rtt else None
    return out


def run_guest(tag, args, seconds, ready=None):
    topology = Topology(tag)
    guest = None
    running = []
    try:
        topology.taps()
        guest = Guest(topology, args, ready)
        topology.move_taps()
        running = servers(topology.b)
        result = measure_router(topology, seconds, launched=guest.launched)
        if result.get("launch_ms") is None:
            result["console"] = guest.output()[-2000:]
        return result
    finally:
        stop(running)
        if guest:
            guest.close()
        topology.close()


def run_netns(tag, nft_text, seconds):
    topology = Topology(tag)
    running = []
    try:
        topology.veths()
        routers.run(["nft", "-f", "-"], ns=topology.middle, input=nft_text)
        running = servers(topology.b)
        return measure_router(topology, seconds)
    finally:
        stop(running)
        topology.close()


def compile_tools():
    os.makedirs(TOOLS, exist_ok=True)
    for name, source in (("udp_load", "bench/net/udp_load.c"), ("udp_echo_server", "bench/net/udp_echo_server.c"),
                         ("tcp_rr", "bench/firewall-vm/tcp_rr.c")):
        subprocess.run(["gcc", "-O2", "-o", os.path.join(TOOLS, name), os.path.join(ROOT, source)], check=True)


def measure_count(mix, n, seconds, work, guest_vm, reverse):
    """One row: every router with the mix's N rules, in turn (`reverse`: the other way round,
    so no router always runs first)."""
    source, nft, linear = rules_file(mix, n, work)
    if mix != "b" and n > ACL_LINUX_MAX:
        nft = None
    image = build_keel(source, mix)
    row = {"mix": mix, "rules": n, "keel_image_bytes": os.path.getsize(image)}

    def keel():
        args = qemu.command(image, "microvm", routers.MEMORY, 1, "ip=10.0.0.254/24 ip1=10.1.0.254/24", "tcg",
                            routers.qemu_tap_args())
        row.update({f"keel_{k}": v for k, v in run_guest("k", args, seconds).items()})

    def linux_vm(name, text):
        initrd = extra_initrd(guest_vm.initrd, text, work, f"{name}-{mix}-{n}")
        args = guest_vm.command("microvm", routers.MEMORY, "run=router rules=rules.nft ip=10.0.0.254/24 "
                                "ip1=10.1.0.254/24", "tcg", routers.qemu_tap_args())
        args[args.index("-initrd") + 1] = initrd
        row[f"{name}_image_bytes"] = os.path.getsize(guest_vm.kernel) + os.path.getsize(initrd)
        row.update({f"{name}_{k}": v for k, v in run_guest("v", args, seconds).items()})

    def netns(name, text):
        row.update({f"{name}_{k}": v for k, v in run_netns("n", text, seconds).items()})

    steps = [keel]
    for kind, text in (("nft", nft), ("linear", linear)):
        if text is not None:
            steps += [lambda k=kind, t=text: linux_vm(f"vm_{k}", t), lambda k=kind, t=text: netns(f"netns_{k}", t)]
    for step in (reversed(steps) if reverse else steps):
        step()
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rules", help="comma-separated rule counts (for every mix)")
    parser.add_argument("--mixes", help="comma-separated mixes (default: b,acl; b with --quick)")
    parser.add_argument("--seconds", type=float)
    args = parser.parse_args()
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
                row = measure_count(mix, n, seconds, work, guest_vm, reverse=i % 2 == 1)
                print("  " + " ".join(f"{k}={v:.0f}" if isinstance(v, float) else f"{k}={v}"
                                      for k, v in row.items() if "console" not in k), flush=True)
                rows.append(row)
    import report
    report.write(bench_report.results_dir(args.quick), rows, args, seconds, WINDOW)
    return 0


if __name__ == "__main__":
    sys.exit(main())

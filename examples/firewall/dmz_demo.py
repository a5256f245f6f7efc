#!/usr/bin/python3
"""The DMZ topology of the CETIC firewall study, in one command (`tools/keel demo dmz`), on
this machine as root: an outside client namespace, the firewall image, a router image and a
DMZ with two services (Keel's UDP echo images), all under QEMU, joined by bridges in a lab
namespace. It loads dmz.fw into the running firewall over its management port, shows what the
rules allow, translate and block, prints the firewall's console, and tears everything down.

  outside 203.0.113.10 ── [firewall 203.0.113.1 | 192.168.10.1] ── [router 192.168.10.2 | 172.16.0.1]
                                                                    ── DMZ: echo 172.16.0.10, echo 172.16.0.11
"""
import os
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from keelpy import build, qemu  # noqa: E402

KEY = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"
LAB, OUTSIDE = f"keel-dmz-{os.getpid()}", f"keel-dmz-out-{os.getpid()}"
# Which bridge each TAP of each guest joins.
GUESTS = {
    "firewall": (os.path.join(ROOT, "examples", "firewall"), ["out", "mid"],
                 f"ip=203.0.113.1/24 ip1=192.168.10.1/24 route=172.16.0.0/24,192.168.10.2 fw_port=5555 fw_key={KEY}"),
    "router": (os.path.join(ROOT, "examples", "router"), ["mid", "dmz"],
               "ip=192.168.10.2/24 gw=192.168.10.1 ip1=172.16.0.1/24"),
    "echo1": (os.path.join(ROOT, "examples", "udp_echo"), ["dmz"], "ip=172.16.0.10/24 gw=172.16.0.1"),
    "echo2": (os.path.join(ROOT, "examples", "udp_echo"), ["dmz"], "ip=172.16.0.11/24 gw=172.16.0.1"),
}
CLIENT = r"""
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(2)
s.sendto(sys.argv[3].encode(), (sys.argv[1], int(sys.argv[2])))
try:
    data, peer = s.recvfrom(2048)
    print(f"answered by {peer[0]}:{peer[1]}: {data.decode()!r}")
except socket.timeout:
    print("no answer (dropped)")
"""


def sh(ns, command, check=True):
    return subprocess.run(["ip", "netns", "exec", ns, "sh", "-c", command], capture_output=True, text=True,
                          check=check, timeout=60)


def setup_network():
    for ns in (LAB, OUTSIDE):
        subprocess.run(["ip", "netns", "add", ns], check=True)
        sh(ns, "ip link set lo up")
    for bridge in ("out", "mid", "dmz"):
        sh(LAB, f"ip link add br-{bridge} type bridge && ip link set br-{bridge} up")
    subprocess.run(["ip", "link", "add", "dmz-client", "netns", OUTSIDE, "type", "veth", "peer", "name", "client-port",
                    "netns", LAB], check=True)
    sh(LAB, "ip link set client-port master br-out && ip link set client-port up")
    sh(OUTSIDE, "ip link set dmz-client up && ip addr add 203.0.113.10/24 dev dmz-client && "
                "ip route add 172.16.0.0/24 via 203.0.113.1")


def boot(name, images, log_dir):
    _, bridges, append = GUESTS[name]
    extra = []
    for i, bridge in enumerate(bridges):
        tap = f"{name}{i}"
        sh(LAB, f"ip tuntap add {tap} mode tap && ip link set {tap} master br-{bridge} && ip link set {tap} up")
        extra += ["-netdev", f"tap,id=n{i},ifname={tap},script=no,downscript=no",
                  "-device", f"virtio-net-device,netdev=n{i},mac=52:54:00:{list(GUESTS).index(name):02x}:00:{i:02x}"]
    log = open(os.path.join(log_dir, f"{name}.log"), "w")
    args = qemu.command(images[name], "microvm", "64M", 1, append, "tcg", extra)
    return subprocess.Popen(["ip", "netns", "exec", LAB, *args], stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True), log.name


def wait_for(path, text, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with open(path, errors="replace") as f:
            if text in f.read():
                return
        time.sleep(0.1)
    raise RuntimeError(f"{os.path.basename(path)}: no '{text}' within {timeout} s")


def client(address, port, text):
    return sh(OUTSIDE, f"/usr/bin/python3 -c '{CLIENT}' {address} {port} '{text}'", check=False).stdout.strip()


def main():
    if os.geteuid() != 0:
        sys.exit("dmz_demo: needs root (network namespaces, TAP devices)")
    print("dmz: building the images (firewall, router, udp_echo)", flush=True)
    images = {name: build.build(directory, "kvm", quiet=True) for name, (directory, _, _) in GUESTS.items()}
    keelfw = os.path.join(ROOT, "build", "keel-fw-host", "keel-fw")
    guests = []
    with tempfile.TemporaryDirectory(prefix="keel-dmz-") as tmp:
        try:
            setup_network()
            logs = {}
            for name in GUESTS:
                process, logs[name] = boot(name, images, tmp)
                guests.append(process)
            wait_for(logs["firewall"], "firewall: management on port")
            wait_for(logs["router"], "router: forwarding")
            for name in ("echo1", "echo2"):
                wait_for(logs[name], "listening")
            blob = os.path.join(tmp, "dmz.bin")
            subprocess.run([keelfw, "compile", os.path.join(HERE, "dmz.fw"), "-o", blob], check=True)
            result = sh(OUTSIDE, f"/usr/bin/python3 {os.path.join(HERE, 'push_rules.py')} 203.0.113.1 5555 {KEY} "
                                 f"{blob} --generation 1", check=False)
            print(f"dmz: rules pushed to the running firewall: {result.stdout.strip()}", flush=True)
            steps = [
                ("allowed: UDP echo at 172.16.0.10:7, published at its own address", ("172.16.0.10", 7, "hello 1")),
                ("translated: UDP to the firewall's 203.0.113.1:7011, sent on to 172.16.0.11:7",
                 ("203.0.113.1", 7011, "hello 2")),
                ("blocked: UDP to 172.16.0.10:9 (logged by the firewall)", ("172.16.0.10", 9, "discard me")),
                ("blocked: UDP to 172.16.0.11:19 (logged by the firewall)", ("172.16.0.11", 19, "nothing")),
            ]
            for title, (address, port, text) in steps:
                print(f"dmz: {title}\n       -> {client(address, port, text)}", flush=True)
            ping = sh(OUTSIDE, "ping -n -c 1 -W 3 172.16.0.11", check=False).stdout
            line = next((l for l in ping.splitlines() if "ttl=" in l), "no answer")
            print(f"dmz: allowed: ping 172.16.0.11 across both routers\n       -> {line.strip()}", flush=True)
            time.sleep(0.5)
            with open(logs["firewall"], errors="replace") as f:
                print("dmz: the firewall's console:\n" + "".join(f"       | {l}" for l in f.readlines()[-12:]), flush=True)
            return 0
        finally:
            for process in guests:
                if process.poll() is None:
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()
            for ns in (OUTSIDE, LAB):
                subprocess.run(["ip", "netns", "del", ns], capture_output=True)


if __name__ == "__main__":
    sys.exit(main())

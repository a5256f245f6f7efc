#!/usr/bin/python3
"""The DMZ topology of the CETIC firewall study, in one command (`tools/keel demo dmz`), on
this machine as root: an outside client namespace, the firewall image, a router image and a
DMZ with a web server (examples/web) and a DNS server (examples/dns serving dmz-zones/), all
Keel images under QEMU, joined by bridges in a lab namespace. It loads dmz.fw into the running
firewall over its management port, then shows from the outside: dig resolving the web server's
name, curl fetching its page and using its REST API (directly and published at the firewall's
address), a blocked port, and the firewall's console; then it tears everything down.

  outside 203.0.113.10 ── [firewall 203.0.113.1 | 192.168.10.1] ── [router 192.168.10.2 | 172.16.0.1]
                                                                    ── DMZ: web 172.16.0.10, dns 172.16.0.11
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
    "web": (os.path.join(ROOT, "examples", "web"), ["dmz"], "ip=172.16.0.10/24 gw=172.16.0.1"),
    "dns": (os.path.join(ROOT, "examples", "dns"), ["dmz"], "ip=172.16.0.11/24 gw=172.16.0.1"),
}
# What each guest prints once it serves.
READY = {"firewall": "firewall: management on port", "router": "router: forwarding",
         "web": "listening on", "dns": "dns: zones"}
ZONES = os.path.join(HERE, "dmz-zones")
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


def outside(command):
    """A command's output (or its failure) in the outside client's namespace."""
    result = sh(OUTSIDE, command, check=False)
    return result.stdout.strip() or f"no answer (exit status {result.returncode})"


def build_images():
    images = {}
    for name, (directory, _, _) in GUESTS.items():
        if name == "dns":  # examples/dns with the demo's zone, in a build folder of its own
            images[name] = build.build(directory, "kvm", quiet=True, out=os.path.join(ROOT, "build", "demo-dmz-dns"),
                                       defines=[f"KEEL_DNS_ZONES={ZONES}"])
        else:
            images[name] = build.build(directory, "kvm", quiet=True)
    return images


def show(steps):
    for title, command in steps:
        print(f"dmz: {title}\n       $ {command}\n" +
              "".join(f"       -> {line}\n" for line in outside(command).splitlines()), end="", flush=True)


def main():
    if os.geteuid() != 0:
        sys.exit("dmz_demo: needs root (network namespaces, TAP devices)")
    print("dmz: building the images (firewall, router, web, dns)", flush=True)
    images = build_images()
    keelfw = os.path.join(ROOT, "build", "keel-fw-host", "keel-fw")
    guests = []
    with tempfile.TemporaryDirectory(prefix="keel-dmz-") as tmp:
        try:
            setup_network()
            logs = {}
            for name in GUESTS:
                process, logs[name] = boot(name, images, tmp)
                guests.append(process)
            for name, text in READY.items():
                wait_for(logs[name], text)
            blob = os.path.join(tmp, "dmz.bin")
            subprocess.run([keelfw, "compile", os.path.join(HERE, "dmz.fw"), "-o", blob], check=True)
            result = sh(OUTSIDE, f"/usr/bin/python3 {os.path.join(HERE, 'push_rules.py')} 203.0.113.1 5555 {KEY} "
                                 f"{blob} --generation 1", check=False)
            print(f"dmz: rules pushed to the running firewall: {result.stdout.strip()}", flush=True)
            www = outside("dig +short +time=3 +tries=2 @172.16.0.11 www.dmz.test A")
            curl = f"curl -sS --max-time 5 --resolve www.dmz.test:80:{www}"
            show([
                ("allowed: DNS (UDP) to 172.16.0.11, the web server's name",
                 "dig +short +time=3 +tries=2 @172.16.0.11 www.dmz.test A"),
                ("allowed: DNS over TCP to 172.16.0.11", "dig +tcp +short +time=3 @172.16.0.11 dmz.test SOA"),
                ("allowed: HTTP to www.dmz.test, its page's title",
                 f"{curl} http://www.dmz.test/ | grep -o '<title>.*</title>'"),
                ("allowed: the REST API, an item created",
                 f"{curl} -X POST -H 'Content-Type: application/json' -d '{{\"name\": \"demo\"}}' "
                 "http://www.dmz.test/api/items"),
                ("translated: the firewall's 203.0.113.1:8080, sent on to 172.16.0.10:80, lists the items",
                 "curl -sS --max-time 5 http://203.0.113.1:8080/api/items"),
                ("blocked: TCP to 172.16.0.10:22 (dropped and logged by the firewall)",
                 "curl -sS --max-time 3 http://172.16.0.10:22/ 2>&1 | cut -c1-60"),
                ("blocked: UDP to 172.16.0.11:9", "dig +short +time=2 +tries=1 -p 9 @172.16.0.11 www.dmz.test"),
                ("allowed: ping 172.16.0.11 across both routers", "ping -n -c 1 -W 3 172.16.0.11 | grep ttl="),
            ])
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

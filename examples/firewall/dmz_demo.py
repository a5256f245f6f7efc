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

With --libvirt (dmz_libvirt.py) the same guests are libvirt domains on libvirt networks, as a
fleet on libvirt would run them; the checks are the same. SIGTERM tears down as Ctrl-C does.
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
from keelpy.netns import Netns  # noqa: E402

KEY = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"
# Which network each NIC of each guest joins, in the guest's interface order.
GUESTS = {
    "firewall": (os.path.join(ROOT, "examples", "firewall"), ["out", "mid"],
                 f"ip=203.0.113.1/24 ip1=192.168.10.1/24 route=172.16.0.0/24,192.168.10.2 fw_port=5555 fw_key={KEY}"),
    "router": (os.path.join(ROOT, "examples", "router"), ["mid", "dmz"],
               "ip=192.168.10.2/24 gw=192.168.10.1 ip1=172.16.0.1/24"),
    "web": (os.path.join(ROOT, "examples", "web"), ["dmz"], "ip=172.16.0.10/24 gw=172.16.0.1"),
    "dns": (os.path.join(ROOT, "examples", "dns"), ["dmz"], "ip=172.16.0.11/24 gw=172.16.0.1"),
}
NETWORKS = ("out", "mid", "dmz")
# What each guest prints once it serves.
READY = {"firewall": "firewall: management on port", "router": "router: forwarding",
         "web": "listening on", "dns": "dns: zones"}
ZONES = os.path.join(HERE, "dmz-zones")
CLIENT = "203.0.113.10/24"
OUTSIDE_ROUTE = "ip route add 172.16.0.0/24 via 203.0.113.1"  # the DMZ, behind the firewall
READY_WAIT = 60  # s for every guest to serve


def mac(name, i):
    return f"52:54:00:{list(GUESTS).index(name):02x}:00:{i:02x}"


class QemuLab:
    """The guests under QEMU on TAPs of bridges br-out, br-mid and br-dmz in a lab namespace;
    the outside client's namespace on br-out through a veth pair."""

    def __init__(self, images, log_dir):
        self.images, self.log_dir, self.guests, self.outside = images, log_dir, [], None
        self.lab = Netns(prefix="keel-dmz")
        try:
            for network in NETWORKS:
                self.lab.add_bridge(f"br-{network}")
            self.outside = self.lab.veth_peer(None, CLIENT, dev="client-port",
                                              peer_dev="dmz-client", bridge="br-out")
            self.outside.sh(OUTSIDE_ROUTE)
        except BaseException:
            self.close()
            raise

    def boot(self, name):
        """Starts guest `name`; returns the path of its console log."""
        _, networks, append = GUESTS[name]
        extra = []
        for i, network in enumerate(networks):
            tap = f"{name}{i}"
            self.lab.add_tap(tap)
            self.lab.sh(f"ip link set {tap} master br-{network}")
            extra += ["-netdev", f"tap,id=n{i},ifname={tap},script=no,downscript=no",
                      "-device", f"virtio-net-device,netdev=n{i},mac={mac(name, i)}"]
        path = os.path.join(self.log_dir, f"{name}.log")
        with open(path, "w") as log:
            args = qemu.command(self.images[name], "microvm", "64M", 1, append, "tcg", extra)
            self.guests.append(self.lab.popen(args, stdout=log, stderr=subprocess.STDOUT,
                                              stdin=subprocess.DEVNULL, start_new_session=True))
        return path

    def close(self):
        for process in self.guests:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        if self.outside:
            self.outside.close()
        self.lab.close()


def wait_for(path, text, timeout=READY_WAIT):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if os.path.exists(path):
            with open(path, errors="replace") as f:
                if text in f.read():
                    return
        time.sleep(0.1)
    raise RuntimeError(f"{os.path.basename(path)}: no '{text}' within {timeout} s")


def build_images():
    images = {}
    for name, (directory, _, _) in GUESTS.items():
        if name == "dns":  # examples/dns with the demo's zone, in a build folder of its own
            images[name] = build.build(directory, "kvm", quiet=True, out=os.path.join(ROOT, "build", "demo-dmz-dns"),
                                       defines=[f"KEEL_DNS_ZONES={ZONES}"])
        else:
            images[name] = build.build(directory, "kvm", quiet=True)
    return images


def show(outside, steps):
    for title, command in steps:
        result = outside.sh(command, timeout=60, check=False)
        answer = result.stdout.strip() or f"no answer (exit status {result.returncode})"
        print(f"dmz: {title}\n       $ {command}\n" +
              "".join(f"       -> {line}\n" for line in answer.splitlines()), end="", flush=True)


def check(lab, logs, work):
    """Pushes dmz.fw into the running firewall, then shows what passes and what is blocked."""
    keelfw = os.path.join(ROOT, "build", "keel-fw-host", "keel-fw")
    blob = os.path.join(work, "dmz.bin")
    subprocess.run([keelfw, "compile", os.path.join(HERE, "dmz.fw"), "-o", blob], check=True)
    result = lab.outside.sh(f"/usr/bin/python3 {os.path.join(HERE, 'push_rules.py')} 203.0.113.1 5555 {KEY} "
                            f"{blob} --generation 1", check=False)
    print(f"dmz: rules pushed to the running firewall: {result.stdout.strip()}", flush=True)
    www = lab.outside.sh("dig +short +time=3 +tries=2 @172.16.0.11 www.dmz.test A", check=False).stdout.strip()
    curl = f"curl -sS --max-time 5 --resolve www.dmz.test:80:{www}"
    show(lab.outside, [
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


def interrupted(*_):
    raise KeyboardInterrupt


def main(argv):
    on_libvirt = "--libvirt" in argv
    if os.geteuid() != 0:
        sys.exit("dmz_demo: needs root (network namespaces, TAP devices"
                 + (", libvirt's system daemon)" if on_libvirt else ")"))
    if on_libvirt:
        import dmz_libvirt
        dmz_libvirt.check_daemon()
    for number in (signal.SIGTERM, signal.SIGHUP):  # torn down as on Ctrl-C
        signal.signal(number, interrupted)
    print("dmz: building the images (firewall, router, web, dns)", flush=True)
    images = build_images()
    with tempfile.TemporaryDirectory(prefix="keel-dmz-") as work:
        lab = dmz_libvirt.LibvirtLab(images, work) if on_libvirt else QemuLab(images, work)
        try:
            logs = {name: lab.boot(name) for name in GUESTS}
            for name, text in READY.items():
                wait_for(logs[name], text)
            check(lab, logs, work)
            return 0
        finally:
            for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                signal.signal(number, signal.SIG_IGN)  # the teardown runs to its end
            lab.close()


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit("dmz: interrupted; what the demo started was stopped and removed")

"""examples/router between two networks, as an image with two virtio NICs
and as a Linux process on two TAPs: each side is a network namespace of its
own, so the only path between them is through the router.

  ns A (10.0.0.1) ── tap0 ── router (10.0.0.2 | 10.1.0.2) ── tap1 ── ns B (10.1.0.1)

QEMU (or the process) opens both TAPs in a third namespace; then each TAP
moves to its side (a TAP keeps its file descriptor across namespaces)."""
import contextlib
import os
import re

import pytest

from keelpy.netns import Netns
from netguest import ROOT, Guest, Namespace

ROUTER = os.path.join(ROOT, "examples", "router")


class Side(Netns):
    """A namespace for one side of the router, with the TAP moved into it; `ip6`, if given,
    is (address, the other side's prefix, the router's address) for IPv6 beside IPv4."""

    def __init__(self, name, tap, address, peer_net, router, ip6=None):
        super().__init__(name=name)
        self.address = address
        self.tap, self.peer_net, self.router = tap, peer_net, router
        self.ip6 = ip6

    def attach(self, from_ns):
        self.take(self.tap, from_ns)
        self.sh(f"ip link set {self.tap} up && ip addr add {self.address}/24 dev {self.tap} && "
                f"ip route add {self.peer_net} via {self.router}")
        if self.ip6:
            address, peer_net, router = self.ip6
            self.sh(f"ip -6 addr add {address}/64 dev {self.tap} nodad && "
                    f"ip -6 route add {peer_net} via {router}")


@contextlib.contextmanager
def router_between_sides(machine, ip6=False, append="", prefix="keel-net", device_options=""):
    """The topology above with the router on `machine` (or "linux"): yields (a, b, guest) and
    removes all of it afterwards. With `ip6`, IPv6 too: A fd00::1, the router fd00::2 and
    fd01::2, B fd01::1; `append`: more words for the router; `device_options` go to each
    virtio-net-pci device."""
    middle = Namespace(taps=2, prefix=prefix)
    for tap in middle.taps:  # the router's side: no host addresses here
        middle.sh(f"ip addr flush dev {tap}")
    a = Side(middle.name + "-a", "tap0", "10.0.0.1", "10.1.0.0/24", "10.0.0.2",
             ("fd00::1", "fd01::/64", "fd00::2") if ip6 else None)
    b = Side(middle.name + "-b", "tap1", "10.1.0.1", "10.0.0.0/24", "10.1.0.2",
             ("fd01::1", "fd00::/64", "fd01::2") if ip6 else None)
    words = "ip=10.0.0.2/24,fd00::2/64 ip1=10.1.0.2/24,fd01::2/64" if ip6 else \
        "ip=10.0.0.2/24 ip1=10.1.0.2/24"
    guest = None
    try:
        guest = Guest(middle, machine=machine, platform="linux" if machine == "linux" else "kvm",
                      append=f"{words} {append}".strip(), service=ROUTER,
                      device_options=device_options,
                      ready=r"router: forwarding between 2 interfaces", ready_count=1)
        guest.wait_for(r"router: net\d .* is 10\.\d\.0\.2" + (r" fd0\d::2" if ip6 else ""),
                       count=2)
        a.attach(middle)
        b.attach(middle)
        yield a, b, guest
    finally:
        if guest:
            guest.close()
        a.close()
        b.close()
        middle.close()


@pytest.fixture(scope="module", params=["microvm", "pc", "linux"])
def routed(request):
    with router_between_sides(request.param) as topology:
        yield topology


def test_ping_crosses_the_router_and_ttl_drops_by_one(routed):
    a, b, _ = routed
    result = a.sh("ping -n -c 3 -W 3 10.1.0.1", check=False, timeout=30)
    assert " 0% packet loss" in result.stdout, result.stdout + result.stderr
    # B answers with TTL 64; one hop through the router makes it 63.
    assert re.findall(r"ttl=(\d+)", result.stdout) == ["63"] * 3, result.stdout


def test_ttl_running_out_is_answered_with_time_exceeded(routed):
    a, _, _ = routed
    result = a.sh("ping -n -c 1 -t 1 -W 3 10.1.0.1", check=False, timeout=30)
    assert "From 10.0.0.2 icmp_seq=1 Time to live exceeded" in result.stdout, result.stdout


def test_no_route_is_answered_with_net_unreachable(routed):
    a, _, _ = routed
    a.sh("ip route add 10.9.0.0/16 via 10.0.0.2")
    result = a.sh("ping -n -c 1 -W 3 10.9.0.1", check=False, timeout=30)
    assert "From 10.0.0.2 icmp_seq=1 Destination Net Unreachable" in result.stdout, result.stdout


UDP_SERVER = r"""
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("10.1.0.1", 9000))
s.settimeout(20)
for _ in range(int(sys.argv[1])):
    data, peer = s.recvfrom(70000)
    s.sendto(data, peer)
"""

UDP_CLIENT = r"""
import os, socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(3)
ok = 0
for size in map(int, sys.argv[1:]):
    data = os.urandom(size)
    for _ in range(3):
        s.sendto(data, ("10.1.0.1", 9000))
        try:
            if s.recv(70000) == data:
                ok += 1
                break
        except socket.timeout:
            pass
print("ok", ok)
"""


def test_udp_of_every_size_class_crosses_both_ways(routed):
    # Past 1472 bytes the client's kernel fragments, and the router forwards
    # the fragments as they are.
    a, b, _ = routed
    sizes = [1, 100, 1472, 1473, 4000, 20000]
    server = __import__("subprocess").Popen(
        ["ip", "netns", "exec", b.name, "/usr/bin/python3", "-c", UDP_SERVER, str(len(sizes) * 3)])
    try:
        import time
        time.sleep(0.5)
        result = a.python(UDP_CLIENT, *sizes)
        assert result.stdout.strip() == f"ok {len(sizes)}", result.stdout + result.stderr
    finally:
        server.kill()
        server.wait()


def test_router_still_alive(routed):
    a, b, guest = routed
    assert "panic" not in guest.output().lower()
    assert b.sh("ping -n -c 1 -W 3 10.0.0.1", check=False).returncode == 0


# Bulk TCP from A to B through the image (decision 0093). The router's NICs take the
# segments Linux on A coalesced (GUEST_TSO4): up to 64 KiB each. Where B's NIC segments TCP
# (HOST_TSO4, QEMU's default) they leave whole and the TAP on B's side shows frames longer than
# an MTU; where it does not (host_tso4=off) the router cuts them itself and no frame on B's
# side is longer than 1,514 bytes. Every byte arrives (sha256).
# TCP_SINK ADDRESS PORT takes one connection and prints what came; TCP_SOURCE ADDRESS PORT SIZE
# sends SIZE random bytes and prints what it sent (test_net_router6.py uses them too).
TCP_SINK = r"""
import hashlib, socket, sys
address, port = sys.argv[1], int(sys.argv[2])
s = socket.socket(socket.AF_INET6 if ":" in address else socket.AF_INET)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((address, port))
s.listen(1)
s.settimeout(60)
c, _ = s.accept()
c.settimeout(60)
h, n = hashlib.sha256(), 0
while True:
    b = c.recv(1 << 20)
    if not b:
        break
    h.update(b)
    n += len(b)
print("got", n, h.hexdigest(), flush=True)
"""

TCP_SOURCE = r"""
import hashlib, os, socket, sys
size = int(sys.argv[3])
data = os.urandom(size)
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=60)
s.sendall(data)
s.shutdown(socket.SHUT_WR)
s.recv(1)
print("sent", size, hashlib.sha256(data).hexdigest())
"""

ETHERNET_MTU_FRAME = 1514


def frame_lengths(path):
    """The original length of every frame in a classic pcap file."""
    import struct
    with open(path, "rb") as f:
        data = f.read()
    lengths, at = [], 24
    while at + 16 <= len(data):
        _, _, captured, original = struct.unpack_from("<IIII", data, at)
        lengths.append(original)
        at += 16 + captured
    return lengths


@pytest.mark.parametrize("egress_tso", [True, False], ids=["egress-tso", "egress-no-tso"])
def test_coalesced_tcp_crosses_whole_or_cut_never_over_the_mtu(egress_tso, tmp_path):
    import subprocess
    import time
    options = "" if egress_tso else ",host_tso4=off,host_tso6=off"
    with router_between_sides("pc", append="stats=1", device_options=options) as (a, b, guest):
        capture = tmp_path / "tap1.pcap"
        dump = subprocess.Popen(["ip", "netns", "exec", b.name, "tcpdump", "-i", "tap1", "-nn",
                                 "-U", "--immediate-mode", "-s", "96", "-w", str(capture),
                                 "tcp and src host 10.0.0.1"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        sink = subprocess.Popen(["ip", "netns", "exec", b.name, "/usr/bin/python3", "-c",
                                 TCP_SINK, "10.1.0.1", "5001"], stdout=subprocess.PIPE, text=True)
        try:
            time.sleep(1)
            size = 8 << 20
            sent = a.python(TCP_SOURCE, "10.1.0.1", 5001, size, timeout=120)
            got = sink.communicate(timeout=60)[0]
            time.sleep(2.5)  # a stats line after the transfer
        finally:
            sink.kill()
            dump.terminate()
            dump.wait(timeout=10)
        assert sent.stdout.split()[1:] == got.split()[1:], sent.stdout + sent.stderr + got
        lengths = frame_lengths(capture)
        counters = guest.output().strip().splitlines()[-1]
        cut = re.search(r"net1\.link\.tx_software_segments=(\d+)", counters)
        large = [n for n in lengths if n > ETHERNET_MTU_FRAME]
        print(f"egress tso {egress_tso}: {len(lengths)} frames on B's side, {len(large)} over "
              f"{ETHERNET_MTU_FRAME}, largest {max(lengths)}; {counters}")
        if egress_tso:
            assert large and max(large) <= 14 + 65535
            assert not cut
        else:
            assert not large
            assert cut and int(cut[1]) > 0

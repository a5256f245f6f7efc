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

from netguest import ROOT, Guest, Namespace, run

ROUTER = os.path.join(ROOT, "examples", "router")


class Side:
    """A namespace for one side of the router, with the TAP moved into it; `ip6`, if given,
    is (address, the other side's prefix, the router's address) for IPv6 beside IPv4."""

    def __init__(self, name, tap, address, peer_net, router, ip6=None):
        self.name = name
        run(["ip", "netns", "add", name])
        self.sh("ip link set lo up")
        self.address = address
        self.tap, self.peer_net, self.router = tap, peer_net, router
        self.ip6 = ip6

    def attach(self, from_ns):
        from_ns.sh(f"ip link set {self.tap} netns {self.name}")
        self.sh(f"ip link set {self.tap} up && ip addr add {self.address}/24 dev {self.tap} && "
                f"ip route add {self.peer_net} via {self.router}")
        if self.ip6:
            address, peer_net, router = self.ip6
            self.sh(f"ip -6 addr add {address}/64 dev {self.tap} nodad && "
                    f"ip -6 route add {peer_net} via {router}")

    def sh(self, command, timeout=30, check=True):
        return run(["ip", "netns", "exec", self.name, "sh", "-c", command], timeout=timeout,
                   check=check)

    def python(self, code, *args, timeout=60):
        return run(["ip", "netns", "exec", self.name, "/usr/bin/python3", "-c", code,
                    *map(str, args)], timeout=timeout, check=False)

    def close(self):
        run(["ip", "netns", "del", self.name], check=False)


@contextlib.contextmanager
def router_between_sides(machine, ip6=False, append="", prefix="keel-net"):
    """The topology above with the router on `machine` (or "linux"): yields (a, b, guest) and
    removes all of it afterwards. With `ip6`, IPv6 too: A fd00::1, the router fd00::2 and
    fd01::2, B fd01::1; `append`: more words for the router."""
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

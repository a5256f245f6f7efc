"""examples/router forwarding IPv6 between two networks (decision 0134), as an image with two
virtio NICs under TCG and as a Linux process on two TAPs, in the topology of
test_net_router.py with IPv6 beside IPv4:

  ns A (fd00::1) ── tap0 ── router (fd00::2 | fd01::2, MTU 1400) ── tap1 ── ns B (fd01::1)

The router's link to B is narrowed to 1400 bytes (mtu1=1400) so that a packet from A that
fits A's link does not fit the next one: the router answers with Packet Too Big, never
fragments, and TCP from A finds the path MTU through it. A static route
(route=2001:db8:2::/48,fd01::1) sends a prefix behind B through B."""
import re
import subprocess
import time

import pytest

from test_net_router import TCP_SINK, TCP_SOURCE, router_between_sides

NAME = "ip6-forward"  # namespaces of this test are named after it


@pytest.fixture(scope="module", params=["microvm", "linux"])
def routed6(request):
    with router_between_sides(request.param, ip6=True,
                              append="mtu1=1400 route=2001:db8:2::/48,fd01::1",
                              prefix=NAME) as topology:
        yield topology


def test_ping6_crosses_the_router_and_the_hop_limit_drops_by_one(routed6):
    a, b, _ = routed6
    result = a.sh("ping -6 -n -c 3 -W 3 fd01::1", check=False, timeout=30)
    assert " 0% packet loss" in result.stdout, result.stdout + result.stderr
    # B answers with hop limit 64; one hop through the router makes it 63.
    assert re.findall(r"(?:ttl|hlim)=(\d+)", result.stdout) == ["63"] * 3, result.stdout
    back = b.sh("ping -6 -n -c 1 -W 3 fd00::1", check=False, timeout=30)
    assert " 0% packet loss" in back.stdout, back.stdout + back.stderr


def test_a_static_route_takes_a_prefix_through_its_gateway(routed6):
    # 2001:db8:2::1 lives on B's loopback; only the router's route= knows it is behind fd01::1.
    a, b, guest = routed6
    assert "router: route 2001:db8:2::/48 via fd01::1 dev 1 metric 0" in guest.output()
    b.sh("ip -6 addr replace 2001:db8:2::1/128 dev lo")
    a.sh("ip -6 route replace 2001:db8:2::/48 via fd00::2")
    result = a.sh("ping -6 -n -c 2 -W 3 2001:db8:2::1", check=False, timeout=30)
    assert " 0% packet loss" in result.stdout, result.stdout + result.stderr
    assert re.findall(r"(?:ttl|hlim)=(\d+)", result.stdout) == ["63"] * 2, result.stdout


def test_hop_limit_running_out_is_answered_with_time_exceeded(routed6):
    a, _, _ = routed6
    result = a.sh("ping -6 -n -c 1 -t 1 -W 3 fd01::1", check=False, timeout=30)
    assert re.search(r"From fd00::2 icmp_seq=1 Time exceeded: Hop limit", result.stdout), \
        result.stdout + result.stderr


def test_no_route_is_answered_with_unreachable(routed6):
    a, _, _ = routed6
    a.sh("ip -6 route replace 2001:db8:9::/48 via fd00::2")
    result = a.sh("ping -6 -n -c 1 -W 3 2001:db8:9::1", check=False, timeout=30)
    assert re.search(r"From fd00::2 icmp_seq=1 Destination unreachable: No route",
                     result.stdout), result.stdout + result.stderr


# A UDP datagram of 1450 bytes to B (it fits A's link of 1500, not the router's 1400 to B),
# sent by scapy so that A's kernel keeps no path MTU for it: the answer must be Packet Too Big
# from the router with MTU 1400, quoting the datagram's start.
TOO_BIG = r"""
from scapy.all import IPv6, UDP, Raw, ICMPv6PacketTooBig, IPerror6, sr1, conf
conf.verb = 0
sent = IPv6(src="fd00::1", dst="fd01::1", hlim=64) / UDP(sport=4000, dport=9) / Raw(b"z" * 1402)
assert len(sent) == 1450
answer = sr1(sent, iface="tap0", timeout=5)
assert answer is not None, "no answer"
ptb = answer[ICMPv6PacketTooBig]
quoted = ptb[IPerror6]
print(answer[IPv6].src, ptb.mtu, quoted.dst, quoted.hlim, len(bytes(ptb)))
"""


def test_too_big_for_the_next_link_gets_packet_too_big(routed6):
    a, _, guest = routed6
    result = a.python(TOO_BIG, timeout=60)
    # The quote: the datagram as far as 1280 bytes of error allow (RFC 4443 §2.4 (c)); its hop
    # limit was not yet decremented.
    assert result.stdout.split() == ["fd00::2", "1400", "fd01::1", "64", str(1280 - 40)], \
        result.stdout + result.stderr
    ping = a.sh("ping -6 -n -c 1 -W 3 -s 1400 -M do fd01::1", check=False, timeout=30)
    assert re.search(r"From fd00::2 icmp_seq=1 Packet too big: mtu=1400", ping.stdout), \
        ping.stdout + ping.stderr


def test_tcp_crosses_the_router_finding_the_path_mtu(routed6):
    # A's segments of 1500 bytes do not fit the router's link to B: Packet Too Big brings
    # A's path MTU to 1400, and every byte arrives.
    a, b, guest = routed6
    size = 2 * 1024 * 1024
    sink = subprocess.Popen(["ip", "netns", "exec", b.name, "/usr/bin/python3", "-c", TCP_SINK,
                             "fd01::1", "9001"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(0.5)
        sent = a.python(TCP_SOURCE, "fd01::1", 9001, size, timeout=120)
        got = sink.communicate(timeout=60)[0]
        assert sent.stdout.split() == ["sent", str(size), *got.split()[2:]], sent.stdout + sent.stderr + got
        assert got.split()[:2] == ["got", str(size)], got
    finally:
        sink.kill()
        sink.wait()
    mtu = a.sh("ip -6 route get fd01::1").stdout
    assert "mtu 1400" in mtu, mtu


def test_router_still_alive(routed6):
    a, b, guest = routed6
    assert "panic" not in guest.output().lower()
    assert b.sh("ping -6 -n -c 1 -W 3 fd00::1", check=False).returncode == 0
    assert a.sh("ping -n -c 1 -W 3 10.1.0.1", check=False).returncode == 0  # IPv4 still

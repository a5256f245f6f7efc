"""What a Keel host does with ICMP errors about what it sent, against Linux peers
(docs/net/ipv6.md, decision 0147), beside the 1,300-MTU far link of
test_ip6_host_nd.py:

- UDP: errors reach the socket that sent the datagram, one UdpError for both
  families (udp_echo prints each): Packet Too Big from the Linux router, port
  unreachable from the Linux kernel (scapy sends from a port no socket has, so
  the echo meets a closed port), IPv4's too, and a scapy-crafted
  administratively prohibited; forged ones (a quote not from the socket's port,
  or not from our address) are not told.
- TCP: a connection to a destination whose path MTU the destination cache
  holds (the router's Packet Too Big about a ping reply) offers MSS = path
  MTU - 60 in its SYN-ACK at once; a destination never reported keeps 1440.

On the image under TCG (microvm) and as a Linux process on the TAP."""
import re
import time

import pytest

from test_ip6_host_nd import FAR6, GATEWAY, GUEST6, HOST6, RETRY_CLIENT, in_far, routed_guest
from test_tcp_ipv6 import TCP_ECHO

PREFIX = "ip6-stack"
FRESH6 = "2001:db8:9::4"  # behind the router too, but never reported too big


@pytest.fixture(scope="module", params=["microvm", "linux"])
def udp_guest(request):
    with routed_guest(request.param, prefix=PREFIX) as g:
        yield g


@pytest.fixture(scope="module", params=["microvm", "linux"])
def tcp_guest(request):
    with routed_guest(request.param, prefix=PREFIX, service=TCP_ECHO,
                      ready=r"tcp_echo: \S+ \S+ listening on") as g:
        g.far.sh(f"ip addr add {FRESH6}/64 dev ip6ndv1 nodad")
        yield g


def echo_errors(guest):
    return re.findall(r"udp_echo: echo to (\S+): (.+) from (\S+), mtu (\d+)", guest.output())


def test_packet_too_big_from_a_linux_router_reaches_the_socket(udp_guest):
    result = in_far(udp_guest, ["/usr/bin/python3", "-c", RETRY_CLIENT, GUEST6, "1400"])
    assert "echoed on attempt" in result.stdout, result.stdout + result.stderr
    # (from whichever of the far host's two addresses Linux picked)
    udp_guest.wait_for(r"echo to \[2001:db8:9::[23]\]:\d+: packet too big from \S+, mtu 1300",
                       timeout=30)


ERRORS = r"""
import sys, time
from scapy.all import (Ether, IP, IPv6, UDP, ICMPv6DestUnreach, get_if_hwaddr, sendp, conf)
conf.verb = 0
guest6, host6, gateway, guest_mac, guest4, host4 = sys.argv[1:7]
tap_mac = get_if_hwaddr("tap0")
eth = Ether(dst=guest_mac, src=tap_mac)
# Echo requests from ports no socket has: Linux answers the echoes with port unreachable.
sendp(eth / IPv6(src=host6, dst=guest6) / UDP(sport=40000, dport=7) / b"v6", iface="tap0")
sendp(eth / IP(src=host4, dst=guest4) / UDP(sport=40002, dport=7) / b"v4", iface="tap0")
time.sleep(1)
def about(src, sport, dport, code=1):
    quoted = IPv6(src=src, dst=host6) / UDP(sport=sport, dport=dport) / b"echo"
    return eth / IPv6(src=gateway, dst=guest6) / ICMPv6DestUnreach(code=code) / quoted
sendp([about(guest6, 9, 40003),      # from a port no socket of the guest's has
       about(host6, 7, 40004),       # not from the guest's address
       about(guest6, 7, 40001)],     # administratively prohibited, about the echo port
      iface="tap0")
"""


def test_icmp_errors_reach_the_udp_socket_in_both_families(udp_guest):
    g = udp_guest
    result = g.ns.python(ERRORS, GUEST6, HOST6, GATEWAY, g.mac, g.ns.guest(), g.ns.host(),
                         timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    g.wait_for(r"echo to \[fd00::1\]:40001: prohibited", timeout=30)
    time.sleep(1)  # anything the forged ones would have printed is out by now
    seen = {(to, kind, by) for to, kind, by, _ in echo_errors(g) if "packet too big" not in kind}
    assert seen == {
        (f"[{HOST6}]:40000", "port unreachable", HOST6),
        (f"{g.ns.host()}:40002", "port unreachable", g.ns.host()),
        (f"[{HOST6}]:40001", "prohibited", GATEWAY),
    }, g.output()


# From behind the router: the SYN-ACK's MSS option as Linux received it, and the
# echo of 256 KiB compared.
TCP_CLIENT = r"""
import os, socket, sys, threading
from scapy.all import IPv6, TCP, AsyncSniffer, conf
conf.verb = 0
guest6, source = sys.argv[1:3]
sniffer = AsyncSniffer(iface="ip6ndv1", count=1, timeout=20, lfilter=lambda p: (
    p.haslayer(TCP) and p[IPv6].src == guest6 and p[IPv6].dst == source and
    (int(p[TCP].flags) & 0x12) == 0x12))
sniffer.start()
import time; time.sleep(0.5)
s = socket.create_connection((guest6, 7), timeout=20, source_address=(source, 0))
data = os.urandom(256 * 1024)
threading.Thread(target=lambda: (s.sendall(data), s.shutdown(socket.SHUT_WR))).start()
got = b""
while True:
    chunk = s.recv(65536)
    if not chunk:
        break
    got += chunk
sniffer.join()
mss = dict(sniffer.results[0][TCP].options).get("MSS") if sniffer.results else None
print("mss", mss, "echoed", got == data)
"""


def syn_ack_mss(guest, source):
    result = guest.far.python(TCP_CLIENT, GUEST6, source, timeout=120)
    match = re.search(r"mss (\S+) echoed (\S+)", result.stdout)
    assert match, result.stdout + result.stderr
    assert match.group(2) == "True", result.stdout + result.stderr
    return match.group(1)


def test_tcp_starts_from_the_cached_path_mtu(tcp_guest):
    g = tcp_guest
    # Never reported: the link's MTU, 1500 - 60.
    assert syn_ack_mss(g, FRESH6) == "1440"
    # A ping whose 1448-byte reply the router answers with Packet Too Big (1300).
    ping = in_far(g, ["ping", "-6", "-n", "-c", "3", "-i", "0.5", "-W", "2", "-s", "1400",
                      "-I", FAR6, GUEST6])
    assert re.search(r"[23] received", ping.stdout), ping.stdout + ping.stderr
    # RFC 8200 §8.3: the path MTU less 60, from the first segment on.
    assert syn_ack_mss(g, FAR6) == "1240"

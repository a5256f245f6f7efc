"""What a Keel host does with ICMP errors about what it sent, against Linux peers
(docs/net/ipv6.md, decision 0147), beside the 1,300-MTU far link of
test_ip6_host_nd.py:

- TCP: a connection to a destination whose path MTU the destination cache
  holds (the router's Packet Too Big about a ping reply) offers MSS = path
  MTU - 60 in its SYN-ACK at once; a destination never reported keeps 1440.

On the image under TCG (microvm) and as a Linux process on the TAP."""
import re

import pytest

from test_ip6_host_nd import FAR6, GUEST6, in_far, routed_guest
from test_tcp_ipv6 import TCP_ECHO

PREFIX = "ip6-stack"
FRESH6 = "2001:db8:9::4"  # behind the router too, but never reported too big


@pytest.fixture(scope="module", params=["microvm", "linux"])
def tcp_guest(request):
    with routed_guest(request.param, prefix=PREFIX, service=TCP_ECHO,
                      ready=r"tcp_echo: \S+ \S+ listening on") as g:
        g.far.sh(f"ip addr add {FRESH6}/64 dev ip6ndv1 nodad")
        yield g


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

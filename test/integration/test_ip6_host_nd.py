"""IPv6 host pieces against real peers (docs/net/ipv6.md, decisions 0136,
0137): a Linux router whose next link is narrower (a veth at MTU 1300 into a
second namespace) answers the guest's too-big UDP echo and ping replies with
Packet Too Big, after which the guest's replies to that destination come in
fragments that fit (RFC 8201); Redirects crafted with scapy from the guest's
gateway, and hostile ones, as the guest's next replies show by their
destination MAC (RFC 4861 §8); an MLDv1 query from scapy answered with MLDv1
reports (RFC 3810 §8.2.1). On the image under TCG (microvm) and as a Linux
process on the TAP. (RDNSS against dnsmasq is in test_slaac.py.)"""
import contextlib
import re

import pytest

from netguest import UDP_ECHO, Guest, Namespace
from test_net_ipv6 import mac_of

GUEST6 = "fd00::2"
HOST6 = "fd00::1"
GATEWAY = "fe80::1"   # the Linux side's link-local address: the guest's gateway
FAR6 = "2001:db8:9::2"  # behind the Linux router, over a link of MTU 1300
FAR6_PING = "2001:db8:9::3"  # the same host, a destination of its own for the ping test
NARROW_MTU = 1300


@contextlib.contextmanager
def routed_guest(machine, prefix="ip6-nd", service=UDP_ECHO, ready=r"listening on \[fd00::2\]:7"):
    ns = Namespace(taps=1, prefix=prefix)
    far = g = None
    try:
        ns.sh(f"ip addr add {HOST6}/64 dev tap0 nodad && ip addr add {GATEWAY}/64 dev tap0 nodad")
        far = ns.veth_peer("10.9.0.1/24", "10.9.0.2/24", dev="ip6ndv0", peer_dev="ip6ndv1")
        ns.sh(f"ip link set ip6ndv0 mtu {NARROW_MTU} && "
              "ip addr add 2001:db8:9::1/64 dev ip6ndv0 nodad && "
              "sysctl -qw net.ipv6.conf.all.forwarding=1")
        far.sh(f"ip link set ip6ndv1 mtu {NARROW_MTU} && "
               f"ip addr add {FAR6}/64 dev ip6ndv1 nodad && "
               f"ip addr add {FAR6_PING}/64 dev ip6ndv1 nodad && "
               "ip -6 route add default via 2001:db8:9::1")
        g = Guest(ns, machine=machine,
                  append=f"ip={ns.guest()}/24,{GUEST6}/64 gw=10.0.0.1,{GATEWAY}",
                  ready=ready, service=service)
        g.wait_for(r"net0: fd00::2/64 link-local fe80::", timeout=30)
        g.mac = mac_of(g) if service == UDP_ECHO else None  # (udp_echo prints it)
        g.far = far
        yield g
    finally:
        if g:
            g.close()
        if far:
            far.close()
        ns.close()


@pytest.fixture(scope="module", params=["microvm", "linux"])
def guest(request):
    with routed_guest(request.param) as g:
        yield g


def in_far(guest, args, timeout=60):
    return guest.far.run(args, timeout=timeout, check=False)


# From behind the narrow link: the same 1400 bytes until they come back.
RETRY_CLIENT = r"""
import os, socket, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s.settimeout(2)
data = os.urandom(int(sys.argv[2]))
for attempt in range(1, 6):
    s.sendto(data, (sys.argv[1], 7))
    try:
        got, _ = s.recvfrom(70000)
    except socket.timeout:
        continue
    if got == data:
        print("echoed on attempt", attempt)
        break
else:
    print("never echoed")
"""


def too_bigs_sent(guest):
    snmp = guest.ns.sh("cat /proc/net/snmp6").stdout
    return int(re.search(r"^Icmp6OutPktTooBigs\s+(\d+)", snmp, re.M).group(1))


def test_udp_echo_fits_the_path_after_packet_too_big(guest):
    # 1448 bytes of reply do not pass the router's 1300-byte link: the first
    # is lost and answered with Packet Too Big; the next comes in fragments.
    before = too_bigs_sent(guest)
    result = in_far(guest, ["/usr/bin/python3", "-c", RETRY_CLIENT, GUEST6, "1400"])
    assert re.search(r"echoed on attempt [23]$", result.stdout.strip()), result.stdout + result.stderr
    assert too_bigs_sent(guest) > before


def test_ping_replies_fit_the_path_after_packet_too_big(guest):
    result = in_far(guest, ["ping", "-6", "-n", "-c", "4", "-i", "0.5", "-W", "2", "-s", "1400",
                            "-I", FAR6_PING, GUEST6])
    received = int(re.search(r"(\d+) received", result.stdout).group(1))
    assert received >= 3, result.stdout + result.stderr  # all but the first, at most


REDIRECT = r"""
import sys, time
from scapy.all import (Ether, IPv6, UDP, ICMPv6ND_Redirect, ICMPv6NDOptDstLLAddr, AsyncSniffer,
                       get_if_hwaddr, sendp, conf)
conf.verb = 0
guest6, guest_mac, gateway, dest = sys.argv[1:5]
tap_mac = get_if_hwaddr("tap0")
better_mac = "02:00:00:00:be:ef"

def first_hop(sport):
    # A datagram "from" dest to the echo port: the MAC its echo leaves for.
    sniffer = AsyncSniffer(iface="tap0", count=1, timeout=5, lfilter=lambda p: (
        p.haslayer(UDP) and p[IPv6].src == guest6 and p[IPv6].dst == dest))
    sniffer.start()
    time.sleep(0.5)
    sendp(Ether(dst=guest_mac, src=tap_mac) / IPv6(src=dest, dst=guest6) /
          UDP(sport=sport, dport=7) / b"which way", iface="tap0")
    sniffer.join()
    return sniffer.results[0][Ether].dst if sniffer.results else None

def redirect(src=gateway, hlim=255, target="fe80::beef", dst=dest):
    return (Ether(dst=guest_mac, src=tap_mac) / IPv6(src=src, dst=guest6, hlim=hlim) /
            ICMPv6ND_Redirect(tgt=target, dst=dst) / ICMPv6NDOptDstLLAddr(lladdr=better_mac))

print("before", first_hop(4000))
sendp([redirect(hlim=64),                 # §8.1: hop limit not 255
       redirect(src="fe80::99"),          # not the current first hop
       redirect(src="fd00::1"),           # not link-local
       redirect(target="2001:db8::77")],  # a global target that is not the destination
      iface="tap0")
time.sleep(0.5)
print("hostile", first_hop(4001))
sendp(redirect(), iface="tap0")
time.sleep(0.5)
print("after", first_hop(4002))
"""


def test_redirect_from_the_gateway_is_followed_and_hostile_ones_are_not(guest):
    dest = "2001:db8:8::5"  # not FAR6: the path MTU tests keep their first hop
    result = guest.ns.python(REDIRECT, GUEST6, guest.mac, GATEWAY, dest, timeout=60)
    tap_mac = guest.ns.sh("cat /sys/class/net/tap0/address").stdout.strip()
    lines = dict(line.split() for line in result.stdout.strip().splitlines())
    assert lines == {"before": tap_mac, "hostile": tap_mac, "after": "02:00:00:00:be:ef"}, \
        result.stdout + result.stderr


MLDV1 = r"""
import sys, time
from scapy.all import (Ether, IPv6, IPv6ExtHdrHopByHop, RouterAlert, ICMPv6MLQuery,
                       ICMPv6MLReport, AsyncSniffer, get_if_hwaddr, sendp, conf)
conf.verb = 0
guest_mac = sys.argv[1]
tap_mac = get_if_hwaddr("tap0")
sniffer = AsyncSniffer(iface="tap0", timeout=4, lfilter=lambda p: (
    p[Ether].src == guest_mac and p.haslayer(ICMPv6MLReport)))
sniffer.start()
time.sleep(0.5)
sendp(Ether(dst="33:33:00:00:00:01", src=tap_mac) /
      IPv6(src="fe80::1", dst="ff02::1", hlim=1) / IPv6ExtHdrHopByHop(options=[RouterAlert()]) /
      ICMPv6MLQuery(mrd=1000), iface="tap0")
sniffer.join()
for p in sniffer.results:
    print(p[IPv6].dst, p[ICMPv6MLReport].mladdr, p[IPv6].hlim, p[IPv6].src)
"""


def test_mldv1_query_is_answered_with_mldv1_reports(guest):
    result = guest.ns.python(MLDV1, guest.mac, timeout=60)
    reports = [line.split() for line in result.stdout.strip().splitlines()]
    groups = {r[1] for r in reports}
    # RFC 2710: each group alone, to the group itself, hop limit 1, from link-local.
    assert "ff02::1:ff00:2" in groups, result.stdout + result.stderr
    assert len(groups) == 2, reports  # the static and the link-local address's groups
    assert all(r[0] == r[1] and r[2] == "1" and r[3].startswith("fe80::") for r in reports), reports

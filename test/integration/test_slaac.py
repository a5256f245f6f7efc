"""SLAAC against a real router advertiser (docs/net/ipv6.md, decision 0133):
dnsmasq --enable-ra on the host side of the TAP advertises 2001:db8:1::/64
(on-link, autonomous) with an MTU option; udp_echo started with `ip=...,auto`
solicits, forms its address (RFC 7217 by default, EUI-64 with iid=eui64),
and Linux pings it, echoes UDP through it, 1 MiB through tcp_echo on it, and
finds the guest's MAC by Neighbor Discovery. Then a hostile corpus of advertisements crafted with
scapy (wrong hop limit, global source, zero-length option, prefix length not
64, preferred over valid, a group MAC, floods of prefixes and routers), each
carrying a prefix of its own: the guest forms no address from any invalid
one, at most 8 addresses in all, and still answers. On the image under TCG
(microvm) and as a Linux process on the TAP. dnsmasq's advertisements also
carry a DNS server and a search domain (RFC 8106: RDNSS, DNSSL), which the
guest reports."""
import contextlib
import ipaddress
import os
import re
import subprocess
import tempfile
import time

import pytest

from netguest import Guest, Namespace
from test_tcp_ipv6 import ECHO_CLIENTS, TCP_ECHO
from test_net_ipv6 import UDP6_CLIENT, mac_of

PREFIX = "2001:db8:1:0:"
HOST6 = "2001:db8:1::1"
MAX_ADDRESSES = 8  # Slaac::max_addresses
SLAAC_LINE = r"net0: (2001:db8:[0-9a-f:]+)/64 \(SLAAC\)"
DNS6 = "2001:db8:1::53"


@contextlib.contextmanager
def router_advertiser(ns):
    """dnsmasq sending RAs for 2001:db8:1::/64 on tap0 (RA only, no DHCPv6), stopped by pid."""
    # No detection for it: tap0 has no carrier until the guest starts, and
    # dnsmasq advertises only from an address that is ready.
    ns.sh(f"ip addr add {HOST6}/64 dev tap0 nodad")
    leases = tempfile.NamedTemporaryFile(prefix="slaac-dnsmasq-", delete=False)
    log = tempfile.NamedTemporaryFile(prefix="slaac-dnsmasq-log-", delete=False)
    process = subprocess.Popen(ns.exec_args([
        "dnsmasq", "--keep-in-foreground", "--conf-file=/dev/null", "--port=0",
        "--interface=tap0", "--bind-interfaces", f"--dhcp-leasefile={leases.name}",
        f"--pid-file={leases.name}.pid", "--enable-ra",
        "--dhcp-range=2001:db8:1::,ra-only,64,1h", "--ra-param=tap0,mtu:1400,10,1800",
        f"--dhcp-option=option6:dns-server,[{DNS6}]", "--dhcp-option=option6:domain-search,example.net",
        "--log-facility=-"]), stdout=log, stderr=subprocess.STDOUT)
    try:
        yield process
    finally:
        process.kill()
        process.wait(timeout=10)
        for path in (leases.name, leases.name + ".pid", log.name):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)


@contextlib.contextmanager
def slaac_guest(machine, settings="", service=None):
    ns = Namespace(taps=1)
    g = None
    try:
        with router_advertiser(ns):
            extra = {"service": service} if service else {}
            g = Guest(ns, machine=machine, append=f"ip={ns.guest()}/24,auto {settings}".strip(),
                      ready=r"listening on 10\.0\.0\.2:7", **extra)
            text = g.wait_for(SLAAC_LINE, timeout=60)
            g.address = re.search(SLAAC_LINE, text).group(1)
            g.mac = mac_of(g) if not service else None
            yield g
    finally:
        if g:
            g.close()
        ns.close()


@pytest.fixture(scope="module", params=["microvm", "linux"])
def guest(request):
    with slaac_guest(request.param) as g:
        yield g


def ping6(ns, address):
    return ns.sh(f"ping -6 -n -c 3 -i 0.2 -W 5 {address}", timeout=30, check=False)


def eui64(mac):
    b = [int(x, 16) for x in mac.split(":")]
    b[0] ^= 2
    words = [b[0] << 8 | b[1], b[2] << 8 | 0xff, 0xfe << 8 | b[3], b[4] << 8 | b[5]]
    return ":".join(f"{w:x}" for w in words)


def test_address_from_the_advertised_prefix(guest):
    assert guest.address.startswith(PREFIX), guest.address
    # RFC 7217 by default: not the MAC's EUI-64 identifier.
    assert not guest.address.endswith(eui64(guest.mac)), guest.address
    assert re.search(rf"listening on \[{re.escape(guest.address)}\]:7", guest.output())


def test_ping_and_neighbour_discovery(guest):
    result = ping6(guest.ns, guest.address)
    assert " 0% packet loss" in result.stdout, result.stdout + result.stderr
    neigh = guest.ns.sh("ip -6 neigh show dev tap0").stdout
    assert re.search(rf"^{re.escape(guest.address)} lladdr {guest.mac} ", neigh, re.M), neigh


def test_dns_server_and_search_domain_from_the_advertisement(guest):
    # RFC 8106 options as dnsmasq sends them, read by the guest.
    guest.wait_for(rf"net0: DNS {re.escape(DNS6)} search example\.net \(router advertisement\)",
                   timeout=30)


def test_udp_echo_on_the_slaac_address(guest):
    # 1452 bytes: over the advertised MTU of 1400, so the guest's reply is fragmented.
    result = guest.ns.python(UDP6_CLIENT, guest.address, 0, 1, 1000, 1452)
    assert result.stdout.strip() == "bad []", result.stdout + result.stderr


def test_eui64_by_setting():
    with slaac_guest("linux", "iid=eui64") as g:
        expected = ipaddress.ip_address(f"2001:db8:1:0:{eui64(g.mac)}")
        assert ipaddress.ip_address(g.address) == expected, g.address
        assert " 0% packet loss" in ping6(g.ns, g.address).stdout


def test_tcp_echo_on_the_slaac_address():
    with slaac_guest("linux", service=TCP_ECHO) as g:
        result = g.ns.python(ECHO_CLIENTS, 1 << 20, g.address, timeout=120)
        assert result.stdout.strip() == f"{g.address} ok {1 << 20}", result.stdout + result.stderr


HOSTILE = r"""
import sys, time
from scapy.all import (Ether, IPv6, ICMPv6ND_RA, ICMPv6NDOptPrefixInfo, ICMPv6NDOptSrcLLAddr, Raw, sendp, conf)
conf.verb = 0
mac, router = sys.argv[1], sys.argv[2]

def prefix(n, length=64, valid=3600, preferred=1800):
    return ICMPv6NDOptPrefixInfo(prefix="2001:db8:%x::" % n, prefixlen=length, L=1, A=1,
                                 validlifetime=valid, preferredlifetime=preferred)

def ra(*options, src=router, hlim=255, code=0):
    p = IPv6(src=src, dst="ff02::1", hlim=hlim) / ICMPv6ND_RA(code=code, routerlifetime=1800)
    for o in options:
        p = p / o
    return Ether(dst="33:33:00:00:00:01") / p

bad = [
    ra(prefix(0xbad0), hlim=64),                       # §6.1.2: hop limit not 255
    ra(prefix(0xbad1), code=1),                        # code not 0
    ra(prefix(0xbad2), src="2001:db8:1::99"),          # not link-local
    ra(prefix(0xbad3), Raw(b"\x09\x00" + b"\x00" * 6)),  # a zero-length option
    ra(prefix(0xbad4, length=48)),                     # SLAAC needs /64
    ra(prefix(0xbad5, valid=60, preferred=600)),       # preferred over valid
    ra(prefix(0xbad6), ICMPv6NDOptSrcLLAddr(lladdr="33:33:00:00:00:01")),  # a group MAC
]
sendp(bad, iface="tap0")
# Floods: 40 prefixes in one advertisement, then 40 routers with one each.
sendp(ra(*[prefix(0xf000 + i) for i in range(40)]), iface="tap0")
sendp([ra(prefix(0xe000 + i), src="fe80::%x" % (i + 100)) for i in range(40)], iface="tap0")
print("sent")
"""


def test_hostile_advertisements_leave_state_bounded(guest):
    result = guest.ns.python(HOSTILE, guest.mac, "fe80::99", timeout=60)
    assert "sent" in result.stdout, result.stdout + result.stderr
    time.sleep(3)  # detection of what was formed (1 s each, at once)
    formed = re.findall(SLAAC_LINE, guest.output())
    assert not [a for a in formed if a.startswith("2001:db8:bad")], formed
    # The floods reached it: the slots dnsmasq's prefix left are full, no more.
    assert len(set(formed)) == MAX_ADDRESSES, formed
    result = ping6(guest.ns, guest.address)
    assert " 0% packet loss" in result.stdout, result.stdout + result.stderr

"""IPv6 fragments against Linux (docs/net/ipv6.md, decision 0132): ping -6
across the MTU, where Linux fragments its request, udp_echo reassembles it,
fragments its reply and Linux reassembles that; big UDP datagrams both ways;
then hostile fragments crafted with scapy on the host side of the TAP
(overlaps, tiny fragments, bad lengths, ping of death, a first fragment
without its upper-layer header, a flood of incomplete datagrams from many
sources), each followed by a liveness ping. The image cannot be asked for its
counters here, so the checks are what the guest sends: echoes, and the
ICMPv6 errors RFC 8200 §4.5 asks for. On the image under TCG (microvm) and as
a Linux process on the TAP."""
import re

import pytest

from test_net_ipv6 import GUEST6, HOST6, UDP6_CLIENT, ipv6_guest, mac_of

# Short enough to watch a timeout; set for both families (docs/net/README.md).
REASSEMBLY_TIMEOUT = 5


@pytest.fixture(scope="module", params=["microvm", "linux"])
def guest(request):
    with ipv6_guest(request.param, f"reassembly_timeout={REASSEMBLY_TIMEOUT}",
                    ready=r"listening on \[fd00::2\]:7") as g:
        g.mac = mac_of(g)
        yield g


def ping6(ns, size, count=3):
    return ns.sh(f"ping -6 -n -c {count} -i 0.2 -W 10 -s {size} {GUEST6}", timeout=60,
                 check=False)


def assert_alive(guest, size=3000):
    result = ping6(guest.ns, size, count=2)
    assert " 0% packet loss" in result.stdout, result.stdout + result.stderr


@pytest.mark.parametrize("size", [1200, 1452, 1453, 1500, 3000, 8000, 60000])
def test_ping6_across_the_mtu(guest, size):
    # 1452 bytes of data is the largest unfragmented echo (1500 - 40 - 8).
    result = ping6(guest.ns, size)
    assert " 0% packet loss" in result.stdout, result.stdout + result.stderr
    assert f"{size + 8} bytes from {GUEST6}" in result.stdout, result.stdout


def test_big_udp_datagrams_both_ways(guest):
    result = guest.ns.python(UDP6_CLIENT, GUEST6, 0, 1453, 4000, 20000, 65527, timeout=60)
    assert result.stdout.strip() == "bad []", result.stdout + result.stderr


def test_linux_saw_fragments_from_the_guest(guest):
    # Linux's own count of what it reassembled (Ip6ReasmOKs): the guest's
    # replies above came in fragments.
    snmp = guest.ns.sh("cat /proc/net/snmp6").stdout
    assert int(re.search(r"^Ip6ReasmOKs\s+(\d+)", snmp, re.M).group(1)) > 0, snmp


# Shared by the hostile scripts: an echo request as fragments of chosen
# offsets and lengths, sent from the host side of the TAP, and a sniffer
# for what the guest answers.
SCAPY_COMMON = r"""
import sys, time
from scapy.all import (Ether, IPv6, IPv6ExtHdrFragment, ICMPv6EchoRequest, Raw, AsyncSniffer,
                       sendp, conf)
conf.verb = 0
guest, host, mac = sys.argv[1], sys.argv[2], sys.argv[3]

def echo(ident, size, src=host):
    return bytes(IPv6(src=src, dst=guest) / ICMPv6EchoRequest(id=ident, seq=1, data=b"k" * size))[40:]

def frag(data, offset, more, ident, src=host, nh=58):
    return (Ether(dst=mac) / IPv6(src=src, dst=guest, nh=44) /
            IPv6ExtHdrFragment(nh=nh, offset=offset // 8, m=int(more), id=ident) / Raw(data))

def split(data, pieces, ident, src=host, nh=58):
    # pieces: (offset, length) in bytes; M set on all but the one reaching the end.
    return [frag(data[o:o + n], o, o + n < len(data), ident, src, nh) for o, n in pieces]

def run(frames, wait):
    sniffer = AsyncSniffer(iface="tap0", filter=f"icmp6 and src host {guest}")
    sniffer.start()
    time.sleep(0.5)
    sendp(frames, iface="tap0")
    time.sleep(wait)
    sniffer.stop()
    seen = []
    for p in sniffer.results or []:
        if p.haslayer(IPv6) and p[IPv6].nh in (58, 44):
            raw = bytes(p[IPv6].payload)
            if p[IPv6].nh == 58:
                seen.append((raw[0], raw[1], int.from_bytes(raw[4:8], "big")))
            else:
                seen.append(("fragment",))
    return seen
"""


def scapy(guest, body, timeout=120):
    result = guest.ns.python(SCAPY_COMMON + body, GUEST6, HOST6, guest.mac, timeout=timeout)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout.strip()


def test_overlapping_fragments_discard_the_datagram(guest):
    # RFC 5722: the second fragment repeats 8 bytes of the first: no echo,
    # no error (any overlap discards silently).
    out = scapy(guest, r"""
data = echo(101, 3000)
frames = split(data, [(0, 1232), (1224, 1240), (2464, len(data) - 2464)], 0x01010101)
print(run(frames, 3))
""")
    assert out == "[]", out
    assert_alive(guest)


def test_tiny_fragments_are_reassembled(guest):
    # Sixteen bytes at a time, sent in reverse: legal, and answered.
    out = scapy(guest, r"""
data = echo(102, 200)
pieces = [(o, min(16, len(data) - o)) for o in range(0, len(data), 16)]
print(run(list(reversed(split(data, pieces, 0x02020202))), 3))
""")
    assert out == "[(129, 0, 6684673)]", out  # an echo reply: id 102, seq 1
    assert_alive(guest)


def test_bad_length_and_ping_of_death_get_parameter_problems(guest):
    # RFC 8200 §4.5: a fragment with M set and 13 bytes: parameter problem 0
    # at the payload length (4); offset 65528 with 16 bytes: at the offset (42).
    out = scapy(guest, r"""
bad = frag(b"\x80" + b"b" * 12, 0, True, 0x03030303)
death = frag(b"d" * 16, 65528, False, 0x03030304)
print(sorted(run([bad, death], 3)))
""")
    assert out == "[(4, 0, 4), (4, 0, 42)]", out
    assert_alive(guest)


def test_first_fragment_without_the_upper_layer_header(guest):
    # RFC 7112: a Destination Options header of 16 bytes, 8 of them in
    # fragment zero: parameter problem code 3, pointer 0.
    out = scapy(guest, r"""
print(run([frag(bytes([17, 1, 1, 12, 0, 0, 0, 0]), 0, True, 0x04040404, nh=60)], 3))
""")
    assert out == "[(4, 3, 0)]", out
    assert_alive(guest)


def test_lone_first_fragment_times_out_with_time_exceeded(guest):
    out = scapy(guest, r"""
data = echo(105, 3000)
print(run(split(data, [(0, 1232)], 0x05050505), %d))
""" % (REASSEMBLY_TIMEOUT + 3), timeout=60)
    assert out == "[(3, 1, 0)]", out
    assert_alive(guest)


def test_flood_of_incomplete_datagrams_from_many_sources(guest):
    # 6,000 tiny fragments at 2 KiB strides (one reassembly chunk each, none
    # at offset 0, so no errors go back): 200 datagrams of 30 from 50 on-link
    # sources, past the guest's whole budget (4096 chunks in 128 MiB), then
    # 1,500 more from one source, past its share. Then big pings must pass.
    scapy(guest, r"""
frames = []
for d in range(200):
    src = "fd00::1:%x" % (d % 50)
    for k in range(1, 31):
        frames.append(frag(b"f" * 8, 2048 * k, True, 0x60000000 + d, src=src))
for d in range(50):
    for k in range(1, 31):
        frames.append(frag(b"g" * 8, 2048 * k, True, 0x70000000 + d, src="fd00::1:ff"))
sendp(frames, iface="tap0")
print(len(frames))
""", timeout=300)
    assert_alive(guest, 8000)
    assert_alive(guest, 60000)


def test_guest_still_alive(guest):
    assert "panic" not in guest.output().lower()
    assert_alive(guest, 1200)

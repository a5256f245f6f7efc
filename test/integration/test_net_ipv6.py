"""udp_echo over IPv6 against Linux (docs/net/ipv6.md): ping -6 to the static
and the link-local address, the guest's MAC in Linux's neighbour table (Linux
resolved it by Neighbor Discovery), UDP echo with a Linux socket; on the image
under TCG (microvm) and as a Linux process on the TAP."""
import contextlib
import re
import time

import pytest

from netguest import Guest, Namespace

GUEST6 = "fd00::2"
HOST6 = "fd00::1"

UDP6_CLIENT = r"""
import socket, sys, os
addr, scope = sys.argv[1], int(sys.argv[2])
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s.settimeout(10)
bad = []
for n in [int(x) for x in sys.argv[3:]]:
    data = os.urandom(n)
    s.sendto(data, (addr, 7, 0, scope))
    try:
        got, peer = s.recvfrom(70000)
    except socket.timeout:
        got, peer = None, None
    if got != data or peer[0].split("%")[0] != addr:
        bad.append(n)
print("bad", bad)
"""


def wait_linux_dad(ns):
    # Linux's own addresses on tap0 take part only once its duplicate address
    # detection is over (RFC 4862): setup, not the guest's behaviour.
    deadline = time.monotonic() + 20
    while ns.sh("ip -6 addr show dev tap0 tentative").stdout.strip():
        assert time.monotonic() < deadline, ns.sh("ip -6 addr show dev tap0").stdout
        time.sleep(0.1)


@contextlib.contextmanager
def ipv6_guest(machine, settings="", **guest_args):
    """A guest at 10.x and GUEST6 on tap0, whose host side is HOST6 (its duplicate address
    detection over); `settings` go on the guest's command line after the addresses. The IPv6
    suites (this one, test_ip6_fragments, test_tcp_ipv6) share it."""
    ns = Namespace(taps=1)
    g = None
    try:
        ns.sh(f"ip addr add {HOST6}/64 dev tap0")
        g = Guest(ns, machine=machine, append=f"ip={ns.guest()}/24,{GUEST6}/64 {settings}".strip(),
                  **guest_args)
        wait_linux_dad(ns)
        yield g
    finally:
        if g:
            g.close()
        ns.close()


def mac_of(g):
    """The MAC the udp_echo service prints at start."""
    return re.search(r"udp_echo: \S+ ([0-9a-f:]{17}) listening", g.output()).group(1)


@pytest.fixture(scope="module", params=["microvm", "linux"])
def guest(request):
    with ipv6_guest(request.param, ready=r"listening on \[fd00::2\]:7") as g:
        g.link_local = re.search(r"and \[(fe80::[0-9a-f:]+)\]:7", g.output()).group(1)
        g.mac = mac_of(g)
        yield g


def ping6(ns, address, extra=""):
    return ns.sh(f"ping -6 -n -c 3 -i 0.2 -W 5 {extra} {address}", timeout=30, check=False)


def test_boot_line_names_both_addresses(guest):
    out = guest.output()
    assert re.search(r"net0: fd00::2/64 link-local fe80::", out), out


def test_ping6_static_address(guest):
    result = ping6(guest.ns, GUEST6)
    assert " 0% packet loss" in result.stdout, result.stdout + result.stderr


def test_ping6_link_local(guest):
    result = ping6(guest.ns, f"{guest.link_local}%tap0")
    assert " 0% packet loss" in result.stdout, result.stdout + result.stderr


def test_linux_resolved_the_guest_by_neighbor_discovery(guest):
    assert ping6(guest.ns, GUEST6).returncode == 0
    neigh = guest.ns.sh("ip -6 neigh show dev tap0").stdout
    assert re.search(rf"^{re.escape(GUEST6)} lladdr {guest.mac} ", neigh, re.M), neigh
    if guest.machine != "linux":  # QEMU's MAC; the process derives one from the TAP's name
        assert guest.mac == "52:54:00:12:34:56"
        assert guest.link_local == "fe80::5054:ff:fe12:3456"  # modified EUI-64 (decision 0130)


def test_udp_echo_over_ipv6(guest):
    result = guest.ns.python(UDP6_CLIENT, GUEST6, 0, 0, 1, 100, 1000, 1452)
    assert result.stdout.strip() == "bad []", result.stdout + result.stderr


def test_udp_echo_over_link_local(guest):
    scope = int(guest.ns.sh("cat /sys/class/net/tap0/ifindex").stdout)
    result = guest.ns.python(UDP6_CLIENT, guest.link_local, scope, 1, 512)
    assert result.stdout.strip() == "bad []", result.stdout + result.stderr


def test_ipv4_still_answers(guest):
    result = guest.ns.sh(f"ping -n -c 2 -W 5 {guest.ns.guest()}", timeout=20, check=False)
    assert " 0% packet loss" in result.stdout, result.stdout + result.stderr

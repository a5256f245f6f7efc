"""udp_echo on one virtio-net, on microvm (virtio-mmio), pc and q35 (virtio-pci),
under TCG, and as a Linux process on the TAP; checked with ping, arping and a
UDP client in the namespace."""
import re

import pytest

from netguest import UDP_CLIENT, UDP_STREAM, Guest, Namespace

# (machine, modern): microvm as QEMU gives it by default (legacy virtio-mmio)
# and as v2; pc with a modern and a legacy-only virtio-net-pci.
# (id, machine, modern, virtio-net-pci options). vectors=0: no MSI-X, so
# the driver takes INTx through the I/O APIC.
SETUPS = [("microvm-legacy", "microvm", False, ""), ("microvm-v2", "microvm", True, ""),
          ("pc-modern", "pc", True, ""), ("pc-legacy", "pc", False, ""),
          ("pc-modern-intx", "pc", True, ",vectors=0"), ("q35-modern", "q35", True, ""),
          ("linux", "linux", True, "")]


@pytest.fixture(scope="module", params=SETUPS, ids=lambda s: s[0])
def guest(request):
    _, machine, modern, options = request.param
    ns = Namespace(taps=1)
    g = None
    try:
        g = Guest(ns, machine=machine, modern=modern, device_options=options)
        yield g
    finally:
        if g:
            g.close()
        ns.close()


def ping(ns, size, count=1, extra="", timeout=20):
    return ns.sh(f"ping -n -c {count} -s {size} -W 3 {extra} {ns.guest()}", timeout=timeout,
                 check=False)


@pytest.mark.parametrize("size", [0, 1, 56, 1472, 1473, 1480, 2000, 2961, 4000, 8000])
def test_ping_sizes(guest, size):
    # Past 1472 bytes Linux fragments the request and the guest must
    # reassemble it, then fragment its reply.
    result = ping(guest.ns, size, count=2)
    assert result.returncode == 0, result.stdout + result.stderr
    assert " 0% packet loss" in result.stdout


def test_ping_every_size_up_to_1600(guest):
    ns = guest.ns
    # -c 1 per size would cost a process each; one ping walking sizes is not
    # possible, so sample every 7th size plus the edges.
    bad = []
    for size in list(range(0, 1600, 7)) + [1471, 1472, 1473]:
        if ping(ns, size, extra="-i 0.002").returncode != 0:
            bad.append(size)
    assert bad == []


def test_ping_flood(guest):
    result = guest.ns.sh(f"ping -n -q -f -c 10000 -w 180 {guest.ns.guest()}", timeout=200,
                         check=False)
    assert " 0% packet loss" in result.stdout, result.stdout + result.stderr


def test_ping_flood_fragmented(guest):
    result = guest.ns.sh(f"ping -n -q -f -c 500 -s 4000 -w 120 {guest.ns.guest()}",
                         timeout=140, check=False)
    assert " 0% packet loss" in result.stdout, result.stdout + result.stderr


def test_arping(guest):
    ns = guest.ns
    result = ns.sh(f"arping -c 3 -w 10 -I {ns.taps[0]} {ns.guest()}", timeout=20, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    replies = re.findall(r"Unicast reply from 10\.0\.0\.2 \[([0-9A-Fa-f:]+)\]", result.stdout)
    assert len(replies) == 3
    if guest.machine != "linux":  # the TAP process derives its MAC from the device name
        assert replies[0].lower() == "52:54:00:12:34:56"


def test_udp_echo_every_size(guest):
    result = guest.ns.python(UDP_CLIENT, guest.ns.guest(), 2.0, *range(1, 1473), timeout=300)
    assert result.stdout.strip() == "bad []", result.stdout + result.stderr


def test_udp_echo_fragmented(guest):
    sizes = [1473, 1500, 2000, 2952, 2953, 4000, 8000, 8972]
    result = guest.ns.python(UDP_CLIENT, guest.ns.guest(), 3.0, *sizes, timeout=120)
    assert result.stdout.strip() == "bad []", result.stdout + result.stderr


def test_udp_echo_10000_lose_nothing(guest):
    result = guest.ns.python(UDP_STREAM, guest.ns.guest(), 10000, 16, 64, timeout=200)
    assert "received 10000" in result.stdout, result.stdout + result.stderr


def test_guest_still_alive(guest):
    # After everything above: no panic on the console, still answering.
    assert "panic" not in guest.output().lower()
    assert ping(guest.ns, 56).returncode == 0

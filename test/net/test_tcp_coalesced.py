"""Coalesced receive (decision 0093) on the image in QEMU (TCG, virtio-net
on a TAP in a namespace this test makes; root only):

    /usr/bin/python3 -m pytest -v test/net/test_tcp_coalesced.py

The driver takes VIRTIO_NET_F_GUEST_TSO4/6 with mergeable receive buffers,
so QEMU passes the TCP segments Linux hands the TAP as GSO packets (up to
64 KiB) to the guest whole, spread over several ring buffers, instead of
having the host kernel cut them to the MTU first. Linux sends 4 MiB to
examples/tcp_echo, which prints per connection the bytes it took in and
the longest segment its TCP received: over the 1,460-byte MSS of a
1,500-byte MTU with the offloads on (modern and legacy MMIO on microvm,
modern and legacy PCI on q35), never with the boot setting tso=off. Both ways every byte
comes back (sha256 of the echo). test/net/test_tcp_linux.py runs the
interop suite with and without (`kvm`, `kvm-tso-off`).
"""
import os
import re

import pytest

from tcp_harness import TSO_OFF, Net, echo_transfer

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root for netns and TAP")

MB = 1 << 20
MSS = 1460  # a 1,500-byte MTU less 40 bytes of IPv4 and TCP headers


@pytest.fixture
def net():
    n = Net(prefix="guest-tso")
    yield n
    n.close()


@pytest.mark.parametrize("platform,transport", [("kvm", "mmio"), ("kvm", "mmio-legacy"),
                                                ("kvm", "pci"), ("kvm", "pci-legacy"),
                                                (TSO_OFF, "mmio"), (TSO_OFF, "pci")])
def test_coalesced_segments_arrive_whole(net, platform, transport):
    guest = net.keel("examples/tcp_echo", platform, ready="listening on", transport=transport)
    size = 4 * MB
    sent, sent_sha, got, got_sha, seconds = echo_transfer(net, size)
    assert (got, got_sha) == (sent, sent_sha)
    net.wait_for(guest, r"largest segment \d+", timeout=30)
    match = re.search(r"tcp_echo: (\d+) bytes in, largest segment (\d+)", net.output(guest))
    taken, largest = int(match[1]), int(match[2])
    features = re.search(r"features (0x[0-9a-f]+)", net.output(guest))[1]
    print(f"{platform} {transport}: {size / MB:.0f} MiB each way in {seconds:.2f} s, "
          f"largest segment received {largest} bytes, features {features}")
    assert taken == size
    if platform == TSO_OFF:
        assert largest <= MSS
    else:
        assert largest > MSS
        assert largest <= 65535 - 40

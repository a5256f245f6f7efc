"""TCP segmentation offload (decision 0092) on the image in QEMU (TCG,
virtio-net on a TAP in a namespace this test makes; root only):

    /usr/bin/python3 -m pytest -v test/net/test_tcp_tso.py

With TSO on (the default) the guest hands the device (over MMIO on microvm,
modern and legacy PCI on q35) TCP segments of up to 64 KiB, which QEMU
passes to the TAP whole: tcpdump on the TAP sees frames longer than the
1,514 bytes an MTU of 1,500 allows. With the boot setting
tso=off it sees none. Both ways Linux receives every byte (sha256 of an
echo), so the segments' checksums were right: Linux drops those that are
not. test/net/test_tcp_linux.py runs the interop suite both ways.
"""
import os
import time

import pytest

from tcp_harness import TSO_OFF, Net, echo_transfer, pcap_frames

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root for netns and TAP")

MB = 1 << 20
ETHERNET_MTU_FRAME = 1514  # 1,500 bytes of IP behind a 14-byte Ethernet header


def frame_lengths(path):
    """The original length of every frame in a classic pcap file."""
    return [length for length, _ in pcap_frames(path)]


@pytest.fixture
def net():
    n = Net(prefix="tso")
    yield n
    n.close()


# The driver hands a TSO segment (a heap buffer over a page) to the device as
# one descriptor over each transport (decision 0092).
@pytest.mark.parametrize("platform,transport", [("kvm", "mmio"), ("kvm", "pci"),
                                                ("kvm", "pci-legacy"), (TSO_OFF, "mmio")])
def test_large_segments_leave_only_with_tso(net, platform, transport, tmp_path):
    capture = tmp_path / "keel0.pcap"
    # Headers only (-s 96); the record keeps each frame's real length. Immediate mode: with
    # coalesced receive the transfer ends well within libpcap's 1 s block timeout, and what
    # the kernel's ring still held was never written (decision 0093).
    net.start(["tcpdump", "-i", "keel0", "-nn", "-U", "--immediate-mode", "-s", "96", "-w",
               str(capture), "tcp and src host 10.0.0.2"], ready="listening on")
    net.keel("examples/tcp_echo", platform, ready="listening on", transport=transport)
    size = 4 * MB
    sent, sent_sha, got, got_sha, seconds = echo_transfer(net, size)
    assert (got, got_sha) == (sent, sent_sha)
    time.sleep(0.5)  # tcpdump writes the last records
    lengths = frame_lengths(capture)
    large = [n for n in lengths if n > ETHERNET_MTU_FRAME]
    print(f"{platform} {transport}: {size / MB:.0f} MiB each way in {seconds:.2f} s, {len(lengths)} frames "
          f"from the guest, {len(large)} over {ETHERNET_MTU_FRAME} bytes, largest {max(lengths)}")
    assert len(lengths) > 100
    if platform == TSO_OFF:
        assert not large
    else:
        assert large
        assert max(lengths) <= 14 + 65535

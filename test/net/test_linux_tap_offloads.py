"""The Linux-process build's TAP with the virtio-net header and offloads
(decision 0094), against Linux in a namespace this test makes (root only):

    /usr/bin/python3 -m pytest -v test/net/test_linux_tap_offloads.py

The TAP is opened with IFF_VNET_HDR and TUNSETOFFLOAD (checksums, TSO4/6),
as QEMU opens it for the image. With the offloads on, examples/tcp_echo
hands the kernel TCP segments of up to 64 KiB and takes the ones Linux's
TCP coalesced: tcpdump on the TAP sees frames longer than the 1,514 bytes
of a 1,500-byte MTU in both directions, and tcp_echo's longest received
segment is over the MSS. With tso=off it sees none either way. Every byte
comes back (sha256 of an echo) and iperf3 runs both ways, on and off.
UDP (1 byte to 8,000, fragmented beyond 1,472) and ping go through with
partial checksums: directly, and through the relay (bench/tcp/impair.c),
which completes the partial checksums Keel leaves to the device as a NIC
would, so Linux checks every one. test/net/test_tcp_linux.py runs the
interop suite on both (`linux`, `linux-tso-off`).
"""
import json
import os
import re
import socket
import time

import pytest

from tcp_harness import HOST, KEEL, LINUX_TSO_OFF, PYTHON, Net, echo_transfer, pcap_frames, run

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root for netns and TAP")

MB = 1 << 20
ETHERNET_MTU_FRAME = 1514  # 1,500 bytes of IP behind a 14-byte Ethernet header
MSS = 1460  # a 1,500-byte MTU less 40 bytes of IPv4 and TCP headers
IPV4_SOURCE, IPV4_DESTINATION = slice(26, 30), slice(30, 34)  # in an Ethernet frame
PLATFORMS = ["linux", LINUX_TSO_OFF]


@pytest.fixture
def net_for():
    nets = []

    def make(impair=None):
        nets.append(Net(impair, prefix="tap-vnet"))
        return nets[-1]

    yield make
    for n in nets:
        n.close()


def offloads_line(net, keel):
    match = re.search(r"tap:keel0: virtio-net header \((\d+) bytes\), offloads: (.*)",
                      net.output(keel))
    assert match, net.output(keel)
    return int(match[1]), match[2]


@pytest.mark.parametrize("platform", PLATFORMS)
def test_large_frames_both_ways_only_with_offloads(net_for, platform, tmp_path):
    net = net_for()
    capture = tmp_path / "keel0.pcap"
    # Headers only (-s 96); the record keeps each frame's real length.
    net.start(["tcpdump", "-i", "keel0", "-nn", "-U", "--immediate-mode", "-s", "96", "-w",
               str(capture), "tcp"], ready="listening on")
    keel = net.keel("examples/tcp_echo", platform, ready="listening on")
    header, offloads = offloads_line(net, keel)
    assert header == 12
    size = 8 * MB
    sent, sent_sha, got, got_sha, seconds = echo_transfer(net, size)
    assert (got, got_sha) == (sent, sent_sha)
    net.wait_for(keel, r"largest segment \d+", timeout=30)
    largest = int(re.search(r"tcp_echo: \d+ bytes in, largest segment (\d+)", net.output(keel))[1])
    time.sleep(0.5)  # tcpdump writes the last records
    frames = pcap_frames(capture)
    keel_ip, host_ip = socket.inet_aton(KEEL), socket.inet_aton(HOST)
    out = [n for n, f in frames if f[IPV4_SOURCE] == keel_ip and f[IPV4_DESTINATION] == host_ip]
    into = [n for n, f in frames if f[IPV4_SOURCE] == host_ip and f[IPV4_DESTINATION] == keel_ip]
    large_out = [n for n in out if n > ETHERNET_MTU_FRAME]
    large_in = [n for n in into if n > ETHERNET_MTU_FRAME]
    print(f"{platform}: {size / MB:.0f} MiB each way in {seconds:.2f} s; from Keel {len(out)} "
          f"frames, {len(large_out)} over {ETHERNET_MTU_FRAME} B (largest {max(out)}); to Keel "
          f"{len(into)}, {len(large_in)} over (largest {max(into)}); largest segment Keel "
          f"received {largest}; offloads: {offloads}")
    assert len(out) > 100 and len(into) > 100
    if platform == LINUX_TSO_OFF:
        assert offloads.endswith("receive checksum (tso=off)")
        assert not large_out and not large_in
        assert largest <= MSS
    else:
        assert offloads.endswith("receive checksum, tso4, tso6")
        assert large_out and large_in
        assert max(out) <= 14 + 65535 and max(into) <= 14 + 65535
        assert MSS < largest <= 65535 - 40


@pytest.mark.parametrize("platform", PLATFORMS)
def test_iperf3_both_ways(net_for, platform):
    net = net_for()
    net.keel("examples/iperf3", platform, ready="listening on")
    for extra in ([], ["-R"]):
        out = run(net.args(["iperf3", "-c", KEEL, "-t", "2", "-J", *extra]), timeout=60,
                  check=False)
        report = json.loads(out.stdout)
        assert "error" not in report, report.get("error")
        received = report["end"]["sum_received"]
        assert received["bytes"] > 0
        print(f"{platform} iperf3 {' '.join(extra) or 'forward'}: "
              f"{received['bits_per_second'] / 1e6:.0f} Mbit/s")


# Sends each size to the echo port and checks what comes back, byte for byte.
UDP_CLIENT = r"""
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(2)
for size in map(int, sys.argv[2:]):
    data = bytes((i * 7 + size) & 0xff for i in range(size))
    for attempt in range(3):
        s.sendto(data, (sys.argv[1], 7))
        try:
            reply = s.recv(65536)
            break
        except socket.timeout:
            reply = None
    assert reply == data, f"{size}: {None if reply is None else len(reply)}"
print("echoed", len(sys.argv) - 2)
"""
UDP_SIZES = [1, 18, 100, 1000, 1472, 1473, 3000, 8000]


# "direct": Linux's partial checksums reach Keel; "relay": Keel's partial
# checksums are completed by the relay as a NIC would, and Linux checks them.
@pytest.mark.parametrize("path", ["direct", "relay"])
def test_udp_and_ping_with_partial_checksums(net_for, path):
    net = net_for(None if path == "direct" else "")
    keel = net.keel("examples/udp_echo", "linux", ready="listening on")
    offloads_line(net, keel)
    out = run(net.args([PYTHON, "-c", UDP_CLIENT, KEEL, *map(str, UDP_SIZES)]), timeout=60,
              check=False)
    assert out.stdout.strip() == f"echoed {len(UDP_SIZES)}", out.stdout + out.stderr
    for size in (56, 1472, 4000):
        ping = net.sh(f"ping -n -c 2 -i 0.2 -W 2 -s {size} {KEEL}", timeout=30, check=False)
        assert " 0% packet loss" in ping.stdout, ping.stdout + ping.stderr
    if path == "relay":
        counts = net.relay_counts()
        assert counts["passed"] > 0, counts

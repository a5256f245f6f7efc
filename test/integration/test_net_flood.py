"""examples/router under a UDP flood with VIRTIO_F_RING_EVENT_IDX negotiated
(QEMU's default): the transmit ring of the outgoing NIC must keep moving.

Issue 24: with event_idx on, 64-byte floods through the router stopped its
transmit ring for good (with the driver's re-notify timer disabled: in about
one flood in fifteen). The driver kept the notification rule; the guest's
MFENCE between publishing the avail index and reading avail_event was dropped
by QEMU 7.2's TCG for a guest with one possible vCPU, so the device could go
idle on an index it read before the store landed. tools/keelpy/qemu.py gives
TCG guests maxcpus=2 so TCG keeps the barriers (decision 0091).

  ns A (10.0.0.1) ── tap0 ── router ── tap1 ── ns B (10.1.0.1)
"""
import re
import subprocess
import time

import pytest

from keelpy import qemu
from test_net_router import router_between_sides

ROUNDS, SECONDS, SIZE = 3, 4, 64
RING_EVENT_IDX = 1 << 29  # virtio 1.1, 6

SINK = r"""
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
s.bind(("10.1.0.1", 9000))
s.settimeout(float(sys.argv[1]))
got = 0
try:
    while True:
        s.recv(65536)
        got += 1
except socket.timeout:
    pass
print("received", got, flush=True)
"""

BLAST = r"""
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.connect(("10.1.0.1", 9000))
s.setblocking(False)
payload = b"r" * int(sys.argv[2])
stop, sent = time.monotonic() + float(sys.argv[1]), 0
while time.monotonic() < stop:
    for _ in range(64):
        try:
            s.send(payload)
            sent += 1
        except (BlockingIOError, ConnectionRefusedError):
            break
    time.sleep(0.0005)
print("sent", sent, flush=True)
"""


def test_tcg_guests_keep_their_memory_barriers():
    # One possible vCPU: QEMU 7.2's TCG drops MFENCE and LOCK (see qemu.smp).
    args = qemu.command("image", accel="tcg")
    assert args[args.index("-smp") + 1] == "1,maxcpus=2"
    args = qemu.command("image", accel="kvm")
    assert args[args.index("-smp") + 1] == "1"


@pytest.fixture(scope="module")
def routed():
    with router_between_sides("microvm") as topology:
        yield topology


def test_forwarding_survives_floods_with_event_idx(routed):
    a, b, guest = routed
    features = [int(f, 16) for f in re.findall(r"features (0x[0-9a-f]+)", guest.output())]
    assert len(features) == 2 and all(f & RING_EVENT_IDX for f in features), features
    for round_ in range(ROUNDS):
        sink = subprocess.Popen(["ip", "netns", "exec", b.name, "/usr/bin/python3", "-c", SINK,
                                 "2"], stdout=subprocess.PIPE, text=True)
        try:
            time.sleep(0.3)
            blast = a.python(BLAST, SECONDS, SIZE, timeout=60)
            received = sink.communicate(timeout=60)[0].strip()
        finally:
            sink.kill()
            sink.wait()
        # A stopped transmit ring forwards nothing more: no reply at all.
        ping = a.sh("ping -n -c 3 -W 3 10.1.0.1", check=False, timeout=30)
        print(round_, blast.stdout.strip(), received, flush=True)
        assert ping.returncode == 0, (round_, blast.stdout, received, ping.stdout)

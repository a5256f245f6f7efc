"""tcp_echo over IPv6 against Linux (docs/net/ipv6.md, decision 0131): one
listener on port 7 (the any-address) answers nc -6 and Python sockets over
IPv6 while an IPv4 transfer runs on the same listener; a few MiB each way are
compared byte for byte; a closed port is refused. On the image under TCG
(microvm) and as a Linux process on the TAP, in a namespace the test makes."""
import os
import re

import pytest

from netguest import ROOT
from test_net_ipv6 import GUEST6, ipv6_guest

TCP_ECHO = os.path.join(ROOT, "examples", "tcp_echo")
MB = 1 << 20

# Echo clients run at once, one per address given: each sends its bytes
# (random, its own) and reads them back while sending; prints one line per
# client: "<address> ok <n>" or what went wrong.
ECHO_CLIENTS = r"""
import os, socket, sys, threading
size = int(sys.argv[1])
results = {}

def client(address):
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    data = os.urandom(size)
    got = bytearray()
    try:
        s = socket.create_connection((address, 7), timeout=120)
        assert s.family == family
        def reader():
            while True:
                chunk = s.recv(1 << 16)
                if not chunk:
                    return
                got.extend(chunk)
        t = threading.Thread(target=reader)
        t.start()
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
        t.join(300)
        s.close()
        results[address] = "ok %d" % len(got) if bytes(got) == data else "differ %d of %d" % (len(got), size)
    except Exception as e:
        results[address] = "error %r after %d" % (e, len(got))

threads = [threading.Thread(target=client, args=(a,)) for a in sys.argv[2:]]
for t in threads: t.start()
for t in threads: t.join()
for a in sys.argv[2:]:
    print(a, results.get(a))
"""

REFUSED = r"""
import socket, sys
try:
    socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=20)
    print("connected")
except ConnectionRefusedError:
    print("refused")
except Exception as e:
    print("other", repr(e))
"""


@pytest.fixture(scope="module", params=["microvm", "linux"])
def guest(request):
    with ipv6_guest(request.param, service=TCP_ECHO, ready=r"net0: fd00::2/64 link-local") as g:
        yield g


def test_nc6_echo(guest):
    result = guest.ns.sh(f"printf 'hello over six' | nc -6 -N -w 20 {GUEST6} 7", timeout=60,
                         check=False)
    assert result.stdout == "hello over six", result.stdout + result.stderr


def test_transfer_over_ipv6_beside_ipv4_on_one_listener(guest):
    result = guest.ns.python(ECHO_CLIENTS, 4 * MB, GUEST6, guest.ns.guest(), timeout=600)
    lines = result.stdout.split("\n")
    assert f"{GUEST6} ok {4 * MB}" in lines, result.stdout + result.stderr
    assert f"{guest.ns.guest()} ok {4 * MB}" in lines, result.stdout + result.stderr
    if guest.machine != "linux":
        # The image takes the segments Linux's GSO made, up to 64 KiB, in both families
        # (GUEST_TSO4/6, decision 0093): longer than IPv6's 1,440-byte MSS on a 1,500 MTU.
        done = rf"{4 * MB} bytes in, largest segment (\d+)"
        guest.wait_for(done, count=2)
        largest = [int(n) for n in re.findall(done, guest.output())]
        assert min(largest) > 1440, largest


def test_closed_port_is_refused_over_ipv6(guest):
    result = guest.ns.python(REFUSED, GUEST6, 8)
    assert result.stdout.strip() == "refused", result.stdout + result.stderr

"""examples/reflector, the ceiling `keel bench net` measures udp_echo against (issue 24): it
answers ARP and ping and sends every UDP datagram back to its sender from the port it was sent
to, with no stack; what is not for it gets no answer. Checked with Linux's arping, ping and UDP
sockets in a namespace this test makes, and by the Linux kernel accepting the reflected
checksums (a wrong one would be dropped before the socket)."""
import os

import pytest

from netguest import ROOT, Guest, Namespace

REFLECTOR = os.path.join(ROOT, "examples", "reflector")

# Sends each size to argv[1] from one socket, to port argv[2]; prints what came back and from where.
UDP_PROBE = r"""
import os, socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(2)
addr, port = sys.argv[1], int(sys.argv[2])
for n in (1, 64, 1400, 1472):
    data = os.urandom(n)
    s.sendto(data, (addr, port))
    try:
        got, peer = s.recvfrom(2048)
        print(n, "same" if got == data else "different", peer[0], peer[1])
    except socket.timeout:
        print(n, "none")
"""


@pytest.fixture(scope="module")
def reflector():
    ns = Namespace(taps=1)
    guest = None
    try:
        guest = Guest(ns, service=REFLECTOR, ready=r"reflecting at 10\.0\.0\.2")
        yield ns
    finally:
        if guest:
            guest.close()
        ns.close()


def test_answers_arp_and_ping(reflector):
    ns = reflector
    assert "Unicast reply from 10.0.0.2" in ns.sh("arping -c 1 -w 3 -I tap0 10.0.0.2", check=False).stdout
    assert " 0% packet loss" in ns.sh("ping -n -c 3 -i 0.2 -W 3 10.0.0.2", check=False).stdout


@pytest.mark.parametrize("port", [7, 9, 40000])
def test_every_datagram_comes_back_from_the_port_it_was_sent_to(reflector, port):
    out = reflector.python(UDP_PROBE, "10.0.0.2", port).stdout.split("\n")
    assert [line for line in out if line] == [f"{n} same 10.0.0.2 {port}" for n in (1, 64, 1400, 1472)]


def test_what_is_not_for_it_gets_no_answer(reflector):
    ns = reflector
    # Another address on its link: no ARP answer, so no ping either.
    assert "Unicast reply" not in ns.sh("arping -c 1 -w 2 -I tap0 10.0.0.3", check=False).stdout
    # TCP is not reflected: a connection attempt times out instead of being refused.
    result = ns.sh("curl -sS --max-time 2 http://10.0.0.2:80/ 2>&1", check=False)
    assert "timed out" in result.stdout, result.stdout

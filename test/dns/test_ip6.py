"""The DNS appliance over IPv6 (issue 22): `dig -6` over UDP and TCP gets the same answers as
over IPv4, from the Linux build on a TAP and from the image in QEMU (microvm, TCG), in a
namespace this test creates (host fd53::1, appliance fd53::2). Run as root:

    /usr/bin/python3 -m pytest -v test/dns/test_ip6.py
"""
import os

import pytest

import appliance

EXAMPLE_ZONES = os.path.join(appliance.EXAMPLE, "zones")
HOST6, GUEST6 = "fd53::1", "fd53::2"
pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root for netns and TAP")

# (name, type): an answer, a referral-free NXDOMAIN, a reverse name and an AAAA question.
QUESTIONS = [("www.example.com", "A"), ("example.com", "SOA"), ("nope.example.com", "A"),
             ("10.2.0.192.in-addr.arpa", "PTR"), ("www.example.com", "AAAA")]


def dig(ns, server, name, rdtype, tcp=False):
    """dig's header status and sections, without the parts that differ between two queries."""
    out = ns.sh(f"dig +norec +tries=1 +time=3 {'+tcp' if tcp else '+notcp'} @{server} {name} {rdtype}",
                timeout=30).stdout
    status = next(line for line in out.splitlines() if "status:" in line)
    status = status.split("status:")[1].split(",")[0].strip()
    records = sorted(line for line in out.splitlines() if line and not line.startswith(";"))
    return status, records


@pytest.mark.parametrize("platform", ["linux", "kvm"])
def test_answers_over_ipv6_as_over_ipv4(platform):
    program = appliance.build(EXAMPLE_ZONES, platform)
    ns = appliance.Namespace()
    server = None
    try:
        ns.sh(f"ip addr add {HOST6}/64 dev tap0 nodad")
        kind = {"program": program} if platform == "linux" else {"image": program}
        server = appliance.Appliance(ns, ip6=f"{GUEST6}/64", **kind)
        for name, rdtype in QUESTIONS:
            over4 = dig(ns, server.address, name, rdtype)
            for tcp in (False, True):
                over6 = dig(ns, GUEST6, name, rdtype, tcp)
                assert over6 == over4, f"{name} {rdtype} over IPv6 {'TCP' if tcp else 'UDP'}"
        assert dig(ns, GUEST6, "www.example.com", "A")[0] == "NOERROR"
        assert dig(ns, GUEST6, "www.example.com", "A")[1], "an answer, not an empty section"
    finally:
        if server:
            server.close()
        ns.close()

"""The DNS appliance's own settings, on the Linux build over Keel's stack on a
TAP device in a namespace this test creates: the port, zone selection, the
query log, the counters and response rate limiting (run as root):

    /usr/bin/python3 -m pytest -v test/dns/test_appliance.py
"""
import os
import re
import socket
import subprocess

import dns.message
import dns.query
import dns.rcode
import pytest

import appliance

EXAMPLE_ZONES = os.path.join(appliance.EXAMPLE, "zones")
pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root for netns and TAP")

# Asks from inside the namespace: argv = address port name type count
ASK = r"""
import sys, dns.message, dns.query, dns.flags
address, port, name, rdtype, count = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5])
answered = slipped = lost = 0
for i in range(count):
    q = dns.message.make_query(name, rdtype)
    q.flags &= ~dns.flags.RD
    try:
        r = dns.query.udp(q, address, port=port, timeout=0.3, ignore_trailing=True)
    except dns.exception.Timeout:
        lost += 1
        continue
    if r.flags & dns.flags.TC and not r.answer:
        slipped += 1
    else:
        answered += 1
        last = r
print(answered, slipped, lost, dns.rcode.to_text(last.rcode()) if answered else "-", len(last.answer) if answered else 0)
"""


@pytest.fixture(scope="module")
def program():
    return appliance.build(EXAMPLE_ZONES, "linux")


def ask(ns, address, name, rdtype="A", count=1, port=53):
    out = ns.sh(f"/usr/bin/python3 -c '{ASK}' {address} {port} {name} {rdtype} {count}", timeout=120).stdout.split()
    return {"answered": int(out[0]), "slipped": int(out[1]), "lost": int(out[2]), "rcode": out[3],
            "answers": int(out[4])}


# Sends `count` queries at once from one socket, then counts for half a second.
BURST = r"""
import socket, sys, time, dns.message, dns.flags
address, count = sys.argv[1], int(sys.argv[2])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(count):
    q = dns.message.make_query("www.example.com", "A", id=i)
    s.sendto(q.to_wire(), (address, 53))
s.settimeout(0.5)
answered = slipped = 0
try:
    while True:
        r = dns.message.from_wire(s.recv(4096))
        if r.flags & dns.flags.TC and not r.answer:
            slipped += 1
        else:
            answered += 1
except socket.timeout:
    pass
print(answered, slipped, count - answered - slipped)
"""


def run(program, append, queries, wait_for=()):
    """Starts the appliance with `append`, asks `queries`, waits for each console pattern."""
    ns = appliance.Namespace()
    server = None
    try:
        server = appliance.Appliance(ns, program=program, append=append)
        results = [ask(ns, server.address, *q) for q in queries]
        for pattern in wait_for:
            server.wait_for(pattern, timeout=10)
        return results, server.output()
    finally:
        if server:
            server.close()
        ns.close()


def test_serves_the_compiled_zones_quietly(program):
    results, console = run(program, "", [("www.example.com",), ("10.2.0.192.in-addr.arpa", "PTR")])
    assert results[0]["rcode"] == "NOERROR" and results[0]["answers"] == 1
    assert results[1]["answers"] == 1
    assert re.search(r"dns: zones 2, names \d+, records \d+ in \d+ bytes", console)
    assert "query " not in console, "query logging is off by default"


def test_port_zones_log_and_counters(program):
    log_lines = [r"query 10\.53\.0\.1#\d+ 10\.2\.0\.192\.in-addr\.arpa\. PTR NOERROR \d+",
                 r"query 10\.53\.0\.1#\d+ www\.example\.com\. A REFUSED \d+"]
    results, console = run(program, "dns_port=5353 dns_zones=2.0.192.in-addr.arpa dns_log=1",
                           [("10.2.0.192.in-addr.arpa", "PTR", 1, 5353), ("www.example.com", "A", 1, 5353)],
                           wait_for=log_lines)
    assert results[0]["rcode"] == "NOERROR"
    assert results[1]["rcode"] == "REFUSED", "example.com is compiled in but not selected"
    assert "dns: zones 1," in console
    assert "listening on 10.53.0.2:5353" in console


def test_counters_by_rcode_and_type(program):
    ns = appliance.Namespace()
    server = None
    try:
        server = appliance.Appliance(ns, program=program, append="dns_stats=1")
        ask(ns, server.address, "www.example.com", "A", 3)
        ask(ns, server.address, "nope.example.com", "AAAA", 2)
        line = server.wait_for(r"dns: queries 5 .*\n", timeout=10)
    finally:
        if server:
            server.close()
        ns.close()
    stats = re.findall(r"dns: queries 5 .*", line)[-1]
    assert "rcode0 3" in stats and "rcode3 2" in stats
    assert " A 3" in stats and " AAAA 2" in stats


def test_rate_limit_per_prefix(program):
    ns = appliance.Namespace()
    server = None
    try:
        server = appliance.Appliance(ns, program=program, append="dns_rrl=10 dns_slip=2")
        out = ns.sh(f"/usr/bin/python3 -c '{BURST}' {server.address} 60", timeout=60).stdout.split()
    finally:
        if server:
            server.close()
        ns.close()
    answered, slipped, lost = map(int, out)
    # One second's worth (10) answered; the other 50 alternately slipped (TC, no records) and dropped.
    assert 10 <= answered <= 20, out
    assert slipped >= 20 and lost >= 20, out


def test_bad_settings_stop_the_boot_with_a_clear_error(program):
    ns = appliance.Namespace()
    try:
        with pytest.raises(AssertionError, match=r"dns_port: '70000' is not a number from 0 to 65535"):
            appliance.Appliance(ns, program=program, append="dns_port=70000", timeout=10)
        with pytest.raises(AssertionError, match=r"dns_zones: 'example.org' is not compiled into this image"):
            appliance.Appliance(ns, program=program, append="dns_zones=example.org", timeout=10)
    finally:
        ns.close()


def test_an_image_without_the_secondary_role_refuses_its_settings(program):
    """The default build links no secondary role (decision 0141): its settings stop the boot
    with the build option that brings it."""
    ns = appliance.Namespace()
    try:
        for append in ("dns_secondary=example.org:10.53.0.1", "dns_xfr_in_max=100000"):
            setting = append.split("=")[0]
            with pytest.raises(AssertionError, match=rf"{setting}: this image is built without the secondary "
                                                     r"role: build it with -D KEEL_DNS_SECONDARY=ON"):
                appliance.Appliance(ns, program=program, append=append, timeout=10)
    finally:
        ns.close()


def defined_symbols(program):
    return subprocess.run(["nm", "--defined-only", "-C", program], capture_output=True, text=True,
                          check=True).stdout


def test_only_the_roles_and_zones_in_use_are_linked(program):
    """Decision 0141: unsigned zones and no secondary role link neither the DNSSEC proofs nor
    the transfers in; the secondary role (which may be given signed zones) links both. Signed
    zones compiled in link the DNSSEC code too (test_dnssec.py serves them)."""
    plain = defined_symbols(program)
    assert "keel_dns_dnssec" not in plain and "keel::dns::Denial::" not in plain
    assert "keel::dns::XfrIn::" not in plain and "dns_app::start_secondaries" not in plain
    secondary = defined_symbols(appliance.build(EXAMPLE_ZONES, "linux", secondary=True))
    assert "keel_dns_dnssec" in secondary and "keel::dns::Denial::" in secondary
    assert "keel::dns::XfrIn::" in secondary and "dns_app::start_secondaries" in secondary

"""Zone transfers out (AXFR, RFC 5936) and EDNS TCP keepalive (RFC 7828),
on the appliance's Linux build and on the image under QEMU, each on a TAP
device in a namespace this test creates (run as root; nsd, bind9-dnsutils,
python3-dnspython):

    /usr/bin/python3 -m pytest -v test/dns/test_xfr.py

`dig axfr` gets every zone with SOA first and last and the same records as
NSD (given provide-xfr) transfers from the same zone files, compared as
sets (the order may differ); a zone bigger than 64 KiB comes in several
messages, also to a client that reads only after a while (the transfer
waits for the stream to drain). A client the allow list does not name is
REFUSED, a name that is no zone's apex NOTAUTH, AXFR over UDP NOTIMP, each
as NSD answers. `dig +keepalive` gets the idle timeout over TCP, nothing
over UDP.
"""
import json
import os
import re
import shutil
import tempfile

import pytest

import appliance
import dns_framing
import refservers
import zonegen

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root for netns and TAP"),
    pytest.mark.skipif(shutil.which("dig") is None, reason="needs dig (bind9-dnsutils)"),
]

IDLE_MS = 3000
STRANGER = "10.53.0.3"  # a second address on the host side, not allowed
APPEND = f"dns_xfr_allow={appliance.host_ip()}/32 dns_tcp_idle={IDLE_MS} dns_stats=1"
NSD_PORT = 5301
# bench.test: 3,000 A records, ~75 KB on the wire; txt.test: ~300 KB of TXT.
BIG = {"bench.test": zonegen.a_records_zone(3000),
       "txt.test": "$TTL 300\n@ SOA ns hostmaster 9 7200 3600 1209600 300\n@ NS ns\nns A 192.0.2.9\n" +
                   "".join(f't{i} TXT "{chr(97 + i % 26) * 250}"\n' for i in range(1200))}

CLIENT = r"""
import json, socket, struct, sys, time
import dns.message, dns.query, dns.rcode, dns.rdatatype
scenario, address, zone = sys.argv[1], sys.argv[2], sys.argv[3]

out = {}
if scenario == "ask":  # one AXFR/IXFR/other query over TCP or UDP from a source address
    rdtype, transport, source = sys.argv[4], sys.argv[5], sys.argv[6]
    q = dns.message.make_query(zone, rdtype, id=4321)
    port = int(sys.argv[7]) if len(sys.argv) > 7 else 53
    if transport == "udp":
        r = dns.query.udp(q, address, port=port, timeout=10, source=source)
    else:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.bind((source, 0))
        s.settimeout(10)
        s.connect((address, port))
        s.sendall(frame(q))
        r = read_message(s)
    out = {"rcode": dns.rcode.to_text(r.rcode()), "id": r.id, "answers": sum(len(x) for x in r.answer),
           "questions": len(r.question), "aa": bool(r.flags & 0x400)}
elif scenario == "slow":  # a small window, then read only after a pause
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.settimeout(30)
    s.connect((address, 53))
    s.sendall(frame(dns.message.make_query(zone, "AXFR", id=77)))
    time.sleep(2)
    messages, records, soas = 0, 0, 0
    while soas < 2:
        r = read_message(s)
        assert r.id == 77 and r.rcode() == 0, r
        messages += 1
        for rrset in r.answer:
            records += len(rrset)
            soas += len(rrset) if rrset.rdtype == dns.rdatatype.SOA else 0
    # The connection still answers afterwards.
    s.sendall(frame(dns.message.make_query(zone, "SOA", id=78)))
    out = {"messages": messages, "records": records, "after": read_message(s).id}
print(json.dumps(out))
"""


def dig_axfr(ns, address, zone, port=53, kind="axfr", source=None):
    """(records as (owner, ttl, class, type, rdata), messages) from `dig axfr`."""
    where = f"-b {source} " if source else ""
    out = ns.sh(f"dig {where}-p {port} @{address} {zone} {kind} +nocmd", timeout=120).stdout
    records = []
    for line in out.splitlines():
        if not line.strip() or line.startswith(";"):
            continue
        owner, ttl, rclass, rtype, *rdata = line.split()
        records.append((owner.lower(), int(ttl), rclass, rtype, " ".join(rdata)))
    size = re.search(r"XFR size: (\d+) records \(messages (\d+)", out)
    return records, (int(size.group(2)) if size else 0), out


def client(ns, scenario, address, zone, *args):
    with tempfile.NamedTemporaryFile("w", suffix=".py", prefix="keel-dns-xfr-", delete=False) as f:
        f.write(dns_framing.client_script(CLIENT))
    try:
        result = appliance.run(ns.exec_args(["/usr/bin/python3", f.name, scenario, address, zone, *args]),
                               timeout=120, check=False)
    finally:
        os.unlink(f.name)
    assert result.returncode == 0, f"{scenario}: {result.stderr[-3000:]}"
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """The Linux build and NSD (provide-xfr for everyone) on the same zones."""
    work = tmp_path_factory.mktemp("dns-xfr")
    zones_dir = str(work / "zones")
    # FEATURES and the differential test's random zone (cuts, glue, DNAMEs, wildcards).
    zones = zonegen.write_zone_set(zones_dir, dict(zonegen.FEATURES, **BIG,
                                                   **{"gen.test": zonegen.generated_zone(seed=7)[0]}))
    program = appliance.build(zones_dir, "linux")
    ns = appliance.Namespace()
    started = []
    try:
        ns.sh(f"ip addr add {STRANGER}/24 dev tap0")
        if shutil.which("nsd"):
            started.append(refservers.Reference("nsd", str(work), zones_dir, zones, "127.0.0.1", NSD_PORT,
                                                ns.exec_args, provide_xfr="0.0.0.0/0"))
        started.append(appliance.Appliance(ns, program=program, append=APPEND))
        yield ns, started[-1], zones, shutil.which("nsd") is not None
    finally:
        for thing in reversed(started):
            thing.close()
        ns.close()


def check_transfer(records, zone):
    assert records, f"{zone}: nothing transferred"
    assert records[0][3] == "SOA" and records[-1][3] == "SOA", f"{zone}: SOA first and last"
    assert records[0] == records[-1]
    assert all(r[3] != "SOA" for r in records[1:-1]), f"{zone}: one SOA in between"
    assert len(set(records)) == len(records) - 1, f"{zone}: a record twice"


def test_axfr_like_nsd(served):
    ns, server, zones, have_nsd = served
    for zone in zones:
        keel, messages, text = dig_axfr(ns, server.address, zone)
        check_transfer(keel, zone)
        if zone in BIG:
            assert messages > 3, f"{zone}: {messages} messages\n{text[-500:]}"
        if have_nsd:
            nsd, _, nsd_text = dig_axfr(ns, "127.0.0.1", zone, port=NSD_PORT)
            assert nsd, f"NSD transferred nothing:\n{nsd_text[-1000:]}"
            assert set(keel) == set(nsd), (f"{zone}: only Keel {sorted(set(keel) - set(nsd))[:10]}, "
                                           f"only NSD {sorted(set(nsd) - set(keel))[:10]}")
            assert len(keel) == len(nsd)
    # The counters line comes every second (dns_stats=1).
    server.wait_for(r"xfr [1-9]\d* refused \d+ done [1-9]", timeout=10)


def test_ixfr_gets_the_whole_zone(served):
    ns, server, _, have_nsd = served
    full, _, _ = dig_axfr(ns, server.address, "example.com")
    ixfr, _, text = dig_axfr(ns, server.address, "example.com", kind="ixfr=1")
    assert ixfr == full, text[-1500:]
    if have_nsd:  # NSD 4.6, with no IXFR history, does the same (RFC 1995 §4)
        nsd, _, nsd_text = dig_axfr(ns, "127.0.0.1", "example.com", port=NSD_PORT, kind="ixfr=1")
        assert set(nsd) == set(ixfr) and len(nsd) == len(ixfr), nsd_text[-1500:]


def test_ixfr_from_a_current_client_gets_the_soa_alone(served):
    ns, server, _, have_nsd = served
    full, _, _ = dig_axfr(ns, server.address, "example.com")
    serial = int(full[0][4].split()[2])  # MNAME RNAME SERIAL ...
    for version in (serial, serial + 1):  # RFC 1995 §2: the same or newer
        ixfr, _, text = dig_axfr(ns, server.address, "example.com", kind=f"ixfr={version}")
        assert ixfr == [full[0]], text[-1500:]
        if have_nsd:
            nsd, _, nsd_text = dig_axfr(ns, "127.0.0.1", "example.com", port=NSD_PORT,
                                        kind=f"ixfr={version}")
            assert nsd == ixfr, nsd_text[-1500:]


def test_a_slow_reader_gets_the_big_zone_as_the_stream_drains(served):
    ns, server, _, _ = served
    r = client(ns, "slow", server.address, "txt.test")
    assert r["records"] == 1200 + 2 + 2 and r["messages"] > 10 and r["after"] == 78, r
    # The stats line (every second) counts the times the transfer waited for on_drain.
    server.wait_for(r"\| xfr \d+ refused \d+ done \d+ messages \d+ waits [1-9]", timeout=10)


def test_refused_notauth_notimp_as_nsd(served):
    ns, server, _, have_nsd = served
    refused = client(ns, "ask", server.address, "example.com", "AXFR", "tcp", STRANGER)
    assert refused == {"rcode": "REFUSED", "id": 4321, "answers": 0, "questions": 1, "aa": False}
    _, _, text = dig_axfr(ns, server.address, "example.com", source=STRANGER)
    assert "Transfer failed" in text
    cases = [("www.example.com", "AXFR", "tcp"), ("example.com", "AXFR", "udp"),
             ("example.com", "IXFR", "udp"), ("nx.invalid", "AXFR", "tcp")]
    for name, rdtype, transport in cases:
        keel = client(ns, "ask", server.address, name, rdtype, transport, appliance.host_ip())
        expected = {"AXFR udp": "NOTIMP"}.get(f"{rdtype} {transport}", "NOTAUTH")
        if (name, rdtype) == ("example.com", "IXFR"):
            expected = "NOERROR"  # RFC 1995 §4: the SOA alone over UDP
            assert keel["answers"] == 1 and keel["aa"], keel
        assert keel["rcode"] == expected, (name, rdtype, transport, keel)
        # NSD 4.6 answers a UDP IXFR from an older serial with as much of an
        # AXFR as fits, without the closing SOA (dnspython calls it
        # malformed); Keel sends the SOA alone as RFC 1995 §2 says.
        if have_nsd and rdtype != "IXFR":
            nsd = client(ns, "ask", "127.0.0.1", name, rdtype, transport, "127.0.0.1", str(NSD_PORT))
            assert nsd == keel, f"{name} {rdtype} {transport}: NSD {nsd}, Keel {keel}"


def test_keepalive_over_tcp_only(served):
    ns, server, _, _ = served
    tcp = ns.sh(f"dig +tcp +keepalive @{server.address} www.example.com").stdout
    assert re.search(r"TCP KEEPALIVE: %.1f secs" % (IDLE_MS / 1000), tcp), tcp
    udp = ns.sh(f"dig +notcp +keepalive @{server.address} www.example.com").stdout
    assert "status: NOERROR" in udp and "KEEPALIVE" not in udp, udp
    plain = ns.sh(f"dig +tcp @{server.address} www.example.com").stdout
    assert "KEEPALIVE" not in plain, plain


@pytest.mark.skipif(shutil.which("qemu-system-x86_64") is None, reason="needs QEMU")
def test_the_image_transfers_too(tmp_path):
    zones_dir = str(tmp_path / "zones")
    zones = zonegen.write_zone_set(zones_dir, {"example.com": zonegen.FEATURES["example.com"],
                                               "bench.test": BIG["bench.test"]})
    image = appliance.build(zones_dir, "kvm")
    ns = appliance.Namespace()
    server = None
    try:
        ns.sh(f"ip addr add {STRANGER}/24 dev tap0")
        server = appliance.Appliance(ns, image=image, append=APPEND)
        for zone in zones:
            records, messages, text = dig_axfr(ns, server.address, zone)
            check_transfer(records, zone)
            if zone == "bench.test":  # SOA, NS, ns1 A, 3,000 A, SOA
                assert len(records) == 3004 and messages > 3, text[-1500:]
        refused = client(ns, "ask", server.address, "example.com", "AXFR", "tcp", STRANGER)
        assert refused["rcode"] == "REFUSED"
        tcp = ns.sh(f"dig +tcp +keepalive @{server.address} www.example.com").stdout
        assert re.search(r"TCP KEEPALIVE: %.1f secs" % (IDLE_MS / 1000), tcp), tcp
    finally:
        if server:
            server.close()
        ns.close()

"""DNS over TCP (RFC 7766) on the appliance's Linux build, over Keel's stack on
a TAP device in a namespace this test creates (run as root):

    /usr/bin/python3 -m pytest -v test/dns/test_tcp.py

The same answers as over UDP where UDP's fit, whole answers where UDP's are
truncated (kdig, dig and dnspython as clients), pipelined queries answered
in order, back-pressure from a client that does not read, the idle timeout,
the per-client connection limit, a zero-length frame, and every truncation
query compared with NSD over TCP.
"""
import json
import os
import re
import shutil
import tempfile

import pytest

import appliance
import dns_framing
import differential
import queries
import refservers
import zonegen

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root for netns and TAP")

IDLE_MS = 1500
PER_CLIENT = 4
APPEND = f"dns_tcp_idle={IDLE_MS} dns_tcp_per_client={PER_CLIENT} dns_stats=1"

# Runs inside the namespace: argv = scenario address; prints JSON.
CLIENT = r"""
import json, socket, struct, sys, time
import dns.flags, dns.message, dns.query, dns.rcode
scenario, address = sys.argv[1], sys.argv[2]

def closed(s):
    try:
        return s.recv(1) == b""
    except ConnectionResetError:
        return True

def summary(r):
    return {"rcode": dns.rcode.to_text(r.rcode()), "tc": bool(r.flags & dns.flags.TC),
            "answer": sorted(str(x) for x in r.answer), "authority": sorted(str(x) for x in r.authority),
            "additional": sorted(str(x) for x in r.additional), "size": len(r.to_wire())}

out = {}
if scenario == "compare":
    asks = json.loads(sys.argv[3])
    for name, rdtype, payload in asks:
        q = dns.message.make_query(name, rdtype, use_edns=payload is not None, payload=payload or 0)
        q.flags &= ~dns.flags.RD
        u = dns.query.udp(q, address, timeout=5)
        t = dns.query.tcp(q, address, timeout=5)
        out[f"{name} {rdtype} {payload}"] = {"udp": summary(u), "tcp": summary(t)}
elif scenario == "pipeline":
    s = socket.create_connection((address, 53), timeout=10)
    names = [("www.example.com", "A"), ("huge.big.test", "TXT"), ("nx.example.com", "A"), ("v6.big.test", "AAAA")]
    qs = [dns.message.make_query(n, t, id=100 + i) for i, (n, t) in enumerate(names)]
    s.sendall(b"".join(frame(q) for q in qs))  # one write: the frames arrive together
    out["ids"] = []
    out["answers"] = []
    for _ in qs:
        r = read_message(s)
        out["ids"].append(r.id)
        out["answers"].append(sum(len(x) for x in r.answer))
    out["tc"] = False
elif scenario == "backpressure":
    # Many big answers asked without reading: the server's queue fills, it
    # pauses reading, and everything still comes, in order, once we read.
    count = int(sys.argv[3])
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before connect: a small window
    s.settimeout(30)
    s.connect((address, 53))
    q = [dns.message.make_query("huge.big.test", "TXT", id=i) for i in range(count)]
    s.sendall(b"".join(frame(x) for x in q))
    time.sleep(1)
    ids = [read_message(s).id for _ in range(count)]
    out["in_order"] = ids == list(range(count))
elif scenario == "idle":
    s = socket.create_connection((address, 53), timeout=30)
    s.sendall(frame(dns.message.make_query("www.example.com", "A")))
    read_message(s)
    start = time.monotonic()
    out["closed"] = closed(s)
    out["after"] = time.monotonic() - start
elif scenario == "zero":
    s = socket.create_connection((address, 53), timeout=10)
    s.sendall(b"\0\0")
    out["closed"] = closed(s)
elif scenario == "limit":
    per_client = int(sys.argv[3])
    kept = []
    for i in range(per_client):
        s = socket.create_connection((address, 53), timeout=10)
        s.sendall(frame(dns.message.make_query("www.example.com", "A")))
        read_message(s)
        kept.append(s)
    # Reset at accept: seen in connect() or at the first read, by timing.
    try:
        extra = socket.create_connection((address, 53), timeout=10)
        out["extra_closed"] = closed(extra)
    except ConnectionResetError:
        out["extra_closed"] = True
    # The server closes on our FIN after freeing the slot, so once we see
    # its FIN the slot is free.
    last = kept.pop()
    last.shutdown(socket.SHUT_WR)
    out["server_closed_too"] = closed(last)
    again = socket.create_connection((address, 53), timeout=10)
    again.sendall(frame(dns.message.make_query("www.example.com", "A")))
    out["after_one_left"] = len(read_message(again).answer)
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """The appliance on FEATURES and TRUNCATION zones, in a namespace."""
    zones_dir = str(tmp_path_factory.mktemp("dns-tcp") / "zones")
    zones = zonegen.write_zone_set(zones_dir, dict(zonegen.FEATURES, **zonegen.TRUNCATION))
    program = appliance.build(zones_dir, "linux")
    ns = appliance.Namespace()
    server = None
    try:
        server = appliance.Appliance(ns, program=program, append=APPEND)
        yield ns, server, zones_dir, zones
    finally:
        if server:
            server.close()
        ns.close()


def client(ns, server, scenario, *args):
    with tempfile.NamedTemporaryFile("w", suffix=".py", prefix="keel-dns-tcp-", delete=False) as f:
        f.write(dns_framing.client_script(CLIENT))
    try:
        quoted = " ".join(f"'{a}'" for a in args)
        result = appliance.run(ns.exec_args(["sh", "-c", f"/usr/bin/python3 {f.name} {scenario} "
                                                         f"{server.address} {quoted}"]), timeout=120, check=False)
    finally:
        os.unlink(f.name)
    assert result.returncode == 0, f"{scenario}: {result.stderr[-3000:]}"
    return json.loads(result.stdout)


def test_same_answers_as_udp_and_whole_where_udp_truncates(served):
    ns, server, _, _ = served
    asks = [["www.example.com", "A", None], ["example.com", "MX", 1232], ["nx.example.com", "A", None],
            ["example.com", "NS", 1232], ["huge.big.test", "TXT", None], ["huge.big.test", "TXT", 1232],
            ["v6many.big.test", "AAAA", 4096], ["deleg.big.test", "A", None], ["mx.big.test", "MX", 1232]]
    results = client(ns, server, "compare", json.dumps(asks))
    for key, r in results.items():
        udp, tcp = r["udp"], r["tcp"]
        assert not tcp["tc"], f"{key}: TC over TCP"
        if udp["tc"]:
            assert tcp["size"] > udp["size"], key
            assert tcp["answer"] or tcp["authority"], key
        else:
            assert udp == tcp, key
    assert results["huge.big.test TXT None"]["udp"]["tc"], "the zone must truncate over UDP"
    assert len(results["huge.big.test TXT 1232"]["tcp"]["answer"]) == 1
    assert results["huge.big.test TXT 1232"]["tcp"]["size"] > 6000


@pytest.mark.parametrize("tool", ["kdig", "dig"])
def test_command_line_clients_get_the_big_rrset(served, tool):
    if shutil.which(tool) is None:
        pytest.skip(f"needs {tool}")
    ns, server, _, _ = served
    out = ns.sh(f"{tool} +tcp +norec @{server.address} huge.big.test TXT").stdout
    shown = out[:1500]
    assert "status: NOERROR" in out, shown
    flags = re.search(r"flags:([^;]*);", out, re.I)
    assert flags and "tc" not in flags.group(1).split(), shown
    assert len(re.findall(r"^huge\.big\.test\.\s+\d+\s+IN\s+TXT", out, re.M)) == 24, shown


def test_pipelined_queries_are_answered_in_order(served):
    ns, server, _, _ = served
    r = client(ns, server, "pipeline")
    assert r["ids"] == [100, 101, 102, 103]
    assert r["answers"] == [2, 24, 0, 60]


def test_a_client_that_does_not_read_is_paused_not_dropped(served):
    ns, server, _, _ = served
    # 60 answers of ~6.3 KB: more than the send buffer and the stream's queue.
    assert client(ns, server, "backpressure", 60)["in_order"]
    line = server.wait_for(r"dns: queries .*paused [1-9]\d*", timeout=10)
    assert "paused" in line


def test_idle_connections_are_closed(served):
    ns, server, _, _ = served
    r = client(ns, server, "idle")
    assert r["closed"]
    assert r["after"] >= IDLE_MS / 1000 * 0.9, r  # not before the timeout
    server.wait_for(r"idle-closed [1-9]", timeout=10)


def test_a_zero_length_message_closes_the_connection(served):
    ns, server, _, _ = served
    assert client(ns, server, "zero")["closed"]
    server.wait_for(r"tcp .* bad [1-9]", timeout=10)


def test_connections_over_the_per_client_limit_are_closed(served):
    ns, server, _, _ = served
    r = client(ns, server, "limit", PER_CLIENT)
    assert r["extra_closed"]
    assert r["server_closed_too"]
    assert r["after_one_left"] == 1, "a connection that ended frees its slot"
    server.wait_for(r"refused-per-client [1-9]", timeout=10)


@pytest.mark.skipif(shutil.which("nsd") is None, reason="needs nsd")
def test_answers_like_nsd_over_tcp(served, tmp_path):
    ns, server, zones_dir, zones = served
    # Well-formed queries only: a message Keel answers with nothing closes the
    # connection (and so the rest of its batch).
    asked = queries.truncation_queries()
    nsd = refservers.Reference("nsd", str(tmp_path), zones_dir, zones, "127.0.0.1", 5301, ns.exec_args)
    try:
        results = differential.probe(ns, str(tmp_path), zones, asked,
                                     {"keel": f"{server.address}:53", "nsd": "127.0.0.1:5301"},
                                     prober="tcp_prober.py")
    finally:
        nsd.close()
    answered = sum(1 for r in results["keel"] if r is not None)
    assert answered > 0.8 * len(asked), f"Keel answered only {answered} of {len(asked)}"
    report = differential.compare_runs(asked, results, "keel", ["nsd"], zones)
    named, unexplained = report["nsd"]
    print(f"\n{len(asked)} queries over TCP against nsd: " + ", ".join(f"{k} {v}" for k, v in sorted(named.items())))
    assert not unexplained, f"{len(unexplained)} unexplained differences:\n" + "\n".join(unexplained[:20])

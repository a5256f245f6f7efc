"""Differential test against Linux nftables (run as root with /usr/bin/python3 -m pytest).

Creates two network namespaces (keelfw-<pid>-tx, keelfw-<pid>-fw) joined by a veth pair,
loads `keel-fw nft` output into the fw namespace, sends crafted packets with scapy from the tx
namespace and compares which packets got past the exported prerouting chain (recorded by an
observer chain at a later priority) with the verdicts of `keel-fw classify` on the same packets.
"""
import json
import os
import random
import shutil
import subprocess
import tempfile
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("KEEL_HOST_BUILD", "build/host")
KEELFW = os.path.join(BUILD if os.path.isabs(BUILD) else os.path.join(ROOT, BUILD), "tools/keel-fw/keel-fw")
PID = os.getpid()
TX_NS, FW_NS = f"keelfw-{PID}-tx", f"keelfw-{PID}-fw"
TX_IF, FW_IF = f"kfw{PID}a"[:15], f"kfw{PID}b"[:15]
SEED = 4242
RULE_SETS = 8
PACKETS_PER_SET = 250

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("nft") or not shutil.which("ip"),
    reason="needs root, nft and ip")


def run(*args, ns=None, input=None):
    cmd = (["ip", "netns", "exec", ns] if ns else []) + list(args)
    return subprocess.run(cmd, check=True, capture_output=True, text=True, input=input).stdout


@pytest.fixture(scope="module")
def netns():
    assert os.path.exists(KEELFW), f"build keel-fw first ({KEELFW})"
    for ns in (TX_NS, FW_NS):
        run("ip", "netns", "add", ns)
    try:
        run("ip", "link", "add", TX_IF, "netns", TX_NS, "type", "veth", "peer", "name", FW_IF, "netns", FW_NS)
        run("ip", "addr", "add", "10.250.0.1/24", "dev", TX_IF, ns=TX_NS)
        run("ip", "addr", "add", "10.250.0.2/24", "dev", FW_IF, ns=FW_NS)
        for ns, dev in ((TX_NS, TX_IF), (FW_NS, FW_IF)):
            run("ip", "link", "set", dev, "up", ns=ns)
            run("ip", "link", "set", "lo", "up", ns=ns)
        mac = json.loads(run("ip", "-j", "link", "show", FW_IF, ns=FW_NS))[0]["address"]
        run("nft", "-f", "-", ns=FW_NS, input=OBSERVER)
        yield mac
    finally:
        for ns in (TX_NS, FW_NS):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


# Records the IP id of every packet that survives the exported chain (priority 0).
OBSERVER = """
table ip keelobs {
  set seen { typeof ip id; flags dynamic; size 65535; }
  chain pre {
    type filter hook prerouting priority 10; policy accept;
    add @seen { ip id }
  }
}
"""

ADDRESSES = ["10.1.0.", "10.1.1.", "192.168.7."]


def address(rng):
    return rng.choice(ADDRESSES) + str(rng.randrange(16))


def atom(rng):
    kind = rng.randrange(10)
    neg = "!= " if rng.random() < 0.15 else ""
    if kind == 0:
        return f"iif {neg}{rng.choice(['wan', 'lan'])}"
    if kind in (1, 2):
        field = "saddr" if kind == 1 else "daddr"
        a = address(rng)
        form = rng.randrange(3)
        value = a if form == 0 else a.rsplit(".", 1)[0] + f".0/{rng.choice([24, 28, 30])}" if form == 1 else \
            f"{a}-{a.rsplit('.', 1)[0]}.{int(a.rsplit('.', 1)[1]) + rng.randrange(6)}"
        return f"ip {field} {neg}{value}"
    if kind == 3:
        lo = rng.choice([0, 22, 53, 80, 1024])
        value = str(lo) if rng.random() < 0.6 else f"{lo}-{lo + rng.randrange(300)}"
        return f"{rng.choice(['tcp', 'udp'])} {rng.choice(['sport', 'dport'])} {neg}{value}"
    if kind == 4:
        return rng.choice(["protocol { tcp, icmp }", "protocol udp", "tcp", "icmp"])
    if kind == 5:
        return rng.choice(["tcp flags syn,!ack", "tcp flags ack", "tcp flags fin"])
    if kind == 6:
        return f"icmp type {rng.choice([0, 8])}" + (" icmp code 0" if rng.random() < 0.3 else "")
    if kind == 7:
        return f"ttl {rng.choice(['<', '>=', '!='])} {rng.choice([16, 64, 100])}"
    if kind == 8:
        lo = rng.choice([20, 40, 60, 100])
        return f"length {lo}-{lo + rng.randrange(200)}"
    return "not " + atom(rng)


def condition(rng, depth=0):
    shape = rng.randrange(5) if depth < 2 else 0
    if shape == 1:
        return condition(rng, depth + 1) + " " + condition(rng, depth + 1)
    if shape == 2:
        return f"({condition(rng, depth + 1)} or {condition(rng, depth + 1)})"
    return atom(rng)


def ruleset(rng):
    lines = [f"interface wan {{ }}".replace("wan", FW_IF), "interface lan { }",
             f"chain pre hook prerouting policy {rng.choice(['accept', 'drop'])} {{"]
    for _ in range(rng.randrange(3, 25)):
        action = "jump extra" if rng.random() < 0.08 else rng.choice(["accept", "drop"])
        lines.append(f"  {condition(rng)} {action}")
    lines += ["}", "chain extra {"] + [f"  {condition(rng)} {rng.choice(['accept', 'drop'])}"
                                       for _ in range(rng.randrange(1, 5))] + ["}"]
    return "\n".join(lines).replace("iif wan", f"iif {FW_IF}").replace("iif != wan", f"iif != {FW_IF}") + "\n"


def packets(rng, count):
    out = []
    for ident in range(1, count + 1):
        proto = rng.choice(["tcp", "udp", "icmp", 47])
        p = {"id": ident, "src": address(rng), "dst": address(rng), "ttl": rng.choice([1, 16, 63, 64, 100, 200]),
             "proto": proto, "payload": rng.choice([0, 10, 30, 100, 180])}
        if proto in ("tcp", "udp"):
            p["sport"] = rng.choice([0, 22, 53, 80, 1024, 1100, 40000])
            p["dport"] = rng.choice([0, 22, 53, 80, 1024, 1100, 40000])
        if proto == "tcp":
            p["flags"] = rng.choice([0x02, 0x12, 0x10, 0x01, 0x11, 0x18])
        if proto == "icmp":
            p["type"], p["code"] = rng.choice([0, 8, 3]), rng.choice([0, 1])
        out.append(p)
    return out


# Runs inside the tx namespace: builds each packet, prints its IP total length, sends them all.
SENDER = r"""
import json, sys
from scapy.all import Ether, IP, TCP, UDP, ICMP, Raw, sendp, conf
conf.verb = 0
spec = json.load(open(sys.argv[1]))
frames, lengths = [], []
for p in spec["packets"]:
    ip = IP(src=p["src"], dst=p["dst"], ttl=p["ttl"], id=p["id"])
    if p["proto"] == "tcp": l4 = TCP(sport=p["sport"], dport=p["dport"], flags=p["flags"])
    elif p["proto"] == "udp": l4 = UDP(sport=p["sport"], dport=p["dport"])
    elif p["proto"] == "icmp": l4 = ICMP(type=p["type"], code=p["code"])
    else: ip.proto = p["proto"]; l4 = None
    pkt = ip / l4 / Raw(b"x" * p["payload"]) if l4 is not None else ip / Raw(b"x" * p["payload"])
    lengths.append(len(bytes(pkt)))
    frames.append(Ether(dst=spec["mac"]) / pkt)
sendp(frames, iface=spec["iface"])
print(json.dumps(lengths))
"""


def packet_line(p, length):
    proto = p["proto"] if isinstance(p["proto"], str) else str(p["proto"])
    words = [f"kind=filter hook=prerouting iif={FW_IF} proto={proto} saddr={p['src']} daddr={p['dst']}",
             f"ttl={p['ttl']} length={length} ct=new"]
    if "sport" in p:
        words.append(f"sport={p['sport']} dport={p['dport']}")
    if "flags" in p:
        words.append(f"flags={p['flags']}")
    if "type" in p:
        words.append(f"icmp_type={p['type']} icmp_code={p['code']}")
    return " ".join(words)


def test_exported_ruleset_matches_classifier(netns):
    mac = netns
    rng = random.Random(SEED)
    compared = 0
    outcomes = set()
    with tempfile.TemporaryDirectory(prefix="keelfw-") as tmp:
        for n in range(RULE_SETS):
            rules = os.path.join(tmp, f"rules{n}.fw")
            with open(rules, "w") as f:
                f.write(ruleset(rng))
            nft_text = subprocess.run([KEELFW, "nft", rules], check=True, capture_output=True, text=True).stdout
            run("nft", "-f", "-", ns=FW_NS, input=nft_text)
            run("nft", "flush", "set", "ip", "keelobs", "seen", ns=FW_NS)
            tables = os.path.join(tmp, "t.bin")
            subprocess.run([KEELFW, "compile", rules, "-o", tables], check=True)
            spec = os.path.join(tmp, "spec.json")
            pkts = packets(rng, PACKETS_PER_SET)
            with open(spec, "w") as f:
                json.dump({"mac": mac, "iface": TX_IF, "packets": pkts}, f)
            sender = os.path.join(tmp, "send.py")
            with open(sender, "w") as f:
                f.write(SENDER)
            lengths = json.loads(run("/usr/bin/python3", sender, spec, ns=TX_NS))
            time.sleep(0.3)
            listing = json.loads(run("nft", "-j", "list", "set", "ip", "keelobs", "seen", ns=FW_NS))
            elems = next(x["set"] for x in listing["nftables"] if "set" in x).get("elem", [])
            passed = {e if isinstance(e, int) else e.get("elem", {}).get("val") for e in elems}
            lines = "\n".join(packet_line(p, l) for p, l in zip(pkts, lengths)) + "\n"
            verdicts = subprocess.run([KEELFW, "classify", tables], input=lines, check=True,
                                      capture_output=True, text=True).stdout.split("\n")
            for p, v, line in zip(pkts, verdicts, lines.split("\n")):
                want_pass = v.startswith("accept")
                assert (p["id"] in passed) == want_pass, (
                    f"rule set {n}: packet {line!r}: classifier says {v!r}, nftables "
                    f"{'passed' if p['id'] in passed else 'dropped'} it\n{open(rules).read()}\n{nft_text}")
                compared += 1
                outcomes.add(want_pass)
    assert outcomes == {True, False}, "the sample should contain both passed and dropped packets"
    assert compared == RULE_SETS * PACKETS_PER_SET

"""Shared by the nftables differential tests (test_nftables*.py): running commands in network
namespaces, random Keel rule sets, crafting and sending packets, `keel-fw` and observer sets.

The tests load `keel-fw nft` output into a namespace, send packets through it and compare
what nftables let through with the verdicts of `keel-fw classify` on the same packets.
"""
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))  # keelpy.netns: the namespaces
BUILD = os.environ.get("KEEL_HOST_BUILD", "build/host")
KEELFW = os.path.join(BUILD if os.path.isabs(BUILD) else os.path.join(ROOT, BUILD), "tools/keel-fw/keel-fw")
DEBIAN_PYTHON = "/usr/bin/python3"

# Address pools of the generated rules and packets (a prefix and 16 hosts each).
ADDRESSES = ["10.1.0.", "10.1.1.", "192.168.7."]


def run(*args, ns=None, input=None):
    cmd = (["ip", "netns", "exec", ns] if ns else []) + list(args)
    return subprocess.run(cmd, check=True, capture_output=True, text=True, input=input).stdout


def keelfw(*args, input=None):
    return subprocess.run([KEELFW, *args], check=True, capture_output=True, text=True, input=input).stdout


def link_mac(ns, dev):
    return json.loads(run("ip", "-j", "link", "show", dev, ns=ns))[0]["address"]


# ---- random rule sets ---------------------------------------------------------------------

@dataclass
class Vocabulary:
    """What the generated conditions may mention."""
    iifs: list                      # interface names for `iif` (empty: the hook has no input interface)
    oifs: list = field(default_factory=list)  # for `oif` (empty: the hook has no output interface)
    addresses: list = field(default_factory=lambda: list(ADDRESSES))
    ct: bool = False                # `ct state` conditions


CT_STATES = ["new", "established", "{ established, related }", "related", "invalid", "established,related",
             "{ new, invalid }"]


def address(rng, pools=ADDRESSES):
    return rng.choice(pools) + str(rng.randrange(16))


def atom(rng, vocab):
    kind = rng.randrange(11 if vocab.ct else 10)
    neg = "!= " if rng.random() < 0.15 else ""
    if kind == 0:
        keyword = "oif" if vocab.oifs and (not vocab.iifs or rng.random() < 0.5) else "iif"
        names = vocab.oifs if keyword == "oif" else vocab.iifs
        if rng.random() < 0.2:
            return f"{keyword} {neg}{{ {', '.join(rng.sample(names, 2))} }}"
        return f"{keyword} {neg}{rng.choice(names)}"
    if kind in (1, 2):
        field_name = "saddr" if kind == 1 else "daddr"
        a = address(rng, vocab.addresses)
        form = rng.randrange(3)
        value = a if form == 0 else a.rsplit(".", 1)[0] + f".0/{rng.choice([24, 28, 30])}" if form == 1 else \
            f"{a}-{a.rsplit('.', 1)[0]}.{int(a.rsplit('.', 1)[1]) + rng.randrange(6)}"
        return f"ip {field_name} {neg}{value}"
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
    if kind == 10:
        return f"ct state {neg}{rng.choice(CT_STATES)}"
    return "not " + atom(rng, vocab)


def condition(rng, vocab, depth=0):
    shape = rng.randrange(5) if depth < 2 else 0
    if shape == 1:
        return condition(rng, vocab, depth + 1) + " " + condition(rng, vocab, depth + 1)
    if shape == 2:
        return f"({condition(rng, vocab, depth + 1)} or {condition(rng, vocab, depth + 1)})"
    return atom(rng, vocab)


def ruleset(rng, vocab, hook, declared, rules=(3, 25)):
    """A Keel rules file: `declared` interfaces, one base chain on `hook` and a jump target."""
    lines = [f"interface {name} {{ }}" for name in declared]
    lines.append(f"chain base hook {hook} policy {rng.choice(['accept', 'drop'])} {{")
    for _ in range(rng.randrange(*rules)):
        action = "jump extra" if rng.random() < 0.08 else rng.choice(["accept", "drop"])
        lines.append(f"  {condition(rng, vocab)} {action}")
    lines += ["}", "chain extra {"] + [f"  {condition(rng, vocab)} {rng.choice(['accept', 'drop'])}"
                                       for _ in range(rng.randrange(1, 5))] + ["}"]
    return "\n".join(lines) + "\n"


# ---- packets ------------------------------------------------------------------------------
# A packet is a dict: id (the IP id observers record), src, dst, ttl, proto ("tcp", "udp",
# "icmp" or a number), payload (bytes of filler); sport/dport for TCP and UDP; flags (and
# optionally seq, ack) for TCP; type/code (and optionally echo_id, or `inner`, the packet an
# ICMP error quotes) for ICMP.

def random_packet(rng, ident, src_pools=ADDRESSES, dst_pools=ADDRESSES, ttls=(1, 16, 63, 64, 100, 200)):
    proto = rng.choice(["tcp", "udp", "icmp", 47])
    p = {"id": ident, "src": address(rng, src_pools), "dst": address(rng, dst_pools), "ttl": rng.choice(ttls),
         "proto": proto, "payload": rng.choice([0, 10, 30, 100, 180])}
    if proto in ("tcp", "udp"):
        p["sport"] = rng.choice([0, 22, 53, 80, 1024, 1100, 40000])
        p["dport"] = rng.choice([0, 22, 53, 80, 1024, 1100, 40000])
    if proto == "tcp":
        p["flags"] = rng.choice([0x02, 0x12, 0x10, 0x01, 0x11, 0x18])
    if proto == "icmp":
        p["type"], p["code"] = rng.choice([0, 8, 3]), rng.choice([0, 1])
    return p


PROTO_NUMBERS = {"icmp": 1, "tcp": 6, "udp": 17}


def ip_bytes(p):
    """The IPv4 packet `p` describes, checksums filled in."""
    from scapy.layers.inet import ICMP, IP, TCP, UDP, IPerror, TCPerror, UDPerror
    from scapy.packet import Raw
    ip = IP(src=p["src"], dst=p["dst"], ttl=p["ttl"], id=p["id"])
    if p["proto"] == "tcp":
        l4 = TCP(sport=p["sport"], dport=p["dport"], flags=p["flags"], seq=p.get("seq", 0), ack=p.get("ack", 0))
    elif p["proto"] == "udp":
        l4 = UDP(sport=p["sport"], dport=p["dport"])
    elif p["proto"] == "icmp":
        l4 = ICMP(type=p["type"], code=p["code"])
        if "echo_id" in p:
            l4.id, l4.seq = p["echo_id"], 1
        if "inner" in p:  # an ICMP error quoting the IP header and first 8 bytes of `inner`
            q = p["inner"]
            quoted = TCPerror(sport=q["sport"], dport=q["dport"], seq=q.get("seq", 0)) if q["proto"] == "tcp" \
                else UDPerror(sport=q["sport"], dport=q["dport"], len=8 + q["payload"])
            inner_ip = IPerror(src=q["src"], dst=q["dst"], ttl=q["ttl"], id=q["id"], proto=PROTO_NUMBERS[q["proto"]])
            l4 = l4 / inner_ip / quoted
    else:
        ip.proto = p["proto"]
        l4 = None
    pkt = ip / l4 if l4 is not None else ip
    if p["payload"]:
        pkt = pkt / Raw(b"x" * p["payload"])
    return bytes(pkt)


# Runs inside a namespace: writes each hex frame of stdin to a packet socket on argv[1].
SENDER = r"""
import socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((sys.argv[1], 0))
for line in sys.stdin:
    s.send(bytes.fromhex(line.strip()))
"""


def send(ns, iface, src_mac, dst_mac, packets):
    """Sends `packets` as Ethernet frames from `iface` in `ns`; returns their IP total lengths."""
    eth = bytes.fromhex(dst_mac.replace(":", "") + src_mac.replace(":", "")) + b"\x08\x00"
    datagrams = [ip_bytes(p) for p in packets]
    run(DEBIAN_PYTHON, "-c", SENDER, iface, ns=ns, input="".join((eth + d).hex() + "\n" for d in datagrams))
    return [len(d) for d in datagrams]


def packet_line(p, length, hook, iif=None, oif=None, ct="new", ttl=None, kind="filter"):
    """The `keel-fw classify` line for `p` as the chain of `kind` on `hook` sees it."""
    proto = p["proto"] if isinstance(p["proto"], str) else str(p["proto"])
    words = [f"kind={kind} hook={hook}"]
    if iif:
        words.append(f"iif={iif}")
    if oif:
        words.append(f"oif={oif}")
    words.append(f"proto={proto} saddr={p['src']} daddr={p['dst']} ttl={p['ttl'] if ttl is None else ttl}"
                 f" length={length} ct={ct}")
    if "sport" in p:
        words.append(f"sport={p['sport']} dport={p['dport']}")
    if "flags" in p:
        words.append(f"flags={p['flags']}")
    if "type" in p:
        words.append(f"icmp_type={p['type']} icmp_code={p['code']}")
    return " ".join(words)


def classify(tables, lines):
    """One verdict line (`accept rule 3`, `drop policy`, `snat rule 2 to 10.0.0.1:80-90`, ...)
    per packet line."""
    return keelfw("classify", tables, input="".join(line + "\n" for line in lines)).split("\n")[:len(lines)]


def verdict_passes(verdict):
    return verdict.startswith("accept")


# ---- observers ----------------------------------------------------------------------------

def set_element(e):
    """An element of `nft -j` output: a number or address, or a tuple for a concatenation."""
    if isinstance(e, dict):
        return tuple(e["concat"]) if "concat" in e else set_element(e.get("elem", {}).get("val"))
    return e


def set_elements(ns, table):
    """Every set of `table` (family ip) as name -> set of its elements."""
    listing = json.loads(run("nft", "-j", "list", "table", "ip", table, ns=ns))
    out = {}
    for item in listing["nftables"]:
        if "set" in item:
            out[item["set"]["name"]] = {set_element(e) for e in item["set"].get("elem", [])}
    return out


def wait_for(ns, table, set_name, ids, timeout=3.0):
    """Polls until `set_name` holds every id in `ids` (or the timeout); returns all sets."""
    deadline = time.monotonic() + timeout
    while True:
        sets = set_elements(ns, table)
        if ids <= sets[set_name] or time.monotonic() > deadline:
            time.sleep(0.05)  # the last packet may still be between observers
            return set_elements(ns, table)
        time.sleep(0.05)

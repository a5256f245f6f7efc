"""Differential test of NAT chains against Linux nftables (run as root with /usr/bin/python3 -m
pytest); filter chains are covered by test_nftables.py and test_nftables_forward.py.

Four network namespaces: a router (keelfw-<pid>-nr, ip_forward=1) with three veth interfaces
to a sender/receiver namespace each (tx, r1, r2), routing the rule address pools to all three
sides. Each random rule set has a `type nat` chain for dnat (accept, jumps, policy sometimes
drop) and one on postrouting (snat, masquerade, accept). `keel-fw nft` output is loaded into
the router; observer chains in table `keelobs` record, by IP id, each packet after the dnat
chain and routing (postrouting priority 0: addresses, ports, ICMP echo id, output interface)
and after the snat chain (postrouting priority 300).

- test_forwarded: packets from all three sides; dnat on prerouting.
- test_local: the router's own packets (raw socket); dnat on output.

nftables runs a NAT chain only for the first packet of a connection, and picks another port
when a translated tuple is taken. So every packet is a new connection in a conntrack zone of
its own (zone = IP id, ids unique over the module): no packet meets another's entry.

For each packet the test asks `keel-fw classify` for the dnat hook's verdict and checks what
nftables did (dropped it, left it alone, or `dnat` to the rule's address and, for TCP and UDP
under a port range, to a port in the range, kept when already inside it), then builds the
postrouting line from the packet as nftables routed it (new destination, output interface,
TTL - 1 when forwarded) and checks the postrouting verdict the same way (`snat`; `masquerade`
to the output interface's address, ports kept). Port targets translate TCP and UDP only; other
protocols get the address alone (nft_export.cpp).
"""
import os
import random
import re
import shutil
import tempfile
import time
from dataclasses import dataclass

import pytest

import nft_router
from nft_helpers import (ADDRESSES, DEBIAN_PYTHON, KEELFW, Vocabulary, address, classify, condition, ip_bytes,
                         keelfw, packet_line, random_packet, run, send, set_elements)

PID = os.getpid()
ROUTER_NS = f"keelfw-{PID}-nr"
SEED, RULE_SETS = 6363, 8              # forwarded packets (dnat on prerouting)
LOCAL_SEED, LOCAL_RULE_SETS = 6366, 8  # the router's own (dnat on output); a sample with drops
PACKETS_PER_SET = 60
# Forwarding needs TTL >= 2; postrouting sees a forwarded packet's TTL decremented (ip_forward()).
TTLS = (2, 16, 17, 63, 64, 65, 100, 101, 200)
PORTS = [0, 22, 53, 80, 1024, 1100, 40000]
# TCP flags conntrack takes as the start of a connection: SYN, and with nf_conntrack_tcp_loose
# (the default) a mid-stream ACK.
NEW_TCP_FLAGS = [0x02, 0x10, 0x18]

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("nft") or not shutil.which("ip"),
    reason="needs root, nft and ip")

SIDES = nft_router.make_sides(PID, "n", "kn")


def side_for(daddr):
    return nft_router.side_for(SIDES, daddr)


# ---- observer ---------------------------------------------------------------------------------

# Where the observer records packets: after the dnat chain and routing (postrouting priority 0,
# with the output interface), and after the snat chain (postrouting priority 300).
STAGES = ("mid", "post")


def observer_text():
    """Table keelobs: each packet's own conntrack zone (before conntrack), the packets that reach
    the dnat hook (and that conntrack sees as new), and their addresses, ports and ICMP echo id
    at each of STAGES."""
    sets = {"reached": "ip id", "ct_new": "ip id"}
    for stage in STAGES:
        sets |= {f"{stage}_addr": "ip id . ip saddr . ip daddr", f"{stage}_ports": "ip id . th sport . th dport",
                 f"{stage}_echo": "ip id . icmp id"}
    sets |= {f"oif_{s.router_dev}": "ip id" for s in SIDES}
    lines = ["table ip keelobs {"] + \
        [f"  set {name} {{ typeof {key}; flags dynamic; size 65535; }}" for name, key in sets.items()]
    for hook in ("prerouting", "output"):  # forwarded packets and the router's own
        lines += [f"  chain zone_{hook} {{ type filter hook {hook} priority -300; policy accept; ct zone set ip id; }}",
                  f"  chain reach_{hook} {{ type filter hook {hook} priority -150; policy accept;",
                  "    add @reached { ip id }; ct state new add @ct_new { ip id }; }"]
    for stage, prio in zip(STAGES, (0, 300)):
        lines += [f"  chain at_{stage} {{ type filter hook postrouting priority {prio}; policy accept;",
                  f"    add @{stage}_addr {{ ip id . ip saddr . ip daddr }}",
                  f"    meta l4proto {{ tcp, udp }} add @{stage}_ports {{ ip id . th sport . th dport }}",
                  f"    icmp type echo-request add @{stage}_echo {{ ip id . icmp id }}"]
        if stage == "mid":
            lines += [f'    oifname "{s.router_dev}" add @oif_{s.router_dev} {{ ip id }}' for s in SIDES]
        lines.append("  }")
    return "\n".join(lines + ["}"]) + "\n"


OBSERVER_SETS = ["reached", "ct_new"] + [f"{stage}_{what}" for stage in STAGES for what in ("addr", "ports", "echo")] \
    + [f"oif_{s.router_dev}" for s in SIDES]


@dataclass
class Seen:
    """A packet as sent, or as an observer recorded it."""
    src: str
    dst: str
    ports: tuple = None  # (sport, dport) for TCP and UDP
    echo_id: int = None  # for ICMP echo requests

    def text(self):
        ports = f" ports {self.ports[0]}->{self.ports[1]}" if self.ports else ""
        echo = f" echo id {self.echo_id}" if self.echo_id is not None else ""
        return f"{self.src} -> {self.dst}{ports}{echo}"


def seen_at(sets, stage, ident):
    """The packet `ident` at `stage`, None when it never got there."""
    addr = [(s, d) for i, s, d in sets[f"{stage}_addr"] if i == ident]
    if not addr:
        return None
    ports = [(sp, dp) for i, sp, dp in sets[f"{stage}_ports"] if i == ident]
    echo = [e for i, e in sets[f"{stage}_echo"] if i == ident]
    return Seen(*addr[0], ports=ports[0] if ports else None, echo_id=echo[0] if echo else None)


def wait_settled(ids, timeout=3.0):
    """Polls the observer until every packet reached its hook and no set grows any more."""
    deadline = time.monotonic() + timeout
    previous = None
    while True:
        sets = set_elements(ROUTER_NS, "keelobs")
        sizes = [len(sets[name]) for name in OBSERVER_SETS]
        if (ids <= sets["reached"] and sizes == previous) or time.monotonic() > deadline:
            return sets
        previous = sizes
        time.sleep(0.05)


@pytest.fixture(scope="module")
def topology():
    assert os.path.exists(KEELFW), f"build keel-fw first ({KEELFW})"
    yield from nft_router.router(ROUTER_NS, SIDES, observer_text())


# ---- rule sets and packets ----------------------------------------------------------------------

def nat_target(rng, pools):
    """`A`, `A:P` or `A:P-Q` (ranges often hold some packet ports, so the kept-port case occurs)."""
    target = address(rng, pools)
    form = rng.randrange(4)
    if form == 1:
        target += f":{rng.choice([53, 80, 1100, 8080, 40000])}"
    elif form >= 2:
        lo = rng.choice([20, 1000, 1024, 2000, 30000])
        target += f":{lo}-{lo + rng.choice([0, 40, 100, 1000, 20000])}"
    return target


def dnat_action(rng):
    return rng.choices([f"dnat to {nat_target(rng, ADDRESSES)}", "accept"], [0.6, 0.4])[0]


def snat_action(rng):
    snat_pools = ADDRESSES + ["10.77.0."]
    return rng.choices([f"snat to {nat_target(rng, snat_pools)}", "masquerade", "accept"], [0.4, 0.3, 0.3])[0]


def nat_chain(rng, name, hook, vocab, action, extra):
    policy = "drop" if rng.random() < 0.25 else "accept"
    lines = [f"chain {name} type nat hook {hook} policy {policy} {{"]
    for _ in range(rng.randrange(2, 10)):
        lines.append(f"  {condition(rng, vocab)} {f'jump {extra}' if rng.random() < 0.08 else action(rng)}")
    lines += ["}", f"chain {extra} type nat {{"] + [f"  {condition(rng, vocab)} {action(rng)}"
                                                    for _ in range(rng.randrange(1, 4))] + ["}"]
    return lines


def nat_ruleset(rng, dnat_hook):
    """Declared interfaces (the router's, one that never exists, the third router interface
    sometimes left out), a NAT chain on `dnat_hook` (prerouting or output) and one on
    postrouting."""
    names = [s.router_dev for s in SIDES] + ["lan"]
    declared = [name for name in names if name != SIDES[2].router_dev or rng.random() < 0.6]
    ct = rng.random() < 0.3  # every packet is new here; `ct state` must read it so
    dnat_vocab = Vocabulary(iifs=declared, ct=ct) if dnat_hook == "prerouting" else \
        Vocabulary(iifs=[], oifs=declared, ct=ct)
    lines = [f"interface {name} {{ }}" for name in declared]
    lines += nat_chain(rng, "dn", dnat_hook, dnat_vocab, dnat_action, "dnx")
    lines += nat_chain(rng, "sn", "postrouting", Vocabulary(iifs=[], oifs=declared, ct=ct), snat_action, "snx")
    return "\n".join(lines) + "\n"


def nat_packet(rng, ident):
    """A packet conntrack takes as a new connection: TCP SYN or ACK, UDP, ICMP echo request,
    GRE (protocol 47)."""
    p = random_packet(rng, ident, ttls=TTLS)
    if p["proto"] in ("tcp", "udp"):
        p["sport"], p["dport"] = rng.choice(PORTS), rng.choice(PORTS)
    if p["proto"] == "tcp":
        p["flags"] = rng.choice(NEW_TCP_FLAGS)
    if p["proto"] == "icmp":
        p.update(type=8, code=0, echo_id=ident)
    if p["proto"] == 47 and not p["payload"]:
        p["payload"] = 10  # the kernel drops a NATed GRE packet without a GRE header
    return p


# Runs in the router: sends each "daddr hex-datagram" line of stdin as the router's own packet
# (a packet netfilter drops on output fails its sendto() with EPERM).
LOCAL_SENDER = r"""
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
for line in sys.stdin:
    daddr, datagram = line.split()
    try:
        s.sendto(bytes.fromhex(datagram), (daddr, 0))
    except PermissionError:
        pass
"""


def send_forwarded(pkts, senders):
    """Sends each packet from its side through the router; returns {id: IP total length}."""
    lengths = {}
    for side in SIDES:
        mine = [p for p, s in zip(pkts, senders) if s is side]
        lengths.update(zip((p["id"] for p in mine), send(side.ns, side.dev, side.mac, side.router_mac, mine)))
    return lengths


def send_local(pkts):
    """Sends the packets from the router itself (raw socket, our IP header); returns {id: length}."""
    datagrams = {p["id"]: ip_bytes(p) for p in pkts}
    run(DEBIAN_PYTHON, "-c", LOCAL_SENDER, ns=ROUTER_NS,
        input="".join(f"{p['dst']} {datagrams[p['id']].hex()}\n" for p in pkts))
    return {ident: len(d) for ident, d in datagrams.items()}


# ---- verdicts and the translations they imply ------------------------------------------------------

VERDICT = re.compile(r"(\w+) (?:policy|rule \d+)(?: to ([\d.]+)(?::(\d+)(?:-(\d+))?)?)?$")


@dataclass
class NatVerdict:
    """A `keel-fw classify` verdict: action, and for snat and dnat the target."""
    action: str
    address: str = None
    ports: tuple = None  # (lo, hi) of the target's port range

    @staticmethod
    def parse(line):
        m = VERDICT.match(line)
        assert m, f"unexpected classify output {line!r}"
        ports = (int(m[3]), int(m[4] or m[3])) if m[3] else None
        return NatVerdict(m[1], m[2], ports)

    def port_case(self, before):
        """For a TCP or UDP packet under a target port range: is its port already inside?"""
        if self.action not in ("snat", "dnat") or self.ports is None or before.ports is None:
            return None
        port = before.ports[1 if self.action == "dnat" else 0]
        return "kept" if self.ports[0] <= port <= self.ports[1] else "moved"


def check_translation(v, before, after, masquerade_address=None):
    """Why `after` (a Seen, None when nftables dropped the packet) is not what verdict `v`
    implies for `before`; None when it is. dnat rewrites the destination, snat and masquerade
    the source; a port already inside the target's range is kept (its tuple is unique here),
    others move into the range, and without a range ports stay."""
    if v.action == "drop":
        return None if after is None else "nftables let it through"
    if after is None:
        return "nftables dropped it"
    want_src, want_dst = before.src, before.dst
    if v.action == "dnat":
        want_dst = v.address
    elif v.action == "snat":
        want_src = v.address
    elif v.action == "masquerade":
        want_src = masquerade_address
    if (after.src, after.dst) != (want_src, want_dst):
        return f"addresses {after.src} -> {after.dst}, expected {want_src} -> {want_dst}"
    if after.echo_id != before.echo_id:
        return f"ICMP echo id {after.echo_id}, expected {before.echo_id}"
    if before.ports:
        moved = 1 if v.action == "dnat" else 0
        case = v.port_case(before)
        ok = after.ports[1 - moved] == before.ports[1 - moved] and (
            v.ports[0] <= after.ports[moved] <= v.ports[1] if case == "moved" else
            after.ports[moved] == before.ports[moved])
        if not ok:
            return f"ports {after.ports}, expected from {before.ports} under port range {v.ports}"
    return None


def outcome(verdicts):
    if any(v.action == "drop" for v in verdicts):
        return "dropped"
    return "+".join(v.action for v in verdicts if v.action != "accept") or "none"


# ---- the tests ----------------------------------------------------------------------------------

class Tally:
    """Outcomes (none, dnat, snat, masquerade, dnat+snat, ..., dropped) and port cases seen."""

    def __init__(self):
        self.outcomes, self.port_cases, self.compared = {}, set(), 0

    def check_coverage(self):
        kinds = {part for kind in self.outcomes for part in kind.split("+")}
        assert {"none", "dnat", "snat", "masquerade", "dropped"} <= kinds, f"outcomes too narrow: {self.outcomes}"
        assert self.port_cases == {"kept", "moved"}, f"port cases too narrow: {self.port_cases}"


def compare_rule_set(loaded, pkts, lengths, first_lines, hops, tally):
    """`pkts` went through the router under `loaded`: compares what nftables did at each NAT
    chain with the classifier. `first_lines` are the classify lines at the dnat hook; `hops` is
    1 for forwarded packets (postrouting sees the TTL decremented), 0 for the router's own."""
    n, text, nft_text, tables = loaded
    sets = wait_settled(set(lengths))

    def context(line, verdict, what):
        return (f"rule set {n}: packet {line!r}: classifier says {verdict!r}, {what}\n"
                f"--- Keel rules\n{text}--- nft\n{nft_text}")

    post_lines, routed = [], []
    for p, line, first_text in zip(pkts, first_lines, classify(tables, first_lines)):
        ident = p["id"]
        assert ident in sets["reached"], context(line, first_text, "it never reached the hook")
        assert ident in sets["ct_new"], context(line, first_text, "conntrack did not see a new connection")
        sent = Seen(p["src"], p["dst"], (p["sport"], p["dport"]) if "sport" in p else None, p.get("echo_id"))
        mid = seen_at(sets, "mid", ident)
        first = NatVerdict.parse(first_text)
        wrong = check_translation(first, sent, mid)
        assert wrong is None, context(line, first_text, f"{wrong} (sent {sent.text()}, routed "
                                                        f"{mid.text() if mid else '-'})")
        tally.port_cases.add(first.port_case(sent))
        if mid is None:
            tally.outcomes["dropped"] = tally.outcomes.get("dropped", 0) + 1
            continue
        oif = side_for(mid.dst)
        assert ident in sets[f"oif_{oif.router_dev}"], context(line, first_text, "routed through another "
                                                               "interface than the test expects")
        q = dict(p, src=mid.src, dst=mid.dst, ttl=p["ttl"] - hops)
        if mid.ports:
            q["sport"], q["dport"] = mid.ports
        routed.append((p, first, mid, oif))
        post_lines.append(packet_line(q, lengths[ident], "postrouting", oif=oif.router_dev, kind="nat"))

    for (p, first, mid, oif), line, post_text in zip(routed, post_lines, classify(tables, post_lines)):
        post = NatVerdict.parse(post_text)
        after = seen_at(sets, "post", p["id"])
        wrong = check_translation(post, mid, after, oif.router_address)
        assert wrong is None, context(line, post_text, f"{wrong} (routed {mid.text()}, left "
                                                       f"{after.text() if after else '-'})")
        tally.port_cases.add(post.port_case(mid))
        kind = outcome([first, post])
        tally.outcomes[kind] = tally.outcomes.get(kind, 0) + 1
    tally.compared += len(pkts)
    tally.port_cases.discard(None)


def load_rule_set(tmp, n, text):
    """Exports rule set `n` into the router, empties the observer; returns (n, text, nft text,
    classifier tables path)."""
    rules = os.path.join(tmp, f"rules{n}.fw")
    with open(rules, "w") as f:
        f.write(text)
    nft_text = keelfw("nft", rules)
    tables = os.path.join(tmp, f"tables{n}.bin")
    keelfw("compile", rules, "-o", tables)
    run("nft", "-f", "-", ns=ROUTER_NS, input=nft_text)
    run("nft", "-f", "-", ns=ROUTER_NS, input="".join(f"flush set ip keelobs {s}\n" for s in OBSERVER_SETS))
    return n, text, nft_text, tables


def test_forwarded(topology):
    """Packets through the router: dnat on prerouting, snat and masquerade on postrouting."""
    rng = random.Random(SEED)
    tally = Tally()
    with tempfile.TemporaryDirectory(prefix="keelfw-") as tmp:
        for n in range(RULE_SETS):
            loaded = load_rule_set(tmp, n, nat_ruleset(rng, "prerouting"))
            # Ids unique over the module: each is its own conntrack zone, never met before.
            pkts = [nat_packet(rng, n * PACKETS_PER_SET + i) for i in range(1, PACKETS_PER_SET + 1)]
            senders = [rng.choice(SIDES) for _ in pkts]
            lengths = send_forwarded(pkts, senders)
            first_lines = [packet_line(p, lengths[p["id"]], "prerouting", iif=side.router_dev, kind="nat")
                           for p, side in zip(pkts, senders)]
            compare_rule_set(loaded, pkts, lengths, first_lines, 1, tally)
    assert tally.compared == RULE_SETS * PACKETS_PER_SET
    tally.check_coverage()


LOCAL_IDS = 30000  # the router's own packets: ids from here, apart from the forwarded ones


def test_local(topology):
    """The router's own packets: dnat on output, snat and masquerade on postrouting."""
    rng = random.Random(LOCAL_SEED)
    tally = Tally()
    with tempfile.TemporaryDirectory(prefix="keelfw-") as tmp:
        for n in range(LOCAL_RULE_SETS):
            loaded = load_rule_set(tmp, n, nat_ruleset(rng, "output"))
            pkts = [nat_packet(rng, LOCAL_IDS + n * PACKETS_PER_SET + i) for i in range(1, PACKETS_PER_SET + 1)]
            lengths = send_local(pkts)
            first_lines = [packet_line(p, lengths[p["id"]], "output", oif=side_for(p["dst"]).router_dev, kind="nat")
                           for p in pkts]
            compare_rule_set(loaded, pkts, lengths, first_lines, 0, tally)
    assert tally.compared == LOCAL_RULE_SETS * PACKETS_PER_SET
    tally.check_coverage()

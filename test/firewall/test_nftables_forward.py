"""Differential test against Linux nftables for the forward and input hooks (run as root with
/usr/bin/python3 -m pytest); the prerouting chain is covered by test_nftables.py.

Four network namespaces: a router (keelfw-<pid>-rt, ip_forward=1) with three veth interfaces
to a sender/receiver namespace each (tx, r1, r2). The router routes the rule address pools to
all three sides, so a packet's input and output interface both take three values (a packet
may leave where it came in), and treats 10.9.0.0/24 as local (input hook). `keel-fw nft`
output is loaded into the router; observer chains in table `keelobs` record, by IP id, every
packet that reaches the hook (priority -10, with its output interface and conntrack state)
and every packet that survives the exported chain (priority +10). The test compares the
survivors with the verdicts of `keel-fw classify` on the packets as the hook sees them.

- test_forward: iif/oif conditions (some rule sets leave an interface undeclared).
- test_conntrack: `ct state` conditions with real conntrack. Phase 1 sends the original
  packets of flows (UDP, ICMP echo, TCP SYN, UDP answered by an ICMP error) plus a few lone
  packets conntrack sees as new or invalid; phase 2 sends the replies. A reply is
  established (or related, for the ICMP error) only if the classifier let its original
  through: a dropped original never confirms its conntrack entry. Each rule set runs in its
  own conntrack zone. The kernel's own state of every packet is checked against this model
  before the verdicts are compared.
- test_input: packets addressed to the router itself.
"""
import os
import random
import shutil
import tempfile

import pytest

import nft_router
from nft_helpers import (ADDRESSES, KEELFW, Vocabulary, address, classify, keelfw, packet_line, random_packet,
                         ruleset, run, send, verdict_passes, wait_for)

PID = os.getpid()
ROUTER_NS = f"keelfw-{PID}-rt"
SEED = 5151
LOCAL_POOL = "10.9.0."  # routed to the router itself

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("nft") or not shutil.which("ip"),
    reason="needs root, nft and ip")

SIDES = nft_router.make_sides(PID, "", "kf")


def side_for(daddr):
    return nft_router.side_for(SIDES, daddr)


CT_STATES = ("new", "established", "related", "invalid")
OBSERVER_SETS = ["reached", "passed"] + [f"ct_{state}" for state in CT_STATES] + [f"oif_{s.router_dev}" for s in SIDES]


def observer_text():
    """Table keelobs: at priority -10 of forward and input, the packets that reach the hook with
    their output interface and conntrack state; at +10, the packets the exported chain let
    through; at prerouting -300 (before conntrack), the zone of the current rule set."""
    before = ["add @reached { ip id }"] + \
        [f'oifname "{s.router_dev}" add @oif_{s.router_dev} {{ ip id }}' for s in SIDES] + \
        [f"ct state {state} add @ct_{state} {{ ip id }}" for state in CT_STATES]
    lines = ["table ip keelobs {"] + \
        [f"  set {name} {{ typeof ip id; flags dynamic; size 65535; }}" for name in OBSERVER_SETS] + \
        ["  chain zone { type filter hook prerouting priority -300; policy accept; ct zone set 1; }"]
    for hook in ("forward", "input"):
        lines += [f"  chain {hook}_before {{", f"    type filter hook {hook} priority -10; policy accept;"]
        lines += [f"    {rule}" for rule in before] + ["  }"]
        lines += [f"  chain {hook}_after {{ type filter hook {hook} priority 10; policy accept; "
                  "add @passed { ip id }; }"]
    return "\n".join(lines + ["}"]) + "\n"


@pytest.fixture(scope="module")
def topology():
    assert os.path.exists(KEELFW), f"build keel-fw first ({KEELFW})"
    yield from nft_router.router(ROUTER_NS, SIDES, observer_text(), local_pool=LOCAL_POOL)


class LoadedRules:
    """One rule set exported into the router and compiled for the classifier."""

    def __init__(self, tmp, n, text, zone=1):
        self.n, self.text = n, text
        rules = os.path.join(tmp, f"rules{n}.fw")
        with open(rules, "w") as f:
            f.write(text)
        self.nft_text = keelfw("nft", rules)
        self.tables = os.path.join(tmp, f"tables{n}.bin")
        keelfw("compile", rules, "-o", self.tables)
        run("nft", "-f", "-", ns=ROUTER_NS, input=self.nft_text)
        run("nft", "-f", "-", ns=ROUTER_NS, input="".join(f"flush set ip keelobs {name}\n" for name in OBSERVER_SETS)
            + f"flush chain ip keelobs zone\nadd rule ip keelobs zone ct zone set {zone}\n")

    @staticmethod
    def send(pkts, senders):
        """Sends each packet from its side; returns {id: IP total length} and the observer sets."""
        lengths = {}
        for side in SIDES:
            mine = [p for p, s in zip(pkts, senders) if s is side]
            lengths.update(zip((p["id"] for p in mine), send(side.ns, side.dev, side.mac, side.router_mac, mine)))
        return lengths, wait_for(ROUTER_NS, "keelobs", "reached", set(lengths))

    def context(self, line, what):
        return f"rule set {self.n}: packet {line!r}: {what}\n--- Keel rules\n{self.text}--- nft\n{self.nft_text}"

    def check_model(self, pkts, lines, sets, oifs=None, states=None):
        """The test's model of the router: every packet reached the hook, leaving through the
        expected interface, in the expected conntrack state."""
        for i, (p, line) in enumerate(zip(pkts, lines)):
            assert p["id"] in sets["reached"], self.context(line, "never reached the hook")
            if oifs:
                assert p["id"] in sets[f"oif_{oifs[i]}"], self.context(line, "routed through another interface")
            if states:
                kernel = [state for state in CT_STATES if p["id"] in sets[f"ct_{state}"]]
                assert kernel == [states[i]], self.context(
                    line, f"kernel conntrack state {kernel}, test model {states[i]}")

    def compare(self, pkts, lines, sets):
        """Asserts nftables passed exactly the packets the classifier accepts; returns the verdicts."""
        verdicts = classify(self.tables, lines)
        for p, line, v in zip(pkts, lines, verdicts):
            passed = p["id"] in sets["passed"]
            assert passed == verdict_passes(v), self.context(
                line, f"classifier says {v!r}, nftables {'passed' if passed else 'dropped'} it")
        return verdicts


# ---- forward hook: iif and oif --------------------------------------------------------------

FORWARD_RULE_SETS = 8
FORWARD_PACKETS = 300
# Forwarding needs TTL >= 2; the forward hook sees the TTL already decremented (ip_forward()).
FORWARD_TTLS = (2, 16, 17, 63, 64, 65, 100, 101, 200)


def forward_vocabulary(rng):
    """Router interfaces plus one that never exists; sometimes one real one left undeclared."""
    names = [s.router_dev for s in SIDES] + ["lan"]
    declared = [name for name in names if name != SIDES[2].router_dev or rng.random() < 0.6]
    return Vocabulary(iifs=declared, oifs=declared), declared


def forward_line(p, length, sender, ct="new"):
    return packet_line(p, length, "forward", iif=sender.router_dev, oif=side_for(p["dst"]).router_dev, ct=ct,
                       ttl=p["ttl"] - 1)


def test_forward(topology):
    rng = random.Random(SEED)
    compared, outcomes = 0, set()
    with tempfile.TemporaryDirectory(prefix="keelfw-") as tmp:
        for n in range(FORWARD_RULE_SETS):
            vocab, declared = forward_vocabulary(rng)
            loaded = LoadedRules(tmp, n, ruleset(rng, vocab, "forward", declared))
            pkts = [random_packet(rng, ident, ttls=FORWARD_TTLS) for ident in range(1, FORWARD_PACKETS + 1)]
            senders = [rng.choice(SIDES) for _ in pkts]
            lengths, sets = loaded.send(pkts, senders)
            lines = [forward_line(p, lengths[p["id"]], side) for p, side in zip(pkts, senders)]
            loaded.check_model(pkts, lines, sets, oifs=[side_for(p["dst"]).router_dev for p in pkts])
            outcomes |= {verdict_passes(v) for v in loaded.compare(pkts, lines, sets)}
            compared += len(pkts)
    assert outcomes == {True, False}, "the sample should contain both passed and dropped packets"
    assert compared == FORWARD_RULE_SETS * FORWARD_PACKETS


# ---- forward hook: connection state -----------------------------------------------------------

CT_RULE_SETS = 8
CT_FLOWS = 120
CT_LONE = 30
PORTS = [22, 53, 80, 1024, 1100, 40000]
# Conntrack state of a flow's original, and of its reply when the original was let through
# or dropped (then the reply meets no connection).
CT_FLOW_STATES = {
    "udp": ("new", "established", "new"),
    "udp-error": ("new", "related", "invalid"),  # an ICMP error about no known connection is invalid
    "icmp": ("new", "established", "invalid"),   # an echo reply without its request is invalid
    "tcp": ("new", "established", "invalid"),    # a SYN-ACK without its SYN is invalid
}
# Packets sent alone: an ACK picks up a connection mid-stream, a bare FIN does not.
CT_LONE_STATES = {"tcp-ack": "new", "tcp-fin": "invalid", "icmp-reply": "invalid"}


def flow_original(rng, ident, kind, taken):
    """The first packet of a flow of `kind`. TCP and UDP endpoints differ from every flow in
    `taken` in either direction, ICMP echo ids are unique: no packet meets another flow."""
    while True:
        src, dst = address(rng), address(rng)
        if src == dst:
            continue
        if kind.startswith("icmp"):
            p = {"proto": "icmp", "type": 0 if kind == "icmp-reply" else 8, "code": 0, "echo_id": ident}
        else:
            proto = "tcp" if kind.startswith("tcp") else "udp"
            sport, dport = rng.choice(PORTS), rng.choice(PORTS)
            key = (proto, frozenset({(src, sport), (dst, dport)}))
            if key in taken:
                continue
            taken.add(key)
            p = {"proto": proto, "sport": sport, "dport": dport}
            if proto == "tcp":
                p.update(flags={"tcp": 0x02, "tcp-ack": 0x10, "tcp-fin": 0x01}[kind], seq=1000 + ident,
                         ack=0 if kind == "tcp" else 1)
        p.update(id=ident, kind=kind, src=src, dst=dst, ttl=rng.choice(FORWARD_TTLS),
                 payload=rng.choice([0, 10, 30, 100]))
        return p


def reply_to(p, ident):
    """The answer to original `p` from its destination."""
    r = {"id": ident, "src": p["dst"], "dst": p["src"], "ttl": 64, "payload": p["payload"]}
    if p["kind"] == "icmp":
        return {**r, "proto": "icmp", "type": 0, "code": 0, "echo_id": p["echo_id"]}
    if p["kind"] == "udp-error":  # port unreachable quoting the original (RFC 792)
        return {**r, "proto": "icmp", "type": 3, "code": 3, "inner": p, "payload": 0}
    if p["kind"] == "udp":
        return {**r, "proto": "udp", "sport": p["dport"], "dport": p["sport"]}
    return {**r, "proto": "tcp", "sport": p["dport"], "dport": p["sport"], "flags": 0x12, "seq": 5000,
            "ack": p["seq"] + 1}


def test_conntrack(topology):
    rng = random.Random(SEED + 1)
    compared, outcomes, states_seen = 0, set(), set()
    with tempfile.TemporaryDirectory(prefix="keelfw-") as tmp:
        for n in range(CT_RULE_SETS):
            vocab, declared = forward_vocabulary(rng)
            vocab.ct = True
            # A fresh conntrack zone per rule set: no entry of an earlier one is met.
            loaded = LoadedRules(tmp, n, ruleset(rng, vocab, "forward", declared), zone=100 + n)
            taken = set()
            kinds = [rng.choice(list(CT_FLOW_STATES)) for _ in range(CT_FLOWS)] + \
                [rng.choice(list(CT_LONE_STATES)) for _ in range(CT_LONE)]
            originals = [flow_original(rng, ident, kind, taken) for ident, kind in enumerate(kinds, 1)]
            states = [CT_FLOW_STATES[k][0] if k in CT_FLOW_STATES else CT_LONE_STATES[k] for k in kinds]
            senders = [rng.choice(SIDES) for _ in originals]
            # Phase 1: the originals.
            lengths, sets = loaded.send(originals, senders)
            lines = [forward_line(p, lengths[p["id"]], side, state)
                     for p, side, state in zip(originals, senders, states)]
            loaded.check_model(originals, lines, sets, states=states)
            verdicts = loaded.compare(originals, lines, sets)
            # Phase 2: each flow's reply, from the side its original was routed to; its state
            # follows from the classifier's verdict on the original.
            flows = [(p, verdict_passes(v)) for p, v in zip(originals, verdicts) if p["kind"] in CT_FLOW_STATES]
            replies = [reply_to(p, 1000 + p["id"]) for p, _ in flows]
            reply_states = [CT_FLOW_STATES[p["kind"]][1 if passed else 2] for p, passed in flows]
            reply_senders = [side_for(p["dst"]) for p, _ in flows]
            lengths, sets = loaded.send(replies, reply_senders)
            reply_lines = [forward_line(r, lengths[r["id"]], side, state)
                           for r, side, state in zip(replies, reply_senders, reply_states)]
            loaded.check_model(replies, reply_lines, sets, states=reply_states)
            verdicts += loaded.compare(replies, reply_lines, sets)
            outcomes |= {verdict_passes(v) for v in verdicts}
            states_seen |= set(states) | set(reply_states)
            compared += len(verdicts)
    assert outcomes == {True, False}, "the sample should contain both passed and dropped packets"
    assert states_seen == set(CT_STATES)
    assert compared == CT_RULE_SETS * (2 * CT_FLOWS + CT_LONE)


# ---- input hook: packets for the router itself -------------------------------------------------

INPUT_RULE_SETS = 6
INPUT_PACKETS = 200


def test_input(topology):
    rng = random.Random(SEED + 2)
    names = [s.router_dev for s in SIDES] + ["lan"]
    vocab = Vocabulary(iifs=names, addresses=ADDRESSES + [LOCAL_POOL])
    compared, outcomes = 0, set()
    with tempfile.TemporaryDirectory(prefix="keelfw-") as tmp:
        for n in range(INPUT_RULE_SETS):
            loaded = LoadedRules(tmp, n, ruleset(rng, vocab, "input", names))
            pkts = [random_packet(rng, ident, dst_pools=[LOCAL_POOL]) for ident in range(1, INPUT_PACKETS + 1)]
            senders = [rng.choice(SIDES) for _ in pkts]
            lengths, sets = loaded.send(pkts, senders)
            lines = [packet_line(p, lengths[p["id"]], "input", iif=side.router_dev) for p, side in zip(pkts, senders)]
            loaded.check_model(pkts, lines, sets)
            outcomes |= {verdict_passes(v) for v in loaded.compare(pkts, lines, sets)}
            compared += len(pkts)
    assert outcomes == {True, False}, "the sample should contain both passed and dropped packets"
    assert compared == INPUT_RULE_SETS * INPUT_PACKETS

"""The firewall appliance (examples/firewall) beside a Linux router loaded with `keel-fw nft`'s
export of the same rules, in the same topology (appliance_net.py): every generated packet must
meet the same fate on both — forwarded with the same addresses, ports and TTL, dropped, or
rejected with the same ICMP error, a ping of the router answered or not — for filter chains
on all five hooks (prerouting, forward and postrouting with packets passing through; input
and output with packets to the router and the answers and errors it sends), `ct state` with
flows in both directions, and NAT (dnat, snat, masquerade) with the replies translated back.
The appliance runs both as the Linux-process build and as the bootable image under QEMU.
Rules reach it through its management port (push_rules.py), so every rule set also tests
atomic replacement. Run as root (KEEL_FW_MACHINE=linux or microvm for one of the two):
/usr/bin/python3 -m pytest test/firewall/test_appliance_differential.py"""
import os
import random
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor

import pytest

import appliance_net as net
from nft_helpers import KEELFW, Vocabulary, ruleset

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("nft"), reason="needs root and nft")

SEED = 1010
INTERFACES = ["eth0", "eth1", "lan"]  # lan is declared but never exists
POOLS = ["10.0.0.", "10.1.0."]
PORTS = [22, 53, 80, 443, 1024, 8080, 40000]
MGMT_ACCEPT = {"prerouting": "udp dport 5555 accept", "input": "udp dport 5555 accept",
               "output": "udp sport 5555 accept", "postrouting": "udp sport 5555 accept"}


class Ids:
    """IP ids and source ports never used twice on one pair of routers: no packet meets an
    earlier test's flow (the routers live as long as the module, and so do their conntrack
    tables) or is mistaken for an earlier packet. Ids start above 0, which Linux gives to its
    own RSTs (appliance_net.strays)."""

    def __init__(self):
        self.next_id, self.next_port = 1, 20000

    def id(self):
        self.next_id += 1
        assert self.next_id <= 0xffff, "IP ids ran out: 16 bits"
        return self.next_id

    def port(self):
        self.next_port += 1
        assert self.next_port <= 0xffff, "ports ran out"
        return self.next_port


def host(rng, side):
    return f"{POOLS[side]}{rng.randrange(1, 16)}"


def packet(rng, ids, side, proto=None, ttl=None):
    """A random packet from `side` to the other."""
    proto = proto or rng.choice(["tcp", "udp", "icmp", "tcp", "udp"])
    p = {"id": ids.id(), "src": host(rng, side), "dst": host(rng, 1 - side), "proto": proto,
         "ttl": ttl or rng.choice([64, 64, 64, 2, 16, 100]), "payload": rng.choice([0, 10, 100])}
    if proto in ("tcp", "udp"):
        p["sport"], p["dport"] = ids.port(), rng.choice(PORTS)
    if proto == "tcp":
        p["flags"], p["seq"], p["ack"] = 0x02, 1000, 0
    if proto == "icmp":
        p.update(type=8, code=0, echo_id=ids.port())
    return p


def reply(p, ids):
    r = {"id": ids.id() if ids else 0, "src": p["dst"], "dst": p["src"], "proto": p["proto"], "ttl": 64, "payload": 0}
    if p["proto"] in ("tcp", "udp"):
        r["sport"], r["dport"] = p["dport"], p["sport"]
    if p["proto"] == "tcp":
        r.update(flags=0x12, seq=5000, ack=p["seq"] + 1)
    if p["proto"] == "icmp":
        r.update(type=0, code=0, echo_id=p["echo_id"])
    return r


def with_management(text, hook):
    """The rules with an accept for the management port first in the base chain (no generated
    packet uses that port)."""
    if hook not in MGMT_ACCEPT:
        return text
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("chain base"))
    lines.insert(at + 1, "  " + MGMT_ACCEPT[hook])
    return "\n".join(lines) + "\n"


# The Linux-process build and the bootable image under QEMU (microvm, TCG); KEEL_FW_MACHINE
# picks one.
MACHINES = [os.environ["KEEL_FW_MACHINE"]] if os.environ.get("KEEL_FW_MACHINE") else ["linux", "microvm"]


@pytest.fixture(scope="module", params=MACHINES)
def routers(request, tmp_path_factory):
    assert os.path.exists(KEELFW), f"build keel-fw first ({KEELFW})"
    tmp = tmp_path_factory.mktemp("fwapp")
    first = tmp / "first.fw"
    first.write_text("interface eth0 { }\ninterface eth1 { }\n")
    blob = tmp / "first.bin"
    net.keelfw("compile", str(first), "-o", str(blob))
    keel = linux = None
    try:
        # The sides' hosts do not answer pings: their echo replies' IP ids are Linux's, and
        # could equal a test packet's.
        keel = net.KeelRouter("k", str(blob), machine=request.param, answer_pings=False)
        linux = net.LinuxRouter("l", answer_pings=False)
        yield keel, linux, Ids()
    finally:
        for r in (keel, linux):
            if r:
                r.close()


class Run:
    def __init__(self, routers, tmp):
        self.keel, self.linux, self.ids = routers
        self.tmp = tmp
        self.n = 0
        self.compared = 0

    def load(self, text):
        self.n += 1
        path = os.path.join(self.tmp, f"rules{self.n}.fw")
        with open(path, "w") as f:
            f.write(text)
        blob = os.path.join(self.tmp, f"rules{self.n}.bin")
        net.keelfw("compile", path, "-o", blob)
        self.keel.load(blob)
        self.linux.load(path)
        self.text = text

    def compare(self, batches, linux_batches=None, normalize=lambda outcome: outcome):
        """Sends the batches through both routers (`linux_batches`: other packets with the same
        ids for Linux); asserts identical outcomes after `normalize`; returns both."""
        sent = [(side, p) for side, pkts in batches for p in pkts]
        linux_batches = linux_batches or batches
        # Both at once: their namespaces are apart, and the exchanges mostly wait.
        with ThreadPoolExecutor(2) as pool:
            keel_frames = pool.submit(self.keel.exchange, batches)
            linux_frames = pool.submit(self.linux.exchange, linux_batches)
            keel = net.outcomes(sent, keel_frames.result(), self.keel.sides)
            linux = net.outcomes([(side, p) for side, pkts in linux_batches for p in pkts],
                                 linux_frames.result(), self.linux.sides)
        for side, p in sent:
            assert normalize(keel[p["id"]]) == normalize(linux[p["id"]]), (
                f"rule set {self.n}: packet {p} from side {side}:\n  Keel:  {keel[p['id']]}\n"
                f"  Linux: {linux[p['id']]}\n--- rules\n{self.text}\n--- Keel's console\n"
                f"{self.keel.guest.output()[-2000:]}")
        self.compared += len(sent)
        return keel, linux


def kinds_of(results):
    kinds = set()
    for r in results.values():
        kinds.add("forwarded" if r["arrived"] else "rejected" if r["errors"] else "dropped")
    return kinds


@pytest.mark.parametrize("hook", ["forward", "prerouting", "postrouting"])
def test_filter_chains(routers, hook, tmp_path):
    rng = random.Random(f"{SEED}-{hook}")
    run = Run(routers, str(tmp_path))
    ids = run.ids
    oifs = INTERFACES if hook != "prerouting" else []
    iifs = INTERFACES if hook != "postrouting" else []
    seen = set()
    for _ in range(4):
        text = ruleset(rng, Vocabulary(iifs=iifs, oifs=oifs, addresses=POOLS), hook, INTERFACES, rules=(3, 12))
        if hook == "forward" and rng.random() < 0.5:
            text = text.replace(" drop\n", " reject\n", 2)
        run.load(with_management(text, hook))
        batches = [(side, [packet(rng, ids, side) for _ in range(25)]) for side in (0, 1)]
        seen |= kinds_of(run.compare(batches)[0])
    assert {"forwarded", "dropped"} <= seen
    assert run.compared == 4 * 50


def local_packet(rng, ids, side):
    """A packet of `side`'s to one of the router's own addresses (a ping, a closed UDP port, a
    TCP port), or one crossing it with TTL 1: what the input chain sees and what makes the
    router send (echo replies, port unreachable, time exceeded) on the output chain."""
    if rng.random() < 0.2:
        return packet(rng, ids, side, ttl=1)
    p = packet(rng, ids, side, ttl=64)
    p["dst"] = f"{POOLS[rng.choice([side, side, 1 - side])]}{net.ROUTER_HOST}"
    return p


@pytest.mark.parametrize("hook", ["input", "output"])
def test_local_chains(routers, hook, tmp_path):
    rng = random.Random(f"{SEED}-{hook}")
    run = Run(routers, str(tmp_path))
    ids = run.ids
    vocab = Vocabulary(iifs=INTERFACES if hook == "input" else [], oifs=INTERFACES if hook == "output" else [],
                       addresses=POOLS, ct=True)
    seen = set()
    for _ in range(4):
        text = ruleset(rng, vocab, hook, INTERFACES, rules=(3, 12))
        if hook == "input" and rng.random() < 0.5:
            text = text.replace(" drop\n", " reject\n", 2)
        run.load(with_management(text, hook))
        batches = [(side, [local_packet(rng, ids, side) for _ in range(20)]) for side in (0, 1)]
        keel, _ = run.compare(batches)
        seen |= {"answered" if r.get("answers") else "unanswered" for r in keel.values() if "answers" in r}
        seen |= {"error" for r in keel.values() if r["errors"]}
    assert seen == {"answered", "unanswered", "error"}, seen
    assert run.compared == 4 * 40


def test_conntrack_states(routers, tmp_path):
    rng = random.Random(f"{SEED}-ct")
    run = Run(routers, str(tmp_path))
    ids = run.ids
    for _ in range(4):
        vocab = Vocabulary(iifs=INTERFACES, oifs=INTERFACES, addresses=POOLS, ct=True)
        run.load(ruleset(rng, vocab, "forward", INTERFACES, rules=(3, 12)))
        originals = [packet(rng, ids, 0, ttl=64) for _ in range(30)]
        # Lone packets: an ACK picks a connection up, a bare FIN or an echo reply starts none.
        lone = [dict(packet(rng, ids, 0, proto="tcp", ttl=64), flags=f) for f in (0x10, 0x01, 0x11)]
        lone.append(dict(packet(rng, ids, 0, proto="icmp", ttl=64), type=0))
        run.compare([(0, originals + lone)])
        # The replies, then more of each original: established only where the original passed.
        replies = [reply(p, ids) for p in originals]
        again = [dict(p, id=ids.id(), flags=0x10, seq=1001, ack=5001) if p["proto"] == "tcp" else dict(p, id=ids.id())
                 for p in originals]
        run.compare([(1, replies), (0, again)])
    assert run.compared == 4 * (30 + 4 + 30 + 30)


NAT_TARGETS = [
    ("prerouting", "dnat to 10.1.0.7"), ("prerouting", "dnat to 10.1.0.8:8080"),
    ("prerouting", "dnat to 10.1.0.9:1000-1010"), ("postrouting", "snat to 10.1.0.254"),
    ("postrouting", "masquerade"), ("postrouting", "snat to 10.1.0.200:30000-30100"),
]


def in_range_ports(lo, hi):
    """Source ports a snat range chose at random: any in [lo, hi] is as good (each side's are
    checked for uniqueness separately)."""
    def normalize(outcome):
        arrived = [(src, dst, "range" if sport is not None and lo <= sport <= hi else sport, *rest)
                   for src, dst, sport, *rest in outcome["arrived"]]
        return {"arrived": arrived, "errors": outcome["errors"]}
    return normalize


def replies_to(originals, outcome, ids_base):
    """Each forwarded original's reply, to wherever it arrived from, as it arrived."""
    out = []
    for n, p in enumerate(originals):
        arrived = outcome[p["id"]]["arrived"]
        if arrived:
            src, dst, sport, dport, echo_id, _ = arrived[0]
            r = reply(dict(p, src=src, dst=dst, sport=sport, dport=dport, echo_id=echo_id), None)
            r["id"] = ids_base + n
            out.append(r)
    return out


def test_nat(routers, tmp_path):
    rng = random.Random(f"{SEED}-nat")
    run = Run(routers, str(tmp_path))
    ids = run.ids
    for hook, target in NAT_TARGETS:
        cond = rng.choice(["", "tcp ", "udp ", "ip saddr 10.0.0.0/28 ", "tcp dport { 80, 443 } ",
                           "iif eth0 " if hook == "prerouting" else "oif eth1 "])
        text = ("interface eth0 { }\ninterface eth1 { }\n"
                f"chain nat_{hook} type nat hook {hook} {{ {MGMT_ACCEPT[hook]}; {cond}{target} }}\n")
        run.load(text)
        normalize = in_range_ports(30000, 30100) if "30000" in target else (lambda o: o)
        originals = [packet(rng, ids, 0, ttl=64) for _ in range(20)]
        keel, linux = run.compare([(0, originals)], normalize=normalize)
        for outcome in (keel, linux):  # never one tuple for two flows
            tuples = [o["arrived"][0][:5] for o in outcome.values() if o["arrived"]]
            assert len(tuples) == len(set(tuples)), tuples
        # Replies go to wherever each router's original arrived from, as it arrived.
        base = ids.id()
        ids.next_id += len(originals)
        keel_replies, linux_replies = replies_to(originals, keel, base), replies_to(originals, linux, base)
        back, _ = run.compare([(1, keel_replies)], [(1, linux_replies)])
        assert any(r["arrived"] for r in back.values()), "some replies should make it back"


# Flows whose reply tuple equals the original: a host "talking to itself" through the router
# (source = destination address, equal ports; GRE, which has no ports, between a host and
# itself). Linux tracks them and forwards what the rules accept: the first packet is new, the
# next ones established (its lookups find the flow's reply entry first; docs/decisions/0062).
# Keel once refused them as a clash with themselves at confirmation. Each rule set sees fresh
# flows (new ports; new hosts for GRE, whose tuple has no port). The fates Linux gives
# (F forwarded, D dropped) for: UDP, UDP again, GRE, GRE again, an ordinary UDP packet.
SELF_FLOW_RULES = [
    ("accept", "ct state invalid drop", "FFFFF"),
    ("drop", "ct state new accept", "FDFDF"),
    ("accept", "ct state established drop", "FDFDF"),
    ("accept", "protocol 47 drop", "FFDDF"),
]


def self_flows(ids, side, gre_host):
    """Two packets of a UDP flow and two of a GRE flow, each between a host of the far side
    and itself, and an ordinary UDP packet."""
    far = POOLS[1 - side]
    port = ids.port()
    udp = {"src": f"{far}3", "dst": f"{far}3", "proto": "udp", "ttl": 64, "payload": 10, "sport": port,
           "dport": port}
    gre = {"src": f"{far}{gre_host}", "dst": f"{far}{gre_host}", "proto": 47, "ttl": 64, "payload": 4}
    ordinary = dict(udp, src=f"{POOLS[side]}3", sport=ids.port())
    return [dict(p, id=ids.id()) for p in (udp, udp, gre, gre, ordinary)]


def test_self_flows(routers, tmp_path):
    ids = Ids()
    run = Run(routers, str(tmp_path))
    for n, (policy, rule, fates) in enumerate(SELF_FLOW_RULES):
        run.load(f"interface eth0 {{ }}\ninterface eth1 {{ }}\nchain base hook forward policy {policy} {{ {rule} }}\n")
        batches = [(side, self_flows(ids, side, 4 + n)) for side in (0, 1)]
        _, linux = run.compare(batches)
        # The same fates on both (compare); that they are the ones Linux is known to give keeps
        # the case from passing vacuously (say, with both routers dropping every such packet).
        for _, pkts in batches:
            got = "".join("F" if linux[p["id"]]["arrived"] else "D" if not linux[p["id"]]["errors"] else "E"
                          for p in pkts)
            assert got == fates, f"{rule}: Linux gave {got}, expected {fates}"
    assert run.compared == len(SELF_FLOW_RULES) * 10

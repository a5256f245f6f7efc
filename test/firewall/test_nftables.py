"""Differential test against Linux nftables (run as root with /usr/bin/python3 -m pytest).

Creates two network namespaces (keelfw-<pid>-tx, keelfw-<pid>-fw) joined by a veth pair,
loads `keel-fw nft` output into the fw namespace, sends crafted packets from the tx namespace
and compares which packets got past the exported prerouting chain (recorded by an observer
chain at a later priority) with the verdicts of `keel-fw classify` on the same packets.
The forward and input hooks, `oif` and connection state: test_nftables_forward.py.
"""
import os
import random
import shutil
import tempfile

import pytest

from nft_helpers import (KEELFW, Vocabulary, classify, keelfw, link_mac, packet_line, random_packet,
                         ruleset, run, send, verdict_passes, wait_for)
from keelpy.netns import Netns  # noqa: E402 (nft_helpers puts tools/ on the path)

PID = os.getpid()
TX_NS, FW_NS = f"keelfw-{PID}-tx", f"keelfw-{PID}-fw"
TX_IF, FW_IF = f"kfw{PID}a"[:15], f"kfw{PID}b"[:15]
SEED = 4242
RULE_SETS = 8
PACKETS_PER_SET = 250

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("nft") or not shutil.which("ip"),
    reason="needs root, nft and ip")

# Records the IP id of every packet that reaches the exported chain (priority 0) and of every
# packet that survives it.
OBSERVER = """
table ip keelobs {
  set reached { typeof ip id; flags dynamic; size 65535; }
  set seen { typeof ip id; flags dynamic; size 65535; }
  chain before {
    type filter hook prerouting priority -10; policy accept;
    add @reached { ip id }
  }
  chain pre {
    type filter hook prerouting priority 10; policy accept;
    add @seen { ip id }
  }
}
"""


@pytest.fixture(scope="module")
def netns():
    assert os.path.exists(KEELFW), f"build keel-fw first ({KEELFW})"
    with Netns(name=TX_NS) as tx, Netns(name=FW_NS) as fw:
        tx.veth_to(fw, TX_IF, FW_IF, "10.250.0.1/24", "10.250.0.2/24")
        run("nft", "-f", "-", ns=FW_NS, input=OBSERVER)
        yield link_mac(TX_NS, TX_IF), link_mac(FW_NS, FW_IF)


def test_exported_ruleset_matches_classifier(netns):
    tx_mac, fw_mac = netns
    rng = random.Random(SEED)
    vocab = Vocabulary(iifs=[FW_IF, "lan"])
    compared = 0
    outcomes = set()
    with tempfile.TemporaryDirectory(prefix="keelfw-") as tmp:
        for n in range(RULE_SETS):
            rules = os.path.join(tmp, f"rules{n}.fw")
            with open(rules, "w") as f:
                f.write(ruleset(rng, vocab, "prerouting", declared=[FW_IF, "lan"]))
            nft_text = keelfw("nft", rules)
            run("nft", "-f", "-", ns=FW_NS, input=nft_text)
            run("nft", "flush set ip keelobs reached; flush set ip keelobs seen", ns=FW_NS)
            tables = os.path.join(tmp, "t.bin")
            keelfw("compile", rules, "-o", tables)
            pkts = [random_packet(rng, ident) for ident in range(1, PACKETS_PER_SET + 1)]
            lengths = send(TX_NS, TX_IF, tx_mac, fw_mac, pkts)
            sets = wait_for(FW_NS, "keelobs", "reached", {p["id"] for p in pkts})
            assert sets["reached"] == {p["id"] for p in pkts}, "every packet should reach prerouting"
            lines = [packet_line(p, length, "prerouting", iif=FW_IF) for p, length in zip(pkts, lengths)]
            for p, v, line in zip(pkts, classify(tables, lines), lines):
                want_pass = verdict_passes(v)
                assert (p["id"] in sets["seen"]) == want_pass, (
                    f"rule set {n}: packet {line!r}: classifier says {v!r}, nftables "
                    f"{'passed' if p['id'] in sets['seen'] else 'dropped'} it\n{open(rules).read()}\n{nft_text}")
                compared += 1
                outcomes.add(want_pass)
    assert outcomes == {True, False}, "the sample should contain both passed and dropped packets"
    assert compared == RULE_SETS * PACKETS_PER_SET

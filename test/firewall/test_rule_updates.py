"""The appliance's rule-update port (update_channel.hpp, decision 0052) from the outside, on the
Linux-process build in the two-network topology of appliance_net.py: what an attacker without
the key, or with a recording of the key holder's traffic, sends gets no reply and disturbs
nothing; a key holder's upload still loads, with every reply no larger than its request.
Run as root."""
import json
import os
import shutil
import time

import pytest

import appliance_net as net

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("nft"), reason="needs root and nft")

# Enough rules for a blob of several 1 KiB pieces.
RULES = ("interface eth0 { }\ninterface eth1 { }\nchain forward hook forward policy drop {\n"
         + "".join(f"  iif eth0 ip saddr 10.9.{i // 250}.{i % 250 + 1} udp dport {1000 + i} accept\n"
                   for i in range(300))
         + "}\nchain input hook input policy accept { }\n")

# Runs on side A with push_rules importable; prints one JSON object of what it saw.
PROBE = r"""
import hashlib, json, socket, struct, sys, time
import push_rules as p

address, port, key, blob_path = sys.argv[1], int(sys.argv[2]), bytes.fromhex(sys.argv[3]), sys.argv[4]
blob = open(blob_path, "rb").read()
out = {}
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(1.0)

def answer_to(message, wait=1.0):
    s.settimeout(wait)
    s.sendto(message, (address, port))
    try:
        return s.recv(4096)
    except socket.timeout:
        return None

wrong = bytes(32)
# Without the key: garbage, the old protocol's BEGIN (it used to answer 6-9 times larger), a
# KFW2 BEGIN with a wrong MAC, a truncated and an oversized message.
out["garbage"] = answer_to(b"x" * 20) is not None
out["old_begin"] = answer_to(b"KFW1\x01" + struct.pack(">QI", 99, 1 << 20)) is not None
out["forged_begin"] = answer_to(p.message(wrong, p.BEGIN, bytes(16), 1, struct.pack(">QI", 99, 1 << 20))) is not None
out["truncated"] = answer_to(p.message(key, p.HELLO, bytes(16), time.time_ns(), bytes(16))[:-1]) is not None
out["oversized"] = answer_to(b"KFW2" + bytes(1200)) is not None
print(json.dumps(out), flush=True)  # what needed no key, before what does

# A key holder's upload, with a forged and a replayed BEGIN in the middle of it.
session = p.Session(address, port, key)
out = {"sizes": []}
sent = []

class Recorder:
    # The session's socket, keeping what was sent and the (request, reply) sizes.
    def __init__(self, sock):
        self.sock = sock
    def sendto(self, data, peer):
        sent.append(data)
        return self.sock.sendto(data, peer)
    def recv(self, n):
        data = self.sock.recv(n)
        out["sizes"].append((len(sent[-1]), len(data)))
        return data
    def gettimeout(self):
        return self.sock.gettimeout()

session.sock = Recorder(session.sock)
generation = int(sys.argv[5])
status, _, _ = p.RESULT.unpack(session.ask(p.BEGIN, struct.pack(">QI", generation, len(blob))))
assert status == 0, status
begin = sent[-1]
half = (len(blob) // p.PIECE // 2) * p.PIECE
for offset in range(0, half, p.PIECE):
    assert session.ask(p.DATA, struct.pack(">I", offset) + blob[offset:offset + p.PIECE])[0] == 0
out["forged_mid_upload"] = answer_to(p.message(wrong, p.BEGIN, session.challenge, session.seq + 1,
                                               struct.pack(">QI", generation + 1, 1 << 20))) is not None
out["replayed_begin"] = answer_to(begin) is not None
out["replayed_piece"] = answer_to(sent[-1]) is not None
for offset in range(half, len(blob), p.PIECE):
    assert session.ask(p.DATA, struct.pack(">I", offset) + blob[offset:offset + p.PIECE])[0] == 0
commit = struct.pack(">Q", generation) + hashlib.sha256(blob).digest()
out["commit"] = p.RESULT.unpack(session.ask(p.COMMIT, commit))[0]
out["replayed_commit"] = answer_to(sent[-1]) is not None
# A recorded HELLO, and the recorded upload played into a later session.
hello = p.message(key, p.HELLO, bytes(16), time.time_ns(), bytes(16))
out["hello"] = answer_to(hello) is not None
out["replayed_hello"] = answer_to(hello) is not None
later = p.Session(address, port, key)
out["later_begin"] = p.RESULT.unpack(later.ask(p.BEGIN, struct.pack(">QI", generation, 10)))[0]
out["stale_begin"] = answer_to(begin) is not None
print(json.dumps(out))
"""


def test_unauthenticated_and_replayed_requests_get_nothing(tmp_path):
    rules = tmp_path / "rules.fw"
    rules.write_text(RULES)
    blob = str(tmp_path / "rules.bin")
    net.keelfw("compile", str(rules), "-o", blob)
    router = net.KeelRouter("u", blob, extra="stats=1")
    try:
        side = router.sides[0]
        probe = tmp_path / "probe.py"
        probe.write_text(PROBE)
        result = side.sh(f"PYTHONPATH={net.FIREWALL} {net.DEBIAN_PYTHON} {probe} {net.SUBNETS[0]}{net.ROUTER_HOST} "
                         f"{net.MGMT_PORT} {net.KEY} {blob} 7", check=False, timeout=120)
        lines = result.stdout.splitlines()
        without_key = json.loads(lines[0])
        for unanswered in ("garbage", "old_begin", "forged_begin", "truncated", "oversized"):
            assert without_key[unanswered] is False, unanswered
        assert result.returncode == 0, result.stdout + result.stderr + router.guest.output()[-3000:]
        seen = json.loads(lines[1])
        assert os.path.getsize(blob) > 4 * 1024
        for unanswered in ("forged_mid_upload", "replayed_begin", "replayed_piece", "replayed_commit", "replayed_hello",
                           "stale_begin"):
            assert seen[unanswered] is False, unanswered
        assert seen["hello"] is True
        assert seen["later_begin"] == 2  # generation not above the one loaded: answered, refused
        assert seen["commit"] == 0, seen  # loaded: the forged and replayed BEGINs disturbed nothing
        assert seen["sizes"] and all(reply <= request for request, reply in seen["sizes"]), seen["sizes"]
        # Each kind of drop is counted (the update port's line of stats=1).
        expected = {"dropped_truncated": 2, "dropped_malformed": 1, "dropped_mac": 2, "dropped_oversized": 1,
                    "dropped_replay": 4, "dropped_stale_session": 1, "loaded": 1, "refused_generation": 1}
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            counters = last_counters(router.guest.output(), "updates")
            if all(counters.get(k) == v for k, v in expected.items()):
                break
            time.sleep(0.5)
        assert {k: counters.get(k) for k in expected} == expected, router.guest.output()[-3000:]
    finally:
        router.close()


def last_counters(output, what):
    """The counters of the last `firewall: WHAT name=value ...` line."""
    counters = {}
    for line in output.splitlines():
        if line.startswith(f"firewall: {what} "):
            counters = {k: int(v) for k, v in (f.split("=") for f in line.split()[2:])}
    return counters

"""The firewall appliance with real traffic: TCP connections of Linux peers through it beside
the same through a Linux router with the same rules (connection tracking must follow real
handshakes, window scaling, SACK and closes as Linux's does), and hostile input — malformed
headers, overlapping fragments, spoofed sources, a SYN flood larger than the flow table — that
must neither stop it nor get through what the rules drop. Run as root."""
import os
import random
import shutil
import subprocess
import time

import pytest

import appliance_net as net
from nft_helpers import KEELFW, ip_bytes

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("nft"), reason="needs root and nft")

RULES = """
interface eth0 { }
interface eth1 { }
chain forward hook forward policy drop {
  udp dport 5555 accept
  ct state established,related accept
  ct state invalid drop
  iif eth0 tcp dport 8080 ct state new accept
  iif eth0 udp dport 7 accept
  iif eth0 icmp type 8 accept
}
chain input hook input policy accept { }
"""

# Serves argv[2] connections on argv[1]:8080 and 8081, echoing each until its peer closes.
SERVER = r"""
import socket, sys, threading
def serve(port):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((sys.argv[1], port)); s.listen(16); s.settimeout(60)
    for _ in range(int(sys.argv[2])):
        try:
            c, _ = s.accept()
        except socket.timeout:
            return
        while True:
            data = c.recv(65536)
            if not data:
                break
            c.sendall(data)
        c.close()
for port in (8080, 8081):
    threading.Thread(target=serve, args=(port,), daemon=True).start()
print("ready", flush=True)
import time; time.sleep(60)
"""

# Connects to argv[1]:argv[2], sends argv[3] bytes, reads them back; prints ok, timeout or refused.
CLIENT = r"""
import os, socket, sys
data = os.urandom(int(sys.argv[3]))
try:
    c = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=3)
    c.settimeout(10)
    c.sendall(data)
    c.shutdown(socket.SHUT_WR)
    got = b""
    while True:
        chunk = c.recv(65536)
        if not chunk:
            break
        got += chunk
    print("ok" if got == data else f"short {len(got)}")
except socket.timeout:
    print("timeout")
except ConnectionRefusedError:
    print("refused")
except OSError as e:
    print(type(e).__name__)
"""


def compile_rules(tmp, text, name="rules"):
    path = os.path.join(tmp, f"{name}.fw")
    with open(path, "w") as f:
        f.write(text)
    blob = os.path.join(tmp, f"{name}.bin")
    net.keelfw("compile", path, "-o", blob)
    return path, blob


def connections(router, attempts):
    """Runs the server on side B and each (port, bytes) client from side A; returns results."""
    server = subprocess.Popen(["ip", "netns", "exec", router.sides[1].name, net.DEBIAN_PYTHON, "-c", SERVER,
                               "10.1.0.5", str(len(attempts))], stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout.readline().strip() == "ready"
        out = []
        for port, size in attempts:
            r = router.sides[0].sh(f"{net.DEBIAN_PYTHON} -c '{CLIENT}' 10.1.0.5 {port} {size}", check=False,
                                   timeout=60)
            out.append(r.stdout.strip())
        return out
    finally:
        server.kill()
        server.wait()


def test_real_tcp_connections_match_linux(tmp_path):
    path, blob = compile_rules(str(tmp_path), RULES)
    attempts = [(8080, 100), (8080, 300_000), (8081, 100), (8080, 2_000_000), (8080, 1)]
    results = {}
    for name, make in (("keel", lambda: net.KeelRouter("t", blob)), ("linux", lambda: net.LinuxRouter("t"))):
        router = make()
        try:
            if name == "linux":
                router.load(path)
            results[name] = connections(router, attempts)
        finally:
            router.close()
    assert results["keel"] == results["linux"], results
    assert results["keel"] == ["ok", "ok", "timeout", "ok", "ok"], results


def hostile_packets(rng):
    """Datagrams from side A that the rules must drop (or that are malformed), as
    (destination, bytes) pairs; none may arrive whole at side B."""
    from scapy.layers.inet import IP, TCP, UDP, ICMP, fragment
    out = []
    for n in range(40):  # ports the rules do not open, with odd flags and options
        out.append(IP(src=f"10.0.0.{rng.randrange(1, 16)}", dst="10.1.0.5", id=50000 + n) /
                   TCP(sport=rng.randrange(1024, 65535), dport=rng.choice([22, 23, 8081, 0]),
                       flags=rng.choice(["S", "SA", "A", "F", "R", "FPU", ""])))
    for n in range(20):  # bad checksums to an open port: conntrack calls them invalid
        out.append(IP(src="10.0.0.3", dst="10.1.0.5", id=51000 + n) / TCP(sport=40000 + n, dport=8080,
                                                                         flags="A", chksum=0xdead))
    # Overlapping fragments: the first says port 7 (open), a later one rewrites it to 22.
    for n in range(10):
        whole = IP(src="10.0.0.4", dst="10.1.0.5", id=52000 + n) / UDP(sport=1000 + n, dport=7) / (b"x" * 64)
        frags = fragment(whole, fragsize=24)
        evil = IP(bytes(frags[0]))
        evil[UDP].dport = 22
        del evil[UDP].chksum
        out += list(frags) + [evil]
    for n in range(10):  # truncated headers, bad lengths, TTL 0 and 1, spoofed router sources
        out.append(IP(src="10.0.0.6", dst="10.1.0.5", id=53000 + n, proto=6) / (b"\x00" * rng.randrange(0, 19)))
        out.append(IP(src="10.0.0.254", dst="10.1.0.5", id=53100 + n) / UDP(sport=7, dport=22))
        out.append(IP(src="10.0.0.7", dst="10.1.0.5", id=53200 + n, ttl=rng.choice([0, 1])) / UDP(dport=22))
        out.append(IP(src="10.0.0.8", dst="10.1.0.5", id=53300 + n) / ICMP(type=3, code=3) /
                   IP(src="10.1.0.5", dst="10.0.0.8") / UDP(sport=22, dport=rng.randrange(65536)))
    return [("10.1.0.5", bytes(p)) for p in out]


def test_hostile_input_neither_stops_it_nor_gets_through(tmp_path):
    rng = random.Random(77)
    _, blob = compile_rules(str(tmp_path), RULES)
    # A flow table of 64: the flood below overflows it many times.
    router = net.KeelRouter("h", blob, extra="ct_max=64 stats=1")
    try:
        side_a, side_b = router.sides
        # A connection that must survive the flood (assured flows are not evicted).
        server = subprocess.Popen(["ip", "netns", "exec", side_b.name, net.DEBIAN_PYTHON, "-c", SERVER,
                                   "10.1.0.5", "2"], stdout=subprocess.PIPE, text=True)
        assert server.stdout.readline().strip() == "ready"
        sniffer = side_b.sniff(25)
        hostile = hostile_packets(rng)
        from scapy.layers.inet import IP, TCP
        flood = [("10.1.0.5", bytes(IP(src=f"10.0.0.{rng.randrange(1, 16)}", dst="10.1.0.5", id=54000 + n % 10000) /
                                    TCP(sport=rng.randrange(1024, 65535), dport=8080, flags="S")))
                 for n in range(600)]
        lines = "".join(f"{dst} {data.hex()}\n" for dst, data in hostile + flood)
        subprocess.run(["ip", "netns", "exec", side_a.name, net.DEBIAN_PYTHON, "-c", net.SENDER, "0.001"],
                       input=lines, text=True, check=True, capture_output=True, timeout=120)
        after = side_a.sh(f"{net.DEBIAN_PYTHON} -c '{CLIENT}' 10.1.0.5 8080 50000", check=False, timeout=60)
        assert after.stdout.strip() == "ok", after.stdout + after.stderr
        ping = side_a.sh("ping -n -c 2 -W 3 10.1.0.5", check=False)
        assert " 0% packet loss" in ping.stdout, ping.stdout
        frames, _ = sniffer.communicate(timeout=60)
        server.kill()
        server.wait()
        import json
        arrived = [json.loads(line) for line in frames.splitlines() if line.startswith("{")]
        for f in arrived:
            if f["proto"] in (6, 17):
                assert f.get("dport") in (7, 8080) or f.get("sport") in (7, 8080), f
            assert f["src"] != "10.0.0.254", f
        time.sleep(1.5)  # the next counters line
        output = router.guest.output()
        assert "panic" not in output.lower(), output[-3000:]
        # The flood overflowed the table, the malformed were counted, the fragments refused.
        last = {}
        for line in output.splitlines():
            for word in line.split()[2:]:
                if "=" in word:
                    key, value = word.split("=", 1)
                    last[key] = int(value) if value.isdigit() else value
        assert last.get("evicted", 0) > 0, output[-3000:]
        assert last.get("invalid_checksum", 0) >= 20, output[-3000:]
    finally:
        router.close()


def test_the_image_under_qemu_tracks_real_connections(tmp_path):
    """The same as the first test with the bootable image (microvm, TCG): it starts with the
    rules compiled into it (examples/firewall/rules.fw) and takes these over its management port."""
    _, blob = compile_rules(str(tmp_path), RULES)
    router = net.KeelRouter("i", blob, machine="microvm")
    try:
        router.load(blob)
        results = connections(router, [(8080, 100), (8080, 300_000), (8081, 100)])
        assert results == ["ok", "ok", "timeout"], results + [router.guest.output()[-2000:]]
    finally:
        router.close()

"""Keel's TCP against Linux's, through TAP devices in a namespace this test
makes (root only), for the Linux-process build and the image in QEMU (TCG):

    /usr/bin/python3 -m pytest -v test/net/test_tcp_linux.py
    KEEL_TCP_MB=100 /usr/bin/python3 -m pytest -v test/net/test_tcp_linux.py  # the issue's 100 MiB

- transfers both ways through tcp_echo, checked with sha256, clean and
  through the impairment relay (loss 1% and 5%, 20 ms delay, reordering,
  duplication). KEEL_TCP_MB sets the MiB sent each way (and fetched by
  curl, and exchanged with the Linux server); without it each condition
  uses a CI size of 1-8 MiB, which keeps the whole file near 2 minutes
  (docs/net/tcp.md, "Testing against Linux");
- nc, curl and iperf3 (-R, -P 4) as clients; Keel as the client of a
  Linux server (KEEL_TCP_IPERF_SECONDS, 2 by default, per iperf3 run);
- a SYN flood (hping3) at a listener for 10 s while an established
  connection keeps echoing and new connections are accepted;
- 10,000 connections held open against an image with 64 MiB.
The kernel here has no sch_netem, so impairments come from a relay
(bench/tcp/impair.c; docs/decisions/0043). Topology: tcp_harness.py.
"""
import json
import os
import re
import subprocess
import time

import pytest

from tcp_harness import (HOST, KEEL, LINUX_TSO_OFF, PYTHON, TSO_OFF, Net, echo_transfer, pattern,
                         run, sha256)

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root for netns and TAP")

MB = 1 << 20
# KEEL_TCP_MB: MiB each way for every transfer (100 for the figure).
FULL_MB = int(os.environ["KEEL_TCP_MB"]) if os.environ.get("KEEL_TCP_MB") else None
IPERF_SECONDS = int(os.environ.get("KEEL_TCP_IPERF_SECONDS", "2"))
FLOOD_SECONDS = 10
ECHO = "examples/tcp_echo"
IPERF = "examples/iperf3"
PLATFORMS = ["linux", "kvm"]
# The image and the Linux-process build (its TAP with IFF_VNET_HDR, decision 0094) move 64 KiB
# segments unless told tso=off: both ways (decisions 0092, 0093).
TCP_PLATFORMS = [*PLATFORMS, TSO_OFF, LINUX_TSO_OFF]

# (name, relay arguments or None for a direct TAP, bytes each way in CI,
#  the relay's count that must have moved)
CONDITIONS = [
    ("clean", None, 8 * MB, None),
    ("loss1", "--loss 0.01 --seed 1", 2 * MB, "dropped"),
    ("loss5", "--loss 0.05 --seed 2", 1 * MB, "dropped"),
    ("delay20", "--delay 20", 2 * MB, "delay"),
    ("reorder", "--reorder 0.05 --delay 5 --seed 3", 2 * MB, "reordered"),
    ("duplicate", "--duplicate 0.05 --delay 1 --seed 4", 2 * MB, "duplicated"),
]


@pytest.fixture
def net_for(request):
    nets = []

    def make(impair=None):
        nets.append(Net(impair))
        return nets[-1]

    yield make
    for n in nets:
        n.close()


@pytest.mark.parametrize("platform", TCP_PLATFORMS)
@pytest.mark.parametrize("name,impair,size,effect", CONDITIONS, ids=[c[0] for c in CONDITIONS])
def test_echo_both_ways_sha256(net_for, platform, name, impair, size, effect):
    net = net_for(impair)
    net.keel(ECHO, platform, ready="listening on")
    if effect == "delay":  # the relay holds each frame 20 ms, so a round trip takes 40
        ping = net.sh(f"ping -n -c 3 -i 0.2 -W 2 {KEEL}", timeout=30).stdout
        assert min(float(t) for t in re.findall(r"time=([\d.]+) ms", ping)) >= 40, ping
    size = FULL_MB * MB if FULL_MB else size
    sent, sent_sha, got, got_sha, seconds = echo_transfer(net, size, timeout=1800)
    assert (got, got_sha) == (sent, sent_sha), f"{name}: {got} of {sent} bytes came back"
    counts = net.relay_counts() if impair else {}
    assert effect in (None, "delay") or counts[effect] > 0, f"the relay did nothing: {counts}"
    print(f"{platform} {name}: {size / MB:.0f} MiB each way in {seconds:.2f} s {counts}")


def test_nc(net_for):
    net = net_for()
    net.keel(ECHO, "linux", ready="listening on")
    out = net.sh(f"printf 'hello from nc\\n' | nc -N -w 5 {KEEL} 7", timeout=20)
    assert out.stdout == "hello from nc\n"


@pytest.mark.parametrize("platform", TCP_PLATFORMS)
def test_curl_downloads_over_http(net_for, platform):
    net = net_for()
    net.keel("test/net/services/tcp_http", platform, ready="listening on")
    size = (FULL_MB or 20) * MB
    out = net.sh(f"curl -s --max-time 900 -o /dev/stdout http://{KEEL}/{size} | sha256sum",
                 timeout=960)
    assert out.stdout.split()[0] == sha256(pattern(size))


@pytest.mark.parametrize("platform", TCP_PLATFORMS)
def test_iperf3_client(net_for, platform):
    """iperf3 as the client, forward, -R, -P 4 and -P 4 -R on one guest. A `-P 4` run against
    the image hung once in three clean CI runs (2026-11-24); not seen since the window-edge
    fixes in 700 runs of this sequence and 200 runs of bench/tcp/iperf3_repeat.py
    (bench/results/iperf3_repeat.md), so a run that does not end fails here."""
    seconds = IPERF_SECONDS
    net = net_for()
    net.keel(IPERF, platform, ready="listening on")
    for extra in ([], ["-R"], ["-P", "4"], ["-P", "4", "-R"]):
        command = ["iperf3", "-c", KEEL, "-t", str(seconds), "-J", *extra]
        out = run(net.args(command), timeout=seconds + 60, check=False)
        report = json.loads(out.stdout)
        assert "error" not in report, report.get("error")
        received = report["end"]["sum_received"]
        assert received["bytes"] > 0
        assert len(report["end"]["streams"]) == (4 if "-P" in extra else 1)
        print(f"{platform} iperf3 {' '.join(extra) or 'forward'}: "
              f"{received['bits_per_second'] / 1e6:.0f} Mbit/s")


# A Linux server for Keel's client: takes the pattern, sends the pattern.
SERVER = r"""
import hashlib, socket, sys, threading
size_in, size_out = int(sys.argv[1]), int(sys.argv[2])
block = bytes((j * 131 + (j >> 8) * 7) & 0xff for j in range(65536))
listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("10.0.0.1", 9000))
listener.listen(1)
print("ready", flush=True)
c, _ = listener.accept()
c.settimeout(120)
got = hashlib.sha256()
count = [0]
def reader():
    while True:
        b = c.recv(1 << 20)
        if not b:
            return
        got.update(b)
        count[0] += len(b)
t = threading.Thread(target=reader)
t.start()
left = size_out
while left:
    n = min(left, len(block))
    c.sendall(block[:n])
    left -= n
c.shutdown(socket.SHUT_WR)
t.join()
want = hashlib.sha256((block * (size_in // len(block) + 1))[:size_in]).hexdigest()
print("received", count[0], "ok" if got.hexdigest() == want else "BAD", flush=True)
"""


@pytest.mark.parametrize("platform", TCP_PLATFORMS)
@pytest.mark.parametrize("impair", [None, "--loss 0.01 --delay 2 --seed 7"], ids=["clean", "loss1"])
def test_keel_as_client_of_a_linux_server(net_for, platform, impair):
    net = net_for(impair)
    size = (FULL_MB or 4) * MB
    server = net.start([PYTHON, "-c", SERVER, str(size), str(size)], ready="ready")
    client = net.keel("test/net/services/tcp_client", platform,
                      args=f"connect={HOST}:9000 bytes={size}")
    status = net.wait_exit(client, timeout=600)
    net.wait_for(server, "received")
    assert f"received {size} ok" in net.output(server), net.output(server)
    # QEMU's exit status: (0+1)<<1|1.
    assert status == (0 if platform.startswith("linux") else 3), net.output(client)
    assert f"sent {size} received {size} wrong 0" in net.output(client), net.output(client)


# Connections that must keep working during the flood: one established
# connection echoes a line every 50 ms; a new one opens every 200 ms. A
# connect may need the SYN sent again (frames the host drops, below).
DURING_FLOOD = r"""
import socket, sys, time
seconds = float(sys.argv[1])
kept = socket.create_connection(("10.0.0.2", 7), timeout=10)
kept.settimeout(10)
end = time.monotonic() + seconds
echoes = opened = failed = 0
next_open = 0
while time.monotonic() < end:
    kept.sendall(b"ping\n")
    data = b""
    while len(data) < 5:
        data += kept.recv(16)
    echoes += data == b"ping\n"
    if time.monotonic() >= next_open:
        next_open = time.monotonic() + 0.2
        try:
            s = socket.create_connection(("10.0.0.2", 7), timeout=10)
            s.settimeout(10)
            s.sendall(b"new\n")
            opened += s.recv(16) == b"new\n"
            s.close()
        except OSError:
            failed += 1
    time.sleep(0.05)
print("echoes", echoes, "opened", opened, "failed", failed)
"""

# hping3's --flood sends as fast as one host core can (about 290,000 SYNs/s
# here), more than either build can take from its TAP on this 2-core host:
# QEMU under TCG takes about 115,000 frames/s, the Linux-process build
# (sharing the cores with hping3) about 235,000, and Linux's TAP queue
# drops the rest, legitimate SYNs and data included, before Keel sees
# them; that tests the host, not Keel. So hping3 waits 20 us between
# SYNs (about 38,000/s measured on an idle host: hundreds of times any
# listen backlog, so every new connection comes through a SYN cookie); the
# test checks that at least 10,000/s reached Keel and reports what the host
# dropped on the way (a few % when other work starves QEMU of CPU).
FLOOD_INTERVAL = ["-i", "u20"]
MIN_FLOOD_RATE = 10000


def tap_counters(net):
    """keel0's (frames sent to Keel, dropped on the way) from its statistics."""
    stats = json.loads(net.sh("ip -s -j link show keel0").stdout)[0]["stats64"]["tx"]
    return stats["packets"], stats["dropped"]


@pytest.mark.parametrize("platform", PLATFORMS)
def test_syn_flood_leaves_connections_working(net_for, platform):
    net = net_for()
    net.keel(ECHO, platform, ready="listening on")
    flood = subprocess.Popen(net.args(["hping3", *FLOOD_INTERVAL, "-S", "-p", "7", "-q", KEEL]),
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True)
    try:
        time.sleep(0.5)
        before = tap_counters(net)
        out = run(net.args([PYTHON, "-c", DURING_FLOOD, str(FLOOD_SECONDS)]),
                  timeout=FLOOD_SECONDS + 60)
        after = tap_counters(net)
    finally:
        os.killpg(flood.pid, 9)
        flood.wait()
    fields = out.stdout.split()
    echoes, opened, failed = int(fields[1]), int(fields[3]), int(fields[5])
    sent, dropped = after[0] - before[0], after[1] - before[1]
    print(f"{platform} under flood: {sent / FLOOD_SECONDS:.0f} frames/s reached Keel, "
          f"{dropped} dropped by the host; {echoes} echoes, {opened} new connections, "
          f"{failed} failed")
    assert sent > MIN_FLOOD_RATE * FLOOD_SECONDS, "the flood did not reach Keel"
    assert echoes > 0 and opened > 0
    assert failed == 0


# Opens N connections, has each echo a byte, holds them all, checks every
# one still echoes, then closes them. 10,000 bytes at once may find the
# image's buffer budget spent (docs/decisions/0041): those are dropped and
# come again after Linux's RTO backoff, so a reply may take many seconds.
MANY = r"""
import resource, selectors, socket, sys, time
n = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_NOFILE, (n + 1000, n + 1000))
socks = []
start = time.monotonic()
for i in range(n):
    s = socket.socket()
    s.settimeout(60)
    s.connect(("10.0.0.2", 7))
    socks.append(s)
opened = time.monotonic() - start
def echo_all(tag):
    good = 0
    for s in socks:
        s.sendall(tag)
    for s in socks:
        good += s.recv(8) == tag
    return good
first = echo_all(b"a")
time.sleep(2)
second = echo_all(b"b")
for s in socks:
    s.close()
print("opened", len(socks), "first", first, "second", second, "seconds", round(opened, 1))
"""


def test_ten_thousand_connections_on_64_mib(net_for):
    net = net_for()
    net.sh("sysctl -qw net.ipv4.ip_local_port_range='20000 60999'")
    net.keel(ECHO, "kvm", ready="listening on", memory="64M")
    n = 10000
    out = run(net.args([PYTHON, "-c", MANY, str(n)]), timeout=600, check=False)
    assert f"opened {n} first {n} second {n}" in out.stdout, out.stdout + out.stderr
    print(out.stdout.strip())

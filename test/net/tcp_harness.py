"""Keel's TCP against Linux's, for test/net/test_tcp_*.py and bench/tcp.

A network namespace the harness makes, with Keel on a TAP device keel0
(the Linux-process build attached to it, or an image in QEMU on it) and
Linux's TCP at 10.0.0.1:

    direct:   Keel ── keel0 (10.0.0.1) ── Linux
    impaired: Keel ── keel0 ── [impair] ── host0 (10.0.0.1) ── Linux

This machine's kernel has no netem, so losses, delay, reordering and
duplication come from bench/tcp/impair.c, a relay between keel0 and a
second TAP; everything is torn down (processes killed, namespace deleted)
even when a test fails.
"""
import hashlib
import os
import re
import signal
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from keelpy import build, qemu  # noqa: E402
from keelpy.netns import Netns  # noqa: E402

PYTHON = "/usr/bin/python3"  # Debian's, in the namespace
HOST = "10.0.0.1"
KEEL = "10.0.0.2"
IMPAIR_SOURCE = os.path.join(ROOT, "bench", "tcp", "impair.c")
IMPAIR = os.path.join(ROOT, "build", "tcp-tests", "impair")
TSO_OFF = "kvm-tso-off"  # a platform name for Net.keel: the image, TSO off
# The Linux-process build with tso=off: the TAP's offloads limited to checksums (decision 0094).
LINUX_TSO_OFF = "linux-tso-off"
_images = {}


def run(args, timeout=60, check=True, **kw):
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, check=check, **kw)


def service(directory, platform):
    """Builds a service once per session; returns the image or executable."""
    key = (directory, platform)
    if key not in _images:
        _images[key] = build.build(os.path.join(ROOT, directory), platform, quiet=True)
    return _images[key]


def impair_binary():
    if not os.path.exists(IMPAIR) or os.path.getmtime(IMPAIR) < os.path.getmtime(IMPAIR_SOURCE):
        os.makedirs(os.path.dirname(IMPAIR), exist_ok=True)
        run(["gcc", "-O2", "-Wall", "-o", IMPAIR, IMPAIR_SOURCE])
    return IMPAIR


class Net(Netns):
    """The namespace, the optional relay, and Keel running on keel0."""

    def __init__(self, impair=None, prefix="keel-tcp"):
        self.processes, self.logs, self.relay = [], [], None  # before: a failed start closes
        super().__init__(prefix)
        try:
            if impair is None:
                self.add_tap("keel0", f"{HOST}/24")
            else:
                self.add_tap("keel0")
                self.sh("sysctl -qw net.ipv6.conf.all.disable_ipv6=1")
                self.add_tap("host0", f"{HOST}/24")
                self.relay = self.start([impair_binary(), "keel0", "host0", *impair.split()],
                                        ready="impair:")
        except BaseException:
            self.close()
            raise

    args = Netns.exec_args  # the name the TCP and HTTP tests use

    def sh(self, command, timeout=60, check=True):
        return super().sh(command, timeout=timeout, check=check)

    def start(self, command, ready=None, timeout=60):
        log = tempfile.NamedTemporaryFile(prefix="keel-tcp-", suffix=".log", delete=False)
        process = subprocess.Popen(self.args(command), stdin=subprocess.DEVNULL, stdout=log,
                                   stderr=subprocess.STDOUT, start_new_session=True)
        self.processes.append(process)
        self.logs.append(log)
        if ready:
            self.wait_for(len(self.processes) - 1, ready, timeout)
        return len(self.processes) - 1

    def output(self, index):
        with open(self.logs[index].name, errors="replace") as f:
            return f.read()

    def wait_for(self, index, pattern, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if re.search(pattern, self.output(index)):
                return
            if self.processes[index].poll() is not None:
                raise AssertionError(f"exited ({self.processes[index].returncode}):\n"
                                     f"{self.output(index)}")
            time.sleep(0.05)
        raise AssertionError(f"no {pattern!r} within {timeout} s:\n{self.output(index)}")

    def keel(self, directory, platform, args="", ready=None, memory="128M", transport="mmio"):
        """Starts a service on keel0 as 10.0.0.2: the Linux-process build, or
        the image in QEMU (TCG, virtio-net on the TAP: over MMIO on microvm,
        "mmio-legacy" its version 1 interface, or with transport "pci" or
        "pci-legacy" over PCI on q35). "kvm-tso-off" and "linux-tso-off"
        are those with the setting tso=off (MSS-sized segments both ways)."""
        if platform in (TSO_OFF, LINUX_TSO_OFF):
            platform, args = platform.split("-")[0], f"tso=off {args}"
        append = f"ip={KEEL}/24 gw={HOST} {args}".strip()
        binary = service(directory, platform)
        if platform == "linux":
            command = [binary, "tap=keel0", *append.split()]
        else:
            extra = ["-netdev", "tap,id=n0,ifname=keel0,script=no,downscript=no"]
            if transport in ("mmio", "mmio-legacy"):
                machine = "microvm"
                extra += ["-device", "virtio-net-device,netdev=n0"]
                if transport == "mmio":
                    extra += ["-global", "virtio-mmio.force-legacy=false"]
            else:
                machine = "q35"
                legacy = ",disable-modern=on" if transport == "pci-legacy" else ""
                extra += ["-device", f"virtio-net-pci,netdev=n0,romfile={legacy}"]
            command = qemu.command(binary, machine, memory, 1, append, "tcg", extra)
        return self.start(command, ready=ready)

    def wait_exit(self, index, timeout):
        try:
            return self.processes[index].wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"still running after {timeout} s:\n{self.output(index)}")

    def relay_counts(self):
        """Stops the relay; returns what it did: {passed, dropped, duplicated, ...}."""
        process = self.processes[self.relay]
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=10)
        match = re.search(r"impair: (passed .*)", self.output(self.relay))
        assert match, self.output(self.relay)
        words = match[1].split()
        return {words[i]: int(words[i + 1]) for i in range(0, len(words) - 1, 2)}

    def close(self):
        for process in self.processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait(timeout=5)
        for log in self.logs:
            log.close()
            os.unlink(log.name)
        super().close()


# Sends `size` pseudo-random bytes to ADDR:PORT while reading what comes
# back, and prints the sha256 of both: the echo must return every byte.
ECHO_CLIENT = r"""
import hashlib, random, socket, sys, threading, time
addr, port, size, timeout = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
s = socket.create_connection((addr, port), timeout=30)
s.settimeout(timeout)
sent_hash, got_hash, got = hashlib.sha256(), hashlib.sha256(), [0]
def reader():
    while True:
        b = s.recv(1 << 20)
        if not b:
            return
        got_hash.update(b)
        got[0] += len(b)
t = threading.Thread(target=reader)
t.start()
start = time.monotonic()
rng = random.Random(size)
left = size
while left:
    chunk = rng.randbytes(min(left, 1 << 20))
    sent_hash.update(chunk)
    s.sendall(chunk)
    left -= len(chunk)
s.shutdown(socket.SHUT_WR)
t.join()
elapsed = time.monotonic() - start
print(f"sent {size} {sent_hash.hexdigest()} got {got[0]} {got_hash.hexdigest()} "
      f"seconds {elapsed:.2f}")
"""


def echo_transfer(net, size, timeout=600):
    """Runs ECHO_CLIENT in the namespace; returns (sent, sent_sha, got, got_sha, seconds)."""
    result = run(net.args([PYTHON, "-c", ECHO_CLIENT, KEEL, "7", str(size), "60"]),
                 timeout=timeout, check=False)
    match = re.search(r"sent (\d+) (\w+) got (\d+) (\w+) seconds ([\d.]+)", result.stdout)
    assert match, result.stdout + result.stderr
    return int(match[1]), match[2], int(match[3]), match[4], float(match[5])


def pattern(size, offset=0):
    """The stream test/net/services/tcp_client sends and expects."""
    block = bytes((j * 131 + (j >> 8) * 7) & 0xff for j in range(65536))
    whole, rest = divmod(size, len(block))
    data = block * whole + block[:rest]
    return data if offset == 0 else data[offset:]


def sha256(data):
    return hashlib.sha256(data).hexdigest()


PCAP_HEADER, PCAP_RECORD_HEADER = 24, 16


def pcap_frames(path):
    """(original length, captured bytes) of every frame in a classic pcap file."""
    with open(path, "rb") as f:
        data = f.read()
    frames, at = [], PCAP_HEADER
    while at + PCAP_RECORD_HEADER <= len(data):
        _, _, captured, original = struct.unpack_from("<IIII", data, at)
        at += PCAP_RECORD_HEADER
        frames.append((original, data[at:at + captured]))
        at += captured
    return frames

"""Boot the udp_echo image on TAP devices inside a network namespace the test
creates, and talk to it with real Linux tools. Everything is bounded in time
and torn down (QEMU killed, namespace deleted) even when a test fails."""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from keelpy import build, qemu  # noqa: E402
from keelpy.netns import PYTHON, Netns, run  # noqa: E402

UDP_ECHO = os.path.join(ROOT, "examples", "udp_echo")
_images = {}


def service_image(service=UDP_ECHO, platform="kvm"):
    """Builds a service directory once per session (udp_echo by default)."""
    key = platform if service == UDP_ECHO else (service, platform)
    if key not in _images:
        _images[key] = build.build(service, platform, quiet=True)
    return _images[key]


def udp_echo_image(platform="kvm"):
    return service_image(UDP_ECHO, platform)


class Namespace(Netns):
    """A fresh network namespace with TAP devices tap0, tap1, ... whose host
    side has address 10.0.<n>.1/24."""

    def __init__(self, taps=1, prefix="keel-net"):
        super().__init__(prefix)
        self.taps = [f"tap{i}" for i in range(taps)]
        try:
            for i, tap in enumerate(self.taps):
                self.add_tap(tap, f"{self.host(i)}/24")
        except BaseException:
            self.close()
            raise

    @staticmethod
    def host(i=0):
        return f"10.0.{i}.1"

    @staticmethod
    def guest(i=0):
        return f"10.0.{i}.2"


class Guest:
    """udp_echo in QEMU inside `ns`, one virtio-net per TAP device; or, with
    machine="linux", udp_echo built as a Linux process on the TAP devices."""

    def __init__(self, ns, machine="microvm", append=None, platform="kvm", modern=True,
                 ready=r"listening on", ready_count=None, timeout=60, device_options="",
                 service=UDP_ECHO, memory="128M"):
        self.ns = ns
        self.machine = machine
        self.log = tempfile.NamedTemporaryFile(prefix="keel-net-", suffix=".log", delete=False)
        if append is None:
            append = " ".join(f"ip{i}={ns.guest(i)}/24" for i in range(len(ns.taps)))
        if machine == "linux":
            # The linux-process build of the same service, on the same TAPs.
            taps = " ".join(f"tap{i}={tap}" for i, tap in enumerate(ns.taps))
            self._start(ns.exec_args([service_image(service, "linux"), *f"{taps} {append}".split()]))
            self._wait_ready(ready, ready_count, timeout)
            return
        extra = []
        for i, tap in enumerate(ns.taps):
            extra += ["-netdev", f"tap,id=n{i},ifname={tap},script=no,downscript=no"]
            mac = f"52:54:00:12:34:{0x56 + i:02x}"
            if machine == "microvm":
                extra += ["-device", f"virtio-net-device,netdev=n{i},mac={mac}"]
            else:
                legacy = "" if modern else ",disable-modern=on"
                extra += ["-device", f"virtio-net-pci,netdev=n{i},mac={mac},romfile={legacy}"
                                     f"{device_options}"]
        if machine == "microvm" and modern:
            extra += ["-global", "virtio-mmio.force-legacy=false"]
        args = qemu.command(service_image(service, platform), machine, memory, 1, append, "tcg", extra)
        self._start(ns.exec_args(args))
        self._wait_ready(ready, ready_count, timeout)

    def _start(self, args):
        self.started = time.monotonic()
        self.process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=self.log,
                                        stderr=subprocess.STDOUT, start_new_session=True)

    def _wait_ready(self, ready, ready_count, timeout):
        try:
            self.wait_for(ready, count=ready_count or len(self.ns.taps), timeout=timeout)
        except BaseException:
            self.close()
            raise

    def output(self):
        with open(self.log.name, errors="replace") as f:
            return f.read()

    def wait_for(self, pattern, count=1, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.output()
            if len(re.findall(pattern, text)) >= count:
                return text
            if self.process.poll() is not None:
                raise AssertionError(f"guest exited ({self.process.returncode}):\n{text}")
            time.sleep(0.05)
        raise AssertionError(f"no '{pattern}' x{count} within {timeout} s:\n{self.output()}")

    def close(self):
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)
        self.log.close()
        os.unlink(self.log.name)


# A UDP client for the echo service: sends each payload and waits for the
# identical datagram back. argv: address, timeout per datagram, sizes...
UDP_CLIENT = r"""
import socket, sys, os
addr, per_try = sys.argv[1], float(sys.argv[2])
sizes = [int(x) for x in sys.argv[3:]]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(per_try)
bad = []
for n in sizes:
    data = os.urandom(n)
    for attempt in range(3):     # ARP on the first one may take a moment
        s.sendto(data, (addr, 7))
        try:
            got = s.recv(70000)
            break
        except socket.timeout:
            got = None
    if got != data:
        bad.append(n)
print("bad", bad)
"""

# Sends `count` datagrams keeping `window` in flight, counts echoes.
UDP_STREAM = r"""
import socket, sys, time
addr, count, window, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
s.settimeout(2.0)
s.sendto(b"warm", (addr, 7)); s.recv(2048)
sent = received = 0
start = time.monotonic()
payload = b"x" * size
while received < count:
    while sent < count and sent - received < window:
        s.sendto(payload, (addr, 7)); sent += 1
    try:
        s.recv(2048); received += 1
    except socket.timeout:
        break
elapsed = time.monotonic() - start
print(f"sent {sent} received {received} seconds {elapsed:.3f}")
"""

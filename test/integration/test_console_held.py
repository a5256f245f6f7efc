"""A console nobody reads does not stop the service (decision 0114). The test
holds the console: in an image, the serial port goes to a Unix socket the
test stops reading (QEMU then leaves the UART busy); as a Linux process,
stdout is a pipe the test stops reading. The service floods the console
meanwhile, and its echoes keep coming back; once the test reads again, one
line reports what was dropped. (Before 0114 a full ring waited for the
device: the echoes stopped.)"""
import os
import re
import select
import signal
import socket
import subprocess
import tempfile
import time

import pytest

from netguest import ROOT, UDP_CLIENT, Namespace, service_image
from keelpy import qemu

SERVICE = os.path.join(ROOT, "test", "integration", "services", "console_flood_echo")
NOTICE = re.compile(r"Keel: console dropped (\d+) bytes \((\d+) writes\)")


class HeldConsole:
    """The service in `ns`, its console readable on demand (self.fd)."""

    def __init__(self, ns, platform):
        append = f"ip={ns.guest()}/24"
        self.text = ""
        self.sock = None
        if platform == "linux":
            args = ns.exec_args([service_image(SERVICE, "linux"), "tap0=tap0", append])
            self.process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                            stderr=subprocess.STDOUT, start_new_session=True)
            self.fd = self.process.stdout.fileno()
            return
        self.dir = tempfile.mkdtemp(prefix="keel-console-")
        path = os.path.join(self.dir, "serial")
        args = qemu.command(service_image(SERVICE, "kvm"), "microvm", "128M", 1, append, "tcg",
                            ["-netdev", "tap,id=n0,ifname=tap0,script=no,downscript=no",
                             "-device", "virtio-net-device,netdev=n0",
                             "-global", "virtio-mmio.force-legacy=false"])
        i = args.index("stdio")
        args[i - 1:i + 1] = ["-chardev", f"socket,id=con,path={path},server=on,wait=on",
                             "-serial", "chardev:con"]
        self.process = subprocess.Popen(ns.exec_args(args), stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                        start_new_session=True)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        deadline = time.monotonic() + 30
        while True:  # QEMU waits for this connection before it starts the guest
            try:
                self.sock.connect(path)
                break
            except (FileNotFoundError, ConnectionRefusedError):
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise
                time.sleep(0.05)
        self.fd = self.sock.fileno()

    def read_until(self, pattern, timeout=60):
        deadline = time.monotonic() + timeout
        while not re.search(pattern, self.text):
            left = deadline - time.monotonic()
            assert left > 0, f"no '{pattern}' within {timeout} s:\n{self.text[-3000:]}"
            if select.select([self.fd], [], [], left)[0]:
                chunk = os.read(self.fd, 1 << 16)
                assert chunk, f"console closed:\n{self.text[-3000:]}"
                self.text += chunk.decode(errors="replace")
        return self.text

    def close(self):
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)
        if self.sock:
            self.sock.close()


def udp(ns, payload_code, *sizes, per_try=2):
    client = UDP_CLIENT.replace("os.urandom(n)", payload_code)
    result = ns.python(client, ns.guest(), per_try, *sizes)
    return result.stdout + result.stderr


@pytest.mark.parametrize("platform", ["kvm", "linux"])
def test_a_service_flooding_a_console_nobody_reads_keeps_answering(platform):
    ns = Namespace(taps=1)
    guest = None
    try:
        guest = HeldConsole(ns, platform)
        guest.read_until(r"listening on")
        # From here on nobody reads the console: the flood fills the device's
        # buffer (socket or pipe), then the ring.
        assert "bad []" in udp(ns, "b'flood'", 5)
        # 100 echoes of 100 bytes while the service floods (each within
        # UDP_CLIENT's usual wait).
        assert "bad []" in udp(ns, "os.urandom(n)", *([100] * 100))
        assert "bad []" in udp(ns, "b'stop'", 4)
        out = guest.read_until(NOTICE.pattern)
        dropped = NOTICE.search(out)
        assert int(dropped.group(1)) > 0 and int(dropped.group(2)) > 0
        # Lines are whole: every flood line before and after the gap is complete.
        for line in out[:out.rindex("\n")].splitlines():
            if line.startswith("flood tick"):
                assert re.fullmatch(r"flood tick \d{6} line \d{4}: the service prints faster "
                                    r"than the port", line), line
    finally:
        if guest:
            guest.close()
        ns.close()

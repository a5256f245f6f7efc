"""Builds @NAME@, starts it with `keel run -p` (no root needed) and talks to it on localhost."""
import os
import re
import socket
import subprocess
import tempfile
import time

KEEL = os.environ.get("KEEL", "@KEEL@")
HERE = os.path.dirname(os.path.abspath(__file__))
GUEST_PORT = 7000


class Running:
    """`keel run` in the background until the service says it listens."""

    def __init__(self, kind, suffix):
        with socket.socket(socket.AF_INET, kind) as s:  # a port free right now
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        subprocess.run([KEEL, "build", HERE], check=True, timeout=600)
        self.log = tempfile.TemporaryFile()
        self.keel = subprocess.Popen(
            [KEEL, "run", HERE, "-p", f"127.0.0.1:{self.port}:{GUEST_PORT}{suffix}"],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while not re.search(rb"@NAME@: listening on", self.output()):
            assert self.keel.poll() is None and time.monotonic() < deadline, self.output()
            time.sleep(0.05)

    def output(self):
        self.log.seek(0)
        return self.log.read()

    def close(self):
        self.keel.terminate()  # keel stops QEMU and exits
        self.keel.wait(timeout=30)


def test_answers_a_datagram():
    service = Running(socket.SOCK_DGRAM, "/udp")
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.settimeout(10)
            s.sendto(b"ping", ("127.0.0.1", service.port))
            assert s.recv(2048) == b"@NAME@: ping"
    finally:
        service.close()

"""syslog=HOST[:PORT] (decision 0114): the image's console lines arrive at a
collector in the test's namespace as RFC 5424 messages over UDP, from the
image in QEMU (TCG) and the Linux-process build, to an IPv4 and an IPv6
collector. Debian has no RFC 5424 parser library and the PyPI one
(syslog-rfc5424-parser) is not in Debian, so each message is checked against
a strict expression written from the RFC's ABNF (section 6), then field by
field."""
import datetime
import os
import re
import select
import subprocess
import time

import pytest

from netguest import PYTHON, ROOT, UDP_CLIENT, Guest, Namespace

SERVICE = f"{ROOT}/test/integration/services/console_flood_echo"
PORT = 5514

# RFC 5424 §6: SYSLOG-MSG = HEADER SP STRUCTURED-DATA [SP MSG]. PRINTUSASCII
# is %d33-126; TIMESTAMP is NILVALUE or FULL-DATE "T" FULL-TIME (RFC 3339,
# at most 6 fraction digits); SD-ELEMENTs are matched loosely (Keel sends
# none); MSG is any octets.
PRINT = rb"[\x21-\x7e]"
SYSLOG_MSG = re.compile(
    rb"<(?P<pri>\d{1,3})>(?P<version>[1-9]\d{0,2}) "
    rb"(?P<timestamp>-|\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])"
    rb"T(?:[01]\d|2[0-3]):[0-5]\d:(?:[0-5]\d|60)(?:\.\d{1,6})?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)) "
    rb"(?P<hostname>-|" + PRINT + rb"{1,255}) (?P<app>-|" + PRINT + rb"{1,48}) "
    rb"(?P<procid>-|" + PRINT + rb"{1,128}) (?P<msgid>-|" + PRINT + rb"{1,32}) "
    rb"(?P<sd>-|(?:\[" + PRINT + rb"{1,32}(?: [^\]]*)?\])+)(?: (?P<msg>.*))?", re.S)

# Prints each datagram it gets as one line of hex.
RECEIVER = r"""
import socket, sys
family = socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET
s = socket.socket(family, socket.SOCK_DGRAM)
s.bind((sys.argv[1], int(sys.argv[2])))
print("ready", flush=True)
while True:
    print(s.recv(65536).hex(), flush=True)
"""


class Lines:
    """Lines from a pipe, each read by a deadline (never a blocking readline)."""

    def __init__(self, fd):
        self.fd, self.buffer = fd, b""

    def next(self, deadline):
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            assert left > 0 and select.select([self.fd], [], [], left)[0], "nothing more came"
            chunk = os.read(self.fd, 65536)
            assert chunk, "the receiver exited"
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode().strip()


def check(datagram):
    """The message's fields, after the ABNF and the RFC's ranges."""
    m = SYSLOG_MSG.fullmatch(datagram)
    assert m, datagram
    assert int(m["pri"]) <= 191  # PRIVAL: facility * 8 + severity
    return m


@pytest.mark.parametrize("platform,family", [("kvm", 4), ("linux", 4), ("kvm", 6), ("linux", 6)])
def test_console_lines_arrive_as_rfc5424_messages(platform, family):
    ns = Namespace(taps=1)
    receiver = guest = None
    try:
        if family == 6:
            ns.sh("ip -6 addr add fd00::1/64 dev tap0 nodad")
            collector, listen, append = f"[fd00::1]:{PORT}", "fd00::1", "ip=10.0.0.2/24,fd00::2/64"
        else:
            collector, listen, append = f"{ns.host()}:{PORT}", ns.host(), f"ip={ns.guest()}/24"
        receiver = subprocess.Popen(ns.exec_args([PYTHON, "-c", RECEIVER, listen, str(PORT)]),
                                    stdout=subprocess.PIPE, start_new_session=True)
        lines = Lines(receiver.stdout.fileno())
        assert lines.next(time.monotonic() + 30) == "ready"
        # With IPv6, lines printed before the address is up (duplicate address
        # detection) are counted as failed sends: start once it is.
        guest = Guest(ns, machine="linux" if platform == "linux" else "microvm",
                      append=f"{append} syslog={collector}", service=SERVICE,
                      ready=r"link-local" if family == 6 else r"listening on")
        marker = f"syslog marker {time.time_ns()}"
        said = ns.python(UDP_CLIENT.replace("os.urandom(n)", f"b'say {marker}'"), ns.guest(), 5, 1)
        assert "bad []" in said.stdout, said.stdout + said.stderr
        messages = []
        deadline = time.monotonic() + 60
        while not any(marker.encode() in m for m in messages):
            messages.append(bytes.fromhex(lines.next(deadline)))
        texts = []
        for datagram in messages:
            m = check(datagram)
            assert m["pri"] == b"30" and m["version"] == b"1"  # daemon.info, RFC 5424
            assert m["hostname"] == b"10.0.0.2" and m["app"] == b"keel"
            assert m["procid"] == m["msgid"] == m["sd"] == b"-"
            # The image knows the time (kvmclock or the RTC QEMU sets from the host's).
            stamp = datetime.datetime.fromisoformat(m["timestamp"].decode().replace("Z", "+00:00"))
            skew = abs(stamp - datetime.datetime.now(datetime.timezone.utc))
            assert skew < datetime.timedelta(minutes=1), m["timestamp"]
            texts.append(m["msg"].decode())
        assert texts[-1] == marker
        if family == 4:  # printed as the stack came up, parked while ARP resolved
            assert any(t.startswith("console_flood_echo: listening on") for t in texts), texts
    finally:
        if guest:
            guest.close()
        if receiver:
            receiver.kill()
            receiver.wait()
        ns.close()

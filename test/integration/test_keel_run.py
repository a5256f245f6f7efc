"""`keel run -p`: an image on QEMU's user-mode network, reached from localhost through
forwarded ports, started by a user who is not root (no TAP, no namespace)."""
import os
import pwd
import signal
import socket
import subprocess

import pytest

from conftest import ROOT, image
from keel_process import KeelProcess
from netguest import service_image, udp_echo_image
from test_keel_tool import keel

TCP_ECHO = os.path.join(ROOT, "examples", "tcp_echo")
READY = r"listening on 10\.0\.2\.15:7"  # the address slirp's DHCP hands out
USER = "nobody"  # any user without root; Debian always has this one


def free_port(kind):
    """A port the kernel just gave out on loopback: unlikely to be taken again at once."""
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def as_user():
    """Runs keel as USER when we are root, so that the run proves it needs no root."""
    if os.geteuid() != 0:
        return None
    pwd.getpwnam(USER)
    return USER


def port_is_free(kind, port):
    with socket.socket(socket.AF_INET, kind) as s:
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


@pytest.mark.parametrize("spec,message", [
    ("8080", "expected [HOSTADDR:]HOSTPORT:GUESTPORT[/udp]"),
    ("70000:80", "port 70000 is not between 1 and 65535"),
    ("8080:80/sctp", "protocol 'sctp' is not tcp or udp"),
    ("::1:8080:80", "expected [HOSTADDR:]HOSTPORT:GUESTPORT[/udp]"),
    ("300.0.0.1:8080:80", "'300.0.0.1' is not an IPv4 address"),
])
def test_a_bad_forward_is_refused(spec, message):
    result = keel("run", image("hello"), "-p", spec)
    assert result.returncode == 2
    assert message in result.stderr


def test_udp_echo_answers_on_localhost_and_ctrl_c_stops_it():
    port = free_port(socket.SOCK_DGRAM)
    run = KeelProcess(["run", udp_echo_image(), "-p", f"127.0.0.1:{port}:7/udp"], user=as_user())
    try:
        run.wait_for(READY)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.settimeout(10)
            s.sendto(b"through slirp", ("127.0.0.1", port))
            assert s.recvfrom(100) == (b"through slirp", ("127.0.0.1", port))
        assert "DHCP lease 10.0.2.15" in run.output()
        qemu = run.qemu()
        run.signal_group(signal.SIGINT)  # Ctrl-C
        assert run.wait() == 130, run.output()
        assert not os.path.exists(f"/proc/{qemu}"), "QEMU still runs"
        assert port_is_free(socket.SOCK_DGRAM, port)  # QEMU's forward is gone with it
    finally:
        run.close()


def test_tcp_echo_answers_nc_on_localhost():
    port = free_port(socket.SOCK_STREAM)
    run = KeelProcess(["run", service_image(TCP_ECHO), "-p", f"{port}:7", "--timeout", "120"],
                      user=as_user())
    try:
        run.wait_for(READY)
        assert f"keel: 127.0.0.1:{port}/tcp -> guest port 7" in run.output()
        # -N: half-close after the input, so the echo ends the connection and nc exits.
        nc = subprocess.run(["nc", "-N", "-w", "10", "127.0.0.1", str(port)], input="hello, tcp\n",
                            capture_output=True, text=True, timeout=30)
        assert nc.stdout == "hello, tcp\n", nc.stdout + nc.stderr + run.output()
    finally:
        run.close()


def test_a_taken_port_is_a_clear_failure():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = keel("run", image("hello"), "-p", f"{port}:80", "--timeout", "60")
    assert result.returncode == 254, result.stdout + result.stderr
    assert f"127.0.0.1:{port}" in result.stdout + result.stderr

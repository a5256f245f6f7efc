"""The first hour of a new user (issue 21): what `keel boot` says and does when a network
service has no NIC, with --platform linux, and when it is stopped."""
import os
import re
import signal
import time

import pytest

from conftest import ROOT, image
from keel_process import KeelProcess
from netguest import UDP_CLIENT, Namespace
from test_keel_tool import keel

NO_NIC = "no network interface"

# Whether the TAP named argv[1] is free: a TAP (without multi-queue) takes one owner at a
# time, so attaching fails with EBUSY while a QEMU still holds it.
TAP_FREE = r"""
import errno, fcntl, os, struct, sys
TUNSETIFF, IFF_TAP, IFF_NO_PI = 0x400454CA, 0x0002, 0x1000
fd = os.open("/dev/net/tun", os.O_RDWR)
try:
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", sys.argv[1].encode(), IFF_TAP | IFF_NO_PI))
    print("free")
except OSError as e:
    print("busy" if e.errno == errno.EBUSY else f"error {e.errno}")
"""


@pytest.mark.parametrize("platform", ["kvm", "linux"])
def test_a_network_service_without_a_nic_says_so(platform):
    # first_nic asks for interface 0 as docs/net/README.md does; with no NIC the image used to
    # die of an uncaught std::out_of_range (a panic, status 70).
    result = keel("boot", image("first_nic", platform), "--platform", platform, "--timeout", "60")
    out = result.stdout + result.stderr
    assert result.returncode == 78, out  # EX_CONFIG, src/kernel/kernel.hpp
    assert f"Keel: {NO_NIC}:" in out
    assert ("tap0=NAME" if platform == "linux" else "keel run -p") in out
    assert "panic" not in out and "out_of_range" not in out


@pytest.mark.parametrize("platform", ["kvm", "linux"])
def test_a_bad_network_setting_says_which_and_stops(platform):
    result = keel("boot", image("first_nic", platform), "--platform", platform,
                  "--append", "ip=10.0.0.2/24 gw=nonsense", "--timeout", "60")
    out = result.stdout + result.stderr
    assert result.returncode == 78, out  # was a panic (70) with a backtrace
    assert "Keel: net config: gw" in out and "nonsense" in out, out
    assert "panic" not in out


def test_the_linux_process_gets_the_command_line_the_image_gets():
    append = 'ip=10.0.0.2/24 name="two  words" back\\ slash'
    lines = {}
    for platform in ("kvm", "linux"):
        result = keel("boot", image("args", platform), "--platform", platform, "--append", append,
                      "--timeout", "60")
        assert result.returncode == 0, result.stdout + result.stderr
        lines[platform] = [line for line in result.stdout.splitlines()
                           if line.startswith(("cmdline:", "arg:"))]
    assert lines["linux"] == lines["kvm"]
    assert "arg: [name=two  words]" in lines["linux"]


def test_the_linux_process_is_stopped_by_timeout():
    started = time.monotonic()
    result = keel("boot", image("idle", "linux"), "--platform", "linux", "--timeout", "1")
    assert result.returncode == 124, result.stdout + result.stderr
    assert "did not exit within 1.0 s; stopped it" in result.stdout
    assert time.monotonic() - started < 50  # idle itself waits 60 s


def test_the_linux_process_refuses_vm_options():
    result = keel("boot", image("idle", "linux"), "--platform", "linux", "--memory", "16M",
                  "--machine", "pc")
    assert result.returncode == 2
    assert "--machine, --memory: not for --platform linux" in result.stderr


def test_the_linux_process_runs_on_tap():
    from netguest import udp_echo_image
    program = udp_echo_image("linux")
    ns = Namespace()
    try:
        run = KeelProcess(["boot", program, "--platform", "linux", "--tap", ns.taps[0],
                           "--append", f"ip={ns.guest()}/24"], prefix=ns.exec_args([]))
        try:
            run.wait_for(r"listening on 10\.0\.0\.2:7")
            echo = ns.python(UDP_CLIENT, ns.guest(), 1.0, 1, 100)
            assert "bad []" in echo.stdout, echo.stdout + echo.stderr + run.output()
        finally:
            run.close()
    finally:
        ns.close()


@pytest.mark.parametrize("signum,status", [(signal.SIGTERM, 143), (signal.SIGINT, 130),
                                           (signal.SIGHUP, 129)])
def test_a_signal_stops_qemu_and_frees_the_tap(signum, status):
    from netguest import udp_echo_image
    ns = Namespace()
    try:
        run = KeelProcess(["boot", udp_echo_image(), "--tap", ns.taps[0], "--accel", "tcg",
                           "--append", f"ip={ns.guest()}/24"], prefix=ns.exec_args([]))
        try:
            run.wait_for("listening on")
            qemu = run.qemu()
            assert ns.python(TAP_FREE, ns.taps[0]).stdout.strip() == "busy"
            if signum == signal.SIGTERM:
                run.process.send_signal(signum)  # kill(1), systemd, a CI runner: keel alone
            else:  # Ctrl-C, or the terminal closing: its foreground group gets the signal
                run.signal_group(signum)
            assert run.wait() == status, run.output()
            assert not os.path.exists(f"/proc/{qemu}"), "QEMU still runs"
            assert ns.python(TAP_FREE, ns.taps[0]).stdout.strip() == "free"
            assert "stopping the guest" in run.output()
        finally:
            run.close()
    finally:
        ns.close()


def test_the_readme_lists_every_example():
    with open(os.path.join(ROOT, "README.md")) as f:
        section = f.read().split("## Examples", 1)[1].split("\n## ", 1)[0]
    listed = set(re.findall(r"^\| `([\w-]+)` \|", section, re.MULTILINE))
    examples = {name for name in os.listdir(os.path.join(ROOT, "examples"))
                if os.path.isdir(os.path.join(ROOT, "examples", name))}
    assert listed == examples, f"README.md's examples table: missing {examples - listed}, " \
                               f"not in examples/ {listed - examples}"

"""`keel run --net bridge=NAME` and `--net tap[=NAME]` (root, decision 0123): the guest on a
TAP device keel makes, on a bridge in a namespace the test makes or alone; a Linux peer pings
it and reaches the echo service; the guest's address comes from DHCP (dnsmasq on the bridge)
or from --append; keel removes its TAP when SIGTERM or Ctrl-C ends it, and refuses, having
made nothing, when it is not root, the bridge is missing or the TAP's name is taken."""
import os
import re
import shutil
import signal
import subprocess

import pytest

from conftest import KEEL, image
from keel_process import KeelProcess
from netguest import UDP_CLIENT, udp_echo_image
from test_keel_run import as_user
from test_keel_tool import keel

from keelpy.netns import Netns

needs_root = pytest.mark.skipif(os.geteuid() != 0,
                                reason="namespaces, bridges and TAP devices need root")
BRIDGE = "kbr0"
HOST, PEER, GUEST = "10.77.0.1", "10.77.0.3", "10.77.0.2"
TAP_LINE = r"keel: TAP (\S+) "


@pytest.fixture
def ns():
    with Netns(prefix="keel-deploy-run") as namespace:
        yield namespace


def keel_command(*args):
    return [KEEL, "run", image("hello"), *args]


def links(ns):
    """The namespace's network devices, by name."""
    out = ns.run(["ip", "-o", "link", "show"]).stdout
    return [line.split(":")[1].strip().split("@")[0] for line in out.splitlines()]


def keel_in(ns, *args):
    return KeelProcess(["run", udp_echo_image(), *args, "--timeout", "300"],
                       prefix=ns.exec_args([]))


def echo_and_ping(ns, address):
    """From `ns`: two pings and UDP echoes of 1, 100 and 1400 bytes to the guest."""
    ping = ns.run(["ping", "-n", "-c", "2", "-W", "5", address], timeout=60, check=False)
    assert " 0% packet loss" in ping.stdout, ping.stdout + ping.stderr
    echo = ns.python(UDP_CLIENT, address, 5, 1, 100, 1400)
    assert echo.stdout.strip() == "bad []", echo.stdout + echo.stderr


@needs_root
@pytest.mark.skipif(shutil.which("dnsmasq") is None, reason="dnsmasq not installed")
def test_on_a_bridge_by_dhcp_a_peer_reaches_it_and_sigterm_removes_the_tap(ns):
    ns.add_bridge(BRIDGE, f"{HOST}/24")
    peer = ns.veth_peer(None, f"{PEER}/24", dev="kpeer0", peer_dev="kpeer1", bridge=BRIDGE)
    dnsmasq = ns.popen(["dnsmasq", "--no-daemon", "--conf-file=/dev/null", "--port=0",
                        f"--interface={BRIDGE}", "--bind-interfaces", "--leasefile-ro",
                        f"--dhcp-range={GUEST},{GUEST},255.255.255.0,2m"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       start_new_session=True)
    run = keel_in(ns, "--net", f"bridge={BRIDGE}")
    try:
        run.wait_for(rf"listening on {re.escape(GUEST)}:7", timeout=120)
        output = run.output()
        assert f"DHCP lease {GUEST}" in output, output
        assert "asks for its address by DHCP" in output
        tap = re.search(TAP_LINE + f"on bridge {BRIDGE}", output).group(1)
        master = ns.run(["ip", "-o", "link", "show", tap]).stdout
        assert f"master {BRIDGE}" in master, master
        echo_and_ping(peer, GUEST)  # a Linux peer across the bridge
        qemu = run.qemu()
        run.process.send_signal(signal.SIGTERM)  # to keel alone, as a service manager would
        assert run.wait() == 143, run.output()
        assert not os.path.exists(f"/proc/{qemu}"), "QEMU still runs"
        assert tap not in links(ns), run.output()
        assert f"keel: removed TAP {tap}" in run.output()
    finally:
        run.close()
        os.killpg(dnsmasq.pid, signal.SIGTERM)
        dnsmasq.wait(timeout=10)
        peer.close()


@needs_root
@pytest.mark.parametrize("net", ["tap=kdtap0", "tap"])
def test_a_tap_alone_with_a_static_address_and_ctrl_c_removes_it(ns, net):
    run = keel_in(ns, "--net", net, "--append", f"ip={GUEST}/24")
    try:
        run.wait_for(rf"listening on {re.escape(GUEST)}:7", timeout=120)
        tap = re.search(TAP_LINE, run.output()).group(1)  # the name given, or keel's own
        assert tap == (net.partition("=")[2] or f"keel{run.process.pid}"), run.output()
        ns.sh(f"ip addr add {HOST}/24 dev {tap}")  # this side of the TAP, as the user would
        echo_and_ping(ns, GUEST)
        run.signal_group(signal.SIGINT)  # Ctrl-C
        assert run.wait() == 130, run.output()
        assert tap not in links(ns), run.output()
    finally:
        run.close()


@needs_root
def test_a_missing_bridge_or_a_taken_name_is_refused_and_nothing_is_made(ns):
    refused = subprocess.run(ns.exec_args(keel_command("--net", "bridge=nobr0")),
                             capture_output=True, text=True, timeout=300)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "there is no bridge nobr0" in refused.stderr
    ns.add_tap("taken0")
    refused = subprocess.run(ns.exec_args(keel_command("--net", "tap=taken0")),
                             capture_output=True, text=True, timeout=300)
    assert refused.returncode == 2 and "a device taken0 exists already" in refused.stderr
    assert "keel boot --tap taken0" in refused.stderr
    assert sorted(links(ns)) == ["lo", "taken0"]  # nothing made, the TAP not taken away


def test_without_root_it_is_refused():
    args = keel_command("--net", "bridge=br0")
    if os.geteuid() == 0:
        args = ["runuser", "-u", as_user(), "--", *args]
    result = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "needs root" in result.stderr and "keel run -p" in result.stderr


def test_forwards_belong_to_the_user_network():
    result = keel("run", image("hello"), "--net", "tap", "-p", "8080:80")
    assert result.returncode == 2
    assert "-p forwards ports of QEMU's user-mode network" in result.stderr
    result = keel("run", image("hello"), "--net", "br0")
    assert result.returncode == 2 and "expected user, bridge=NAME, tap or tap=NAME" in result.stderr

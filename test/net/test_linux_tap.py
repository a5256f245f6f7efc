"""The network stack as a Linux process on TAP devices, against real Linux
tools in a network namespace this test creates (run as root):

    /usr/bin/python3 -m pytest -v test/net/test_linux_tap.py

Builds examples/udp_echo for the linux platform (UDP echo on port 7 of every
interface), runs it inside the namespace with `tap=keel0 ip=10.0.0.2/24`, and
checks ping (0..8000 bytes, fragmented both ways), flood ping, arping, UDP
echo of 1..1472 bytes and fragmented datagrams, DHCP lease and renewal from
dnsmasq, two NICs on two subnets, and a memory-limited cgroup.
"""
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from keelpy.netns import Netns  # noqa: E402

BUILD = os.path.join(ROOT, "build", "net-linux-udp_echo")
HOST_IP = "10.0.0.1"
KEEL_IP = "10.0.0.2"

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root for netns and TAP")


def run(*args, timeout=30, check=True, **kw):
    return subprocess.run(list(args), capture_output=True, text=True, timeout=timeout,
                          check=check, **kw)


@pytest.fixture(scope="module")
def echo_binary():
    source = os.path.join(ROOT, "examples", "udp_echo")
    if not os.path.exists(os.path.join(source, "service.cpp")):
        source = os.path.join(ROOT, "test", "net", "services", "udp_echo")
    run("cmake", "-S", source, "-B", BUILD, "-G", "Ninja", f"-Dkeel_DIR={ROOT}/cmake",
        "-DKEEL_PLATFORM=linux", timeout=300)
    run("cmake", "--build", BUILD, "-j2", timeout=600)
    return os.path.join(BUILD, "udp_echo")


class Service:
    """The echo service running in the namespace; output collected in a file."""

    def __init__(self, ns, binary, *args, wait_for="listening on", timeout=15):
        self.log = open(f"/tmp/{ns.name}-{len(args)}.log", "w+")
        self.proc = ns.popen([binary, *args], stdout=self.log, stderr=subprocess.STDOUT,
                             start_new_session=True)
        self.wait_for(wait_for, timeout)

    def output(self):
        self.log.flush()
        with open(self.log.name) as f:
            return f.read()

    def wait_for(self, text, timeout, count=1):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.output().count(text) >= count:
                return
            assert self.proc.poll() is None, f"service exited:\n{self.output()}"
            time.sleep(0.05)
        raise AssertionError(f"no {text!r} x{count} within {timeout}s:\n{self.output()}")

    def stop(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=5)
        self.log.close()
        os.unlink(self.log.name)


@pytest.fixture
def ns():
    with Netns("keel-tap") as n:
        yield n


@pytest.fixture
def echo(ns, echo_binary):
    ns.add_tap("keel0", f"{HOST_IP}/24")
    service = Service(ns, echo_binary, "tap=keel0", f"ip={KEEL_IP}/24", f"gw={HOST_IP}")
    yield service
    service.stop()


def ping(ns, *args, timeout=60):
    return ns.run(["ping", "-n", *args, KEEL_IP], timeout=timeout, check=False)


def test_ping_sizes_0_to_8000(ns, echo):
    # Every size near the fragmentation edges, and a sweep up to 8000.
    sizes = sorted(set(list(range(0, 64)) + list(range(1400, 1500)) + list(range(2940, 2970))
                       + list(range(0, 8001, 97)) + [8000]))
    for size in sizes:
        r = ping(ns, "-c", "1", "-W", "2", "-s", str(size))
        assert r.returncode == 0, f"size {size}: {r.stdout}{r.stderr}"
        assert " 0% packet loss" in r.stdout, f"size {size}: {r.stdout}"


def test_flood_ping_loses_nothing(ns, echo):
    r = ping(ns, "-f", "-c", "10000", "-w", "60", timeout=90)
    assert "10000 received" in r.stdout and " 0% packet loss" in r.stdout, r.stdout + r.stderr


def test_flood_ping_fragmented(ns, echo):
    r = ping(ns, "-f", "-c", "1000", "-s", "4000", "-w", "60", timeout=90)
    assert " 0% packet loss" in r.stdout, r.stdout + r.stderr


def test_arping(ns, echo):
    r = ns.run(["arping", "-c", "3", "-w", "5", "-I", "keel0", KEEL_IP], timeout=20, check=False)
    assert r.returncode == 0 and "Received 3 response" in r.stdout, r.stdout + r.stderr


UDP_CLIENT = r"""
import socket, sys
sizes = [int(x) for x in sys.argv[2].split(",")]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(2)
bad = []
for n in sizes:
    payload = bytes((i * 7 + n) & 0xff for i in range(n))
    for attempt in range(3):
        s.sendto(payload, (sys.argv[1], 7))
        try:
            data, addr = s.recvfrom(70000)
        except socket.timeout:
            continue
        if data == payload and addr == (sys.argv[1], 7):
            break
    else:
        bad.append(n)
print("bad:", bad)
sys.exit(1 if bad else 0)
"""


def udp_echo_sizes(ns, sizes, timeout=120):
    r = ns.run(["/usr/bin/python3", "-c", UDP_CLIENT, KEEL_IP, ",".join(map(str, sizes))],
               timeout=timeout, check=False)
    assert r.returncode == 0, r.stdout + r.stderr


def test_udp_echo_1_to_1472(ns, echo):
    udp_echo_sizes(ns, range(1, 1473))


def test_udp_echo_fragmented(ns, echo):
    udp_echo_sizes(ns, [1473, 2000, 2953, 4000, 8000, 16000, 30000, 65507])


def test_udp_10000_echoes_lose_nothing(ns, echo):
    client = r"""
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(2)
got = 0
for i in range(10000):
    s.sendto(i.to_bytes(4, "big") * 16, (sys.argv[1], 7))
    data, _ = s.recvfrom(2048)
    got += data == i.to_bytes(4, "big") * 16
print(got)
sys.exit(0 if got == 10000 else 1)
"""
    r = ns.run(["/usr/bin/python3", "-c", client, KEEL_IP], timeout=120, check=False)
    assert r.returncode == 0, r.stdout + r.stderr


def test_closed_port_is_unreachable(ns, echo):
    client = r"""
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(2)
s.connect((sys.argv[1], 9))
s.send(b"x")
try:
    s.recv(100)
except ConnectionRefusedError:
    sys.exit(0)
sys.exit(1)
"""
    r = ns.run(["/usr/bin/python3", "-c", client, KEEL_IP], timeout=20, check=False)
    assert r.returncode == 0, "no ICMP port unreachable: " + r.stdout + r.stderr


@pytest.mark.skipif(shutil.which("dnsmasq") is None, reason="dnsmasq not installed")
def test_dhcp_lease_and_renewal(ns, echo_binary):
    ns.add_tap("keel0", f"{HOST_IP}/24")
    leases = f"/tmp/{ns.name}.leases"
    # 2 minutes is dnsmasq's shortest lease; dhcp_t1=3 makes the client
    # renew after 3 s instead of at T1 = 60 s.
    dnsmasq = ns.popen(["dnsmasq", "--no-daemon", "--conf-file=/dev/null", "--port=0",
                        "--interface=keel0", "--bind-interfaces", "--log-dhcp",
                        "--dhcp-range=10.0.0.50,10.0.0.60,255.255.255.0,2m",
                        f"--dhcp-option=3,{HOST_IP}", f"--dhcp-leasefile={leases}"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       start_new_session=True)
    service = None
    try:
        time.sleep(0.3)
        service = Service(ns, echo_binary, "tap=keel0", "ip=dhcp", "dhcp_t1=3",
                          wait_for="DHCP lease 10.0.0.", timeout=20)
        line = [l for l in service.output().splitlines() if "DHCP lease 10.0.0." in l][0]
        address = line.split()[3]
        service.wait_for("DHCP lease renewed", timeout=15, count=2)
        r = ns.run(["ping", "-n", "-c", "1", "-W", "2", address], timeout=60, check=False)
        assert r.returncode == 0, r.stdout
    finally:
        if service:
            service.stop()
        os.killpg(dnsmasq.pid, signal.SIGTERM)
        log = dnsmasq.communicate(timeout=10)[0]
        if os.path.exists(leases):
            os.unlink(leases)
    assert log.count("DHCPACK(keel0)") >= 3, log  # the lease and two renewals


def test_two_nics_on_two_subnets(ns, echo_binary):
    ns.add_tap("keel0", f"{HOST_IP}/24")
    ns.add_tap("keel1", "10.1.0.1/24")
    service = Service(ns, echo_binary, "tap=keel0", "tap1=keel1", f"ip={KEEL_IP}/24",
                      "ip1=10.1.0.2/24")
    try:
        service.wait_for("listening on", timeout=10, count=2)
        for address in (KEEL_IP, "10.1.0.2"):
            r = ns.run(["ping", "-n", "-c", "2", "-W", "2", address], timeout=60, check=False)
            assert " 0% packet loss" in r.stdout, r.stdout
            r = ns.run(["/usr/bin/python3", "-c", UDP_CLIENT, address, "1,1000,5000"],
                       timeout=30, check=False)
            assert r.returncode == 0, r.stdout + r.stderr
    finally:
        service.stop()


def test_embedded_config_and_command_line_override(ns):
    source = os.path.join(ROOT, "test", "net", "services", "configured_echo")
    build = os.path.join(ROOT, "build", "net-linux-configured_echo")
    run("cmake", "-S", source, "-B", build, "-G", "Ninja", f"-Dkeel_DIR={ROOT}/cmake",
        "-DKEEL_PLATFORM=linux", timeout=300)
    run("cmake", "--build", build, "-j2", timeout=600)
    binary = os.path.join(build, "udp_echo")
    ns.add_tap("keel0", f"{HOST_IP}/24")
    service = Service(ns, binary, "tap=keel0")  # address from net.json
    try:
        assert "10.0.0.7 netmask 255.255.255.0 gateway 10.0.0.1" in service.output()
        r = ns.run(["ping", "-n", "-c", "1", "-W", "2", "10.0.0.7"], timeout=60, check=False)
        assert r.returncode == 0, r.stdout
    finally:
        service.stop()
    service = Service(ns, binary, "tap=keel0", "ip=10.0.0.9/24")  # the command line wins
    try:
        assert "10.0.0.9 netmask 255.255.255.0 gateway 10.0.0.1" in service.output()
    finally:
        service.stop()
    r = ns.run([binary, "tap=keel0", "gw=10.0.0"], timeout=10, check=False)
    assert r.returncode == 78  # EX_CONFIG: how it was started, not a bug (decision 0111)
    assert "net config: gw: '10.0.0' is not an IPv4 address" in r.stdout + r.stderr


def memory_cgroup(name, limit):
    """A child of this process's own memory cgroup (v1's memory controller, or v2 where it is
    enabled for children) limited to `limit` bytes: (its folder, the file that takes a pid).
    Skips, saying why, where neither can be made."""
    lines = open("/proc/self/cgroup").read().splitlines()
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if "memory" in controllers.split(","):
            folder = f"/sys/fs/cgroup/memory{path.rstrip('/')}/{name}"
            limit_file = "memory.limit_in_bytes"
            break
    else:
        path = next(l.split(":", 2)[2] for l in lines if l.startswith("0::"))
        parent = f"/sys/fs/cgroup{path.rstrip('/')}"
        try:
            enabled = open(f"{parent}/cgroup.subtree_control").read().split()
        except OSError:
            enabled = []
        if "memory" not in enabled:
            pytest.skip("no memory cgroup controller available to this test's process")
        folder, limit_file = f"{parent}/{name}", "memory.max"
    try:
        os.mkdir(folder)
        with open(f"{folder}/{limit_file}", "w") as f:
            f.write(str(limit))
    except OSError as e:
        pytest.skip(f"cannot make a memory cgroup here: {e}")
    return folder


class InCgroup:
    """Starts a command in `ns`'s network namespace and in the cgroup `folder`. nsenter, not
    `ip netns exec`: that mounts a fresh /sys, without the cgroup filesystems the process reads
    its limit from (a container keeps its /sys/fs/cgroup)."""

    def __init__(self, ns, folder):
        self.name, self.folder = ns.name, folder

    def popen(self, args, **kw):
        return subprocess.Popen(["sh", "-c", f'echo $$ > {self.folder}/cgroup.procs && exec "$@"',
                                 "sh", "nsenter", f"--net=/run/netns/{self.name}", *args], **kw)


def test_in_a_memory_limited_cgroup_it_sizes_itself_to_the_limit(ns, echo_binary):
    # A container's memory limit (podman --memory, a pod's limit) is the process's memory:
    # sized to this 24 GiB host instead, its TCP tables alone held ~80 MB and the kernel killed
    # it under a 40 MiB limit.
    limit = 40 << 20
    folder = memory_cgroup(f"keel-memtest-{os.getpid()}", limit)
    service = None
    try:
        ns.add_tap("keel0", f"{HOST_IP}/24")
        service = Service(InCgroup(ns, folder), echo_binary, "tap=keel0", f"ip={KEEL_IP}/24",
                          f"gw={HOST_IP}")
        udp_echo_sizes(ns, [1, 1000, 1472, 8000])
        with open(f"/proc/{service.proc.pid}/status") as f:
            peak = int(next(l for l in f if l.startswith("VmHWM:")).split()[1]) * 1024
        assert peak < limit // 2, f"peak resident {peak} bytes under a {limit} byte limit"
    finally:
        if service:
            service.stop()
        os.rmdir(folder)

"""The routers `keel bench firewall-vm` measures, each between the same two namespaces:

  side A 10.0.0.1 ── ROUTER (10.0.0.254 | 10.1.0.254) ── side B 10.1.0.1 (UDP echo server)

- keel: examples/firewall built with the rule set compiled in, under QEMU (microvm, TCG);
- linux-vm: Debian's kernel in the Linux VM peer (bench/linux-vm, `run=router`) on the very
  same QEMU line, its rules loaded with `nft -f` at boot from an initramfs added to the peer's;
- linux-netns: this machine's kernel routing in a network namespace with the same rules.
The VM routers' TAPs are opened in a middle namespace and then moved to each side."""
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from keelpy.netns import Netns  # noqa: E402
PYTHON = "/usr/bin/python3"
SUBNETS = ("10.0.0", "10.1.0")
MEMORY = "512M"


def run(args, ns=None, **kwargs):
    prefix = ["ip", "netns", "exec", ns] if ns else []
    return subprocess.run(prefix + list(args), check=True, capture_output=True, text=True, **kwargs)


def sh(ns, command, check=True, timeout=120):
    return subprocess.run(["ip", "netns", "exec", ns, "sh", "-c", command], capture_output=True, text=True,
                          check=check, timeout=timeout)


class Topology:
    """Side namespaces A and B; `router_ns` holds the router's two interfaces (or its TAPs)."""

    def __init__(self, tag):
        self.a, self.b, self.middle = f"kfwb-{tag}-a", f"kfwb-{tag}-b", f"kfwb-{tag}-m"
        self.spaces = {}  # name: Netns
        try:
            for ns in (self.a, self.b, self.middle):
                subprocess.run(["ip", "netns", "del", ns], capture_output=True)  # a run's leftover
                self.spaces[ns] = Netns(name=ns)
            # tcp_rr crr closes first, so side A keeps every connection in TIME_WAIT for 60 s:
            # without reuse its ports ran out after one round, capping every router near 500 conn/s.
            sh(self.a, "sysctl -qw net.ipv4.ip_local_port_range='1024 65000' net.ipv4.tcp_tw_reuse=1")
        except BaseException:
            self.close()
            raise

    def side_up(self, ns, dev, index):
        other = SUBNETS[1 - index]
        sh(ns, f"ip link set {dev} up && ip addr add {SUBNETS[index]}.1/24 dev {dev} && "
               f"ip route add {other}.0/24 via {SUBNETS[index]}.254")

    def taps(self):
        for i in range(2):
            self.spaces[self.middle].add_tap(f"tap{i}")
        return ["tap0", "tap1"]

    def move_taps(self, timeout=30):
        # Only once QEMU holds them (carrier up): a TAP it opens by name after the move would be
        # a new, unconnected one in this namespace.
        deadline = time.monotonic() + timeout
        while any("NO-CARRIER" in sh(self.middle, f"ip -o link show tap{i}").stdout for i in range(2)):
            if time.monotonic() > deadline:
                raise RuntimeError("QEMU did not open its TAP devices")
            time.sleep(0.005)
        for i, ns in enumerate((self.a, self.b)):
            self.spaces[ns].take(f"tap{i}", self.spaces[self.middle])
            self.side_up(ns, f"tap{i}", i)

    def veths(self):
        sh(self.middle, "sysctl -q -w net.ipv4.ip_forward=1")
        for i, ns in enumerate((self.a, self.b)):
            self.spaces[self.middle].veth_to(self.spaces[ns], f"eth{i}", "side",
                                             f"{SUBNETS[i]}.254/24")
            self.side_up(ns, "side", i)

    def close(self):
        for space in self.spaces.values():
            space.close()


def qemu_tap_args(machine="microvm"):
    # Both VMs with virtio's EVENT_IDX (QEMU's default). It was off while Keel's transmit ring
    # stalled under a flood with it: QEMU 7.2's TCG dropped a one-vCPU guest's MFENCE, and
    # keelpy.qemu's maxcpus=2 for TCG guests keeps it for both VMs (decision 0091,
    # test_net_flood.py).
    args = []
    for i in range(2):
        args += ["-netdev", f"tap,id=n{i},ifname=tap{i},script=no,downscript=no",
                 "-device", f"virtio-net-device,netdev=n{i},mac=52:54:00:12:35:{0x10 + i:02x}"]
    return args + ["-global", "virtio-mmio.force-legacy=false"]


class Guest:
    """A QEMU router in the middle namespace; `launched` is when QEMU was started."""

    def __init__(self, topology, args, ready):
        self.log = tempfile.NamedTemporaryFile(prefix="kfwb-", suffix=".log", delete=False)
        self.launched = time.monotonic()
        self.process = subprocess.Popen(["ip", "netns", "exec", topology.middle, *args], stdout=self.log,
                                        stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        self.ready = ready

    def output(self):
        with open(self.log.name, errors="replace") as f:
            return f.read()

    def close(self):
        if self.process.poll() is None:
            os.killpg(self.process.pid, 9)
        self.process.wait()
        os.unlink(self.log.name)

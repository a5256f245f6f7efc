"""The DNS appliance (examples/dns) under test: built with a test's zone
folder compiled in, run as a Linux process on a TAP device or as an image in
QEMU, inside a network namespace the test creates (host side 10.53.0.1/24,
appliance 10.53.0.2, port 53). Everything is torn down, even on failure."""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, os.path.join(ROOT, "test", "integration"))
from keelpy import qemu  # noqa: E402
from netguest import Guest  # noqa: E402
from keelpy.netns import Netns  # noqa: E402

EXAMPLE = os.path.join(ROOT, "examples", "dns")


def run(args, timeout=60, check=True):
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, check=check)


def build(zones_dir, platform="linux", secondary=False):
    """examples/dns with `zones_dir` compiled in; returns the program or image. `secondary`:
    with the secondary role (-D KEEL_DNS_SECONDARY=ON, decision 0141), in a folder of its own."""
    out = os.path.join(ROOT, "build", f"dns-test-{platform}" + ("-secondary" if secondary else ""))
    configure = ["cmake", "-S", EXAMPLE, "-B", out, "-G", "Ninja", f"-Dkeel_DIR={ROOT}/cmake",
                 f"-DKEEL_PLATFORM={platform}", f"-DKEEL_DNS_ZONES={zones_dir}",
                 f"-DKEEL_DNS_SECONDARY={'ON' if secondary else 'OFF'}"]
    for step in (configure, ["cmake", "--build", out, "-j2"]):
        result = subprocess.run(step, capture_output=True, text=True, timeout=900)
        if result.returncode != 0:
            raise RuntimeError(f"{' '.join(step)} failed:\n{result.stdout[-5000:]}{result.stderr[-5000:]}")
    return os.path.join(out, "dns")


def host_ip(i=0):
    return f"10.53.{i}.1"


def guest_ip(i=0):
    return f"10.53.{i}.2"


class Namespace(Netns):
    """A fresh network namespace with TAP devices tap0, tap1, ... on 10.53.<n>.1/24."""

    def __init__(self, taps=1, prefix="keel-dns"):
        super().__init__(prefix)
        try:
            for i in range(taps):
                self.add_tap(f"tap{i}", f"{host_ip(i)}/24")
        except BaseException:
            self.close()
            raise

    def sh(self, command, timeout=60, check=True):
        return super().sh(command, timeout=timeout, check=check)


class Appliance:
    """The appliance on tap<tap> at guest_ip(tap): `program` (the Linux build) or `image`
    in QEMU (microvm, TCG)."""

    def __init__(self, ns, program=None, image=None, append="", memory="64M", tap=0, timeout=120,
                 ip6=None):
        self.log = tempfile.NamedTemporaryFile(prefix="keel-dns-", suffix=".log", delete=False)
        self.address = guest_ip(tap)
        # ip6 ("ADDR/LEN"): a static IPv6 address beside the IPv4 one (docs/net/ipv6.md).
        words = f"ip={self.address}/24{',' + ip6 if ip6 else ''} {append}".split()
        if program:
            args = ns.exec_args([program, f"tap=tap{tap}", *words])
        else:
            extra = ["-netdev", f"tap,id=n0,ifname=tap{tap},script=no,downscript=no",
                     "-device", "virtio-net-device,netdev=n0", "-global", "virtio-mmio.force-legacy=false"]
            args = ns.exec_args(qemu.command(image, "microvm", memory, 1, " ".join(words), "tcg", extra))
        self.process = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                        start_new_session=True)
        try:
            self.wait_for(r"dns: listening on", timeout=timeout)
        except BaseException:
            self.close()
            raise

    # Like udp_echo's guest (test/integration/netguest.py): the console in a
    # temporary file, the process in its own session, killed as a group.
    output = Guest.output
    wait_for = Guest.wait_for
    close = Guest.close

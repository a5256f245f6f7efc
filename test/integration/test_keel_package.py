"""`keel package --format libvirt`: the domain XML validates against libvirt's schema, and
libvirt's own QEMU driver (domain type 'qemu', TCG) boots it: hello's console reaches the log
file, udp_echo answers on a bridge the test makes (docs/deploy.md, decision 0112)."""
import os
import re
import shutil
import subprocess
import tempfile
import time

import pytest

from conftest import image
from libvirt_host import libvirtd, virsh  # noqa: F401 (libvirtd: a fixture)
from netguest import udp_echo_image
from test_keel_tool import keel

from keelpy.netns import Netns

BOOT_WAIT = 120   # s for a guest to boot and print under TCG on a loaded machine
SUFFIX = f"{os.getpid() % 100000}"

needs_root = pytest.mark.skipif(os.geteuid() != 0,
                                reason="libvirt's system daemon and the bridge need root")


@pytest.fixture
def readable_dir():
    """A directory libvirt's QEMU user (libvirt-qemu) can read: pytest's tmp_path is not."""
    path = tempfile.mkdtemp(prefix="keel-package-")
    os.chmod(path, 0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


class Domain:
    """A domain defined from `keel package`'s XML; destroyed and undefined on close."""

    def __init__(self, directory, image_path, name, *options):
        self.name = name
        self.kernel = os.path.join(directory, os.path.basename(image_path))
        shutil.copy(image_path, self.kernel)
        os.chmod(self.kernel, 0o644)
        self.xml = os.path.join(directory, f"{name}.xml")
        self.log = os.path.join(directory, f"{name}.console")
        result = keel("package", self.kernel, "--format", "libvirt", "--name", name,
                      "-o", self.xml, "--console-log", self.log, *options)
        assert result.returncode == 0, result.stdout + result.stderr
        validate = subprocess.run(["virt-xml-validate", self.xml, "domain"],
                                  capture_output=True, text=True, timeout=60)
        assert validate.returncode == 0, validate.stdout + validate.stderr
        virsh("define", self.xml)
        virsh("start", name)

    def console(self):
        try:
            with open(self.log, errors="replace") as f:
                return f.read()
        except FileNotFoundError:
            return ""

    def wait_for(self, pattern):
        deadline = time.monotonic() + BOOT_WAIT
        while not re.search(pattern, self.console()):
            assert time.monotonic() < deadline, f"no {pattern!r} on the console:\n{self.console()}"
            time.sleep(0.5)

    def state(self):
        return virsh("domstate", "--reason", self.name).stdout.strip()

    def wait_until_off(self):
        deadline = time.monotonic() + BOOT_WAIT
        while not self.state().startswith("shut off"):
            assert time.monotonic() < deadline, f"still {self.state()}:\n{self.console()}"
            time.sleep(0.5)

    def close(self):
        virsh("destroy", self.name, check=False)
        virsh("undefine", self.name, check=False)
        assert virsh("dominfo", self.name, check=False).returncode != 0, "domain left behind"


@needs_root
def test_hello_boots_under_libvirt_and_its_console_is_logged(libvirtd, readable_dir):
    domain = Domain(readable_dir, image("hello"), f"keel-pkg-hello-{SUFFIX}")
    try:
        domain.wait_until_off()
        console = domain.console()
        assert "Hello from Keel" in console and "Goodbye" in console, console
        assert "seeded from virtio-rng" in console  # the <rng> device reached the guest
        # The guest ended itself through isa-debug-exit: QEMU exits, which libvirt calls a
        # crash and records without QEMU's exit status (docs/deploy.md).
        assert domain.state() == "shut off (crashed)"
    finally:
        domain.close()


class Bridge:
    """A host bridge for the guest's TAP (libvirtd makes it in the host's namespace), joined by
    a veth pair to a namespace of the test's own: the only addresses on that link are the
    namespace's and the guest's."""
    HOST = "10.213.7.1"
    GUEST = "10.213.7.2"

    def __init__(self):
        self.name, self.ns = f"kpkb{SUFFIX}", None
        subprocess.run(["ip", "link", "add", self.name, "type", "bridge"], check=True,
                       capture_output=True, timeout=30)
        try:
            subprocess.run(["ip", "link", "set", self.name, "up"], check=True,
                           capture_output=True, timeout=30)
            self.ns = Netns(name=f"keel-pkg-{SUFFIX}")
            self.ns.veth_from_caller(f"kpkv{SUFFIX}", f"kpkp{SUFFIX}", f"{self.HOST}/24",
                                     bridge=self.name)
        except BaseException:
            self.close()
            raise

    def echo(self, payload, timeout=5.0):
        code = ("import socket,sys; s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM); "
                f"s.settimeout({timeout}); s.sendto(sys.argv[1].encode(), ('{self.GUEST}', 7)); "
                "print(s.recvfrom(2048)[0].decode())")
        result = self.ns.python(code, payload, timeout=timeout + 30)
        return result.stdout.strip() if result.returncode == 0 else None

    def close(self):
        if self.ns:
            self.ns.close()  # the veth pair goes with it
        subprocess.run(["ip", "link", "del", self.name], capture_output=True, timeout=30)


@needs_root
def test_udp_echo_under_libvirt_answers_on_a_bridge(libvirtd, readable_dir):
    bridge = Bridge()
    domain = None
    try:
        domain = Domain(readable_dir, udp_echo_image(), f"keel-pkg-echo-{SUFFIX}",
                        "--bridge", bridge.name, "--append", f"ip={Bridge.GUEST}/24")
        domain.wait_for(rf"listening on {re.escape(Bridge.GUEST)}:7")
        assert bridge.echo("through libvirt") == "through libvirt"
        # Keel has no ACPI: `virsh shutdown` asks, nobody hears, the service goes on
        # (docs/deploy.md says to use destroy).
        virsh("shutdown", domain.name)
        assert bridge.echo("after shutdown") == "after shutdown"
        assert domain.state().startswith("running")
        virsh("destroy", domain.name)
        assert domain.state().startswith("shut off (destroyed)")
    finally:
        if domain:
            domain.close()
        bridge.close()
    # libvirt removed the guest's TAP with the domain, and the bridge is gone with the test.
    assert not os.path.exists(f"/sys/class/net/{bridge.name}")


def test_libvirt_options_that_cannot_work_are_refused():
    result = keel("package", image("hello"), "--format", "libvirt", "--network", "default",
                  "--bridge", "br0", "-o", os.devnull)
    assert result.returncode == 2 and "--network or --bridge, not both" in result.stderr
    result = keel("package", image("hello"), "--format", "libvirt", "--machine", "microvm")
    assert result.returncode == 2 and "invalid choice: 'microvm'" in result.stderr

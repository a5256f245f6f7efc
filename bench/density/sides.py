"""What a fleet is made of: the Keel image or the Linux VM on the same QEMU line (microvm,
TCG, virtio-net-device on the instance's TAP, the same TCG options), or the service's
Linux-process build in a podman container, limited to a memory size, that opens the
instance's TAP in the bench's namespace."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [os.path.join(ROOT, "tools"), os.path.join(ROOT, "bench", "linux-vm")]
from keelpy import container, qemu  # noqa: E402
from fleet import HOST, PREFIX  # noqa: E402


def nic_args(tap, mac):
    return ["-netdev", f"tap,id=n0,ifname={tap},script=no,downscript=no",
            "-device", f"virtio-net-device,netdev=n0,mac={mac}"]


class QemuSide:
    """Instances from `command(append, extra)`: a QEMU line to which the NIC is added."""

    def __init__(self, label, memory_mib, command):
        self.label, self.memory_mib, self.command = label, memory_mib, command
        self.procs = []

    def start(self, fleet, i, tap, address, mac):
        append = f"ip={address}/{PREFIX} gw={HOST}"
        self.procs.append(fleet.spawn(self.command(append, nic_args(tap, mac))))

    def launched(self, fleet):
        pass

    def pids(self, fleet):
        return [[p.pid] for p in self.procs]  # QEMU, under `ip netns exec`

    def stop(self, fleet):
        self.procs = []  # the fleet kills the process groups it spawned


def with_tcg_options(args, options):
    """The QEMU line with `options` ("tb-size=8", say) on its `-accel tcg`: both VM sides get
    the same."""
    if not options:
        return args
    at = args.index("-accel")
    assert args[at + 1] == "tcg", args
    return [*args[:at + 1], f"tcg,{options}", *args[at + 2:]]


def keel(image, memory_mib, tcg_options=""):
    return QemuSide("Keel image", memory_mib, lambda append, nic: with_tcg_options(qemu.command(
        image, "microvm", f"{memory_mib}M", 1, append, "tcg", nic), tcg_options))


def linux_vm(guest, memory_mib, tcg_options=""):
    return QemuSide("Linux VM", memory_mib, lambda append, nic: with_tcg_options(guest.command(
        "microvm", f"{memory_mib}M", f"run=udp_echo {append}", "tcg", nic), tcg_options))


class ContainerSide:
    """`podman run -d` of an image from `keel package --format container`, at most
    IN_FLIGHT podman commands at once; each container joins the bench's namespace."""
    IN_FLIGHT = 4

    def __init__(self, image_ref, tag, memory_mib):
        self.label, self.memory_mib = "container (podman)", memory_mib
        self.image, self.tag, self.names, self.running = image_ref, tag, [], []

    def start(self, fleet, i, tap, address, mac):
        name = f"{self.tag}-{i}"
        self.names.append(name)
        args = container.run_args(self.image, name, f"/run/netns/{fleet.ns}",
                                  f"ip={address}/{PREFIX} gw={HOST}", tap, self.memory_mib)
        self.running.append(subprocess.Popen(args, stdout=subprocess.DEVNULL,
                                             stderr=subprocess.PIPE, text=True))
        if len(self.running) >= self.IN_FLIGHT:
            self.wait_one()

    def wait_one(self):
        proc = self.running.pop(0)
        _, err = proc.communicate(timeout=300)
        if proc.returncode != 0:
            raise RuntimeError(f"podman run failed: {err.strip()}")

    def launched(self, fleet):
        while self.running:
            self.wait_one()

    def pids(self, fleet):
        """The service's and its conmon's pid, one pair per container."""
        if not self.names:
            return []
        out = subprocess.run(container.podman("inspect", "--format",
                                              "{{.State.Pid}} {{.State.ConmonPid}}", *self.names),
                             capture_output=True, text=True).stdout
        return [[int(x) for x in line.split()] for line in out.splitlines() if line.strip()]

    def stop(self, fleet):
        for proc in self.running:
            proc.kill()
            proc.wait()
        self.running = []
        for start in range(0, len(self.names), 50):
            subprocess.run(container.podman("rm", "-f", "-t", "0", *self.names[start:start + 50]),
                           capture_output=True, timeout=300)
        self.names = []

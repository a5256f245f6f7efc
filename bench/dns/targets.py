"""The servers bench/dns sets side by side, all on the same zone files and
reached from one network namespace:
  Keel image      examples/dns in QEMU (microvm, TCG) on a TAP device
  NSD, Knot VM    in the Linux VM peer (bench/linux-vm) on the same QEMU line
  NSD, Knot       as Linux processes in a second namespace behind a veth pair
  Keel process    examples/dns built for the linux platform, on a TAP device
"""
import gzip
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "test", "dns"))
sys.path.insert(0, os.path.join(ROOT, "bench", "linux-vm"))
sys.path.insert(0, os.path.join(ROOT, "bench", "boot"))

import appliance  # noqa: E402
import refservers  # noqa: E402
from measure import stop, tap_args  # noqa: E402

ZONE = "keel.test"  # the zone name the Linux VM peer's configs serve
PEER_ADDRESS = "10.53.9.2"


class Target:
    def __init__(self, label, address, port, process):
        self.label, self.address, self.port, self.process = label, address, port, process

    @property
    def pid(self):
        return self.process.pid


def keel_image(ns, image, tap, memory):
    server = appliance.Appliance(ns, image=image, tap=tap, memory=memory)
    return Target("Keel image", server.address, 53, server.process), server


def keel_process(ns, program, tap):
    server = appliance.Appliance(ns, program=program, tap=tap)
    return Target("Keel process", server.address, 53, server.process), server


class LinuxVm:
    """The Linux VM peer running nsd or knot on `tap`, with the bench's zone and
    configs appended to its initramfs (the kernel unpacks concatenated cpio
    archives in order, so these files replace the peer's own)."""

    def __init__(self, ns, guest, program, tap, zone_file, work, memory):
        stage = os.path.join(work, f"vm-{program}")
        etc = os.path.join(stage, "etc", "keel-peer")
        os.makedirs(etc, exist_ok=True)
        shutil.copy(zone_file, os.path.join(etc, f"{ZONE}.zone"))
        for conf in ("nsd.conf", "knot.conf"):
            shutil.copy(os.path.join(HERE, "vm", conf), etc)
        files = subprocess.run(["find", ".", "-mindepth", "1"], cwd=stage, capture_output=True,
                               text=True, check=True).stdout
        extra = subprocess.run(["cpio", "-o", "-H", "newc", "--quiet"], cwd=stage, input=files.encode(),
                               capture_output=True, check=True).stdout
        initrd = os.path.join(work, f"initrd-{program}.cpio.gz")
        with open(initrd, "wb") as out, open(guest.initrd, "rb") as base:
            out.write(base.read())
            out.write(gzip.compress(extra))
        self.address = appliance.guest_ip(tap)
        guest.initrd, original = initrd, guest.initrd
        try:
            args = guest.command("microvm", memory, f"run={program} ip={self.address}/24", "tcg",
                                 tap_args(f"tap{tap}"))
        finally:
            guest.initrd = original
        self.log = open(os.path.join(work, f"vm-{program}.log"), "w")
        self.process = subprocess.Popen(ns.exec_args(args), stdin=subprocess.DEVNULL, stdout=self.log,
                                        stderr=subprocess.STDOUT, start_new_session=True)

    def close(self):
        stop(self.process)
        self.log.close()


def linux_vm(ns, guest, program, tap, zone_file, work, memory):
    vm = LinuxVm(ns, guest, program, tap, zone_file, work, memory)
    return Target(f"{'NSD' if program == 'nsd' else 'Knot'} in the Linux VM", vm.address, 53, vm.process), vm


def peer_namespace(ns):
    """A second namespace behind a veth pair, for NSD and Knot as Linux processes."""
    return ns.veth_peer("10.53.9.1/24", f"{PEER_ADDRESS}/24")


def netns_server(peer, kind, port, work, zones_dir):
    ref = refservers.Reference(kind, work, zones_dir, [ZONE], PEER_ADDRESS, port, peer.exec_args)
    return Target(f"{'NSD' if kind == 'nsd' else 'Knot'} in a netns", PEER_ADDRESS, port, ref.process), ref

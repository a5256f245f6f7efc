"""`keel demo dmz --libvirt`: the DMZ's guests as libvirt domains (the XML of `keel package
--format libvirt`: machine pc, TCG, direct kernel boot) on three isolated libvirt networks,
out, mid and dmz, whose bridges libvirt makes; the outside client's namespace joins the out
network's bridge through a veth pair. Everything is named keel-dmz-PID-...; close() destroys
and undefines the domains and the networks, then removes the namespace (decision 0124)."""
import os
import shutil
import subprocess
import sys

from dmz_demo import CLIENT, GUESTS, NETWORKS, OUTSIDE_ROUTE, mac
from keelpy import libvirt
from keelpy.netns import Netns

VIRSH = ["virsh", "--quiet", "-c", "qemu:///system"]
MEMORY = "64M"


def virsh(*args, check=True):
    result = subprocess.run([*VIRSH, *args], capture_output=True, text=True, timeout=120)
    if check and result.returncode != 0:
        raise RuntimeError(f"virsh {' '.join(args)}: {result.stderr.strip()}")
    return result


def check_daemon():
    """Exits with what to do when libvirt's system daemon cannot be used."""
    if shutil.which("virsh") is None:
        sys.exit("dmz_demo: virsh not found: `tools/keel setup --tests` installs libvirt")
    if virsh("version", check=False).returncode != 0:
        sys.exit("dmz_demo: libvirt's system daemon does not answer at qemu:///system: start "
                 "it (systemctl start libvirtd; without an init system, /usr/sbin/virtlogd "
                 "--daemon and /usr/sbin/libvirtd --daemon)")


def bridge(network):
    """The bridge libvirt makes for a network: 'kd', its initial, the pid (15 characters
    at most)."""
    return f"kd{network[0]}{os.getpid()}"


class LibvirtLab:
    def __init__(self, images, work):
        self.images, self.work, self.tag = images, work, f"keel-dmz-{os.getpid()}"
        self.networks, self.domains, self.outside = [], [], None
        os.chmod(work, 0o755)  # libvirt's QEMU user reads the images and writes nothing here
        try:
            for network in NETWORKS:
                self.start_network(f"{self.tag}-{network}", bridge(network))
            self.outside = Netns(prefix="keel-dmz-out")
            self.outside.veth_from_caller(f"kdc{os.getpid()}", "dmz-client", CLIENT,
                                          bridge=bridge("out"))
            self.outside.sh(OUTSIDE_ROUTE)
        except BaseException:
            self.close()
            raise

    def write(self, name, text):
        path = os.path.join(self.work, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def start_network(self, name, bridge_name):
        self.networks.append(name)  # first: a signal may end `virsh net-define` after it did
        virsh("net-define", self.write(f"{name}.xml", libvirt.network_xml(name, bridge_name)))
        virsh("net-start", name)

    def boot(self, name):
        """Defines and starts guest `name`; returns the path of its console log."""
        _, networks, append = GUESTS[name]
        kernel = os.path.join(self.work, name)  # a copy libvirt's QEMU user can read
        shutil.copy(self.images[name], kernel)
        os.chmod(kernel, 0o644)
        log = os.path.join(self.work, f"{name}.log")
        domain = f"{self.tag}-{name}"
        nics = [libvirt.Nic("network", f"{self.tag}-{network}", mac(name, i))
                for i, network in enumerate(networks)]
        xml = libvirt.domain_xml(kernel, domain, "pc", MEMORY, 1, append, "tcg",
                                 console_log=log, nics=nics)
        self.domains.append(domain)
        virsh("define", self.write(f"{domain}.xml", xml))
        virsh("start", domain)
        print(f"dmz: libvirt domain {domain} started", flush=True)
        return log

    def close(self):
        for domain in self.domains:
            virsh("destroy", domain, check=False)
            virsh("undefine", domain, check=False)
        for network in self.networks:
            virsh("net-destroy", network, check=False)
            virsh("net-undefine", network, check=False)
        if self.outside:
            self.outside.close()
        print(f"dmz: undefined {len(self.domains)} domains and {len(self.networks)} networks",
              flush=True)

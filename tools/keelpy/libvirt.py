"""`keel package --format libvirt`: a libvirt domain XML that boots a Keel image the way
`keel boot` does (docs/deploy.md, decision 0112).

Direct kernel boot (<os><kernel>, <cmdline>): the image is PVH (decision 0002) and QEMU's
PVH option ROM loads it on pc and q35. microvm is left out: libvirt 9 gives it PCI
controllers it does not have. The rest follows qemu.command():
- under TCG (domain type 'qemu') room for a second vCPU that never starts, <vcpu current=N>2
  (decision 0091: QEMU 7.2's TCG drops memory barriers for a guest with one possible vCPU);
- a virtio-rng fed from /dev/urandom (decision 0104);
- isa-debug-exit for the service's exit status: libvirt has no element for it, so it goes to
  QEMU through <qemu:commandline> (libvirt marks such a domain "tainted: custom-argv");
- virtio-net on a libvirt network or a host bridge, serial console on a pty logged to a file.
network_xml() writes an isolated libvirt network, for `keel demo dmz --libvirt`."""
import os
from collections import namedtuple
from xml.sax.saxutils import escape, quoteattr

from . import qemu
from .paths import KeelError

MACHINES = ("pc", "q35")
QEMU_NS = "http://libvirt.org/schemas/domain/qemu/1.0"
DOMAIN_TYPES = {"tcg": "qemu", "kvm": "kvm"}


# A virtio NIC on a libvirt network or a host bridge (kind "network" or "bridge"); mac None:
# libvirt picks one.
Nic = namedtuple("Nic", "kind source mac", defaults=(None,))


def nics_of(network=None, bridge=None):
    """`keel package`'s NIC: on --network or --bridge, or none."""
    if network and bridge:
        raise KeelError("give --network or --bridge, not both")
    if network:
        return [Nic("network", network)]
    return [Nic("bridge", bridge)] if bridge else []


def interface_xml(nic):
    mac = f"\n      <mac address={quoteattr(nic.mac)}/>" if nic.mac else ""
    return f"""    <interface type='{nic.kind}'>
      <source {nic.kind}={quoteattr(nic.source)}/>{mac}
      <model type='virtio'/>
    </interface>
"""


def network_xml(name, bridge):
    """An isolated libvirt network: a bridge that libvirt makes and removes, with no address,
    no DHCP or DNS server and no forwarding to the host's networks (no <ip>, no <forward>):
    a segment between guests, which they address themselves. STP off, no forwarding delay,
    so a guest's port carries frames at once."""
    return f"""<network>
  <name>{escape(name)}</name>
  <bridge name={quoteattr(bridge)} stp='off' delay='0'/>
</network>
"""


def domain_xml(image, name, machine="pc", memory="64M", cpus=1, append="", accel="tcg",
               network=None, bridge=None, console_log=None, nics=None):
    """The domain XML as a string. `image` and `console_log` become absolute paths: libvirtd
    opens them, from its own working directory. `nics` (a list of Nic, in the guest's
    interface order) instead of `network` or `bridge`: several NICs."""
    nics = nics_of(network, bridge) if nics is None else nics
    if machine not in MACHINES:
        raise KeelError(f"libvirt: machine '{machine}' is not one of {', '.join(MACHINES)} "
                        "(libvirt does not drive QEMU's microvm)")
    if accel not in DOMAIN_TYPES:
        raise KeelError(f"libvirt: accel '{accel}' is not tcg or kvm")
    mib = qemu.memory_mib(memory)
    if mib is None or mib != int(mib) or mib <= 0:
        raise KeelError(f"--memory {memory}: expected whole MiB, e.g. 64M")
    # Under TCG: maxcpus 2 (decision 0091), as qemu.smp() gives `keel boot`.
    maximum = max(cpus, 2) if accel == "tcg" else cpus
    vcpu = f"<vcpu placement='static' current='{cpus}'>{maximum}</vcpu>" if maximum != cpus \
        else f"<vcpu placement='static'>{cpus}</vcpu>"
    cpu = "<cpu mode='maximum' check='none'/>" if accel == "tcg" else \
        "<cpu mode='host-passthrough' check='none'/>"
    cmdline = f"\n    <cmdline>{escape(append)}</cmdline>" if append else ""
    log = ""
    if console_log:
        log = f"\n      <log file={quoteattr(os.path.abspath(console_log))} append='off'/>"
    debug_exit = qemu.DEBUG_EXIT[1]
    # No names in the comment: XML comments may not hold "--".
    return f"""<!-- A Keel image, written by keel package: virsh define this file, then virsh start
     the domain (docs/deploy.md). -->
<domain type='{DOMAIN_TYPES[accel]}' xmlns:qemu='{QEMU_NS}'>
  <name>{escape(name)}</name>
  <memory unit='MiB'>{int(mib)}</memory>
  {vcpu}
  <os>
    <type arch='x86_64' machine='{machine}'>hvm</type>
    <kernel>{escape(os.path.abspath(image))}</kernel>{cmdline}
  </os>
  {cpu}
  <clock offset='utc'/>
  <on_poweroff>destroy</on_poweroff>
  <on_reboot>destroy</on_reboot>
  <on_crash>destroy</on_crash>
  <devices>
    <serial type='pty'>
      <target port='0'/>{log}
    </serial>
    <console type='pty'>
      <target type='serial' port='0'/>
    </console>
{"".join(map(interface_xml, nics))}    <rng model='virtio'>
      <backend model='random'>/dev/urandom</backend>
    </rng>
    <controller type='usb' model='none'/>
    <memballoon model='none'/>
    <video>
      <model type='none'/>
    </video>
  </devices>
  <qemu:commandline>
    <qemu:arg value='-device'/>
    <qemu:arg value='{debug_exit}'/>
  </qemu:commandline>
</domain>
"""

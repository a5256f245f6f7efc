"""`keel run IMAGE|DIR -p [HOSTADDR:]HOSTPORT:GUESTPORT[/udp]`: an image on QEMU's user-mode
network (slirp) with ports forwarded from the host, as an ordinary user: no root, no TAP.

QEMU is the guest's whole network: a virtual router at 10.0.2.2 that hands out 10.0.2.15 by
DHCP (the image's client takes it: `ip=dhcp` is appended unless --append configures the
interface), and a host-side socket per forward that QEMU relays to the guest's port. Forwards
bind 127.0.0.1 unless an address is given (decision 0110)."""
import re
from collections import namedtuple

from . import qemu
from .paths import KeelError

DEFAULT_HOST_ADDRESS = "127.0.0.1"  # reachable from this machine only; 0.0.0.0 to publish
GUEST_ADDRESS = "10.0.2.15"         # slirp's first DHCP lease
PUBLISH = re.compile(r"(?:(?P<address>[0-9.]+):)?(?P<host>\d+):(?P<guest>\d+)(?:/(?P<proto>\w+))?")
MAX_PORT = 65535

Forward = namedtuple("Forward", "protocol host_address host_port guest_port")


def parse_publish(spec):
    """One -p value as a Forward; KeelError says what is wrong with it."""
    match = PUBLISH.fullmatch(spec)
    if not match:
        raise KeelError(f"-p {spec}: expected [HOSTADDR:]HOSTPORT:GUESTPORT[/udp], "
                        "e.g. -p 8080:80 or -p 127.0.0.1:5353:53/udp")
    protocol = match.group("proto") or "tcp"
    if protocol not in ("tcp", "udp"):
        raise KeelError(f"-p {spec}: protocol '{protocol}' is not tcp or udp")
    address = match.group("address") or DEFAULT_HOST_ADDRESS
    if not all(part.isdigit() and int(part) <= 255 for part in address.split(".")) \
            or address.count(".") != 3:
        raise KeelError(f"-p {spec}: '{address}' is not an IPv4 address (QEMU's user-mode "
                        "network forwards IPv4 only)")
    host, guest = int(match.group("host")), int(match.group("guest"))
    for port in (host, guest):
        if not 1 <= port <= MAX_PORT:
            raise KeelError(f"-p {spec}: port {port} is not between 1 and {MAX_PORT}")
    return Forward(protocol, address, host, guest)


def netdev_args(forwards, machine):
    """QEMU's options for one virtio-net NIC on the user-mode network with these forwards."""
    rules = "".join(f",hostfwd={f.protocol}:{f.host_address}:{f.host_port}-:{f.guest_port}"
                    for f in forwards)
    return ["-netdev", f"user,id=net0{rules}",
            "-device", f"{qemu.nic_device(machine)},netdev=net0"]


def configures_interface(append):
    """Whether the command line already sets up interface 0 (ip= or ip0=)."""
    return re.search(r"(^|\s)ip0?=", append) is not None


def run(image, forwards, machine="microvm", memory="64M", append="", accel="auto",
        timeout=None):
    """Boots `image` on the user-mode network; returns the service's exit code."""
    if not configures_interface(append):
        append = f"ip=dhcp {append}".strip()
    for f in forwards:
        print(f"keel: {f.host_address}:{f.host_port}/{f.protocol} -> guest port {f.guest_port}",
              flush=True)
    return qemu.boot(image, machine, memory, 1, append, accel, timeout,
                     netdev_args(forwards, machine))

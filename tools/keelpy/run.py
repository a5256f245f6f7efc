"""`keel run IMAGE|DIR -p [HOSTADDR:]HOSTPORT:GUESTPORT[/udp]`: an image on QEMU's user-mode
network (slirp) with ports forwarded from the host, as an ordinary user: no root, no TAP.

QEMU is the guest's whole network: a virtual router at 10.0.2.2 that hands out 10.0.2.15 by
DHCP (the image's client takes it: `ip=dhcp` is appended unless --append configures the
interface), and a host-side socket per forward that QEMU relays to the guest's port. Forwards
bind 127.0.0.1 unless an address is given (decision 0110).

`keel run IMAGE|DIR --net bridge=NAME` or `--net tap[=NAME]` (root): the guest on a TAP
device keel makes, on an existing bridge or alone, and removes when the guest stops, however
it stops (decision 0123). The guest's address: --append ip=..., else DHCP on that network."""
import os
import re
import subprocess
from collections import namedtuple

from . import netns, process, qemu
from .image import check_image
from .paths import KeelError

DEFAULT_HOST_ADDRESS = "127.0.0.1"  # reachable from this machine only; 0.0.0.0 to publish
GUEST_ADDRESS = "10.0.2.15"         # slirp's first DHCP lease
PUBLISH = re.compile(r"(?:(?P<address>[0-9.]+):)?(?P<host>\d+):(?P<guest>\d+)(?:/(?P<proto>\w+))?")
MAX_PORT = 65535

Forward = namedtuple("Forward", "protocol host_address host_port guest_port")
# kind: "user" (slirp), "bridge" (name: the bridge) or "tap" (name: the TAP, None: keel names it)
Net = namedtuple("Net", "kind name")
USER_NET = Net("user", None)
NET_FORMS = "user, bridge=NAME, tap or tap=NAME"
QEMU_OUI = "52:54:00"  # the prefix QEMU and libvirt give their guests' MACs


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


def parse_net(spec):
    """One --net value as a Net; KeelError says what is wrong with it."""
    if spec in ("user", "tap"):
        return Net(spec, None)
    kind, equals, name = spec.partition("=")
    if kind not in ("bridge", "tap") or not equals:
        raise KeelError(f"--net {spec}: expected {NET_FORMS}")
    if not netns.valid_name(name):
        raise KeelError(f"--net {spec}: '{name}' is not an interface name (1 to "
                        f"{netns.MAX_NAME} characters, no '/', ':' or space)")
    return Net(kind, name)


def with_dhcp(append):
    return append if configures_interface(append) else f"ip=dhcp {append}".strip()


def run(image, forwards, machine="microvm", memory="64M", append="", accel="auto",
        timeout=None, net=USER_NET):
    """Boots `image` on the user-mode network, or on a TAP keel makes (`net`); returns the
    service's exit code."""
    if net.kind != "user":
        if forwards:
            raise KeelError("-p forwards ports of QEMU's user-mode network: with --net "
                            f"{net.kind} the guest has its own address on the network; "
                            "reach it there")
        return run_on_tap(image, net, machine, memory, append, accel, timeout)
    append = with_dhcp(append)
    for f in forwards:
        print(f"keel: {f.host_address}:{f.host_port}/{f.protocol} -> guest port {f.guest_port}",
              flush=True)
    return qemu.boot(image, machine, memory, 1, append, accel, timeout,
                     netdev_args(forwards, machine))


def refuse_what_cannot_work(net):
    """Before anything is made: root, the bridge, a TAP name that is free."""
    spec = net.kind + (f"={net.name}" if net.name else "")
    if os.geteuid() != 0:
        what = "a TAP device and attaching it to a bridge" if net.kind == "bridge" else \
            "a TAP device"
        raise KeelError(f"--net {spec}: making {what} needs root (run keel as root, e.g. "
                        "with sudo). Without root: `keel run -p HOSTPORT:GUESTPORT` forwards "
                        "ports through QEMU's user-mode network")
    if net.kind == "bridge":
        if not netns.link_exists(net.name):
            raise KeelError(f"--net {spec}: there is no bridge {net.name} (keel attaches to "
                            f"a bridge, it does not make one: `ip link add {net.name} type "
                            "bridge`, or use --net tap)")
        if not netns.is_bridge(net.name):
            raise KeelError(f"--net {spec}: {net.name} is a network device but not a bridge")
    elif net.name and netns.link_exists(net.name):
        raise KeelError(f"--net {spec}: a device {net.name} exists already; keel makes its "
                        "TAP and removes it after, so it takes no device it did not make. "
                        f"On an existing TAP: `keel boot --tap {net.name}`")


def free_tap_name():
    base = f"keel{os.getpid()}"
    names = [base] + [f"{base}-{i}" for i in range(1, 10)]
    free = next((n for n in names if not netns.link_exists(n)), None)
    if free is None:
        raise KeelError(f"devices {base} to {names[-1]} exist: name the TAP, --net tap=NAME")
    return free


def random_mac():
    """One MAC per run: guests on one bridge must not share QEMU's default 52:54:00:12:34:56."""
    low = int.from_bytes(os.urandom(3), "big")
    return f"{QEMU_OUI}:{low >> 16:02x}:{(low >> 8) & 255:02x}:{low & 255:02x}"


def run_on_tap(image, net, machine, memory, append, accel, timeout):
    check_image(image)
    qemu.check_memory(image, memory)
    refuse_what_cannot_work(net)
    append, mac, tap = with_dhcp(append), random_mac(), None
    name = net.name if net.kind == "tap" and net.name else free_tap_name()
    bridge = net.name if net.kind == "bridge" else None
    try:
        with process.stop_signals_raise():
            with process.signals_held():
                try:
                    tap = netns.Tap(name, bridge)
                except subprocess.CalledProcessError as e:
                    raise KeelError(f"could not make TAP {name}: {e.stderr.strip()}") from None
            where = f"on bridge {bridge}" if bridge else \
                f"(give this side an address: ip addr add ADDR/LEN dev {name}; or bridge it)"
            print(f"keel: TAP {name} {where}, guest MAC {mac}; removed when the guest stops",
                  flush=True)
            if "ip=dhcp" in append.split():
                print("keel: the guest asks for its address by DHCP (--append ip=ADDR/LEN "
                      "sets one)", flush=True)
            extra = ["-netdev", f"tap,id=net0,ifname={name},script=no,downscript=no",
                     "-device", f"{qemu.nic_device(machine)},netdev=net0,mac={mac}"]
            return qemu.boot(image, machine, memory, 1, append, accel, timeout, extra)
    except process.Stopped as stopped:
        return process.STOP_SIGNALS[stopped.signum]
    finally:
        if tap is not None:
            with process.signals_held():
                tap.close()
            try:
                print(f"keel: removed TAP {name}", flush=True)
            except OSError:  # SIGHUP: the terminal may be gone
                pass

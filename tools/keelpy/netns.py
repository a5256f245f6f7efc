"""Network namespaces with TAP devices, bridges and veth pairs, for the tests, the benchmarks
and `keel run --net`: one place that makes them and removes what it made (issue 21). Needs
root.

A namespace's name is unique to the process (prefix-PID-N), so suites and helpers running at
once never share one; deleting it removes every device inside it. Tap is one TAP device in
the caller's own namespace, for keel itself."""
import itertools
import os
import subprocess

PYTHON = "/usr/bin/python3"
MAX_NAME = 15  # IFNAMSIZ less its NUL: Linux refuses longer interface names
_counter = itertools.count()


def run(args, timeout=30, check=True, **kwargs):
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, check=check,
                          **kwargs)


class Netns:
    """A fresh network namespace with its loopback up; close() (or leaving a `with`) deletes it."""

    def __init__(self, prefix="keel-net", name=None):
        self.name = name or f"{prefix}-{os.getpid()}-{next(_counter)}"
        run(["ip", "netns", "add", self.name])
        try:
            self.sh("ip link set lo up")
        except BaseException:
            self.close()
            raise

    def exec_args(self, args):
        return ["ip", "netns", "exec", self.name, *args]

    def run(self, args, timeout=30, check=True, **kwargs):
        return run(self.exec_args(args), timeout=timeout, check=check, **kwargs)

    def sh(self, command, timeout=30, check=True):
        return self.run(["sh", "-c", command], timeout=timeout, check=check)

    def popen(self, args, **kwargs):
        return subprocess.Popen(self.exec_args(args), **kwargs)

    def python(self, code, *args, timeout=120):
        """Debian's python3 runs `code` in the namespace (scapy and the like); not checked."""
        return self.run([PYTHON, "-c", code, *map(str, args)], timeout=timeout, check=False)

    def add_tap(self, dev, address=None):
        """A TAP device, up, with `address` ("ADDR/LEN") on this side if given."""
        self.sh(f"ip tuntap add {dev} mode tap && ip link set {dev} up"
                + (f" && ip addr add {address} dev {dev}" if address else ""))

    def add_bridge(self, dev, address=None):
        """A bridge, up, forwarding at once (no STP, no delay), with `address` if given."""
        self.sh(f"ip link add {dev} type bridge stp_state 0 forward_delay 0 && "
                f"ip link set {dev} up" + (f" && ip addr add {address} dev {dev}" if address else ""))

    def take(self, dev, from_ns):
        """Moves `dev` from namespace `from_ns` into this one (a TAP keeps its open file)."""
        from_ns.sh(f"ip link set {dev} netns {self.name}")

    def veth_to(self, other, dev, other_dev, address=None, other_address=None, bridge=None):
        """A veth pair to the namespace `other` (a Netns): `dev` here, with `address` or on
        `bridge` if given, `other_dev` there with `other_address` if given; both up."""
        self.sh(f"ip link add {dev} type veth peer name {other_dev} netns {other.name}"
                + (f" && ip link set {dev} master {bridge}" if bridge else "")
                + (f" && ip addr add {address} dev {dev}" if address else "")
                + f" && ip link set {dev} up")
        other.sh((f"ip addr add {other_address} dev {other_dev} && " if other_address else "")
                 + f"ip link set {other_dev} up")

    def veth_peer(self, address, peer_address, dev="vethk", peer_dev="vethp", bridge=None):
        """A second namespace behind a veth pair: `dev` here with `address`, `peer_dev` there with
        `peer_address` (both "ADDR/LEN"); with `bridge`, `dev` joins that bridge here instead
        of taking an address (give address None). Close it before this one."""
        peer = Netns(name=f"{self.name}-peer")
        try:
            self.veth_to(peer, dev, peer_dev, address, peer_address, bridge)
        except BaseException:
            peer.close()
            raise
        return peer

    def veth_from_caller(self, dev, peer_dev, address, bridge=None):
        """A veth pair from the caller's own namespace: `dev` stays there, up, on `bridge` if
        given (a libvirt network's, say); `peer_dev` comes here with `address` ("ADDR/LEN").
        Deleting this namespace deletes both ends."""
        run(["ip", "link", "add", dev, "type", "veth", "peer", "name", peer_dev,
             "netns", self.name])
        try:
            if bridge:
                run(["ip", "link", "set", dev, "master", bridge])
            run(["ip", "link", "set", dev, "up"])
            self.sh(f"ip addr add {address} dev {peer_dev} && ip link set {peer_dev} up")
        except BaseException:
            subprocess.run(["ip", "link", "del", dev], capture_output=True, timeout=30)
            raise

    def close(self):
        subprocess.run(["ip", "netns", "del", self.name], capture_output=True, timeout=30)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def link_exists(dev):
    """Whether this namespace has a network device `dev` (sysfs shows the caller's namespace)."""
    return os.path.exists(f"/sys/class/net/{dev}")


def is_bridge(dev):
    return os.path.isdir(f"/sys/class/net/{dev}/bridge")


def valid_name(dev):
    """What Linux takes as an interface name: 1 to 15 characters, no '/', ':' or space, not
    '.' or '..'."""
    return (0 < len(dev) <= MAX_NAME and dev not in (".", "..")
            and not any(c in dev for c in "/: \t\n"))


class Tap:
    """A TAP device made in this process's own namespace (`keel run --net`), up, on `bridge`
    if given; close() deletes it. Raises CalledProcessError (its stderr says why) and then
    leaves nothing behind."""

    def __init__(self, dev, bridge=None):
        self.name = dev
        run(["ip", "tuntap", "add", dev, "mode", "tap"])
        try:
            if bridge:
                run(["ip", "link", "set", dev, "master", bridge])
            run(["ip", "link", "set", dev, "up"])
        except BaseException:
            self.close()
            raise

    def close(self):
        subprocess.run(["ip", "link", "del", self.name], capture_output=True, timeout=30)

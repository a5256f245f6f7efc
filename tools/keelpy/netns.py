"""Network namespaces with TAP devices and veth pairs, for the tests and the benchmarks: one
place that makes them and removes what it made (issue 21). Needs root.

A namespace's name is unique to the process (prefix-PID-N), so suites and helpers running at
once never share one; deleting it removes every device inside it."""
import itertools
import os
import subprocess

PYTHON = "/usr/bin/python3"
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

    def take(self, dev, from_ns):
        """Moves `dev` from namespace `from_ns` into this one (a TAP keeps its open file)."""
        from_ns.sh(f"ip link set {dev} netns {self.name}")

    def veth_peer(self, address, peer_address, dev="vethk", peer_dev="vethp"):
        """A second namespace behind a veth pair: `dev` here with `address`, `peer_dev` there with
        `peer_address` (both "ADDR/LEN"). Close it before this one."""
        peer = Netns(name=f"{self.name}-peer")
        try:
            self.sh(f"ip link add {dev} type veth peer name {peer_dev} netns {peer.name} && "
                    f"ip addr add {address} dev {dev} && ip link set {dev} up")
            peer.sh(f"ip addr add {peer_address} dev {peer_dev} && ip link set {peer_dev} up")
        except BaseException:
            peer.close()
            raise
        return peer

    def close(self):
        subprocess.run(["ip", "netns", "del", self.name], capture_output=True, timeout=30)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

"""The same two-network topology twice, for comparing the firewall appliance with Linux:

  side A (10.0.0.1-15) ── eth0 10.0.0.254 ─ ROUTER ─ 10.1.0.254 eth1 ── side B (10.1.0.1-15)

ROUTER is examples/firewall (as a Linux process or a QEMU image on two TAPs, opened in a
middle namespace and then moved to each side, as test/integration/test_net_router.py does), or
a Linux network namespace with veth interfaces named eth0 and eth1 loaded with `keel-fw nft`'s
export. Packets are written to raw IP sockets on a side and read back with packet sockets on
both sides; outcomes are compared by IP id. The tests' ids are never 0 and never repeat on one
pair of routers, and nothing else on the wire may carry one (strays() checks every exchange)."""
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "test", "integration"))
sys.path.insert(0, os.path.join(ROOT, "examples", "firewall"))

from netguest import Guest, Namespace  # noqa: E402
from keelpy.netns import Netns  # noqa: E402
from nft_helpers import DEBIAN_PYTHON, ip_bytes, keelfw, run  # noqa: E402
import push_rules  # noqa: E402

FIREWALL = os.path.join(ROOT, "examples", "firewall")
KEY = "00112233445566778899aabbccddeeff"
MGMT_PORT = 5555
SUBNETS = ("10.0.0.", "10.1.0.")
# With ip6=True each side also has fd00:a::1-f (fd00:b::), the router fd00:a::fe (fd00:b::fe).
SUBNETS6 = ("fd00:a::", "fd00:b::")
ROUTER_HOST6 = "fe"
# The IPv6 tests tell their packets apart by flow label: the kernels' own packets carry 0.
IP6_SYSCTLS = ("net.ipv6.auto_flowlabels=0", "net.ipv6.icmp.ratelimit=0", "net.ipv6.conf.all.accept_ra=0",
               "net.ipv6.conf.default.accept_ra=0")
ROUTER_HOST = 254
HOSTS = range(1, 16)
PROTOCOL_UNREACHABLE = (3, 2)
TCP_RST = 0x04
NO_ICMP_RATE_LIMIT = ("net.ipv4.icmp_ratelimit=0", "net.ipv4.icmp_msgs_burst=10000", "net.ipv4.icmp_msgs_per_sec=10000")

# Reads every IPv4 frame arriving on argv[1] until the parent writes a line or closes stdin (or,
# with argv[2] > 0, for that many seconds at most); then prints one JSON line each.
SNIFFER = r"""
import json, select, socket, struct, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0800))
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
s.bind((sys.argv[1], 0))
seconds = float(sys.argv[2])
end = time.monotonic() + seconds if seconds > 0 else float("inf")
print("ready", flush=True)
read = []
while time.monotonic() < end:
    ready, _, _ = select.select([s, sys.stdin], [], [], max(0, min(end - time.monotonic(), 1.0)))
    if s in ready:
        read.append(s.recvfrom(65535))
    elif sys.stdin in ready:
        break
s.setblocking(False)
while True:  # what the kernel queued before the stop
    try:
        read.append(s.recvfrom(65535))
    except BlockingIOError:
        break
for frame, addr in read:
    if addr[2] == socket.PACKET_OUTGOING:
        continue
    ip = frame[14:]
    ihl = (ip[0] & 15) * 4
    rec = {"id": struct.unpack(">H", ip[4:6])[0], "src": socket.inet_ntoa(ip[12:16]),
           "dst": socket.inet_ntoa(ip[16:20]), "proto": ip[9], "ttl": ip[8]}
    l4 = ip[ihl:]
    if ip[9] in (6, 17) and len(l4) >= 4:
        rec["sport"], rec["dport"] = struct.unpack(">HH", l4[:4])
        if ip[9] == 6 and len(l4) >= 14:
            rec["flags"] = l4[13]
    if ip[9] == 1 and len(l4) >= 8:
        rec["type"], rec["code"] = l4[0], l4[1]
        rec["echo_id"] = struct.unpack(">H", l4[4:6])[0]
        if l4[0] in (3, 4, 5, 11, 12) and len(l4) >= 28:
            inner = l4[8:]
            iihl = (inner[0] & 15) * 4
            rec["quoted_id"] = struct.unpack(">H", inner[4:6])[0]
            rec["quoted_src"], rec["quoted_dst"] = socket.inet_ntoa(inner[12:16]), socket.inet_ntoa(inner[16:20])
            if inner[9] in (6, 17) and len(inner) >= iihl + 4:
                rec["quoted_ports"] = list(struct.unpack(">HH", inner[iihl:iihl + 4]))
    print(json.dumps(rec))
"""

# Writes each (destination, hex datagram) line of stdin to a raw IP socket (the header is ours).
SENDER = r"""
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
gap = float(sys.argv[1])
for line in sys.stdin:
    dst, data = line.split()
    s.sendto(bytes.fromhex(data), (dst, 0))
    time.sleep(gap)
"""


def stop_sniffer(p):
    """Stops a Side.sniff() sniffer; returns the frames it read."""
    out, _ = p.communicate(input="stop\n", timeout=60)
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


class Side(Netns):
    def __init__(self, name, subnet_index, answer_pings=True, ip6=False):
        super().__init__(name=name)
        self.subnet = SUBNETS[subnet_index]
        self.other = SUBNETS[1 - subnet_index]
        self.ip6 = ip6
        self.subnet6, self.other6 = SUBNETS6[subnet_index], SUBNETS6[1 - subnet_index]
        if ip6:
            run("sysctl", "-q", "-w", *IP6_SYSCTLS, ns=name)
        # The side's own errors (port unreachable from its hosts) must not depend on timing.
        run("sysctl", "-q", "-w", *NO_ICMP_RATE_LIMIT, ns=name)
        if not answer_pings:
            # An echo reply from a side's host carries an IP id of Linux's choosing (a hashed
            # per-destination counter with a random start), which can equal a test packet's id:
            # read on the other side, it would pass for that packet arriving.
            run("sysctl", "-q", "-w", "net.ipv4.icmp_echo_ignore_all=1", ns=name)
        self.dev = None

    def attach(self, dev):
        """`dev` (already in this namespace) gets the side's hosts and the route across."""
        self.dev = dev
        self.sh(f"ip link set {dev} up")
        for h in HOSTS:
            self.sh(f"ip addr add {self.subnet}{h}/24 dev {dev}")
        self.sh(f"ip route add {self.other}0/24 via {self.subnet}{ROUTER_HOST}")
        if self.ip6:
            for h in HOSTS:
                self.sh(f"ip -6 addr add {self.subnet6}{h:x}/64 dev {dev} nodad")
            self.sh(f"ip -6 route add {self.other6}/64 via {self.subnet6}{ROUTER_HOST6}")

    def sniff(self, seconds=0):
        """A sniffer on the side's device: it reads until communicate() (or `seconds`, if
        given) and then prints the frames, one JSON line each (see stop_sniffer)."""
        p = self.popen([DEBIAN_PYTHON, "-c", SNIFFER, self.dev, str(seconds)], stdin=subprocess.PIPE,
                       stdout=subprocess.PIPE, text=True)
        assert p.stdout.readline().strip() == "ready"
        return p

    def send(self, packets, gap):
        lines = "".join(f"{p['dst']} {ip_bytes(p).hex()}\n" for p in packets)
        self.run([DEBIAN_PYTHON, "-c", SENDER, str(gap)], input=lines, timeout=120)


class Router:
    """A router with sides A and B; subclasses load rules."""
    sides = ()

    def exchange(self, batches, gap=0.004, settle=1.0):
        """Sends each batch (side index, packets) in turn; returns the frames each side read
        from before the first packet went until `settle` seconds after the last one did. (The
        window used to be a time fixed in advance from the packet count: on a loaded machine,
        where starting the senders takes seconds, it closed before the last packets arrived.)"""
        sniffers = [side.sniff() for side in self.sides]
        try:
            for index, pkts in batches:
                if pkts:
                    self.sides[index].send(pkts, gap)
            time.sleep(settle)  # the routers forward in milliseconds; errors come back as fast
        finally:
            frames = [stop_sniffer(p) for p in sniffers]
        return frames

    def close(self):
        for side in self.sides:
            side.close()


class KeelRouter(Router):
    def __init__(self, tag, blob, machine="linux", extra="", answer_pings=True, ip6=False):
        self.middle = Namespace(taps=2)
        for tap in self.middle.taps:
            self.middle.sh(f"ip addr flush dev {tap}")
        self.sides = (Side(f"{self.middle.name}-a", 0, answer_pings, ip6),
                      Side(f"{self.middle.name}-b", 1, answer_pings, ip6))
        self.guest = None
        self.generation = 0
        try:
            v6 = [f",{SUBNETS6[i]}{ROUTER_HOST6}/64" if ip6 else "" for i in (0, 1)]
            append = (f"ip={SUBNETS[0]}{ROUTER_HOST}/24{v6[0]} ip1={SUBNETS[1]}{ROUTER_HOST}/24{v6[1]} "
                      f"fw_port={MGMT_PORT} fw_key={KEY} {extra}")
            if os.environ.get("KEEL_FW_STATS") and "stats=" not in extra:
                append += f" stats={os.environ['KEEL_FW_STATS']}"
            if machine == "linux":
                append += f" rules={blob}"
            self.guest = Guest(self.middle, machine=machine, platform="linux" if machine == "linux" else "kvm",
                               append=append, service=FIREWALL, ready=r"firewall: \d+ rules, forwarding",
                               ready_count=1)
            for i, side in enumerate(self.sides):
                side.take(f"tap{i}", self.middle)
                side.attach(f"tap{i}")
        except BaseException:
            self.close()
            raise

    def load(self, blob_path):
        with open(blob_path, "rb") as f:
            blob = f.read()
        self.generation += 1
        cmd = [DEBIAN_PYTHON, os.path.join(FIREWALL, "push_rules.py"), f"{SUBNETS[0]}{ROUTER_HOST}",
               str(MGMT_PORT), KEY, blob_path, "--generation", str(self.generation)]
        result = self.sides[0].sh(" ".join(cmd), check=False, timeout=120)
        assert result.returncode == 0, result.stdout + result.stderr + self.guest.output()[-3000:]
        return blob

    def close(self):
        if self.guest:
            self.guest.close()
        super().close()
        self.middle.close()


class LinuxRouter(Router):
    def __init__(self, tag, answer_pings=True, ip6=False):
        self.ns = f"keelfwl-{os.getpid()}-{tag}"
        self.sides = (Side(f"{self.ns}-a", 0, answer_pings, ip6), Side(f"{self.ns}-b", 1, answer_pings, ip6))
        try:
            run("ip", "netns", "add", self.ns)
            run("sysctl", "-q", "-w", "net.ipv4.ip_forward=1", "net.ipv4.conf.all.rp_filter=0",
                "net.ipv4.conf.default.rp_filter=0", *NO_ICMP_RATE_LIMIT, "net.ipv4.conf.all.send_redirects=0",
                "net.ipv4.conf.default.send_redirects=0", ns=self.ns)
            if ip6:
                run("sysctl", "-q", "-w", "net.ipv6.conf.all.forwarding=1", "net.ipv6.conf.default.forwarding=1",
                    *IP6_SYSCTLS, ns=self.ns)
            for i, side in enumerate(self.sides):
                peer = f"kfw{os.getpid() % 100000}{tag}{i}"
                run("ip", "link", "add", f"eth{i}", "netns", self.ns, "type", "veth", "peer", "name", peer,
                    "netns", side.name)
                run("ip", "addr", "add", f"{SUBNETS[i]}{ROUTER_HOST}/24", "dev", f"eth{i}", ns=self.ns)
                if ip6:
                    run("ip", "-6", "addr", "add", f"{SUBNETS6[i]}{ROUTER_HOST6}/64", "dev", f"eth{i}", "nodad",
                        ns=self.ns)
                run("ip", "link", "set", f"eth{i}", "up", ns=self.ns)
                side.attach(peer)
        except BaseException:
            self.close()
            raise

    def load(self, rules_path):
        run("nft", "-f", "-", ns=self.ns, input=keelfw("nft", rules_path))

    def close(self):
        super().close()
        subprocess.run(["ip", "netns", "del", self.ns], capture_output=True)


def router_answer(frame):
    """An echo reply or a TCP reset from the router itself: its IP id is the router's own and
    may equal a test packet's by chance (the tests' translated packets are neither)."""
    if not frame["src"].endswith(f".{ROUTER_HOST}"):
        return False
    return (frame["proto"] == 1 and frame.get("type") == 0) or (frame["proto"] == 6 and frame.get("flags", 0) & TCP_RST)


def strays(sent, frames):
    """The frames read that carry an IP id yet are neither a sent packet arriving on its far
    side, an ICMP error (attributed by the id it quotes) nor a router's own answer: ones whose id
    could pass for a test packet's. IP id 0 is left out: Linux gives it to the DF packets it
    sends without a socket (the sides' RSTs), and no test packet has it."""
    arrivals = {(1 - index, p["id"]) for index, p in sent}
    return [(side, f) for side, read in enumerate(frames) for f in read
            if f["id"] != 0 and f.get("quoted_id") is None and not router_answer(f)
            and (side, f["id"]) not in arrivals]


def outcomes(sent, frames, sides):
    """{id: outcome} for each sent (side index, packet): what arrived on the far side (its
    addresses, ports, TTL), which ICMP errors about it came back, and for a ping of the router
    itself the echo replies (addresses, TTL). Frames are attributed by IP id, so a frame that
    could carry a test packet's id by chance fails the exchange whether or not it did."""
    unexplained = strays(sent, frames)
    assert not unexplained, f"frames read that no sent packet explains (side, frame): {unexplained}"
    result = {}
    for index, p in sent:
        far, near = frames[1 - index], frames[index]
        got = [f for f in far if f["id"] == p["id"] and f.get("quoted_id") is None and not router_answer(f)]
        # The sides' own kernels answer what reaches them (a RST for a closed TCP port); protocol
        # unreachable errors are left out of the comparison (the routers' own answers to
        # protocols they do not speak are not what the rules decide).
        errors = sorted((f["type"], f["code"], f["src"]) for f in near
                        if f.get("quoted_id") == p["id"] and (f["type"], f["code"]) != PROTOCOL_UNREACHABLE)
        arrived = sorted((f["src"], f["dst"], f.get("sport"), f.get("dport"), f.get("echo_id"), f["ttl"])
                         for f in got)
        result[p["id"]] = {"arrived": arrived, "errors": errors}
        if p["dst"].endswith(f".{ROUTER_HOST}") and "echo_id" in p:  # a ping of the router's: its answer
            result[p["id"]]["answers"] = sorted(
                (f["src"], f["dst"], f["ttl"]) for f in near
                if f["proto"] == 1 and f.get("type") == 0 and f.get("echo_id") == p["echo_id"])
    return result

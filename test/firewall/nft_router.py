"""A router namespace with three veth sides, shared by the forward and NAT differential tests.

The router (ip_forward=1) routes the rule address pools (nft_helpers.ADDRESSES) to all three
sides, so a packet's input and output interface both take three values.
"""
from dataclasses import dataclass

from nft_helpers import link_mac, run
from keelpy.netns import Netns  # noqa: E402 (nft_helpers puts tools/ on the path)

# Router routes: the rule address pools spread over all three sides (most specific first).
ROUTES = [("10.1.0.0/24", 1), ("10.1.1.0/24", 2), ("192.168.7.0/29", 1), ("192.168.7.0/24", 0)]
ROUTER_SYSCTLS = ["net.ipv4.ip_forward=1", "net.ipv4.conf.all.rp_filter=0", "net.ipv4.conf.default.rp_filter=0",
                  "net.ipv4.conf.all.send_redirects=0", "net.ipv4.conf.default.send_redirects=0"]


@dataclass
class Side:
    """A namespace beyond one router interface."""
    ns: str
    dev: str         # its end of the veth pair
    router_dev: str  # the router's end
    subnet: int      # 10.250.<subnet>.0/24: .1 here, .2 on the router (masquerade's address)
    mac: str = ""
    router_mac: str = ""

    @property
    def router_address(self):
        return f"10.250.{self.subnet}.2"


def make_sides(pid, ns_tag, dev_tag):
    """The three sides (tx, r1, r2), named keelfw-<pid>-<ns_tag><side> and <dev_tag><pid><end>."""
    return [Side(f"keelfw-{pid}-{ns_tag}{name}", f"{dev_tag}{pid}{name}", f"{dev_tag}{pid}{rname}", subnet)
            for name, rname, subnet in (("tx", "in", 0), ("r1", "o1", 1), ("r2", "o2", 2))]


def side_for(sides, daddr):
    """The side the router forwards `daddr` to (mirrors ROUTES; checked by the observers)."""
    if daddr.startswith("10.1.0."):
        return sides[1]
    if daddr.startswith("10.1.1."):
        return sides[2]
    return sides[1] if int(daddr.rsplit(".", 1)[1]) < 8 else sides[0]


def router(router_ns, sides, observer_text, local_pool=None):
    """Generator for a module fixture: builds the namespaces, links, routes (and `local_pool`/24
    as the router's own addresses), loads `observer_text`, yields, and always deletes them."""
    made = []
    try:
        router_side = Netns(name=router_ns)
        made.append(router_side)
        # Before the links exist, so each interface starts from these defaults.
        run("sysctl", "-q", "-w", *ROUTER_SYSCTLS, ns=router_ns)
        for s in sides:
            side = Netns(name=s.ns)
            made.append(side)
            side.veth_to(router_side, s.dev, s.router_dev, f"10.250.{s.subnet}.1/24",
                         f"{s.router_address}/24")
            s.mac, s.router_mac = link_mac(s.ns, s.dev), link_mac(router_ns, s.router_dev)
        for prefix, side in ROUTES:
            run("ip", "route", "add", prefix, "via", f"10.250.{side}.1", ns=router_ns)
        if local_pool:
            run("ip", "route", "add", "local", local_pool + "0/24", "dev", "lo", ns=router_ns)
        run("nft", "-f", "-", ns=router_ns, input=observer_text)
        # A lone ACK picks up a connection mid-stream (`new`); the default, made explicit.
        run("sysctl", "-q", "-w", "net.netfilter.nf_conntrack_tcp_loose=1", ns=router_ns)
        yield
    finally:
        for namespace in reversed(made):
            namespace.close()

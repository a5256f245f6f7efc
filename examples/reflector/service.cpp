// The ceiling of a guest's packet rate on its QEMU line (issue 24): every frame is turned
// around at the driver, with no stack in between. ARP requests for our address are answered,
// ICMP echo requests get their reply, UDP datagrams go back to their sender with addresses and
// ports swapped (the IPv4 and UDP checksums stay right: a one's-complement sum does not depend
// on the order of its words); anything else is dropped and counted. `keel bench net` reports
// udp_echo's rate as a fraction of this one. Configure with `ip=10.0.0.2/24`.
//
// The stack is built only to find the NIC and read the address setting; then the NIC's receive
// delegate is taken from it. Each frame goes out in its own receive buffer, transmitted at once.
#include <cstdio>
#include <cstring>
#include <net/stack.hpp>
#include <os>

namespace {

// Offsets in an Ethernet frame carrying IPv4 (RFC 894, RFC 791) and ARP (RFC 826).
constexpr std::size_t eth_dst = 0, eth_src = 6, eth_type = 12, eth_payload = 14;
constexpr uint16_t type_ip4 = 0x0800, type_arp = 0x0806;
constexpr std::size_t arp_op = eth_payload + 6, arp_sha = eth_payload + 8,
                      arp_spa = eth_payload + 14, arp_tha = eth_payload + 18,
                      arp_tpa = eth_payload + 24, arp_end = eth_payload + 28;
constexpr uint16_t arp_request = 1, arp_reply = 2;
constexpr std::size_t ip_protocol = eth_payload + 9, ip_src = eth_payload + 12,
                      ip_dst = eth_payload + 16;
constexpr uint8_t proto_icmp = 1, proto_udp = 17;
constexpr uint8_t icmp_echo_request = 8, icmp_echo_reply = 0;

struct Counts {
  uint64_t arp = 0, icmp = 0, udp = 0, dropped = 0;
} counts;

uint16_t load16(const uint8_t* p) { return uint16_t(p[0] << 8 | p[1]); }
void store16(uint8_t* p, uint16_t v) {
  p[0] = uint8_t(v >> 8);
  p[1] = uint8_t(v);
}
void swap_bytes(uint8_t* a, uint8_t* b, std::size_t n) {
  uint8_t t[6];
  std::memcpy(t, a, n);
  std::memcpy(a, b, n);
  std::memcpy(b, t, n);
}

net::Nic* nic = nullptr;
net::ethernet::Addr our_mac;
uint8_t our_ip[4];

// Turns `f` (size `n`) into its answer in place; false to drop it.
bool reflect(uint8_t* f, std::size_t n) {
  if (n < eth_payload) return false;
  if (load16(f + eth_type) == type_arp) {
    if (n < arp_end || load16(f + arp_op) != arp_request ||
        std::memcmp(f + arp_tpa, our_ip, 4) != 0)
      return false;
    store16(f + arp_op, arp_reply);
    std::memcpy(f + arp_tha, f + arp_sha, 10);  // the asker's MAC and address become the target's
    our_mac.write(f + arp_sha);
    std::memcpy(f + arp_spa, our_ip, 4);
    std::memcpy(f + eth_dst, f + arp_tha, 6);
    our_mac.write(f + eth_src);
    ++counts.arp;
    return true;
  }
  if (load16(f + eth_type) != type_ip4 || n < eth_payload + 20 ||
      std::memcmp(f + ip_dst, our_ip, 4) != 0)
    return false;
  const std::size_t l4 = eth_payload + std::size_t(f[eth_payload] & 0x0f) * 4;
  if (f[ip_protocol] == proto_udp && n >= l4 + 8) {
    swap_bytes(f + l4, f + l4 + 2, 2);
    ++counts.udp;
  } else if (f[ip_protocol] == proto_icmp && n >= l4 + 4 && f[l4] == icmp_echo_request) {
    f[l4] = icmp_echo_reply;
    // RFC 1624: the type word went down by 0x0800, so the checksum goes up by as much.
    uint32_t sum = uint32_t(load16(f + l4 + 2)) + (icmp_echo_request << 8);
    store16(f + l4 + 2, uint16_t(sum + (sum >> 16)));
    ++counts.icmp;
  } else {
    return false;
  }
  swap_bytes(f + ip_src, f + ip_dst, 4);
  swap_bytes(f + eth_dst, f + eth_src, 6);
  return true;
}

void receive(net::PacketPtr p) {
  if (!reflect(p->data(), p->size())) {
    ++counts.dropped;
    return;
  }
  nic->transmit(std::move(p));
}

}  // namespace

void Service::start() {
  net::Stack& stack = net::stack();
  if (stack.interface_count() == 0) {
    std::printf("reflector: no network interface\n");
    os::shutdown(78);
    return;
  }
  net::Interface& interface = stack.interface(net::InterfaceId(0));
  nic = &interface.nic();
  our_mac = interface.mac();
  nic->set_receive(receive);
  interface.on_config([](net::Interface& configured) {
    configured.address().write(our_ip);
    std::printf("reflector: %s %s reflecting at %s\n", nic->name().c_str(),
                our_mac.to_string().c_str(), configured.address().to_string().c_str());
  });
}

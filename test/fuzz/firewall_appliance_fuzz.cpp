// libFuzzer target: arbitrary IPv4 and IPv6 datagrams through a host stack with the firewall
// appliance on its five hooks (connection tracking, NAT, filter chains with reject and log),
// forwarding between two in-memory interfaces, on a clock the input moves. Build with
// -DKEEL_FUZZ=ON (clang); run test/fuzz/run_firewall.sh.
//
// Input records:
//   0x00 t              advance time by t × 1 s (flows expire)
//   0x01 n ...          an IP datagram of n bytes (n < 256) arriving on net0 (to our MAC): IPv6
//                       when its version nibble says 6 (extension header chains, ICMPv6 errors)
//   0x02 n ...          the same on net1
//   other               the rest of the input as one datagram on net0, and stop
// Invariants (abort): no crash or undefined behaviour (ASan/UBSan); every frame the stack
// sends carries an IPv4 header whose checksum verifies; the flow table never holds more flows
// than its size.
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <net/stack.hpp>
#include <vector>

#include "keel/firewall/appliance.hpp"
#include "keel/firewall/compiler.hpp"
#include "manual_clock.hpp"
#include "memory_nic.hpp"
#include "net/wire/ethernet.hpp"
#include "net/wire/ip4.hpp"

namespace {

const net::ethernet::Addr mac0{{0x02, 0, 0, 0, 0, 1}}, mac1{{0x02, 0, 0, 0, 1, 1}};
const net::ethernet::Addr peer{{0x02, 0, 0, 0, 9, 9}};
constexpr size_t kFlows = 32;

const char* kRules = R"(
interface eth0 { }
interface eth1 { }
chain pre type nat hook prerouting { iif eth0 udp dport 7007 dnat to 10.1.0.1:7; tcp dport 80 dnat to 10.1.0.5:8000-8010 }
chain post type nat hook postrouting { oif eth0 masquerade; oif eth1 ip saddr 10.0.0.0/24 snat to 10.1.0.2:40000-40100 }
chain forward hook forward policy drop {
  ct state established,related accept
  ct state invalid log rate 100/second prefix "invalid " drop
  iif eth0 tcp dport { 22, 80, 8000-8010 } accept
  iif eth0 udp dport 7 accept
  icmp type 8 accept
  iif eth1 accept
  reject
}
chain input hook input policy accept { tcp dport 23 reject; ct state invalid drop }
chain filterpost hook postrouting policy accept { ttl < 3 drop; ip6 daddr fd00:1::/48 icmpv6 type echo-reply drop }
chain pre6 hook prerouting policy accept { ip6 saddr fd00:bad::/32 drop; ip6 daddr != fd00::/16 udp dport 9 drop }
)";

void check(bool ok) {
  if (!ok) std::abort();
}

std::vector<uint8_t> compiled_rules() {
  keel::firewall::CompileResult result = keel::firewall::compile_source(kRules, "fuzz.fw");
  check(result.ruleset.has_value());
  return keel::firewall::encode_tables(keel::firewall::build_tables(*result.ruleset));
}

void inject(net::MemoryNic& nic, const net::ethernet::Addr& to, const uint8_t* ip, size_t len) {
  std::vector<uint8_t> frame(net::wire::EthernetRepr::size + len);
  const bool ip6 = len > 0 && (ip[0] >> 4) == 6;
  net::wire::EthernetRepr{to, peer, ip6 ? net::wire::ethertype_ip6 : net::wire::ethertype_ip4}.emit(
      std::span<uint8_t, net::wire::EthernetRepr::size>(frame.data(),
                                                        net::wire::EthernetRepr::size));
  std::copy(ip, ip + len, frame.begin() + net::wire::EthernetRepr::size);
  nic.inject(frame.data(), frame.size());
}

void drain(net::MemoryNic& nic) {
  while (!nic.transmitted.empty()) {
    const auto& frame = nic.transmitted.front();
    check(frame.size() >= net::wire::EthernetRepr::size);
    uint16_t type = net::wire::load16(frame.data() + 12);
    if (type == net::wire::ethertype_ip4) {
      net::wire::Ip4View<const uint8_t> v(frame.data() + 14, frame.size() - 14);
      check(v.check() == net::wire::Ip4Error::none);
    }
    nic.transmitted.pop_front();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<uint8_t> blob = compiled_rules();
  keel::test::ManualClock clock;
  net::MemoryNic nic0(mac0), nic1(mac1);
  auto stack = std::make_unique<net::Stack>(clock);
  stack->add_interface(nic0).configure(net::ip4::Addr{10, 0, 0, 2},
                                       net::ip4::Addr{255, 255, 255, 0});
  stack->add_interface(nic1).configure(net::ip4::Addr{10, 1, 0, 2},
                                       net::ip4::Addr{255, 255, 255, 0});
  net::ip6::Addr ip6_0{{0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2}}, ip6_1 = ip6_0;
  ip6_1.bytes[3] = 1;  // fd00::2/64 and fd00:1::2/64
  stack->interface(0).configure6(ip6_0, 64);
  stack->interface(1).configure6(ip6_1, 64);
  keel::firewall::ApplianceConfig config;
  config.conntrack.max_flows = kFlows;
  config.conntrack.hash_key[0] = 1;
  auto appliance = std::make_unique<keel::firewall::Appliance>(*stack, config);
  check(appliance->replace_rules(blob) == keel::firewall::LoadStatus::ok);
  appliance->apply_declarations();
  for (size_t i = 0; i < size;) {
    uint8_t op = data[i++];
    if (op == 0x00 && i < size) {
      clock.advance(std::chrono::seconds(data[i++]));
    } else if ((op == 0x01 || op == 0x02) && i < size) {
      size_t n = std::min<size_t>(data[i++], size - i);
      inject(op == 0x01 ? nic0 : nic1, op == 0x01 ? mac0 : mac1, data + i, n);
      i += n;
    } else {
      inject(nic0, mac0, data + i, size - i);
      break;
    }
    drain(nic0);
    drain(nic1);
    check(appliance->conntrack().size() <= kFlows);
  }
  clock.advance(std::chrono::seconds(600));
  drain(nic0);
  drain(nic1);
  appliance.reset();
  stack.reset();
  return 0;
}

#include "random_rules.hpp"

#include "keel/firewall/compiler.hpp"
#include "lang/address6.hpp"

namespace keel::firewall::testing {
namespace {
// The universe: addresses in 10.0.0.0/16 and 192.168.0.0/24, a few ports, small ttl/length sets.
const uint32_t kBases[] = {0x0A000000u, 0x0A000100u, 0xC0A80000u, 0x0A00FF00u};
const uint16_t kPorts[] = {0, 22, 53, 80, 443, 1024, 8080, 65535};
const uint8_t kProtos[] = {kProtoTcp, kProtoUdp, kProtoIcmp, 47, 0};
// IPv6 addresses: a few sites whose words 0-3 differ, so prefixes on each word boundary matter.
const Address6 kBases6[] = {address6_from_words(0x20010db8, 0, 0, 0),
                            address6_from_words(0x20010db8, 0x00010000, 0, 0),
                            address6_from_words(0x20010db8, 0x00010000, 0x5, 0),
                            address6_from_words(0xfd000000, 0, 0, 0x100)};
const int kLengths6[] = {16, 32, 40, 48, 64, 80, 96, 112, 124, 128};
const uint8_t kProtos6[] = {kProtoTcp, kProtoUdp, kProtoIcmp6, 47, 0};

class Gen {
 public:
  explicit Gen(std::mt19937& rng) : rng_(rng) {}
  int pick(int n) { return static_cast<int>(rng_() % static_cast<uint32_t>(n)); }
  bool chance(int percent) { return pick(100) < percent; }

  uint32_t address() { return kBases[pick(4)] | static_cast<uint32_t>(pick(16)); }
  Address6 address6() { return kBases6[pick(4)] | static_cast<uint32_t>(pick(16)); }
  std::string address6_item() {
    Address6 a = address6();
    switch (pick(3)) {
      case 0:
        return address6_text(a);
      case 1: {
        int len = kLengths6[pick(static_cast<int>(std::size(kLengths6)))];
        return address6_text(a & ~host_mask6(len)) + "/" + std::to_string(len);
      }
      default:
        return address6_text(a) + "-" + address6_text(a + static_cast<uint32_t>(pick(8)));
    }
  }
  // At most three items: `not` of a list of /128s multiplies out four ways an item.
  std::string list6() {
    if (!chance(30)) return address6_item();
    std::string out = "{ " + address6_item();
    for (int n = pick(2); n >= 0; --n) out += ", " + address6_item();
    return out + " }";
  }
  // The family of the rule being made: 4 (the IPv4 fields may appear), 6 (the IPv6 ones).
  int family = 4;
  std::string address_item() {
    uint32_t a = address();
    switch (pick(3)) {
      case 0:
        return ipv4_text(a);
      case 1: {
        int len = 24 + pick(9);
        uint32_t mask = len == 32 ? ~0u : ~(~0u >> len);
        return ipv4_text(a & mask) + "/" + std::to_string(len);
      }
      default:
        return ipv4_text(a) + "-" + ipv4_text(a + static_cast<uint32_t>(pick(8)));
    }
  }
  std::string port_item() {
    int p = kPorts[pick(8)];
    if (chance(30)) return std::to_string(p) + "-" + std::to_string(std::min(65535, p + pick(500)));
    return std::to_string(p);
  }
  std::string list(std::string (Gen::*item)()) {
    if (!chance(30)) return (this->*item)();
    std::string out = "{ " + (this->*item)();
    for (int n = pick(3); n >= 0; --n) out += ", " + (this->*item)();
    return out + " }";
  }
  std::string op() { return chance(15) ? "!= " : ""; }

  std::string atom() {
    if (family == 6) {
      switch (pick(6)) {
        case 0:
          return std::string("ip6 saddr ") + op() + list6();
        case 1:
          return "ip6 daddr " + op() + list6();
        case 2:
          return std::string("icmpv6 type ") + (chance(50) ? "echo-request" : "{ 1, 129 }") +
                 (chance(30) ? " icmpv6 code 0" : "");
        default:
          break;
      }
    }
    switch (pick(12)) {
      case 0:
        return "iif " + op() +
               (chance(20) ? "{ eth0, eth2 }" : "eth" + std::to_string(pick(kRandomInterfaces)));
      case 1:
        return "oif eth" + std::to_string(pick(kRandomInterfaces));
      case 2:
        if (family == 6) return "udp";
        return std::string("ip saddr ") + op() + (chance(20) ? "$nets" : list(&Gen::address_item));
      case 3:
        if (family == 6) return "ct state new";
        return "ip daddr " + op() + list(&Gen::address_item);
      case 4:
        return std::string(chance(50) ? "tcp" : "udp") + (chance(50) ? " dport " : " sport ") +
               op() + (chance(15) ? "$ports" : list(&Gen::port_item));
      case 5:
        return "protocol " + std::string(chance(50) ? "{ tcp, icmp }" : "udp");
      case 6:
        return std::string("tcp flags ") + (chance(50) ? "syn,!ack" : "ack");
      case 7:
        if (family == 6) return "icmpv6";
        return "icmp type " + std::to_string(pick(2) * 8) + (chance(30) ? " icmp code 0" : "");
      case 8:
        if (family == 6) return "tcp dport 22";
        return std::string("ttl ") + (chance(50) ? "< " : ">= ") + std::to_string(pick(5) * 16);
      case 9: {
        if (family == 6) return "protocol icmpv6";
        int lo = 40 * pick(4);
        return "length " + std::to_string(lo) + "-" + std::to_string(lo + 40 * pick(4));
      }
      case 10:
        return std::string("ct state ") + (chance(50) ? "established,related" : "new");
      default:
        return chance(50) ? "tcp" : "icmp";
    }
  }
  std::string condition(int depth) {
    int shape = depth > 2 ? 0 : pick(6);
    switch (shape) {
      case 1:
        return condition(depth + 1) + " " + condition(depth + 1);
      case 2:
        return "(" + condition(depth + 1) + " or " + condition(depth + 1) + ")";
      case 3:
        return "not " + atom();
      case 4:
        return atom() + " and " + atom();
      default:
        return atom();
    }
  }
  std::string action(int chain, int chains) {
    int a = pick(10);
    if (a < 1 && chain + 1 < chains)
      return "jump helper" + std::to_string(chain + 1 + pick(chains - chain - 1));
    if (a < 4) return "accept";
    if (a < 8) return "drop";
    return "reject";
  }

 private:
  std::mt19937& rng_;
};
}  // namespace

std::string random_ruleset(std::mt19937& rng, const RandomRulesOptions& options) {
  Gen g(rng);
  std::string text =
      "define nets = { 10.0.0.0/28, 192.168.0.4-192.168.0.9 }\ndefine ports = { 22, 80-90 }\n";
  for (int i = 0; i < kRandomInterfaces; ++i)
    text += "interface eth" + std::to_string(i) + " { }\n";
  const int chains = options.helper_chains + 1;
  for (int c = 0; c < chains; ++c) {
    text += c == 0 ? std::string("chain main hook forward policy ") +
                         (g.chance(50) ? "accept" : "drop") + " {\n"
                   : "chain helper" + std::to_string(c) + " {\n";
    int rules = c == 0 ? options.rules : std::max(1, options.rules / 4);
    for (int r = 0; r < rules; ++r) {
      if (options.long_runs && g.chance(10)) {
        // A run of rules that differ only in one field.
        g.family = 4;
        std::string shared = g.chance(50) ? "" : g.atom() + " ";
        bool by_port = g.chance(50);
        for (int k = 4 + g.pick(40); k > 0; --k) {
          text += "  " + shared +
                  (by_port ? "tcp dport " + g.port_item() : "ip saddr " + g.address_item()) + " " +
                  (g.chance(70) ? "drop" : "accept") + "\n";
        }
        continue;
      }
      if (options.ip6) g.family = g.chance(50) ? 6 : 4;
      text +=
          "  " + (g.chance(5) ? std::string() : g.condition(0)) + " " + g.action(c, chains) + "\n";
    }
    text += "}\n";
  }
  return text;
}

Packet random_packet(std::mt19937& rng) {
  Gen g(rng);
  Packet p;
  p.saddr = g.chance(90) ? g.address() : static_cast<uint32_t>(rng());
  p.daddr = g.chance(90) ? g.address() : static_cast<uint32_t>(rng());
  p.proto = kProtos[g.pick(5)];
  if (p.proto == kProtoTcp || p.proto == kProtoUdp) {
    p.sport = g.chance(80) ? kPorts[g.pick(8)] + (g.chance(30) ? g.pick(600) : 0)
                           : static_cast<uint16_t>(rng());
    p.dport = g.chance(80) ? kPorts[g.pick(8)] + (g.chance(30) ? g.pick(600) : 0)
                           : static_cast<uint16_t>(rng());
  }
  if (p.proto == kProtoTcp) p.tcp_flags = static_cast<uint8_t>(g.chance(50) ? 0x02 : rng());
  if (p.proto == kProtoIcmp) {
    p.icmp_type = static_cast<uint8_t>(g.chance(70) ? g.pick(2) * 8 : g.pick(256));
    p.icmp_code = static_cast<uint8_t>(g.pick(2));
  }
  p.ttl = static_cast<uint8_t>(g.pick(256));
  p.length = static_cast<uint16_t>(g.chance(80) ? 20 + g.pick(300) : g.pick(65536));
  p.iif = g.chance(85) ? static_cast<uint8_t>(g.pick(kRandomInterfaces)) : kUnknownInterface;
  p.oif = g.chance(85) ? static_cast<uint8_t>(g.pick(kRandomInterfaces)) : kUnknownInterface;
  p.ct_state = static_cast<uint8_t>(g.pick(4));
  return p;
}

Packet random_packet_both_families(std::mt19937& rng) {
  Packet p = random_packet(rng);
  Gen g(rng);
  if (g.chance(50)) return p;
  // The IPv6 form of it: addresses of the IPv6 universe, ICMPv6 for ICMP, no ttl or length.
  p.family = kFamilyIp6;
  const Address6 s = g.chance(90) ? g.address6() : address6_from_words(rng(), rng(), rng(), rng());
  const Address6 d = g.chance(90) ? g.address6() : address6_from_words(rng(), rng(), rng(), rng());
  p.saddr = address6_word(s, 0);
  p.daddr = address6_word(d, 0);
  for (int w = 1; w < 4; ++w) {
    p.saddr6[w - 1] = address6_word(s, w);
    p.daddr6[w - 1] = address6_word(d, w);
  }
  p.proto = kProtos6[g.pick(5)];
  if (p.proto != kProtoTcp && p.proto != kProtoUdp) p.sport = p.dport = 0;
  if (p.proto != kProtoTcp) p.tcp_flags = 0;
  p.icmp_type = p.icmp_code = 0;
  if (p.proto == kProtoIcmp6) {
    p.icmp_type = static_cast<uint8_t>(g.chance(70) ? 128 + g.pick(2) : g.pick(256));
    p.icmp_code = static_cast<uint8_t>(g.pick(2));
  }
  p.ttl = 0;
  p.length = 0;
  return p;
}

}  // namespace keel::firewall::testing

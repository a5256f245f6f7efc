// nftables exporter: one nft rule per cube (and per protocol class where header fields depend
// on the protocol), so `nft -f` enforces the same first-match verdicts as the classifier.
#include <string>
#include <vector>

#include "compile/interval_set.hpp"
#include "keel/firewall/compiler.hpp"
#include "lang/address6.hpp"

namespace keel::firewall {
namespace {
constexpr int kFilterPriority = 0;
constexpr int kDstNatPriority = -100;
constexpr int kSrcNatPriority = 100;

std::string value(Field f, uint32_t v) {
  if (f == Field::saddr || f == Field::daddr) return ipv4_text(v);
  if (f == Field::ct_state) {
    static constexpr const char* kStates[] = {"new", "established", "related", "invalid",
                                              "untracked"};
    return v < std::size(kStates) ? kStates[v] : std::to_string(v);
  }
  return std::to_string(v);
}

std::string set_text(Field f, const IntervalSet& set) {
  std::string out = "{ ";
  for (size_t i = 0; i < set.size(); ++i) {
    if (i) out += ", ";
    out += value(f, set[i].lo);
    // ct state is a bitmask type in nft: no ranges, list each state.
    if (f == Field::ct_state || f == Field::tcp_flags) {
      for (uint32_t v = set[i].lo + 1; v <= set[i].hi; ++v) out += ", " + value(f, v);
    } else if (set[i].hi != set[i].lo) {
      out += "-" + value(f, set[i].hi);
    }
  }
  return out + " }";
}

enum class ProtoClass { icmp, icmpv6, tcp, udp, other };
// The family a cube is emitted for: `any` when no field it tests depends on the family.
enum class Family { any, ip4, ip6 };

bool is_address_word(Field f) {
  return f == Field::saddr6_1 || f == Field::saddr6_2 || f == Field::saddr6_3 ||
         f == Field::daddr6_1 || f == Field::daddr6_2 || f == Field::daddr6_3;
}

// Fields whose meaning or presence depends on the family (see packet.hpp).
bool family_dependent(Field f) {
  switch (f) {
    case Field::saddr:
    case Field::daddr:
    case Field::ttl:
    case Field::length:
    case Field::icmp_type:
    case Field::icmp_code:
      return true;
    default:
      return is_address_word(f);
  }
}

// Whether a field has a value in packets of a family (else it reads 0): the address words 1-3
// in IPv6 only, ttl and length in IPv4 only.
bool defined_in(Field f, Family family) {
  if (is_address_word(f)) return family == Family::ip6;
  if (f == Field::ttl || f == Field::length) return family == Family::ip4;
  return true;
}

// Value a protocol-dependent field has for packets of another protocol (see packet.hpp).
bool defined_for(Field f, ProtoClass c, Family family) {
  switch (f) {
    case Field::sport:
    case Field::dport:
      return c == ProtoClass::tcp || c == ProtoClass::udp;
    case Field::tcp_flags:
      return c == ProtoClass::tcp;
    case Field::icmp_type:
    case Field::icmp_code:
      return (c == ProtoClass::icmp && family == Family::ip4) ||
             (c == ProtoClass::icmpv6 && family == Family::ip6);
    default:
      return true;
  }
}

// The protocol classes a family's packets fall into: its ICMP (whose fields are defined), TCP,
// UDP and the others.
std::vector<ProtoClass> protocol_classes(Family family) {
  switch (family) {
    case Family::ip4:
      return {ProtoClass::icmp, ProtoClass::tcp, ProtoClass::udp, ProtoClass::other};
    case Family::ip6:
      return {ProtoClass::icmpv6, ProtoClass::tcp, ProtoClass::udp, ProtoClass::other};
    case Family::any:
      break;
  }
  return {ProtoClass::tcp, ProtoClass::udp, ProtoClass::other};
}

IntervalSet class_protocols(ProtoClass c, Family family) {
  switch (c) {
    case ProtoClass::icmp:
      return single(kProtoIcmp, kProtoIcmp);
    case ProtoClass::icmpv6:
      return single(kProtoIcmp6, kProtoIcmp6);
    case ProtoClass::tcp:
      return single(kProtoTcp, kProtoTcp);
    case ProtoClass::udp:
      return single(kProtoUdp, kProtoUdp);
    case ProtoClass::other:
      break;
  }
  IntervalSet classed{{kProtoTcp, kProtoTcp}, {kProtoUdp, kProtoUdp}};
  if (family == Family::ip4) classed.insert(classed.begin(), {kProtoIcmp, kProtoIcmp});
  if (family == Family::ip6) classed.push_back({kProtoIcmp6, kProtoIcmp6});
  return complement(classed, 0xFF);
}

// What a rule does, as nft text. A NAT target with ports has a second form for protocols
// without ports: nft refuses a port mapping unless the rule matches TCP or UDP ("transport
// protocol mapping is only valid after transport protocol match"), and Keel reads ports only
// for TCP and UDP, so other protocols get the address alone.
struct ActionText {
  std::string with_ports;
  std::string without_ports;
  explicit ActionText(std::string text) : with_ports(text), without_ports(std::move(text)) {}
  ActionText(std::string ports, std::string address)
      : with_ports(std::move(ports)), without_ports(std::move(address)) {}
  bool depends_on_protocol() const { return with_ports != without_ports; }
  const std::string& for_class(ProtoClass c) const {
    return c == ProtoClass::tcp || c == ProtoClass::udp ? with_ports : without_ports;
  }
};

// An IPv6 address match from the word fields of one direction: `ip6 saddr PREFIX` or
// `ip6 saddr FIRST-LAST` when the words make a box of consecutive addresses (words 0..k-1 single
// values, word k one interval, the rest untested: what the lowering makes of prefixes and
// ranges), else one raw 32-bit match per word on the IPv6 header (`@nh,OFFSET,32`: the source
// at byte 8, the destination at byte 24; what `not` makes of them).
std::string address6_match(const FieldSet* const words[4], bool source) {
  int count = 0;
  while (count < 4 && words[count]) ++count;
  bool box = true;
  for (int w = count; w < 4; ++w) box &= words[w] == nullptr;
  for (int w = 0; w < count && box; ++w)
    box =
        words[w]->set.size() == 1 && (w == count - 1 || words[w]->set[0].lo == words[w]->set[0].hi);
  const std::string keyword = source ? "ip6 saddr " : "ip6 daddr ";
  if (box) {
    if (count == 0) return "";
    uint32_t lo[4] = {}, hi[4] = {~0u, ~0u, ~0u, ~0u};
    for (int w = 0; w < count; ++w) lo[w] = words[w]->set[0].lo, hi[w] = words[w]->set[0].hi;
    const Address6 first = address6_from_words(lo[0], lo[1], lo[2], lo[3]);
    const Address6 last = address6_from_words(hi[0], hi[1], hi[2], hi[3]);
    for (int length = 0; length <= kAddress6Bits; ++length) {
      if ((first & host_mask6(length)) == 0 && (first | host_mask6(length)) == last) {
        return keyword + address6_text(first) +
               (length == kAddress6Bits ? "" : "/" + std::to_string(length)) + " ";
      }
    }
    return keyword + address6_text(first) + "-" + address6_text(last) + " ";
  }
  constexpr int kSourceBit = 64, kDestinationBit = 192, kWordBits = 32;
  std::string text;
  for (int i = 0; i < 4; ++i) {
    if (!words[i]) continue;
    text +=
        "@nh," + std::to_string((source ? kSourceBit : kDestinationBit) + kWordBits * i) + ",32 { ";
    for (size_t k = 0; k < words[i]->set.size(); ++k) {
      const Interval iv = words[i]->set[k];
      text += (k ? ", " : "") + std::to_string(iv.lo);
      if (iv.hi != iv.lo) text += "-" + std::to_string(iv.hi);
    }
    text += " } ";
  }
  return text;
}

class Exporter {
 public:
  Exporter(const Ruleset& rs, std::string& out) : rs_(rs), out_(out) {}

  // One nft rule per family the cube's fields depend on, and per protocol class where header
  // fields depend on the protocol.
  void cube(const IrCube& cube, const ActionText& action) {
    const FieldSet* family = nullptr;
    bool dependent = false;
    for (const FieldSet& fs : cube.fields) {
      if (fs.field == Field::family) family = &fs;
      dependent |= family_dependent(fs.field);
    }
    if (family) {
      const bool ip4 = contains(family->set, kFamilyIp4);
      if (ip4) for_family(cube, action, Family::ip4);
      if (contains(family->set, kFamilyIp6)) for_family(cube, action, Family::ip6);
    } else if (dependent) {
      for_family(cube, action, Family::ip4);
      for_family(cube, action, Family::ip6);
    } else {
      for_family(cube, action, Family::any);
    }
  }

 private:
  void for_family(const IrCube& cube, const ActionText& action, Family family) {
    IrCube kept;
    for (const FieldSet& fs : cube.fields) {
      if (fs.field == Field::family) continue;
      if (!defined_in(fs.field, family)) {
        if (!contains(fs.set, 0)) return;  // the field reads 0 in this family, 0 is excluded
        continue;
      }
      kept.fields.push_back(fs);
    }
    const FieldSet* proto = nullptr;
    bool dependent = action.depends_on_protocol();
    for (const FieldSet& fs : kept.fields) {
      if (fs.field == Field::proto) proto = &fs;
      dependent |= !defined_for(fs.field, ProtoClass::other, family);
    }
    if (!dependent) {
      emit(kept, nullptr, ProtoClass::other, family, action.with_ports);
      return;
    }
    for (ProtoClass c : protocol_classes(family)) {
      IntervalSet protos = class_protocols(c, family);
      if (proto) protos = intersect(protos, proto->set);
      if (protos.empty()) continue;
      emit(kept, &protos, c, family, action.for_class(c));
    }
  }

  void interface_match(const char* keyword, const IntervalSet& set, std::string& line) {
    const size_t declared = rs_.interfaces.size();
    bool others = !intersect(set, single(static_cast<uint32_t>(declared), 0xFF)).empty();
    std::string names;
    size_t listed = 0;
    for (size_t i = 0; i < declared; ++i) {
      if (contains(set, static_cast<uint32_t>(i)) != others) {
        names += (listed++ ? ", \"" : "\"") + rs_.interfaces[i].name + "\"";
      }
    }
    if (others && listed == 0) return;  // every interface
    line += std::string(keyword) + (others ? " != { " : " { ") + names + " } ";
  }

  void emit(const IrCube& cube, const IntervalSet* protos, ProtoClass c, Family family,
            const std::string& action) {
    std::string line = "    ";
    if (family == Family::ip4) line += "meta nfproto ipv4 ";
    if (family == Family::ip6) line += "meta nfproto ipv6 ";
    if (protos && !is_full(*protos, 0xFF))
      line += "meta l4proto " + set_text(Field::proto, *protos) + " ";
    const FieldSet* saddr6[4] = {};
    const FieldSet* daddr6[4] = {};
    for (const FieldSet& fs : cube.fields) {
      if (fs.field == Field::proto) {
        if (!protos) line += "meta l4proto " + set_text(Field::proto, fs.set) + " ";
        continue;
      }
      if (protos && !defined_for(fs.field, c, family)) {
        if (!contains(fs.set, 0)) return;  // the field reads 0 here and 0 is excluded
        continue;
      }
      const char* l4 = c == ProtoClass::tcp ? "tcp" : "udp";
      const char* icmp = family == Family::ip6 ? "icmpv6" : "icmp";
      if (family == Family::ip6) {
        for (int w = 0; w < 4; ++w) {
          if (fs.field == saddr_word(w)) saddr6[w] = &fs;
          if (fs.field == daddr_word(w)) daddr6[w] = &fs;
        }
        if (fs.field == Field::saddr || fs.field == Field::daddr || is_address_word(fs.field))
          continue;
      }
      switch (fs.field) {
        case Field::iif:
          interface_match("iifname", fs.set, line);
          continue;
        case Field::oif:
          interface_match("oifname", fs.set, line);
          continue;
        case Field::saddr:
          line += "ip saddr ";
          break;
        case Field::daddr:
          line += "ip daddr ";
          break;
        case Field::sport:
          line += std::string(l4) + " sport ";
          break;
        case Field::dport:
          line += std::string(l4) + " dport ";
          break;
        case Field::tcp_flags:
          line += "tcp flags ";
          break;
        case Field::icmp_type:
          line += std::string(icmp) + " type ";
          break;
        case Field::icmp_code:
          line += std::string(icmp) + " code ";
          break;
        case Field::ttl:
          line += "ip ttl ";
          break;
        case Field::length:
          line += "ip length ";
          break;
        case Field::ct_state:
          line += "ct state ";
          break;
        case Field::proto:
        case Field::family:
        case Field::saddr6_1:
        case Field::saddr6_2:
        case Field::saddr6_3:
        case Field::daddr6_1:
        case Field::daddr6_2:
        case Field::daddr6_3:
          continue;  // handled above
      }
      line += set_text(fs.field, fs.set) + " ";
    }
    if (family == Family::ip6) line += address6_match(saddr6, true) + address6_match(daddr6, false);
    out_ += line + action;
  }

  const Ruleset& rs_;
  std::string& out_;
};

enum class NatPorts { include, omit };

// "ip": NAT is IPv4 only, and an inet table needs the family named (docs/firewall/language.md).
std::string nat_target(const IrRule& r, NatPorts ports) {
  std::string text = " ip to " + ipv4_text(r.nat_address);
  if (ports == NatPorts::include && (r.nat_port_lo || r.nat_port_hi)) {
    text += ":" + std::to_string(r.nat_port_lo);
    if (r.nat_port_hi != r.nat_port_lo) text += "-" + std::to_string(r.nat_port_hi);
  }
  return text;
}

std::string verdict(const IrRule& r, NatPorts ports = NatPorts::include) {
  switch (r.action) {
    case Action::accept:
      return "accept";
    case Action::drop:
      return "drop";
    case Action::reject:
      return "reject";
    case Action::snat:
      return "snat" + nat_target(r, ports);
    case Action::dnat:
      return "dnat" + nat_target(r, ports);
    case Action::masquerade:
      return "masquerade";
  }
  return "accept";
}

int priority(const IrChain& chain) {
  if (chain.kind == ChainKind::filter) return kFilterPriority;
  return chain.hook == Hook::prerouting || chain.hook == Hook::output ? kDstNatPriority
                                                                      : kSrcNatPriority;
}
}  // namespace

std::string ipv4_text(uint32_t a) {
  return std::to_string(a >> 24) + "." + std::to_string(a >> 16 & 0xFF) + "." +
         std::to_string(a >> 8 & 0xFF) + "." + std::to_string(a & 0xFF);
}

std::string export_nft(const Ruleset& ruleset, const std::string& table_name) {
  // One inet table: both families, as the classifier sees them (docs/decisions/0138).
  std::string out = "# generated by keel-fw\ntable inet " + table_name + "\ndelete table inet " +
                    table_name + "\ntable inet " + table_name + " {\n";
  Exporter exporter(ruleset, out);
  for (const IrChain& chain : ruleset.chains) {
    out += "  chain " + chain.name + " {\n    type " +
           (chain.kind == ChainKind::nat ? "nat" : "filter") + " hook " + to_string(chain.hook) +
           " priority " + std::to_string(priority(chain)) + "; policy " + to_string(chain.policy) +
           ";\n";
    for (const IrRule& rule : chain.rules) {
      std::string log;
      if (rule.log) log = "log prefix \"" + ruleset.strings[rule.log_prefix] + "\" ";
      const bool limited = rule.log && rule.log_rate_per_minute;
      // A limit is a match in nft: log under the limit, then decide unconditionally.
      const std::string prefix = limited ? "" : log;
      const ActionText action(prefix + verdict(rule) + "\n",
                              prefix + verdict(rule, NatPorts::omit) + "\n");
      for (const IrCube& cube : rule.condition) {
        if (limited) {
          std::string rate = std::to_string(rule.log_rate_per_minute);
          exporter.cube(cube, ActionText("limit rate " + rate + "/minute " + log + "\n"));
        }
        exporter.cube(cube, action);
      }
    }
    out += "  }\n";
  }
  return out + "}\n";
}

}  // namespace keel::firewall

// nftables exporter: one nft rule per cube (and per protocol class where header fields depend
// on the protocol), so `nft -f` enforces the same first-match verdicts as the classifier.
#include <string>

#include "compile/interval_set.hpp"
#include "keel/firewall/compiler.hpp"

namespace keel::firewall {
namespace {
constexpr int kFilterPriority = 0;
constexpr int kDstNatPriority = -100;
constexpr int kSrcNatPriority = 100;

std::string value(Field f, uint32_t v) {
  if (f == Field::saddr || f == Field::daddr) return ipv4_text(v);
  if (f == Field::ct_state) {
    static constexpr const char* kStates[] = {"new", "established", "related", "invalid"};
    return kStates[v & 3];
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

enum class ProtoClass { icmp, tcp, udp, other };

// Value a protocol-dependent field has for packets of another protocol (see packet.hpp).
bool defined_for(Field f, ProtoClass c) {
  switch (f) {
    case Field::sport:
    case Field::dport:
      return c == ProtoClass::tcp || c == ProtoClass::udp;
    case Field::tcp_flags:
      return c == ProtoClass::tcp;
    case Field::icmp_type:
    case Field::icmp_code:
      return c == ProtoClass::icmp;
    default:
      return true;
  }
}

IntervalSet class_protocols(ProtoClass c) {
  switch (c) {
    case ProtoClass::icmp:
      return single(kProtoIcmp, kProtoIcmp);
    case ProtoClass::tcp:
      return single(kProtoTcp, kProtoTcp);
    case ProtoClass::udp:
      return single(kProtoUdp, kProtoUdp);
    case ProtoClass::other:
      return complement({{kProtoIcmp, kProtoIcmp}, {kProtoTcp, kProtoTcp}, {kProtoUdp, kProtoUdp}},
                        0xFF);
  }
  return {};
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

class Exporter {
 public:
  Exporter(const Ruleset& rs, std::string& out) : rs_(rs), out_(out) {}

  void cube(const IrCube& cube, const ActionText& action) {
    const FieldSet* proto = nullptr;
    bool dependent = action.depends_on_protocol();
    for (const FieldSet& fs : cube.fields) {
      if (fs.field == Field::proto) proto = &fs;
      dependent |= !defined_for(fs.field, ProtoClass::other);
    }
    if (!dependent) {
      emit(cube, nullptr, ProtoClass::other, action.with_ports);
      return;
    }
    for (ProtoClass c : {ProtoClass::icmp, ProtoClass::tcp, ProtoClass::udp, ProtoClass::other}) {
      IntervalSet protos = class_protocols(c);
      if (proto) protos = intersect(protos, proto->set);
      if (protos.empty()) continue;
      emit(cube, &protos, c, action.for_class(c));
    }
  }

 private:
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

  void emit(const IrCube& cube, const IntervalSet* protos, ProtoClass c,
            const std::string& action) {
    std::string line = "    ";
    if (protos && !is_full(*protos, 0xFF))
      line += "meta l4proto " + set_text(Field::proto, *protos) + " ";
    for (const FieldSet& fs : cube.fields) {
      if (fs.field == Field::proto) {
        if (!protos) line += "meta l4proto " + set_text(Field::proto, fs.set) + " ";
        continue;
      }
      if (protos && !defined_for(fs.field, c)) {
        if (!contains(fs.set, 0)) return;  // the field reads 0 here and 0 is excluded
        continue;
      }
      const char* l4 = c == ProtoClass::tcp ? "tcp" : "udp";
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
          line += "icmp type ";
          break;
        case Field::icmp_code:
          line += "icmp code ";
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
          break;
      }
      line += set_text(fs.field, fs.set) + " ";
    }
    out_ += line + action;
  }

  const Ruleset& rs_;
  std::string& out_;
};

enum class NatPorts { include, omit };

std::string nat_target(const IrRule& r, NatPorts ports) {
  std::string text = " to " + ipv4_text(r.nat_address);
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
  std::string out = "# generated by keel-fw\ntable ip " + table_name + "\ndelete table ip " +
                    table_name + "\ntable ip " + table_name + " {\n";
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

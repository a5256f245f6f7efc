#include "lang/checker.hpp"

#include "compile/interval_set.hpp"

namespace keel::firewall {
namespace {
constexpr size_t kMaxInterfaces = kUnknownInterface;  // ids 0..254; 255 means undeclared

}  // namespace

const char* atom_name(const Atom& atom) {
  const bool v6 = atom.proto == kProtoIcmp6;
  switch (atom.kind) {
    case AtomKind::iif:
      return "iif";
    case AtomKind::oif:
      return "oif";
    case AtomKind::saddr:
      return "ip saddr";
    case AtomKind::daddr:
      return "ip daddr";
    case AtomKind::protocol:
      return "protocol";
    case AtomKind::sport:
      return atom.proto == kProtoTcp ? "tcp sport" : "udp sport";
    case AtomKind::dport:
      return atom.proto == kProtoTcp ? "tcp dport" : "udp dport";
    case AtomKind::tcp_flags:
      return "tcp flags";
    case AtomKind::icmp_type:
      return v6 ? "icmpv6 type" : "icmp type";
    case AtomKind::icmp_code:
      return v6 ? "icmpv6 code" : "icmp code";
    case AtomKind::ttl:
      return "ttl";
    case AtomKind::length:
      return "length";
    case AtomKind::ct_state:
      return "ct state";
    case AtomKind::saddr6:
      return "ip6 saddr";
    case AtomKind::daddr6:
      return "ip6 daddr";
  }
  return "?";
}

namespace {
ValueType expected_type(AtomKind kind) {
  switch (kind) {
    case AtomKind::iif:
    case AtomKind::oif:
      return ValueType::name;
    case AtomKind::saddr:
    case AtomKind::daddr:
      return ValueType::address;
    case AtomKind::saddr6:
    case AtomKind::daddr6:
      return ValueType::address6;
    default:
      return ValueType::number;
  }
}

const char* type_phrase(ValueType type) {
  switch (type) {
    case ValueType::address:
      return "an IPv4 address, prefix or address range";
    case ValueType::address6:
      return "an IPv6 address, prefix or address range";
    case ValueType::number:
      return "a number, range or list of numbers";
    case ValueType::name:
      return "an interface name";
    case ValueType::empty:
      return "an empty list";
  }
  return "?";
}
}  // namespace

const char* to_string(ValueType type) {
  switch (type) {
    case ValueType::address:
      return "address";
    case ValueType::address6:
      return "IPv6 address";
    case ValueType::number:
      return "number";
    case ValueType::name:
      return "name";
    case ValueType::empty:
      return "empty list";
  }
  return "?";
}

std::string where(const Program& program, SourceLocation loc) {
  std::string file = loc.file < program.files.size() ? program.files[loc.file] : "?";
  return file + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.column);
}

Field atom_field(AtomKind kind) {
  switch (kind) {
    case AtomKind::iif:
      return Field::iif;
    case AtomKind::oif:
      return Field::oif;
    case AtomKind::saddr:
      return Field::saddr;
    case AtomKind::daddr:
      return Field::daddr;
    case AtomKind::protocol:
      return Field::proto;
    case AtomKind::sport:
      return Field::sport;
    case AtomKind::dport:
      return Field::dport;
    case AtomKind::tcp_flags:
      return Field::tcp_flags;
    case AtomKind::icmp_type:
      return Field::icmp_type;
    case AtomKind::icmp_code:
      return Field::icmp_code;
    case AtomKind::ttl:
      return Field::ttl;
    case AtomKind::length:
      return Field::length;
    case AtomKind::ct_state:
      return Field::ct_state;
    case AtomKind::saddr6:
      return Field::saddr;  // word 0; the lowering adds words 1-3
    case AtomKind::daddr6:
      return Field::daddr;
  }
  return Field::proto;
}

int atom_family(const Atom& atom) {
  switch (atom.kind) {
    case AtomKind::saddr:
    case AtomKind::daddr:
    case AtomKind::ttl:
    case AtomKind::length:
      return kFamilyIp4;
    case AtomKind::saddr6:
    case AtomKind::daddr6:
      return kFamilyIp6;
    case AtomKind::icmp_type:
    case AtomKind::icmp_code:
      return atom.proto == kProtoIcmp6 ? kFamilyIp6 : kFamilyIp4;
    default:
      return kAnyFamily;
  }
}

uint8_t atom_implied_proto(const Atom& atom) {
  switch (atom.kind) {
    case AtomKind::sport:
    case AtomKind::dport:
      return atom.proto;
    case AtomKind::tcp_flags:
      return kProtoTcp;
    case AtomKind::icmp_type:
    case AtomKind::icmp_code:
      return atom.proto;
    default:
      return 0;
  }
}

namespace {
void declare(std::unordered_map<std::string, uint32_t>& table, const std::string& name,
             uint32_t index, SourceLocation loc,
             SourceLocation first_loc_of(uint32_t, const Program&), const Program& program,
             const char* what, ErrorSink& errors) {
  auto [it, inserted] = table.emplace(name, index);
  if (!inserted) {
    errors.add(loc, std::string("duplicate definition of ") + what + " '" + name +
                        "' (first defined at " + where(program, first_loc_of(it->second, program)) +
                        ")");
  }
}

// An ip6 saddr/daddr atom: its value as 128-bit ranges, comparisons and '!=' applied.
void resolve_address6(Atom& atom, const Value& value, ErrorSink& errors) {
  RangeSet6 set = value.set6;
  normalize6(set);
  if (atom.op != CompareOp::eq && atom.op != CompareOp::ne) {
    if (set.size() != 1 || set[0].lo != set[0].hi) {
      errors.add(atom.value.location, "comparison needs a single value, not a range or list");
      return;
    }
    const Address6 v = set[0].lo;
    switch (atom.op) {
      case CompareOp::lt:
        set = v == 0 ? RangeSet6{} : RangeSet6{{0, v - 1}};
        break;
      case CompareOp::le:
        set = {{0, v}};
        break;
      case CompareOp::gt:
        set = v == kMaxAddress6 ? RangeSet6{} : RangeSet6{{v + 1, kMaxAddress6}};
        break;
      default:
        set = {{v, kMaxAddress6}};
        break;
    }
  } else if (atom.op == CompareOp::ne) {
    set = complement6(set);
  }
  atom.resolved6 = std::move(set);
}

// Resolves one atom's value to the field values it accepts.
void resolve_atom(Atom& atom, const Program& program, const Symbols& symbols, ErrorSink& errors) {
  const Value* value = &atom.value;
  std::string origin;
  if (!value->reference.empty()) {
    auto it = symbols.defines.find(value->reference);
    if (it == symbols.defines.end()) {
      errors.add(value->location, "undefined name '" + value->reference + "'");
      return;
    }
    value = &program.defines[it->second].value;
    origin = " '$" + atom.value.reference + "' (defined at " +
             where(program, program.defines[it->second].location) + ")";
  }
  Field field = atom_field(atom.kind);
  ValueType want = expected_type(atom.kind);
  if (value->type != want && value->type != ValueType::empty) {
    std::string hint;
    if (want == ValueType::address && value->type == ValueType::address6)
      hint = ": IPv6 addresses are matched by 'ip6 " + std::string(atom_name(atom) + 3) + "'";
    else if (want == ValueType::address6 && value->type == ValueType::address)
      hint = ": IPv4 addresses are matched by 'ip " + std::string(atom_name(atom) + 4) + "'";
    errors.add(atom.value.location, std::string("type mismatch: ") + atom_name(atom) + " expects " +
                                        type_phrase(want) + ", found " + to_string(value->type) +
                                        origin + hint);
    return;
  }
  if (want == ValueType::address6) {
    resolve_address6(atom, *value, errors);
    return;
  }
  IntervalSet set;
  if (want == ValueType::name) {
    for (size_t i = 0; i < value->names.size(); ++i) {
      auto it = symbols.interfaces.find(value->names[i]);
      if (it == symbols.interfaces.end()) {
        errors.add(value->name_locations[i], "undefined interface '" + value->names[i] + "'");
        return;
      }
      set.push_back({it->second, it->second});
    }
  } else {
    if (value->max_value > field_max(field)) {
      errors.add(value->max_location, "value " + std::to_string(value->max_value) +
                                          " out of range for " + atom_name(atom) + ": expected 0-" +
                                          std::to_string(field_max(field)));
      return;
    }
    set = value->set;
  }
  normalize(set);
  uint32_t max = field_max(field);
  if (atom.op != CompareOp::eq && atom.op != CompareOp::ne) {
    if (want == ValueType::name || set.size() != 1 || set[0].lo != set[0].hi) {
      errors.add(atom.value.location, std::string("comparison needs a single ") +
                                          (want == ValueType::name ? "number or address, not a name"
                                                                   : "value, not a range or list"));
      return;
    }
    uint32_t v = set[0].lo;
    switch (atom.op) {
      case CompareOp::lt:
        set = v == 0 ? IntervalSet{} : single(0, v - 1);
        break;
      case CompareOp::le:
        set = single(0, v);
        break;
      case CompareOp::gt:
        set = v == max ? IntervalSet{} : single(v + 1, max);
        break;
      default:
        set = single(v, max);
        break;
    }
  } else if (atom.op == CompareOp::ne) {
    set = complement(set, max);
  }
  atom.resolved = std::move(set);
}
}  // namespace

void check_program(Program& program, Symbols& symbols, ErrorSink& errors) {
  for (uint32_t i = 0; i < program.defines.size(); ++i) {
    DefineStmt& define = program.defines[i];
    if (!define.value.reference.empty()) {
      // A define may alias an earlier one.
      auto it = symbols.defines.find(define.value.reference);
      if (it == symbols.defines.end())
        errors.add(define.value.location, "undefined name '" + define.value.reference + "'");
      else
        define.value = program.defines[it->second].value;
    }
    declare(
        symbols.defines, define.name, i, define.location,
        [](uint32_t k, const Program& p) { return p.defines[k].location; }, program, "name",
        errors);
  }
  for (uint32_t i = 0; i < program.interfaces.size(); ++i) {
    if (i >= kMaxInterfaces) {
      errors.add(program.interfaces[i].location, "too many interfaces: at most 255");
      break;
    }
    declare(
        symbols.interfaces, program.interfaces[i].name, i, program.interfaces[i].location,
        [](uint32_t k, const Program& p) { return p.interfaces[k].location; }, program, "interface",
        errors);
  }
  for (RouteStmt& route : program.routes) {
    if (!route.device.empty() && !symbols.interfaces.count(route.device)) {
      errors.add(route.device_location, "undefined interface '" + route.device + "'");
    }
  }
  for (uint32_t i = 0; i < program.chains.size(); ++i) {
    declare(
        symbols.chains, program.chains[i].name, i, program.chains[i].location,
        [](uint32_t k, const Program& p) { return p.chains[k].location; }, program, "chain",
        errors);
  }
  // One base chain per (type, hook).
  for (uint32_t i = 0; i < program.chains.size(); ++i) {
    const ChainStmt& chain = program.chains[i];
    if (!chain.has_hook) continue;
    if (chain.kind == ChainKind::nat && chain.hook == Hook::forward) {
      errors.add(chain.hook_location,
                 "nat chains attach to prerouting, input, output or postrouting, not forward");
    }
    for (uint32_t j = 0; j < i; ++j) {
      const ChainStmt& other = program.chains[j];
      if (other.has_hook && other.kind == chain.kind && other.hook == chain.hook) {
        errors.add(chain.hook_location, std::string("duplicate definition of hook '") +
                                            to_string(chain.hook) + "' (first attached by chain '" +
                                            other.name + "' at " + where(program, other.location) +
                                            ")");
        break;
      }
    }
  }
  for (Atom& atom : program.atoms) {
    resolve_atom(atom, program, symbols, errors);
    if (atom.kind == AtomKind::ct_state && !program.conntrack) {
      errors.add(atom.location, "'ct state' needs connection tracking: remove 'conntrack off'");
    }
  }
}

}  // namespace keel::firewall

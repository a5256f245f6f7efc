#pragma once
// The compiler's intermediate form: every chain flattened (jumps inlined) into an ordered list
// of rules, each rule's condition in disjunctive normal form over interval sets per field.
#include <cstdint>
#include <string>
#include <vector>

#include "keel/firewall/packet.hpp"
#include "keel/firewall/tables.hpp"

namespace keel::firewall {

struct SourceLocation {
  uint32_t file = 0;  // index into the file table of the compilation
  uint32_t line = 0;
  uint32_t column = 0;
};

// Sorted, disjoint, non-adjacent closed intervals.
using IntervalSet = std::vector<Interval>;

struct FieldSet {
  Field field = Field::iif;
  IntervalSet set;
};

// A conjunction; fields appear at most once, sorted. No fields = matches everything.
struct IrCube {
  std::vector<FieldSet> fields;
};
using Dnf = std::vector<IrCube>;  // empty = matches nothing

struct IrRule {
  Dnf condition;
  Action action = Action::accept;
  bool log = false;
  uint16_t log_rate_per_minute = 0;
  uint32_t log_prefix = 0;  // into Ruleset::strings
  uint32_t nat_address = 0;
  uint16_t nat_port_lo = 0;
  uint16_t nat_port_hi = 0;
  uint32_t source_id = 0;  // id of the rule statement that decides
  SourceLocation location;
};

struct IrChain {
  std::string name;
  ChainKind kind = ChainKind::filter;
  Hook hook = Hook::input;
  Action policy = Action::accept;
  std::vector<IrRule> rules;
};

struct IrInterface {
  std::string name;
  uint32_t address = 0;
  uint32_t netmask = 0;
  uint32_t gateway = 0;
  uint16_t vlan = 0;
  bool dhcp = false;
};

struct IrRoute {
  uint32_t prefix = 0;
  uint8_t length = 0;
  uint32_t gateway = 0;
  uint8_t interface = kUnknownInterface;
  uint32_t metric = 0;
};

struct Ruleset {
  std::vector<IrChain> chains;  // base chains only, at most one per (kind, hook)
  std::vector<IrInterface> interfaces;
  std::vector<IrRoute> routes;
  std::vector<std::string> strings{""};
  bool conntrack = true;
};

}  // namespace keel::firewall

#pragma once
// The parsed program. Conditions are trees in flat pools (index links) so a million rules
// cost a few small records each, not a web of heap nodes.
#include <cstdint>
#include <string>
#include <vector>

#include "keel/firewall/ruleset.hpp"
#include "lang/address6.hpp"

namespace keel::firewall {

enum class ValueType : uint8_t { address, address6, number, name, empty };
const char* to_string(ValueType type);

// A literal, a list literal, a list file or a $reference. After checking, `set` holds the
// resolved values (for names: interface ids).
struct Value {
  SourceLocation location;
  std::string reference;  // non-empty for $name
  ValueType type = ValueType::empty;
  IntervalSet set;
  RangeSet6 set6;  // address6
  std::vector<std::string> names;
  std::vector<SourceLocation> name_locations;
  uint32_t max_value = 0;  // largest number seen, for range checks at the use site
  SourceLocation max_location;
};

enum class AtomKind : uint8_t {
  iif,
  oif,
  saddr,
  daddr,
  protocol,
  sport,
  dport,
  tcp_flags,
  icmp_type,
  icmp_code,
  ttl,
  length,
  ct_state,
  saddr6,  // ip6 saddr
  daddr6,
};
enum class CompareOp : uint8_t { eq, ne, lt, le, gt, ge };

struct Atom {
  AtomKind kind = AtomKind::saddr;
  CompareOp op = CompareOp::eq;
  uint8_t proto = 0;  // sport/dport: kProtoTcp or kProtoUdp; icmp type/code: kProtoIcmp(6)
  SourceLocation location;
  Value value;
  IntervalSet resolved;  // set by the checker: the values of the field this atom accepts
  RangeSet6 resolved6;   // saddr6, daddr6: the addresses this atom accepts
};

enum class ExprKind : uint8_t { atom, all, any, negate };
inline constexpr uint32_t kNoExpr = 0xFFFFFFFFu;
struct Expr {
  ExprKind kind = ExprKind::atom;
  uint32_t a = 0;  // atom index, or first operand
  uint32_t b = 0;  // second operand (all/any)
};

enum class RuleAction : uint8_t { accept, drop, reject, jump, snat, dnat, masquerade };

struct RuleStmt {
  uint32_t condition = kNoExpr;  // kNoExpr = always
  RuleAction action = RuleAction::accept;
  bool log = false;
  uint16_t log_rate_per_minute = 0;
  std::string log_prefix;
  std::string target;  // jump
  SourceLocation target_location;
  uint32_t nat_address = 0;
  uint16_t nat_port_lo = 0;
  uint16_t nat_port_hi = 0;
  uint32_t id = 0;
  SourceLocation location;
  SourceLocation action_location;
};

struct ChainStmt {
  std::string name;
  SourceLocation location;
  ChainKind kind = ChainKind::filter;
  bool has_hook = false;
  Hook hook = Hook::input;
  SourceLocation hook_location;
  Action policy = Action::accept;
  std::vector<RuleStmt> rules;
};

struct DefineStmt {
  std::string name;
  SourceLocation location;
  Value value;
};

struct InterfaceStmt {
  std::string name;
  SourceLocation location;
  uint32_t address = 0;
  uint32_t netmask = 0;
  uint32_t gateway = 0;
  uint16_t vlan = 0;
  bool dhcp = false;
};

struct RouteStmt {
  SourceLocation location;
  uint32_t prefix = 0;
  uint8_t length = 0;
  uint32_t gateway = 0;
  std::string device;
  SourceLocation device_location;
  uint32_t metric = 0;
};

struct Program {
  std::vector<std::string> files;  // files[location.file]
  std::vector<DefineStmt> defines;
  std::vector<InterfaceStmt> interfaces;
  std::vector<RouteStmt> routes;
  std::vector<ChainStmt> chains;
  bool conntrack = true;
  std::vector<Expr> exprs;
  std::vector<Atom> atoms;
  uint32_t rule_count = 0;
};

}  // namespace keel::firewall

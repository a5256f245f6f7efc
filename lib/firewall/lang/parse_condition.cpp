// Conditions: or / and (also by juxtaposition) / not / parentheses / field matches.
#include <span>

#include "lang/parser.hpp"

namespace keel::firewall {
namespace {
struct Keyword {
  std::string_view name;
  uint32_t value;
};
constexpr Keyword kProtocols[] = {
    {"icmp", kProtoIcmp}, {"tcp", kProtoTcp}, {"udp", kProtoUdp}, {"icmpv6", kProtoIcmp6}};
constexpr Keyword kCtStates[] = {
    {"new", 0}, {"established", 1}, {"related", 2}, {"invalid", 3}, {"untracked", 4}};
// RFC 9293 section 3.1 control bits, low byte.
constexpr Keyword kTcpFlags[] = {{"fin", 0x01}, {"syn", 0x02}, {"rst", 0x04}, {"psh", 0x08},
                                 {"ack", 0x10}, {"urg", 0x20}, {"ecn", 0x40}, {"cwr", 0x80}};
constexpr uint32_t kTcpFlagValues = 256;

// ICMP types and codes by name, as nftables spells them (RFC 792, RFC 950, RFC 1812).
constexpr NumberName kIcmpTypes[] = {{"echo-reply", 0},           {"destination-unreachable", 3},
                                     {"source-quench", 4},        {"redirect", 5},
                                     {"echo-request", 8},         {"router-advertisement", 9},
                                     {"router-solicitation", 10}, {"time-exceeded", 11},
                                     {"parameter-problem", 12},   {"timestamp-request", 13},
                                     {"timestamp-reply", 14},     {"info-request", 15},
                                     {"info-reply", 16},          {"address-mask-request", 17},
                                     {"address-mask-reply", 18}};
constexpr NumberName kIcmpCodes[] = {{"net-unreachable", 0},  {"host-unreachable", 1},
                                     {"prot-unreachable", 2}, {"port-unreachable", 3},
                                     {"frag-needed", 4},      {"net-prohibited", 9},
                                     {"host-prohibited", 10}, {"admin-prohibited", 13}};
// ICMPv6 (RFC 4443, RFC 4861, RFC 2710, RFC 3810).
constexpr NumberName kIcmp6Types[] = {
    {"destination-unreachable", 1}, {"packet-too-big", 2},        {"time-exceeded", 3},
    {"parameter-problem", 4},       {"echo-request", 128},        {"echo-reply", 129},
    {"mld-listener-query", 130},    {"mld-listener-report", 131}, {"mld-listener-done", 132},
    {"nd-router-solicit", 133},     {"nd-router-advert", 134},    {"nd-neighbor-solicit", 135},
    {"nd-neighbor-advert", 136},    {"nd-redirect", 137},         {"router-renumbering", 138},
    {"mld2-listener-report", 143}};
constexpr NumberName kIcmp6Codes[] = {{"no-route", 0},         {"admin-prohibited", 1},
                                      {"addr-unreachable", 3}, {"port-unreachable", 4},
                                      {"policy-fail", 5},      {"reject-route", 6}};

const Keyword* find(std::span<const Keyword> table, std::string_view name) {
  for (const Keyword& k : table)
    if (k.name == name) return &k;
  return nullptr;
}
}  // namespace

bool Parser::starts_condition() const {
  static constexpr std::string_view kStarts[] = {"iif",    "oif", "ip",   "ip6",    "protocol",
                                                 "tcp",    "udp", "icmp", "icmpv6", "ttl",
                                                 "length", "ct",  "not",  "("};
  for (std::string_view s : kStarts)
    if (at(s)) return true;
  return false;
}

uint32_t Parser::add_expr(ExprKind kind, uint32_t a, uint32_t b) {
  program_.exprs.push_back({kind, a, b});
  return static_cast<uint32_t>(program_.exprs.size() - 1);
}

uint32_t Parser::parse_or() {
  uint32_t left = parse_and();
  while (accept("or")) left = add_expr(ExprKind::any, left, parse_and());
  return left;
}

uint32_t Parser::parse_and() {
  uint32_t left = parse_unary();
  for (;;) {
    if (accept("and"))
      left = add_expr(ExprKind::all, left, parse_unary());
    else if (starts_condition())
      left = add_expr(ExprKind::all, left, parse_unary());
    else
      return left;
  }
}

uint32_t Parser::parse_unary() {
  if (accept("not")) return add_expr(ExprKind::negate, parse_unary(), 0);
  if (accept("(")) {
    uint32_t inner = parse_or();
    expect(")", "')' to close the parenthesis");
    return inner;
  }
  return parse_atom();
}

CompareOp Parser::parse_compare() {
  if (accept("!=")) return CompareOp::ne;
  if (accept("<=")) return CompareOp::le;
  if (accept("<")) return CompareOp::lt;
  if (accept(">=")) return CompareOp::ge;
  if (accept(">")) return CompareOp::gt;
  accept("=");
  return CompareOp::eq;
}

void Parser::parse_keyword_list(Value& value, AtomKind kind) {
  value.location = current_.location;
  value.type = ValueType::number;
  bool braced = accept("{");
  uint32_t must_set = 0, must_clear = 0;
  for (;;) {
    SourceLocation loc = current_.location;
    if (kind == AtomKind::tcp_flags) {
      bool clear = accept("!");
      const Keyword* flag =
          current_.kind == TokenKind::name ? find(kTcpFlags, current_.text) : nullptr;
      if (!flag) fail("a TCP flag (fin, syn, rst, psh, ack, urg, ecn, cwr)");
      (clear ? must_clear : must_set) |= flag->value;
      advance();
    } else if (kind == AtomKind::ct_state) {
      const Keyword* state =
          current_.kind == TokenKind::name ? find(kCtStates, current_.text) : nullptr;
      if (!state) fail("a connection state (new, established, related, invalid, untracked)");
      add_item(value, ValueType::number, state->value, state->value, loc);
      advance();
    } else {  // protocol
      if (current_.kind == TokenKind::number) {
        uint32_t number = parse_number_token(current_);
        add_item(value, ValueType::number, number, number, loc);
      } else {
        const Keyword* proto =
            current_.kind == TokenKind::name ? find(kProtocols, current_.text) : nullptr;
        if (!proto) fail("a protocol (tcp, udp, icmp, icmpv6 or a number)");
        add_item(value, ValueType::number, proto->value, proto->value, loc);
      }
      advance();
    }
    if (!accept(",")) break;
  }
  if (braced) expect("}", "'}' to close the list");
  if (kind == AtomKind::tcp_flags) {
    if (must_set & must_clear)
      throw CompileError(value.location, "impossible flags: a flag is both required and excluded");
    for (uint32_t v = 0; v < kTcpFlagValues; ++v) {
      if ((v & must_set) == must_set && (v & must_clear) == 0)
        add_item(value, ValueType::number, v, v, value.location);
    }
  }
}

uint32_t Parser::parse_atom() {
  Atom atom;
  atom.location = current_.location;
  auto with_value = [&](AtomKind kind) {
    atom.kind = kind;
    atom.op = parse_compare();
    atom.value = parse_value(/*allow_file=*/false);
  };
  if (accept("iif"))
    with_value(AtomKind::iif);
  else if (accept("oif"))
    with_value(AtomKind::oif);
  else if (accept("ip")) {
    if (accept("saddr"))
      with_value(AtomKind::saddr);
    else if (accept("daddr"))
      with_value(AtomKind::daddr);
    else
      fail("'saddr' or 'daddr' after 'ip'");
  } else if (accept("protocol")) {
    atom.kind = AtomKind::protocol;
    atom.op = parse_compare();
    if (at("$"))
      atom.value = parse_value(false);
    else
      parse_keyword_list(atom.value, atom.kind);
  } else if (at("tcp") || at("udp")) {
    uint8_t proto = at("tcp") ? kProtoTcp : kProtoUdp;
    advance();
    atom.proto = proto;
    if (accept("sport"))
      with_value(AtomKind::sport);
    else if (accept("dport"))
      with_value(AtomKind::dport);
    else if (proto == kProtoTcp && accept("flags")) {
      atom.kind = AtomKind::tcp_flags;
      atom.op = parse_compare();
      parse_keyword_list(atom.value, atom.kind);
    } else {
      atom.kind = AtomKind::protocol;
      add_item(atom.value, ValueType::number, proto, proto, atom.location);
    }
  } else if (accept("ip6")) {
    if (accept("saddr"))
      with_value(AtomKind::saddr6);
    else if (accept("daddr"))
      with_value(AtomKind::daddr6);
    else
      fail("'saddr' or 'daddr' after 'ip6'");
  } else if (accept("icmp")) {
    parse_icmp(atom, kProtoIcmp);
  } else if (accept("icmpv6")) {
    parse_icmp(atom, kProtoIcmp6);
  } else if (accept("ttl"))
    with_value(AtomKind::ttl);
  else if (accept("length"))
    with_value(AtomKind::length);
  else if (accept("ct")) {
    expect("state", "'state' after 'ct'");
    atom.kind = AtomKind::ct_state;
    atom.op = parse_compare();
    if (at("$"))
      atom.value = parse_value(false);
    else
      parse_keyword_list(atom.value, atom.kind);
  } else {
    fail(
        "a condition (iif, oif, ip, ip6, protocol, tcp, udp, icmp, icmpv6, ttl, length, ct, "
        "not, '(')");
  }
  program_.atoms.push_back(std::move(atom));
  return add_expr(ExprKind::atom, static_cast<uint32_t>(program_.atoms.size() - 1), 0);
}

// icmp|icmpv6 [type|code VALUES]: types and codes by number or by name.
void Parser::parse_icmp(Atom& atom, uint8_t proto) {
  atom.proto = proto;
  const bool v6 = proto == kProtoIcmp6;
  std::span<const NumberName> names;
  if (accept("type")) {
    atom.kind = AtomKind::icmp_type;
    names = v6 ? std::span<const NumberName>(kIcmp6Types) : std::span<const NumberName>(kIcmpTypes);
  } else if (accept("code")) {
    atom.kind = AtomKind::icmp_code;
    names = v6 ? std::span<const NumberName>(kIcmp6Codes) : std::span<const NumberName>(kIcmpCodes);
  } else {
    atom.kind = AtomKind::protocol;
    add_item(atom.value, ValueType::number, proto, proto, atom.location);
    return;
  }
  atom.op = parse_compare();
  number_names_ = names;
  try {
    atom.value = parse_value(/*allow_file=*/false);
  } catch (...) {
    number_names_ = {};
    throw;
  }
  number_names_ = {};
}

}  // namespace keel::firewall

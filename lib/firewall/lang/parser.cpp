#include "lang/parser.hpp"

namespace keel::firewall {
namespace {
constexpr uint32_t kSecondsPerMinute = 60;
constexpr uint32_t kMinutesPerHour = 60;
constexpr uint32_t kMaxLogRatePerMinute = 0xFFFF;

bool parse_hook(std::string_view word, Hook& hook) {
  static constexpr std::string_view kNames[] = {"prerouting", "input", "forward", "output",
                                                "postrouting"};
  for (int i = 0; i < kHookCount; ++i) {
    if (word == kNames[i]) {
      hook = static_cast<Hook>(i);
      return true;
    }
  }
  return false;
}
}  // namespace

Parser::Parser(Program& program, std::string_view text, uint32_t file, std::string base_dir)
    : program_(program), lexer_(text, file), file_(file), base_dir_(std::move(base_dir)) {
  advance();
}

bool Parser::accept(std::string_view word) {
  if (!at(word)) return false;
  advance();
  return true;
}

void Parser::expect(std::string_view word, std::string_view what) {
  if (!accept(word)) fail(what);
}

std::string Parser::expect_name(std::string_view what) {
  if (current_.kind != TokenKind::name) fail(what);
  std::string name(current_.text);
  advance();
  return name;
}

void Parser::fail(std::string_view expected) const {
  throw CompileError(current_.location,
                     "expected " + std::string(expected) + ", found " + describe(current_));
}

void Parser::parse_program() {
  while (current_.kind != TokenKind::end) {
    if (at("define"))
      parse_define();
    else if (at("interface"))
      parse_interface();
    else if (at("route"))
      parse_route();
    else if (at("conntrack"))
      parse_conntrack();
    else if (at("chain"))
      parse_chain();
    else
      fail("a statement (define, interface, route, conntrack or chain)");
    accept(";");
  }
}

void Parser::parse_define() {
  advance();
  DefineStmt define;
  define.location = current_.location;
  define.name = expect_name("a name after 'define'");
  expect("=", "'=' after the defined name");
  define.value = parse_value(/*allow_file=*/true);
  program_.defines.push_back(std::move(define));
}

void Parser::parse_interface() {
  advance();
  InterfaceStmt iface;
  iface.location = current_.location;
  iface.name = expect_name("an interface name");
  expect("{", "'{' to open the interface block");
  while (!accept("}")) {
    if (accept("address")) {
      uint8_t length = 32;
      if (current_.kind != TokenKind::address) fail("an IPv4 address");
      iface.address = parse_address_token(current_, &length, /*allow_host_bits=*/true);
      advance();
      if (length != 32) iface.netmask = length == 0 ? 0 : ~0u << (32 - length);
    } else if (accept("netmask")) {
      iface.netmask = expect_address();
      uint32_t inverted = ~iface.netmask;
      if ((inverted & (inverted + 1)) != 0) {
        throw CompileError(current_.location,
                           "netmask is not contiguous: expected ones followed by zeros");
      }
    } else if (accept("gateway")) {
      iface.gateway = expect_address();
    } else if (accept("dhcp")) {
      iface.dhcp = true;
    } else if (accept("vlan")) {
      SourceLocation at_vlan = current_.location;
      uint32_t vlan = expect_number();
      constexpr uint32_t kMaxVlan = 4094;  // IEEE 802.1Q: 0 and 4095 are reserved
      if (vlan < 1 || vlan > kMaxVlan)
        throw CompileError(at_vlan, "vlan id out of range: expected 1-4094");
      iface.vlan = static_cast<uint16_t>(vlan);
    } else {
      fail("an interface property (address, netmask, gateway, dhcp, vlan) or '}'");
    }
    accept(";");
  }
  program_.interfaces.push_back(std::move(iface));
}

void Parser::parse_route() {
  RouteStmt route;
  route.location = current_.location;
  advance();
  if (current_.kind != TokenKind::address) fail("a destination prefix such as 10.0.0.0/8");
  route.prefix = parse_address_token(current_, &route.length);
  advance();
  expect("via", "'via' and a gateway address");
  route.gateway = expect_address();
  if (accept("dev")) {
    route.device_location = current_.location;
    route.device = expect_name("an interface name after 'dev'");
  }
  if (accept("metric")) route.metric = expect_number();
  program_.routes.push_back(std::move(route));
}

void Parser::parse_conntrack() {
  advance();
  if (accept("on"))
    program_.conntrack = true;
  else if (accept("off"))
    program_.conntrack = false;
  else
    fail("'on' or 'off'");
}

void Parser::parse_chain() {
  advance();
  ChainStmt chain;
  chain.location = current_.location;
  chain.name = expect_name("a chain name");
  bool has_policy = false;
  while (!at("{")) {
    if (accept("type")) {
      if (accept("filter"))
        chain.kind = ChainKind::filter;
      else if (accept("nat"))
        chain.kind = ChainKind::nat;
      else
        fail("chain type 'filter' or 'nat'");
    } else if (accept("hook")) {
      chain.hook_location = current_.location;
      if (current_.kind != TokenKind::name || !parse_hook(current_.text, chain.hook)) {
        fail("a hook (prerouting, input, forward, output, postrouting)");
      }
      chain.has_hook = true;
      advance();
    } else if (accept("policy")) {
      has_policy = true;
      if (accept("accept"))
        chain.policy = Action::accept;
      else if (accept("drop"))
        chain.policy = Action::drop;
      else
        fail("policy 'accept' or 'drop'");
    } else {
      fail("'type', 'hook', 'policy' or '{' after the chain name");
    }
  }
  if (has_policy && !chain.has_hook) {
    throw CompileError(chain.location,
                       "a policy needs a hook: chain '" + chain.name + "' has none");
  }
  advance();
  while (!accept("}")) {
    if (current_.kind == TokenKind::end) fail("a rule or '}' to close the chain");
    parse_rule(chain);
    accept(";");
  }
  program_.chains.push_back(std::move(chain));
}

void Parser::parse_rule(ChainStmt& chain) {
  RuleStmt rule;
  rule.location = current_.location;
  rule.id = program_.rule_count++;
  if (starts_condition()) rule.condition = parse_or();
  if (accept("log")) {
    rule.log = true;
    for (;;) {
      if (accept("prefix")) {
        if (current_.kind != TokenKind::string) fail("a quoted log prefix");
        rule.log_prefix = std::string(current_.text);
        advance();
      } else if (accept("rate")) {
        SourceLocation at_rate = current_.location;
        uint32_t count = expect_number();
        expect("/", "'/' and a unit (second, minute, hour)");
        uint64_t per_minute = 0;
        if (accept("second"))
          per_minute = uint64_t{count} * kSecondsPerMinute;
        else if (accept("minute"))
          per_minute = count;
        else if (accept("hour"))
          per_minute = (count + kMinutesPerHour - 1) / kMinutesPerHour;
        else
          fail("a rate unit (second, minute, hour)");
        if (per_minute == 0 || per_minute > kMaxLogRatePerMinute) {
          throw CompileError(at_rate, "log rate out of range: expected 1/minute to 1092/second");
        }
        rule.log_rate_per_minute = static_cast<uint16_t>(per_minute);
      } else {
        break;
      }
    }
  }
  parse_action(rule);
  chain.rules.push_back(std::move(rule));
}

void Parser::parse_action(RuleStmt& rule) {
  rule.action_location = current_.location;
  if (accept("accept"))
    rule.action = RuleAction::accept;
  else if (accept("drop"))
    rule.action = RuleAction::drop;
  else if (accept("reject"))
    rule.action = RuleAction::reject;
  else if (accept("masquerade"))
    rule.action = RuleAction::masquerade;
  else if (accept("jump")) {
    rule.action = RuleAction::jump;
    rule.target_location = current_.location;
    rule.target = expect_name("a chain name after 'jump'");
  } else if (accept("snat")) {
    rule.action = RuleAction::snat;
    parse_nat_target(rule);
  } else if (accept("dnat")) {
    rule.action = RuleAction::dnat;
    parse_nat_target(rule);
  } else {
    fail("a condition or an action (accept, drop, reject, log, jump, snat, dnat, masquerade)");
  }
}

void Parser::parse_nat_target(RuleStmt& rule) {
  expect("to", "'to' and an address");
  rule.nat_address = expect_address();
  if (accept(":")) {
    SourceLocation at_port = current_.location;
    uint32_t lo = expect_number();
    uint32_t hi = accept("-") ? expect_number() : lo;
    if (hi > field_max(Field::dport))
      throw CompileError(at_port, "port out of range: expected 0-65535");
    if (lo > hi) throw CompileError(at_port, "impossible range: start is greater than end");
    rule.nat_port_lo = static_cast<uint16_t>(lo);
    rule.nat_port_hi = static_cast<uint16_t>(hi);
  }
}

}  // namespace keel::firewall

#pragma once
// The reference: walks the checked syntax tree rule by rule, following jumps, first match wins.
// Deliberately independent of the DNF lowering and the table builder it checks.
#include <optional>

#include "compile/interval_set.hpp"
#include "lang/ast.hpp"
#include "lang/checker.hpp"

namespace keel::firewall::testing {

struct LinearVerdict {
  Action action = Action::accept;
  uint32_t source_id = kNoRule;  // kNoRule: the chain policy decided
  bool operator==(const LinearVerdict&) const = default;
};

inline bool eval_expr(const Program& p, uint32_t index, const Packet& packet) {
  const Expr& e = p.exprs[index];
  switch (e.kind) {
    case ExprKind::all:
      return eval_expr(p, e.a, packet) && eval_expr(p, e.b, packet);
    case ExprKind::any:
      return eval_expr(p, e.a, packet) || eval_expr(p, e.b, packet);
    case ExprKind::negate:
      return !eval_expr(p, e.a, packet);
    case ExprKind::atom:
      break;
  }
  const Atom& atom = p.atoms[e.a];
  if (uint8_t proto = atom_implied_proto(atom); proto && packet.proto != proto) return false;
  if (int family = atom_family(atom); family != kAnyFamily && packet.family != family) return false;
  if (atom.kind == AtomKind::saddr6) return contains6(atom.resolved6, packet_saddr6(packet));
  if (atom.kind == AtomKind::daddr6) return contains6(atom.resolved6, packet_daddr6(packet));
  return contains(atom.resolved, field_value(packet, atom_field(atom.kind)));
}

inline std::optional<LinearVerdict> run_chain(const Program& p, const ChainStmt& chain,
                                              const Packet& packet) {
  for (const RuleStmt& rule : chain.rules) {
    if (rule.condition != kNoExpr && !eval_expr(p, rule.condition, packet)) continue;
    // NAT is IPv4 only (docs/firewall/language.md).
    if (chain.kind == ChainKind::nat && packet.family != kFamilyIp4) continue;
    if (rule.action == RuleAction::jump) {
      for (const ChainStmt& target : p.chains) {
        if (target.name != rule.target) continue;
        if (auto v = run_chain(p, target, packet)) return v;
      }
      continue;
    }
    static constexpr Action kActions[] = {Action::accept,    Action::drop, Action::reject,
                                          Action::accept,    Action::snat, Action::dnat,
                                          Action::masquerade};
    return LinearVerdict{kActions[static_cast<int>(rule.action)], rule.id};
  }
  return std::nullopt;
}

inline LinearVerdict linear_first_match(const Program& p, ChainKind kind, Hook hook,
                                        const Packet& packet) {
  for (const ChainStmt& chain : p.chains) {
    if (!chain.has_hook || chain.kind != kind || chain.hook != hook) continue;
    if (auto v = run_chain(p, chain, packet)) return *v;
    return {chain.policy, kNoRule};
  }
  return {Action::accept, kNoRule};
}

}  // namespace keel::firewall::testing

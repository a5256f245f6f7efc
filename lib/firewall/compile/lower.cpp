#include "compile/lower.hpp"

#include <algorithm>

#include "compile/dnf.hpp"
#include "compile/interval_set.hpp"

namespace keel::firewall {
namespace {

bool iif_available(Hook hook) { return hook != Hook::output && hook != Hook::postrouting; }
bool oif_available(Hook hook) { return hook != Hook::prerouting && hook != Hook::input; }

class Lowering {
 public:
  Lowering(const Program& program, const Symbols& symbols, ErrorSink& errors)
      : program_(program), symbols_(symbols), errors_(errors) {}

  Ruleset run() {
    Ruleset out;
    out.conntrack = program_.conntrack;
    for (const InterfaceStmt& s : program_.interfaces) {
      out.interfaces.push_back({s.name, s.address, s.netmask, s.gateway, s.vlan, s.dhcp});
    }
    for (const RouteStmt& r : program_.routes) {
      auto it = symbols_.interfaces.find(r.device);
      uint8_t iface =
          it == symbols_.interfaces.end() ? kUnknownInterface : static_cast<uint8_t>(it->second);
      out.routes.push_back({r.prefix, r.length, r.gateway, iface, r.metric});
    }
    for (uint32_t i = 0; i < program_.chains.size(); ++i) {
      const ChainStmt& chain = program_.chains[i];
      if (!chain.has_hook) continue;
      IrChain ir;
      ir.name = chain.name;
      ir.kind = chain.kind;
      ir.hook = chain.hook;
      ir.policy = chain.policy;
      stack_.assign(1, i);
      emit_chain(chain, dnf_true(), ir, out);
      out.chains.push_back(std::move(ir));
    }
    return out;
  }

 private:
  Dnf lower_expr(uint32_t index, Hook hook) {
    const Expr& e = program_.exprs[index];
    switch (e.kind) {
      case ExprKind::all:
        return dnf_and(lower_expr(e.a, hook), lower_expr(e.b, hook));
      case ExprKind::any:
        return dnf_or(lower_expr(e.a, hook), lower_expr(e.b, hook));
      case ExprKind::negate:
        if (const Atom* atom6 = address6_atom(e.a)) return lower_not_address6(*atom6);
        return dnf_not(lower_expr(e.a, hook));
      case ExprKind::atom:
        break;
    }
    const Atom& atom = program_.atoms[e.a];
    if (atom.kind == AtomKind::iif && !iif_available(hook)) {
      errors_.add(atom.location, std::string("'iif' is not known in hook ") + to_string(hook) +
                                     ": expected 'oif'");
    }
    if (atom.kind == AtomKind::oif && !oif_available(hook)) {
      errors_.add(atom.location, std::string("'oif' is not known in hook ") + to_string(hook) +
                                     ": expected 'iif'");
    }
    const bool v6_address = atom.kind == AtomKind::saddr6 || atom.kind == AtomKind::daddr6;
    Dnf d = v6_address ? lower_address6(atom) : dnf_field(atom_field(atom.kind), atom.resolved);
    if (uint8_t proto = atom_implied_proto(atom))
      d = dnf_and(dnf_field(Field::proto, single(proto, proto)), d);
    if (int family = atom_family(atom); family != kAnyFamily) {
      const auto f = static_cast<uint32_t>(family);
      d = dnf_and(dnf_field(Field::family, single(f, f)), d);
    }
    return d;
  }

  // The atom of an expression that is an ip6 saddr/daddr match; null for anything else.
  const Atom* address6_atom(uint32_t index) const {
    const Expr& e = program_.exprs[index];
    if (e.kind != ExprKind::atom) return nullptr;
    const Atom& atom = program_.atoms[e.a];
    return atom.kind == AtomKind::saddr6 || atom.kind == AtomKind::daddr6 ? &atom : nullptr;
  }

  // not (ip6 saddr X): IPv4, or IPv6 from the complement of X, its boxes written out (De
  // Morgan over X's boxes would multiply their words out).
  Dnf lower_not_address6(const Atom& atom) {
    Atom complement = atom;
    complement.resolved6 = complement6(atom.resolved6);
    const Dnf ip6 = dnf_and(dnf_field(Field::family, single(kFamilyIp6, kFamilyIp6)),
                            lower_address6(complement));
    return dnf_or(dnf_field(Field::family, single(kFamilyIp4, kFamilyIp4)), ip6);
  }

  // One cube per word box of the atom's addresses (at most seven a range): a /48 is word 0
  // exact and word 1 an interval of 2^16 values, words 2-3 untested (docs/decisions/0138).
  Dnf lower_address6(const Atom& atom) {
    const bool source = atom.kind == AtomKind::saddr6;
    const std::vector<WordCube> boxes = word_cubes_of(atom.resolved6);
    if (boxes.size() > kMaxCubesPerRule) {
      errors_.add(atom.value.location,
                  "too many IPv6 addresses: they make " + std::to_string(boxes.size()) +
                      " alternatives, at most " + std::to_string(kMaxCubesPerRule) + " in a rule");
      return {};
    }
    Dnf out;
    for (const WordCube& box : boxes) {
      IrCube cube;
      for (int word = 0; word < box.count; ++word) {
        cube.fields.push_back({source ? saddr_word(word) : daddr_word(word),
                               single(box.word[word].lo, box.word[word].hi)});
      }
      // Fields are kept sorted: word 0 (saddr/daddr) comes before words 1-3.
      std::sort(cube.fields.begin(), cube.fields.end(),
                [](const FieldSet& a, const FieldSet& b) { return a.field < b.field; });
      out.push_back(std::move(cube));
    }
    return out;
  }

  // The first atom of each family a condition names (null: none).
  void families_of(uint32_t index, const Atom*& ip4, const Atom*& ip6) const {
    const Expr& e = program_.exprs[index];
    if (e.kind != ExprKind::atom) {
      families_of(e.a, ip4, ip6);
      if (e.kind != ExprKind::negate) families_of(e.b, ip4, ip6);
      return;
    }
    const Atom& atom = program_.atoms[e.a];
    const int family = atom_family(atom);
    if (family == kFamilyIp4 && !ip4) ip4 = &atom;
    if (family == kFamilyIp6 && !ip6) ip6 = &atom;
  }

  // A rule matches one family or both, never IPv4 and IPv6 fields together; NAT is IPv4 only.
  bool check_families(const RuleStmt& rule, const ChainStmt& base) {
    if (rule.condition == kNoExpr) return true;
    const Atom *ip4 = nullptr, *ip6 = nullptr;
    families_of(rule.condition, ip4, ip6);
    if (ip4 && ip6) {
      errors_.add(ip6->location, std::string("rule mixes IPv4 and IPv6: '") + atom_name(*ip6) +
                                     "' here and '" + atom_name(*ip4) + "' at " +
                                     where(program_, ip4->location) +
                                     "; write one rule per family");
      return false;
    }
    if (ip6 && base.kind == ChainKind::nat) {
      errors_.add(ip6->location, std::string("NAT is IPv4 only: '") + atom_name(*ip6) +
                                     "' cannot match in a nat chain");
      return false;
    }
    return true;
  }

  void check_action(const RuleStmt& rule, const ChainStmt& base) {
    auto bad = [&](const std::string& message) { errors_.add(rule.action_location, message); };
    bool nat = base.kind == ChainKind::nat;
    switch (rule.action) {
      case RuleAction::drop:
        if (nat)
          bad("'drop' is not allowed in nat chains: expected accept, snat, dnat or masquerade");
        break;
      case RuleAction::reject:
        if (nat)
          bad("'reject' is not allowed in nat chains: expected accept, snat, dnat or masquerade");
        else if (base.hook == Hook::prerouting || base.hook == Hook::postrouting)
          bad(std::string("'reject' is only allowed in input, forward and output hooks, not ") +
              to_string(base.hook));
        break;
      case RuleAction::snat:
      case RuleAction::masquerade:
        if (!nat)
          bad("address translation is only allowed in nat chains (chain ... type nat)");
        else if (base.hook != Hook::postrouting && base.hook != Hook::input)
          bad("'snat' and 'masquerade' belong in nat chains on hook postrouting or input");
        break;
      case RuleAction::dnat:
        if (!nat)
          bad("address translation is only allowed in nat chains (chain ... type nat)");
        else if (base.hook != Hook::prerouting && base.hook != Hook::output)
          bad("'dnat' belongs in nat chains on hook prerouting or output");
        break;
      default:
        break;
    }
  }

  void emit_chain(const ChainStmt& chain, const Dnf& prefix, IrChain& ir, Ruleset& out) {
    const ChainStmt& base = program_.chains[stack_.front()];
    for (const RuleStmt& rule : chain.rules) {
      if (!check_families(rule, base)) continue;
      Dnf cond = rule.condition == kNoExpr ? dnf_true() : lower_expr(rule.condition, base.hook);
      cond = dnf_and(prefix, cond);
      // NAT is IPv4 only: IPv6 packets pass nat chains untranslated (to their policy).
      if (base.kind == ChainKind::nat)
        cond = dnf_and(dnf_field(Field::family, single(kFamilyIp4, kFamilyIp4)), cond);
      if (cond.size() > kMaxCubesPerRule) {
        errors_.add(rule.location, "condition too complex: more than " +
                                       std::to_string(kMaxCubesPerRule) +
                                       " alternatives after expanding 'not' and 'or'");
        continue;
      }
      if (rule.action == RuleAction::jump) {
        emit_jump(rule, cond, ir, out);
        continue;
      }
      check_action(rule, base);
      IrRule r;
      r.condition = std::move(cond);
      r.action = to_action(rule.action);
      r.log = rule.log;
      r.log_rate_per_minute = rule.log_rate_per_minute;
      if (!rule.log_prefix.empty()) {
        out.strings.push_back(rule.log_prefix);
        r.log_prefix = static_cast<uint32_t>(out.strings.size() - 1);
      }
      r.nat_address = rule.nat_address;
      r.nat_port_lo = rule.nat_port_lo;
      r.nat_port_hi = rule.nat_port_hi;
      r.source_id = rule.id;
      r.location = rule.location;
      ir.rules.push_back(std::move(r));
    }
  }

  void emit_jump(const RuleStmt& rule, const Dnf& cond, IrChain& ir, Ruleset& out) {
    auto it = symbols_.chains.find(rule.target);
    if (it == symbols_.chains.end()) {
      errors_.add(rule.target_location, "undefined chain '" + rule.target + "'");
      return;
    }
    const ChainStmt& target = program_.chains[it->second];
    const ChainStmt& base = program_.chains[stack_.front()];
    if (target.has_hook) {
      errors_.add(rule.target_location,
                  "cannot jump to '" + rule.target +
                      "': it is attached to a hook; expected a chain without 'hook'");
      return;
    }
    if (target.kind != base.kind) {
      errors_.add(rule.target_location,
                  "cannot jump to '" + rule.target + "': its type differs from the calling chain");
      return;
    }
    for (uint32_t on_stack : stack_) {
      if (on_stack == it->second) {
        std::string path;
        for (uint32_t c : stack_) path += program_.chains[c].name + " -> ";
        errors_.add(rule.target_location, "jump cycle: " + path + rule.target);
        return;
      }
    }
    if (cond.empty()) return;  // never taken
    stack_.push_back(it->second);
    emit_chain(target, cond, ir, out);
    stack_.pop_back();
  }

  static Action to_action(RuleAction a) {
    switch (a) {
      case RuleAction::accept:
        return Action::accept;
      case RuleAction::drop:
        return Action::drop;
      case RuleAction::reject:
        return Action::reject;
      case RuleAction::snat:
        return Action::snat;
      case RuleAction::dnat:
        return Action::dnat;
      case RuleAction::masquerade:
        return Action::masquerade;
      case RuleAction::jump:
        break;
    }
    return Action::accept;
  }

  const Program& program_;
  const Symbols& symbols_;
  ErrorSink& errors_;
  std::vector<uint32_t> stack_;
};

}  // namespace

Ruleset lower_program(const Program& program, const Symbols& symbols, ErrorSink& errors) {
  return Lowering(program, symbols, errors).run();
}

}  // namespace keel::firewall

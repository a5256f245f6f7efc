// The firewall on the host stack's hooks (appliance.hpp): the order of the steps at each hook
// is Linux's with the exported ruleset's priorities, so both give the same verdicts.
#include "keel/firewall/appliance.hpp"

#include <net/stack.hpp>

#include "net/wire/icmp4.hpp"
#include "net/wire/icmp6.hpp"
#include "rule_set.hpp"
#include "stateful/packet_info.hpp"

namespace keel::firewall {
namespace {

constexpr uint32_t kContexts = 16;  // packets in flight at once: nested sends (reject) and loopback
constexpr uint16_t kFirstRouteMetric = 0;

net::Hook to_net(Hook h) { return static_cast<net::Hook>(h); }

}  // namespace

Appliance::Appliance(net::Stack& stack, const ApplianceConfig& config)
    : stack_(stack),
      config_(config),
      rules_(std::make_unique<RuleSet>()),
      conntrack_(config.conntrack),
      nat_(config.conntrack.hash_key[0] ^ 0x5DEECE66Dull),
      contexts_(std::make_unique<Context[]>(kContexts)) {
  for (int h = 0; h < kHookCount; ++h)
    hook_ids_[h] = stack_.hooks().add(to_net(static_cast<Hook>(h)), 0,
                                      [this](net::HookPacket& hp) { return run(hp); });
}

Appliance::~Appliance() {
  for (uint32_t id : hook_ids_) stack_.hooks().remove(id);
}

LoadStatus Appliance::replace_rules(std::span<const uint8_t> blob) {
  auto next = std::make_unique<RuleSet>();
  const LoadStatus status = next->classifier.load(blob);
  return install(std::move(next), status);
}

LoadStatus Appliance::map_rules(std::span<const uint8_t> blob) {
  auto next = std::make_unique<RuleSet>();
  const LoadStatus status = next->classifier.map(blob);
  return install(std::move(next), status);
}

LoadStatus Appliance::install(std::unique_ptr<RuleSet> next, LoadStatus status) {
  if (status != LoadStatus::ok) {
    ++counters_.rules_refused;
    return status;
  }
  next->hits.assign(next->classifier.tables().rules.size(), 0);
  // Packets are handled one at a time on this core: the swap falls between two of them.
  rules_ = std::move(next);
  ++counters_.rules_loaded;
  return LoadStatus::ok;
}

void Appliance::apply_declarations(bool keep_configured) {
  const TableView& t = rules_->classifier.tables();
  for (size_t i = 0; i < t.interfaces.size() && i < stack_.interface_count(); ++i) {
    const InterfaceInfo& d = t.interfaces[i];
    net::Interface& nic = stack_.interface(static_cast<net::InterfaceId>(i));
    if (d.address == 0 || (keep_configured && nic.is_configured())) continue;
    nic.configure(net::ip4::Addr{d.address}, net::ip4::Addr{d.netmask}, net::ip4::Addr{d.gateway});
  }
  for (const RouteInfo& r : t.routes) {
    net::Route route;
    route.destination = net::ip4::Addr{r.prefix};
    route.prefix_len = r.length;
    route.gateway = net::ip4::Addr{r.gateway};
    route.metric = r.metric + kFirstRouteMetric;
    route.interface = r.interface;
    if (route.interface == kUnknownInterface) {
      // Like `ip route add ... via G`: the interface whose subnet holds the gateway.
      if (auto via = stack_.routes().lookup(route.gateway)) route.interface = via->interface;
    }
    if (route.interface != kUnknownInterface) stack_.routes().add(route);
  }
  stack_.set_forwarding(true);
  stack_.set_defragment_all(true);
}

const TableView& Appliance::tables() const { return rules_->classifier.tables(); }
uint64_t Appliance::rule_hits(uint32_t rule) const {
  return rule < rules_->hits.size() ? rules_->hits[rule] : 0;
}
uint64_t Appliance::policy_hits(ChainKind kind, Hook hook) const {
  return rules_->policy_hits[chain_slot(kind, hook)];
}

uint8_t Appliance::rules_interface(uint16_t stack_interface) const {
  return stack_interface < rules_->classifier.tables().interfaces.size()
             ? static_cast<uint8_t>(stack_interface)
             : kUnknownInterface;
}

net::Verdict Appliance::run(net::HookPacket& hp) {
  ++counters_.seen[static_cast<int>(hp.hook)];
  if (hp.family != net::Address::Family::ip4) {
    // IPv6 is filtered as IPv4 is; what cannot be read cannot be matched, and is refused.
    PacketInfo probe;
    if (!read_packet(hp.packet.data(), hp.packet.size(), probe)) {
      ++counters_.drop_ip6;
      return net::Verdict::drop;
    }
  }
  switch (hp.hook) {
    case net::Hook::prerouting:
      return prerouting(hp);
    case net::Hook::input:
      return input(hp);
    case net::Hook::forward:
      return forward(hp);
    case net::Hook::output:
      return output(hp);
    case net::Hook::postrouting:
      return postrouting(hp);
  }
  return net::Verdict::accept;
}

Appliance::Context& Appliance::begin(net::HookPacket& hp) {
  Context& c = contexts_[next_context_++ % kContexts];
  c = Context{};
  c.packet = &hp.packet;
  read(c, hp);
  return c;
}

// The context the packet's first hook made; a packet met first here (a loopback datagram whose
// context was reused) is read and tracked now.
Appliance::Context& Appliance::context_of(net::HookPacket& hp) {
  for (uint32_t n = 1; n <= kContexts; ++n) {
    Context& c = contexts_[(next_context_ - n) % kContexts];
    if (c.packet == &hp.packet) {
      read(c, hp);  // the stack changed it since (the TTL, forwarding)
      return c;
    }
  }
  Context& c = begin(hp);
  track(c, hp, false);
  return c;
}

void Appliance::read(Context& c, net::HookPacket& hp) {
  CtState state = static_cast<CtState>(c.info.fields.ct_state);
  read_packet(hp.packet.data(), hp.packet.size(), c.info);
  c.info.fields.ct_state = static_cast<uint8_t>(state);
  c.info.fields.iif = rules_interface(hp.in);
  c.info.fields.oif = rules_interface(hp.out);
}

bool Appliance::track(Context& c, net::HookPacket& hp, bool verify_checksum) {
  if (!rules_->classifier.tables().conntrack) return true;
  c.has_conntrack = true;
  verify_checksum = verify_checksum && !(hp.packet.flags & net::Packet::checksum_verified);
  c.tracked = conntrack_.track(c.info, hp.packet.data(), verify_checksum, stack_.clock().now_ns());
  c.info.fields.ct_state = static_cast<uint8_t>(c.tracked.state);
  if (c.tracked.table_full) {
    ++counters_.drop_conntrack_full;
    return false;
  }
  return true;
}

net::Verdict Appliance::drop(Context& c) {
  if (c.tracked.pending) conntrack_.abandon(c.tracked.flow);
  c.tracked = Tracked{};
  c.packet = nullptr;
  ++counters_.dropped;
  return net::Verdict::drop;
}

bool Appliance::translate(Context& c, net::HookPacket& hp, Manip manip, Hook hook) {
  if (c.tracked.flow == kNoFlow) return true;  // untracked (invalid) packets are not translated
  if (c.info.key.family != kFamilyIp4) return true;  // NAT is IPv4 only (language.md)
  Flow& f = conntrack_.flow(c.tracked.flow);
  const bool partial = hp.packet.flags & net::Packet::checksum_partial;
  uint8_t* ip = hp.packet.data();
  if (c.tracked.state == CtState::related) {
    if (!nat_.apply_icmp_error(f, c.tracked.dir, manip, ip, hp.packet.size(), partial))
      return false;
    read(c, hp);
    return true;
  }
  const uint16_t done = manip == Manip::src ? flow_status::src_nat_done : flow_status::dst_nat_done;
  if (c.tracked.pending && !f.has(done)) {
    NatTarget target;
    const NatTarget* chosen = nullptr;
    if (rules_->classifier.tables().chains[chain_slot(ChainKind::nat, hook)].present) {
      Verdict v = classify(ChainKind::nat, hook, c, hp);
      if (v.action == Action::drop) return false;
      if (v.rule != kNoRule && (v.action == Action::snat || v.action == Action::dnat ||
                                v.action == Action::masquerade)) {
        const RuleInfo& rule = rules_->classifier.tables().rules[v.rule];
        target = {rule.nat_address, rule.nat_port_lo, rule.nat_port_hi};
        if (v.action == Action::masquerade) {
          // The address of the interface the packet leaves by (RFC 3022 §2.1's "basic NAPT").
          net::InterfaceId via = hp.out != net::no_interface ? hp.out : hp.in;
          if (via == net::no_interface || !stack_.interface(via).is_configured()) return false;
          target.address = stack_.interface(via).address().value;
        }
        chosen = &target;
      }
    }
    if (!nat_.bind(conntrack_, c.tracked.flow, manip, chosen)) return false;
  }
  if (nat_.apply(f, c.tracked.dir, manip, ip, hp.packet.size(), partial)) read(c, hp);
  return true;
}

bool Appliance::filter(Context& c, net::HookPacket& hp, Hook hook) {
  if (!rules_->classifier.tables().chains[chain_slot(ChainKind::filter, hook)].present) return true;
  Verdict v = classify(ChainKind::filter, hook, c, hp);
  if (v.action == Action::accept) return true;
  if (v.action == Action::reject) {
    // nftables' `reject`: ICMP port unreachable (RFC 792) for IPv4, ICMPv6's (RFC 4443 section
    // 3.1) for IPv6, from where it came in.
    ++counters_.rejected;
    if (c.info.key.family == kFamilyIp6) {
      stack_.send_icmp6_error(net::wire::icmp6::destination_unreachable,
                              net::wire::icmp6::port_unreachable, hp.packet, hp.in);
    } else {
      stack_.send_icmp_error(net::wire::icmp4::unreachable, net::wire::icmp4::port_unreachable,
                             hp.packet, hp.in);
    }
  }
  return false;
}

bool Appliance::confirm(Context& c) {
  if (!c.tracked.pending) return true;
  c.tracked.pending = false;
  if (conntrack_.confirm(c.tracked.flow)) return true;
  ++counters_.drop_confirm;
  c.tracked = Tracked{};
  return false;
}

Verdict Appliance::classify(ChainKind kind, Hook hook, const Context& c,
                            const net::HookPacket& hp) {
  RuleSet& rs = *rules_;
  Verdict v = rs.classifier.classify(kind, hook, c.info.fields);
  if (v.rule == kNoRule) {
    ++rs.policy_hits[chain_slot(kind, hook)];
    return v;
  }
  ++rs.hits[v.rule];
  const RuleInfo& rule = rs.classifier.tables().rules[v.rule];
  if (rule.flags & kRuleLog) log(rule, v.rule, c, hp);
  return v;
}

net::Verdict Appliance::prerouting(net::HookPacket& hp) {
  Context& c = begin(hp);
  if (!track(c, hp, true)) return drop(c);
  if (!translate(c, hp, Manip::dst, Hook::prerouting)) {
    ++counters_.drop_nat;
    return drop(c);
  }
  if (!filter(c, hp, Hook::prerouting)) return drop(c);
  return net::Verdict::accept;
}

net::Verdict Appliance::input(net::HookPacket& hp) {
  Context& c = context_of(hp);
  if (!filter(c, hp, Hook::input)) return drop(c);
  if (!translate(c, hp, Manip::src, Hook::input)) {
    ++counters_.drop_nat;
    return drop(c);
  }
  if (!confirm(c)) return drop(c);
  ++counters_.accepted;
  return net::Verdict::accept;
}

net::Verdict Appliance::forward(net::HookPacket& hp) {
  Context& c = context_of(hp);
  if (!filter(c, hp, Hook::forward)) return drop(c);
  return net::Verdict::accept;
}

net::Verdict Appliance::output(net::HookPacket& hp) {
  Context& c = begin(hp);
  if (!track(c, hp, false)) return drop(c);
  if (!translate(c, hp, Manip::dst, Hook::output)) {
    ++counters_.drop_nat;
    return drop(c);
  }
  if (!filter(c, hp, Hook::output)) return drop(c);
  return net::Verdict::accept;
}

net::Verdict Appliance::postrouting(net::HookPacket& hp) {
  Context& c = context_of(hp);
  if (!filter(c, hp, Hook::postrouting)) return drop(c);
  if (!translate(c, hp, Manip::src, Hook::postrouting)) {
    ++counters_.drop_nat;
    return drop(c);
  }
  if (!confirm(c)) return drop(c);
  ++counters_.accepted;
  return net::Verdict::accept;
}

}  // namespace keel::firewall

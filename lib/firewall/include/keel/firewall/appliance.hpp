#pragma once
// The firewall on a host stack's hook points: every packet at prerouting, input, forward, output
// and postrouting is tracked, translated and classified exactly as docs/firewall/language.md
// defines the chains, in the order Linux's netfilter runs them with the exported ruleset
// (conntrack -200, dnat -100, filter 0, snat 100, then the flow is confirmed):
//
//   prerouting: track (checksums checked), dnat chain, filter chain
//   input:      filter chain (reject), snat chain, confirm
//   forward:    filter chain (reject)
//   output:     track, dnat chain (the stack routes anew), filter chain (reject)
//   postrouting: filter chain, snat/masquerade chain, confirm
//
// Rules come as a compiled blob (keel-fw compile); replace_rules() validates a new one in full
// before it takes over, between two packets, so no packet meets half a rule set; a bad blob is
// counted and the rules in force stay. Each rule counts its hits; `log` rules print to the
// console under their own rate and a global ceiling.
//
//   keel::firewall::Appliance firewall(net::stack());
//   firewall.replace_rules(blob);       // e.g. keel_firewall_rules() embedded it at build
//   firewall.apply_declarations();      // the rules' interface and route declarations
#include <array>
#include <cstdint>
#include <memory>
#include <span>

#include "keel/firewall/classifier.hpp"
#include "keel/firewall/conntrack.hpp"
#include "keel/firewall/nat.hpp"

namespace net {
class Stack;
class Packet;
struct HookPacket;
enum class Verdict : uint8_t;
}  // namespace net

namespace keel::firewall {

struct ApplianceConfig {
  ConntrackConfig conntrack;
  uint32_t log_lines_per_second = 100;  // all `log` rules together, whatever their own rates
};

struct ApplianceCounters {
  std::array<uint64_t, kHookCount> seen{};
  uint64_t accepted = 0, dropped = 0, rejected = 0;
  uint64_t drop_conntrack_full = 0, drop_confirm = 0, drop_nat = 0;
  // IPv6 the firewall cannot read (an extension header chain longer than the
  // stack walks, or truncated): refused rather than passed unfiltered.
  uint64_t drop_ip6 = 0;
  uint64_t rules_loaded = 0, rules_refused = 0;
  uint64_t log_lines = 0, log_suppressed = 0;
  template <class Fn>
  void for_each(Fn&& fn) const {
    static constexpr const char* kSeen[] = {"seen_prerouting", "seen_input", "seen_forward",
                                            "seen_output", "seen_postrouting"};
    for (int i = 0; i < kHookCount; ++i) fn(kSeen[i], seen[i]);
    fn("accepted", accepted), fn("dropped", dropped), fn("rejected", rejected);
    fn("drop_conntrack_full", drop_conntrack_full), fn("drop_confirm", drop_confirm),
        fn("drop_nat", drop_nat), fn("drop_ip6", drop_ip6);
    fn("rules_loaded", rules_loaded), fn("rules_refused", rules_refused);
    fn("log_lines", log_lines), fn("log_suppressed", log_suppressed);
  }
};

class Appliance {
 public:
  explicit Appliance(net::Stack& stack, const ApplianceConfig& config = {});
  ~Appliance();
  Appliance(const Appliance&) = delete;
  Appliance& operator=(const Appliance&) = delete;

  // Copies `blob` once and checks it; only if all of it is good does it become the rule set (and
  // its counters start from zero). Without rules every packet is accepted.
  LoadStatus replace_rules(std::span<const uint8_t> blob);
  // The same for a blob used where it lies, never copied: 64-byte aligned and outliving the
  // appliance, as the rules compiled into the image (embedded_rules(), decision 0064).
  LoadStatus map_rules(std::span<const uint8_t> blob);
  // The rules' `interface` declarations configure the stack's interfaces in order (the first
  // declared is interface 0) unless `keep_configured` and the interface has an address already;
  // `route` declarations join the routing table. Forwarding is turned on.
  void apply_declarations(bool keep_configured = true);

  const TableView& tables() const;
  // Hits of rule `rule` (an index into tables().rules) since its rule set was loaded.
  uint64_t rule_hits(uint32_t rule) const;
  // Packets a chain's policy decided.
  uint64_t policy_hits(ChainKind kind, Hook hook) const;
  // Rule sets loaded so far (a replacement's number).
  uint64_t generation() const { return counters_.rules_loaded; }

  const ApplianceCounters& counters() const { return counters_; }
  const Conntrack& conntrack() const { return conntrack_; }
  const Nat& nat() const { return nat_; }

 private:
  struct RuleSet;
  struct Context;
  LoadStatus install(std::unique_ptr<RuleSet> next, LoadStatus status);
  net::Verdict run(net::HookPacket& hp);
  net::Verdict prerouting(net::HookPacket& hp);
  net::Verdict input(net::HookPacket& hp);
  net::Verdict forward(net::HookPacket& hp);
  net::Verdict output(net::HookPacket& hp);
  net::Verdict postrouting(net::HookPacket& hp);
  Context& begin(net::HookPacket& hp);
  Context& context_of(net::HookPacket& hp);
  void read(Context& c, net::HookPacket& hp);
  bool track(Context& c, net::HookPacket& hp, bool verify_checksum);
  bool translate(Context& c, net::HookPacket& hp, Manip manip, Hook hook);
  // The filter chain of `hook`: accept, or drop (rejecting first where the rule says so).
  bool filter(Context& c, net::HookPacket& hp, Hook hook);
  bool confirm(Context& c);
  net::Verdict drop(Context& c);
  Verdict classify(ChainKind kind, Hook hook, const Context& c, const net::HookPacket& hp);
  void log(const RuleInfo& rule, uint32_t index, const Context& c, const net::HookPacket& hp);
  uint8_t rules_interface(uint16_t stack_interface) const;

  net::Stack& stack_;
  ApplianceConfig config_;
  std::unique_ptr<RuleSet> rules_;
  Conntrack conntrack_;
  Nat nat_;
  ApplianceCounters counters_;
  std::unique_ptr<Context[]> contexts_;
  uint32_t next_context_ = 0;
  std::array<uint32_t, kHookCount> hook_ids_{};
  uint64_t log_tokens_ = 0, log_refilled_ns_ = 0;
};

}  // namespace keel::firewall

// `log` rules: a line on the console per packet, under the rule's own rate (nftables' `limit
// rate N/minute`, bursts of 5) and a ceiling for all rules together, so that a flood can never
// keep the console (or the event loop) busy. Lines past either limit are counted, not printed.
#include <algorithm>
#include <cstdio>
#include <net/address.hpp>
#include <net/stack.hpp>
#include <string>

#include "keel/firewall/appliance.hpp"
#include "rule_set.hpp"

namespace keel::firewall {
namespace {

constexpr uint64_t kNsPerMinute = 60'000'000'000ull;
constexpr uint64_t kNsPerSecond = 1'000'000'000ull;

const char* protocol_name(uint8_t proto) {
  switch (proto) {
    case kProtoTcp:
      return "TCP";
    case kProtoUdp:
      return "UDP";
    case kProtoIcmp:
      return "ICMP";
    case kProtoIcmp6:
      return "ICMPv6";
    default:
      return nullptr;
  }
}

std::string address_text(uint32_t a) { return net::ip4::Addr{a}.to_string(); }

// An IPv6 packet's address from its four words (RFC 5952 text, as Linux logs it).
std::string address6_text(uint32_t word0, const uint32_t (&rest)[3]) {
  net::ip6::Addr a;
  const uint32_t words[4] = {word0, rest[0], rest[1], rest[2]};
  for (int w = 0; w < 4; ++w)
    for (int b = 0; b < 4; ++b) a.bytes[4 * w + b] = static_cast<uint8_t>(words[w] >> (24 - 8 * b));
  return net::Address(a).to_string();
}

}  // namespace

bool LogBucket::take(uint32_t per_minute, uint64_t now_ns) {
  if (per_minute == 0) return true;
  const uint64_t per_token = kNsPerMinute / per_minute;
  if (now_ns - refilled_ns >= per_token) {
    uint64_t add = (now_ns - refilled_ns) / per_token;
    tokens = static_cast<uint32_t>(std::min<uint64_t>(kBurst, tokens + add));
    refilled_ns += add * per_token;
  }
  if (tokens == 0) return false;
  --tokens;
  return true;
}

void Appliance::log(const RuleInfo& rule, uint32_t index, const Context& c,
                    const net::HookPacket& hp) {
  const uint64_t now = stack_.clock().now_ns();
  // A bucket for every rule, made when a rule first logs: a million-rule blocklist that never
  // logs does not pay 16 MiB when it loads (decision 0064).
  if (rules_->log.empty()) rules_->log.assign(tables().rules.size(), LogBucket{});
  if (!rules_->log[index].take(rule.log_rate_per_minute, now)) {
    ++counters_.log_suppressed;
    return;
  }
  // The global ceiling: a bucket of one second's lines.
  const uint32_t ceiling = config_.log_lines_per_second;
  if (ceiling) {
    const uint64_t per_token = kNsPerSecond / ceiling;
    if (now - log_refilled_ns_ >= per_token) {
      log_tokens_ = std::min<uint64_t>(ceiling, log_tokens_ + (now - log_refilled_ns_) / per_token);
      log_refilled_ns_ = now;
    }
    if (log_tokens_ == 0) {
      ++counters_.log_suppressed;
      return;
    }
    --log_tokens_;
  }
  ++counters_.log_lines;
  const Packet& p = c.info.fields;
  const std::string_view prefix =
      tables().strings[rule.log_prefix < tables().strings.size() ? rule.log_prefix : 0];
  std::string in = hp.in != net::no_interface ? stack_.interface(hp.in).name() : "";
  std::string out = hp.out != net::no_interface ? stack_.interface(hp.out).name() : "";
  const bool ip6 = p.family == kFamilyIp6;
  std::string line = std::string(prefix) + "IN=" + in + " OUT=" + out +
                     " SRC=" + (ip6 ? address6_text(p.saddr, p.saddr6) : address_text(p.saddr)) +
                     " DST=" + (ip6 ? address6_text(p.daddr, p.daddr6) : address_text(p.daddr));
  // IPv6 has no TTL or total length among the rule fields (the hop limit and payload length
  // are not matched): Linux's IPv6 log says LEN= and HOPLIMIT=, not printed here.
  if (!ip6) line += " LEN=" + std::to_string(p.length) + " TTL=" + std::to_string(p.ttl);
  if (const char* name = protocol_name(p.proto)) {
    line += std::string(" PROTO=") + name;
  } else {
    line += " PROTO=" + std::to_string(p.proto);
  }
  if (has_ports(p.proto))
    line += " SPT=" + std::to_string(p.sport) + " DPT=" + std::to_string(p.dport);
  if (p.proto == (ip6 ? kProtoIcmp6 : kProtoIcmp))
    line += " TYPE=" + std::to_string(p.icmp_type) + " CODE=" + std::to_string(p.icmp_code);
  std::printf("%s\n", line.c_str());
}

}  // namespace keel::firewall

// Stateless address autoconfiguration (RFC 4862 §5.5.3) for one interface:
// an address per autonomous /64 prefix a router advertises, its interface
// identifier a keyed hash of prefix, MAC and a DAD counter (RFC 7217, with
// a secret from the kernel's random generator) or the MAC's EUI-64 by
// setting; each one tentative until duplicate address detection is done,
// preferred then deprecated then gone by its lifetimes, with the two-hour
// rule of §5.5.3 (e) against advertisements that would cut them short.
// At most max_addresses (decision 0133).
#pragma once
#include <cstdint>
#include <net/address.hpp>
#include <net/config.hpp>
#include <net/counters.hpp>
#include <optional>
#include <vector>

#include "ra.hpp"
#include "util/siphash.hpp"

namespace net {

class Link;

class Slaac {
 public:
  static constexpr std::size_t max_addresses = 8;
  static constexpr uint8_t prefix_length = 64;  // RFC 4291 §2.5.1: 64-bit identifiers
  static constexpr int idgen_retries = 3;       // RFC 7217 §6: IDGEN_RETRIES
  static constexpr uint64_t two_hours_ns = 7200ull * 1'000'000'000;  // RFC 4862 §5.5.3 (e)

  struct Address {
    ip6::Addr address;
    uint8_t dad_counter = 0;  // RFC 7217 §5: DAD_Counter
    bool tentative = true;
    uint64_t valid_until = 0, preferred_until = 0;  // UINT64_MAX: infinity
  };
  enum class Dad : uint8_t { not_ours, formed, retrying, given_up };

  Slaac(Link& link, RouterCounters& counters);
  void set_iid(SlaacIid iid) { iid_ = iid; }
  // An autonomous prefix option (the caller checked A and §5.5.3 (b)).
  void prefix(const PrefixInfo& p, uint64_t now);
  // From duplicate address detection: whether `a` was one of ours and what became of it.
  Dad dad_finished(const ip6::Addr& a, bool unique);
  // A valid address of ours, detection done.
  bool has(const ip6::Addr& a) const;
  // The address to send from: a preferred one, else a deprecated one (RFC 6724 rule 3).
  std::optional<ip6::Addr> source(uint64_t now) const;
  const std::vector<Address>& addresses() const { return addresses_; }
  void clear() { addresses_.clear(); }

  void poll(uint64_t now);
  uint64_t next_deadline() const;

 private:
  ip6::Addr form(const ip6::Addr& prefix, uint8_t& dad_counter);
  void set_lifetimes(Address& a, const PrefixInfo& p, uint64_t now);

  Link& link_;
  RouterCounters& counters_;
  SlaacIid iid_ = SlaacIid::stable;
  bool keyed_ = false;
  keel::util::SipKey secret_{};  // RFC 7217 §5: secret_key
  std::vector<Address> addresses_;
};

}  // namespace net

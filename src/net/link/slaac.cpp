#include "slaac.hpp"

#include <sys/random.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "link.hpp"
#include "net/ip6/addr.hpp"
#include "net/wire/icmp6.hpp"

namespace net {
namespace {

constexpr uint64_t never = UINT64_MAX;
constexpr uint64_t ns_per_s = 1'000'000'000;
constexpr std::size_t iid_at = 8;  // the interface identifier: the low 64 bits

uint64_t until(uint64_t now, uint32_t lifetime_s) {
  return lifetime_s == wire::nd::infinite_lifetime ? never : now + lifetime_s * ns_per_s;
}

bool same_prefix(const ip6::Addr& a, const ip6::Addr& prefix) {
  return std::memcmp(a.bytes.data(), prefix.bytes.data(), iid_at) == 0;
}

// RFC 5453 §3's reserved identifiers: all zeros (the subnet-router
// anycast), the subnet anycast range fdff:ffff:ffff:ff80-ffff, and RFC
// 5214's ISATAP form 0200:5efe or 0000:5efe (RFC 7217 §5 says try again).
bool reserved_iid(const uint8_t* iid) {
  static constexpr uint8_t anycast[7] = {0xfd, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
  bool zero = std::all_of(iid, iid + 8, [](uint8_t b) { return b == 0; });
  bool subnet_anycast = std::memcmp(iid, anycast, sizeof anycast) == 0 && iid[7] >= 0x80;
  bool isatap = (iid[0] & ~0x02) == 0 && iid[1] == 0 && iid[2] == 0x5e && iid[3] == 0xfe;
  return zero || subnet_anycast || isatap;
}

}  // namespace

Slaac::Slaac(Link& link, RouterCounters& counters) : link_(link), counters_(counters) {}

// RFC 7217 §5: F(Prefix, Net_Iface, Network_ID, DAD_Counter, secret_key),
// F being SipHash-2-4 keyed with 128 random bits drawn once; Net_Iface is
// the MAC, and no Network_ID (optional in §5).
ip6::Addr Slaac::form(const ip6::Addr& prefix, uint8_t& dad_counter) {
  ip6::Addr a = prefix;
  if (iid_ == SlaacIid::eui64) {
    ip6::Addr eui = ip6addr::link_local_from_mac(link_.mac());
    std::memcpy(a.bytes.data() + iid_at, eui.bytes.data() + iid_at, 8);
    return a;
  }
  if (!keyed_) {
    // A short read leaves part of the key zero: weaker, still keyed.
    if (getrandom(&secret_, sizeof secret_, 0) != ssize_t(sizeof secret_))
      secret_.k1 ^= 0x9e3779b97f4a7c15ull;
    keyed_ = true;
  }
  for (;; ++dad_counter) {
    uint8_t input[8 + 6 + 1];
    std::memcpy(input, prefix.bytes.data(), 8);
    link_.mac().write(input + 8);
    input[14] = dad_counter;
    uint64_t iid = keel::util::siphash<2, 4>(secret_, input, sizeof input);
    std::memcpy(a.bytes.data() + iid_at, &iid, 8);
    if (!reserved_iid(a.bytes.data() + iid_at)) return a;
  }
}

// RFC 4862 §5.5.3 (e): the preferred lifetime as advertised; the valid one
// too if it lengthens the address's life or is over two hours, else never
// below two hours of what remains (an unauthenticated RA cannot end an
// address at once).
void Slaac::set_lifetimes(Address& a, const PrefixInfo& p, uint64_t now) {
  a.preferred_until = until(now, p.preferred_s);
  uint64_t advertised = until(now, p.valid_s);
  uint64_t remaining =
      a.valid_until == never ? never : a.valid_until - std::min(now, a.valid_until);
  if (advertised - now > two_hours_ns || advertised > a.valid_until) {
    a.valid_until = advertised;
  } else if (remaining > two_hours_ns) {
    a.valid_until = now + two_hours_ns;
  }  // else: ignored
  a.preferred_until = std::min(a.preferred_until, a.valid_until);
}

void Slaac::prefix(const PrefixInfo& p, uint64_t now) {
  if (p.length != prefix_length) {
    ++counters_.drop_prefix_length;  // no 64-bit identifier fits (§5.5.3 (d))
    return;
  }
  if (p.preferred_s > p.valid_s) {
    ++counters_.drop_prefix_lifetime;  // §5.5.3 (c)
    return;
  }
  for (Address& a : addresses_) {
    if (same_prefix(a.address, p.prefix)) {
      set_lifetimes(a, p, now);
      link_.wake_by(next_deadline());
      return;
    }
  }
  if (p.valid_s == 0) return;  // §5.5.3 (d): nothing to form
  if (addresses_.size() >= max_addresses) {
    ++counters_.drop_addresses_full;
    return;
  }
  Address a;
  a.address = form(p.prefix, a.dad_counter);
  a.valid_until = until(now, p.valid_s);
  a.preferred_until = std::min(until(now, p.preferred_s), a.valid_until);
  addresses_.push_back(a);
  link_.ndp().start_dad(a.address);  // §5.5.3 (d), §5.4
  link_.wake_by(next_deadline());
}

Slaac::Dad Slaac::dad_finished(const ip6::Addr& address, bool unique) {
  auto it = std::find_if(addresses_.begin(), addresses_.end(),
                         [&](const Address& a) { return a.address == address && a.tentative; });
  if (it == addresses_.end()) return Dad::not_ours;
  if (unique) {
    it->tentative = false;
    ++counters_.addresses_formed;
    return Dad::formed;
  }
  ++counters_.address_conflicts;
  // RFC 7217 §6: another identifier, up to IDGEN_RETRIES times; EUI-64 has no other.
  if (iid_ == SlaacIid::stable && it->dad_counter < idgen_retries) {
    ip6::Addr prefix = it->address;
    ++it->dad_counter;
    it->address = form(prefix, it->dad_counter);
    link_.ndp().start_dad(it->address);
    return Dad::retrying;
  }
  addresses_.erase(it);
  return Dad::given_up;
}

bool Slaac::has(const ip6::Addr& a) const {
  return std::any_of(addresses_.begin(), addresses_.end(),
                     [&](const Address& s) { return !s.tentative && s.address == a; });
}

std::optional<ip6::Addr> Slaac::source(uint64_t now) const {
  std::optional<ip6::Addr> deprecated;
  for (const Address& a : addresses_) {
    if (a.tentative) continue;
    if (now < a.preferred_until) return a.address;
    if (!deprecated) deprecated = a.address;
  }
  return deprecated;
}

void Slaac::poll(uint64_t now) {
  auto expired = [&](const Address& a) {
    if (now < a.valid_until) return false;
    ++counters_.addresses_expired;
    std::printf("%s: %s expired (SLAAC valid lifetime)\n", link_.name().c_str(),
                net::Address(a.address).to_string().c_str());
    return true;
  };
  if (std::erase_if(addresses_, expired)) link_.addresses6_changed();
}

uint64_t Slaac::next_deadline() const {
  uint64_t earliest = never;
  for (const Address& a : addresses_) earliest = std::min(earliest, a.valid_until);
  return earliest;
}

}  // namespace net

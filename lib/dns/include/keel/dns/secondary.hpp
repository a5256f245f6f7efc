// The secondary role (RFC 1996, RFC 1995, RFC 5936 as a client): zones
// taken from a primary server. This header has the settings of one zone and
// its refresh timers (RFC 1035 §3.3.13; RFC 1996 §3: a NOTIFY acts as the refresh timer);
// xfr_in.hpp reads the transfer, zone_swap.hpp puts it in the served catalog, notify.hpp answers
// NOTIFY. The I/O (TCP to the primary, timers) is the front end's
// (examples/dns/secondary.cpp). docs/dns.md, "Secondary zones".
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "keel/dns/rate_limiter.hpp"

namespace keel::dns {

inline constexpr uint16_t default_dns_port = 53;

// One zone taken from a primary: "example.org:192.0.2.1", with a port
// "example.org:192.0.2.1#5353", with a TSIG key "example.org:192.0.2.1@xfr-key".
struct SecondaryZone {
  std::string origin;     // wire, lower case
  ClientAddress primary;  // address and port; NOTIFY is taken from this address only
  std::string key;        // TSIG key name (wire, lower case); empty: unsigned
};

// Reads "ZONE:ADDRESS[#PORT][@KEY]"; returns an empty string, or what is wrong.
std::string parse_secondary(std::string_view text, SecondaryZone& out);

// RFC 1982 §3.2: whether serial `a` is greater than `b` (a != b and the
// distance forward from b to a is under 2^31).
inline bool serial_greater(uint32_t a, uint32_t b) { return a != b && int32_t(a - b) > 0; }

// The numbers of an SOA's RDATA (RFC 1035 §3.3.13), the timers in seconds.
struct Soa {
  uint32_t serial = 0, refresh = 0, retry = 0, expire = 0, minimum = 0;
};
// From uncompressed SOA RDATA; nullopt if it is too short.
std::optional<Soa> read_soa(std::string_view rdata);

// When to ask the primary next, and whether the zone has expired: the
// refresh, retry and expire timers of RFC 1035 §3.3.13 (and RFC 1996 §3: a
// NOTIFY asks at once). Times are milliseconds from a monotonic clock; the
// front end arms one timer for due_at() and calls the on_* methods.
class SecondaryTimers {
 public:
  // Before the zone was ever loaded: ask again after this, doubling per
  // failure up to max_initial_retry_ms (NSD backs off likewise).
  static constexpr uint64_t first_retry_ms = 2'000;
  static constexpr uint64_t max_initial_retry_ms = 300'000;
  enum class State : uint8_t { empty, loaded, expired };

  explicit SecondaryTimers(uint64_t now = 0) : due_(now) {}

  // The zone was loaded (a transfer, or the compiled-in copy at boot) with
  // `soa`: refresh from now; expiry counts from now.
  void on_loaded(const Soa& soa, uint64_t now);
  // The primary's serial is ours (or older): nothing to transfer; expiry
  // counts from now (RFC 1035: EXPIRE runs from the last successful refresh).
  void on_up_to_date(uint64_t now);
  // The check or the transfer failed: ask again after RETRY.
  void on_failed(uint64_t now);
  // A NOTIFY for the zone came (RFC 1996 §3): ask now.
  void on_notify(uint64_t now) { due_ = now; }
  // Whether the zone has expired at `now` (it answers SERVFAIL then, as NSD).
  bool expired(uint64_t now) const;

  uint64_t due_at() const { return due_; }
  // When a loaded zone expires unless refreshed before.
  uint64_t expires_at() const { return refreshed_at_ + uint64_t(soa_.expire) * 1000; }
  State state(uint64_t now) const;
  std::optional<uint32_t> serial() const { return serial_; }
  uint32_t failures() const { return failures_; }

 private:
  std::optional<uint32_t> serial_;
  Soa soa_;
  uint64_t refreshed_at_ = 0;  // the last successful refresh
  uint64_t due_ = 0;
  uint32_t failures_ = 0;
};

}  // namespace keel::dns

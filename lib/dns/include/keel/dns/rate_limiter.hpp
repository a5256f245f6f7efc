// Response rate limiting per client prefix (after BIND's RRL and RFC 5358's
// advice for open servers): each /24 (IPv4) or /56 (IPv6) may receive
// `responses_per_second`, with a burst of one second's worth. Over the limit,
// responses are dropped, except every `slip`-th, which goes out truncated
// (TC=1, no records) so a real client can retry over TCP. Off by default.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace keel::dns {

struct ClientAddress {
  enum class Family : uint8_t { ipv4, ipv6 };
  Family family = Family::ipv4;
  std::array<uint8_t, 16> bytes{};  // network order; IPv4 in the first 4
  uint16_t port = 0;

  static ClientAddress ipv4(uint32_t host_order, uint16_t port);
};

struct RateLimitOptions {
  uint32_t responses_per_second = 0;  // 0: no limit
  uint32_t slip = 2;                  // 0: never slip, 1: slip every limited response
  uint8_t ipv4_prefix = 24;
  uint8_t ipv6_prefix = 56;
  uint32_t table_size = 4096;  // prefixes tracked at once (a power of two)
};

class RateLimiter {
 public:
  enum class Decision : uint8_t { send, drop, slip };

  explicit RateLimiter(const RateLimitOptions& options);
  bool enabled() const { return options_.responses_per_second != 0; }
  // One response to `client` at `now_ms` (a monotonic clock).
  Decision check(const ClientAddress& client, uint64_t now_ms);

 private:
  struct Bucket {
    uint64_t key = 0;  // the prefix, 0 = unused
    uint64_t second = 0;
    int64_t balance = 0;
    uint32_t limited = 0;  // responses over the limit so far, for the slip count
  };
  uint64_t key_of(const ClientAddress& client) const;

  RateLimitOptions options_;
  std::vector<Bucket> buckets_;
};

}  // namespace keel::dns

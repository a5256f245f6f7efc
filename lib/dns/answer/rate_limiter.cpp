#include "keel/dns/rate_limiter.hpp"

#include <algorithm>

namespace keel::dns {
namespace {
constexpr uint64_t ms_per_second = 1000;
}

ClientAddress ClientAddress::ipv4(uint32_t host_order, uint16_t port) {
  ClientAddress a;
  a.family = Family::ipv4;
  a.bytes[0] = uint8_t(host_order >> 24);
  a.bytes[1] = uint8_t(host_order >> 16);
  a.bytes[2] = uint8_t(host_order >> 8);
  a.bytes[3] = uint8_t(host_order);
  a.port = port;
  return a;
}

RateLimiter::RateLimiter(const RateLimitOptions& options) : options_(options) {
  if (!enabled()) return;
  std::size_t size = 1;
  while (size < options_.table_size) size *= 2;
  buckets_.resize(size);
}

uint64_t RateLimiter::key_of(const ClientAddress& client) const {
  const bool v4 = client.family == ClientAddress::Family::ipv4;
  const int bits =
      v4 ? std::min<int>(options_.ipv4_prefix, 32) : std::min<int>(options_.ipv6_prefix, 64);
  uint64_t prefix = 0;
  for (int i = 0; i < 8; ++i) prefix = prefix << 8 | client.bytes[i];
  if (v4) prefix &= 0xffffffff00000000ull;
  const uint64_t mask = bits == 0 ? 0 : ~0ull << (64 - bits);
  // The top bit tells the families apart and keeps the key non-zero.
  return (prefix & mask) >> 1 | (v4 ? 1ull << 63 : 1ull << 62);
}

RateLimiter::Decision RateLimiter::check(const ClientAddress& client, uint64_t now_ms) {
  if (!enabled()) return Decision::send;
  const uint64_t key = key_of(client);
  const uint64_t second = now_ms / ms_per_second;
  const int64_t rate = options_.responses_per_second;
  Bucket& b = buckets_[(key * 0x9e3779b97f4a7c15ull >> 32) & (buckets_.size() - 1)];
  if (b.key != key) b = Bucket{key, second, rate, 0};  // a new (or evicted) prefix starts full
  if (second > b.second) {
    // One second's worth per second, at most one second's worth banked.
    const uint64_t elapsed = second - b.second;
    b.balance =
        std::min<int64_t>(rate, b.balance + int64_t(std::min<uint64_t>(elapsed, 1u << 20)) * rate);
    b.second = second;
  }
  if (b.balance > 0) {
    --b.balance;
    return Decision::send;
  }
  ++b.limited;
  if (options_.slip != 0 && b.limited % options_.slip == 0) return Decision::slip;
  return Decision::drop;
}

}  // namespace keel::dns

#include "syn_cookies.hpp"

#include <array>

#include "net/wire/tcp.hpp"

namespace net::tcp {
namespace {

constexpr std::array<uint16_t, 8> mss_table{536, 1200, 1300, 1360, 1400, 1440, 1460, 8960};
constexpr uint32_t counter_shift = 27, counter_mask = 31;
constexpr uint32_t mss_shift = 24, mss_mask = 7;
constexpr uint32_t hash_mask = 0xffffff;
// TSval's low bits: 4 for the window scale (15: none), 1 for SACK.
constexpr uint32_t ts_bits = 5, ts_mask = (1u << ts_bits) - 1;
constexpr uint32_t ts_no_scale = 15, ts_sack_bit = 16;

uint32_t counter(uint64_t now_ns) { return uint32_t(now_ns / SynCookies::period_ns); }

}  // namespace

uint32_t SynCookies::make(const Secrets& secrets, const ConnectionKey& key, uint32_t peer_isn,
                          uint16_t peer_mss, uint64_t now_ns) {
  uint32_t index = 0;
  for (uint32_t i = 0; i < mss_table.size(); ++i)
    if (mss_table[i] <= peer_mss) index = i;
  uint32_t t = counter(now_ns) & counter_mask;
  return t << counter_shift | index << mss_shift |
         (secrets.cookie_hash(key, t, peer_isn) & hash_mask);
}

std::optional<uint16_t> SynCookies::check(const Secrets& secrets, const ConnectionKey& key,
                                          uint32_t peer_isn, uint32_t cookie, uint64_t now_ns) {
  uint32_t t = cookie >> counter_shift & counter_mask;
  uint32_t age = (counter(now_ns) - t) & counter_mask;
  if (age >= periods_valid) return std::nullopt;
  if ((secrets.cookie_hash(key, t, peer_isn) & hash_mask) != (cookie & hash_mask))
    return std::nullopt;
  return mss_table[cookie >> mss_shift & mss_mask];
}

uint32_t SynCookies::encode_timestamp(uint32_t tsval, const Options& options) {
  uint32_t bits = options.window_scale ? *options.window_scale : ts_no_scale;
  if (options.sack) bits |= ts_sack_bit;
  uint32_t encoded = (tsval & ~ts_mask) | bits;
  // Never later than the clock: the next TSval must not look older (PAWS).
  if (int32_t(encoded - tsval) > 0) encoded -= 1u << ts_bits;
  return encoded;
}

SynCookies::Options SynCookies::decode_timestamp(uint32_t echo) {
  Options o;
  uint32_t scale = echo & 15;
  if (scale <= wire::tcp_max_window_shift) o.window_scale = uint8_t(scale);
  o.sack = echo & ts_sack_bit;
  return o;
}

}  // namespace net::tcp

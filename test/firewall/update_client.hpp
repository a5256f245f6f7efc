#pragma once
// A client of the rule-update protocol (update_channel.hpp) for tests and the fuzz target: the
// messages push_rules.py sends, built in C++.
#include <cstdint>
#include <span>
#include <vector>

#include "keel/crypto/hmac_sha256.hpp"
#include "keel/firewall/update_channel.hpp"
#include "util/big_endian.hpp"

namespace keel::firewall::update::testing {

inline std::vector<uint8_t> signed_message(std::span<const uint8_t> key, uint8_t type,
                                           std::span<const uint8_t> session, uint64_t seq,
                                           std::span<const uint8_t> body) {
  std::vector<uint8_t> m(kMagic, kMagic + kMagicBytes);
  m.push_back(type);
  m.insert(m.end(), session.begin(), session.end());
  m.resize(m.size() + kSeqBytes);
  util::store64(&m[m.size() - kSeqBytes], seq);
  m.insert(m.end(), body.begin(), body.end());
  crypto::Sha256Digest mac = crypto::hmac_sha256(key, m);
  m.insert(m.end(), mac.begin(), mac.end());
  return m;
}

inline std::vector<uint8_t> begin_body(uint64_t generation, uint32_t size) {
  std::vector<uint8_t> b(12);
  util::store64(b.data(), generation);
  util::store32(b.data() + 8, size);
  return b;
}

inline std::vector<uint8_t> data_body(uint32_t offset, std::span<const uint8_t> bytes) {
  std::vector<uint8_t> b(4);
  util::store32(b.data(), offset);
  b.insert(b.end(), bytes.begin(), bytes.end());
  return b;
}

inline std::vector<uint8_t> commit_body(uint64_t generation, std::span<const uint8_t> blob) {
  std::vector<uint8_t> b(8);
  util::store64(b.data(), generation);
  crypto::Sha256Digest digest = crypto::sha256(blob);
  b.insert(b.end(), digest.begin(), digest.end());
  return b;
}

}  // namespace keel::firewall::update::testing

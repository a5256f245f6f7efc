// The kernel's random generator: fast key erasure over ChaCha20 (Bernstein,
// "Fast-key-erasure random-number generators", 2017; Linux's crng since
// 5.17). Every request first replaces the key with the first half of a
// block of its own key stream and draws the output from the rest, so the
// key that made a caller's bytes is gone before they are returned: reading
// the generator's memory later tells nothing about earlier output
// (docs/decisions/0104).
//
// Portable and without a clock: when to reseed, and from what, is the
// platform's business (src/platform/kvm/entropy.cpp).
#pragma once
#include <cstddef>
#include <cstdint>

#include "chacha20.hpp"

namespace keel::random {

class Generator {
 public:
  Generator() = default;
  Generator(const Generator&) = default;  // tests compare copies
  Generator& operator=(const Generator&) = default;
  ~Generator() { wipe(key_, sizeof key_); }

  // Folds `size` bytes of seed material into the key, 32 bytes at a time:
  // key = first 32 bytes of ChaCha20(key XOR chunk), nonce "mix" + the
  // chunk's length. A chunk with any entropy the attacker does not know
  // leaves a key they cannot predict; low-entropy material (TSC jitter)
  // adds up across chunks without ever removing what the key had.
  void mix(const void* data, std::size_t size);

  // Fills `out` with `size` bytes, erasing the key first (see above).
  void generate(void* out, std::size_t size);

  // Bytes handed out since the last mix(): the platform's reseed policy.
  uint64_t generated_since_mix() const { return generated_since_mix_; }

  // For tests: the current key.
  const uint8_t* key() const { return key_; }

  // Requests larger than this are served in pieces, each after its own
  // key erasure, so the 32-bit block counter never wraps.
  static constexpr std::size_t max_piece = std::size_t(1) << 20;

 private:
  uint8_t key_[chacha20_key_size] = {};
  uint64_t generated_since_mix_ = 0;
};

}  // namespace keel::random

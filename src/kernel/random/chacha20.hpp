// The ChaCha20 block function (RFC 8439, 2.3): 32-byte key, 32-bit block
// counter, 96-bit nonce -> 64 bytes of key stream. The kernel's random
// generator (generator.hpp) is built on it; no dependency on lib/.
#pragma once
#include <cstddef>
#include <cstdint>

namespace keel::random {

inline constexpr std::size_t chacha20_key_size = 32;
inline constexpr std::size_t chacha20_nonce_size = 12;
inline constexpr std::size_t chacha20_block_size = 64;

// Writes block `counter` of the key stream for `key` and `nonce` to `out`.
void chacha20_block(const uint8_t (&key)[chacha20_key_size], uint32_t counter,
                    const uint8_t (&nonce)[chacha20_nonce_size],
                    uint8_t (&out)[chacha20_block_size]);

// Zeroes `size` bytes in a way the compiler may not drop as a dead store.
void wipe(void* data, std::size_t size);

}  // namespace keel::random

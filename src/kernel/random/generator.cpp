#include "generator.hpp"

#include <algorithm>
#include <cstring>

namespace keel::random {
namespace {

// Distinct nonces keep the mixing blocks apart from the output blocks.
constexpr uint8_t output_nonce[chacha20_nonce_size] = {};
constexpr uint8_t mix_tag[] = {'m', 'i', 'x', 0, 0, 0, 0, 0};

}  // namespace

void Generator::mix(const void* data, std::size_t size) {
  auto* bytes = static_cast<const uint8_t*>(data);
  uint8_t block[chacha20_block_size];
  uint8_t chunk_key[chacha20_key_size];
  uint8_t nonce[chacha20_nonce_size] = {};
  std::memcpy(nonce, mix_tag, sizeof mix_tag);
  do {
    std::size_t n = std::min(size, sizeof chunk_key);
    std::memcpy(chunk_key, key_, sizeof chunk_key);
    for (std::size_t i = 0; i < n; ++i) chunk_key[i] ^= bytes[i];
    // The length goes into the nonce: "ab" and "ab\0" are different seeds.
    nonce[8] = uint8_t(n);
    chacha20_block(chunk_key, 0, nonce, block);
    std::memcpy(key_, block, sizeof key_);
    bytes += n;
    size -= n;
  } while (size > 0);
  wipe(block, sizeof block);
  wipe(chunk_key, sizeof chunk_key);
  generated_since_mix_ = 0;
}

void Generator::generate(void* out, std::size_t size) {
  auto* bytes = static_cast<uint8_t*>(out);
  uint8_t block[chacha20_block_size];
  uint8_t stream_key[chacha20_key_size];
  while (size > 0) {
    std::size_t piece = std::min(size, max_piece);
    // Key erasure: the new key is the first half of the block, the second
    // half is this request's output (short requests) or the key of its
    // stream (long ones). The old key is overwritten here.
    chacha20_block(key_, 0, output_nonce, block);
    std::memcpy(key_, block, sizeof key_);
    const uint8_t* rest = block + chacha20_key_size;
    if (piece <= chacha20_block_size - chacha20_key_size) {
      std::memcpy(bytes, rest, piece);
    } else {
      std::memcpy(stream_key, rest, sizeof stream_key);
      std::size_t done = 0;
      for (uint32_t counter = 0; done < piece; ++counter) {
        chacha20_block(stream_key, counter, output_nonce, block);
        std::size_t n = std::min(piece - done, sizeof block);
        std::memcpy(bytes + done, block, n);
        done += n;
      }
    }
    bytes += piece;
    size -= piece;
    generated_since_mix_ += piece;
  }
  wipe(block, sizeof block);
  wipe(stream_key, sizeof stream_key);
}

}  // namespace keel::random

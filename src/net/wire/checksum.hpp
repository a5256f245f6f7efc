// Network byte order access and the Internet checksum (RFC 1071), shared by
// the wire formats.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <net/ip4_addr.hpp>

#include "util/big_endian.hpp"

namespace net::wire {

using keel::util::load16;
using keel::util::load32;
using keel::util::store16;
using keel::util::store32;

// The 32-bit running sum of 16-bit big-endian words; fold() finishes it.
// RFC 1071 §2: the sum is byte-order independent, so words are summed in
// host order 8 bytes at a time and swapped once at the end.
uint32_t checksum_add(uint32_t sum, const uint8_t* data, std::size_t len);
// A host-order (little-endian) accumulation of words, folded to 16 bits and
// swapped to big-endian: how checksum_add finishes.
inline uint32_t checksum_finish_host_order(uint64_t acc) {
  while (acc >> 16) acc = (acc & 0xffff) + (acc >> 16);
  return uint32_t(((acc & 0xff) << 8) | (acc >> 8));
}
inline uint16_t checksum_fold(uint32_t sum) {
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return uint16_t(sum);
}
// The checksum field value for `data` (ones' complement of the sum).
inline uint16_t checksum(const uint8_t* data, std::size_t len) {
  return uint16_t(~checksum_fold(checksum_add(0, data, len)));
}
// An IPv4 header's checksum field value: the usual 20-byte header (no
// options) summed inline, as five 32-bit words; it is checked and written once
// per datagram each way, where the call and loops of checksum_add cost more
// than the sum itself.
inline uint16_t ip4_header_checksum(const uint8_t* header, std::size_t len) {
  constexpr std::size_t plain_header = 20;  // RFC 791 §3.1: IHL 5
  if (len != plain_header) return checksum(header, len);
  uint64_t acc = 0;
  for (std::size_t i = 0; i < plain_header; i += 4) {
    uint32_t word;
    std::memcpy(&word, header + i, 4);
    acc += word;
  }
  return uint16_t(~checksum_fold(checksum_finish_host_order(acc)));
}
// RFC 768 / RFC 9293 §3.1 pseudo-header: addresses, protocol, length.
inline uint32_t pseudo_header_sum(ip4::Addr src, ip4::Addr dst, uint8_t protocol, uint16_t length) {
  return (src.value >> 16) + (src.value & 0xffff) + (dst.value >> 16) + (dst.value & 0xffff) +
         protocol + length;
}
// RFC 1624 eqn. 3: the checksum field after one 16-bit word of the covered
// data changes from `old_word` to `new_word`.
inline uint16_t checksum_update(uint16_t field, uint16_t old_word, uint16_t new_word) {
  uint32_t sum = uint32_t(uint16_t(~field)) + uint16_t(~old_word) + new_word;
  return uint16_t(~checksum_fold(sum));
}
inline uint16_t checksum_update32(uint16_t field, uint32_t old_value, uint32_t new_value) {
  field = checksum_update(field, uint16_t(old_value >> 16), uint16_t(new_value >> 16));
  return checksum_update(field, uint16_t(old_value), uint16_t(new_value));
}

}  // namespace net::wire

// IPv6 headers (RFC 8200 §3): a view with checked access, the parsed value
// (Ip6Repr), the extension headers' numbers and the pseudo-header sum of
// upper-layer checksums (RFC 8200 §8.1).
#pragma once
#include <cstdint>
#include <net/address.hpp>

#include "checksum.hpp"
#include "view.hpp"

namespace net::wire {

inline constexpr uint32_t ip6_header_size = 40;
inline constexpr uint32_t ip6_min_mtu = 1280;  // RFC 8200 §5: every link carries 1280 bytes
inline constexpr uint8_t ip6_version = 6;
inline constexpr uint8_t ip6_default_hop_limit = 64;
inline constexpr uint32_t ip6_max_payload = 65535;  // no jumbograms (RFC 2675)

// IANA next-header numbers (RFC 8200 §4, RFC 4443).
inline constexpr uint8_t ip6_next_hop_by_hop = 0;
inline constexpr uint8_t ip6_next_routing = 43;
inline constexpr uint8_t ip6_next_fragment = 44;
inline constexpr uint8_t ip6_next_icmp6 = 58;
inline constexpr uint8_t ip6_next_none = 59;
inline constexpr uint8_t ip6_next_destination = 60;

// Why a header was refused, in the order check() tests.
enum class Ip6Error : uint8_t {
  none,
  truncated,           // shorter than 40 bytes
  bad_version,         // not 6
  bad_payload_length,  // past the frame (RFC 8200 §3)
};

template <class Byte>
class Ip6View : public View<Byte> {
  using View<Byte>::data_;
  using View<Byte>::size_;

 public:
  using View<Byte>::View;

  Ip6Error check() const {
    if (size_ < ip6_header_size) return Ip6Error::truncated;
    if (version() != ip6_version) return Ip6Error::bad_version;
    if (ip6_header_size + payload_length() > size_) return Ip6Error::bad_payload_length;
    return Ip6Error::none;
  }

  uint8_t version() const { return data_[0] >> 4; }
  uint8_t traffic_class() const { return uint8_t(load16(data_) >> 4); }
  uint32_t flow_label() const { return load32(data_) & 0xfffff; }
  uint16_t payload_length() const { return load16(data_ + 4); }
  uint8_t next_header() const { return data_[6]; }
  uint8_t hop_limit() const { return data_[7]; }
  ip6::Addr src() const { return read(data_ + 8); }
  ip6::Addr dst() const { return read(data_ + 24); }
  Byte* payload() const { return data_ + ip6_header_size; }
  // A router's one hop (RFC 8200 §3): no header checksum to mend.
  void decrement_hop_limit() { --data_[7]; }

 private:
  static ip6::Addr read(const uint8_t* p) {
    ip6::Addr a;
    for (std::size_t i = 0; i < a.bytes.size(); ++i) a.bytes[i] = p[i];
    return a;
  }
};

template <class Byte>
Ip6View(Byte*, std::size_t) -> Ip6View<Byte>;

struct Ip6Repr {
  ip6::Addr src, dst;
  uint8_t next_header = 0;
  uint8_t hop_limit = ip6_default_hop_limit;
  uint16_t payload_len = 0;
  uint8_t traffic_class = 0;
  uint32_t flow_label = 0;

  template <class Byte>
  static Ip6Repr parse(const Ip6View<Byte>& v) {
    return {v.src(),           v.dst(),       v.next_header(), v.hop_limit(), v.payload_length(),
            v.traffic_class(), v.flow_label()};
  }
  void emit(uint8_t* out) const {
    store32(out,
            uint32_t(ip6_version) << 28 | uint32_t(traffic_class) << 20 | (flow_label & 0xfffff));
    store16(out + 4, payload_len);
    out[6] = next_header;
    out[7] = hop_limit;
    for (std::size_t i = 0; i < 16; ++i) {
      out[8 + i] = src.bytes[i];
      out[24 + i] = dst.bytes[i];
    }
  }
  friend bool operator==(const Ip6Repr&, const Ip6Repr&) = default;
};

// RFC 8200 §8.1: the upper-layer checksum covers source, destination, the
// upper-layer length (32 bits) and the next header.
inline uint32_t pseudo_header_sum(const ip6::Addr& src, const ip6::Addr& dst, uint8_t next_header,
                                  uint32_t length) {
  uint32_t sum = checksum_add(0, src.bytes.data(), src.bytes.size());
  sum = checksum_add(sum, dst.bytes.data(), dst.bytes.size());
  return sum + (length >> 16) + (length & 0xffff) + next_header;
}

}  // namespace net::wire

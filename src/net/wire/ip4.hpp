// IPv4 headers (RFC 791 §3.1): a view with checked access, and the parsed
// value (Ip4Repr) that layers and tests compare and emit.
#pragma once
#include <cstdint>
#include <net/ip4_addr.hpp>

#include "checksum.hpp"
#include "view.hpp"

namespace net::wire {

inline constexpr uint32_t ip4_header_min = 20;  // IHL 5
inline constexpr uint32_t ip4_header_max = 60;  // IHL 15
inline constexpr uint32_t ip4_max_total_length = 65535;
inline constexpr uint32_t ip4_min_mtu = 68;  // RFC 791: every link carries 68 bytes
inline constexpr uint8_t ip4_version = 4;
inline constexpr uint8_t ip4_default_ttl = 64;
inline constexpr uint32_t ip4_fragment_unit = 8;  // offsets count 8-byte blocks

// IANA protocol numbers.
inline constexpr uint8_t ip_protocol_icmp = 1;
inline constexpr uint8_t ip_protocol_tcp = 6;
inline constexpr uint8_t ip_protocol_udp = 17;

// Why a header was refused, in the order check() tests.
enum class Ip4Error : uint8_t {
  none,
  truncated,  // shorter than 20 bytes
  bad_version,
  bad_header_length,  // IHL < 5 or past the packet
  bad_total_length,   // < IHL*4 or past the packet
  bad_checksum,
};

template <class Byte>
class Ip4View : public View<Byte> {
  using View<Byte>::data_;
  using View<Byte>::size_;

 public:
  using View<Byte>::View;

  Ip4Error check(bool verify_checksum = true) const {
    if (size_ < ip4_header_min) return Ip4Error::truncated;
    if (version() != ip4_version) return Ip4Error::bad_version;
    if (header_len() < ip4_header_min || header_len() > size_) return Ip4Error::bad_header_length;
    if (total_length() < header_len() || total_length() > size_) return Ip4Error::bad_total_length;
    if (verify_checksum && ip4_header_checksum(data_, header_len()) != 0)
      return Ip4Error::bad_checksum;
    return Ip4Error::none;
  }

  uint8_t version() const { return data_[0] >> 4; }
  uint32_t header_len() const { return uint32_t(data_[0] & 0x0f) * 4; }
  uint8_t tos() const { return data_[1]; }
  uint16_t total_length() const { return load16(data_ + 2); }
  uint16_t id() const { return load16(data_ + 4); }
  bool dont_fragment() const { return data_[6] & 0x40; }
  bool more_fragments() const { return data_[6] & 0x20; }
  // In bytes.
  uint32_t fragment_offset() const {
    return uint32_t(load16(data_ + 6) & 0x1fff) * ip4_fragment_unit;
  }
  bool is_fragment() const { return more_fragments() || fragment_offset() != 0; }
  uint8_t ttl() const { return data_[8]; }
  uint8_t protocol() const { return data_[9]; }
  uint16_t header_checksum() const { return load16(data_ + 10); }
  ip4::Addr src() const { return ip4::Addr::from_bytes(data_ + 12); }
  ip4::Addr dst() const { return ip4::Addr::from_bytes(data_ + 16); }
  Byte* payload() const { return data_ + header_len(); }
  uint32_t payload_len() const { return total_length() - header_len(); }

  void set_total_length(uint16_t v) requires View<Byte>::is_mutable { store16(data_ + 2, v); }
  void set_fragment(bool dont_fragment, bool more_fragments,
                    uint32_t offset_bytes) requires View<Byte>::is_mutable {
    store16(data_ + 6, uint16_t((dont_fragment ? 0x4000 : 0) | (more_fragments ? 0x2000 : 0) |
                                (offset_bytes / ip4_fragment_unit)));
  }
  void set_src(ip4::Addr a) requires View<Byte>::is_mutable { a.write(data_ + 12); }
  void set_dst(ip4::Addr a) requires View<Byte>::is_mutable { a.write(data_ + 16); }
  void fill_checksum() requires View<Byte>::is_mutable {
    store16(data_ + 10, 0);
    store16(data_ + 10, ip4_header_checksum(data_, header_len()));
  }
  // RFC 1624: TTL and protocol share one 16-bit word of the header.
  void decrement_ttl() requires View<Byte>::is_mutable {
    uint16_t before = load16(data_ + 8);
    --data_[8];
    store16(data_ + 10, checksum_update(header_checksum(), before, load16(data_ + 8)));
  }
};

template <class Byte>
Ip4View(Byte*, std::size_t) -> Ip4View<Byte>;

// A header without options, as a value.
struct Ip4Repr {
  ip4::Addr src, dst;
  uint8_t protocol = 0;
  uint8_t ttl = ip4_default_ttl;
  uint8_t tos = 0;
  uint16_t id = 0;
  bool dont_fragment = false;
  bool more_fragments = false;
  uint32_t fragment_offset = 0;  // bytes
  uint16_t payload_len = 0;

  static constexpr uint32_t header_len = ip4_header_min;

  // From a header check() accepted (options are skipped).
  template <class Byte>
  static Ip4Repr parse(const Ip4View<Byte>& v) {
    return {v.src(),
            v.dst(),
            v.protocol(),
            v.ttl(),
            v.tos(),
            v.id(),
            v.dont_fragment(),
            v.more_fragments(),
            v.fragment_offset(),
            uint16_t(v.payload_len())};
  }
  // Writes the 20-byte header, checksum included, at `out`.
  void emit(uint8_t* out) const {
    out[0] = uint8_t(ip4_version << 4 | header_len / 4);
    out[1] = tos;
    Ip4View<uint8_t> v(out, header_len);
    v.set_total_length(uint16_t(header_len + payload_len));
    store16(out + 4, id);
    v.set_fragment(dont_fragment, more_fragments, fragment_offset);
    out[8] = ttl;
    out[9] = protocol;
    v.set_src(src);
    v.set_dst(dst);
    v.fill_checksum();
  }
  friend bool operator==(const Ip4Repr&, const Ip4Repr&) = default;
};

}  // namespace net::wire

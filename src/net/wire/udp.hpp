// UDP headers (RFC 768): a view with checked access (length and checksum
// with the IPv4 or IPv6 pseudo-header), and the parsed value.
#pragma once
#include <cstdint>
#include <net/ip4_addr.hpp>

#include "checksum.hpp"
#include "ip4.hpp"
#include "ip6.hpp"
#include "view.hpp"

namespace net::wire {

inline constexpr uint32_t udp_header_size = 8;
// 65535 - 20 (IPv4 header) - 8 (UDP header).
inline constexpr uint32_t udp_max_payload = 65507;

enum class UdpError : uint8_t { none, truncated, bad_length, bad_checksum };

template <class Byte>
class UdpView : public View<Byte> {
  using View<Byte>::data_;
  using View<Byte>::size_;

 public:
  using View<Byte>::View;

  // verify_checksum: false when the NIC vouched for it. RFC 768: a zero
  // checksum means the sender computed none.
  UdpError check(ip4::Addr src, ip4::Addr dst, bool verify_checksum = true) const {
    if (size_ < udp_header_size) return UdpError::truncated;
    if (length() < udp_header_size || length() > size_) return UdpError::bad_length;
    if (verify_checksum && datagram_checksum() != 0)
      return sum_ok(pseudo_header_sum(src, dst, ip_protocol_udp, length()));
    return UdpError::none;
  }
  // Over IPv6 the checksum is mandatory (RFC 8200 §8.1): zero is refused.
  UdpError check(const ip6::Addr& src, const ip6::Addr& dst, bool verify_checksum = true) const {
    if (size_ < udp_header_size) return UdpError::truncated;
    if (length() < udp_header_size || length() > size_) return UdpError::bad_length;
    if (verify_checksum && datagram_checksum() == 0) return UdpError::bad_checksum;
    if (verify_checksum) return sum_ok(pseudo_header_sum(src, dst, ip_protocol_udp, length()));
    return UdpError::none;
  }
  uint16_t src_port() const { return load16(data_); }
  uint16_t dst_port() const { return load16(data_ + 2); }
  uint16_t length() const { return load16(data_ + 4); }
  uint16_t datagram_checksum() const { return load16(data_ + 6); }
  Byte* payload() const { return data_ + udp_header_size; }
  uint32_t payload_len() const { return length() - udp_header_size; }

 private:
  UdpError sum_ok(uint32_t pseudo) const {
    bool good = checksum_fold(checksum_add(pseudo, data_, length())) == 0xffff;
    return good ? UdpError::none : UdpError::bad_checksum;
  }
};

template <class Byte>
UdpView(Byte*, std::size_t) -> UdpView<Byte>;

struct UdpRepr {
  uint16_t src_port = 0, dst_port = 0;
  uint16_t payload_len = 0;

  template <class Byte>
  static UdpRepr parse(const UdpView<Byte>& v) {
    return {v.src_port(), v.dst_port(), uint16_t(v.payload_len())};
  }
  // Writes the header at `datagram` (payload already behind it) with the
  // full checksum, or, for offload, only the pseudo-header sum.
  enum class Checksum { full, pseudo_header_only };
  void emit(uint8_t* datagram, ip4::Addr src, ip4::Addr dst, Checksum how = Checksum::full) const {
    uint16_t length = uint16_t(udp_header_size + payload_len);
    emit_with(datagram, pseudo_header_sum(src, dst, ip_protocol_udp, length), how);
  }
  void emit(uint8_t* datagram, const ip6::Addr& src, const ip6::Addr& dst) const {
    uint16_t length = uint16_t(udp_header_size + payload_len);
    emit_with(datagram, pseudo_header_sum(src, dst, ip_protocol_udp, length), Checksum::full);
  }
  // With the pseudo-header's sum given.
  void emit_with(uint8_t* datagram, uint32_t pseudo, Checksum how) const {
    uint16_t length = uint16_t(udp_header_size + payload_len);
    store16(datagram, src_port);
    store16(datagram + 2, dst_port);
    store16(datagram + 4, length);
    store16(datagram + 6, 0);
    if (how == Checksum::pseudo_header_only) {
      store16(datagram + 6, checksum_fold(pseudo));
      return;
    }
    uint16_t sum = uint16_t(~checksum_fold(checksum_add(pseudo, datagram, length)));
    store16(datagram + 6, sum == 0 ? 0xffff : sum);  // RFC 768: 0 means "no checksum"
  }
  friend bool operator==(const UdpRepr&, const UdpRepr&) = default;
};

}  // namespace net::wire

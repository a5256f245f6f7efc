// TCP headers (RFC 9293 §3.1): a view with checked access. Options and the
// connection logic belong to src/net/tcp.
#pragma once
#include <cstdint>

#include <net/ip4_addr.hpp>

#include "checksum.hpp"
#include "ip4.hpp"
#include "view.hpp"

namespace net::wire {

inline constexpr uint32_t tcp_header_min = 20;
inline constexpr uint32_t tcp_header_max = 60;

namespace tcp_flag {
inline constexpr uint8_t fin = 0x01, syn = 0x02, rst = 0x04, psh = 0x08, ack = 0x10, urg = 0x20,
                         ece = 0x40, cwr = 0x80;
}

enum class TcpError : uint8_t { none, truncated, bad_data_offset, bad_checksum };

template <class Byte>
class TcpView : public View<Byte> {
  using View<Byte>::data_;
  using View<Byte>::size_;

 public:
  using View<Byte>::View;

  TcpError check(ip4::Addr src, ip4::Addr dst, bool verify_checksum = true) const {
    if (size_ < tcp_header_min) return TcpError::truncated;
    if (header_len() < tcp_header_min || header_len() > size_) return TcpError::bad_data_offset;
    if (verify_checksum) {
      uint32_t pseudo = pseudo_header_sum(src, dst, ip_protocol_tcp, uint16_t(size_));
      if (checksum_fold(checksum_add(pseudo, data_, size_)) != 0xffff) return TcpError::bad_checksum;
    }
    return TcpError::none;
  }
  uint16_t src_port() const { return load16(data_); }
  uint16_t dst_port() const { return load16(data_ + 2); }
  uint32_t seq() const { return load32(data_ + 4); }
  uint32_t ack() const { return load32(data_ + 8); }
  uint32_t header_len() const { return uint32_t(data_[12] >> 4) * 4; }
  uint8_t flags() const { return data_[13]; }
  uint16_t window() const { return load16(data_ + 14); }
  uint16_t segment_checksum() const { return load16(data_ + 16); }
  uint16_t urgent() const { return load16(data_ + 18); }
  Byte* options() const { return data_ + tcp_header_min; }
  uint32_t options_len() const { return header_len() - tcp_header_min; }
  Byte* payload() const { return data_ + header_len(); }
  uint32_t payload_len() const { return uint32_t(size_) - header_len(); }
};

template <class Byte>
TcpView(Byte*, std::size_t) -> TcpView<Byte>;

}  // namespace net::wire

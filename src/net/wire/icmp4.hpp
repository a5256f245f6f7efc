// ICMPv4 messages (RFC 792): the 8-byte header as a view and a value.
#pragma once
#include <cstdint>

#include "checksum.hpp"
#include "view.hpp"

namespace net::wire {

inline constexpr uint32_t icmp4_header_size = 8;

namespace icmp4 {
enum Type : uint8_t {
  echo_reply = 0,
  unreachable = 3,
  echo_request = 8,
  time_exceeded = 11,
};
// Destination unreachable codes (RFC 792, RFC 1122 §3.2.2.1).
enum UnreachableCode : uint8_t {
  net_unreachable = 0,
  host_unreachable = 1,
  protocol_unreachable = 2,
  port_unreachable = 3,
  fragmentation_needed = 4,  // with the next-hop MTU (RFC 1191)
  net_prohibited = 9,        // administratively (RFC 1122 §3.2.2.1)
  host_prohibited = 10,
  communication_prohibited = 13,  // RFC 1812 §5.2.7.1
};
enum TimeExceededCode : uint8_t { ttl_exceeded = 0, reassembly_time_exceeded = 1 };
}  // namespace icmp4

enum class Icmp4Error : uint8_t { none, truncated, bad_checksum };

template <class Byte>
class Icmp4View : public View<Byte> {
  using View<Byte>::data_;
  using View<Byte>::size_;

 public:
  using View<Byte>::View;

  Icmp4Error check(bool verify_checksum = true) const {
    if (size_ < icmp4_header_size) return Icmp4Error::truncated;
    if (verify_checksum && checksum(data_, size_) != 0) return Icmp4Error::bad_checksum;
    return Icmp4Error::none;
  }
  uint8_t type() const { return data_[0]; }
  uint8_t code() const { return data_[1]; }
  uint16_t message_checksum() const { return load16(data_ + 2); }
  // The second word: echo identifier and sequence, or the next-hop MTU.
  uint32_t rest() const { return load32(data_ + 4); }
  uint16_t echo_id() const { return load16(data_ + 4); }
  uint16_t echo_seq() const { return load16(data_ + 6); }
  uint16_t next_hop_mtu() const { return load16(data_ + 6); }
  Byte* payload() const { return data_ + icmp4_header_size; }
  std::size_t payload_len() const { return size_ - icmp4_header_size; }
};

template <class Byte>
Icmp4View(Byte*, std::size_t) -> Icmp4View<Byte>;

struct Icmp4Repr {
  uint8_t type = 0, code = 0;
  uint32_t rest = 0;

  static Icmp4Repr echo(uint8_t type, uint16_t id, uint16_t seq) {
    return {type, 0, uint32_t(id) << 16 | seq};
  }
  template <class Byte>
  static Icmp4Repr parse(const Icmp4View<Byte>& v) {
    return {v.type(), v.code(), v.rest()};
  }
  // Writes the header at `message` and the checksum over all `len` bytes of
  // it (the payload must be in place).
  void emit(uint8_t* message, std::size_t len) const {
    message[0] = type;
    message[1] = code;
    store16(message + 2, 0);
    store32(message + 4, rest);
    store16(message + 2, checksum(message, len));
  }
  friend bool operator==(const Icmp4Repr&, const Icmp4Repr&) = default;
};

}  // namespace net::wire

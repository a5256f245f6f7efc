// ICMPv4 (RFC 792, RFC 1122 §3.2.2): echo replies, and the errors a host
// sends: destination (port, protocol) unreachable and time exceeded
// (reassembly).
// Errors are rate limited with a token bucket (RFC 1812 §4.3.2.8 and
// RFC 1122 §3.2.2 advise limiting) and never sent about ICMP errors,
// broadcasts, or non-initial fragments.
#pragma once
#include <chrono>
#include <cstdint>

#include <net/counters.hpp>
#include <net/packet.hpp>
#include <net/status.hpp>
#include <util/delegate.hpp>

#include "ip4_header.hpp"

namespace keel::net {

namespace icmp4 {
inline constexpr uint32_t header_size = 8;
inline constexpr uint8_t type_echo_reply = 0;
inline constexpr uint8_t type_unreachable = 3;
inline constexpr uint8_t type_echo_request = 8;
inline constexpr uint8_t type_time_exceeded = 11;
inline constexpr uint8_t code_protocol_unreachable = 2;
inline constexpr uint8_t code_port_unreachable = 3;
inline constexpr uint8_t code_reassembly_time_exceeded = 1;
}  // namespace icmp4

class Icmp4 {
 public:
  using Addr = ::net::ip4::Addr;
  using Output = keel::delegate<::net::Status(Addr dst, ::net::PacketPtr message)>;
  using Allocate = keel::delegate<::net::PacketPtr()>;

  // Token bucket for errors: bursts of 50, then 100 per second.
  static constexpr uint32_t error_burst = 50;
  static constexpr uint32_t errors_per_second = 100;

  explicit Icmp4(::net::Icmp4Counters& counters) : counters_(counters) {}

  void receive(const ip4::Header& header, ::net::PacketPtr message);
  // `ip_packet` starts at the offending datagram's IPv4 header.
  void send_port_unreachable(const uint8_t* ip_packet, std::size_t len);
  void send_protocol_unreachable(const uint8_t* ip_packet, std::size_t len);
  void send_time_exceeded(const uint8_t* ip_packet, std::size_t len);

  void set_output(Output output) { output_ = std::move(output); }
  void set_allocate(Allocate allocate) { allocate_ = std::move(allocate); }
  void set_checksum_verified_by_nic(bool v) { trust_nic_ = v; }

 private:
  void send_error(uint8_t type, uint8_t code, const uint8_t* ip_packet, std::size_t len);
  bool take_token();
  bool send_error_allowed(const uint8_t* ip_packet, std::size_t len);

  ::net::Icmp4Counters& counters_;
  Output output_;
  Allocate allocate_;
  bool trust_nic_ = true;
  uint32_t tokens_ = error_burst;
  uint64_t refilled_ns_ = 0;
};

}  // namespace keel::net

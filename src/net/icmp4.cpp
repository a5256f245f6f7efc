#include "icmp4.hpp"

#include <algorithm>
#include <cstring>
#include <os>

#include "bytes.hpp"

namespace keel::net {

void Icmp4::receive(const ip4::Header& h, ::net::PacketPtr message) {
  ++counters_.rx;
  if (message->size() < icmp4::header_size) {
    ++counters_.drop_truncated;
    return;
  }
  bool verified = trust_nic_ && (message->flags & ::net::Packet::checksum_verified);
  if (!verified && checksum(message->data(), message->size()) != 0) {
    ++counters_.drop_bad_checksum;
    return;
  }
  uint8_t* m = message->data();
  if (m[0] != icmp4::type_echo_request || m[1] != 0) {
    ++counters_.rx_ignored;
    return;
  }
  ++counters_.rx_echo_requests;
  // RFC 1122 §3.2.2.6: an echo to a broadcast address may be ignored (smurf).
  if (h.to_broadcast) {
    ++counters_.rx_ignored;
    return;
  }
  // The reply is the request turned around in its own buffer (RFC 792: same
  // identifier, sequence and data). RFC 1624 incremental checksum update:
  // only the type byte changes from 8 to 0.
  m[0] = icmp4::type_echo_reply;
  uint32_t sum = uint32_t(uint16_t(~load16(m + 2))) + uint16_t(~(icmp4::type_echo_request << 8)) +
                 uint16_t(icmp4::type_echo_reply << 8);
  store16(m + 2, uint16_t(~checksum_fold(sum)));
  message->flags = 0;
  if (output_ && output_(h.src, std::move(message)) == ::net::Status::ok) ++counters_.tx_echo_replies;
}

bool Icmp4::take_token() {
  uint64_t now = uint64_t(os::uptime().count());
  uint64_t per_token = 1'000'000'000ull / errors_per_second;
  if (now - refilled_ns_ >= per_token) {
    uint64_t add = (now - refilled_ns_) / per_token;
    tokens_ = uint32_t(std::min<uint64_t>(error_burst, tokens_ + add));
    refilled_ns_ += add * per_token;
  }
  if (tokens_ == 0) return false;
  --tokens_;
  return true;
}

void Icmp4::send_port_unreachable(const uint8_t* ip, std::size_t len) {
  if (send_error_allowed(ip, len)) send_error(icmp4::type_unreachable, icmp4::code_port_unreachable, ip, len);
}

void Icmp4::send_protocol_unreachable(const uint8_t* ip, std::size_t len) {
  if (send_error_allowed(ip, len))
    send_error(icmp4::type_unreachable, icmp4::code_protocol_unreachable, ip, len);
}

void Icmp4::send_time_exceeded(const uint8_t* ip, std::size_t len) {
  if (send_error_allowed(ip, len))
    send_error(icmp4::type_time_exceeded, icmp4::code_reassembly_time_exceeded, ip, len);
}

bool Icmp4::send_error_allowed(const uint8_t* ip, std::size_t len) {
  if (len < ip4::header_min) return false;
  uint32_t header_len = uint32_t(ip[0] & 0x0f) * 4;
  if (header_len < ip4::header_min || header_len > len) return false;
  // RFC 1122 §3.2.2: never about an ICMP error, a non-initial fragment, or
  // a datagram from a broadcast/multicast/zero source.
  if ((load16(ip + 6) & ip4::fragment_offset_mask) != 0) return false;
  Addr src = Addr::from_bytes(ip + 12), dst = Addr::from_bytes(ip + 16);
  if (src.is_any() || src.is_broadcast() || src.is_multicast()) return false;
  if (dst.is_broadcast() || dst.is_multicast()) return false;  // subnet broadcasts: callers
  if (ip[9] == ip4::protocol_icmp) {
    if (len < header_len + 1) return false;
    uint8_t type = ip[header_len];
    if (type != icmp4::type_echo_request && type != icmp4::type_echo_reply) return false;
  }
  if (!take_token()) {
    ++counters_.drop_rate_limited;
    return false;
  }
  return true;
}

void Icmp4::send_error(uint8_t type, uint8_t code, const uint8_t* ip, std::size_t len) {
  uint32_t header_len = uint32_t(ip[0] & 0x0f) * 4;
  // RFC 792: the offending header and the first 64 bits of its data.
  std::size_t quoted = std::min<std::size_t>(len, header_len + 8);
  ::net::PacketPtr packet = allocate_ ? allocate_() : nullptr;
  uint8_t* m = packet ? packet->append(uint32_t(icmp4::header_size + quoted)) : nullptr;
  if (!m) {
    ++counters_.drop_no_buffer;
    return;
  }
  m[0] = type;
  m[1] = code;
  store16(m + 2, 0);
  store32(m + 4, 0);  // unused
  std::memcpy(m + icmp4::header_size, ip, quoted);
  store16(m + 2, checksum(m, icmp4::header_size + quoted));
  if (!output_ || output_(Addr::from_bytes(ip + 12), std::move(packet)) != ::net::Status::ok) return;
  if (type == icmp4::type_time_exceeded) {
    ++counters_.tx_time_exceeded;
  } else if (code == icmp4::code_protocol_unreachable) {
    ++counters_.tx_protocol_unreachable;
  } else {
    ++counters_.tx_port_unreachable;
  }
}

}  // namespace keel::net

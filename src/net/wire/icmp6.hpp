// ICMPv6 messages (RFC 4443 §2.1) and the Neighbor Discovery messages a host
// uses (RFC 4861 §4.3, §4.4): the header as a view, checksum with the IPv6
// pseudo-header (RFC 4443 §2.3), and the ND option layout (§4.6).
#pragma once
#include <cstddef>
#include <cstdint>

#include "checksum.hpp"
#include "ip6.hpp"
#include "view.hpp"

namespace net::wire {

inline constexpr uint32_t icmp6_header_size = 8;

namespace icmp6 {
enum Type : uint8_t {
  destination_unreachable = 1,
  packet_too_big = 2,
  time_exceeded = 3,
  parameter_problem = 4,
  echo_request = 128,
  echo_reply = 129,
  multicast_listener_query = 130,      // RFC 3810 §5.1 (and MLDv1's, RFC 2710 §3)
  multicast_listener_report_v1 = 131,  // RFC 2710 §3
  multicast_listener_done = 132,       // RFC 2710 §3
  router_solicitation = 133,
  router_advertisement = 134,
  neighbor_solicitation = 135,
  neighbor_advertisement = 136,
  redirect = 137,
  multicast_listener_report = 143,  // RFC 3810 §5.2: version 2
};
// RFC 4443 §2.1: types below 128 are errors.
inline constexpr uint8_t first_informational = 128;
// Destination unreachable codes (§3.1).
enum UnreachableCode : uint8_t {
  no_route = 0,
  administratively_prohibited = 1,
  beyond_scope = 2,  // beyond the scope of the source address (a link-local one, RFC 4007 §9)
  address_unreachable = 3,
  port_unreachable = 4,
  source_policy_failed = 5,  // source address failed ingress/egress policy
  reject_route = 6,          // reject route to destination
};
// Parameter problem codes (§3.4).
enum ParameterProblemCode : uint8_t {
  erroneous_header = 0,
  unrecognized_next_header = 1,
  unrecognized_option = 2,
  incomplete_header_chain = 3,  // RFC 7112 §5: the first fragment lacks the upper-layer header
};
// Time exceeded codes (§3.3).
enum TimeExceededCode : uint8_t { hop_limit_exceeded = 0, reassembly_time_exceeded = 1 };
}  // namespace icmp6

// Neighbor Discovery (RFC 4861).
namespace nd {
inline constexpr uint8_t hop_limit = 255;         // §7.1.1: proves the sender is on-link
inline constexpr uint32_t ns_size = 24;           // header, reserved, target
inline constexpr uint32_t na_size = 24;           // header, flags, target
inline constexpr uint8_t option_source_mac = 1;   // §4.6.1
inline constexpr uint8_t option_target_mac = 2;   // §4.6.1
inline constexpr uint32_t option_unit = 8;        // option lengths count 8 bytes
inline constexpr uint32_t mac_option_size = 8;    // type, length, 6-byte MAC
inline constexpr uint32_t rs_size = 8;            // §4.1: header, reserved
inline constexpr uint32_t ra_size = 16;           // §4.2: header, limits, reachable, retrans
inline constexpr uint8_t option_prefix = 3;       // §4.6.2, 32 bytes
inline constexpr uint8_t option_mtu = 5;          // §4.6.4, 8 bytes
inline constexpr uint8_t option_rdnss = 25;       // RFC 8106 §5.1: recursive DNS servers
inline constexpr uint8_t option_dnssl = 31;       // RFC 8106 §5.2: DNS search list
inline constexpr uint32_t dns_option_header = 8;  // type, length, reserved, lifetime
inline constexpr uint32_t prefix_option_size = 32;
inline constexpr uint32_t mtu_option_size = 8;
inline constexpr uint8_t prefix_on_link = 0x80;     // §4.6.2: the L flag
inline constexpr uint8_t prefix_autonomous = 0x40;  // the A flag (RFC 4862 §5.5.3)
inline constexpr uint32_t infinite_lifetime = 0xffffffff;
inline constexpr uint32_t redirect_size = 40;  // §4.5: header, reserved, target, destination
inline constexpr std::size_t redirect_target_at = 8, redirect_destination_at = 24;
inline constexpr uint8_t na_router = 0x80;  // §4.4 flags (first byte of word 2)
inline constexpr uint8_t na_solicited = 0x40;
inline constexpr uint8_t na_override = 0x20;
}  // namespace nd

// Multicast Listener Discovery version 2 (RFC 3810).
namespace mld {
inline constexpr uint8_t hop_limit = 1;               // §5: link-local only
inline constexpr uint32_t query_v1_size = 24;         // §8.1: an MLDv1 query
inline constexpr uint32_t query_size = 28;            // §5.1: up to the number of sources
inline constexpr uint32_t report_header = 8;          // §5.2: type ... number of records
inline constexpr uint32_t record_size = 20;           // §5.2.4: a record without sources
inline constexpr uint16_t exponential_code = 0x8000;  // §5.1.3: Max Resp Code as a float
// §5.2.12 record types.
enum RecordType : uint8_t { mode_is_exclude = 2, change_to_include = 3, change_to_exclude = 4 };
// RFC 2711 Router Alert in a hop-by-hop header (RFC 3810 §5), padded to 8 bytes.
inline constexpr uint32_t hop_by_hop_size = 8;
inline constexpr uint8_t option_router_alert = 5;
inline constexpr uint8_t option_padn = 1;
}  // namespace mld

enum class Icmp6Error : uint8_t { none, truncated, bad_checksum };

template <class Byte>
class Icmp6View : public View<Byte> {
  using View<Byte>::data_;
  using View<Byte>::size_;

 public:
  using View<Byte>::View;

  // RFC 4443 §2.3: the checksum covers the IPv6 pseudo-header.
  Icmp6Error check(const ip6::Addr& src, const ip6::Addr& dst, bool verify = true) const {
    if (size_ < icmp6_header_size) return Icmp6Error::truncated;
    if (verify) {
      uint32_t pseudo = pseudo_header_sum(src, dst, ip6_next_icmp6, uint32_t(size_));
      if (checksum_fold(checksum_add(pseudo, data_, size_)) != 0xffff)
        return Icmp6Error::bad_checksum;
    }
    return Icmp6Error::none;
  }
  uint8_t type() const { return data_[0]; }
  uint8_t code() const { return data_[1]; }
  uint32_t rest() const { return load32(data_ + 4); }
  uint16_t echo_id() const { return load16(data_ + 4); }
  uint16_t echo_seq() const { return load16(data_ + 6); }
  Byte* body() const { return data_ + icmp6_header_size; }
  std::size_t body_len() const { return size_ - icmp6_header_size; }
};

template <class Byte>
Icmp6View(Byte*, std::size_t) -> Icmp6View<Byte>;

// Writes the checksum of the ICMPv6 message at `m` (`len` bytes).
inline void icmp6_fill_checksum(uint8_t* m, std::size_t len, const ip6::Addr& src,
                                const ip6::Addr& dst) {
  store16(m + 2, 0);
  uint32_t pseudo = pseudo_header_sum(src, dst, ip6_next_icmp6, uint32_t(len));
  store16(m + 2, uint16_t(~checksum_fold(checksum_add(pseudo, m, len))));
}

}  // namespace net::wire

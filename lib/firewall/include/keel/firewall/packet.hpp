#pragma once
// The packet as the classifier sees it: the header fields rules can match, already parsed.
// Runtime-safe: no host dependencies.
#include <cstdint>

namespace keel::firewall {

// Every matchable field. The first four have small domains (<= 256 values) and are candidates
// for partition dispatch; the rest are looked up in set and tuple tables.
enum class Field : uint8_t {
  iif,
  oif,
  proto,
  ct_state,
  saddr,
  daddr,
  sport,
  dport,
  tcp_flags,
  icmp_type,
  icmp_code,
  ttl,
  length,
  // IPv6 (docs/decisions/0138): the address family, and the words 1-3 of an IPv6 address (the
  // first word is saddr/daddr, so the tuple tables and trees index IPv6 prefixes unchanged).
  family,
  saddr6_1,
  saddr6_2,
  saddr6_3,
  daddr6_1,
  daddr6_2,
  daddr6_3,
};
inline constexpr int kFieldCount = 20;

// Largest value of each field (domains start at 0).
constexpr uint32_t field_max(Field f) {
  switch (f) {
    case Field::saddr:
    case Field::daddr:
    case Field::saddr6_1:
    case Field::saddr6_2:
    case Field::saddr6_3:
    case Field::daddr6_1:
    case Field::daddr6_2:
    case Field::daddr6_3:
      return 0xFFFFFFFFu;
    case Field::family:
      return 1;
    case Field::sport:
    case Field::dport:
    case Field::length:
      return 0xFFFFu;
    case Field::ct_state:
      return 4;
    default:
      return 0xFFu;
  }
}
constexpr int field_bits(Field f) {
  return field_max(f) == 0xFFFFFFFFu ? 32 : field_max(f) == 0xFFFFu ? 16 : 8;
}
// The IPv6 address word `word` (0-3) of the source or destination.
constexpr Field saddr_word(int word) {
  return word == 0 ? Field::saddr
                   : static_cast<Field>(static_cast<int>(Field::saddr6_1) + word - 1);
}
constexpr Field daddr_word(int word) {
  return word == 0 ? Field::daddr
                   : static_cast<Field>(static_cast<int>(Field::daddr6_1) + word - 1);
}

inline constexpr uint8_t kProtoIcmp = 1;
inline constexpr uint8_t kProtoTcp = 6;
inline constexpr uint8_t kProtoUdp = 17;
inline constexpr uint8_t kProtoIcmp6 = 58;  // RFC 4443
// Values of Field::family.
inline constexpr uint8_t kFamilyIp4 = 0;
inline constexpr uint8_t kFamilyIp6 = 1;
// Interface id for a packet whose interface is not declared in the rules.
inline constexpr uint8_t kUnknownInterface = 0xFF;

// untracked: what Linux's conntrack leaves untracked (IPv6 neighbour discovery and MLD).
enum class CtState : uint8_t { new_, established, related, invalid, untracked };
enum class Hook : uint8_t { prerouting, input, forward, output, postrouting };
inline constexpr int kHookCount = 5;
enum class ChainKind : uint8_t { filter, nat };
inline constexpr int kChainKindCount = 2;

// Ports are 0 unless proto is TCP or UDP, tcp_flags 0 unless TCP, icmp type/code 0 unless
// ICMP in IPv4 or ICMPv6 in IPv6, ttl and length 0 in IPv6, the address words 1-3 0 in IPv4:
// rules are evaluated literally on these values (the nftables exporter follows suit).
// An IPv6 packet's addresses are four words each, most significant first: saddr is word 0.
struct Packet {
  uint32_t saddr = 0;
  uint32_t daddr = 0;
  uint16_t sport = 0;
  uint16_t dport = 0;
  uint16_t length = 0;  // IPv4 total length
  uint8_t proto = 0;
  uint8_t tcp_flags = 0;
  uint8_t icmp_type = 0;
  uint8_t icmp_code = 0;
  uint8_t ttl = 0;
  uint8_t iif = kUnknownInterface;
  uint8_t oif = kUnknownInterface;
  uint8_t ct_state = 0;  // CtState
  uint8_t family = kFamilyIp4;
  uint32_t saddr6[3] = {};  // IPv6: words 1-3 of the source address
  uint32_t daddr6[3] = {};
};

constexpr uint32_t field_value(const Packet& p, Field f) {
  switch (f) {
    case Field::iif:
      return p.iif;
    case Field::oif:
      return p.oif;
    case Field::proto:
      return p.proto;
    case Field::ct_state:
      return p.ct_state;
    case Field::saddr:
      return p.saddr;
    case Field::daddr:
      return p.daddr;
    case Field::sport:
      return p.sport;
    case Field::dport:
      return p.dport;
    case Field::tcp_flags:
      return p.tcp_flags;
    case Field::icmp_type:
      return p.icmp_type;
    case Field::icmp_code:
      return p.icmp_code;
    case Field::ttl:
      return p.ttl;
    case Field::length:
      return p.length;
    case Field::family:
      return p.family;
    case Field::saddr6_1:
    case Field::saddr6_2:
    case Field::saddr6_3:
      return p.saddr6[static_cast<int>(f) - static_cast<int>(Field::saddr6_1)];
    case Field::daddr6_1:
    case Field::daddr6_2:
    case Field::daddr6_3:
      return p.daddr6[static_cast<int>(f) - static_cast<int>(Field::daddr6_1)];
  }
  return 0;
}

enum class Action : uint8_t { accept, drop, reject, snat, dnat, masquerade };
inline constexpr int kActionCount = 6;

inline constexpr uint32_t kNoRule = 0xFFFFFFFFu;

// The classifier's answer: the first matching rule (kNoRule when the chain policy applied).
struct Verdict {
  Action action = Action::accept;
  uint32_t rule = kNoRule;
  bool operator==(const Verdict&) const = default;
};

const char* to_string(Hook hook);
const char* to_string(Action action);

}  // namespace keel::firewall

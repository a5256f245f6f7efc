// ARP packets (RFC 826) for IPv4 over Ethernet, as a parsed value.
#pragma once
#include <cstdint>
#include <net/ethernet_addr.hpp>
#include <net/ip4_addr.hpp>
#include <span>

#include "checksum.hpp"
#include "ethernet.hpp"

namespace net::wire {

enum class ArpError : uint8_t { none, truncated, bad_format };

struct ArpRepr {
  static constexpr std::size_t size = 28;  // RFC 826 for Ethernet + IPv4
  static constexpr uint16_t hardware_ethernet = 1;
  static constexpr uint8_t ethernet_addr_len = 6, ip4_addr_len = 4;
  enum Op : uint16_t { request = 1, reply = 2 };

  uint16_t op = request;
  ethernet::Addr sender_mac;
  ip4::Addr sender_ip;
  ethernet::Addr target_mac;
  ip4::Addr target_ip;

  // Ethernet/IPv4 requests and replies only.
  static ArpError parse(std::span<const uint8_t> p, ArpRepr& out) {
    if (p.size() < size) return ArpError::truncated;
    uint16_t op = load16(&p[6]);
    if (load16(&p[0]) != hardware_ethernet || load16(&p[2]) != ethertype_ip4 ||
        p[4] != ethernet_addr_len || p[5] != ip4_addr_len || (op != request && op != reply)) {
      return ArpError::bad_format;
    }
    out = {op, ethernet::Addr::from(&p[8]), ip4::Addr::from_bytes(&p[14]),
           ethernet::Addr::from(&p[18]), ip4::Addr::from_bytes(&p[24])};
    return ArpError::none;
  }
  void emit(std::span<uint8_t, size> p) const {
    store16(&p[0], hardware_ethernet);
    store16(&p[2], ethertype_ip4);
    p[4] = ethernet_addr_len;
    p[5] = ip4_addr_len;
    store16(&p[6], op);
    sender_mac.write(&p[8]);
    sender_ip.write(&p[14]);
    target_mac.write(&p[18]);
    target_ip.write(&p[24]);
  }
  friend bool operator==(const ArpRepr&, const ArpRepr&) = default;
};

}  // namespace net::wire

#pragma once
// IPv4 datagrams with valid checksums for the appliance's unit tests and fuzz seeds.
#include <cstdint>
#include <vector>

#include "net/wire/checksum.hpp"
#include "net/wire/ip4.hpp"

namespace keel::firewall::test {

struct Spec {
  uint32_t src = 0x0A000001, dst = 0x0A010001;  // 10.0.0.1 -> 10.1.0.1
  uint8_t proto = 17, ttl = 64;
  uint16_t sport = 1000, dport = 80, id = 1;
  uint8_t tcp_flags = 0x02;
  uint32_t seq = 1000, ack = 0;
  uint16_t window = 8192;
  uint8_t icmp_type = 8, icmp_code = 0;
  uint16_t icmp_id = 7;
  std::vector<uint8_t> tcp_options;
  std::vector<uint8_t> payload;  // ICMP errors: the quoted datagram
};

inline std::vector<uint8_t> build(const Spec& s) {
  using namespace net::wire;
  std::vector<uint8_t> l4;
  if (s.proto == 6) {
    size_t header = 20 + s.tcp_options.size();
    l4.assign(header, 0);
    store16(&l4[0], s.sport), store16(&l4[2], s.dport), store32(&l4[4], s.seq),
        store32(&l4[8], s.ack);
    l4[12] = static_cast<uint8_t>(header / 4 << 4);
    l4[13] = s.tcp_flags;
    store16(&l4[14], s.window);
    std::copy(s.tcp_options.begin(), s.tcp_options.end(), l4.begin() + 20);
  } else if (s.proto == 17) {
    l4.assign(8, 0);
    store16(&l4[0], s.sport), store16(&l4[2], s.dport),
        store16(&l4[4], static_cast<uint16_t>(8 + s.payload.size()));
  } else if (s.proto == 1) {
    l4.assign(8, 0);
    l4[0] = s.icmp_type, l4[1] = s.icmp_code;
    store16(&l4[4], s.icmp_id);
  }
  l4.insert(l4.end(), s.payload.begin(), s.payload.end());
  if (s.proto == 6 || s.proto == 17) {
    size_t at = s.proto == 6 ? 16 : 6;
    uint32_t pseudo = pseudo_header_sum(net::ip4::Addr{s.src}, net::ip4::Addr{s.dst}, s.proto,
                                        uint16_t(l4.size()));
    uint16_t sum = uint16_t(~checksum_fold(checksum_add(pseudo, l4.data(), l4.size())));
    store16(&l4[at], sum == 0 && s.proto == 17 ? 0xffff : sum);
  } else if (s.proto == 1) {
    store16(&l4[2], checksum(l4.data(), l4.size()));
  }
  // Sized once and filled (GCC 12's -Wstringop-overread misreads a vector insert here).
  std::vector<uint8_t> ip(20 + l4.size());
  Ip4Repr r;
  r.src = net::ip4::Addr{s.src};
  r.dst = net::ip4::Addr{s.dst};
  r.protocol = s.proto;
  r.ttl = s.ttl;
  r.id = s.id;
  r.payload_len = uint16_t(l4.size());
  r.emit(ip.data());
  std::copy(l4.begin(), l4.end(), ip.begin() + 20);
  return ip;
}

// Whether the IPv4 header checksum and the transport checksum of `ip` verify.
inline bool checksums_ok(const std::vector<uint8_t>& ip) {
  using namespace net::wire;
  Ip4View<const uint8_t> v(ip.data(), ip.size());
  if (v.check() != Ip4Error::none) return false;
  const uint8_t* l4 = ip.data() + v.header_len();
  size_t len = v.payload_len();
  if (v.protocol() == 1) return checksum_fold(checksum_add(0, l4, len)) == 0xffff;
  if (v.protocol() == 17 && load16(l4 + 6) == 0) return true;
  uint32_t pseudo = pseudo_header_sum(v.src(), v.dst(), v.protocol(), uint16_t(len));
  return checksum_fold(checksum_add(pseudo, l4, len)) == 0xffff;
}

}  // namespace keel::firewall::test

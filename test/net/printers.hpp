// How gtest prints the stack's values in failure messages: whole headers
// field by field, addresses as text, statuses by name.
#pragma once
#include <net/address.hpp>
#include <net/ethernet_addr.hpp>
#include <net/ip4_addr.hpp>
#include <net/routes.hpp>
#include <net/status.hpp>
#include <ostream>

#include "net/wire/arp.hpp"
#include "net/wire/ethernet.hpp"
#include "net/wire/icmp4.hpp"
#include "net/wire/ip4.hpp"
#include "net/wire/udp.hpp"

namespace net {
inline void PrintTo(Status s, std::ostream* os) { *os << to_string(s); }
inline void PrintTo(const Address& a, std::ostream* os) { *os << a.to_string(); }
inline void PrintTo(const Endpoint& e, std::ostream* os) { *os << e.to_string(); }
inline void PrintTo(const Route& r, std::ostream* os) { *os << r.to_string(); }
}  // namespace net

namespace net::ip4 {
inline void PrintTo(Addr a, std::ostream* os) { *os << a.to_string(); }
}  // namespace net::ip4

namespace net::ethernet {
inline void PrintTo(const Addr& a, std::ostream* os) { *os << a.to_string(); }
}  // namespace net::ethernet

namespace net::wire {
inline void PrintTo(Ip4Error e, std::ostream* os) { *os << "Ip4Error " << int(e); }
inline void PrintTo(UdpError e, std::ostream* os) { *os << "UdpError " << int(e); }
inline void PrintTo(Icmp4Error e, std::ostream* os) { *os << "Icmp4Error " << int(e); }
inline void PrintTo(ArpError e, std::ostream* os) { *os << "ArpError " << int(e); }
inline void PrintTo(const EthernetRepr& e, std::ostream* os) {
  *os << "{dst " << e.dst.to_string() << ", src " << e.src.to_string() << ", type 0x" << std::hex
      << e.type << std::dec << "}";
}
inline void PrintTo(const ArpRepr& a, std::ostream* os) {
  *os << "{op " << a.op << ", sender " << a.sender_mac.to_string() << " " << a.sender_ip.to_string()
      << ", target " << a.target_mac.to_string() << " " << a.target_ip.to_string() << "}";
}
inline void PrintTo(const Ip4Repr& h, std::ostream* os) {
  *os << "{" << h.src.to_string() << " > " << h.dst.to_string() << ", protocol " << int(h.protocol)
      << ", ttl " << int(h.ttl) << ", tos " << int(h.tos) << ", id " << h.id
      << (h.dont_fragment ? ", DF" : "") << (h.more_fragments ? ", MF" : "") << ", offset "
      << h.fragment_offset << ", payload " << h.payload_len << "}";
}
inline void PrintTo(const Icmp4Repr& m, std::ostream* os) {
  *os << "{type " << int(m.type) << ", code " << int(m.code) << ", rest 0x" << std::hex << m.rest
      << std::dec << "}";
}
inline void PrintTo(const UdpRepr& u, std::ostream* os) {
  *os << "{" << u.src_port << " > " << u.dst_port << ", payload " << u.payload_len << "}";
}
}  // namespace net::wire

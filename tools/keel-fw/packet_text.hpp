#pragma once
// Packet descriptions for `keel-fw classify`: one packet a line as key=value words, e.g.
//   kind=filter hook=input iif=eth0 proto=tcp saddr=10.0.0.1 daddr=10.0.0.2 sport=1234 dport=80
//   flags=0x02 ttl=64 length=60 ct=new icmp_type=8 icmp_code=0 oif=eth1
#include <optional>
#include <string>

#include "keel/firewall/packet.hpp"
#include "keel/firewall/table_view.hpp"

namespace keel::firewall {

struct PacketLine {
  ChainKind kind = ChainKind::filter;
  Hook hook = Hook::input;
  Packet packet;
};

// nullopt and `error` set when a word is not understood.
std::optional<PacketLine> parse_packet_line(const std::string& line, const TableView& tables,
                                            std::string& error);

}  // namespace keel::firewall

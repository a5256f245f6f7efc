#pragma once
// TCP connection tracking (conntrack.hpp): Linux's state table and Rooij's window checks.
#include <cstdint>

#include "keel/firewall/conntrack.hpp"
#include "packet_info.hpp"

namespace keel::firewall {

enum class TcpVerdict : uint8_t {
  accept,   // in the window: state and windows updated
  ignore,   // part of the flow but out of step (an old retransmission): nothing changes
  invalid,  // not acceptable for this flow: ct state invalid
  reopen,   // a SYN reopening a closed connection: the old flow goes, this packet starts anew
  close,    // accepted, and the flow ends now (a RST answering the only packets seen)
};

// Whether the flags make a segment any TCP may send (Linux's tcp_valid_flags, PSH/ECE/CWR aside).
bool tcp_flags_valid(uint8_t flags);
// Sets up a flow from its first segment; false when that segment cannot start one (only a SYN
// can, or with `loose` an ACK picking up a connection mid-stream).
bool tcp_start(Flow& flow, const PacketInfo& info, const uint8_t* tcp, bool loose);
// One segment of a known flow in direction `dir`: the verdict, and the flow's new timeout (s).
TcpVerdict tcp_track(Flow& flow, Dir dir, const PacketInfo& info, const uint8_t* tcp,
                     const ConntrackTimeouts& timeouts, uint32_t& timeout_s);

}  // namespace keel::firewall

// TCP segmentation in software: what a device with TSO does to a frame the
// stack flagged Packet::segmentation_offload (virtio 1.1 5.1.6.2; Linux's
// tcp_gso_segment). For NICs that cannot (the in-memory NIC, which plays
// such a device in tests) and for a TSO frame that ends up on one.
#pragma once
#include <cstdint>
#include <net/packet.hpp>
#include <span>
#include <util/delegate.hpp>

namespace net {

// Cuts `frame` (Ethernet + IPv4 or IPv6 + TCP, data() at the Ethernet
// header, csum_start at the TCP header, gso_size > 0) into frames of at most
// gso_size payload bytes each, every one with whole checksums: sequence
// numbers advance, IPv4 identifications count up, CWR only on the first,
// FIN and PSH only on the last. Hands each to `out` (the bytes live only for
// the call). False, nothing handed on, when the headers are not whole.
bool segment_tcp(const Packet& frame, keel::delegate<void(std::span<const uint8_t>)> out);

// The size from data() (any layer above TCP's, csum_start at the TCP header) of each segment a
// segmentation_offload packet is cut into: its headers and gso_size payload bytes. What a
// forwarder checks against the next link's MTU (Linux's skb_gso_validate_network_len).
uint32_t tcp_segment_size(const Packet& packet);

}  // namespace net

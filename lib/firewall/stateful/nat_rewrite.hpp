#pragma once
// Rewriting one side of an IPv4 packet (source or destination address and port) with
// incremental checksum updates (RFC 1624).
#include <cstddef>
#include <cstdint>

#include "keel/firewall/nat.hpp"

namespace keel::firewall {

enum class Quoted : uint8_t { no, yes };

// Sets the `manip` side of the datagram at `ip` (`len` bytes at hand) to `address` and, for TCP,
// UDP and ICMP queries, `port` (the ICMP identifier). `partial`: the transport checksum holds the
// pseudo-header sum only. A quoted datagram (inside an ICMP error) may be cut short: only the
// fields at hand are changed, checksums where they are. Returns false if the header is unusable.
bool rewrite(uint8_t* ip, size_t len, Manip manip, uint32_t address, uint16_t port, bool partial,
             Quoted quoted);

// Recomputes an ICMP message's checksum over `len` bytes.
void fill_icmp_checksum(uint8_t* icmp, size_t len);

}  // namespace keel::firewall

// RDATA in the canonical form of RFC 4034 §6.2 (names in the RDATA of the
// RFC 1035 and later name-bearing types lowercased), to tell duplicate
// records apart the way NSD and Knot do.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace keel::dns {

std::string canonical_rdata(uint16_t type, std::string_view rdata);

}  // namespace keel::dns

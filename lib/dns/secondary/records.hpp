// Walking a message's records without parsing them (secondary/request.cpp).
#pragma once
#include <cstddef>
#include <string_view>

namespace keel::dns {

// The offset of the message's last record (a TSIG is last, RFC 8945 §5.1),
// or 0 if it has none or is malformed.
std::size_t last_record_offset(std::string_view message);

}  // namespace keel::dns

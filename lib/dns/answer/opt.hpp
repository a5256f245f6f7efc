// The OPT record of a response (RFC 6891 §6.1.2-3), shared by the answer
// path and zone transfers.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "keel/dns/writer.hpp"

namespace keel::dns {

// RFC 7828 §3: the edns-tcp-keepalive option, a 16-bit TIMEOUT in units of
// 100 ms in responses (queries send it empty).
inline constexpr uint16_t keepalive_option_code = 11;
inline constexpr std::size_t keepalive_option_size = 6;  // code, length, TIMEOUT
inline constexpr uint32_t keepalive_unit_ms = 100;
inline constexpr int32_t no_keepalive = -1;

// Octets write_opt() takes.
std::size_t opt_size(int ede, std::string_view text, int32_t keepalive);

// Root owner, our payload size in CLASS, the extended RCODE, version 0 and
// the DO bit (RFC 3225 §3) in TTL; an Extended DNS Error (RFC 8914) unless
// `ede` is ede::none, and a keepalive TIMEOUT unless `keepalive` < 0.
bool write_opt(MessageWriter& w, uint16_t payload, uint16_t rcode, bool dnssec_ok, int ede,
               std::string_view text, int32_t keepalive);

}  // namespace keel::dns

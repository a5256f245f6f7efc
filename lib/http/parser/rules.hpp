// The grammar rules the request parser applies to each complete line, and
// the framing decision at the end of the header section. Internal to
// lib/http; each is a pure function of its input, which is what makes the
// parser's verdict independent of how the bytes were split.
#pragma once
#include <cstdint>
#include <string_view>

#include "keel/http/limits.hpp"
#include "keel/http/parse_error.hpp"
#include "keel/http/request.hpp"

namespace keel::http::rules {

// RFC 9112 §3: method SP request-target SP HTTP-version.
ParseError parse_request_line(std::string_view line, Request& out);
// Which limit a request line past max_request_line broke, judged on its
// first max_request_line + 1 bytes: the method's (501), the target's (414)
// or the line's (400).
ParseError long_request_line(std::string_view prefix);
// RFC 3986 §3.2 authority as HTTP uses it: host [":" port], no userinfo.
bool valid_authority(std::string_view authority, bool port_required);

// RFC 9112 §5: field-name ":" OWS field-value OWS.
ParseError parse_field_line(std::string_view line, Field& out);

// RFC 9112 §3.2, §6, §9.3; RFC 9110 §10.1.1: Host, Content-Length,
// Transfer-Encoding, Connection and Expect, once the header section is whole.
ParseError decide_framing(Request& request, const Limits& limits);

// RFC 9112 §7.1: chunk-size [ chunk-ext ].
ParseError parse_chunk_size_line(std::string_view line, uint64_t& size);

}  // namespace keel::http::rules

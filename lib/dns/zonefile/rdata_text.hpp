// RDATA from its presentation tokens, for the types in rdata.hpp and the
// RFC 3597 generic form.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "zonefile/lexer.hpp"

namespace keel::dns::zonefile {

struct RdataError {
  std::size_t token = 0;  // which token the message is about
  std::string message;
};

// Reads tokens[first..] as the RDATA of `type` into `out` (wire format).
// Returns false and sets `error` if they are not.
bool parse_rdata(uint16_t type, const std::vector<Token>& tokens, std::size_t first,
                 std::string_view origin, std::string& out, RdataError& error);

// The number of a type mnemonic ("A", "TYPE65280", "HINFO"), or -1. Types
// outside rdata.hpp's table are known by name only for the generic form.
int type_number(std::string_view text);

}  // namespace keel::dns::zonefile

// Drives RequestParser over an input fed in pieces and sums up what it
// produced, so tests can check that every way of cutting the same bytes
// gives the same result (parse_everywhere).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "keel/http/request_parser.hpp"

namespace keel::http::test {

struct Outcome {
  std::string events;   // H headers_done, B body (consecutive pieces as one), D done, E error
  std::string body;     // every body piece, in order
  std::string request;  // describe(request()) once the headers are done
  ParseError error = ParseError::none;
  std::size_t consumed = 0;  // bytes taken by one request (0 after an error)
  bool operator==(const Outcome&) const = default;
};

// A readable dump of everything the parser decided about a request.
std::string describe(const Request& r);

// One request from `pieces` fed in order: stops at message_done or error.
Outcome run(const std::vector<std::string_view>& pieces, const Limits& limits = {});

// Parses `input` whole, then at every split point in two pieces and byte by
// byte, and fails the calling test (ADD_FAILURE) if any outcome differs.
// Returns the whole-input outcome.
Outcome parse_everywhere(std::string_view input, const Limits& limits = {});

// parse_everywhere(input).error, for the tables of payloads.
ParseError verdict(std::string_view input, const Limits& limits = {});

}  // namespace keel::http::test

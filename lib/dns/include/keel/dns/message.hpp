// Reading DNS messages (RFC 1035 §4.1) with every length, count and pointer
// checked: labels over 63 octets, names over 255, compression pointers that
// point forward or loop, reserved label types, counts larger than the message
// and RDATA that does not fit its type are all errors, never reads past the end.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace keel::dns {

enum class WireError : uint8_t {
  none,
  truncated,       // the message ends inside a field
  name_too_long,   // RFC 1035 §2.3.4
  bad_label_type,  // 0x40 / 0x80 label types (RFC 6891 §5), so any label over 63 octets
  bad_pointer,     // points forward, at itself, or into the header
  bad_rdata,       // RDATA does not match its type's layout
  trailing_data,   // octets after the last record (parse_message only)
};
const char* to_string(WireError error);

struct Header {
  uint16_t id = 0;
  uint16_t flags = 0;
  uint16_t qdcount = 0;
  uint16_t ancount = 0;
  uint16_t nscount = 0;
  uint16_t arcount = 0;

  uint8_t opcode() const;
  uint8_t rcode() const;
};

// Reads the header; false if `message` is shorter than 12 octets.
bool read_header(std::string_view message, Header& header);

// Reads the possibly compressed name at `pos`. On success returns the offset
// just past the name as it sits in the message (past the first pointer) and,
// if `out` is given, appends the uncompressed wire form to it.
struct NameRead {
  std::size_t end = 0;
  WireError error = WireError::none;
};
NameRead read_name(std::string_view message, std::size_t pos, std::string* out);

struct Question {
  std::string name;  // uncompressed wire format, case as sent
  uint16_t type = 0;
  uint16_t rclass = 0;
};

struct Record {
  std::string owner;  // uncompressed
  uint16_t type = 0;
  uint16_t rclass = 0;
  uint32_t ttl = 0;
  std::string rdata;  // names of known types decompressed (see rdata.hpp)
};

struct Message {
  Header header;
  std::vector<Question> questions;
  std::vector<Record> answers, authority, additional;
};

// Parses a whole message. Octets after the last counted record are an error.
WireError parse_message(std::string_view message, Message& out);

}  // namespace keel::dns

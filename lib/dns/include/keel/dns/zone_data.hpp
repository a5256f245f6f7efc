// A zone as read from a master file or a compiled blob: its origin and its
// records in file order, before any checks. Catalog::build() checks and
// indexes it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace keel::dns {

// Where a record or an error comes from: "file:line:column" (1-based).
struct Location {
  uint16_t file = 0;  // index into ZoneData::files
  uint32_t line = 0;
  uint32_t column = 0;
};

struct ZoneRecord {
  std::string owner;  // uncompressed wire name, case as written
  uint16_t type = 0;
  uint32_t ttl = 0;
  std::string rdata;  // wire format, names uncompressed
  Location where;     // line 0: not from a text file (a blob)
};

struct ZoneData {
  std::string origin;  // wire name of the apex
  std::vector<ZoneRecord> records;
  std::vector<std::string> files;  // the zone file and what it $INCLUDEs
};

// One error: "zones/example.com.zone:12:5: unknown type 'AAA'", or for data
// without a location (a blob), "example.com: message".
struct Diagnostic {
  std::string file;  // empty when there is no location
  uint32_t line = 0;
  uint32_t column = 0;
  std::string message;

  std::string to_string() const;
};

Diagnostic diagnostic_at(const ZoneData& zone, const Location& where, std::string message);

}  // namespace keel::dns

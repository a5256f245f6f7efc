#include "keel/dns/zone_data.hpp"

#include "keel/dns/name.hpp"

namespace keel::dns {

std::string Diagnostic::to_string() const {
  if (file.empty()) return message;
  return file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + message;
}

Diagnostic diagnostic_at(const ZoneData& zone, const Location& where, std::string message) {
  if (where.line == 0 || where.file >= zone.files.size()) {
    return {"", 0, 0, "zone " + name_to_text(zone.origin) + ": " + message};
  }
  return {zone.files[where.file], where.line, where.column, std::move(message)};
}

}  // namespace keel::dns

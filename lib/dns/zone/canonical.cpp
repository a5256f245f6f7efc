#include "zone/canonical.hpp"

#include "keel/dns/name.hpp"
#include "keel/dns/rdata.hpp"

namespace keel::dns {

std::string canonical_rdata(uint16_t type, std::string_view rdata) {
  std::string out(rdata);
  const TypeInfo* info = type_info(type);
  if (info == nullptr) return out;
  for (std::size_t f = 0; f < max_fields && info->fields[f] != Field::end; ++f) {
    if (info->fields[f] != Field::name && info->fields[f] != Field::compressed_name) continue;
    const std::size_t at = field_offset(type, rdata, f);
    const std::size_t n = name_length(rdata.substr(at));
    for (std::size_t i = at; i < at + n; ++i) {
      out[i] = static_cast<char>(ascii_lower(static_cast<uint8_t>(out[i])));
    }
  }
  return out;
}

}  // namespace keel::dns

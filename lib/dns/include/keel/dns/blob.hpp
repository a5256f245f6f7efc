// Zones compiled at build time into a blob an image embeds (keel_dns_zones()
// in keel-library.cmake, tool/compile_main.cpp), so the image needs no zone-file
// parser. The loader trusts nothing: every length is checked here, and
// Catalog::build() then applies the same checks as to a zone file.
//
//   "KEELDNS1" u32 zone-count
//   per zone:   u8 origin-length, origin, u32 record-count, records
//   per record: u8 owner-length, owner, u16 type, u32 TTL, u16 RDATA-length, RDATA
// (big-endian; names in uncompressed wire format; class IN)
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "keel/dns/zone_data.hpp"

namespace keel::dns {

std::string encode_blob(const std::vector<ZoneData>& zones);
// False with `error` set if the blob is malformed.
bool decode_blob(std::string_view blob, std::vector<ZoneData>& zones, std::string& error);

}  // namespace keel::dns

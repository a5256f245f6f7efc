// libFuzzer target: zone files. The input is read as a master file (its
// $INCLUDEs get the input once more, so nesting is explored too); a zone that
// reads is checked by Catalog::build, round-tripped through the blob format,
// and answers a few queries (with DO too: signed zones). Run with test/fuzz/run_dns.sh.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "keel/dns/blob.hpp"
#include "keel/dns/catalog.hpp"
#include "keel/dns/server.hpp"
#include "keel/dns/zone_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  keel::dns::ZoneFileOptions options;
  options.include_root = "fuzz";
  options.reader = [&text](const std::string&, std::string& out) {
    out = text;
    return true;
  };
  std::vector<keel::dns::ZoneData> zones(1);
  std::vector<keel::dns::Diagnostic> errors;
  if (!keel::dns::parse_zone_text(text, "fuzz.zone", "example.com", zones[0], errors, options)) {
    if (errors.empty()) std::abort();  // a failure always says why
    for (const auto& e : errors) {
      if (e.line == 0 || e.message.empty()) std::abort();
    }
    return 0;
  }
  auto catalog = keel::dns::Catalog::build(zones, errors);
  if (!catalog) return 0;
  std::vector<keel::dns::ZoneData> again;
  std::string error;
  if (!keel::dns::decode_blob(keel::dns::encode_blob(zones), again, error)) std::abort();
  std::vector<keel::dns::Diagnostic> errors2;
  auto reloaded = keel::dns::Catalog::build(again, errors2);
  if (!reloaded || reloaded->record_count() != catalog->record_count()) std::abort();

  keel::dns::Server server(std::move(catalog));
  static const uint8_t queries[][33] = {
      // www.example.com A, example.com ANY, example.com NS
      {0,   1,   0,   0,   0,   1,   0,   0, 0,   0,   0,   0, 3, 'w', 'w', 'w', 7,
       'e', 'x', 'a', 'm', 'p', 'l', 'e', 3, 'c', 'o', 'm', 0, 0, 1,   0,   1},
      {0,   2,   0,   0,   0,   1, 0,   0,   0,   0, 0, 0,   7, 'e', 'x',
       'a', 'm', 'p', 'l', 'e', 3, 'c', 'o', 'm', 0, 0, 255, 0, 1},
      {0,   3,   0,   0,   0,   1, 0,   0,   0,   0, 0, 0, 7, 'e', 'x',
       'a', 'm', 'p', 'l', 'e', 3, 'c', 'o', 'm', 0, 0, 2, 0, 1},
  };
  // The same with EDNS and DO (RFC 3225): a signed zone adds RRSIGs and NSEC/NSEC3 proofs.
  static const uint8_t opt_do[] = {0, 0, 41, 4, 208, 0, 0, 0x80, 0, 0, 0};
  static uint8_t out[65535];
  const std::size_t lengths[] = {33, 29, 29};
  for (int i = 0; i < 6; ++i) {
    uint8_t query[64];
    std::memcpy(query, queries[i % 3], lengths[i % 3]);
    std::size_t size = lengths[i % 3];
    if (i >= 3) {
      query[11] = 1;  // ARCOUNT
      std::memcpy(query + size, opt_do, sizeof opt_do);
      size += sizeof opt_do;
    }
    const std::size_t n =
        server.answer({query, size}, keel::dns::ClientAddress::ipv4(1, 1), {out, 512});
    if (n == 0 || n > 512) std::abort();
  }
  return 0;
}

// libFuzzer target: the zone blob an image loads at boot. A blob is decoded
// with every length checked and then checked like a zone file by
// Catalog::build; whatever loads must answer. Run with test/fuzz/run_dns.sh.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "keel/dns/blob.hpp"
#include "keel/dns/catalog.hpp"
#include "keel/dns/server.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<keel::dns::ZoneData> zones;
  std::string error;
  if (!keel::dns::decode_blob(std::string_view(reinterpret_cast<const char*>(data), size), zones,
                              error)) {
    if (error.empty()) std::abort();
    return 0;
  }
  std::vector<keel::dns::Diagnostic> errors;
  auto catalog = keel::dns::Catalog::build(zones, errors);
  if (!catalog) {
    if (errors.empty()) std::abort();
    return 0;
  }
  keel::dns::Server server(std::move(catalog));
  // "example.com. A" whatever the zones are: answered, refused or anything in between.
  static const uint8_t query[] = {0,   1,   0,   0,   0,   1, 0,   0,   0,   0, 0, 0, 7, 'e', 'x',
                                  'a', 'm', 'p', 'l', 'e', 3, 'c', 'o', 'm', 0, 0, 1, 0, 1};
  static uint8_t out[1232];
  if (server.answer({query, sizeof query}, keel::dns::ClientAddress::ipv4(1, 1),
                    {out, sizeof out}) == 0)
    std::abort();
  return 0;
}

// libFuzzer target: DNS messages. Every input goes through the general
// message parser and, as a query, through Server::answer on a zone with a bit
// of everything. Whatever answer() sends must itself be a well-formed message
// within the buffer it was given. Run with test/fuzz/run_dns.sh.
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "keel/dns/catalog.hpp"
#include "keel/dns/message.hpp"
#include "keel/dns/server.hpp"
#include "keel/dns/tsig.hpp"
#include "keel/dns/zone_file.hpp"

namespace {

const char* zone_text = R"($TTL 300
@ SOA ns hostmaster 1 2 3 4 5
@ NS ns
@ MX 10 mail
ns A 192.0.2.1
mail A 192.0.2.2
www A 192.0.2.3
www AAAA 2001:db8::3
alias CNAME www
loop CNAME loop
*.wild TXT "wild"
*.wc CNAME x.wc
a.b.ent A 192.0.2.4
sub NS ns.sub
sub NS ns2.example.net.
ns.sub A 192.0.2.5
dn DNAME example.net.
long DNAME a.very.long.target.name.that.makes.dname.results.overflow.0123456789012345678901234567890123456789.example.net.
)";

keel::dns::Server& server() {
  static std::unique_ptr<keel::dns::Server> s = [] {
    std::vector<keel::dns::ZoneData> zones(2);
    std::vector<keel::dns::Diagnostic> errors;
    keel::dns::parse_zone_text(zone_text, "fuzz.zone", "example.com", zones[0], errors);
    keel::dns::parse_zone_text("$TTL 1\n@ SOA ns h 1 2 3 4 5\nx A 1.2.3.4\n", "net.zone",
                               "example.net", zones[1], errors);
    auto catalog = keel::dns::Catalog::build(zones, errors);
    if (!catalog) std::abort();
    // TSIG (RFC 8945): the key of corpus/dns_message/tsig_* (requests `dig -y`
    // signed), under each algorithm, and the clock at their Time Signed, so
    // they check and their answers are signed.
    keel::dns::ServerOptions o;
    for (const char* alg : {"hmac-sha256", "hmac-sha512", "hmac-sha1"}) {
      keel::dns::TsigKey key;
      if (!keel::dns::parse_tsig_key(
               std::string(alg) + ":xfr-key:a2VlbC10c2lnLXRlc3Qtc2VjcmV0LTMyLW9jdGV0cyE=", key)
               .empty())
        std::abort();
      o.tsig_keys.push_back(key);
    }
    o.clock_unix_s = [] { return uint64_t(0x6b08faeb); };
    return std::make_unique<keel::dns::Server>(std::move(catalog), o);
  }();
  return *s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  keel::dns::Message parsed;
  keel::dns::parse_message(input, parsed);

  // Answer into buffers of a few sizes, the smallest a server may be given.
  for (std::size_t out_size : {512u, 1500u, 65535u}) {
    static uint8_t out[65535];
    const std::size_t n = server().answer(
        {data, size}, keel::dns::ClientAddress::ipv4(0x0a000001, 53), {out, out_size});
    if (n > out_size) std::abort();
    if (n == 0) continue;
    keel::dns::Message response;
    const auto error =
        keel::dns::parse_message(std::string_view(reinterpret_cast<char*>(out), n), response);
    if (error != keel::dns::WireError::none) std::abort();
    if (!(response.header.flags & keel::dns::flag::qr)) std::abort();
  }
  return 0;
}

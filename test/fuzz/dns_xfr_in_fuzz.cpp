// libFuzzer target: zone transfers in (a secondary's side). The input is a
// mode octet, then messages each framed by a two-octet length as over TCP
// (RFC 1035 §4.2.2). Each goes through TSIG's client-side check and XfrIn
// (as the answer to an SOA, AXFR or IXFR query, with a zone for IXFR deltas
// to apply to), and as a query through answer_notify and answer_unavailable.
// A transfer that completes is put in a catalog (zone_swap.hpp) and, if it
// loads, served: answers must parse. Run with test/fuzz/run_dns.sh.
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "keel/dns/catalog.hpp"
#include "keel/dns/constants.hpp"
#include "keel/dns/message.hpp"
#include "keel/dns/notify.hpp"
#include "keel/dns/server.hpp"
#include "keel/dns/xfr_in.hpp"
#include "keel/dns/zone_file.hpp"
#include "keel/dns/zone_swap.hpp"

namespace {

using namespace keel::dns;

constexpr uint16_t id = 77;  // the ID the corpus's answers carry
constexpr std::size_t limit = 256 * 1024;
const std::string origin("\7example\3com\0", 13);

ZoneData zone_of(const char* name, const char* text) {
  ZoneData zone;
  std::vector<Diagnostic> errors;
  parse_zone_text(text, "fuzz.zone", name, zone, errors);
  if (!errors.empty()) std::abort();
  return zone;
}

// The copy an IXFR applies to (serial 1), and another zone beside it.
const ZoneData& current() {
  static const ZoneData z =
      zone_of("example.com",
              "$TTL 300\n@ SOA ns h 1 60 30 600 300\n@ NS ns\nns A 192.0.2.1\n"
              "www A 192.0.2.2\n");
  return z;
}

const TsigKey& key() {
  static const TsigKey k = [] {
    TsigKey out;
    if (!parse_tsig_key("hmac-sha256:xfr-key:c2VjcmV0c2VjcmV0", out).empty()) std::abort();
    return out;
  }();
  return k;
}

void check_answer(Server& server, const char* name, uint16_t type) {
  std::vector<uint8_t> q = {0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0};
  std::string n;
  for (const char* p = name; *p;) {
    const char* dot = p;
    while (*dot && *dot != '.') ++dot;
    n.push_back(char(dot - p));
    n.append(p, dot);
    p = *dot ? dot + 1 : dot;
  }
  n.push_back('\0');
  q.insert(q.end(), n.begin(), n.end());
  q.insert(q.end(), {uint8_t(type >> 8), uint8_t(type), 0, 1});
  std::vector<uint8_t> out(max_message_size);
  const std::size_t size = server.answer(q, ClientAddress::ipv4(0x0a000001, 53), out);
  Message m;
  if (size != 0 && parse_message(std::string_view(reinterpret_cast<char*>(out.data()), size), m) !=
                       WireError::none) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t mode = data[0];
  static const uint16_t types[] = {rr_type::axfr, rr_type::ixfr, rr_type::soa};
  const uint16_t qtype = types[mode % 3];
  const bool signed_exchange = (mode & 0x10) != 0;
  XfrIn in(origin, id, qtype, limit, qtype == rr_type::ixfr ? &current() : nullptr);
  TsigClient tsig(key());
  if (signed_exchange) {
    std::vector<uint8_t> request(max_message_size);
    (void)write_xfr_query(request, id, origin, qtype, 1, &tsig, 1'800'000'000);
  }
  SecondaryZone secondary;
  if (!parse_secondary("example.com:10.0.0.1@xfr-key", secondary).empty()) std::abort();
  std::vector<uint8_t> out(max_message_size);
  XfrIn::Status status = XfrIn::Status::more;
  std::size_t pos = 1;
  while (size - pos >= 2) {
    const std::size_t length = std::size_t(data[pos]) << 8 | data[pos + 1];
    pos += 2;
    if (length > size - pos) break;
    const std::span<const uint8_t> bytes(data + pos, length);
    const std::string_view message(reinterpret_cast<const char*>(data + pos), length);
    pos += length;
    const NotifyOutcome n = answer_notify(bytes, ClientAddress::ipv4(0x0a000001, 53), {secondary},
                                          {key()}, 1'800'000'000, out);
    if (n.size > out.size()) std::abort();
    if (answer_unavailable(bytes, {{origin, (mode & 0x20) != 0}}, {}, 1232, out) >
        udp_plain_payload)
      std::abort();
    if (signed_exchange) (void)tsig.verify(message, 1'800'000'000);
    if (status == XfrIn::Status::more) status = in.feed(message);
  }
  if (status != XfrIn::Status::done) return 0;
  static Server server = [] {
    std::vector<Diagnostic> errors;
    return Server(
        Catalog::build({zone_of("example.net", "$TTL 1\n@ SOA ns h 1 2 3 4 5\nx A 1.2.3.4\n")},
                       errors),
        ServerOptions{});
  }();
  std::vector<Diagnostic> errors;
  auto catalog = replace_zone(server.catalog(), std::move(in.zone()), errors);
  if (!catalog) return 0;
  server.replace_catalog(std::move(catalog));
  check_answer(server, "www.example.com", rr_type::a);
  check_answer(server, "example.com", rr_type::soa);
  check_answer(server, "x.example.net", rr_type::a);
  return 0;
}

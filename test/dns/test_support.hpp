// Helpers for the DNS unit tests: zones from text, queries, parsed answers.
#pragma once
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "keel/dns/catalog.hpp"
#include "keel/dns/message.hpp"
#include "keel/dns/name.hpp"
#include "keel/dns/server.hpp"
#include "keel/dns/tsig.hpp"
#include "keel/dns/zone_file.hpp"
#include "zonefile/text_values.hpp"

namespace keel::dns::test {

// A wire name from text ("www.example.com" or "www.example.com.").
inline std::string wire(const std::string& text) {
  std::string out;
  const std::string absolute = text.empty() || text.back() == '.' ? text : text + ".";
  EXPECT_EQ(zonefile::parse_name(absolute, root_name(), out), "") << text;
  return out;
}

inline ZoneData zone_from_text(const std::string& origin, const std::string& text,
                               std::vector<Diagnostic>* errors_out = nullptr) {
  ZoneData zone;
  std::vector<Diagnostic> errors;
  parse_zone_text(text, origin + ".zone", origin, zone, errors);
  if (errors_out) {
    *errors_out = errors;
  } else {
    for (const auto& e : errors) ADD_FAILURE() << e.to_string();
  }
  return zone;
}

inline std::unique_ptr<Catalog> catalog_from(std::vector<ZoneData> zones) {
  std::vector<Diagnostic> errors;
  auto c = Catalog::build(zones, errors);
  for (const auto& e : errors) ADD_FAILURE() << e.to_string();
  return c;
}

struct QueryOptions {
  uint16_t qclass = rr_class::in;
  uint16_t flags = 0;
  int edns = -1;  // payload size, -1: no OPT
  bool dnssec_ok = false;
  uint8_t edns_version = 0;
  uint16_t id = 0x1234;
};

inline std::vector<uint8_t> make_query(const std::string& name, uint16_t type,
                                       QueryOptions o = {}) {
  std::vector<uint8_t> m = {uint8_t(o.id >> 8),
                            uint8_t(o.id),
                            uint8_t(o.flags >> 8),
                            uint8_t(o.flags),
                            0,
                            1,
                            0,
                            0,
                            0,
                            0,
                            0,
                            uint8_t(o.edns >= 0 ? 1 : 0)};
  const std::string n = wire(name);
  m.insert(m.end(), n.begin(), n.end());
  m.insert(m.end(), {uint8_t(type >> 8), uint8_t(type), uint8_t(o.qclass >> 8), uint8_t(o.qclass)});
  if (o.edns >= 0) {
    m.insert(m.end(), {0, 0, 41, uint8_t(o.edns >> 8), uint8_t(o.edns), 0, o.edns_version,
                       uint8_t(o.dnssec_ok ? 0x80 : 0), 0, 0, 0});
  }
  return m;
}

struct Answer {
  std::size_t size = 0;
  std::vector<uint8_t> bytes;
  Message message;
  WireError error = WireError::none;

  uint16_t rcode() const { return message.header.rcode(); }
  bool flag(uint16_t f) const { return (message.header.flags & f) != 0; }
};

inline Answer ask(Server& server, const std::vector<uint8_t>& query, std::size_t out_size = 65535,
                  ClientAddress client = ClientAddress::ipv4(0x0a000001, 5353),
                  Transport transport = Transport::udp) {
  Answer a;
  a.bytes.resize(out_size);
  a.size = server.answer(query, client, a.bytes, transport);
  a.bytes.resize(a.size);
  if (a.size > 0) {
    a.error = parse_message(std::string_view(reinterpret_cast<const char*>(a.bytes.data()), a.size),
                            a.message);
  }
  return a;
}

// A TSIG key from dig -y's form ("hmac-sha256:NAME:BASE64").
inline TsigKey key_of(const std::string& text) {
  TsigKey key;
  EXPECT_EQ(parse_tsig_key(text, key), "") << text;
  return key;
}

// "www.example.com. A" style summaries of a section, for readable expectations.
inline std::vector<std::string> owners_and_types(const std::vector<Record>& section) {
  std::vector<std::string> out;
  for (const Record& r : section)
    out.push_back(lowercase_name(name_to_text(r.owner)) + " " + std::to_string(r.type));
  return out;
}

}  // namespace keel::dns::test

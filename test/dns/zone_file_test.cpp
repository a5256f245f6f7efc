// The zone-file corpus (test/dns/zones): valid files read completely, error
// files give exactly the messages in their "; error:" header lines.
#include "keel/dns/zone_file.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "keel/dns/catalog.hpp"
#include "test_support.hpp"

namespace keel::dns::test {
namespace {

namespace fs = std::filesystem;
const std::string corpus = KEEL_DNS_CORPUS;

struct Header {
  std::string origin;
  std::size_t records = 0;
  std::vector<std::string> errors;
};

Header header_of(const std::string& path) {
  std::ifstream in(path);
  Header h;
  std::string line;
  while (std::getline(in, line) && line.starts_with("; ")) {
    if (line.starts_with("; origin: ")) h.origin = line.substr(10);
    if (line.starts_with("; records: ")) h.records = std::stoul(line.substr(11));
    if (line.starts_with("; error: ")) h.errors.push_back(line.substr(9));
  }
  return h;
}

std::vector<std::string> files_in(const std::string& folder) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(corpus + "/" + folder)) {
    if (e.path().extension() == ".zone") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Reads and checks a zone as keel-dns-compile does: the parser, then the catalog.
std::vector<std::string> load(const std::string& path, const std::string& origin, ZoneData& zone) {
  std::vector<Diagnostic> errors;
  if (read_zone_file(path, origin, zone, errors)) Catalog::build({zone}, errors);
  std::vector<std::string> out;
  const std::string prefix = fs::path(path).parent_path().string() + "/";
  for (const Diagnostic& d : errors) {
    std::string text = d.to_string();
    if (text.starts_with(prefix)) text.erase(0, prefix.size());
    out.push_back(text);
  }
  return out;
}

TEST(ZoneCorpus, ErrorFilesGiveTheirExactMessages) {
  const auto files = files_in("errors");
  ASSERT_GE(files.size(), 30u);
  for (const std::string& path : files) {
    const Header h = header_of(path);
    ASSERT_FALSE(h.errors.empty()) << path << " has no '; error:' line";
    ZoneData zone;
    EXPECT_EQ(load(path, h.origin, zone), h.errors) << path;
  }
}

TEST(ZoneCorpus, ValidFilesReadCompletely) {
  const auto files = files_in("valid");
  ASSERT_GE(files.size(), 4u);
  for (const std::string& path : files) {
    const Header h = header_of(path);
    ZoneData zone;
    EXPECT_EQ(load(path, h.origin, zone), std::vector<std::string>{}) << path;
    EXPECT_EQ(zone.records.size(), h.records) << path;
  }
}

const ZoneRecord* find(const ZoneData& zone, const std::string& owner, uint16_t type,
                       std::size_t nth = 0) {
  for (const ZoneRecord& r : zone.records) {
    if (names_equal(r.owner, wire(owner)) && r.type == type && nth-- == 0) return &r;
  }
  return nullptr;
}

TEST(ZoneCorpus, TtlRulesOfRfc1035And2308) {
  ZoneData zone;
  ASSERT_TRUE(load(corpus + "/valid/rfc1035-ttl.zone", "example", zone).empty());
  // No $TTL: the last explicit TTL carries on (RFC 1035 §5.1).
  EXPECT_EQ(find(zone, "example", rr_type::ns)->ttl, 7200u);
  EXPECT_EQ(find(zone, "ns.example", rr_type::a)->ttl, 7200u);
  EXPECT_EQ(find(zone, "ns.example", rr_type::aaaa)->ttl, 60u);
  ZoneData d;
  ASSERT_TRUE(load(corpus + "/valid/directives.zone", "example.com", d).empty());
  EXPECT_EQ(find(d, "example.com", rr_type::soa)->ttl, 5400u) << "$TTL 1h30m";
  EXPECT_EQ(find(d, "example.com", rr_type::ns, 2)->ttl, 3600u);
  EXPECT_EQ(find(d, "ns1.example.com", rr_type::a)->ttl, 600u) << "class before TTL";
  EXPECT_EQ(find(d, "www.example.com", rr_type::a, 1)->ttl, 60u) << "a second $TTL";
  // SOA timers with units: 2h, 30M, 1W2d.
  const std::string& soa = find(d, "example.com", rr_type::soa)->rdata;
  EXPECT_EQ(soa.substr(soa.size() - 16, 12),
            std::string("\0\0\x1c\x20\0\0\x07\x08\0\x0b\xdd\x80", 12));
}

TEST(ZoneCorpus, IncludeKeepsTheIncludingOrigin) {
  ZoneData d;
  ASSERT_TRUE(load(corpus + "/valid/directives.zone", "example.com", d).empty());
  EXPECT_NE(find(d, "alpha.example.com", rr_type::a), nullptr);
  EXPECT_NE(find(d, "alpha.other.example.com", rr_type::a), nullptr) << "$INCLUDE with an origin";
  EXPECT_NE(find(d, "after.example.com", rr_type::txt), nullptr);
  EXPECT_NE(find(d, "host.sub.example.com", rr_type::a), nullptr) << "$ORIGIN";
  EXPECT_EQ(d.files.size(), 3u) << "the zone file and two $INCLUDEs";
  const ZoneRecord* beta = find(d, "beta.other.example.com", rr_type::a);
  ASSERT_NE(beta, nullptr);
  EXPECT_EQ(d.files[beta->where.file].substr(d.files[beta->where.file].size() - 9), "hosts.inc");
  EXPECT_EQ(beta->where.line, 3u);
}

TEST(ZoneFile, EscapesInNamesAndStrings) {
  ZoneData z;
  ASSERT_TRUE(load(corpus + "/valid/escapes.zone", "example.net", z).empty());
  EXPECT_NE(find(z, "ABc.example.net", rr_type::txt), nullptr) << "\\065\\066c";
  const std::string dotted = std::string(
                                 "\x0c"
                                 "dotted.label",
                                 13) +
                             wire("example.net");
  bool found = false;
  for (const ZoneRecord& r : z.records) found |= r.owner == dotted;
  EXPECT_TRUE(found) << "\\. stays inside the label";
  EXPECT_EQ(find(z, "bytes.example.net", rr_type::txt)->rdata, std::string("\4\0\xff"
                                                                           "t\\",
                                                                           5));
}

TEST(ZoneFile, ReadingGoesOnAfterAnErrorAndStopsAtTheLimit) {
  std::string text = "$TTL 1\n@ SOA a b 1 2 3 4 5\n";
  for (int i = 0; i < 80; ++i) text += "x" + std::to_string(i) + " A 1.2.3\n";
  ZoneData z;
  std::vector<Diagnostic> errors;
  EXPECT_FALSE(parse_zone_text(text, "many.zone", "example", z, errors));
  ASSERT_EQ(errors.size(), ZoneFileOptions{}.max_errors);
  EXPECT_EQ(errors[1].line, 4u);
  EXPECT_NE(errors.back().message.find("too many errors"), std::string::npos);
}

TEST(Catalog, DuplicateRecordsAreOneRecord) {
  auto c =
      catalog_from({zone_from_text("example",
                                   "$TTL 1\n@ SOA ns h 1 2 3 4 5\n@ NS ns\n@ NS NS\nns A 1.2.3.4\n"
                                   "ns A 1.2.3.4\nwww TXT \"a\"\nwww TXT \"A\"\n")});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->record_count(), 5u) << "NS ns and NS NS are one record (case-insensitive names)";
  const uint32_t www = c->find(wire("www.example"));
  ASSERT_NE(www, no_node);
  EXPECT_EQ(c->find_rrset(www, rr_type::txt)->count, 2) << "TXT strings compare exactly";
}

TEST(Catalog, EmptyNonTerminalsAndCutsAreNodes) {
  auto c = catalog_from({zone_from_text("example",
                                        "$TTL 1\n@ SOA ns h 1 2 3 4 5\na.b.c A 1.2.3.4\n"
                                        "sub NS ns.sub\nns.sub A 1.2.3.5\n*.w A 1.2.3.6\n")});
  ASSERT_TRUE(c);
  const uint32_t ent = c->find(wire("b.c.example"));
  ASSERT_NE(ent, no_node);
  EXPECT_EQ(c->node(ent).rrset_count, 0);
  EXPECT_TRUE(c->node(c->find(wire("sub.example"))).flags & node_flag::delegation);
  EXPECT_TRUE(c->node(c->find(wire("ns.sub.example"))).flags & node_flag::below_delegation);
  EXPECT_TRUE(c->node(c->find(wire("w.example"))).flags & node_flag::wildcard_child);
  EXPECT_EQ(c->find(wire("nope.example")), no_node);
  EXPECT_EQ(c->zone_for(wire("x.y.example")), 0);
  EXPECT_EQ(c->zone_for(wire("example.org")), -1);
}

TEST(Catalog, NestedZonesKeepANodePerZone) {
  auto c = catalog_from(
      {zone_from_text("example", "$TTL 1\n@ SOA ns h 1 2 3 4 5\nsub NS ns.sub\nns.sub A 1.1.1.1\n"),
       zone_from_text("sub.example", "$TTL 1\n@ SOA ns h 1 2 3 4 5\n@ NS ns\nns A 2.2.2.2\n")});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->zone_for(wire("x.sub.example")), 1);
  const std::string ns = wire("ns.sub.example");
  EXPECT_EQ(c->node(c->find(ns)).zone, 1) << "the table holds the deepest zone's node";
  const uint32_t glue = c->find_in_zone(ns, name_hash(ns), 0);
  ASSERT_NE(glue, no_node);
  EXPECT_FALSE(c->node(glue).flags & node_flag::deepest_zone);
}

// Found by dns_zone_fuzz: a NUL octet ended a token without being consumed,
// and the lexer added empty tokens forever.
TEST(ZoneFile, NulOctetsAreReadNotLoopedOn) {
  ZoneData z;
  std::vector<Diagnostic> errors;
  const std::string text = std::string(
      "$TTL 1\n@ SOA a b 1 2 3 4 5\nns AAAA 2001:d\0\x12"
      "b8::1\n",
      42);
  EXPECT_FALSE(parse_zone_text(text, "nul.zone", "example", z, errors));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].line, 3u);
  EXPECT_EQ(errors[0].column, 9u);
}

// Found by dns_blob_fuzz: a zone after one that failed its checks was indexed
// as if the failed one existed.
TEST(Catalog, AZoneAfterAFailedOneIsStillOnlyChecked) {
  ZoneData empty;
  empty.origin = wire("2.0.192.in-addr.arpa");
  std::vector<Diagnostic> errors;
  auto c =
      Catalog::build({empty, zone_from_text("example", "$TTL 1\n@ SOA ns h 1 2 3 4 5\n@ NS ns\n"),
                      zone_from_text("example.org", "$TTL 1\n@ NS ns\n")},
                     errors);
  EXPECT_FALSE(c);
  ASSERT_EQ(errors.size(), 2u) << "both zones without a SOA are reported";
  EXPECT_EQ(errors[1].to_string(), "example.org.zone:1:1: the zone example.org. has no SOA record");
}

}  // namespace
}  // namespace keel::dns::test

// The DNSSEC types in presentation form (RFC 4034, RFC 5155): what the
// corpus file (zones/valid/dnssec.zone, compared with NSD) does not show.
#include <gtest/gtest.h>

#include "keel/dns/constants.hpp"
#include "test_support.hpp"

namespace keel::dns::test {
namespace {

const std::string apex = "$TTL 300\n@ SOA ns hostmaster 1 2 3 4 5\n@ NS ns\nns A 192.0.2.1\n";

std::string rdata_of(const std::string& record, uint16_t type) {
  const ZoneData z = zone_from_text("example", apex + record + "\n");
  for (const ZoneRecord& r : z.records)
    if (r.type == type) return r.rdata;
  ADD_FAILURE() << "no record of type " << type << " in " << record;
  return {};
}

TEST(DnssecZoneFile, RrsigTimesInSecondsOrAsDates) {
  // RFC 4034 §3.2: either form; NSD 4.6 reads only the date, BIND and Knot both.
  const std::string dates =
      rdata_of("x RRSIG A 13 2 300 20270101000000 20261201000000 7 example. AAAA", rr_type::rrsig);
  const std::string seconds =
      rdata_of("x RRSIG A 13 2 300 1798761600 1796083200 7 example. AAAA", rr_type::rrsig);
  EXPECT_EQ(dates, seconds);
  EXPECT_EQ(dates.substr(8, 4), std::string("\x6b\x36\xec\x80", 4));  // 2027-01-01 = 1798761600
}

TEST(DnssecZoneFile, TypeBitMapWindowsInOrder) {
  // RFC 4034 §4.3's example: A MX RRSIG NSEC TYPE1234.
  const std::string rdata =
      rdata_of("alfa NSEC host.example. A MX RRSIG NSEC TYPE1234", rr_type::nsec);
  const std::string bitmap = rdata.substr(wire("host.example").size());
  const std::string window0("\x00\x06\x40\x01\x00\x00\x00\x03", 8);
  const std::string window4 = std::string("\x04\x1b", 2) + std::string(26, '\0') + "\x20";
  EXPECT_EQ(bitmap, window0 + window4);
}

TEST(DnssecZoneFile, Nsec3HashSaltAndEmptyBitMap) {
  // RFC 5155 Appendix A: an empty non-terminal's NSEC3 has no types.
  const std::string rdata =
      rdata_of("x NSEC3 1 1 12 aabbccdd 2t7b4g4vsa5smi47k61mv5bv1a22bojr", rr_type::nsec3);
  EXPECT_EQ(rdata.substr(0, 9), std::string("\x01\x01\x00\x0c\x04\xaa\xbb\xcc\xdd", 9));
  EXPECT_EQ(uint8_t(rdata[9]), 20);
  EXPECT_EQ(rdata.size(), 10u + 20u);
  EXPECT_EQ(rdata_of("@ NSEC3PARAM 1 0 0 -", rr_type::nsec3param), std::string("\1\0\0\0\0", 5));
}

TEST(DnssecZoneFile, CnameKeepsItsSignatureAndNsec) {
  // RFC 4035 §2.5: RRSIG and NSEC sit beside a CNAME; other data still may not.
  const ZoneData z = zone_from_text(
      "example", apex +
                     "c CNAME ns\n"
                     "c RRSIG CNAME 13 2 300 20270101000000 20261201000000 7 example. AAAA\n"
                     "c NSEC ns CNAME RRSIG NSEC\n");
  std::vector<Diagnostic> errors;
  EXPECT_NE(Catalog::build({z}, errors), nullptr);
  EXPECT_TRUE(errors.empty());
}

}  // namespace
}  // namespace keel::dns::test

namespace keel::dns::test {
namespace {

TEST(DnssecNames, Nsec3HashOfRfc5155AppendixA) {
  DnssecZone zone;
  zone.iterations = 12;
  zone.salt = std::string("\xaa\xbb\xcc\xdd", 4);
  const Nsec3Hash h = nsec3_hash(zone, wire("example"));
  // 0p9mhaveqvm6t7vbl5lop2u3t2rp3tom in base32hex.
  const uint8_t expected[] = {0x06, 0x53, 0x68, 0xab, 0xee, 0xd7, 0xec, 0x6e, 0x9f, 0xeb,
                              0xa9, 0x6b, 0x8c, 0x8b, 0xc3, 0xe8, 0xb7, 0x91, 0xf7, 0x16};
  EXPECT_TRUE(std::equal(h.begin(), h.end(), expected));
}

TEST(DnssecNames, CanonicalOrderOfRfc4034Section61) {
  const char* ordered[] = {"example",         "a.example",      "yljkjljk.a.example",
                           "Z.a.example",     "zABC.a.EXAMPLE", "z.example",
                           "\\001.z.example", "*.z.example",    "\\200.z.example"};
  for (std::size_t i = 0; i + 1 < std::size(ordered); ++i) {
    EXPECT_LT(canonical_compare(wire(ordered[i]), wire(ordered[i + 1])), 0) << ordered[i];
    EXPECT_GT(canonical_compare(wire(ordered[i + 1]), wire(ordered[i])), 0) << ordered[i];
  }
  EXPECT_EQ(canonical_compare(wire("Z.a.example"), wire("z.A.example")), 0);
}

}  // namespace
}  // namespace keel::dns::test

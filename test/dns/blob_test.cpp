// The zone blob: a round trip, and every damaged blob refused cleanly.
#include "keel/dns/blob.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace keel::dns::test {
namespace {

std::vector<ZoneData> sample() {
  return {zone_from_text("example.com",
                         "$TTL 60\n@ SOA ns h 1 2 3 4 5\n@ NS ns\nns A 192.0.2.1\n"
                         "txt TXT \"a\" \"b\"\nx TYPE65280 \\# 2 abcd\n"),
          zone_from_text("example.net", "$TTL 60\n@ SOA ns h 1 2 3 4 5\n@ MX 0 .\n")};
}

TEST(Blob, RoundTrips) {
  const auto zones = sample();
  const std::string blob = encode_blob(zones);
  std::vector<ZoneData> back;
  std::string error;
  ASSERT_TRUE(decode_blob(blob, back, error)) << error;
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].origin, zones[0].origin);
  ASSERT_EQ(back[0].records.size(), zones[0].records.size());
  for (std::size_t i = 0; i < back[0].records.size(); ++i) {
    EXPECT_EQ(back[0].records[i].owner, zones[0].records[i].owner);
    EXPECT_EQ(back[0].records[i].type, zones[0].records[i].type);
    EXPECT_EQ(back[0].records[i].ttl, zones[0].records[i].ttl);
    EXPECT_EQ(back[0].records[i].rdata, zones[0].records[i].rdata);
  }
  std::vector<Diagnostic> errors;
  EXPECT_TRUE(Catalog::build(back, errors));
}

TEST(Blob, EveryTruncationIsRefused) {
  const std::string blob = encode_blob(sample());
  for (std::size_t n = 0; n < blob.size(); ++n) {
    std::vector<ZoneData> zones;
    std::string error;
    EXPECT_FALSE(decode_blob(blob.substr(0, n), zones, error)) << n;
    EXPECT_FALSE(error.empty());
  }
  std::vector<ZoneData> zones;
  std::string error;
  EXPECT_FALSE(decode_blob(blob + "x", zones, error));
}

TEST(Blob, LyingCountsAndBadNamesAreRefused) {
  std::string blob = encode_blob(sample());
  std::string many = blob;
  many[11] = '\x7f';  // zone count
  std::vector<ZoneData> zones;
  std::string error;
  EXPECT_FALSE(decode_blob(many, zones, error));
  std::string bad_name = blob;
  bad_name[13] = '\x40';  // the first label length of the first origin: 64
  EXPECT_FALSE(decode_blob(bad_name, zones, error));
  // Semantically wrong data decodes but does not load: the catalog checks it.
  ZoneData z;
  z.origin = wire("example.com");
  z.records.push_back({wire("www.example.com"), rr_type::a, 60, "abc", {}});
  ASSERT_TRUE(decode_blob(encode_blob({z}), zones, error));
  std::vector<Diagnostic> errors;
  EXPECT_FALSE(Catalog::build(zones, errors));
  EXPECT_EQ(errors.at(0).to_string(), "zone example.com.: the RDATA is not valid for type A");
}

}  // namespace
}  // namespace keel::dns::test

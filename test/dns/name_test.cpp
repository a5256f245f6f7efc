#include "keel/dns/name.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace keel::dns::test {
namespace {

TEST(Name, LengthChecksLabelsAndTotal) {
  EXPECT_EQ(name_length(std::string("\0", 1)), 1u);
  EXPECT_EQ(name_length(std::string("\3www\0", 5)), 5u);
  EXPECT_EQ(name_length(std::string("\3www", 4)), 0u) << "no root label";
  std::string label63 = std::string(1, 63) + std::string(63, 'a') + std::string(1, '\0');
  EXPECT_EQ(name_length(label63), 65u);
  std::string label64 = std::string(1, 64) + std::string(64, 'a') + std::string(1, '\0');
  EXPECT_EQ(name_length(label64), 0u);
  // 255 octets is the most (RFC 1035 §2.3.4): 3 x 63-octet labels + one of 61 + root.
  std::string max;
  for (int i = 0; i < 3; ++i) max += std::string(1, 63) + std::string(63, 'x');
  max += std::string(1, 61) + std::string(61, 'y') + std::string(1, '\0');
  ASSERT_EQ(max.size(), 255u);
  EXPECT_EQ(name_length(max), 255u);
  std::string over = std::string(1, 1) + "z" + max;
  EXPECT_EQ(name_length(over), 0u);
  EXPECT_EQ(name_length(std::string("\xc0\x0c", 2)), 0u) << "pointers are not uncompressed names";
}

TEST(Name, CompareIgnoresCaseAndWalksSuffixes) {
  EXPECT_TRUE(names_equal(wire("WWW.Example.COM"), wire("www.example.com")));
  EXPECT_FALSE(names_equal(wire("www.example.com"), wire("ww.example.com")));
  EXPECT_TRUE(is_subdomain(wire("a.b.Example.com"), wire("example.COM")));
  EXPECT_TRUE(is_subdomain(wire("example.com"), wire("example.com")));
  EXPECT_FALSE(is_subdomain(wire("badexample.com"), wire("example.com")));
  EXPECT_TRUE(is_subdomain(wire("anything"), root_name()));
  EXPECT_EQ(label_count(wire("a.b.c")), 3);
  EXPECT_EQ(strip_labels(wire("a.b.c"), 2), wire("c"));
  EXPECT_TRUE(is_wildcard(wire("*.example.com")));
  EXPECT_FALSE(is_wildcard(wire("a*.example.com")));
}

TEST(Name, TextEscapesWhatIsNotPlain) {
  EXPECT_EQ(name_to_text(root_name()), ".");
  EXPECT_EQ(name_to_text(wire("www.Example.com")), "www.Example.com.");
  const std::string odd =
      std::string("\4a.b\\", 5) + std::string("\2\x01 ", 3) + std::string(1, '\0');
  EXPECT_EQ(name_to_text(odd), "a\\.b\\\\.\\001\\032.");
}

TEST(Name, ConcatRefusesOverlongNames) {
  std::string labels;
  for (int i = 0; i < 4; ++i) labels += std::string(1, 63) + std::string(63, 'x');
  EXPECT_EQ(concat_names(labels.substr(0, 64 * 3), wire("example")),
            labels.substr(0, 64 * 3) + wire("example"));
  EXPECT_EQ(concat_names(labels, wire("example")), "");
}

}  // namespace
}  // namespace keel::dns::test

#include "kernel/format.hpp"

#include <gtest/gtest.h>

#include <climits>

TEST(FixedWriter, FormatsHexDecimalAndText) {
  char buffer[128];
  keel::FixedWriter w(buffer, sizeof buffer);
  w.text("rip ").hex(0x1234).text(" n=").dec(-42).text(" u=").udec(18446744073709551615ull);
  EXPECT_EQ(w.view(), "rip 0x0000000000001234 n=-42 u=18446744073709551615");
  EXPECT_FALSE(w.truncated());
}

TEST(FixedWriter, HexWidthIsAMinimum) {
  char buffer[64];
  keel::FixedWriter w(buffer, sizeof buffer);
  w.hex(0, 1).text(" ").hex(0xabcdef, 2).text(" ").hex(UINT64_MAX);
  EXPECT_EQ(w.view(), "0x0 0xabcdef 0xffffffffffffffff");
}

TEST(FixedWriter, MostNegativeNumber) {
  char buffer[64];
  keel::FixedWriter w(buffer, sizeof buffer);
  w.dec(INT64_MIN);
  EXPECT_EQ(w.view(), "-9223372036854775808");
}

TEST(FixedWriter, TruncatesInsteadOfOverflowing) {
  char buffer[8];
  keel::FixedWriter w(buffer, 5);
  w.text("hello world");
  EXPECT_EQ(w.view(), "hello");
  EXPECT_TRUE(w.truncated());
}

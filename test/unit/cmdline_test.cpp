#include "kernel/cmdline.hpp"

#include <gtest/gtest.h>

using keel::kernel::split_cmdline;
using Words = std::vector<std::string>;

TEST(Cmdline, SplitsOnBlanks) {
  EXPECT_EQ(split_cmdline("  ip=10.0.0.2/24\tgw=10.0.0.1\n verbose "),
            (Words{"ip=10.0.0.2/24", "gw=10.0.0.1", "verbose"}));
  EXPECT_EQ(split_cmdline(""), Words{});
  EXPECT_EQ(split_cmdline("   "), Words{});
}

TEST(Cmdline, QuotesGroupAndEscapesEscape) {
  EXPECT_EQ(split_cmdline(R"(name="a b" x\ y "" end)"), (Words{"name=a b", "x y", "", "end"}));
  EXPECT_EQ(split_cmdline(R"(say=\"hi\")"), (Words{"say=\"hi\""}));
}

TEST(Cmdline, UnterminatedQuoteKeepsTheRest) {
  EXPECT_EQ(split_cmdline(R"(a "b c)"), (Words{"a", "b c"}));
  EXPECT_EQ(split_cmdline("trailing\\"), (Words{"trailing\\"}));
}

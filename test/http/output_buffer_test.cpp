// The OutputBuffer's storage: allocated at the first append, freed by
// release() only when nothing is pending (an idle connection holds none).
#include "keel/http/output_buffer.hpp"

#include <gtest/gtest.h>

#include <string>

namespace keel::http {
namespace {

std::string pending(const OutputBuffer& out) {
  return {reinterpret_cast<const char*>(out.pending().data()), out.pending().size()};
}

TEST(OutputBuffer, StorageIsAllocatedOnlyWhileInUse) {
  OutputBuffer out(16);
  EXPECT_FALSE(out.allocated());
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(out.room(), 16u);
  EXPECT_TRUE(out.append(std::string_view()));
  EXPECT_FALSE(out.allocated());  // nothing to hold

  ASSERT_TRUE(out.append(std::string_view("hello")));
  EXPECT_TRUE(out.allocated());
  out.release();  // pending: kept
  EXPECT_TRUE(out.allocated());
  EXPECT_EQ(pending(out), "hello");

  out.consume(5);
  out.release();
  EXPECT_FALSE(out.allocated());
  EXPECT_EQ(out.room(), 16u);

  // Allocated again, whole capacity usable.
  ASSERT_TRUE(out.append(std::string_view("0123456789abcdef")));
  EXPECT_FALSE(out.append(std::string_view("x")));
  EXPECT_EQ(pending(out), "0123456789abcdef");
}

}  // namespace
}  // namespace keel::http

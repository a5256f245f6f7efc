// Checked message reading and building with compression.
#include "keel/dns/message.hpp"

#include <gtest/gtest.h>

#include "keel/dns/writer.hpp"
#include "test_support.hpp"

namespace keel::dns::test {
namespace {

std::string message_with(const std::string& body) { return std::string(12, '\0') + body; }

// A writer holding a header and `question` at 12, remembered for compression.
MessageWriter writer_after(uint8_t* buf, std::size_t size, const std::string& question) {
  MessageWriter w(buf, size);
  w.put_bytes(std::string(12, '\0'));
  w.put_bytes(question);
  w.remember_name(12, question);
  return w;
}

TEST(ReadName, FollowsBackwardPointers) {
  // "example.com" at 12, then "www" + pointer to 12.
  const std::string m = message_with(wire("example.com") + "\3www\xc0\x0c");
  std::string out;
  NameRead r = read_name(m, 25, &out);
  ASSERT_EQ(r.error, WireError::none);
  EXPECT_EQ(r.end, 31u);
  EXPECT_EQ(out, wire("www.example.com"));
}

TEST(ReadName, RejectsForwardSelfAndHeaderPointers) {
  EXPECT_EQ(read_name(message_with(std::string("\xc0\x0c", 2)), 12, nullptr).error,
            WireError::bad_pointer);
  EXPECT_EQ(read_name(message_with(std::string("\xc0\x0e\0", 3)), 12, nullptr).error,
            WireError::bad_pointer);
  EXPECT_EQ(read_name(message_with(std::string("\xc0\x02", 2)), 12, nullptr).error,
            WireError::bad_pointer);
  // A pointer into the labels of its own name loops.
  EXPECT_EQ(read_name(message_with(std::string("\1a\xc0\x0c", 4)), 12, nullptr).error,
            WireError::bad_pointer);
  // Two names pointing at each other: the second pointer must go below the first target.
  const std::string loop = message_with(std::string("\1a\xc0\x10\1b\xc0\x0c", 8));
  EXPECT_EQ(read_name(loop, 16, nullptr).error, WireError::bad_pointer);
}

TEST(ReadName, RejectsLongLabelsLongNamesAndReservedTypes) {
  EXPECT_EQ(
      read_name(message_with(std::string(1, 64) + std::string(64, 'a') + '\0'), 12, nullptr).error,
      WireError::bad_label_type);
  EXPECT_EQ(read_name(message_with(std::string("\x41"
                                               "a",
                                               2)),
                      12, nullptr)
                .error,
            WireError::bad_label_type);
  EXPECT_EQ(read_name(message_with(std::string("\x80", 1)), 12, nullptr).error,
            WireError::bad_label_type);
  // 64-octet labels through pointers add up past 255.
  std::string chain = std::string(1, 63) + std::string(63, 'a') + '\0';  // at 12
  std::size_t prev = 12;
  for (int i = 0; i < 4; ++i) {
    const std::size_t at = 12 + chain.size();
    chain +=
        std::string(1, 63) + std::string(63, 'b') + char(0xc0 | (prev >> 8)) + char(prev & 0xff);
    prev = at;
  }
  EXPECT_EQ(read_name(message_with(chain), prev, nullptr).error, WireError::name_too_long);
  EXPECT_EQ(read_name(message_with("\3ww"), 12, nullptr).error, WireError::truncated);
  EXPECT_EQ(read_name(message_with("\xc0"), 12, nullptr).error, WireError::truncated);
}

TEST(ParseMessage, CountsThatLieAreErrors) {
  Message m;
  std::string q =
      std::string("\0\1\0\0\0\1\0\0\0\0\0\0", 12) + wire("a") + std::string("\0\1\0\1", 4);
  EXPECT_EQ(parse_message(q, m), WireError::none);
  std::string more = q;
  more[7] = 1;  // ANCOUNT 1, no record
  Message m1;
  EXPECT_EQ(parse_message(more, m1), WireError::truncated);
  std::string fewer = q;
  fewer[5] = 0;  // QDCOUNT 0: the question is left over
  Message m2;
  EXPECT_EQ(parse_message(fewer, m2), WireError::trailing_data);
}

TEST(ParseMessage, DecompressesRdataNamesAndChecksLayouts) {
  // An MX answer whose exchange points at the question name.
  std::string msg = std::string("\0\1\x84\0\0\1\0\1\0\0\0\0", 12) + wire("example.com") +
                    std::string("\0\x0f\0\1", 4);
  msg += std::string("\xc0\x0c\0\x0f\0\1\0\0\x0e\x10\0\x09\0\x0a\4mail\xc0\x0c", 21);
  Message m;
  ASSERT_EQ(parse_message(msg, m), WireError::none);
  ASSERT_EQ(m.answers.size(), 1u);
  EXPECT_EQ(m.answers[0].rdata, std::string("\0\x0a", 2) + wire("mail.example.com"));
  // An A record with 5 octets of RDATA does not match its type.
  std::string bad = std::string("\0\1\x84\0\0\0\0\1\0\0\0\0", 12) + wire("a") +
                    std::string("\0\1\0\1\0\0\0\0\0\5abcde", 15);
  Message m2;
  EXPECT_EQ(parse_message(bad, m2), WireError::bad_rdata);
}

TEST(Writer, CompressesAgainstEarlierNamesCaseInsensitively) {
  uint8_t buf[512];
  const std::string q = wire("WWW.Example.COM");
  MessageWriter w = writer_after(buf, sizeof buf, q);
  const std::size_t at = w.position();
  ASSERT_TRUE(w.put_name(wire("mail.example.com"), true));
  // "mail" then a pointer to "Example.COM" at 16.
  EXPECT_EQ(std::string(reinterpret_cast<char*>(buf + at), w.position() - at),
            std::string("\4mail\xc0\x10", 7));
  std::string out;
  const std::string_view view(reinterpret_cast<char*>(buf), w.position());
  ASSERT_EQ(read_name(view, at, &out).error, WireError::none);
  EXPECT_EQ(out, std::string("\4mail") + q.substr(4));
}

TEST(Writer, LimitAndRewindKeepTheMessageConsistent) {
  uint8_t buf[64];
  MessageWriter w(buf, 20);
  w.put_bytes(std::string(12, '\0'));
  const std::size_t mark = w.position();
  EXPECT_FALSE(w.put_name(wire("toolong.example"), false));
  EXPECT_EQ(w.position(), mark) << "a failed write leaves nothing behind";
  ASSERT_TRUE(w.put_name(wire("a.b"), false));
  w.rewind(mark);
  w.set_limit(64);
  ASSERT_TRUE(w.put_name(wire("a.b"), true));
  EXPECT_EQ(w.position(), mark + 5) << "the rewound name is no compression target any more";
}

TEST(Writer, RdataNamesAreCompressedOnlyForRfc1035Types) {
  uint8_t buf[256];
  MessageWriter w = writer_after(buf, sizeof buf, wire("example.com"));
  const std::size_t a = w.position();
  ASSERT_TRUE(w.put_rdata(rr_type::cname, wire("www.example.com")));
  EXPECT_EQ(w.position() - a, 2u + 6u) << "RDLENGTH, 'www', pointer";
  const std::size_t b = w.position();
  const std::string srv = std::string("\0\1\0\2\0\3", 6) + wire("www.example.com");
  ASSERT_TRUE(w.put_rdata(rr_type::srv, srv));
  EXPECT_EQ(w.position() - b, 2u + srv.size()) << "RFC 2782: SRV targets are not compressed";
}

}  // namespace
}  // namespace keel::dns::test

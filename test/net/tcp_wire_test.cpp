// TCP headers and options (src/net/wire/tcp.hpp): emit and parse round
// trips, Linux's option layout, and every length check of RFC 9293 §3.2,
// RFC 7323 and RFC 2018.
#include "tcp_frames.hpp"

namespace keel::test {
namespace {

namespace flag = ::net::wire::tcp_flag;
using ::net::wire::TcpError;
using ::net::wire::TcpOptionError;
using ::net::wire::TcpOptions;
using ::net::wire::TcpRepr;
using ::net::wire::TcpView;

TcpOptionError parse(const Bytes& bytes, TcpOptions& out) {
  return TcpOptions::parse(bytes.data(), uint32_t(bytes.size()), out);
}

TEST(TcpWire, HeaderRoundTripsWithChecksum) {
  TcpRepr h{1234, 80, 0xfffffff0, 42, flag::ack | flag::psh, 512, 0, {}, 0};
  h.options.timestamps = {{7, 9}};
  Bytes s = tcp(peer_ip, stack_ip, h, pattern(100));
  TcpView<const uint8_t> v(s.data(), s.size());
  ASSERT_EQ(v.check(peer_ip, stack_ip), TcpError::none);
  EXPECT_EQ(v.header_len(), 32u);
  EXPECT_EQ(v.payload_len(), 100u);
  h.payload_len = 100;
  EXPECT_EQ(TcpRepr::parse(v), h);
  // Any changed byte breaks the checksum; the other direction's pseudo-header too.
  s[40] ^= 1;
  EXPECT_EQ(v.check(peer_ip, stack_ip), TcpError::bad_checksum);
  EXPECT_EQ(v.check(peer_ip, stack_ip, false), TcpError::none);
  s[40] ^= 1;
  EXPECT_EQ(v.check(stack_ip, Ip{10, 0, 0, 3}), TcpError::bad_checksum);
}

TEST(TcpWire, OffloadLeavesThePseudoHeaderSum) {
  TcpRepr h{1, 2, 3, 4, flag::ack, 5, 0, {}, 0};
  Bytes s = pattern(20 + 10);
  h.payload_len = 10;
  h.emit(s.data(), peer_ip, stack_ip, TcpRepr::Checksum::pseudo_header_only);
  // Completing it as a NIC would gives a valid segment.
  uint32_t sum = ::net::wire::checksum_add(0, s.data(), s.size());
  ::net::wire::store16(&s[16], uint16_t(~::net::wire::checksum_fold(sum)));
  EXPECT_EQ((TcpView<const uint8_t>(s.data(), s.size()).check(peer_ip, stack_ip)), TcpError::none);
}

TEST(TcpWire, ViewChecksLengths) {
  Bytes s = tcp(peer_ip, stack_ip, TcpRepr{1, 2, 3, 4, flag::syn, 5, 0, {}, 0});
  EXPECT_EQ((TcpView<const uint8_t>(s.data(), 19).check(peer_ip, stack_ip)), TcpError::truncated);
  s[12] = 4 << 4;  // data offset 16 bytes
  EXPECT_EQ((TcpView<const uint8_t>(s.data(), s.size()).check(peer_ip, stack_ip, false)),
            TcpError::bad_data_offset);
  s[12] = 6 << 4;  // 24 bytes: past the segment
  EXPECT_EQ((TcpView<const uint8_t>(s.data(), s.size()).check(peer_ip, stack_ip, false)),
            TcpError::bad_data_offset);
}

TEST(TcpWire, SynOptionsInLinuxLayout) {
  TcpOptions o;
  o.mss = 1460;
  o.sack_permitted = true;
  o.timestamps = {{0x01020304, 0}};
  o.window_scale = 7;
  Bytes b(o.length());
  ASSERT_EQ(b.size(), 20u);
  EXPECT_EQ(o.emit(b.data()), 20u);
  EXPECT_EQ(b, (Bytes{2, 4, 0x05, 0xb4, 4, 2, 8, 10, 1, 2, 3, 4, 0, 0, 0, 0, 1, 3, 3, 7}));
  TcpOptions back;
  EXPECT_EQ(parse(b, back), TcpOptionError::none);
  EXPECT_EQ(back, o);
  // Without timestamps: SACK-permitted behind two NOPs.
  o.timestamps.reset();
  b.assign(o.length(), 0xee);
  o.emit(b.data());
  EXPECT_EQ(b, (Bytes{2, 4, 0x05, 0xb4, 1, 1, 4, 2, 1, 3, 3, 7}));
}

TEST(TcpWire, SackBlocksFillWhatIsLeftOfFortyBytes) {
  TcpOptions o;
  for (uint32_t i = 0; i < 4; ++i) o.add_sack({1000 * i, 1000 * i + 500});
  EXPECT_EQ(o.length(), 4u + 32u);  // NOP NOP kind len + 4 blocks
  o.timestamps = {{1, 2}};
  EXPECT_EQ(o.length(), 12u + 4u + 24u);  // beside timestamps only 3 fit
  Bytes b(o.length());
  o.emit(b.data());
  TcpOptions back;
  EXPECT_EQ(parse(b, back), TcpOptionError::none);
  EXPECT_EQ(back.sack_count, 3);
  EXPECT_EQ(back.sack[2], (::net::wire::TcpSackBlock{2000, 2500}));
  EXPECT_EQ(*back.timestamps, (::net::wire::TcpTimestamps{1, 2}));
}

TEST(TcpWire, UnknownOptionsAreSkippedByLength) {
  TcpOptions o;
  EXPECT_EQ(parse({30, 6, 1, 2, 3, 4, 2, 4, 0x02, 0x18, 0, 0}, o), TcpOptionError::none);
  EXPECT_EQ(o.mss, 536);
  // End of list stops everything after it.
  TcpOptions p;
  EXPECT_EQ(parse({0, 2, 4, 0x02, 0x18}, p), TcpOptionError::none);
  EXPECT_FALSE(p.mss);
}

TEST(TcpWire, BadLengthsStopOrSkip) {
  struct Case {
    Bytes bytes;
    TcpOptionError error;
  };
  const Case cases[] = {
      {{2}, TcpOptionError::bad_length},                                 // no length byte
      {{30, 0, 2, 4, 1, 0}, TcpOptionError::bad_length},                 // length 0
      {{30, 1, 2, 4, 1, 0}, TcpOptionError::bad_length},                 // length 1
      {{2, 4, 1}, TcpOptionError::bad_length},                           // past the end
      {{2, 3, 1, 1}, TcpOptionError::bad_option_length},                 // MSS of 3 bytes
      {{3, 4, 7, 0}, TcpOptionError::bad_option_length},                 // window scale of 4
      {{4, 3, 0, 1}, TcpOptionError::bad_option_length},                 // SACK-permitted of 3
      {{8, 8, 0, 0, 0, 0, 0, 0}, TcpOptionError::bad_option_length},     // timestamps of 8
      {{5, 9, 0, 0, 0, 0, 0, 0, 0}, TcpOptionError::bad_option_length},  // SACK of 9
      {{5, 2, 1, 1}, TcpOptionError::bad_option_length},                 // SACK without blocks
      {{3, 3, 15, 1}, TcpOptionError::window_shift_clamped},
  };
  for (const Case& c : cases) {
    TcpOptions o;
    EXPECT_EQ(parse(c.bytes, o), c.error) << ::testing::PrintToString(c.bytes);
    EXPECT_FALSE(o.mss);
    EXPECT_FALSE(o.timestamps);
    EXPECT_EQ(o.sack_count, 0);
  }
  TcpOptions clamped;
  parse({3, 3, 15, 1}, clamped);
  EXPECT_EQ(clamped.window_scale, 14);
  // A wrong-length option is skipped, what follows still counts.
  TcpOptions after;
  EXPECT_EQ(parse({2, 3, 1, 2, 4, 0x02, 0x18, 1}, after), TcpOptionError::bad_option_length);
  EXPECT_EQ(after.mss, 536);
}

TEST(TcpWire, ParsedHeaderReportsOptionErrors) {
  Bytes s = tcp(peer_ip, stack_ip, TcpRepr{1, 2, 3, 4, flag::syn, 5, 0, {}, 0});
  Bytes with(s.begin(), s.begin() + 20);
  with.insert(with.end(), {2, 4, 1, 1, 3, 3, 20, 0});  // MSS, then a window scale of 20
  with[12] = 7 << 4;
  TcpView<const uint8_t> v(with.data(), with.size());
  ASSERT_EQ(v.check(peer_ip, stack_ip, false), TcpError::none);
  TcpOptionError e;
  TcpRepr r = TcpRepr::parse(v, &e);
  EXPECT_EQ(e, TcpOptionError::window_shift_clamped);
  EXPECT_EQ(r.options.mss, 257);
  EXPECT_EQ(r.options.window_scale, 14);
  EXPECT_EQ(r.sequence_len(), 1u);
}

}  // namespace
}  // namespace keel::test

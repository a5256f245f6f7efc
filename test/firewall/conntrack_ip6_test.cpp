// Connection tracking of IPv6 flows: 128-bit tuples, ICMPv6 echo and errors, extension headers
// walked as the stack walks them, IPv6's pseudo-header checksums. Linux agreement packet by
// packet: test_appliance_ip6_differential.py.
#include <gtest/gtest.h>

#include <array>

#include "keel/firewall/conntrack.hpp"
#include "net/wire/checksum.hpp"
#include "net/wire/view.hpp"
#include "stateful/packet_info.hpp"

namespace keel::firewall {
namespace {
using net::wire::store16;
using net::wire::store32;
using Address = std::array<uint8_t, 16>;
constexpr uint64_t kSecond = 1'000'000'000;
constexpr Address kA = {0xfd, 0, 0, 0xa, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};  // fd00:a::1
constexpr Address kB = {0xfd, 0, 0, 0xb, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};  // fd00:b::1
constexpr Address kRouter = {0xfd, 0, 0, 0xb, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xfe};

struct Spec6 {
  Address src = kA, dst = kB;
  uint8_t proto = 17;
  uint16_t sport = 1000, dport = 80;
  uint8_t tcp_flags = 0x02;
  uint32_t seq = 1000, ack = 0;
  uint8_t icmp_type = 128, icmp_code = 0;
  uint16_t icmp_id = 7;
  int destination_options = 0;   // empty 8-byte destination options headers before the payload
  std::vector<uint8_t> payload;  // ICMPv6 errors: the quoted packet
};

// An IPv6 packet with valid checksums (RFC 8200 section 8.1).
std::vector<uint8_t> build6(const Spec6& s) {
  std::vector<uint8_t> l4;
  if (s.proto == 6) {
    l4.assign(20, 0);
    store16(&l4[0], s.sport), store16(&l4[2], s.dport), store32(&l4[4], s.seq),
        store32(&l4[8], s.ack);
    l4[12] = 5 << 4, l4[13] = s.tcp_flags;
    store16(&l4[14], 8192);
  } else if (s.proto == 17) {
    l4.assign(8, 0);
    store16(&l4[0], s.sport), store16(&l4[2], s.dport);
    store16(&l4[4], static_cast<uint16_t>(8 + s.payload.size()));
  } else {
    l4.assign(8, 0);
    l4[0] = s.icmp_type, l4[1] = s.icmp_code;
    store16(&l4[4], s.icmp_id);
  }
  l4.insert(l4.end(), s.payload.begin(), s.payload.end());
  uint32_t sum = net::wire::checksum_add(0, s.src.data(), 16);
  sum = net::wire::checksum_add(sum, s.dst.data(), 16);
  sum += static_cast<uint32_t>(l4.size()) + s.proto;
  const uint16_t check = static_cast<uint16_t>(
      ~net::wire::checksum_fold(net::wire::checksum_add(sum, l4.data(), l4.size())));
  store16(&l4[s.proto == 6    ? 16
              : s.proto == 17 ? 6
                              : 2],
          check == 0 && s.proto == 17 ? 0xffff : check);
  std::vector<uint8_t> ip(40);
  ip[0] = 0x60;
  ip[7] = 64;
  std::copy(s.src.begin(), s.src.end(), ip.begin() + 8);
  std::copy(s.dst.begin(), s.dst.end(), ip.begin() + 24);
  uint8_t* next = &ip[6];
  for (int i = 0; i < s.destination_options; ++i) {
    *next = 60;
    const size_t at = ip.size();
    ip.insert(ip.end(), {0, 0, 1, 4, 0, 0, 0, 0});  // PadN of 4 bytes
    next = &ip[at];
  }
  *next = s.proto;
  ip.insert(ip.end(), l4.begin(), l4.end());
  store16(&ip[4], static_cast<uint16_t>(ip.size() - 40));
  return ip;
}

Spec6 reply_of(Spec6 s) {
  std::swap(s.src, s.dst);
  std::swap(s.sport, s.dport);
  return s;
}

class Conntrack6Test : public ::testing::Test {
 protected:
  static ConntrackConfig config() {
    ConntrackConfig c;
    c.max_flows = 8;
    c.hash_key[0] = 1;
    return c;
  }
  Conntrack ct{config()};
  uint64_t now = kSecond;

  Tracked track(const Spec6& s) {
    std::vector<uint8_t> p = build6(s);
    PacketInfo info;
    EXPECT_TRUE(read_packet(p.data(), p.size(), info));
    Tracked t = ct.track(info, p.data(), true, now);
    if (t.pending) EXPECT_TRUE(ct.confirm(t.flow));
    return t;
  }
};

TEST_F(Conntrack6Test, ReadsTheFieldsRulesMatch) {
  Spec6 s;
  s.destination_options = 2;
  std::vector<uint8_t> p = build6(s);
  PacketInfo info;
  ASSERT_TRUE(read_packet(p.data(), p.size(), info));
  EXPECT_EQ(info.fields.family, kFamilyIp6);
  EXPECT_EQ(info.fields.saddr, 0xfd00000au);
  EXPECT_EQ(info.fields.saddr6[2], 1u);
  EXPECT_EQ(info.fields.daddr, 0xfd00000bu);
  EXPECT_EQ(info.fields.proto, kProtoUdp);  // past the extension headers
  EXPECT_EQ(info.fields.dport, 80);
  EXPECT_EQ(info.fields.ttl, 0);
  EXPECT_EQ(info.header_len, 40u + 16u);
}

TEST_F(Conntrack6Test, ChainsLongerThanTheStackWalksAreUnreadable) {
  Spec6 s;
  s.destination_options = 8;
  std::vector<uint8_t> p = build6(s);
  PacketInfo info;
  EXPECT_TRUE(read_packet(p.data(), p.size(), info));
  s.destination_options = 9;
  p = build6(s);
  EXPECT_FALSE(read_packet(p.data(), p.size(), info));
  p = build6(Spec6{});
  p[6] = 60;  // a destination options header that is not there
  p.resize(44);
  store16(&p[4], 4);
  EXPECT_FALSE(read_packet(p.data(), p.size(), info));
}

TEST_F(Conntrack6Test, UdpFlowsAreKeyedByWholeAddresses) {
  Spec6 out;
  EXPECT_EQ(track(out).state, CtState::new_);
  Tracked back = track(reply_of(out));
  EXPECT_EQ(back.state, CtState::established);
  EXPECT_EQ(back.dir, Dir::reply);
  Spec6 other = out;
  other.src[15] = 2;  // only word 3 differs
  EXPECT_EQ(track(other).state, CtState::new_);
  EXPECT_EQ(ct.size(), 2u);
}

TEST_F(Conntrack6Test, Icmp6EchoStartsAFlowAndOtherMessagesDoNot) {
  Spec6 echo;
  echo.proto = kProtoIcmp6;
  EXPECT_EQ(track(echo).state, CtState::new_);
  Spec6 answer = reply_of(echo);
  answer.icmp_type = 129;
  EXPECT_EQ(track(answer).state, CtState::established);
  Spec6 unsolicited = answer;
  unsolicited.icmp_id = 99;
  EXPECT_EQ(track(unsolicited).state, CtState::invalid);
  Spec6 redirect = echo;
  redirect.icmp_type = 137;
  EXPECT_EQ(track(redirect).state, CtState::invalid);
  // Neighbour discovery and MLD are untracked, as Linux leaves them (no flow, not invalid).
  Spec6 solicit = echo;
  solicit.icmp_type = 135;
  EXPECT_EQ(track(solicit).state, CtState::untracked);
  EXPECT_EQ(ct.counters().untracked, 1u);
}

TEST_F(Conntrack6Test, Icmp6ErrorsAboutAFlowAreRelated) {
  Spec6 udp;
  udp.sport = 2000;
  track(udp);
  Spec6 error;
  error.proto = kProtoIcmp6, error.icmp_type = 1, error.icmp_code = 4;
  error.src = kRouter, error.dst = udp.src;
  error.payload = build6(udp);
  Tracked t = track(error);
  EXPECT_EQ(t.state, CtState::related);
  EXPECT_EQ(t.dir, Dir::reply);
  error.dst[15] = 9;  // not to the quoted packet's sender
  EXPECT_EQ(track(error).state, CtState::invalid);
  Spec6 unknown = udp;
  unknown.sport = 3000;
  error.dst = udp.src;
  error.payload = build6(unknown);
  EXPECT_EQ(track(error).state, CtState::invalid);
}

TEST_F(Conntrack6Test, TcpHandshakeAndChecksums) {
  Spec6 syn;
  syn.proto = kProtoTcp;
  EXPECT_EQ(track(syn).state, CtState::new_);
  Spec6 synack = reply_of(syn);
  synack.tcp_flags = 0x12, synack.seq = 5000, synack.ack = 1001;
  EXPECT_EQ(track(synack).state, CtState::established);
  std::vector<uint8_t> p = build6(Spec6{});
  p[46] ^= 0xff;  // the UDP checksum
  PacketInfo info;
  ASSERT_TRUE(read_packet(p.data(), p.size(), info));
  EXPECT_EQ(ct.track(info, p.data(), true, now).state, CtState::invalid);
  EXPECT_EQ(ct.counters().invalid_checksum, 1u);
}

TEST_F(Conntrack6Test, LaterFragmentsAreInvalid) {
  std::vector<uint8_t> p = build6(Spec6{});
  // A fragment header (offset 8, last) in front of what follows the IPv6 header.
  const std::vector<uint8_t> fragment = {p[6], 0, 0, 8, 0, 0, 0, 1};
  p.insert(p.begin() + 40, fragment.begin(), fragment.end());
  p[6] = 44;
  store16(&p[4], static_cast<uint16_t>(p.size() - 40));
  PacketInfo info;
  ASSERT_TRUE(read_packet(p.data(), p.size(), info));
  EXPECT_EQ(info.malformed, Malformed::fragment);
  EXPECT_EQ(ct.track(info, p.data(), true, now).state, CtState::invalid);
}

}  // namespace
}  // namespace keel::firewall

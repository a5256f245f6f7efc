// Server::answer over TCP (RFC 7766): the whole answer up to 65,535 octets,
// never TC short of that, the same octets from the pre-rendered and the
// computed path, and no rate limiting.
#include <gtest/gtest.h>

#include "keel/dns/server.hpp"
#include "test_support.hpp"

namespace keel::dns::test {
namespace {

const char* zone_text = R"(
$TTL 3600
@       SOA ns1 hostmaster 1 7200 3600 1209600 300
        NS  ns1
ns1     A   192.0.2.53
www     A   192.0.2.10
)";

const ClientAddress client = ClientAddress::ipv4(0x0a000001, 5353);

std::string big_sets() {
  std::string extra;
  for (int i = 0; i < 10; ++i) extra += "@ TXT \"" + std::string(200, char('a' + i)) + "\"\n";
  for (int i = 1; i <= 60; ++i) extra += "v6 AAAA 2001:db8:6::" + std::to_string(i) + "\n";
  // A referral whose glue does not fit 512 or 1232 octets: over UDP the
  // glue that does not fit is left out (RFC 9471), over TCP it is all there.
  for (int i = 1; i <= 30; ++i) {
    const std::string ns = "ns" + std::to_string(i) + ".fat";
    extra += "fat NS " + ns + "\n" + ns + " A 10.1.0." + std::to_string(i) + "\n" + ns +
             " AAAA 2001:db8:f::" + std::to_string(i) + "\n";
  }
  return extra;
}

std::unique_ptr<Server> server_with(bool prerender, const RateLimitOptions& rrl = {}) {
  ServerOptions o;
  o.prerender = prerender;
  o.rate_limit = rrl;
  static uint64_t now = 0;
  o.clock_ms = [] { return now; };
  return std::make_unique<Server>(
      catalog_from({zone_from_text("example.com", zone_text + big_sets())}), o);
}

Answer ask_tcp(Server& s, const std::vector<uint8_t>& q) {
  return ask(s, q, 65535, client, Transport::tcp);
}

TEST(ServerTcpTest, BigRrsetsComeWholeWithAndWithoutEdns) {
  auto cached = server_with(true);
  auto computed = server_with(false);
  const std::tuple<const char*, uint16_t, std::size_t> big[] = {
      {"example.com", rr_type::txt, 10}, {"v6.Example.com", rr_type::aaaa, 60}};
  for (auto [name, type, count] : big) {
    for (int edns : {-1, 512, 1232, 4096}) {
      const auto q = make_query(name, type, {.edns = edns});
      EXPECT_TRUE(ask(*cached, q).flag(flag::tc)) << name << " " << edns << ": TC over UDP";
      Answer a = ask_tcp(*cached, q);
      ASSERT_EQ(a.error, WireError::none);
      EXPECT_FALSE(a.flag(flag::tc)) << name << " " << edns;
      EXPECT_EQ(a.message.answers.size(), count) << name << " " << edns;
      EXPECT_EQ(a.bytes, ask_tcp(*computed, q).bytes) << name << " " << edns;
    }
  }
}

// The pre-rendered referrals (for 512 octets without EDNS, for our payload
// size with it) leave out the glue that does not fit; over TCP it is all
// there (found by test_tcp.py against NSD).
TEST(ServerTcpTest, ReferralsKeepAllTheirGlue) {
  auto cached = server_with(true);
  auto computed = server_with(false);
  for (int edns : {-1, 1232, 4096}) {
    const auto q = make_query("www.fat.example.com", rr_type::a, {.edns = edns});
    Answer udp = ask(*cached, q);
    EXPECT_LT(udp.message.additional.size(), 60u) << edns << ": UDP must leave glue out";
    Answer tcp = ask_tcp(*cached, q);
    EXPECT_FALSE(tcp.flag(flag::tc)) << edns;
    EXPECT_EQ(tcp.message.authority.size(), 30u) << edns;
    EXPECT_EQ(tcp.message.additional.size(), edns < 0 ? 60u : 61u) << edns << ": glue and OPT";
    EXPECT_EQ(tcp.bytes, ask_tcp(*computed, q).bytes) << edns;
  }
}

TEST(ServerTcpTest, NotRateLimited) {
  RateLimitOptions rrl;
  rrl.responses_per_second = 2;
  rrl.slip = 2;
  auto s = server_with(true, rrl);
  const auto q = make_query("www.example.com", rr_type::a);
  for (int i = 0; i < 20; ++i) {
    Answer a = ask_tcp(*s, q);
    ASSERT_GT(a.size, 0u) << i;
    EXPECT_FALSE(a.flag(flag::tc)) << i;
  }
  EXPECT_EQ(s->stats().rate_limited_dropped + s->stats().rate_limited_slipped, 0u);
  int limited = 0;
  for (int i = 0; i < 10; ++i) {
    const Answer a = ask(*s, q);
    if (a.size == 0 || a.flag(flag::tc)) ++limited;
  }
  EXPECT_EQ(limited, 8) << "UDP still is: 2 sent, then dropped and slipped";
}

}  // namespace
}  // namespace keel::dns::test

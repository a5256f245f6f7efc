// Server::answer on a small zone: each answering rule of RFC 1034 §4.3.2 and
// the RFCs after it, the error responses, truncation and EDNS.
#include "keel/dns/server.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace keel::dns::test {
namespace {

const char* zone_text = R"(
$TTL 3600
@       SOA ns1 hostmaster 1 7200 3600 1209600 300
        NS  ns1
        NS  ns2.example.net.
        MX  10 mail
ns1     A   192.0.2.53
mail    A   192.0.2.25
www     A   192.0.2.10
www     A   192.0.2.11
alias   CNAME www
chain   CNAME alias
loop1   CNAME loop2
loop2   CNAME loop1
dangling CNAME nowhere
*.wild  A   192.0.2.99
*.wild  TXT "wild"
a.b.ent A   192.0.2.7
sub     NS  ns.sub
sub     NS  ns.elsewhere.example.net.
sub     DS  1 13 2 00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff
ns.sub  A   192.0.2.54
dn      DNAME example.net.
)";

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override { make(ServerOptions{}); }
  void make(const ServerOptions& options, std::string extra = "") {
    server = std::make_unique<Server>(
        catalog_from({zone_from_text("example.com", zone_text + extra)}), options);
  }
  Answer ask_for(const std::string& name, uint16_t type, QueryOptions o = {}) {
    return ask(*server, make_query(name, type, o));
  }
  std::unique_ptr<Server> server;
};

TEST_F(ServerTest, AnswersWithAuthorityAndCasePreserved) {
  Answer a = ask_for("WwW.Example.COM", rr_type::a);
  ASSERT_EQ(a.error, WireError::none);
  EXPECT_EQ(a.rcode(), rcode::noerror);
  EXPECT_TRUE(a.flag(flag::qr) && a.flag(flag::aa));
  EXPECT_FALSE(a.flag(flag::ra));
  ASSERT_EQ(a.message.answers.size(), 2u);
  EXPECT_EQ(a.message.answers[0].owner, wire("WwW.Example.COM"))
      << "owner compressed to the question";
  EXPECT_EQ(a.message.questions[0].name, wire("WwW.Example.COM"));
  EXPECT_TRUE(a.message.authority.empty() && a.message.additional.empty()) << "minimal responses";
}

TEST_F(ServerTest, NegativeAnswersCarryTheSoaWithTheNegativeTtl) {
  for (auto [name, rcode] : {std::pair{"nope.example.com", rcode::nxdomain},
                             {"www.example.com", rcode::noerror},
                             {"b.ent.example.com", rcode::noerror}}) {
    Answer a = ask_for(name, name == std::string("www.example.com") ? rr_type::aaaa : rr_type::a);
    EXPECT_EQ(a.rcode(), rcode) << name;
    ASSERT_EQ(a.message.authority.size(), 1u) << name;
    EXPECT_EQ(a.message.authority[0].type, rr_type::soa);
    EXPECT_EQ(a.message.authority[0].ttl, 300u) << "RFC 2308 §5: min(SOA TTL, MINIMUM)";
    EXPECT_TRUE(a.message.answers.empty());
  }
}

TEST_F(ServerTest, CnameChainsEndWithTheTargetsRcode) {
  Answer a = ask_for("chain.example.com", rr_type::a);
  EXPECT_EQ(owners_and_types(a.message.answers),
            (std::vector<std::string>{"chain.example.com. 5", "alias.example.com. 5",
                                      "www.example.com. 1", "www.example.com. 1"}));
  Answer d = ask_for("dangling.example.com", rr_type::a);
  EXPECT_EQ(d.rcode(), rcode::nxdomain) << "RFC 6604: the last name's rcode";
  EXPECT_EQ(d.message.answers.size(), 1u);
  Answer loop = ask_for("loop1.example.com", rr_type::a);
  EXPECT_EQ(loop.rcode(), rcode::noerror);
  EXPECT_EQ(loop.message.answers.size(), 2u) << "a loop stops where it repeats";
  Answer c = ask_for("alias.example.com", rr_type::cname);
  EXPECT_EQ(c.message.answers.size(), 1u) << "QTYPE CNAME is not followed";
}

TEST_F(ServerTest, WildcardsSynthesizeForTheNameAsked) {
  Answer a = ask_for("x.y.wild.example.com", rr_type::txt);
  ASSERT_EQ(a.message.answers.size(), 1u);
  EXPECT_EQ(a.message.answers[0].owner, wire("x.y.wild.example.com"));
  Answer none = ask_for("x.wild.example.com", rr_type::mx);
  EXPECT_EQ(none.rcode(), rcode::noerror);
  EXPECT_EQ(none.message.authority.size(), 1u) << "wildcard NODATA";
  Answer own = ask_for("*.wild.example.com", rr_type::a);
  EXPECT_EQ(own.message.answers.size(), 1u);
  // RFC 4592 §2.2.2: an existing name (here an empty non-terminal) blocks the wildcard above it.
  Answer blocked = ask_for("q.b.ent.example.com", rr_type::a);
  EXPECT_EQ(blocked.rcode(), rcode::nxdomain);
}

TEST_F(ServerTest, ReferralsCarryGlueAndNoAa) {
  Answer a = ask_for("x.y.sub.example.com", rr_type::a);
  EXPECT_EQ(a.rcode(), rcode::noerror);
  EXPECT_FALSE(a.flag(flag::aa));
  EXPECT_EQ(owners_and_types(a.message.authority),
            (std::vector<std::string>{"sub.example.com. 2", "sub.example.com. 2"}));
  EXPECT_EQ(owners_and_types(a.message.additional),
            (std::vector<std::string>{"ns.sub.example.com. 1"}));
  // RFC 4035 §3.1.4.1: DS at the cut is the parent's, answered authoritatively.
  Answer ds = ask_for("sub.example.com", rr_type::ds);
  EXPECT_TRUE(ds.flag(flag::aa));
  EXPECT_EQ(owners_and_types(ds.message.answers),
            (std::vector<std::string>{"sub.example.com. 43"}));
  // Glue is only served in referrals.
  EXPECT_FALSE(ask_for("ns.sub.example.com", rr_type::a).flag(flag::aa));
}

TEST_F(ServerTest, DnameSynthesizesACname) {
  Answer a = ask_for("a.b.dn.example.com", rr_type::a);
  ASSERT_EQ(a.message.answers.size(), 2u);
  EXPECT_EQ(a.message.answers[0].type, rr_type::dname);
  EXPECT_EQ(a.message.answers[1].type, rr_type::cname);
  EXPECT_EQ(a.message.answers[1].rdata, wire("a.b.example.net"));
  EXPECT_EQ(a.message.answers[1].ttl, 3600u) << "the DNAME's TTL";
}

TEST_F(ServerTest, RefusesOutsideItsZonesAndOtherClasses) {
  Answer a = ask_for("example.org", rr_type::a, {.flags = flag::rd});
  EXPECT_EQ(a.rcode(), rcode::refused);
  EXPECT_TRUE(a.flag(flag::rd));
  EXPECT_FALSE(a.flag(flag::aa));
  EXPECT_EQ(a.message.questions.size(), 1u);
  Answer hs = ask_for("www.example.com", rr_type::a, {.qclass = rr_class::hs});
  EXPECT_EQ(hs.rcode(), rcode::refused);
  EXPECT_TRUE(hs.message.questions.empty()) << "as NSD";
  Answer any = ask_for("nope.example.com", rr_type::a, {.qclass = rr_class::any});
  EXPECT_EQ(any.rcode(), rcode::nxdomain);
  EXPECT_FALSE(any.flag(flag::aa));
  EXPECT_TRUE(any.message.authority.empty()) << "class ANY: no SOA, no AA";
}

TEST_F(ServerTest, AnyGetsOneRrsetAsRfc8482Allows) {
  Answer a = ask_for("example.com", rr_type::any);
  EXPECT_EQ(owners_and_types(a.message.answers), (std::vector<std::string>{"example.com. 6"}))
      << "the first of A, AAAA, SOA, MX, PTR in zone order";
}

TEST_F(ServerTest, MalformedQueriesGetNsdsErrors) {
  std::vector<uint8_t> q = make_query("www.example.com", rr_type::a, {.flags = flag::rd});
  EXPECT_EQ(ask(*server, std::vector<uint8_t>(q.begin(), q.begin() + 11)).size, 0u)
      << "shorter than a header";
  std::vector<uint8_t> response = q;
  response[2] |= 0x80;
  EXPECT_EQ(ask(*server, response).size, 0u) << "a response is never answered";
  std::vector<uint8_t> cut(q.begin(), q.end() - 2);
  Answer f = ask(*server, cut);
  EXPECT_EQ(f.size, 12u);
  EXPECT_EQ(f.rcode(), rcode::formerr);
  EXPECT_TRUE(f.flag(flag::rd));
  std::vector<uint8_t> two = q;
  two[5] = 2;
  Answer t = ask(*server, two);
  EXPECT_EQ(t.rcode(), rcode::formerr);
  EXPECT_FALSE(t.flag(flag::rd)) << "QDCOUNT 2: every flag cleared";
  std::vector<uint8_t> update = q;
  update[2] = 5 << 3;
  Answer u = ask(*server, update);
  EXPECT_EQ(u.size, 12u);
  EXPECT_EQ(u.message.header.rcode(), rcode::notimp);
  std::vector<uint8_t> pointer = {0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xc0, 12, 0, 1, 0, 1};
  EXPECT_EQ(ask(*server, pointer).rcode(), rcode::formerr) << "no compression in the question";
}

TEST_F(ServerTest, EdnsPayloadBadversAndDo) {
  Answer a = ask_for("www.example.com", rr_type::a, {.edns = 4096, .dnssec_ok = true});
  ASSERT_EQ(a.message.additional.size(), 1u);
  const Record& opt = a.message.additional[0];
  EXPECT_EQ(opt.type, rr_type::opt);
  EXPECT_EQ(opt.rclass, default_edns_payload) << "our size, not theirs";
  EXPECT_EQ(opt.ttl, 0x8000u) << "DO copied (RFC 3225), version 0";
  Answer v = ask_for("www.example.com", rr_type::a, {.edns = 1232, .edns_version = 1});
  EXPECT_EQ(v.message.header.rcode(), 0);
  ASSERT_EQ(v.message.additional.size(), 1u);
  EXPECT_EQ(v.message.additional[0].ttl >> 24, 1u) << "extended RCODE 1: BADVERS (16)";
  EXPECT_TRUE(v.message.answers.empty());
}

TEST_F(ServerTest, TruncatesWholeRrsetsToTheSizeLimit) {
  std::string many;
  for (int i = 1; i <= 40; ++i) many += "many A 10.0.0." + std::to_string(i) + "\n";
  make(ServerOptions{}, many + "tomany CNAME many\n");
  Answer plain = ask_for("tomany.example.com", rr_type::a);
  EXPECT_LE(plain.size, 512u);
  EXPECT_TRUE(plain.flag(flag::tc));
  EXPECT_EQ(plain.message.answers.size(), 1u) << "the CNAME fits, the A RRset does not";
  Answer small = ask_for("many.example.com", rr_type::a, {.edns = 100});
  EXPECT_TRUE(small.flag(flag::tc)) << "a payload under 512 means 512";
  Answer big = ask_for("many.example.com", rr_type::a, {.edns = 1232});
  EXPECT_FALSE(big.flag(flag::tc));
  EXPECT_EQ(big.message.answers.size(), 40u);
}

TEST_F(ServerTest, PrerenderedAnswersEqualComputedOnes) {
  ServerOptions off;
  off.prerender = false;
  Server computed(catalog_from({zone_from_text("example.com", zone_text)}), off);
  EXPECT_GT(server->prerendered_answers(), 10u);
  const char* names[] = {"example.com",         "WWW.example.com",    "alias.example.com",
                         "sub.example.com",     "ns.sub.example.com", "mail.example.com",
                         "a.b.ent.example.com", "dn.example.com"};
  for (const char* name : names) {
    for (uint16_t type :
         {rr_type::a, rr_type::aaaa, rr_type::ns, rr_type::mx, rr_type::soa, rr_type::ds}) {
      for (int edns : {-1, 512, 1232}) {
        const auto q = make_query(name, type, {.flags = flag::rd, .edns = edns});
        EXPECT_EQ(ask(*server, q).bytes, ask(computed, q).bytes) << name << " " << type;
      }
    }
  }
  EXPECT_GT(server->stats().prerendered, 30u);
  EXPECT_EQ(computed.stats().prerendered, 0u);
}

// Answers too long for 512 octets (a referral with many name servers and
// their glue, a big RRset) are also pre-rendered the way a query without
// EDNS gets them: glue left out or TC set, byte for byte as computed.
TEST_F(ServerTest, PrerenderedAnswersWithoutEdnsEqualComputedOnes) {
  std::string extra;
  for (int i = 1; i <= 12; ++i) {
    const std::string ns = "ns" + std::to_string(i) + ".fat";
    extra += "fat NS " + ns + "\n" + ns + " A 10.1.0." + std::to_string(i) + "\n" + ns +
             " AAAA 2001:db8::" + std::to_string(i) + "\n";
  }
  for (int i = 1; i <= 40; ++i) extra += "many A 10.0.0." + std::to_string(i) + "\n";
  make(ServerOptions{}, extra);
  ServerOptions off;
  off.prerender = false;
  Server computed(catalog_from({zone_from_text("example.com", zone_text + extra)}), off);
  for (const char* name : {"fat.example.com", "NS3.fat.example.com", "many.example.com"}) {
    for (uint16_t type : {rr_type::a, rr_type::aaaa, rr_type::ns, rr_type::mx}) {
      for (int edns : {-1, 512, 1232}) {
        const auto q = make_query(name, type, {.edns = edns});
        EXPECT_EQ(ask(*server, q).bytes, ask(computed, q).bytes)
            << name << " " << type << " " << edns;
      }
    }
  }
  const uint64_t before = server->stats().prerendered;
  Answer referral = ask_for("ns1.fat.example.com", rr_type::a);
  EXPECT_LE(referral.size, 512u);
  EXPECT_EQ(referral.message.authority.size(), 12u);
  Answer big = ask_for("many.example.com", rr_type::a);
  EXPECT_TRUE(big.flag(flag::tc));
  EXPECT_EQ(server->stats().prerendered, before + 2) << "both from the pre-rendered answers";
}

// An RRset larger than our EDNS payload (a big apex TXT set, many AAAA) has
// no pre-rendered answer; the query must take the normal path and get TC with
// an empty answer (RFC 2181 §9, as NSD), never the "other types" NODATA a
// resolver would cache as a denial.
TEST_F(ServerTest, RrsetsLargerThanThePayloadAreTruncatedNotDenied) {
  std::string extra;
  for (int i = 0; i < 10; ++i) extra += "@ TXT \"" + std::string(200, char('a' + i)) + "\"\n";
  for (int i = 1; i <= 60; ++i) extra += "v6 AAAA 2001:db8:6::" + std::to_string(i) + "\n";
  make(ServerOptions{}, extra);
  ServerOptions off;
  off.prerender = false;
  Server computed(catalog_from({zone_from_text("example.com", zone_text + extra)}), off);
  const std::pair<const char*, uint16_t> big[] = {{"example.com", rr_type::txt},
                                                  {"v6.Example.com", rr_type::aaaa}};
  for (auto [name, type] : big) {
    for (int edns : {-1, 512, 1232, 4096}) {
      for (bool dnssec_ok : {false, true}) {
        const auto q = make_query(name, type, {.edns = edns, .dnssec_ok = dnssec_ok});
        Answer a = ask(*server, q);
        EXPECT_EQ(a.bytes, ask(computed, q).bytes) << name << " " << edns;
        EXPECT_TRUE(a.flag(flag::tc)) << name << " " << edns;
        EXPECT_EQ(a.rcode(), rcode::noerror);
        EXPECT_TRUE(a.message.answers.empty() && a.message.authority.empty())
            << name << " " << edns << ": no SOA, nothing that reads as NODATA";
      }
    }
  }
  EXPECT_EQ(ask_for("v6.example.com", rr_type::mx, {.edns = 1232}).message.authority.size(), 1u)
      << "a type the name lacks still gets NODATA";
}

// Names below a cut that are not in the zone get the referral of their
// closest ancestor from the pre-rendered answers, pointers moved; the octets
// are the computed ones, and a referral naming a server below the cut that
// is not in the zone (no glue) is never shared.
TEST_F(ServerTest, PrerenderedReferralsServeNamesBelowTheCut) {
  std::string extra;
  for (int i = 1; i <= 12; ++i) {
    const std::string ns = "ns" + std::to_string(i) + ".fat";
    extra += "fat NS " + ns + "\n" + ns + " A 10.1.0." + std::to_string(i) + "\n";
  }
  extra += "noglue NS ns.x.noglue\nnoglue NS ns.other.net.\n";
  make(ServerOptions{}, extra);
  ServerOptions off;
  off.prerender = false;
  Server computed(catalog_from({zone_from_text("example.com", zone_text + extra)}), off);
  const char* names[] = {"www.fat.example.com",   "A.B.C.Fat.example.com",
                         "x.ns3.fat.example.com", "y.x.noglue.example.com",
                         "z.noglue.example.com",  "deep.x.y.ns.sub.example.com"};
  for (const char* name : names) {
    for (uint16_t type : {rr_type::a, rr_type::ds, rr_type::any, rr_type::mx}) {
      for (int edns : {-1, 1232}) {
        const auto q = make_query(name, type, {.edns = edns});
        EXPECT_EQ(ask(*server, q).bytes, ask(computed, q).bytes)
            << name << " " << type << " " << edns;
      }
    }
  }
  uint64_t before = server->stats().prerendered;
  Answer referral = ask_for("www.FAT.example.com", rr_type::a, {.edns = 1232});
  EXPECT_EQ(referral.message.authority.size(), 12u);
  EXPECT_EQ(referral.message.additional.size(), 13u) << "the glue and the OPT";
  EXPECT_EQ(server->stats().prerendered, before + 1);
  before = server->stats().prerendered;
  ask_for("y.x.noglue.example.com", rr_type::a);
  EXPECT_EQ(server->stats().prerendered, before) << "ns.x.noglue is below the cut and not a node";
}

TEST_F(ServerTest, CountsByRcodeAndType) {
  ask_for("www.example.com", rr_type::a);
  ask_for("nope.example.com", rr_type::aaaa);
  ask_for("example.org", rr_type::mx);
  ask(*server, std::vector<uint8_t>(5, 0));
  const ServerStats& s = server->stats();
  EXPECT_EQ(s.queries, 4u);
  EXPECT_EQ(s.dropped, 1u);
  EXPECT_EQ(s.by_rcode[rcode::noerror], 1u);
  EXPECT_EQ(s.by_rcode[rcode::nxdomain], 1u);
  EXPECT_EQ(s.by_rcode[rcode::refused], 1u);
  EXPECT_EQ(s.qtype_count(rr_type::aaaa), 1u);
  EXPECT_EQ(s.qtype_count(rr_type::caa), 0u);
}

uint64_t fake_now = 0;
uint64_t fake_clock() { return fake_now; }

TEST_F(ServerTest, RateLimitsPerPrefixAndSlips) {
  ServerOptions options;
  options.rate_limit.responses_per_second = 5;
  options.rate_limit.slip = 2;
  options.clock_ms = fake_clock;
  make(options);
  const auto q = make_query("www.example.com", rr_type::a);
  int sent = 0, slipped = 0, dropped = 0;
  for (int i = 0; i < 20; ++i) {
    Answer a =
        ask(*server, q, 65535, ClientAddress::ipv4(0xc0000200 + uint32_t(i % 7), 53));  // one /24
    if (a.size == 0)
      ++dropped;
    else if (a.flag(flag::tc) && a.message.answers.empty())
      ++slipped;
    else
      ++sent;
  }
  EXPECT_EQ(sent, 5);
  EXPECT_EQ(slipped, 7);
  EXPECT_EQ(dropped, 8);
  EXPECT_GT(ask(*server, q, 65535, ClientAddress::ipv4(0xc0000300, 53)).message.answers.size(), 0u)
      << "another /24 has its own budget";
  fake_now += 1000;
  EXPECT_FALSE(ask(*server, q, 65535, ClientAddress::ipv4(0xc0000201, 53)).flag(flag::tc))
      << "refilled";
  EXPECT_EQ(server->stats().rate_limited_dropped, 8u);
}

}  // namespace
}  // namespace keel::dns::test

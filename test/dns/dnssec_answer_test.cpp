// Answers from signed zones (RFC 4035 §3.1, RFC 5155 §7.2): the zones in
// zones/signed were signed by ldns-signzone (NSEC) and Knot (NSEC3) from
// unsigned.zone. test_dnssec.py checks the same against NSD and a validator.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "keel/dns/constants.hpp"
#include "keel/dns/rdata.hpp"
#include "test_support.hpp"
#include "wire/bytes.hpp"

namespace keel::dns::test {
namespace {

const std::string folder = std::string(KEEL_DNS_CORPUS) + "/signed/";

std::string file_text(const std::string& name) {
  std::ifstream in(folder + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::unique_ptr<Server> server_for(const std::string& text, bool prerender = true) {
  ServerOptions options;
  options.prerender = prerender;
  return std::make_unique<Server>(catalog_from({zone_from_text("signed.test", text)}), options);
}

Answer ask_do(Server& s, const std::string& name, uint16_t type, bool dnssec_ok = true,
              int edns = 1232) {
  QueryOptions o;
  o.edns = edns;
  o.dnssec_ok = dnssec_ok;
  return ask(s, make_query(name, type, o));
}

std::vector<std::string> types_in(const std::vector<Record>& section) {
  std::vector<std::string> out;
  for (const Record& r : section) out.push_back(type_name(r.type));
  return out;
}

const std::pair<std::string, uint16_t> queries[] = {
    {"www.signed.test", rr_type::a},    {"www.signed.test", rr_type::txt},
    {"nope.signed.test", rr_type::a},   {"x.wild.signed.test", rr_type::txt},
    {"x.wild.signed.test", rr_type::a}, {"c.signed.test", rr_type::a},
    {"a.b.c.signed.test", rr_type::a},  {"foo.sub.signed.test", rr_type::a},
    {"sub.signed.test", rr_type::ds},   {"secure.signed.test", rr_type::ds},
    {"alias.signed.test", rr_type::a},  {"signed.test", rr_type::mx},
    {"signed.test", rr_type::ns},       {"signed.test", rr_type::soa},
    {"signed.test", rr_type::any},      {"ns.sub.signed.test", rr_type::a},
    {"zzz.signed.test", rr_type::aaaa}, {"signed.test", rr_type::ds},
};

// Without DO a signed zone answers as its unsigned source does, octet for octet
// (the SOA serial aside, which Knot raised when it signed).
TEST(DnssecAnswers, WithoutDoTheSignedZoneAnswersAsTheUnsignedOne) {
  for (const char* signed_file : {"nsec.zone", "nsec3.zone"}) {
    std::string source = file_text("unsigned.zone");
    if (std::string(signed_file) == "nsec3.zone")
      source.replace(source.find("2026112701"), 10, "2026112702");
    auto plain = server_for(source);
    auto zone = server_for(file_text(signed_file));
    for (const auto& [name, type] : queries) {
      for (int edns : {-1, 1232}) {
        const Answer a = ask_do(*plain, name, type, false, edns);
        const Answer b = ask_do(*zone, name, type, false, edns);
        EXPECT_EQ(a.bytes, b.bytes) << signed_file << " " << name << " " << type << " " << edns;
      }
    }
  }
}

TEST(DnssecAnswers, EachRrsetCarriesItsSignatures) {
  for (const char* file : {"nsec.zone", "nsec3.zone"}) {
    auto s = server_for(file_text(file));
    Answer a = ask_do(*s, "www.signed.test", rr_type::a);
    EXPECT_EQ(types_in(a.message.answers), (std::vector<std::string>{"A", "RRSIG"})) << file;
    EXPECT_EQ(load16(a.message.answers[1].rdata, 0), rr_type::a);
    EXPECT_TRUE(a.flag(flag::aa));
    a = ask_do(*s, "alias.signed.test", rr_type::a);  // a CNAME and its target, each signed
    EXPECT_EQ(types_in(a.message.answers),
              (std::vector<std::string>{"CNAME", "RRSIG", "A", "RRSIG"}));
    // Wildcard: the RRSIG's labels field (2 below the name) tells the expansion.
    a = ask_do(*s, "x.wild.signed.test", rr_type::txt);
    ASSERT_EQ(types_in(a.message.answers), (std::vector<std::string>{"TXT", "RRSIG"}));
    EXPECT_EQ(uint8_t(a.message.answers[1].rdata[3]), 3);
    EXPECT_EQ(a.message.answers[1].owner, wire("x.wild.signed.test"));
    EXPECT_FALSE(a.message.authority.empty()) << "the proof that x.wild does not exist";
  }
}

TEST(DnssecAnswers, NsecDenials) {
  auto s = server_for(file_text("nsec.zone"));
  // RFC 4035 §3.1.3.2: the NSEC covering the name and the one covering *.signed.test
  // (before the SOA, in NSD's order).
  Answer a = ask_do(*s, "nope.signed.test", rr_type::a);
  EXPECT_EQ(a.rcode(), rcode::nxdomain);
  EXPECT_EQ(
      owners_and_types(a.message.authority),
      (std::vector<std::string>{"mail.signed.test. 47", "mail.signed.test. 46", "signed.test. 47",
                                "signed.test. 46", "signed.test. 6", "signed.test. 46"}));
  // §3.1.3.1 NODATA: the name's own NSEC; an empty non-terminal's predecessor.
  a = ask_do(*s, "www.signed.test", rr_type::txt);
  EXPECT_EQ(types_in(a.message.authority),
            (std::vector<std::string>{"SOA", "RRSIG", "NSEC", "RRSIG"}));
  EXPECT_EQ(a.message.authority[2].owner, wire("www.signed.test"));
  a = ask_do(*s, "c.signed.test", rr_type::a);
  EXPECT_EQ(a.message.authority[2].owner, wire("alias.signed.test"));
  // §3.1.4: a delegation without DS proves it with the NSEC at the cut; with DS, the DS.
  a = ask_do(*s, "foo.sub.signed.test", rr_type::a);
  EXPECT_EQ(owners_and_types(a.message.authority),
            (std::vector<std::string>{"sub.signed.test. 2", "sub.signed.test. 47",
                                      "sub.signed.test. 46"}));
  a = ask_do(*s, "foo.secure.signed.test", rr_type::a);
  EXPECT_EQ(types_in(a.message.authority), (std::vector<std::string>{"NS", "DS", "RRSIG"}));
}

TEST(DnssecAnswers, Nsec3Denials) {
  auto s = server_for(file_text("nsec3.zone"));
  // RFC 5155 §7.2.2: closest encloser, next closer and wildcard: three NSEC3s.
  Answer a = ask_do(*s, "nope.signed.test", rr_type::a);
  EXPECT_EQ(a.rcode(), rcode::nxdomain);
  EXPECT_EQ(types_in(a.message.authority),
            (std::vector<std::string>{"NSEC3", "RRSIG", "NSEC3", "RRSIG", "NSEC3", "RRSIG", "SOA",
                                      "RRSIG"}));
  // §7.2.3: the matching NSEC3 (www's hash).
  a = ask_do(*s, "www.signed.test", rr_type::txt);
  ASSERT_EQ(types_in(a.message.authority),
            (std::vector<std::string>{"SOA", "RRSIG", "NSEC3", "RRSIG"}));
  EXPECT_EQ(lowercase_name(a.message.authority[2].owner),
            wire("s3g9f649hs3fau0sq4leavcr1m8dipuo.signed.test"));
  // A hashed owner name is no name of the zone (NSD): NXDOMAIN, also without DO.
  a = ask_do(*s, "s3g9f649hs3fau0sq4leavcr1m8dipuo.signed.test", rr_type::nsec3, false);
  EXPECT_EQ(a.rcode(), rcode::nxdomain);
  // §7.2.7: an insecure delegation's matching NSEC3 (NS, no DS).
  a = ask_do(*s, "foo.sub.signed.test", rr_type::a);
  EXPECT_EQ(types_in(a.message.authority), (std::vector<std::string>{"NS", "NSEC3", "RRSIG"}));
}

TEST(DnssecAnswers, ASignedAnswerThatDoesNotFitIsTruncated) {
  // The NSEC3 NXDOMAIN is over 512 octets with its signatures: TC, as RFC 2181 §9.
  auto s = server_for(file_text("nsec3.zone"));
  const Answer a = ask_do(*s, "nope.signed.test", rr_type::a, true, 512);
  EXPECT_TRUE(a.flag(flag::tc));
  EXPECT_LE(a.size, 512u);
  const Answer whole = ask_do(*s, "nope.signed.test", rr_type::a, true, 4096);
  EXPECT_FALSE(whole.flag(flag::tc));
  EXPECT_GT(whole.size, 512u);
}

TEST(DnssecAnswers, PrerenderedAndComputedAgree) {
  for (const char* file : {"nsec.zone", "nsec3.zone"}) {
    auto computed = server_for(file_text(file), false);
    auto prerendered = server_for(file_text(file), true);
    for (const auto& [name, type] : queries) {
      for (bool dnssec_ok : {false, true}) {
        EXPECT_EQ(ask_do(*computed, name, type, dnssec_ok).bytes,
                  ask_do(*prerendered, name, type, dnssec_ok).bytes)
            << file << " " << name << " " << type << " DO " << dnssec_ok;
      }
    }
  }
}

}  // namespace
}  // namespace keel::dns::test

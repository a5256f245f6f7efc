// TSIG (RFC 8945) in Server::answer: requests signed by dig (bytes captured
// from `dig -y`, so the MAC is BIND's, not ours) accepted; BADKEY, BADSIG,
// BADTIME, BADTRUNC, a wrong algorithm, a malformed record and a TSIG that is
// not last answered as §5.2 and NSD say; keys read as dig -y writes them;
// the transfer access list's keyed entries.
#include "answer/tsig.hpp"

#include <gtest/gtest.h>

#include "keel/dns/server.hpp"
#include "keel/dns/tsig.hpp"
#include "test_support.hpp"

namespace keel::dns::test {
namespace {

// base64 of "keel-tsig-test-secret-32-octets!"
constexpr const char* secret = "a2VlbC10c2lnLXRlc3Qtc2VjcmV0LTMyLW9jdGV0cyE=";
// `dig -y hmac-sha256:xfr-key:SECRET example.com SOA +edns=0`, as sent
// (OPT, then TSIG; Time Signed 0x6b08faeb).
constexpr const char* dig_sha256 =
    "414601200001000000000002076578616d706c6503636f6d000006000100002904d000000000000c000a000815c3"
    "fb9d0e81ce9d077866722d6b65790000fa00ff00000000003d0b686d61632d7368613235360000006b08faeb012c"
    "00208b871fad619213eeb822cf40d5261b959f7ac8f11f6f6c26cfa377ccb7a9ab52414600000000";
constexpr const char* dig_sha512 =
    "724a01200001000000000002076578616d706c6503636f6d000006000100002904d000000000000c000a000882f5"
    "626f0d0fdcd4077866722d6b65790000fa00ff00000000005d0b686d61632d7368613531320000006b08faeb012c"
    "0040b8553757b6a7b8c64e78e67866f23056fa2cb85610cb7d825a06ce21d6b33976e32454b7831c3004036c91a3"
    "bde31fb76e5144770fb58646dc378d562e12adf5724a00000000";
// hmac-sha1 with +noedns: the TSIG is the only additional record.
constexpr const char* dig_sha1 =
    "b27101200001000000000001076578616d706c6503636f6d0000060001077866722d6b65790000fa00ff00000000"
    "002f09686d61632d736861310000006b08faeb012c0014e5a84049a750e76350773e22c2e8200849c6bb6eb27100"
    "000000";
constexpr uint64_t dig_time = 0x6b08faeb;

uint64_t clock_value = dig_time;
uint64_t test_clock() { return clock_value; }

std::vector<uint8_t> from_hex(const char* hex) {
  std::vector<uint8_t> out;
  for (const char* p = hex; p[0] && p[1]; p += 2)
    out.push_back(uint8_t(std::stoi(std::string(p, 2), nullptr, 16)));
  return out;
}

const char* zone_text = R"(
$TTL 3600
@       SOA ns1 hostmaster 7 7200 3600 1209600 300
        NS  ns1
ns1     A   192.0.2.53
www     A   192.0.2.10
)";

std::unique_ptr<Server> server_with(std::vector<TsigKey> keys) {
  ServerOptions o;
  o.tsig_keys = std::move(keys);
  o.clock_unix_s = test_clock;
  return std::make_unique<Server>(catalog_from({zone_from_text("example.com", zone_text)}), o);
}

struct Reply {
  std::vector<uint8_t> bytes;
  uint16_t rcode() const { return bytes[3] & 0xf; }
  uint16_t arcount() const { return uint16_t(bytes[10] << 8 | bytes[11]); }
  // The last record's TSIG fields, if it is one.
  TsigRecord tsig() const {
    const std::string_view m(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    TsigRecord t;
    // The TSIG is last: find the offset at which read_tsig reads to the end.
    for (std::size_t pos = header_size; pos < m.size(); ++pos)
      if (read_tsig(m, pos, t) == m.size() && t.key_name.size() > 1) return t;
    ADD_FAILURE() << "no TSIG record in the reply";
    return t;
  }
};

Reply ask(Server& s, std::vector<uint8_t> query, Transport transport = Transport::udp) {
  std::vector<uint8_t> out(max_message_size);
  const std::size_t n =
      s.answer(query, ClientAddress::ipv4(0x7f000001, 5353), out, transport, nullptr);
  out.resize(n);
  return {out};
}

const std::string key_name = "\7xfr-key";

TEST(DnsTsig, ParsesKeysAsDigWritesThem) {
  TsigKey k = key_of(std::string("hmac-sha256:XFR-Key.:") + secret);
  EXPECT_EQ(k.name, std::string("\7xfr-key\0", 9));
  EXPECT_EQ(k.algorithm, TsigAlgorithm::hmac_sha256);
  EXPECT_EQ(std::string(k.secret.begin(), k.secret.end()), "keel-tsig-test-secret-32-octets!");
  EXPECT_EQ(key_of("hmac-sha1:a:YWI=").secret.size(), 2u);  // one '=' of padding
  EXPECT_EQ(key_of("hmac-sha512:a:YQ==").secret.size(), 1u);
  TsigKey bad;
  EXPECT_NE(parse_tsig_key("hmac-md5:a:YQ==", bad), "");
  EXPECT_NE(parse_tsig_key("hmac-sha256:a:YQ=", bad), "");  // not a multiple of 4
  EXPECT_NE(parse_tsig_key("hmac-sha256:a:Y!==", bad), "");
  EXPECT_NE(parse_tsig_key("hmac-sha256::YQ==", bad), "");
  EXPECT_NE(parse_tsig_key("hmac-sha256:a", bad), "");
  EXPECT_NE(parse_tsig_key("hmac-sha256:a..b:YQ==", bad), "");
}

TEST(DnsTsig, DigSignedRequestsAreAnsweredSigned) {
  clock_value = dig_time;
  for (const auto& [alg, hex] : {std::pair{"hmac-sha256", dig_sha256},
                                 {"hmac-sha512", dig_sha512},
                                 {"hmac-sha1", dig_sha1}}) {
    auto s = server_with({key_of(std::string(alg) + ":xfr-key:" + secret)});
    const Reply r = ask(*s, from_hex(hex));
    ASSERT_GT(r.bytes.size(), header_size) << alg;
    EXPECT_EQ(r.rcode(), rcode::noerror) << alg;
    const TsigRecord t = r.tsig();
    EXPECT_EQ(t.error, 0) << alg;
    EXPECT_EQ(t.time_signed, dig_time) << alg;
    EXPECT_EQ(t.mac.size(), std::string_view(alg) == "hmac-sha1"     ? 20u
                            : std::string_view(alg) == "hmac-sha512" ? 64u
                                                                     : 32u)
        << alg;
    EXPECT_EQ(s->stats().tsig_signed, 1u);
  }
}

TEST(DnsTsig, UnknownKeyIsBadKey) {
  auto s = server_with({key_of(std::string("hmac-sha256:other-key:") + secret)});
  const Reply r = ask(*s, from_hex(dig_sha256));
  EXPECT_EQ(r.rcode(), rcode::notauth);
  const TsigRecord t = r.tsig();
  EXPECT_EQ(t.error, tsig_error::badkey);
  EXPECT_EQ(t.mac.size(), 0u);  // §5.3.2: unsigned
  EXPECT_EQ(s->stats().tsig_refused, 1u);
}

TEST(DnsTsig, WrongAlgorithmIsBadKey) {
  // The key's name is known, under another algorithm (§5.2.1).
  auto s = server_with({key_of(std::string("hmac-sha512:xfr-key:") + secret)});
  const Reply r = ask(*s, from_hex(dig_sha256));
  EXPECT_EQ(r.rcode(), rcode::notauth);
  EXPECT_EQ(r.tsig().error, tsig_error::badkey);
}

TEST(DnsTsig, WrongSecretOrChangedMessageIsBadSig) {
  auto s = server_with({key_of("hmac-sha256:xfr-key:YWJjZA==")});
  Reply r = ask(*s, from_hex(dig_sha256));
  EXPECT_EQ(r.rcode(), rcode::notauth);
  EXPECT_EQ(r.tsig().error, tsig_error::badsig);
  EXPECT_EQ(r.tsig().mac.size(), 0u);
  auto good = server_with({key_of(std::string("hmac-sha256:xfr-key:") + secret)});
  std::vector<uint8_t> changed = from_hex(dig_sha256);
  changed[3] ^= 0x10;  // CD flipped after signing
  r = ask(*good, changed);
  EXPECT_EQ(r.rcode(), rcode::notauth);
  EXPECT_EQ(r.tsig().error, tsig_error::badsig);
}

TEST(DnsTsig, TimeOutsideTheFudgeIsBadTimeSigned) {
  auto s = server_with({key_of(std::string("hmac-sha256:xfr-key:") + secret)});
  clock_value = dig_time + 301;  // dig's fudge is 300 s
  const Reply r = ask(*s, from_hex(dig_sha256));
  clock_value = dig_time;
  EXPECT_EQ(r.rcode(), rcode::notauth);
  const TsigRecord t = r.tsig();
  EXPECT_EQ(t.error, tsig_error::badtime);
  EXPECT_EQ(t.mac.size(), 32u);        // signed (§5.2.3)
  EXPECT_EQ(t.time_signed, dig_time);  // the request's time...
  ASSERT_EQ(t.other.size(), 6u);       // ...and ours in Other Data
  EXPECT_EQ(uint8_t(t.other[5]), uint8_t(dig_time + 301));
  clock_value = dig_time - 300;  // within the fudge, the other way
  EXPECT_EQ(ask(*s, from_hex(dig_sha256)).rcode(), rcode::noerror);
  clock_value = dig_time;
}

TEST(DnsTsig, TruncatedMacIsRefused) {
  auto s = server_with({key_of(std::string("hmac-sha256:xfr-key:") + secret)});
  // MAC size 16 instead of 32, the record shortened to match (§5.2.2.1).
  std::vector<uint8_t> q = from_hex(dig_sha256);
  const std::size_t mac_size_at = q.size() - 6 - 32 - 2;
  ASSERT_EQ(q[mac_size_at + 1], 32);
  q[mac_size_at + 1] = 16;
  q.erase(q.begin() + long(mac_size_at + 2 + 16), q.begin() + long(mac_size_at + 2 + 32));
  const std::size_t rdlength_at = mac_size_at - 6 - 2 - 13 - 2;
  q[rdlength_at + 1] = uint8_t(q[rdlength_at + 1] - 16);
  const Reply r = ask(*s, q);
  EXPECT_EQ(r.rcode(), rcode::notauth);
  EXPECT_EQ(r.tsig().error, tsig_error::badtrunc);
}

TEST(DnsTsig, MalformedOrMisplacedTsigIsFormErr) {
  auto s = server_with({key_of(std::string("hmac-sha256:xfr-key:") + secret)});
  std::vector<uint8_t> q = from_hex(dig_sha1);
  q.resize(q.size() - 3);  // the record cut short
  EXPECT_EQ(ask(*s, q).rcode(), rcode::formerr);
  // TSIG first, OPT after it: not last (§5.1).
  std::vector<uint8_t> swapped = from_hex(dig_sha1);
  swapped[11] = 2;
  const uint8_t opt[] = {0, 0, 41, 4, 208, 0, 0, 0, 0, 0, 0};
  swapped.insert(swapped.end(), opt, opt + sizeof opt);
  EXPECT_EQ(ask(*s, swapped).rcode(), rcode::formerr);
  // TTL not 0.
  std::vector<uint8_t> ttl = from_hex(dig_sha1);
  const std::size_t tsig_at = 12 + 13 + 4;  // header, example.com., type, class
  ttl[tsig_at + 9 + 4 + 3] = 1;             // owner (9), type, class, TTL's last octet
  EXPECT_EQ(ask(*s, ttl).rcode(), rcode::formerr);
}

TEST(DnsTsig, KeyedTransferAclNeedsThatKey) {
  TransferAcl acl;
  AddressPrefix p;
  ASSERT_TRUE(parse_prefix("10.0.0.0/8", p));
  acl.allow_keyed.push_back({p, std::string("\7xfr-key\0", 9)});
  const ClientAddress inside = ClientAddress::ipv4(0x0a000001, 1);
  EXPECT_TRUE(acl.allows(inside, std::string_view("\7xfr-key\0", 9)));
  EXPECT_FALSE(acl.allows(inside));  // unsigned
  EXPECT_FALSE(acl.allows(inside, std::string_view("\5other\0", 7)));
  EXPECT_FALSE(acl.allows(ClientAddress::ipv4(0x0b000001, 1), std::string_view("\7xfr-key\0", 9)));
  acl.allow.push_back(p);  // NOKEY: unsigned requests only, as NSD
  EXPECT_TRUE(acl.allows(inside));
}

}  // namespace
}  // namespace keel::dns::test

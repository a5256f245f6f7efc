// The secondary role in lib/dns, but for transfers (xfr_in_test.cpp):
// settings, serial arithmetic (RFC 1982), the refresh/retry/expire timers,
// NOTIFY as NSD answers it, and SERVFAIL for a zone without a copy.
#include "keel/dns/secondary.hpp"

#include <gtest/gtest.h>

#include "keel/dns/notify.hpp"
#include "keel/dns/xfr_in.hpp"
#include "secondary_support.hpp"

namespace keel::dns::test {
namespace {

TEST(Secondary, Settings) {
  SecondaryZone z;
  EXPECT_EQ(parse_secondary("Example.COM:10.0.0.1", z), "");
  EXPECT_EQ(z.origin, wire("example.com"));
  EXPECT_EQ(z.primary.port, 53);
  EXPECT_EQ(z.primary.bytes[0], 10);
  EXPECT_EQ(z.key, "");
  EXPECT_EQ(parse_secondary("example.com.:192.0.2.7#5301@xfr-key", z), "");
  EXPECT_EQ(z.primary.port, 5301);
  EXPECT_EQ(z.key, wire("xfr-key"));
  EXPECT_EQ(parse_secondary("example.com", z), "'example.com' is not ZONE:ADDRESS[#PORT][@KEY]");
  EXPECT_EQ(parse_secondary("example.com:10.0.0", z), "'10.0.0' is not an IPv4 address");
  EXPECT_EQ(parse_secondary("example.com:10.0.0.0/8", z), "'10.0.0.0/8' is not an IPv4 address");
  EXPECT_EQ(parse_secondary("example.com:10.0.0.1#0", z), "'0' is not a port");
  EXPECT_EQ(parse_secondary("example.com:10.0.0.1#65536", z), "'65536' is not a port");
  EXPECT_EQ(parse_secondary("a..b:10.0.0.1", z), "'a..b' is not a zone name");
  EXPECT_EQ(parse_secondary("a.b:10.0.0.1@", z), "'' is not a key name");
}

TEST(Secondary, SerialArithmeticRfc1982) {
  EXPECT_TRUE(serial_greater(8, 7));
  EXPECT_FALSE(serial_greater(7, 7));
  EXPECT_FALSE(serial_greater(7, 8));
  EXPECT_TRUE(serial_greater(1, 0xffffffffu));  // wraps
  EXPECT_TRUE(serial_greater(0x7fffffffu, 0));
  EXPECT_FALSE(serial_greater(0x80000000u, 0));  // undefined distance: not greater
}

TEST(Secondary, Timers) {
  SecondaryTimers t(1000);
  EXPECT_EQ(t.state(1000), SecondaryTimers::State::empty);
  EXPECT_EQ(t.due_at(), 1000u);
  t.on_failed(1000);  // never loaded: 2 s, 4 s, ... at most 300 s
  EXPECT_EQ(t.due_at(), 3000u);
  t.on_failed(3000);
  EXPECT_EQ(t.due_at(), 7000u);
  for (int i = 0; i < 20; ++i) t.on_failed(10'000);
  EXPECT_EQ(t.due_at(), 310'000u);
  const Soa soa{7, 60, 30, 600, 300};  // refresh 60 s, retry 30 s, expire 600 s
  t.on_loaded(soa, 100'000);
  EXPECT_EQ(t.serial(), 7u);
  EXPECT_EQ(t.due_at(), 160'000u);
  t.on_failed(160'000);
  EXPECT_EQ(t.due_at(), 190'000u);
  EXPECT_FALSE(t.expired(699'999));
  EXPECT_TRUE(t.expired(700'000));  // expire counts from the last good refresh
  EXPECT_EQ(t.state(700'000), SecondaryTimers::State::expired);
  t.on_up_to_date(700'000);
  EXPECT_EQ(t.state(700'000), SecondaryTimers::State::loaded);
  t.on_notify(700'001);
  EXPECT_EQ(t.due_at(), 700'001u);
}

TEST(Secondary, ReadSoa) {
  const auto zone = zone_from_text("example.com", v1);
  const auto soa = read_soa(zone.records[0].rdata);
  ASSERT_TRUE(soa);
  EXPECT_EQ(soa->serial, 7u);
  EXPECT_EQ(soa->refresh, 7200u);
  EXPECT_EQ(soa->expire, 1209600u);
  EXPECT_FALSE(read_soa(zone.records[0].rdata.substr(1)));
}

std::vector<uint8_t> notify_of(const std::string& zone, TsigClient* signer = nullptr) {
  std::vector<uint8_t> q(max_message_size);
  q.resize(write_xfr_query(q, 99, wire(zone), rr_type::soa, {}, nullptr, now_s));
  q[2] = uint8_t(opcode::notify << 3);  // OPCODE NOTIFY, AA clear
  if (signer) {
    q.resize(max_message_size);
    const std::size_t plain = 12 + wire(zone).size() + 4;
    q.resize(signer->sign_request(q.data(), plain, q.size(), now_s));
  }
  return q;
}

NotifyOutcome notify(const std::vector<uint8_t>& q, const ClientAddress& from,
                     const std::vector<SecondaryZone>& zones, std::vector<uint8_t>& out) {
  out.assign(max_message_size, 0);
  NotifyOutcome r = answer_notify(q, from, zones, {xfr_key}, now_s, out);
  out.resize(r.size);
  return r;
}

TEST(Secondary, NotifyAsNsdAnswersIt) {
  SecondaryZone z;
  ASSERT_EQ(parse_secondary("example.com:10.0.0.1", z), "");
  std::vector<uint8_t> out;
  NotifyOutcome r = notify(notify_of("Example.com"), primary, {z}, out);
  EXPECT_TRUE(r.handled);
  EXPECT_EQ(r.zone, 0);
  ASSERT_EQ(out.size(), 12u + 13 + 4);
  EXPECT_EQ(out[2], 0x80 | (opcode::notify << 3) | 0x04);  // QR, NOTIFY, AA
  EXPECT_EQ(out[3], 0);
  r = notify(notify_of("example.com"), stranger, {z}, out);
  EXPECT_EQ(r.rcode, rcode::refused);
  EXPECT_EQ(r.zone, -1);
  EXPECT_EQ(out.size(), 12u);  // header only, as NSD
  EXPECT_FALSE(notify(notify_of("example.org"), primary, {z}, out).handled);
  // A plain query is the server's.
  EXPECT_FALSE(notify(make_query("example.com", rr_type::soa), primary, {z}, out).handled);

  // Signed: an unknown key NOTAUTH with a BADKEY TSIG; the zone's key passes and is signed.
  TsigClient unknown(other_key);
  r = notify(notify_of("example.com", &unknown), primary, {z}, out);
  EXPECT_EQ(r.rcode, rcode::notauth);
  EXPECT_EQ(r.tsig_error, tsig_error::badkey);
  Message m;
  ASSERT_EQ(parse_message(std::string_view(reinterpret_cast<char*>(out.data()), out.size()), m),
            WireError::none);
  ASSERT_EQ(m.additional.size(), 1u);
  EXPECT_EQ(m.additional[0].type, rr_type::tsig);
  EXPECT_EQ(m.header.rcode(), rcode::notauth);
  TsigClient known(xfr_key);
  r = notify(notify_of("example.com", &known), primary, {z}, out);
  EXPECT_EQ(r.rcode, rcode::refused);  // the zone takes unsigned NOTIFY only (NOKEY)
  ASSERT_EQ(parse_secondary("example.com:10.0.0.1@xfr-key", z), "");
  TsigClient keyed(xfr_key);
  r = notify(notify_of("example.com", &keyed), primary, {z}, out);
  EXPECT_EQ(r.zone, 0);
  EXPECT_EQ(keyed.verify(std::string_view(reinterpret_cast<char*>(out.data()), out.size()), now_s),
            "");
  r = notify(notify_of("example.com"), primary, {z}, out);
  EXPECT_EQ(r.rcode, rcode::refused);  // the key is required
}

TEST(Secondary, ServfailWithoutACopy) {
  std::vector<uint8_t> out(max_message_size);
  const std::vector<UnavailableZone> never = {{wire("example.com"), false}};
  const std::vector<UnavailableZone> expired = {{wire("example.com"), true}};
  const std::vector<std::string> served = {wire("sub.example.com"), wire("example.net")};
  auto ask_with = [&](const std::vector<UnavailableZone>& zones, const std::vector<uint8_t>& q,
                      const std::vector<std::string>& s) {
    Message m;
    const std::size_t size = answer_unavailable(q, zones, s, 1232, out);
    if (size != 0) {
      EXPECT_EQ(parse_message(std::string_view(reinterpret_cast<char*>(out.data()), size), m),
                WireError::none);
    }
    return std::pair{size, m};
  };
  // NSD's answers: SERVFAIL, the question, no AA, an OPT of our size with EDE 14 or 24.
  auto [size, m] =
      ask_with(never, make_query("www.EXAMPLE.com", rr_type::a, {.edns = 4096}), served);
  ASSERT_GT(size, 0u);
  EXPECT_EQ(m.header.rcode(), rcode::servfail);
  EXPECT_EQ(m.header.flags & flag::aa, 0);
  EXPECT_EQ(m.questions.size(), 1u);
  ASSERT_EQ(m.additional.size(), 1u);
  EXPECT_EQ(m.additional[0].rclass, 1232);
  const std::string not_ready =
      std::string("\0\x0f\0\x23\0\x0e", 6) + "Zone is configured but not loaded";
  EXPECT_EQ(m.additional[0].rdata, not_ready);
  auto [expired_size, e] =
      ask_with(expired, make_query("example.com", rr_type::soa, {.edns = 1232}),
               {wire("example.com")});  // its old copy still in the catalog
  ASSERT_GT(expired_size, 0u);
  ASSERT_EQ(e.additional.size(), 1u);
  EXPECT_EQ(e.additional[0].rdata, std::string("\0\x0f\0\x12\0\x18", 6) + "Zone has expired");
  // No OPT without EDNS; names in a deeper served zone, or in no such zone, are not ours.
  EXPECT_EQ(
      ask_with(never, make_query("www.example.com", rr_type::a), served).second.additional.size(),
      0u);
  EXPECT_EQ(ask_with(never, make_query("www.sub.example.com", rr_type::a), served).first, 0u);
  EXPECT_EQ(ask_with(never, make_query("www.example.net", rr_type::a), served).first, 0u);
}

}  // namespace
}  // namespace keel::dns::test

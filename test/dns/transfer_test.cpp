// AXFR out (RFC 5936) and EDNS TCP keepalive (RFC 7828) in Server::answer:
// the message builder (SOA first and last, every record once, the question
// only in the first message, compression, zones bigger than one message),
// the access list and the error answers NSD gives.
#include "keel/dns/transfer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "keel/dns/server.hpp"
#include "test_support.hpp"

namespace keel::dns::test {
namespace {

const char* zone_text = R"(
$TTL 3600
@       SOA ns1 hostmaster 7 7200 3600 1209600 300
        NS  ns1
        MX  10 mail
ns1     A   192.0.2.53
mail    A   192.0.2.25
www     A   192.0.2.10
        AAAA 2001:db8::10
sub     NS  ns.sub
ns.sub  A   192.0.2.99
)";

const ClientAddress allowed = ClientAddress::ipv4(0x0a000001, 5353);   // 10.0.0.1
const ClientAddress stranger = ClientAddress::ipv4(0xc0000201, 5353);  // 192.0.2.1

ServerOptions options_allowing(const char* prefix) {
  ServerOptions o;
  AddressPrefix p;
  EXPECT_TRUE(parse_prefix(prefix, p)) << prefix;
  o.transfer.allow.push_back(p);
  o.tcp_idle_ms = 10'000;
  return o;
}

std::unique_ptr<Server> server_of(const std::string& text, const ServerOptions& o) {
  return std::make_unique<Server>(catalog_from({zone_from_text("example.com", text)}), o);
}

// Every message of a transfer, parsed.
struct Stream {
  std::vector<Message> messages;
  std::vector<std::size_t> sizes;
  std::vector<std::string> raw;
  std::size_t records() const {
    std::size_t n = 0;
    for (const Message& m : messages) n += m.answers.size();
    return n;
  }
  std::vector<Record> all() const {
    std::vector<Record> out;
    for (const Message& m : messages) out.insert(out.end(), m.answers.begin(), m.answers.end());
    return out;
  }
};

Stream transfer(Server& s, const std::vector<uint8_t>& query, ClientAddress client = allowed) {
  Stream stream;
  Transfer t;
  std::vector<uint8_t> buffer(max_message_size);
  std::size_t size = s.answer(query, client, buffer, Transport::tcp, &t);
  while (size != 0) {
    Message m;
    EXPECT_EQ(
        parse_message(std::string_view(reinterpret_cast<const char*>(buffer.data()), size), m),
        WireError::none);
    stream.messages.push_back(m);
    stream.sizes.push_back(size);
    stream.raw.emplace_back(reinterpret_cast<const char*>(buffer.data()), size);
    if (t.done()) break;
    size = t.next(buffer);
  }
  return stream;
}

std::set<std::string> record_set(const std::vector<Record>& records) {
  std::set<std::string> out;
  for (const Record& r : records)
    out.insert(lowercase_name(name_to_text(r.owner)) + " " + std::to_string(r.type) + " " +
               std::to_string(r.ttl) + " " + r.rdata);
  return out;
}

TEST(TransferTest, SoaFirstAndLastEveryRecordOnce) {
  auto s = server_of(zone_text, options_allowing("10.0.0.0/8"));
  const Stream x = transfer(*s, make_query("Example.COM", rr_type::axfr, {.id = 0x4242}));
  ASSERT_EQ(x.messages.size(), 1u);
  const Message& m = x.messages[0];
  EXPECT_EQ(m.header.id, 0x4242);
  EXPECT_EQ(m.header.rcode(), rcode::noerror);
  EXPECT_TRUE(m.header.flags & flag::aa);
  EXPECT_TRUE(m.header.flags & flag::qr);
  ASSERT_EQ(m.questions.size(), 1u);
  EXPECT_EQ(m.questions[0].name, wire("Example.COM"));  // the question as asked
  ASSERT_EQ(m.answers.size(), 10u);                     // 9 records and the SOA again
  EXPECT_EQ(m.answers.front().type, rr_type::soa);
  EXPECT_EQ(m.answers.back().type, rr_type::soa);
  EXPECT_EQ(m.answers.front().rdata, m.answers.back().rdata);
  // Glue below the cut is the zone's content too (RFC 5936 §3.1).
  std::vector<Record> middle(m.answers.begin() + 1, m.answers.end() - 1);
  std::set<std::string> types;
  for (const Record& r : middle) {
    EXPECT_NE(r.type, rr_type::soa);
    types.insert(lowercase_name(name_to_text(r.owner)) + " " + std::to_string(r.type));
  }
  EXPECT_EQ(types.size(), 8u);
  EXPECT_TRUE(types.count("ns.sub.example.com. 1"));
  EXPECT_EQ(s->stats().transfers, 1u);
}

TEST(TransferTest, ABigZoneSpansMessagesQuestionOnlyInTheFirst) {
  std::string text = zone_text;
  // ~200 KiB of records: more than three 64 KiB messages would hold.
  for (int i = 0; i < 3000; ++i)
    text += "host" + std::to_string(i) + " TXT \"" + std::string(60, char('a' + i % 26)) + "\"\n";
  auto s = server_of(text, options_allowing("10.0.0.1"));
  const Stream x = transfer(*s, make_query("example.com", rr_type::axfr, {.edns = 4096}));
  ASSERT_GT(x.messages.size(), 4u);
  std::size_t total = 0;
  for (std::size_t i = 0; i < x.messages.size(); ++i) {
    const Message& m = x.messages[i];
    EXPECT_EQ(m.header.id, 0x1234);
    EXPECT_TRUE(m.header.flags & flag::aa);
    EXPECT_EQ(m.questions.size(), i == 0 ? 1u : 0u) << i;
    EXPECT_EQ(m.additional.size(), i == 0 ? 1u : 0u) << i;  // the OPT, first message only
    EXPECT_LE(x.sizes[i], Transfer::fill_size) << i;
    EXPECT_GT(m.answers.size(), 0u);
    total += x.sizes[i];
  }
  EXPECT_GT(total, 200'000u);
  const std::vector<Record> all = x.all();
  EXPECT_EQ(all.size(), 3000u + 10u);
  EXPECT_EQ(all.front().type, rr_type::soa);
  EXPECT_EQ(all.back().type, rr_type::soa);
  for (std::size_t i = 1; i + 1 < all.size(); ++i) EXPECT_NE(all[i].type, rr_type::soa) << i;
  EXPECT_EQ(record_set(all).size(), 3000u + 9u);  // each record once (the SOA twice)
}

TEST(TransferTest, NamesAreCompressed) {
  std::string text = zone_text;
  for (int i = 0; i < 400; ++i)
    text +=
        "a-rather-long-label-" + std::to_string(i) + " A 192.0.2." + std::to_string(i % 250) + "\n";
  auto s = server_of(text, options_allowing("10.0.0.1/32"));
  const Stream x = transfer(*s, make_query("example.com", rr_type::axfr));
  // The zone's name is written out once per message (in the question or
  // the first owner); every other owner ends in a pointer to it.
  const std::string apex = wire("example.com");
  for (std::size_t i = 0; i < x.raw.size(); ++i) {
    std::size_t copies = 0;
    for (std::size_t at = x.raw[i].find(apex); at != std::string::npos;
         at = x.raw[i].find(apex, at + 1))
      ++copies;
    EXPECT_EQ(copies, 1u) << "message " << i;
  }
  std::size_t uncompressed = 0, sent = 0;
  for (const Record& r : x.all()) uncompressed += r.owner.size() + 10 + r.rdata.size();
  for (std::size_t size : x.sizes) sent += size;
  EXPECT_LT(sent * 100, uncompressed * 85) << sent << " of " << uncompressed;
}

TEST(TransferTest, ARecordBiggerThanTheFillSizeGetsItsOwnMessage) {
  std::string text = zone_text;
  text += "big TXT";
  for (int i = 0; i < 120; ++i) text += " \"" + std::string(250, 'x') + "\"";  // ~30 KiB RDATA
  text += "\nafter A 192.0.2.77\n";
  auto s = server_of(text, options_allowing("10.0.0.1"));
  const Stream x = transfer(*s, make_query("example.com", rr_type::axfr));
  ASSERT_GE(x.messages.size(), 2u);
  bool seen = false;
  for (std::size_t i = 0; i < x.messages.size(); ++i) {
    for (const Record& r : x.messages[i].answers) {
      if (r.type != rr_type::txt) continue;
      seen = true;
      EXPECT_GT(x.sizes[i], Transfer::fill_size);
      EXPECT_LE(x.sizes[i], max_message_size);
    }
  }
  EXPECT_TRUE(seen);
  EXPECT_EQ(x.records(), 12u);
}

TEST(TransferTest, IxfrOverTcpIsAFullTransfer) {
  auto s = server_of(zone_text, options_allowing("10.0.0.1"));
  const Stream x = transfer(*s, make_query("example.com", rr_type::ixfr));
  ASSERT_EQ(x.messages.size(), 1u);
  EXPECT_EQ(x.records(), 10u);
  EXPECT_EQ(x.messages[0].answers.front().type, rr_type::soa);
  EXPECT_EQ(x.messages[0].answers.back().type, rr_type::soa);
}

// An IXFR query carrying the client's version (RFC 1995 §3): an SOA in the
// authority section, owner compressed to the question, root MNAME/RNAME.
std::vector<uint8_t> ixfr_query(uint32_t serial) {
  std::vector<uint8_t> q = make_query("example.com", rr_type::ixfr);
  q[9] = 1;  // NSCOUNT
  const uint8_t soa[] = {0xc0, 0x0c, 0, 6, 0, 1, 0, 0, 0, 0, 0, 22, 0, 0};
  q.insert(q.end(), std::begin(soa), std::end(soa));
  for (uint32_t v : {serial, 7200u, 3600u, 1209600u, 300u})
    for (int shift = 24; shift >= 0; shift -= 8) q.push_back(uint8_t(v >> shift));
  return q;
}

TEST(TransferTest, IxfrFromAClientAsNewAsTheZoneGetsTheSoaAlone) {
  auto s = server_of(zone_text, options_allowing("10.0.0.1"));  // the zone's serial is 7
  // The same serial, a greater one, and one greater across the wrap (RFC 1982).
  for (uint32_t serial : {7u, 8u, 0x80000005u}) {
    const Stream x = transfer(*s, ixfr_query(serial));
    ASSERT_EQ(x.messages.size(), 1u) << serial;
    ASSERT_EQ(x.records(), 1u) << serial;
    EXPECT_EQ(x.messages[0].answers[0].type, rr_type::soa);
  }
  // An older one (also across the wrap) gets the whole zone (RFC 1995 §4).
  for (uint32_t serial : {6u, 0x80000008u})
    EXPECT_EQ(transfer(*s, ixfr_query(serial)).records(), 10u);
}

TEST(TransferTest, IxfrOverUdpFromAnAllowedClientGetsTheSoa) {
  auto s = server_of(zone_text, options_allowing("10.0.0.1"));
  const Answer a = ask(*s, make_query("example.com", rr_type::ixfr), 512, allowed);
  EXPECT_EQ(a.rcode(), rcode::noerror);
  EXPECT_TRUE(a.flag(flag::aa));
  ASSERT_EQ(a.message.answers.size(), 1u);
  EXPECT_EQ(a.message.answers[0].type, rr_type::soa);
}

TEST(TransferTest, RefusedToOthersNotAuthOutsideTheZonesNotImpOverUdp) {
  auto s = server_of(zone_text, options_allowing("10.0.0.0/8"));
  for (uint16_t type : {rr_type::axfr, rr_type::ixfr}) {
    const Stream refused = transfer(*s, make_query("example.com", type), stranger);
    ASSERT_EQ(refused.messages.size(), 1u);
    EXPECT_EQ(refused.messages[0].header.rcode(), rcode::refused) << type;
    EXPECT_EQ(refused.messages[0].answers.size(), 0u);
    EXPECT_EQ(refused.messages[0].questions.size(), 1u);
    const Stream below = transfer(*s, make_query("www.example.com", type));
    EXPECT_EQ(below.messages.at(0).header.rcode(), rcode::notauth) << type;
    const Stream other = transfer(*s, make_query("example.org", type));
    EXPECT_EQ(other.messages.at(0).header.rcode(), rcode::notauth) << type;
  }
  EXPECT_EQ(s->stats().transfers_refused, 2u);
  EXPECT_EQ(ask(*s, make_query("example.com", rr_type::axfr)).rcode(), rcode::notimp);
  EXPECT_EQ(ask(*s, make_query("example.com", rr_type::ixfr), 512, stranger).rcode(),
            rcode::refused);
}

TEST(TransferTest, NobodyByDefault) {
  auto s = server_of(zone_text, ServerOptions{});
  const Stream x = transfer(*s, make_query("example.com", rr_type::axfr));
  ASSERT_EQ(x.messages.size(), 1u);
  EXPECT_EQ(x.messages[0].header.rcode(), rcode::refused);
  // A caller that cannot stream (no Transfer) is refused too.
  const Answer a =
      ask(*s, make_query("example.com", rr_type::axfr), 65535, allowed, Transport::tcp);
  EXPECT_EQ(a.rcode(), rcode::refused);
}

TEST(TransferTest, Prefixes) {
  AddressPrefix p;
  ASSERT_TRUE(parse_prefix("10.1.2.3/8", p));
  EXPECT_TRUE(p.contains(ClientAddress::ipv4(0x0affffff, 1)));
  EXPECT_FALSE(p.contains(ClientAddress::ipv4(0x0b000000, 1)));
  ASSERT_TRUE(parse_prefix("192.0.2.1", p));
  EXPECT_TRUE(p.contains(ClientAddress::ipv4(0xc0000201, 1)));
  EXPECT_FALSE(p.contains(ClientAddress::ipv4(0xc0000202, 1)));
  ASSERT_TRUE(parse_prefix("0.0.0.0/0", p));
  EXPECT_TRUE(p.contains(ClientAddress::ipv4(0x01020304, 1)));
  ClientAddress v6;
  v6.family = ClientAddress::Family::ipv6;
  EXPECT_FALSE(p.contains(v6));
  ASSERT_TRUE(parse_prefix("10.0.0.0/9", p));
  EXPECT_TRUE(p.contains(ClientAddress::ipv4(0x0a7fffff, 1)));
  EXPECT_FALSE(p.contains(ClientAddress::ipv4(0x0a800000, 1)));
  for (const char* bad : {"", "10", "10.0.0", "10.0.0.256", "10.0.0.0/33", "10.0.0.0/", "a.b.c.d",
                          "10.0.0.0/8x", "1.2.3.4.5", "2001:db8::/32"})
    EXPECT_FALSE(parse_prefix(bad, p)) << bad;
}

// RFC 7828: over TCP the answer carries the server's idle timeout in units
// of 100 ms when the query asks; over UDP the option is ignored.
std::vector<uint8_t> with_keepalive(std::vector<uint8_t> q) {
  // make_query's OPT is last with RDLENGTH 0: add the empty option.
  q[q.size() - 1] = 4;
  q.insert(q.end(), {0, 11, 0, 0});
  return q;
}

int keepalive_of(const Answer& a) {
  for (const Record& r : a.message.additional) {
    if (r.type != rr_type::opt) continue;
    const std::string& d = r.rdata;
    for (std::size_t at = 0; at + 4 <= d.size();) {
      const unsigned code = uint8_t(d[at]) << 8 | uint8_t(d[at + 1]);
      const unsigned length = uint8_t(d[at + 2]) << 8 | uint8_t(d[at + 3]);
      if (code == 11 && length == 2) return uint8_t(d[at + 4]) << 8 | uint8_t(d[at + 5]);
      at += 4 + length;
    }
  }
  return -1;
}

TEST(KeepaliveTest, TcpAnswersCarryTheIdleTimeout) {
  ServerOptions o;
  o.tcp_idle_ms = 2500;
  auto s = server_of(zone_text, o);
  const auto q = with_keepalive(make_query("www.example.com", rr_type::a, {.edns = 1232}));
  const Answer tcp = ask(*s, q, 65535, allowed, Transport::tcp);
  EXPECT_EQ(tcp.rcode(), rcode::noerror);
  EXPECT_EQ(tcp.message.answers.size(), 1u);
  EXPECT_EQ(keepalive_of(tcp), 25);
  const Answer udp = ask(*s, q, 1232, allowed, Transport::udp);
  EXPECT_EQ(udp.message.answers.size(), 1u);
  EXPECT_EQ(keepalive_of(udp), -1);
  // Not asked: not sent.
  const Answer plain = ask(*s, make_query("www.example.com", rr_type::a, {.edns = 1232}), 65535,
                           allowed, Transport::tcp);
  EXPECT_EQ(keepalive_of(plain), -1);
  // Negative answers carry it too.
  const auto nx = with_keepalive(make_query("nx.example.com", rr_type::a, {.edns = 1232}));
  EXPECT_EQ(keepalive_of(ask(*s, nx, 65535, allowed, Transport::tcp)), 25);
}

TEST(KeepaliveTest, NotSentWithoutAnIdleTimeoutAndInTheFirstTransferMessage) {
  auto none = server_of(zone_text, ServerOptions{});
  const auto q = with_keepalive(make_query("www.example.com", rr_type::a, {.edns = 1232}));
  EXPECT_EQ(keepalive_of(ask(*none, q, 65535, allowed, Transport::tcp)), -1);
  auto s = server_of(zone_text, options_allowing("10.0.0.1"));
  const Stream x =
      transfer(*s, with_keepalive(make_query("example.com", rr_type::axfr, {.edns = 1232})));
  ASSERT_EQ(x.messages.size(), 1u);
  Answer first;
  first.message = x.messages[0];
  EXPECT_EQ(keepalive_of(first), 100);
}

}  // namespace
}  // namespace keel::dns::test

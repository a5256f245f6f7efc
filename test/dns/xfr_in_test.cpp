// Zone transfers in (XfrIn) read from Keel's own AXFR out: several messages,
// signed and not (TSIG's client side), IXFR in its three forms, the size bound,
// malformed and foreign answers, and the swap of the new copy into a server,
// also under a transfer out in progress.
#include "keel/dns/xfr_in.hpp"

#include <gtest/gtest.h>

#include <set>

#include "keel/dns/server.hpp"
#include "keel/dns/writer.hpp"
#include "keel/dns/zone_swap.hpp"
#include "secondary_support.hpp"

namespace keel::dns::test {
namespace {

std::string big_zone(uint32_t serial, int names) {
  std::string text = "$TTL 300\n@ SOA ns1 hostmaster " + std::to_string(serial) +
                     " 60 30 600 300\n@ NS ns1\nns1 A 192.0.2.1\n";
  for (int i = 0; i < names; ++i)
    text += "n" + std::to_string(i) + " TXT \"" + std::string(200, 'x') + "\"\n";
  return text;
}

uint64_t clock_now() { return now_s; }

// A primary: Keel's own server, AXFR allowed to 10.0.0.0/8 (keyed or not).
std::unique_ptr<Server> primary_of(const std::string& text, bool keyed = false) {
  ServerOptions o;
  AddressPrefix p;
  EXPECT_TRUE(parse_prefix("10.0.0.0/8", p));
  if (keyed) {
    o.transfer.allow_keyed.push_back({p, xfr_key.name});
    o.tsig_keys = {xfr_key};
  } else {
    o.transfer.allow.push_back(p);
  }
  o.clock_unix_s = clock_now;
  return std::make_unique<Server>(catalog_from({zone_from_text("example.com", text)}), o);
}

// Every message of the primary's answer to `query`, over TCP.
std::vector<std::string> answers_of(Server& server, std::span<const uint8_t> query) {
  std::vector<std::string> out;
  std::vector<uint8_t> buffer(max_message_size);
  Transfer transfer;
  std::size_t size = server.answer(query, primary, buffer, Transport::tcp, &transfer);
  while (size != 0) {
    out.emplace_back(reinterpret_cast<const char*>(buffer.data()), size);
    size = transfer.messages() != 0 && !transfer.done() ? transfer.next(buffer) : 0;
  }
  return out;
}

std::vector<uint8_t> query_of(uint16_t qtype, std::optional<uint32_t> serial = {},
                              TsigClient* signer = nullptr, uint16_t id = 77) {
  std::vector<uint8_t> q(max_message_size);
  q.resize(write_xfr_query(q, id, wire("example.com"), qtype, serial, signer, now_s));
  EXPECT_GT(q.size(), 0u);
  return q;
}

XfrIn::Status feed_all(XfrIn& in, const std::vector<std::string>& messages,
                       TsigClient* tsig = nullptr) {
  XfrIn::Status s = XfrIn::Status::more;
  for (const std::string& m : messages) {
    if (tsig) EXPECT_EQ(tsig->verify(m, now_s), "");
    s = in.feed(m);
    if (s != XfrIn::Status::more) break;
  }
  return s;
}

std::set<std::string> record_set(const ZoneData& zone) {
  std::set<std::string> out;
  for (const ZoneRecord& r : zone.records)
    out.insert(lowercase_name(r.owner) + "/" + std::to_string(r.type) + "/" + r.rdata);
  return out;
}

TEST(XfrIn, AxfrInFromKeelIsTheZoneThenServed) {
  auto source = primary_of(big_zone(9, 300));  // ~70 KB: several messages
  const auto messages = answers_of(*source, query_of(rr_type::axfr));
  ASSERT_GT(messages.size(), 3u);
  XfrIn in(wire("example.com"), 77, rr_type::axfr, default_xfr_in_limit);
  ASSERT_EQ(feed_all(in, messages), XfrIn::Status::done) << in.error();
  EXPECT_EQ(in.serial(), 9u);
  EXPECT_EQ(in.zone().records.size(), 303u);
  EXPECT_EQ(record_set(in.zone()), record_set(zone_data_of(source->catalog(), 0)));
  EXPECT_EQ(in.feed(messages[0]), XfrIn::Status::failed);  // nothing after the end

  // Into a server that has another zone and an older copy of this one.
  ServerOptions o;
  Server secondary(
      catalog_from({zone_from_text("example.net", v1), zone_from_text("example.com", v1)}), o);
  std::vector<Diagnostic> errors;
  auto next = replace_zone(secondary.catalog(), std::move(in.zone()), errors);
  ASSERT_TRUE(next) << (errors.empty() ? "" : errors[0].to_string());
  secondary.replace_catalog(std::move(next));
  EXPECT_EQ(secondary.catalog().zone_count(), 2u);
  EXPECT_EQ(ask(secondary, make_query("n5.example.com", rr_type::txt)).message.answers.size(), 1u);
  EXPECT_EQ(ask(secondary, make_query("www.example.net", rr_type::a)).message.answers.size(), 1u);
  EXPECT_EQ(ask(secondary, make_query("www.example.com", rr_type::a)).rcode(), rcode::nxdomain);
}

TEST(XfrIn, SwapDuringATransferOutKeepsItsCatalog) {
  auto server = primary_of(big_zone(3, 300));
  std::vector<uint8_t> buffer(max_message_size);
  Transfer transfer;
  std::size_t size =
      server->answer(query_of(rr_type::axfr), primary, buffer, Transport::tcp, &transfer);
  ASSERT_GT(size, 0u);
  server->replace_catalog(catalog_from({zone_from_text("example.com", v1)}));
  std::size_t records = 0;
  for (; size != 0; size = transfer.next(buffer)) {
    Message m;
    ASSERT_EQ(parse_message(std::string_view(reinterpret_cast<char*>(buffer.data()), size), m),
              WireError::none);
    records += m.answers.size();
  }
  EXPECT_EQ(records, 300u + 4u);  // the old zone to the end: SOA, NS, A, 300 TXT, SOA
}

TEST(XfrIn, SignedAxfrChecksEveryMessage) {
  auto source = primary_of(big_zone(4, 300), true);
  TsigClient tsig(xfr_key);
  const auto messages = answers_of(*source, query_of(rr_type::axfr, {}, &tsig));
  ASSERT_GT(messages.size(), 3u);
  XfrIn in(wire("example.com"), 77, rr_type::axfr, default_xfr_in_limit);
  EXPECT_EQ(feed_all(in, messages, &tsig), XfrIn::Status::done) << in.error();
  EXPECT_TRUE(tsig.last_signed());

  // A changed octet fails the MAC.
  TsigClient again(xfr_key);
  auto copy = answers_of(*source, query_of(rr_type::axfr, {}, &again));
  copy[0][copy[0].find("xxxx")] = 'y';
  EXPECT_EQ(again.verify(copy[0], now_s), "the MAC does not check (BADSIG)");

  // The wrong key: the primary says NOTAUTH with BADKEY.
  TsigClient wrong(other_key);
  const auto refused = answers_of(*source, query_of(rr_type::axfr, {}, &wrong));
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_EQ(wrong.verify(refused[0], now_s), "the primary's TSIG error 17");
  XfrIn in2(wire("example.com"), 77, rr_type::axfr, default_xfr_in_limit);
  EXPECT_EQ(in2.feed(refused[0]), XfrIn::Status::failed);
  EXPECT_EQ(in2.error(), "the primary answered NOTAUTH");

  // An unsigned answer to a signed request does not check.
  auto plain = primary_of(v1);
  TsigClient unsigned_answer(xfr_key);
  (void)query_of(rr_type::axfr, {}, &unsigned_answer);
  const auto m = answers_of(*plain, query_of(rr_type::axfr));
  EXPECT_EQ(unsigned_answer.verify(m[0], now_s), "the answer is not signed");
}

TEST(XfrIn, FailuresAndTheSizeBound) {
  auto source = primary_of(big_zone(4, 300));
  const auto messages = answers_of(*source, query_of(rr_type::axfr));
  XfrIn small(wire("example.com"), 77, rr_type::axfr, 20'000);
  EXPECT_EQ(feed_all(small, messages), XfrIn::Status::failed);
  EXPECT_EQ(small.error(), "the transfer is over 20000 octets (dns_xfr_in_max=)");
  EXPECT_TRUE(small.over_limit());
  XfrIn other_id(wire("example.com"), 78, rr_type::axfr, default_xfr_in_limit);
  EXPECT_EQ(other_id.feed(messages[0]), XfrIn::Status::failed);
  XfrIn other_zone(wire("example.org"), 77, rr_type::axfr, default_xfr_in_limit);
  EXPECT_EQ(other_zone.feed(messages[0]), XfrIn::Status::failed);
  XfrIn truncated(wire("example.com"), 77, rr_type::axfr, default_xfr_in_limit);
  EXPECT_EQ(truncated.feed(messages[0].substr(0, 100)), XfrIn::Status::failed);
  EXPECT_EQ(truncated.error(), "a malformed message: truncated");
  // Cut off before the closing SOA: never done.
  XfrIn cut(wire("example.com"), 77, rr_type::axfr, default_xfr_in_limit);
  for (std::size_t i = 0; i + 1 < messages.size(); ++i)
    EXPECT_EQ(cut.feed(messages[i]), XfrIn::Status::more);
}

TEST(XfrIn, IxfrUpToDateAndInAxfrForm) {
  auto source = primary_of(v1);
  const ZoneData current = zone_data_of(source->catalog(), 0);
  XfrIn same(wire("example.com"), 77, rr_type::ixfr, default_xfr_in_limit, &current);
  EXPECT_EQ(feed_all(same, answers_of(*source, query_of(rr_type::ixfr, 7))),
            XfrIn::Status::up_to_date);

  ZoneData older = current;
  for (ZoneRecord& r : older.records)
    if (r.type == rr_type::soa) r.rdata[r.rdata.size() - 17] = 6;  // serial 7 -> 6
  XfrIn full(wire("example.com"), 77, rr_type::ixfr, default_xfr_in_limit, &older);
  EXPECT_EQ(feed_all(full, answers_of(*source, query_of(rr_type::ixfr, 6))), XfrIn::Status::done);
  EXPECT_FALSE(full.incremental());
  EXPECT_EQ(full.zone().records.size(), 5u);
}

// One message of an IXFR answer, from (owner, type, rdata) records.
std::string ixfr_message(const std::vector<ZoneRecord>& records) {
  std::vector<uint8_t> out(max_message_size);
  MessageWriter w(out.data(), out.size());
  const uint8_t header[12] = {0, 77, 0x84, 0, 0, 1, 0, uint8_t(records.size()), 0, 0, 0, 0};
  w.put_bytes(std::string_view(reinterpret_cast<const char*>(header), 12));
  w.put_name(wire("example.com"), true);
  w.put16(rr_type::ixfr);
  w.put16(rr_class::in);
  for (const ZoneRecord& r : records) {
    w.put_name(r.owner, true);
    w.put16(r.type);
    w.put16(rr_class::in);
    w.put32(r.ttl);
    w.put_rdata(r.type, r.rdata);
  }
  return std::string(reinterpret_cast<const char*>(out.data()), w.position());
}

TEST(XfrIn, IxfrIncremental) {
  const ZoneData current = zone_from_text("example.com", v1);
  const ZoneData next =
      zone_from_text("example.com", std::string(v1).replace(std::string(v1).find(" 7 "), 3, " 9 ") +
                                        "new A 192.0.2.11\n");
  const ZoneData middle =
      zone_from_text("example.com", std::string(v1).replace(std::string(v1).find(" 7 "), 3, " 8 "));
  auto rr = [](const ZoneData& z, const std::string& owner, uint16_t type) {
    for (const ZoneRecord& r : z.records)
      if (names_equal(r.owner, wire(owner)) && r.type == type) return r;
    ADD_FAILURE() << owner;
    return ZoneRecord{};
  };
  const ZoneRecord soa7 = rr(current, "example.com", rr_type::soa);
  const ZoneRecord soa8 = rr(middle, "example.com", rr_type::soa);
  const ZoneRecord soa9 = rr(next, "example.com", rr_type::soa);
  const ZoneRecord www = rr(current, "www.example.com", rr_type::a);
  const ZoneRecord added = rr(next, "new.example.com", rr_type::a);
  // 7 -> 8 deletes www; 8 -> 9 adds new; split over two messages.
  XfrIn in(wire("example.com"), 77, rr_type::ixfr, default_xfr_in_limit, &current);
  EXPECT_EQ(in.feed(ixfr_message({soa9, soa7, www, soa8})), XfrIn::Status::more);
  EXPECT_EQ(in.feed(ixfr_message({soa8, soa9, added, soa9})), XfrIn::Status::done) << in.error();
  EXPECT_TRUE(in.incremental());
  std::set<std::string> want = record_set(current);
  want.erase(lowercase_name(www.owner) + "/1/" + www.rdata);
  want.erase(lowercase_name(soa7.owner) + "/6/" + soa7.rdata);
  want.insert(lowercase_name(added.owner) + "/1/" + added.rdata);
  want.insert(lowercase_name(soa9.owner) + "/6/" + soa9.rdata);
  EXPECT_EQ(record_set(in.zone()), want);

  // Deleting what we do not have fails (the caller then asks for AXFR).
  XfrIn bad(wire("example.com"), 77, rr_type::ixfr, default_xfr_in_limit, &current);
  EXPECT_EQ(bad.feed(ixfr_message({soa9, soa7, added, soa9, soa9})), XfrIn::Status::failed);
  EXPECT_EQ(bad.error(), "the IXFR deletes a record we do not have");
  XfrIn unknown(wire("example.com"), 77, rr_type::ixfr, default_xfr_in_limit, &current);
  EXPECT_EQ(unknown.feed(ixfr_message({soa9, soa8, soa9, soa9})), XfrIn::Status::failed);
}

}  // namespace
}  // namespace keel::dns::test

// Reading a zone transfer's answer (XfrIn): AXFR (RFC 5936 §2.2: the SOA,
// the zone's records, the SOA again) and IXFR (RFC 1995 §4: the SOA alone
// when we are current, the zone in AXFR form, or sequences of deletions
// and additions, each opened by the old and the new version's SOA). Every
// message is read with the wire parser; the octets taken are bounded.
#include "keel/dns/xfr_in.hpp"

#include <algorithm>

#include "keel/dns/constants.hpp"
#include "keel/dns/message.hpp"
#include "keel/dns/name.hpp"

namespace keel::dns {
namespace {

std::string rcode_text(uint8_t rcode) {
  static constexpr const char* names[] = {"NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN",
                                          "NOTIMP",  "REFUSED", "YXDOMAIN", "YXRRSET",
                                          "NXRRSET", "NOTAUTH", "NOTZONE"};
  return rcode < std::size(names) ? names[rcode] : "RCODE " + std::to_string(rcode);
}

std::optional<uint32_t> serial_of(const ZoneData* zone) {
  if (zone == nullptr) return std::nullopt;
  for (const ZoneRecord& r : zone->records) {
    if (r.type == rr_type::soa && names_equal(r.owner, zone->origin)) {
      if (auto soa = read_soa(r.rdata)) return soa->serial;
    }
  }
  return std::nullopt;
}

}  // namespace

XfrIn::XfrIn(std::string_view origin, uint16_t id, uint16_t qtype, std::size_t limit,
             const ZoneData* current)
    : origin_(lowercase_name(origin)), id_(id), qtype_(qtype), limit_(limit), current_(current) {}

XfrIn::Status XfrIn::fail(std::string why) {
  error_ = std::move(why);
  finished_ = true;
  return Status::failed;
}

XfrIn::Status XfrIn::feed(std::string_view m) {
  if (!error_.empty()) return Status::failed;
  if (finished_) return fail("a message after the closing SOA");
  ++messages_;
  bytes_ += m.size();
  if (bytes_ > limit_) {
    return fail("the transfer is over " + std::to_string(limit_) + " octets (dns_xfr_in_max=)");
  }
  Message msg;
  if (const WireError e = parse_message(m, msg);
      e != WireError::none && e != WireError::trailing_data)
    return fail(std::string("a malformed message: ") + to_string(e));
  const Header& h = msg.header;
  if (h.id != id_) return fail("an answer with ID " + std::to_string(h.id));
  if (!(h.flags & flag::qr) || h.opcode() != opcode::query) return fail("not an answer");
  if (h.rcode() != rcode::noerror) return fail("the primary answered " + rcode_text(h.rcode()));
  if (h.flags & flag::tc) return fail("a truncated answer");
  // RFC 5936 §2.2.1: the question in the first message, maybe in later ones.
  if (messages_ == 1 && msg.questions.size() != 1) return fail("no question in the first message");
  for (const Question& q : msg.questions) {
    if (!names_equal(q.name, origin_) || q.type != qtype_)
      return fail("the answer of another question");
  }
  if (messages_ == 1 && msg.answers.empty()) return fail("an empty answer");
  for (const Record& r : msg.answers) {
    if (finished_) return fail("records after the closing SOA");
    if (r.rclass != rr_class::in) return fail("a record of class " + std::to_string(r.rclass));
    if (const Status s = take(r.owner, r.type, r.ttl, r.rdata); s == Status::failed) return s;
  }
  if (finished_) return Status::done;
  if (qtype_ == rr_type::soa) {  // the SOA query's one answer
    finished_ = true;
    return Status::done;
  }
  // RFC 1995 §2: the SOA alone, with our version or older: nothing to take.
  const std::optional<uint32_t> ours = serial_of(current_);
  if (qtype_ == rr_type::ixfr && messages_ == 1 && records_ == 1 && ours &&
      !serial_greater(serial_, *ours)) {
    finished_ = true;
    return Status::up_to_date;
  }
  return Status::more;
}

XfrIn::Status XfrIn::take(std::string_view owner, uint16_t type, uint32_t ttl,
                          std::string_view rdata) {
  ++records_;
  const bool apex_soa = type == rr_type::soa && names_equal(owner, origin_);
  std::optional<Soa> soa;
  if (apex_soa && !(soa = read_soa(rdata))) return fail("a malformed SOA");
  if (records_ == 1) {
    if (!apex_soa) return fail("the answer does not start with the zone's SOA");
    serial_ = soa->serial;
    zone_.origin = std::string(owner);
    zone_.records.push_back({std::string(owner), type, ttl, std::string(rdata), {}});
    return Status::more;
  }
  if (records_ == 2 && apex_soa && soa->serial != serial_ && qtype_ == rr_type::ixfr) {
    // RFC 1995 §4: an old version's SOA second: incremental.
    const std::optional<uint32_t> ours = serial_of(current_);
    if (!ours || soa->serial != *ours)
      return fail("an incremental answer from a version we do not have");
    incremental_ = true;
    first_soa_ = std::move(zone_.records.front());
    zone_.records = current_->records;
    std::erase_if(zone_.records, [](const ZoneRecord& r) { return r.type == rr_type::soa; });
    deleting_ = true;
    version_ = soa->serial;
    return Status::more;
  }
  if (incremental_)
    return take_incremental(owner, type, ttl, rdata, apex_soa, soa ? soa->serial : 0);
  if (apex_soa) {
    if (soa->serial != serial_) return fail("a second SOA with another serial");
    finished_ = true;  // RFC 5936 §2.2: the SOA again closes the transfer
    return Status::done;
  }
  zone_.records.push_back({std::string(owner), type, ttl, std::string(rdata), {}});
  return Status::more;
}

XfrIn::Status XfrIn::take_incremental(std::string_view owner, uint16_t type, uint32_t ttl,
                                      std::string_view rdata, bool is_soa, uint32_t soa_serial) {
  if (is_soa) {
    if (deleting_) {  // the new version's SOA: its additions follow
      deleting_ = false;
      version_ = soa_serial;
    } else if (soa_serial == serial_ && version_ == serial_) {
      zone_.records.push_back(std::move(first_soa_));  // the closing SOA: done
      finished_ = true;
    } else if (soa_serial == version_) {  // the next sequence's deletions
      deleting_ = true;
    } else {
      return fail("an IXFR sequence out of order");
    }
    return Status::more;
  }
  if (!deleting_) {
    zone_.records.push_back({std::string(owner), type, ttl, std::string(rdata), {}});
    return Status::more;
  }
  auto it = std::find_if(zone_.records.begin(), zone_.records.end(), [&](const ZoneRecord& r) {
    return r.type == type && r.rdata == rdata && names_equal(r.owner, owner);
  });
  if (it == zone_.records.end()) return fail("the IXFR deletes a record we do not have");
  zone_.records.erase(it);  // (keeps the zone's order: RRsets keep their first record's place)
  return Status::more;
}

}  // namespace keel::dns

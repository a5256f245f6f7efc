// Query acceptance.
#include "answer/query.hpp"

#include "keel/dns/name.hpp"
#include "wire/bytes.hpp"

namespace keel::dns {
namespace {

// RFC 6891 §6.1.2-3: an OPT record, whose owner must be the root.
struct OptResult {
  enum Kind { not_opt, bad, ok } kind = not_opt;
  std::size_t end = 0;
};

constexpr uint16_t keepalive_option = 11;  // RFC 7828 edns-tcp-keepalive

OptResult read_opt(std::string_view m, std::size_t pos, Edns& edns) {
  constexpr std::size_t fixed = 11;  // root owner, type, class, TTL, RDLENGTH
  if (m.size() - pos < fixed || octet(m, pos) != 0 || load16(m, pos + 1) != rr_type::opt) return {};
  edns.present = true;
  edns.payload = load16(m, pos + 3);
  edns.version = octet(m, pos + 6);
  edns.dnssec_ok = (load16(m, pos + 7) & edns_do_bit) != 0;
  const std::size_t length = load16(m, pos + 9);
  pos += fixed;
  if (m.size() - pos < length) return {OptResult::bad};
  // Options are {code, length, data}; each must fit. Unknown ones are ignored (§6.1.2).
  const std::size_t end = pos + length;
  while (pos < end) {
    if (end - pos < 4 || end - pos - 4 < load16(m, pos + 2)) return {OptResult::bad};
    // RFC 7828 §3.2.1 has clients send it empty; a TIMEOUT sent anyway is
    // ignored (as BIND does), the option still counts as asked for.
    if (load16(m, pos) == keepalive_option) edns.keepalive = true;
    pos += 4 + load16(m, pos + 2);
  }
  return {OptResult::ok, end};
}

// Skips one resource record with checked names; 0 if malformed.
std::size_t skip_record(std::string_view m, std::size_t pos) {
  while (pos < m.size()) {
    const uint8_t len = octet(m, pos);
    if ((len & 0xc0) == 0xc0) {
      pos += 2;
      break;
    }
    if (len > max_label_length) return 0;
    pos += 1 + len;
    if (len == 0) break;
  }
  if (pos > m.size() || m.size() - pos < 10) return 0;
  const std::size_t length = load16(m, pos + 8);
  pos += 10;
  return m.size() - pos < length ? 0 : pos + length;
}

// Skips a name that may end in a pointer; 0 if malformed.
std::size_t skip_name(std::string_view m, std::size_t pos) {
  while (pos < m.size()) {
    const uint8_t len = octet(m, pos);
    if ((len & 0xc0) == 0xc0) return m.size() - pos < 2 ? 0 : pos + 2;
    if (len > max_label_length) return 0;
    pos += 1 + len;
    if (len == 0) return pos > m.size() ? 0 : pos;
  }
  return 0;
}

// The serial of the SOA record at `pos` (an IXFR's version); false if the
// record is not an SOA of class IN or is malformed.
bool read_soa_serial(std::string_view m, std::size_t pos, uint32_t& serial) {
  if ((pos = skip_name(m, pos)) == 0 || m.size() - pos < 10) return false;
  if (load16(m, pos) != rr_type::soa || load16(m, pos + 2) != rr_class::in) return false;
  const std::size_t end = pos + 10 + load16(m, pos + 8);
  if (end > m.size()) return false;
  pos += 10;
  for (int name = 0; name < 2; ++name) {  // MNAME, RNAME
    if ((pos = skip_name(m.substr(0, end), pos)) == 0) return false;
  }
  if (end - pos < 20) return false;  // SERIAL REFRESH RETRY EXPIRE MINIMUM
  serial = load32(m, pos);
  return true;
}

// NSD's question reader: no compression in the question, at most 255 octets.
bool read_question(std::string_view m, Query& q) {
  std::size_t pos = header_size;
  uint32_t hash = 2166136261u;  // name_hash(), computed on the way
  for (;;) {
    if (pos >= m.size()) return false;
    const uint8_t len = octet(m, pos);
    if (len > max_label_length) return false;  // pointers and reserved label types too
    if (m.size() - pos < 1u + len + (len == 0 ? 4 : 1) ||
        pos - header_size + 1 + len > max_name_length) {
      return false;
    }
    for (std::size_t i = pos; i <= pos + len; ++i) {
      const uint8_t c = ascii_lower(octet(m, i));
      q.lowered[i - header_size] = c;
      hash = (hash ^ c) * 16777619u;
    }
    pos += 1 + len;
    if (len == 0) break;
  }
  q.qname_size = uint8_t(pos - header_size);
  q.hash = hash;
  q.qtype = load16(m, pos);
  q.qclass = load16(m, pos + 2);
  q.question_end = pos + 4;
  return true;
}

}  // namespace

Verdict parse_query(std::string_view m, Query& q) {
  q.message = m;
  if (m.size() < header_size) return Verdict::drop;
  q.id = load16(m, 0);
  q.flags = load16(m, 2);
  if (q.flags & flag::qr) return Verdict::drop;
  const uint8_t op = uint8_t((q.flags & flag::opcode_mask) >> flag::opcode_shift);
  if (op != opcode::query && op != opcode::notify) return Verdict::notimp;
  // NSD reads a question whatever QDCOUNT says, before looking at the counts.
  if ((q.flags & flag::rcode_mask) != 0 || !read_question(m, q)) return Verdict::formerr;
  // Keel is no secondary: NOTIFY is answered as NSD answers it without allow-notify.
  if (op == opcode::notify) return Verdict::notify;
  const uint16_t qdcount = load16(m, 4), ancount = load16(m, 6), nscount = load16(m, 8);
  uint16_t arcount = load16(m, 10);
  if (qdcount != 1) {
    // RFC 7873 §5.4: a query with only an OPT (a cookie) gets an answer with an OPT.
    Edns edns;
    if (qdcount == 0 && ancount == 0 && nscount == 0 && arcount == 1 &&
        read_opt(m, header_size, edns).kind == OptResult::ok && edns.version == 0) {
      q.edns = edns;
      return Verdict::empty_with_edns;
    }
    return Verdict::formerr_no_flags;
  }
  if (ancount != 0 || (nscount != 0 && q.qtype != rr_type::ixfr)) return Verdict::formerr;
  std::size_t pos = q.question_end;
  constexpr uint16_t max_ixfr_authority = 64;  // NSD's bound on the SOA records of an IXFR query
  if (nscount > max_ixfr_authority) return Verdict::formerr;
  if (nscount > 0) q.has_ixfr_serial = read_soa_serial(m, pos, q.ixfr_serial);
  for (uint16_t i = 0; i < nscount; ++i) {
    if ((pos = skip_record(m, pos)) == 0) return Verdict::formerr;
  }
  if (arcount > 0) {
    const OptResult opt = read_opt(m, pos, q.edns);
    if (opt.kind == OptResult::bad) return Verdict::formerr;
    if (opt.kind == OptResult::ok) {
      --arcount;
      pos = opt.end;
    }
  }
  // RFC 8945 §5.1: a TSIG must be the last record, and is the only other one
  // Keel takes; anything else (a second OPT, other records) is refused, as NSD does.
  if (arcount > 1) return Verdict::formerr;
  if (arcount == 1) {
    if (read_tsig(m, pos, q.tsig) == 0) return Verdict::formerr;
    q.has_tsig = true;
  }
  // Octets after the last record are ignored, as NSD does.
  if (q.edns.present && q.edns.version != 0) return Verdict::badvers;
  return Verdict::answer;
}

}  // namespace keel::dns

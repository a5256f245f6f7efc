// Checked reading of DNS messages.
#include "keel/dns/message.hpp"

#include "keel/dns/constants.hpp"
#include "keel/dns/name.hpp"
#include "keel/dns/rdata.hpp"
#include "wire/bytes.hpp"

namespace keel::dns {
namespace {

// RFC 1035 §4.1.4: the two top bits of a length octet select the label type.
constexpr uint8_t label_type_mask = 0xc0;
constexpr uint8_t pointer_label = 0xc0;

// Reads one record's RDATA, decompressing the names of known types.
WireError read_rdata(std::string_view message, std::size_t pos, std::size_t length, uint16_t type,
                     std::string& out) {
  const std::string_view raw = message.substr(pos, length);
  const TypeInfo* info = type_info(type);
  if (info == nullptr || !has_compressed_names(type)) {
    out.assign(raw);
    return rdata_valid(type, out) ? WireError::none : WireError::bad_rdata;
  }
  // Copy field by field; names may point anywhere earlier in the message.
  std::size_t p = pos;
  const std::size_t end = pos + length;
  for (Field f : info->fields) {
    if (f == Field::end) break;
    if (f == Field::compressed_name || f == Field::name) {
      NameRead r = read_name(message.substr(0, end), p, &out);
      if (r.error != WireError::none) return WireError::bad_rdata;
      p = r.end;
      continue;
    }
    // The other fields of compressible types are fixed-size integers.
    const std::size_t n = f == Field::u16 ? 2 : f == Field::u32 ? 4 : 0;
    if (n == 0 || end - p < n) return WireError::bad_rdata;
    out.append(message.substr(p, n));
    p += n;
  }
  return p == end && rdata_valid(type, out) ? WireError::none : WireError::bad_rdata;
}

WireError read_records(std::string_view message, std::size_t& pos, uint16_t count,
                       std::vector<Record>& out) {
  for (uint16_t i = 0; i < count; ++i) {
    Record rr;
    NameRead r = read_name(message, pos, &rr.owner);
    if (r.error != WireError::none) return r.error;
    pos = r.end;
    constexpr std::size_t fixed = 10;  // type, class, TTL, RDLENGTH
    if (message.size() - pos < fixed) return WireError::truncated;
    rr.type = load16(message, pos);
    rr.rclass = load16(message, pos + 2);
    rr.ttl = load32(message, pos + 4);
    const std::size_t length = load16(message, pos + 8);
    pos += fixed;
    if (message.size() - pos < length) return WireError::truncated;
    if (WireError e = read_rdata(message, pos, length, rr.type, rr.rdata); e != WireError::none)
      return e;
    pos += length;
    out.push_back(std::move(rr));
  }
  return WireError::none;
}

}  // namespace

const char* to_string(WireError error) {
  switch (error) {
    case WireError::none:
      return "ok";
    case WireError::truncated:
      return "truncated";
    case WireError::name_too_long:
      return "name over 255 octets";
    case WireError::bad_label_type:
      return "reserved label type";
    case WireError::bad_pointer:
      return "compression pointer not to an earlier name";
    case WireError::bad_rdata:
      return "RDATA does not match its type";
    case WireError::trailing_data:
      return "data after the last record";
  }
  return "?";
}

uint8_t Header::opcode() const {
  return uint8_t((flags & flag::opcode_mask) >> flag::opcode_shift);
}
uint8_t Header::rcode() const { return uint8_t(flags & flag::rcode_mask); }

bool read_header(std::string_view message, Header& h) {
  if (message.size() < header_size) return false;
  h.id = load16(message, 0);
  h.flags = load16(message, 2);
  h.qdcount = load16(message, 4);
  h.ancount = load16(message, 6);
  h.nscount = load16(message, 8);
  h.arcount = load16(message, 10);
  return true;
}

NameRead read_name(std::string_view message, std::size_t pos, std::string* out) {
  NameRead result;
  // Every pointer must point before the start of the labels that contain it,
  // so each jump moves strictly backwards and the walk always ends.
  std::size_t segment_start = pos;
  std::size_t length = 0;  // uncompressed octets so far
  bool jumped = false;
  for (;;) {
    if (pos >= message.size()) return {0, WireError::truncated};
    const uint8_t len = octet(message, pos);
    if ((len & label_type_mask) == pointer_label) {
      if (pos + 1 >= message.size()) return {0, WireError::truncated};
      const std::size_t target = std::size_t(len & ~label_type_mask) << 8 | octet(message, pos + 1);
      if (target >= segment_start || target < header_size) return {0, WireError::bad_pointer};
      if (!jumped) result.end = pos + 2;
      jumped = true;
      pos = segment_start = target;
      continue;
    }
    // 0x40 and 0x80 (RFC 6891 §5); a length over 63 always has one of these bits.
    if ((len & label_type_mask) != 0) return {0, WireError::bad_label_type};
    if (message.size() - pos < 1u + len) return {0, WireError::truncated};
    length += 1 + len;
    if (length > max_name_length) return {0, WireError::name_too_long};
    if (out != nullptr) out->append(message.substr(pos, 1 + len));
    pos += 1 + len;
    if (len == 0) break;
  }
  if (!jumped) result.end = pos;
  return result;
}

WireError parse_message(std::string_view message, Message& out) {
  if (!read_header(message, out.header)) return WireError::truncated;
  std::size_t pos = header_size;
  for (uint16_t i = 0; i < out.header.qdcount; ++i) {
    Question q;
    NameRead r = read_name(message, pos, &q.name);
    if (r.error != WireError::none) return r.error;
    pos = r.end;
    if (message.size() - pos < 4) return WireError::truncated;
    q.type = load16(message, pos);
    q.rclass = load16(message, pos + 2);
    pos += 4;
    out.questions.push_back(std::move(q));
  }
  for (auto [count, section] :
       {std::pair{out.header.ancount, &out.answers}, std::pair{out.header.nscount, &out.authority},
        std::pair{out.header.arcount, &out.additional}}) {
    if (WireError e = read_records(message, pos, count, *section); e != WireError::none) return e;
  }
  return pos == message.size() ? WireError::none : WireError::trailing_data;
}

}  // namespace keel::dns

// The queries a secondary sends its primary: SOA (is there a newer serial?),
// AXFR (RFC 5936 §2.1) and IXFR with our version (RFC 1995 §3).
#include "keel/dns/constants.hpp"
#include "keel/dns/message.hpp"
#include "keel/dns/writer.hpp"
#include "keel/dns/xfr_in.hpp"
#include "secondary/records.hpp"
#include "wire/bytes.hpp"

namespace keel::dns {
namespace {
constexpr std::size_t rr_fixed = 10;  // TYPE CLASS TTL RDLENGTH
}

std::size_t last_record_offset(std::string_view m) {
  Header h;
  if (!read_header(m, h)) return 0;
  std::size_t pos = header_size;
  for (uint16_t i = 0; i < h.qdcount; ++i) {
    const NameRead name = read_name(m, pos, nullptr);
    if (name.error != WireError::none || m.size() - name.end < 4) return 0;
    pos = name.end + 4;
  }
  const std::size_t records = std::size_t(h.ancount) + h.nscount + h.arcount;
  std::size_t last = 0;
  for (std::size_t i = 0; i < records; ++i) {
    last = pos;
    const NameRead name = read_name(m, pos, nullptr);
    if (name.error != WireError::none || m.size() - name.end < rr_fixed) return 0;
    const std::size_t end = name.end + rr_fixed + load16(m, name.end + 8);
    if (end > m.size()) return 0;
    pos = end;
  }
  return last;
}

std::size_t write_xfr_query(std::span<uint8_t> out, uint16_t id, std::string_view origin,
                            uint16_t qtype, std::optional<uint32_t> serial, TsigClient* signer,
                            uint64_t now) {
  MessageWriter w(out.data(), out.size());
  const bool ixfr = qtype == rr_type::ixfr && serial.has_value();
  const uint8_t header[header_size] = {uint8_t(id >> 8),      uint8_t(id), 0, 0, 0, 1, 0, 0, 0,
                                       uint8_t(ixfr ? 1 : 0), 0,           0};
  w.put_bytes(std::string_view(reinterpret_cast<const char*>(header), header_size));
  if (!w.put_name(origin, false) || !w.put16(qtype) || !w.put16(rr_class::in)) return 0;
  if (ixfr) {
    // RFC 1995 §3: the client's SOA in the authority section; only its
    // serial counts (root names for MNAME and RNAME, as dig writes it).
    constexpr uint16_t soa_rdata = 2 + 5 * 4;
    if (!w.put_name(origin, false) || !w.put16(rr_type::soa) || !w.put16(rr_class::in) ||
        !w.put32(0) || !w.put16(soa_rdata) || !w.put16(0) || !w.put32(*serial) || !w.put32(0) ||
        !w.put32(0) || !w.put32(0) || !w.put32(0)) {
      return 0;
    }
  }
  if (signer == nullptr) return w.position();
  return signer->sign_request(out.data(), w.position(), out.size(), now);
}

}  // namespace keel::dns

// NOTIFY for a secondary zone, and SERVFAIL for a zone without a copy
// (notify.hpp). The order of checks and the responses are NSD 4's
// (query.c, answer_notify and query_error).
#include "keel/dns/notify.hpp"

#include <algorithm>
#include <cstring>

#include "answer/opt.hpp"
#include "answer/query.hpp"
#include "answer/tsig.hpp"
#include "keel/dns/constants.hpp"
#include "keel/dns/name.hpp"
#include "keel/dns/writer.hpp"
#include "secondary/records.hpp"
#include "wire/bytes.hpp"

namespace keel::dns {
namespace {

// NSD's query_error: the header alone, the query's flags but AD, QR set.
std::size_t header_only(const Query& q, uint8_t* out, uint16_t rcode) {
  std::memcpy(out, q.message.data(), header_size);
  store16(out + 2, uint16_t((q.flags & ~(flag::rcode_mask | flag::ad)) | flag::qr | rcode));
  std::memset(out + 4, 0, header_size - 4);
  return header_size;
}

bool same_address(const ClientAddress& a, const ClientAddress& b) {
  return a.family == b.family && a.bytes == b.bytes;
}

}  // namespace

NotifyOutcome answer_notify(std::span<const uint8_t> query, const ClientAddress& client,
                            const std::vector<SecondaryZone>& zones,
                            const std::vector<TsigKey>& keys, uint64_t now_unix,
                            std::span<uint8_t> out) {
  NotifyOutcome result;
  // Every query comes here first: the opcode alone turns the others away.
  if (query.size() < header_size ||
      ((query[2] << 8) & flag::opcode_mask) >> flag::opcode_shift != opcode::notify) {
    return result;
  }
  const std::string_view m(reinterpret_cast<const char*>(query.data()), query.size());
  Query q;
  if (parse_query(m, q) != Verdict::notify || out.size() < max_message_size) return result;
  const auto zone = std::find_if(zones.begin(), zones.end(), [&](const SecondaryZone& z) {
    return names_equal(z.origin, q.lowered_name());
  });
  if (zone == zones.end()) return result;
  result.handled = true;
  // RFC 8945 §5.2: a TSIG, last in the message, checked before anything else.
  TsigSigner signer;
  const std::size_t last = load16(m, 10) != 0 ? last_record_offset(m) : 0;
  TsigRecord tsig;
  const bool has_tsig = last != 0 && read_tsig(m, last, tsig) != 0;
  const uint64_t now = now_unix;
  if (has_tsig) {
    const TsigCheck check = check_tsig(m, tsig, keys, now);
    if (check.result == TsigCheck::formerr) {
      result.rcode = rcode::formerr;
      result.size = header_only(q, out.data(), rcode::formerr);
      return result;
    }
    if (check.result == TsigCheck::refused) {
      result.rcode = rcode::notauth;
      result.tsig_error = check.error;
      const std::size_t size = header_only(q, out.data(), rcode::notauth);
      if (check.error == tsig_error::badtime) {
        TsigSigner late(*check.key, tsig);
        result.size = late.sign(out.data(), size, max_message_size, now, check.error);
      } else {
        result.size = append_unsigned_tsig(out.data(), size, max_message_size, tsig, check.error);
      }
      return result;
    }
    signer = TsigSigner(*check.key, tsig);
  }
  // NSD's allow-notify: the primary's address, with its key or NOKEY.
  const bool allowed = same_address(client, zone->primary) &&
                       (zone->key.empty() ? !has_tsig : signer.key_name() == zone->key);
  std::size_t size = 0;
  if (!allowed) {
    result.rcode = rcode::refused;
    size = header_only(q, out.data(), rcode::refused);
  } else {
    result.zone = int(zone - zones.begin());
    std::memcpy(out.data(), m.data(), q.question_end);
    store16(out.data() + 2,
            uint16_t((q.flags & ~(flag::rcode_mask | flag::ad | flag::tc)) | flag::qr | flag::aa));
    store16(out.data() + 4, 1);
    std::memset(out.data() + 6, 0, 6);
    size = q.question_end;
  }
  result.size = size;
  if (signer.active()) {
    const std::size_t signed_size = signer.sign(out.data(), size, max_message_size, now);
    if (signed_size != 0) result.size = signed_size;
  }
  return result;
}

std::size_t answer_unavailable(std::span<const uint8_t> query,
                               const std::vector<UnavailableZone>& zones,
                               const std::vector<std::string>& served, uint16_t edns_payload,
                               std::span<uint8_t> out) {
  if (zones.empty()) return 0;
  const std::string_view m(reinterpret_cast<const char*>(query.data()), query.size());
  Query q;
  const Verdict verdict = parse_query(m, q);
  if (verdict != Verdict::answer || out.size() < udp_plain_payload) return 0;
  if (q.qclass != rr_class::in && q.qclass != rr_class::any) return 0;
  // The deepest zone at or above the name: one of ours without a copy?
  // (Names along one chain of ancestors: the longer origin is the deeper.)
  std::size_t deepest = 0;
  const UnavailableZone* hit = nullptr;
  for (const std::string& origin : served) {
    if (is_subdomain(q.lowered_name(), origin) && origin.size() > deepest) deepest = origin.size();
  }
  for (const UnavailableZone& zone : zones) {
    if (is_subdomain(q.lowered_name(), zone.origin) && zone.origin.size() >= deepest) {
      deepest = zone.origin.size();
      hit = &zone;
    }
  }
  if (hit == nullptr) return 0;
  MessageWriter w(out.data(), udp_plain_payload);
  w.put_bytes(q.message.substr(0, q.question_end));
  store16(out.data() + 2, uint16_t(flag::qr | (q.flags & flag::rd) | rcode::servfail));
  std::memset(out.data() + 6, 0, 6);
  if (q.edns.present) {
    // RFC 8914 §4.15 (Not Ready) and §4.25 (Invalid Data), with NSD's texts.
    constexpr int not_ready = 14, invalid_data = 24;
    const bool expired = hit->expired;
    write_opt(w, edns_payload, rcode::servfail, q.edns.dnssec_ok,
              expired ? invalid_data : not_ready,
              expired ? "Zone has expired" : "Zone is configured but not loaded", no_keepalive);
    store16(out.data() + 10, 1);
  }
  return w.position();
}

}  // namespace keel::dns

// AXFR out (RFC 5936 §2.2): the zone's SOA, every other record of the zone
// (glue and occluded data too: they are the zone's contents), the SOA again;
// the question in the first message only (§2.2.1, as NSD), AA set, the
// query's ID in each; names compressed within each message.
#include "keel/dns/transfer.hpp"

#include <algorithm>
#include <cstring>

#include "answer/opt.hpp"
#include "answer/plan.hpp"
#include "keel/dns/writer.hpp"
#include "wire/bytes.hpp"

namespace keel::dns {
namespace {

constexpr uint8_t ipv4_bits = 32;

bool put_rr(MessageWriter& w, std::string_view owner, uint16_t type, const RRView& rr) {
  const std::size_t start = w.position();
  if (w.put_name(owner, true) && w.put16(type) && w.put16(rr_class::in) && w.put32(rr.ttl) &&
      w.put_rdata(type, rr.rdata)) {
    return true;
  }
  w.rewind(start);
  return false;
}

}  // namespace

bool AddressPrefix::contains(const ClientAddress& client) const {
  if (client.family != family) return false;
  const std::size_t whole = length / 8;
  if (std::memcmp(bytes.data(), client.bytes.data(), whole) != 0) return false;
  const unsigned rest = length % 8;
  if (rest == 0) return true;
  const uint8_t mask = uint8_t(0xff << (8 - rest));
  return (bytes[whole] & mask) == (client.bytes[whole] & mask);
}

// IPv4 only: Keel's stack has no IPv6 transport yet (docs/dns.md).
bool parse_prefix(std::string_view text, AddressPrefix& out) {
  out = AddressPrefix{};
  out.length = ipv4_bits;
  const std::size_t slash = text.find('/');
  if (slash != std::string_view::npos) {
    const std::string_view bits = text.substr(slash + 1);
    if (bits.empty() || bits.size() > 2) return false;
    unsigned n = 0;
    for (char c : bits) {
      if (c < '0' || c > '9') return false;
      n = n * 10 + unsigned(c - '0');
    }
    if (n > ipv4_bits) return false;
    out.length = uint8_t(n);
    text = text.substr(0, slash);
  }
  for (int part = 0; part < 4; ++part) {
    if (part > 0) {
      if (text.empty() || text[0] != '.') return false;
      text.remove_prefix(1);
    }
    unsigned n = 0;
    std::size_t digits = 0;
    while (digits < text.size() && digits < 4 && text[digits] >= '0' && text[digits] <= '9')
      n = n * 10 + unsigned(text[digits++] - '0');
    if (digits == 0 || digits > 3 || n > 255) return false;
    out.bytes[std::size_t(part)] = uint8_t(n);
    text.remove_prefix(digits);
  }
  if (!text.empty()) return false;
  // Bits past the prefix are cleared, so "10.1.2.3/8" means 10.0.0.0/8.
  for (std::size_t bit = out.length; bit < ipv4_bits; ++bit)
    out.bytes[bit / 8] = uint8_t(out.bytes[bit / 8] & ~(0x80 >> (bit % 8)));
  return true;
}

bool TransferAcl::allows(const ClientAddress& client, std::string_view key) const {
  if (!key.empty()) {
    return std::any_of(allow_keyed.begin(), allow_keyed.end(),
                       [&](const Keyed& k) { return k.key == key && k.prefix.contains(client); });
  }
  return std::any_of(allow.begin(), allow.end(),
                     [&](const AddressPrefix& p) { return p.contains(client); });
}

Transfer::Transfer(const Catalog& catalog, uint16_t zone, uint16_t id, uint16_t flags,
                   std::string_view question, const Opt& opt)
    : catalog_(&catalog), zone_(zone), id_(id), flags_(flags), opt_(opt), stage_(Stage::first_soa) {
  question_size_ = uint16_t(std::min(question.size(), question_.size()));
  std::memcpy(question_.data(), question.data(), question_size_);
}

bool Transfer::advance_rrset() {
  const uint32_t soa = catalog_->zone(zone_).soa;
  for (; node_ < catalog_->node_count(); ++node_, rrset_ = 0) {
    const Node& n = catalog_->node(node_);
    if (n.zone != zone_) continue;
    for (; rrset_ < n.rrset_count; ++rrset_) {
      if (n.first_rrset + rrset_ == soa) continue;
      record_ = 0;
      offset_ = catalog_->rrset(n.first_rrset + rrset_).data;
      return true;
    }
  }
  return false;
}

std::size_t Transfer::next(std::span<uint8_t> out) {
  if (stage_ == Stage::done || out.size() < header_size + question_size_) return 0;
  const bool first = messages_ == 0;
  // Room for the TSIG record when signed (RFC 8945 §5.3.1: every message here).
  const std::size_t tsig_bytes = signer_.active() ? signer_.record_size() : 0;
  const std::size_t hard = std::min(out.size(), max_message_size) - tsig_bytes;
  const std::size_t opt_bytes = first && opt_.present ? opt_size(ede::none, {}, opt_.keepalive) : 0;
  const std::size_t fill = std::min(hard, fill_size) - opt_bytes;
  MessageWriter w(out.data(), fill);
  std::memset(out.data(), 0, header_size);
  w.rewind(header_size);
  if (first) {
    w.put_bytes(std::string_view(reinterpret_cast<const char*>(question_.data()), question_size_));
    const std::size_t name_size = question_size_ - 4;  // the question ends with QTYPE, QCLASS
    w.remember_name(header_size,
                    std::string_view(reinterpret_cast<const char*>(question_.data()), name_size));
  }
  const Zone& zone = catalog_->zone(zone_);
  const std::string_view apex = catalog_->name(zone.apex);
  const RRView soa = catalog_->first_rr(catalog_->rrset(zone.soa));
  uint16_t count = 0;
  if (stage_ == Stage::first_soa) {
    if (put_rr(w, apex, rr_type::soa, soa)) ++count;
    node_ = 0;
    rrset_ = 0;
    stage_ = advance_rrset() ? Stage::records : Stage::last_soa;
  }
  bool full = false;
  while (stage_ == Stage::records && !full) {
    const Node& node = catalog_->node(node_);
    const RRset& set = catalog_->rrset(node.first_rrset + rrset_);
    const std::string_view owner = catalog_->name(node_);
    while (record_ < set.count) {
      const RRView rr = catalog_->rr_at(offset_);
      bool fitted = put_rr(w, owner, set.type, rr);
      if (!fitted && count == 0) {
        // A record larger than fill_size: a message of its own, up to
        // 65,535 octets (as NSD); one that no message can hold (not from a
        // zone that loaded) is skipped rather than stalling the transfer.
        w.set_limit(hard - opt_bytes);
        fitted = put_rr(w, owner, set.type, rr);
        w.set_limit(fill);
      } else if (!fitted) {
        full = true;
        break;
      }
      if (fitted) ++count;
      ++record_;
      offset_ += rr_header_size + rr.rdata.size();
    }
    if (record_ == set.count) {
      ++rrset_;
      if (!advance_rrset()) stage_ = Stage::last_soa;
    }
  }
  if (stage_ == Stage::last_soa && !full && put_rr(w, apex, rr_type::soa, soa)) {
    ++count;
    stage_ = Stage::done;
  }
  uint16_t arcount = 0;
  if (opt_bytes != 0) {
    w.set_limit(hard);
    write_opt(w, opt_.payload, rcode::noerror, opt_.dnssec_ok, ede::none, {}, opt_.keepalive);
    arcount = 1;
  }
  store16(out.data(), id_);
  store16(out.data() + 2, uint16_t(flag::qr | flag::aa | (flags_ & flag::rd)));
  store16(out.data() + 4, first ? 1 : 0);
  store16(out.data() + 6, count);
  store16(out.data() + 8, 0);
  store16(out.data() + 10, arcount);
  ++messages_;
  if (!signer_.active()) return w.position();
  return signer_.sign(out.data(), w.position(), std::min(out.size(), max_message_size),
                      clock_ ? clock_() : 0);
}

}  // namespace keel::dns

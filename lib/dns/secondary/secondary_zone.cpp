// A secondary zone's setting ("ZONE:ADDRESS[#PORT][@KEY]") and its refresh,
// retry and expire timers (RFC 1035 §3.3.13).
#include <algorithm>

#include "keel/dns/name.hpp"
#include "keel/dns/secondary.hpp"
#include "keel/dns/transfer.hpp"
#include "keel/dns/tsig.hpp"
#include "wire/bytes.hpp"

namespace keel::dns {
namespace {

constexpr uint64_t ms_per_second = 1000;
constexpr std::size_t soa_numbers = 20;  // SERIAL REFRESH RETRY EXPIRE MINIMUM

}  // namespace

std::string parse_secondary(std::string_view text, SecondaryZone& out) {
  out = SecondaryZone{};
  const std::size_t colon = text.find(':');
  if (colon == std::string_view::npos)
    return "'" + std::string(text) + "' is not ZONE:ADDRESS[#PORT][@KEY]";
  const std::string_view zone = text.substr(0, colon);
  out.origin = tsig_key_name(zone);  // a name as a key's is written: no escapes
  if (out.origin.empty()) return "'" + std::string(zone) + "' is not a zone name";
  std::string_view rest = text.substr(colon + 1);
  if (const std::size_t at = rest.find('@'); at != std::string_view::npos) {
    const std::string_view key = rest.substr(at + 1);
    out.key = tsig_key_name(key);
    if (out.key.empty()) return "'" + std::string(key) + "' is not a key name";
    rest = rest.substr(0, at);
  }
  uint32_t port = default_dns_port;
  if (const std::size_t hash = rest.find('#'); hash != std::string_view::npos) {
    const std::string_view digits = rest.substr(hash + 1);
    port = 0;
    if (digits.empty() || digits.size() > 5) port = 1u << 16;
    for (char c : digits) port = c >= '0' && c <= '9' ? port * 10 + uint32_t(c - '0') : 1u << 16;
    if (port == 0 || port > 65535) return "'" + std::string(digits) + "' is not a port";
    rest = rest.substr(0, hash);
  }
  AddressPrefix address;
  if (rest.find('/') != std::string_view::npos || !parse_prefix(rest, address))
    return "'" + std::string(rest) + "' is not an IPv4 address";
  out.primary.family = address.family;
  out.primary.bytes = address.bytes;
  out.primary.port = uint16_t(port);
  return {};
}

std::optional<Soa> read_soa(std::string_view rdata) {
  std::size_t pos = 0;
  for (int name = 0; name < 2; ++name) {  // MNAME, RNAME: uncompressed
    while (pos < rdata.size() && rdata[pos] != 0) pos += 1 + uint8_t(rdata[pos]);
    if (pos >= rdata.size()) return std::nullopt;
    ++pos;
  }
  if (rdata.size() - pos != soa_numbers) return std::nullopt;
  return Soa{load32(rdata, pos), load32(rdata, pos + 4), load32(rdata, pos + 8),
             load32(rdata, pos + 12), load32(rdata, pos + 16)};
}

void SecondaryTimers::on_loaded(const Soa& soa, uint64_t now) {
  serial_ = soa.serial;
  soa_ = soa;
  on_up_to_date(now);
}

void SecondaryTimers::on_up_to_date(uint64_t now) {
  failures_ = 0;
  refreshed_at_ = now;
  due_ = now + uint64_t(soa_.refresh) * ms_per_second;
}

void SecondaryTimers::on_failed(uint64_t now) {
  ++failures_;
  if (!serial_) {
    const uint32_t doublings = std::min<uint32_t>(failures_ - 1, 16);
    due_ = now + std::min(first_retry_ms << doublings, max_initial_retry_ms);
    return;
  }
  due_ = now + uint64_t(std::max<uint32_t>(soa_.retry, 1)) * ms_per_second;
}

bool SecondaryTimers::expired(uint64_t now) const { return serial_ && now >= expires_at(); }

SecondaryTimers::State SecondaryTimers::state(uint64_t now) const {
  if (!serial_) return State::empty;
  return expired(now) ? State::expired : State::loaded;
}

}  // namespace keel::dns

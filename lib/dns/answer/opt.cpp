#include "answer/opt.hpp"

#include "answer/plan.hpp"
#include "keel/dns/constants.hpp"

namespace keel::dns {
namespace {
constexpr std::size_t ede_option_header = 6;  // code, length, INFO-CODE (RFC 8914 §2)
constexpr uint16_t ede_option_code = 15;
}  // namespace

std::size_t opt_size(int ede, std::string_view text, int32_t keepalive) {
  return opt_record_size + (ede == ede::none ? 0 : ede_option_header + text.size()) +
         (keepalive < 0 ? 0 : keepalive_option_size);
}

bool write_opt(MessageWriter& w, uint16_t payload, uint16_t rcode, bool dnssec_ok, int ede,
               std::string_view text, int32_t keepalive) {
  const uint32_t ttl = uint32_t(rcode >> 4) << 24 | (dnssec_ok ? edns_do_bit : 0u);
  const std::size_t length = opt_size(ede, text, keepalive) - opt_record_size;
  bool ok = w.put8(0) && w.put16(rr_type::opt) && w.put16(payload) && w.put32(ttl) &&
            w.put16(uint16_t(length));
  if (ok && ede != ede::none) {
    ok = w.put16(ede_option_code) && w.put16(uint16_t(2 + text.size())) && w.put16(uint16_t(ede)) &&
         w.put_bytes(text);
  }
  if (ok && keepalive >= 0)
    ok = w.put16(keepalive_option_code) && w.put16(2) && w.put16(uint16_t(keepalive));
  return ok;
}

}  // namespace keel::dns

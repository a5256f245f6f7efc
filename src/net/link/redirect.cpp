#include "redirect.hpp"

#include <cstring>

#include "net/ip6/addr.hpp"
#include "net/wire/icmp6.hpp"

namespace net {
namespace {

namespace nd = wire::nd;

ip6::Addr read_addr(const uint8_t* p) {
  ip6::Addr a;
  std::memcpy(a.bytes.data(), p, a.bytes.size());
  return a;
}

}  // namespace

RedirectError parse_redirect(const ip6::Addr& src, const uint8_t* m, std::size_t len,
                             RedirectRepr& out) {
  out = RedirectRepr{};
  if (!ip6addr::is_link_local(src)) return RedirectError::bad_source;  // §8.1
  if (len < nd::redirect_size) return RedirectError::bad_format;
  out.target = read_addr(m + nd::redirect_target_at);
  out.destination = read_addr(m + nd::redirect_destination_at);
  if (ip6addr::is_multicast(out.destination)) return RedirectError::bad_format;
  if (!ip6addr::is_link_local(out.target) && out.target != out.destination)
    return RedirectError::bad_format;
  for (std::size_t i = nd::redirect_size; i < len;) {
    if (len - i < 2) return RedirectError::bad_format;
    std::size_t size = std::size_t(m[i + 1]) * nd::option_unit;
    if (size == 0 || size > len - i) return RedirectError::bad_format;  // §8.1: zero length
    if (m[i] == nd::option_target_mac) {
      if (size < nd::mac_option_size) return RedirectError::bad_format;
      ethernet::Addr mac = ethernet::Addr::from(m + i + 2);
      if (mac.is_multicast()) return RedirectError::bad_format;
      if (!out.target_mac) out.target_mac = mac;
    }
    i += size;  // the Redirected Header (§4.6.3) and unknown options: skipped
  }
  return RedirectError::none;
}

}  // namespace net

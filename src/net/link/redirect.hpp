// A Redirect as received (RFC 4861 §4.5), parsed with the validity checks
// of §8.1 that are not the ICMPv6 layer's (hop limit 255 and code 0, as for
// every ND message) nor routing's (that the source is the current first
// hop of the destination): a link-local source, 40 bytes at least, a
// destination that is no group, a target that is link-local (a better
// router) or the destination itself (on the link), and every option with a
// non-zero length inside the message. A target link-layer address option
// must hold a unicast MAC; the Redirected Header and unknown options are
// skipped (§4.6).
#pragma once
#include <cstddef>
#include <cstdint>
#include <net/address.hpp>
#include <net/ethernet_addr.hpp>
#include <optional>

namespace net {

struct RedirectRepr {
  ip6::Addr target, destination;
  std::optional<ethernet::Addr> target_mac;
};

enum class RedirectError : uint8_t { none, bad_source, bad_format };

// The Redirect of `len` bytes at `m` (the ICMPv6 message) from `src`.
RedirectError parse_redirect(const ip6::Addr& src, const uint8_t* m, std::size_t len,
                             RedirectRepr& out);

}  // namespace net

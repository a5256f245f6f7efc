// A token bucket on the stack's clock: at most `burst` at once, then `per_second`. ICMPv4 and
// ICMPv6 bound the errors they send with one each (RFC 1812 §4.3.2.8, RFC 4443 §2.4 (f)).
#pragma once
#include <algorithm>
#include <cstdint>

#include "net/time.hpp"

namespace net {

template <uint32_t burst, uint32_t per_second>
class TokenBucket {
 public:
  // Takes a token at `now` (ns); false when there is none.
  bool take(uint64_t now) {
    constexpr uint64_t per_token = ns_per_second / per_second;
    if (now - refilled_ns_ >= per_token) {
      const uint64_t add = (now - refilled_ns_) / per_token;
      tokens_ = uint32_t(std::min<uint64_t>(burst, tokens_ + add));
      refilled_ns_ += add * per_token;
    }
    if (tokens_ == 0) return false;
    --tokens_;
    return true;
  }

 private:
  uint32_t tokens_ = burst;
  uint64_t refilled_ns_ = 0;
};

}  // namespace net

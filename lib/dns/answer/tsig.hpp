// TSIG (RFC 8945) on the answer path: reading a request's TSIG record,
// checking it (§5.2), and signing responses (§5.3), one message or each of
// a zone transfer's (§5.3.1). The HMACs are mbed TLS's (lib/mbedtls).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "keel/dns/tsig.hpp"

namespace keel::dns {

inline constexpr std::size_t max_tsig_mac = 64;  // HMAC-SHA-512's output
inline constexpr uint16_t tsig_fudge = 300;      // seconds; RFC 8945 §10 recommends 300

// A request's TSIG record, as sent (§4.2). Names point into the message,
// uncompressed wire form.
struct TsigRecord {
  std::size_t start = 0;     // offset of the record: the MAC covers the octets before it
  std::string key_name;      // lower case (owner names may be compressed in theory)
  std::string algorithm;     // lower case
  uint64_t time_signed = 0;  // 48 bits, seconds since 1970
  uint16_t fudge = 0;
  std::string_view mac;
  uint16_t original_id = 0;
  uint16_t error = 0;
  std::string_view other;
};

// Reads the TSIG record at `pos`, which must be the message's last record
// (§5.1: CLASS ANY, TTL 0); returns the offset past it, or 0 if malformed.
std::size_t read_tsig(std::string_view message, std::size_t pos, TsigRecord& out);

// The outcome of checking a request (§5.2).
struct TsigCheck {
  enum Result : uint8_t { ok, formerr, refused } result = ok;
  uint16_t error = 0;            // tsig_error::* when refused
  const TsigKey* key = nullptr;  // the key named, when known (ok, and BADTIME)
};

// Checks `tsig` (read from `message`) against `keys` at `now` (seconds since
// 1970): key and algorithm (BADKEY), MAC (BADSIG), time (BADTIME), in the
// order of §5.2. MACs shorter than the algorithm's output are refused with
// BADTRUNC (§5.2.2.1 lets local policy refuse them; Keel does not truncate).
TsigCheck check_tsig(std::string_view message, const TsigRecord& tsig,
                     const std::vector<TsigKey>& keys, uint64_t now);

// Signs a response, or each message of a stream of them (§5.3, §5.3.1).
class TsigSigner {
 public:
  TsigSigner() = default;
  // `request` is the checked request's record; its MAC starts the chain.
  TsigSigner(const TsigKey& key, const TsigRecord& request);
  bool active() const { return key_ != nullptr; }
  std::string_view key_name() const {
    return key_ ? std::string_view(key_->name) : std::string_view();
  }
  // Octets sign() appends: leave this much room in the message.
  std::size_t record_size(uint16_t error = 0) const;
  // Appends the TSIG record to the message of `size` octets in `out`
  // (ARCOUNT patched) and returns the new size; 0 if it does not fit in
  // `capacity`. The first message's MAC covers the request's MAC and all the
  // variables (§4.3.3); later ones the previous MAC and the timers only.
  // `error` BADTIME puts `now` in Other Data and signs with the request's time.
  std::size_t sign(uint8_t* out, std::size_t size, std::size_t capacity, uint64_t now,
                   uint16_t error = 0);

 private:
  const TsigKey* key_ = nullptr;
  std::array<uint8_t, max_tsig_mac> prior_{};
  uint8_t prior_size_ = 0;
  uint16_t original_id_ = 0;
  uint64_t request_time_ = 0;
  bool first_ = true;
};

// The unsigned TSIG record of an error answer (§5.3.2: BADKEY, BADSIG and
// BADTRUNC get an empty MAC), appended as sign() does; 0 if it does not fit.
std::size_t append_unsigned_tsig(uint8_t* out, std::size_t size, std::size_t capacity,
                                 const TsigRecord& request, uint16_t error);

}  // namespace keel::dns

// TSIG's HMAC and record layout (RFC 8945 §4), shared by the server side
// (tsig.cpp: checking requests, signing answers) and the client side of a
// secondary (secondary/tsig_client.cpp: signing requests, checking answers).
#pragma once
#include <mbedtls/md.h>

#include <cstdlib>
#include <cstring>
#include <span>
#include <string_view>

#include "answer/tsig_algorithms.hpp"
#include "keel/dns/constants.hpp"
#include "wire/bytes.hpp"

namespace keel::dns::tsig_detail {

inline constexpr uint16_t class_any = 255;
inline constexpr std::size_t rr_fixed = 10;  // TYPE CLASS TTL RDLENGTH
inline constexpr std::size_t time_octets = 6;

// mbed TLS fails only on bad parameters or out of memory, not on input.
inline void must(int status) {
  if (status != 0) std::abort();
}

// One HMAC computation, fed in pieces.
class Hmac {
 public:
  explicit Hmac(const TsigKey& key) : size_(algorithm_of(key.algorithm).mac_size) {
    mbedtls_md_init(&context_);
    constexpr int with_hmac = 1;
    must(mbedtls_md_setup(&context_, mbedtls_md_info_from_type(algorithm_of(key.algorithm).md),
                          with_hmac));
    must(mbedtls_md_hmac_starts(&context_, key.secret.data(), key.secret.size()));
  }
  ~Hmac() { mbedtls_md_free(&context_); }
  Hmac(const Hmac&) = delete;
  Hmac& operator=(const Hmac&) = delete;
  void add(const void* data, std::size_t size) {
    must(mbedtls_md_hmac_update(&context_, static_cast<const unsigned char*>(data), size));
  }
  void add(std::string_view s) { add(s.data(), s.size()); }
  void add16(uint16_t v) {
    const uint8_t b[2] = {uint8_t(v >> 8), uint8_t(v)};
    add(b, 2);
  }
  void add_time(uint64_t t) {
    uint8_t b[time_octets];
    for (std::size_t i = 0; i < time_octets; ++i) b[i] = uint8_t(t >> (8 * (time_octets - 1 - i)));
    add(b, time_octets);
  }
  std::size_t finish(uint8_t* out) {
    must(mbedtls_md_hmac_finish(&context_, out));
    return size_;
  }

 private:
  mbedtls_md_context_t context_;
  std::size_t size_;
};

// The message as it was signed (§4.3.2): its header with the original ID
// and ARCOUNT before the TSIG was added, then the rest.
inline void add_message(Hmac& h, const uint8_t* m, std::size_t size, uint16_t original_id,
                        uint16_t arcount) {
  uint8_t header[header_size];
  std::memcpy(header, m, header_size);
  store16(header, original_id);
  store16(header + 10, arcount);
  h.add(header, header_size);
  h.add(m + header_size, size - header_size);
}

// The TSIG variables of §4.3.3 (all, or the timers only).
inline void add_variables(Hmac& h, std::string_view key_name, std::string_view algorithm,
                          uint64_t time, uint16_t fudge, uint16_t error, std::string_view other,
                          bool timers_only) {
  if (!timers_only) {
    h.add(key_name);
    h.add16(class_any);
    h.add16(0);
    h.add16(0);  // TTL 0, 32 bits
    h.add(algorithm);
  }
  h.add_time(time);
  h.add16(fudge);
  if (timers_only) return;
  h.add16(error);
  h.add16(uint16_t(other.size()));
  h.add(other);
}

inline std::size_t tsig_record_size(std::string_view key_name, std::string_view algorithm,
                                    std::size_t mac, std::size_t other) {
  // owner, fixed part, algorithm, time, fudge, MAC size, MAC, ID, error, other len, other
  return key_name.size() + rr_fixed + algorithm.size() + time_octets + 2 + 2 + mac + 2 + 2 + 2 +
         other;
}

// Writes a TSIG record at out + size and bumps ARCOUNT; 0 if it does not fit.
inline std::size_t put_tsig(uint8_t* out, std::size_t size, std::size_t capacity,
                            std::string_view key_name, std::string_view algorithm, uint64_t time,
                            std::span<const uint8_t> mac, uint16_t original_id, uint16_t error,
                            std::span<const uint8_t> other) {
  const std::size_t total = tsig_record_size(key_name, algorithm, mac.size(), other.size());
  if (capacity < size || capacity - size < total) return 0;
  uint8_t* p = out + size;
  auto put = [&p](const void* data, std::size_t n) {
    if (n == 0) return;  // an empty MAC or Other Data has no pointer to copy from
    std::memcpy(p, data, n);
    p += n;
  };
  auto put16 = [&p](uint16_t v) {
    store16(p, v);
    p += 2;
  };
  put(key_name.data(), key_name.size());
  put16(rr_type::tsig);
  put16(class_any);
  put16(0);
  put16(0);
  put16(uint16_t(total - key_name.size() - rr_fixed));
  put(algorithm.data(), algorithm.size());
  for (std::size_t i = 0; i < time_octets; ++i) *p++ = uint8_t(time >> (8 * (time_octets - 1 - i)));
  put16(tsig_fudge);
  put16(uint16_t(mac.size()));
  put(mac.data(), mac.size());
  put16(original_id);
  put16(error);
  put16(uint16_t(other.size()));
  put(other.data(), other.size());
  store16(out + 10, uint16_t(load16(out + 10) + 1));
  return size + total;
}

}  // namespace keel::dns::tsig_detail

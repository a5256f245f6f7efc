// client_hello.hpp: only the path to the cipher suites is read, each length checked against
// the record's and the bytes at hand.
#include "client_hello.hpp"

#include <cstddef>

#include "util/big_endian.hpp"

namespace keel::tls {
namespace {

constexpr uint8_t kHandshakeRecord = 22;     // RFC 8446 §5.1 ContentType.handshake
constexpr uint8_t kClientHello = 1;          // §4 HandshakeType.client_hello
constexpr std::size_t kRecordHeader = 5;     // type, legacy_record_version, length
constexpr std::size_t kHandshakeHeader = 4;  // type, uint24 length
constexpr std::size_t kVersionAndRandom = 2 + 32;
constexpr std::size_t kMaxSessionId = 32;

class Reader {
 public:
  explicit Reader(std::span<const uint8_t> bytes) : bytes_(bytes) {}
  bool has(std::size_t n) const { return bytes_.size() - at_ >= n; }
  uint8_t u8() { return bytes_[at_++]; }
  uint16_t u16() {
    at_ += 2;
    return keel::util::load16(&bytes_[at_ - 2]);
  }
  void skip(std::size_t n) { at_ += n; }
  // The bytes from here on, no further than `n`.
  void limit(std::size_t n) {
    if (has(n)) bytes_ = bytes_.first(at_ + n);
  }

 private:
  std::span<const uint8_t> bytes_;
  std::size_t at_ = 0;
};

}  // namespace

bool client_hello_offers(std::span<const uint8_t> first_bytes, uint16_t suite) {
  Reader r(first_bytes);
  if (!r.has(kRecordHeader) || r.u8() != kHandshakeRecord) return false;
  r.skip(2);
  r.limit(r.u16());  // the ClientHello's first record (§5.1: it may go on in the next)
  if (!r.has(kHandshakeHeader) || r.u8() != kClientHello) return false;
  const std::size_t length = std::size_t(r.u8()) << 16 | r.u16();
  r.limit(length);
  if (!r.has(kVersionAndRandom + 1)) return false;
  r.skip(kVersionAndRandom);
  const std::size_t session_id = r.u8();
  if (session_id > kMaxSessionId || !r.has(session_id + 2)) return false;
  r.skip(session_id);
  const std::size_t suites = r.u16();
  if (suites % 2 != 0 || !r.has(suites)) return false;
  for (std::size_t i = 0; i < suites; i += 2) {
    if (r.u16() == suite) return true;
  }
  return false;
}

}  // namespace keel::tls

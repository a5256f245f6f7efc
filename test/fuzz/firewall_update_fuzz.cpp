// libFuzzer target: the firewall's rule-update protocol (update_channel.hpp). Build with
// -DKEEL_FUZZ=ON (clang); run test/fuzz/run_firewall.sh.
//
// Input: records, each `KIND LEN(2, big-endian) BYTES[LEN]`:
//   KIND 0           BYTES as a datagram from someone without the key
//   KIND 1..4        BYTES as the BODY of a request of that type, signed with the key under the
//                    current session and the next SEQ (KIND 1, HELLO: a fresh one), so the fuzzer
//                    reaches what lies behind the MAC
//   KIND 5           the last signed request again (a replay)
//   other            the same as 0
// Invariants (abort): no crash or undefined behaviour (ASan/UBSan); no reply to a datagram
// without the key nor to a replay; every reply no larger than its request; no upload larger
// than the limit; a blob is loaded only if its digest is the one committed.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <vector>

#include "keel/crypto/hmac_sha256.hpp"
#include "keel/firewall/update_channel.hpp"
#include "update_client.hpp"

namespace {

namespace update = keel::firewall::update;
constexpr size_t kMaxBlob = 8192;

void check(bool ok) {
  if (!ok) std::abort();
}

update::Key fuzz_key() {
  update::Key key;
  check(update::parse_key("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", key));
  return key;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const update::Key key = fuzz_key();
  std::vector<std::vector<uint8_t>> committed;  // blobs the loader was handed
  uint64_t challenges = 0;                      // every challenge distinct, as random ones are
  update::Channel channel(
      key, kMaxBlob,
      [&](std::span<const uint8_t> blob) {
        committed.emplace_back(blob.begin(), blob.end());
        return blob.size() % 3 ? keel::firewall::LoadStatus::ok
                               : keel::firewall::LoadStatus::bad_magic;
      },
      [&](std::span<uint8_t> out) {
        std::fill(out.begin(), out.end(), 0x5a);
        keel::util::store64(out.data(), ++challenges);
      });
  std::vector<uint8_t> session(update::kSessionBytes, 0), last;
  uint64_t seq = 0, hello_seq = 0;
  std::array<uint8_t, update::kMaxMessage> reply;

  size_t at = 0;
  while (at + 3 <= size) {
    const uint8_t kind = data[at];
    const size_t len = std::min<size_t>(size_t(data[at + 1]) << 8 | data[at + 2], size - at - 3);
    std::span<const uint8_t> bytes(data + at + 3, len);
    at += 3 + len;
    std::vector<uint8_t> request;
    bool authentic = false;
    if (kind >= 1 && kind <= 4) {
      if (kind == 1)
        request = update::testing::signed_message(
            key.span(), kind, bytes.first(std::min<size_t>(len, update::kSessionBytes)),
            ++hello_seq, bytes);
      else
        request = update::testing::signed_message(key.span(), kind, session, ++seq, bytes);
      authentic = true;
      last = request;
    } else if (kind == 5) {
      request = last;
    } else {
      request.assign(bytes.begin(), bytes.end());
    }
    const size_t loaded_before = channel.counters().loaded;
    size_t n = channel.handle(request, reply);
    check(n <= request.size());
    check(n == 0 || authentic);  // no reply without the key, nor to a replay
    check(channel.upload_capacity() <= kMaxBlob);
    if (n && kind == 1 && n == update::kMinMessage + update::kSessionBytes) {
      session.assign(reply.begin() + update::kHeaderBytes,
                     reply.begin() + update::kHeaderBytes + update::kSessionBytes);
      seq = 0;
    }
    if (channel.counters().loaded != loaded_before) {
      // The COMMIT's digest is the last 32 bytes of its body.
      std::span<const uint8_t> digest =
          std::span(request).subspan(request.size() - update::kMacBytes - 32, 32);
      keel::crypto::Sha256Digest actual = keel::crypto::sha256(committed.back());
      check(std::equal(digest.begin(), digest.end(), actual.begin()));
    }
  }
  return 0;
}

#pragma once
// The protocol of the appliance's rule-update port, without the socket (rule_updates.hpp binds
// it to UDP): one request datagram in, at most one reply out. docs/decisions/0052 says why.
// Every message, integers big-endian:
//
//   "KFW2" TYPE(1) SESSION(16) SEQ(8) BODY MAC(32)
//
// MAC is HMAC-SHA-256 (RFC 2104) under the key from the configuration of every byte before it.
// A reply has TYPE | 0x80, the request's SESSION and SEQ, and a BODY no longer than the
// request's, so it is never larger than what it answers.
//
//   type    request BODY                        reply BODY
//   HELLO   16 bytes of padding                 CHALLENGE(16)
//   BEGIN   GENERATION(8) SIZE(4)               STATUS(1) DETAIL(1) LOADED_GENERATION(8)
//   DATA    OFFSET(4) 1..1024 bytes             STATUS(1)
//   COMMIT  GENERATION(8) SHA-256 of blob(32)   STATUS(1) DETAIL(1) LOADED_GENERATION(8)
//
// A HELLO's SESSION is the client's nonce and its SEQ must exceed every HELLO's taken since
// boot; the reply's CHALLENGE is 16 random bytes. Every other request names a challenge in
// SESSION: the current session's, with SEQ above the last one taken in it, or the challenge
// last offered, which then becomes the session (ending any upload of the one before).
//
// Guarantees: a request that is truncated, oversized, malformed, fails its MAC, repeats a SEQ
// or names no live session changes nothing, allocates nothing and gets no reply: it is a
// counted drop. Only an authenticated, fresh BEGIN allocates (at most max_bytes) or restarts an
// upload. A blob is loaded only when every piece arrived in the session that began it and its
// SHA-256 matches the COMMIT's, and only with a GENERATION above the last one loaded.
#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "keel/crypto/hmac_sha256.hpp"
#include "keel/firewall/classifier.hpp"

namespace keel::firewall::update {

inline constexpr uint8_t kMagic[4] = {'K', 'F', 'W', '2'};
inline constexpr size_t kMagicBytes = 4, kSessionBytes = 16, kSeqBytes = 8;
inline constexpr size_t kHeaderBytes = kMagicBytes + 1 + kSessionBytes + kSeqBytes;
inline constexpr size_t kMacBytes = crypto::kSha256Bytes;
inline constexpr size_t kPieceBytes = 1024;
inline constexpr size_t kMinMessage = kHeaderBytes + kMacBytes;
inline constexpr size_t kMaxMessage = kMinMessage + 4 + kPieceBytes;  // the largest DATA
inline constexpr uint8_t kReplyBit = 0x80;

enum class Type : uint8_t { hello = 1, begin = 2, data = 3, commit = 4 };
enum class Status : uint8_t {
  ok = 0,
  size_out_of_bounds = 1,
  generation_not_above = 2,  // DETAIL 0; LOADED_GENERATION says what to exceed
  bad_piece = 3,
  pieces_missing = 4,
  digest_mismatch = 5,
  blob_refused = 6,     // DETAIL: the LoadStatus
  not_this_upload = 7,  // no upload in progress, or another generation's
};

// HMAC keys are 16 to 64 bytes: RFC 2104 §3 calls keys under the hash's 32 bytes weak (16 is
// the old channel's 128-bit key, still taken) and hashes longer ones to 32 anyway.
inline constexpr size_t kMinKeyBytes = 16, kMaxKeyBytes = 64;
struct Key {
  std::array<uint8_t, kMaxKeyBytes> bytes{};
  size_t size = 0;
  std::span<const uint8_t> span() const { return {bytes.data(), size}; }
};
// Parses 32 to 128 hex digits (an even count); false otherwise.
bool parse_key(const std::string& hex, Key& key);

struct Counters {
  uint64_t messages = 0, hellos = 0, begun = 0, loaded = 0;
  // Dropped without a reply and without a change.
  uint64_t dropped_truncated = 0, dropped_oversized = 0, dropped_malformed = 0, dropped_mac = 0,
           dropped_replay = 0, dropped_stale_session = 0;
  // Authenticated requests refused (answered with the Status).
  uint64_t refused_size = 0, refused_generation = 0, refused_piece = 0, refused_incomplete = 0,
           refused_digest = 0, refused_blob = 0, refused_not_this_upload = 0;
  template <class Fn>
  void for_each(Fn&& fn) const {
    fn("messages", messages), fn("hellos", hellos), fn("begun", begun), fn("loaded", loaded);
    fn("dropped_truncated", dropped_truncated), fn("dropped_oversized", dropped_oversized);
    fn("dropped_malformed", dropped_malformed), fn("dropped_mac", dropped_mac);
    fn("dropped_replay", dropped_replay), fn("dropped_stale_session", dropped_stale_session);
    fn("refused_size", refused_size), fn("refused_generation", refused_generation);
    fn("refused_piece", refused_piece), fn("refused_incomplete", refused_incomplete);
    fn("refused_digest", refused_digest), fn("refused_blob", refused_blob);
    fn("refused_not_this_upload", refused_not_this_upload);
  }
};

class Channel {
 public:
  using Loader = std::function<LoadStatus(std::span<const uint8_t> blob)>;
  using Random = std::function<void(std::span<uint8_t> out)>;  // unpredictable bytes
  using Session = std::array<uint8_t, kSessionBytes>;

  Channel(const Key& key, size_t max_bytes, Loader load, Random random);

  // Handles one request; writes the reply into `reply` (kMaxMessage bytes suffice) and returns
  // its length, or 0 when the request gets no reply.
  size_t handle(std::span<const uint8_t> request, std::span<uint8_t> reply);

  const Counters& counters() const { return counters_; }
  uint64_t loaded_generation() const { return loaded_generation_; }
  bool upload_in_progress() const { return !blob_.empty(); }
  size_t upload_capacity() const { return blob_.capacity(); }

 private:
  struct Reply;
  bool fresh(Type type, const Session& session, uint64_t seq);
  void begin(std::span<const uint8_t> body, Reply& reply);
  void data(std::span<const uint8_t> body, Reply& reply);
  void commit(std::span<const uint8_t> body, Reply& reply);
  void end_upload();

  crypto::HmacSha256 mac_;  // allocated once: checking a MAC allocates nothing
  size_t max_bytes_;
  Loader load_;
  Random random_;
  Counters counters_;
  uint64_t last_hello_seq_ = 0;
  bool have_session_ = false, have_offer_ = false;
  Session session_{}, offer_{};
  uint64_t last_seq_ = 0;
  uint64_t loaded_generation_ = 0;
  crypto::Sha256Digest loaded_digest_{};
  // The upload in progress (empty: none).
  uint64_t upload_generation_ = 0;
  std::vector<uint8_t> blob_;
  std::vector<bool> have_;  // which pieces arrived
  size_t pieces_missing_ = 0;
};

}  // namespace keel::firewall::update

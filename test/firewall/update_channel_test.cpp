// The rule-update protocol (update_channel.hpp) against what an attacker without the key, or
// with a recording of a key holder's traffic, can send: nothing of it is answered or changes
// anything, and every reply is authentic and no larger than its request.
#include "keel/firewall/update_channel.hpp"

#include <gtest/gtest.h>

#include <optional>

#include "keel/firewall/classifier.hpp"
#include "update_client.hpp"

namespace keel::firewall::update {
namespace {

using testing::begin_body;
using testing::commit_body;
using testing::data_body;
using testing::signed_message;
using Bytes = std::vector<uint8_t>;

constexpr uint8_t kHello = 1, kBegin = 2, kData = 3, kCommit = 4;

Key key_of(const char* hex) {
  Key key;
  EXPECT_TRUE(parse_key(hex, key));
  return key;
}

const Key kKey = key_of("00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff");
const Key kOtherKey = key_of("ffeeddccbbaa99887766554433221100");

Bytes blob_of(size_t size) {
  Bytes blob(size);
  for (size_t i = 0; i < size; ++i) blob[i] = uint8_t(i * 7 + 3);
  return blob;
}

// A channel with a loader that records what it was given, and a client for it.
struct Rig {
  std::vector<Bytes> loaded;
  LoadStatus next_status = LoadStatus::ok;
  Classifier* classifier = nullptr;  // set: blobs go to it, as the appliance's do
  uint8_t next_random = 0x40;
  Channel channel{kKey, 1 << 20,
                  [this](std::span<const uint8_t> blob) {
                    loaded.emplace_back(blob.begin(), blob.end());
                    return classifier ? classifier->load(blob) : next_status;
                  },
                  [this](std::span<uint8_t> out) {
                    for (uint8_t& b : out) b = next_random++;
                  }};
  Bytes challenge;
  uint64_t seq = 0, hello_seq = 1000;
  Bytes last_reply;

  // Sends a request; returns its reply (checked: authentic, answering it, not larger).
  std::optional<Bytes> send(const Bytes& request) {
    std::array<uint8_t, kMaxMessage> out{};
    size_t n = channel.handle(request, out);
    if (!n) return std::nullopt;
    Bytes reply(out.begin(), out.begin() + n);
    EXPECT_LE(reply.size(), request.size());
    EXPECT_EQ(reply[4], request[4] | kReplyBit);
    EXPECT_TRUE(std::equal(request.begin() + 5, request.begin() + kHeaderBytes, reply.begin() + 5));
    crypto::Sha256Digest mac =
        crypto::hmac_sha256(kKey.span(), std::span(reply).first(n - kMacBytes));
    EXPECT_TRUE(std::equal(mac.begin(), mac.end(), reply.end() - kMacBytes));
    last_reply = reply;
    return reply;
  }
  Bytes hello_message(const Key& key = kKey) {
    Bytes nonce(kSessionBytes, 0xAA);
    return signed_message(key.span(), kHello, nonce, ++hello_seq, Bytes(kSessionBytes));
  }
  void hello() {
    std::optional<Bytes> reply = send(hello_message());
    ASSERT_TRUE(reply);
    challenge.assign(reply->begin() + kHeaderBytes, reply->begin() + kHeaderBytes + kSessionBytes);
    seq = 0;
  }
  Bytes request(uint8_t type, const Bytes& body, const Key& key = kKey) {
    return signed_message(key.span(), type, challenge, ++seq, body);
  }
  // The reply's STATUS (nullopt: no reply).
  std::optional<Status> status_of(const Bytes& request) {
    std::optional<Bytes> reply = send(request);
    if (!reply) return std::nullopt;
    return Status(reply->at(kHeaderBytes));
  }
  void upload_pieces(const Bytes& blob, size_t first, size_t last) {
    for (size_t offset = first; offset < last && offset < blob.size(); offset += kPieceBytes) {
      size_t n = std::min(kPieceBytes, blob.size() - offset);
      Bytes piece(blob.begin() + offset, blob.begin() + offset + n);
      ASSERT_EQ(status_of(request(kData, data_body(uint32_t(offset), piece))), Status::ok);
    }
  }
};

TEST(UpdateChannel, LoadsAnAuthenticatedUploadWithRepliesNoLargerThanRequests) {
  Rig rig;
  rig.hello();
  Bytes blob = blob_of(2500);
  EXPECT_EQ(rig.status_of(rig.request(kBegin, begin_body(7, 2500))), Status::ok);
  rig.upload_pieces(blob, 0, blob.size());
  EXPECT_EQ(rig.status_of(rig.request(kCommit, commit_body(7, blob))), Status::ok);
  ASSERT_EQ(rig.loaded.size(), 1u);
  EXPECT_EQ(rig.loaded[0], blob);
  EXPECT_EQ(rig.channel.loaded_generation(), 7u);
  EXPECT_FALSE(rig.channel.upload_in_progress());
  EXPECT_EQ(rig.channel.counters().loaded, 1u);
}

TEST(UpdateChannel, UnauthenticatedBeginNeitherDisturbsAnUploadNorAllocates) {
  Rig rig;
  // Before any upload: a forged BEGIN for the largest blob allocates nothing.
  rig.hello();
  Bytes huge = signed_message(kOtherKey.span(), kBegin, rig.challenge, 1, begin_body(9, 1 << 20));
  EXPECT_EQ(rig.status_of(huge), std::nullopt);
  EXPECT_EQ(rig.channel.upload_capacity(), 0u);
  EXPECT_FALSE(rig.channel.upload_in_progress());

  Bytes blob = blob_of(3000);
  EXPECT_EQ(rig.status_of(rig.request(kBegin, begin_body(5, 3000))), Status::ok);
  rig.upload_pieces(blob, 0, 2048);
  size_t capacity = rig.channel.upload_capacity();
  // Mid-upload: a BEGIN under the wrong key, and one with the right MAC but bits flipped.
  EXPECT_EQ(rig.status_of(signed_message(kOtherKey.span(), kBegin, rig.challenge, rig.seq + 1,
                                         begin_body(6, 1 << 20))),
            std::nullopt);
  Bytes flipped = rig.request(kBegin, begin_body(6, 1 << 20));
  flipped[kHeaderBytes + 9] ^= 1;
  EXPECT_EQ(rig.status_of(flipped), std::nullopt);
  EXPECT_EQ(rig.channel.upload_capacity(), capacity);
  EXPECT_EQ(rig.channel.counters().dropped_mac, 3u);
  EXPECT_EQ(rig.channel.counters().begun, 1u);
  // The upload goes on as if nothing had come.
  rig.upload_pieces(blob, 2048, blob.size());
  EXPECT_EQ(rig.status_of(rig.request(kCommit, commit_body(5, blob))), Status::ok);
  ASSERT_EQ(rig.loaded.size(), 1u);
  EXPECT_EQ(rig.loaded[0], blob);
}

TEST(UpdateChannel, WrongMacIsADropWithoutReply) {
  Rig rig;
  EXPECT_EQ(rig.status_of(rig.hello_message(kOtherKey)), std::nullopt);
  rig.hello();
  for (size_t byte : {size_t(0) + 5, kHeaderBytes, kHeaderBytes + 12}) {
    Bytes m = rig.request(kBegin, begin_body(3, 100));
    m[byte] ^= 0x80;
    EXPECT_EQ(rig.status_of(m), std::nullopt) << byte;
  }
  Bytes m = rig.request(kBegin, begin_body(3, 100));
  m.back() ^= 1;  // the MAC itself
  EXPECT_EQ(rig.status_of(m), std::nullopt);
  EXPECT_EQ(rig.channel.counters().dropped_mac, 5u);
  EXPECT_EQ(rig.channel.counters().begun, 0u);
}

TEST(UpdateChannel, ReplayedRequestsGetNothingAndChangeNothing) {
  Rig rig;
  Bytes hello = rig.hello_message();
  ASSERT_TRUE(rig.send(hello));
  EXPECT_EQ(rig.send(hello), std::nullopt);  // a recorded HELLO
  EXPECT_EQ(rig.channel.counters().dropped_replay, 1u);
  rig.hello();

  Bytes blob = blob_of(1500);
  Bytes begin = rig.request(kBegin, begin_body(4, 1500));
  EXPECT_EQ(rig.status_of(begin), Status::ok);
  Bytes first(blob.begin(), blob.begin() + 1024);
  Bytes piece = rig.request(kData, data_body(0, first));
  EXPECT_EQ(rig.status_of(piece), Status::ok);
  // The recorded BEGIN would restart the upload; it is dropped instead.
  EXPECT_EQ(rig.status_of(begin), std::nullopt);
  EXPECT_EQ(rig.status_of(piece), std::nullopt);
  EXPECT_EQ(rig.channel.counters().dropped_replay, 3u);
  EXPECT_EQ(rig.channel.counters().begun, 1u);
  rig.upload_pieces(blob, 1024, blob.size());
  Bytes commit = rig.request(kCommit, commit_body(4, blob));
  EXPECT_EQ(rig.status_of(commit), Status::ok);
  EXPECT_EQ(rig.status_of(commit), std::nullopt);
  EXPECT_EQ(rig.loaded.size(), 1u);

  // A recording of a whole earlier session, played into a later one, is stale.
  rig.hello();
  EXPECT_EQ(rig.status_of(rig.request(kBegin, begin_body(8, 10))), Status::ok);
  EXPECT_EQ(rig.status_of(begin), std::nullopt);
  EXPECT_EQ(rig.channel.counters().dropped_stale_session, 1u);
  EXPECT_TRUE(rig.channel.upload_in_progress());
}

TEST(UpdateChannel, ANewChallengeDisturbsNothingUntilAKeyHolderUsesIt) {
  Rig rig;
  rig.hello();
  Bytes old_challenge = rig.challenge;
  Bytes blob = blob_of(2000);
  EXPECT_EQ(rig.status_of(rig.request(kBegin, begin_body(2, 2000))), Status::ok);
  rig.upload_pieces(blob, 0, 1024);
  uint64_t old_seq = rig.seq;
  rig.hello();  // someone asks for a session: the upload goes on in the old one
  Bytes new_challenge = rig.challenge;
  rig.challenge = old_challenge, rig.seq = old_seq;
  rig.upload_pieces(blob, 1024, blob.size());
  EXPECT_EQ(rig.status_of(rig.request(kCommit, commit_body(2, blob))), Status::ok);
  // Once used, the new challenge is the session and the old one is stale.
  rig.challenge = new_challenge, rig.seq = 0;
  EXPECT_EQ(rig.status_of(rig.request(kBegin, begin_body(3, 10))), Status::ok);
  rig.challenge = old_challenge, rig.seq = 1000;
  EXPECT_EQ(rig.status_of(rig.request(kBegin, begin_body(4, 10))), std::nullopt);
  EXPECT_EQ(rig.channel.counters().dropped_stale_session, 1u);
}

TEST(UpdateChannel, NoSessionNoAnswer) {
  Rig rig;
  rig.challenge.assign(kSessionBytes, 0);  // a guessed challenge
  EXPECT_EQ(rig.status_of(rig.request(kBegin, begin_body(1, 10))), std::nullopt);
  EXPECT_EQ(rig.channel.counters().dropped_stale_session, 1u);
  EXPECT_EQ(rig.channel.upload_capacity(), 0u);
}

TEST(UpdateChannel, TruncatedOversizedAndMalformedAreCountedDrops) {
  Rig rig;
  rig.hello();
  Bytes good = rig.request(kData, data_body(0, Bytes(kPieceBytes, 1)));
  for (size_t n = 0; n < kMinMessage; ++n)
    EXPECT_EQ(rig.status_of(Bytes(good.begin(), good.begin() + n)), std::nullopt);
  EXPECT_EQ(rig.channel.counters().dropped_truncated, kMinMessage);
  Bytes oversized = rig.request(kData, data_body(0, Bytes(kPieceBytes + 1, 1)));
  EXPECT_EQ(oversized.size(), kMaxMessage + 1);
  EXPECT_EQ(rig.status_of(oversized), std::nullopt);
  EXPECT_EQ(rig.status_of(Bytes(65507, 0)), std::nullopt);
  EXPECT_EQ(rig.channel.counters().dropped_oversized, 2u);
  // Bodies of the wrong length for their type, an unknown type, a reply's type, bad magic.
  EXPECT_EQ(rig.status_of(rig.request(kBegin, Bytes(11))), std::nullopt);
  EXPECT_EQ(rig.status_of(rig.request(kCommit, Bytes(39))), std::nullopt);
  EXPECT_EQ(rig.status_of(rig.request(kData, Bytes(4))), std::nullopt);
  EXPECT_EQ(rig.status_of(rig.request(kHello, Bytes(15))), std::nullopt);
  EXPECT_EQ(rig.status_of(rig.request(9, Bytes(12))), std::nullopt);
  EXPECT_EQ(rig.status_of(rig.request(kBegin | kReplyBit, Bytes(12))), std::nullopt);
  Bytes magic = rig.request(kBegin, begin_body(1, 10));
  magic[3] = '1';
  EXPECT_EQ(rig.status_of(magic), std::nullopt);
  EXPECT_EQ(rig.channel.counters().dropped_malformed, 7u);
  EXPECT_EQ(rig.channel.counters().dropped_mac, 0u);
}

TEST(UpdateChannel, AuthenticatedRefusalsAreAnsweredAndCounted) {
  Rig rig;
  rig.hello();
  EXPECT_EQ(rig.status_of(rig.request(kBegin, begin_body(1, 0))), Status::size_out_of_bounds);
  EXPECT_EQ(rig.status_of(rig.request(kBegin, begin_body(1, (1 << 20) + 1))),
            Status::size_out_of_bounds);
  EXPECT_EQ(rig.channel.upload_capacity(), 0u);
  EXPECT_EQ(rig.status_of(rig.request(kData, data_body(0, Bytes(10)))), Status::not_this_upload);

  Bytes blob = blob_of(1500);
  EXPECT_EQ(rig.status_of(rig.request(kBegin, begin_body(5, 1500))), Status::ok);
  EXPECT_EQ(rig.status_of(rig.request(kData, data_body(1, Bytes(1024)))), Status::bad_piece);
  EXPECT_EQ(rig.status_of(rig.request(kData, data_body(1024, Bytes(400)))), Status::bad_piece);
  EXPECT_EQ(rig.status_of(rig.request(kData, data_body(2048, Bytes(10)))), Status::bad_piece);
  rig.upload_pieces(blob, 0, 1024);
  EXPECT_EQ(rig.status_of(rig.request(kCommit, commit_body(5, blob))), Status::pieces_missing);
  rig.upload_pieces(blob, 1024, blob.size());
  EXPECT_EQ(rig.status_of(rig.request(kCommit, commit_body(6, blob))), Status::not_this_upload);
  Bytes other = blob;
  other[0] ^= 1;
  EXPECT_EQ(rig.status_of(rig.request(kCommit, commit_body(5, other))), Status::digest_mismatch);
  EXPECT_TRUE(rig.loaded.empty());

  // A blob the loader refuses: the reason comes back in DETAIL.
  EXPECT_EQ(rig.status_of(rig.request(kBegin, begin_body(5, 1500))), Status::ok);
  rig.upload_pieces(blob, 0, blob.size());
  rig.next_status = LoadStatus::bad_magic;
  EXPECT_EQ(rig.status_of(rig.request(kCommit, commit_body(5, blob))), Status::blob_refused);
  EXPECT_EQ(rig.last_reply[kHeaderBytes + 1], uint8_t(LoadStatus::bad_magic));
  EXPECT_EQ(rig.channel.loaded_generation(), 0u);

  // Loaded; the COMMIT sent again (its answer lost) says so; older generations are refused.
  rig.next_status = LoadStatus::ok;
  EXPECT_EQ(rig.status_of(rig.request(kBegin, begin_body(5, 1500))), Status::ok);
  rig.upload_pieces(blob, 0, blob.size());
  EXPECT_EQ(rig.status_of(rig.request(kCommit, commit_body(5, blob))), Status::ok);
  EXPECT_EQ(rig.status_of(rig.request(kCommit, commit_body(5, blob))), Status::ok);
  EXPECT_EQ(rig.loaded.size(), 2u);
  EXPECT_EQ(rig.status_of(rig.request(kBegin, begin_body(5, 10))), Status::generation_not_above);
  EXPECT_EQ(rig.status_of(rig.request(kBegin, begin_body(4, 10))), Status::generation_not_above);

  const Counters& c = rig.channel.counters();
  EXPECT_EQ(c.refused_size, 2u);
  EXPECT_EQ(c.refused_piece, 3u);
  EXPECT_EQ(c.refused_incomplete, 1u);
  EXPECT_EQ(c.refused_digest, 1u);
  EXPECT_EQ(c.refused_blob, 1u);
  EXPECT_EQ(c.refused_generation, 2u);
  EXPECT_EQ(c.refused_not_this_upload, 2u);
}

// A pushed blob goes through the same checks as one compiled in: corrupted on its way to the
// key holder (so its digest matches), it is refused with the loader's reason and the rules in
// force stay; the same blob intact loads.
TEST(UpdateChannel, ACorruptedPushedBlobIsRefusedWithTheReason) {
  Tables tables;
  tables.strings = {"", "eth0"};
  tables.interfaces.push_back({.name = 1});
  const Bytes good = encode_tables(tables);
  Bytes corrupted = good;
  corrupted[200] ^= 0x10;  // in the chains, under the head's checksum
  Classifier in_force;
  Rig rig;
  rig.classifier = &in_force;
  rig.hello();
  EXPECT_EQ(rig.status_of(rig.request(kBegin, begin_body(7, uint32_t(corrupted.size())))),
            Status::ok);
  rig.upload_pieces(corrupted, 0, corrupted.size());
  EXPECT_EQ(rig.status_of(rig.request(kCommit, commit_body(7, corrupted))), Status::blob_refused);
  EXPECT_EQ(rig.last_reply[kHeaderBytes + 1], uint8_t(LoadStatus::bad_checksum));
  EXPECT_EQ(in_force.tables().interfaces.size(), 0u);
  EXPECT_EQ(rig.status_of(rig.request(kBegin, begin_body(7, uint32_t(good.size())))), Status::ok);
  rig.upload_pieces(good, 0, good.size());
  EXPECT_EQ(rig.status_of(rig.request(kCommit, commit_body(7, good))), Status::ok);
  ASSERT_EQ(in_force.tables().interfaces.size(), 1u);
  EXPECT_EQ(in_force.tables().strings[in_force.tables().interfaces[0].name], "eth0");
}

TEST(UpdateChannel, KeysAreSixteenToSixtyFourBytesOfHex) {
  Key key;
  EXPECT_FALSE(parse_key("", key));
  EXPECT_FALSE(parse_key(std::string(30, 'a'), key));
  EXPECT_FALSE(parse_key(std::string(33, 'a'), key));
  EXPECT_FALSE(parse_key(std::string(130, 'a'), key));
  EXPECT_FALSE(parse_key(std::string(31, 'a') + "g", key));
  EXPECT_TRUE(parse_key(std::string(32, 'a'), key));
  EXPECT_EQ(key.size, 16u);
  EXPECT_TRUE(parse_key(std::string(128, 'F'), key));
  EXPECT_EQ(key.size, 64u);
  EXPECT_EQ(key.bytes[63], 0xFF);
}

}  // namespace
}  // namespace keel::firewall::update

// The rule-update protocol (update_channel.hpp): authenticate first, then look at anything.
#include "keel/firewall/update_channel.hpp"

#include <algorithm>
#include <cstdlib>

#include "util/big_endian.hpp"

namespace keel::firewall::update {
namespace {

constexpr size_t kTypeAt = kMagicBytes, kSessionAt = kTypeAt + 1,
                 kSeqAt = kSessionAt + kSessionBytes;
constexpr size_t kHelloBody = kSessionBytes;  // padding: the reply's CHALLENGE is as long
constexpr size_t kBeginBody = 8 + 4, kOffsetBytes = 4;
constexpr size_t kCommitBody = 8 + crypto::kSha256Bytes;
constexpr size_t kStatusReply = 1, kResultReply = 1 + 1 + 8;

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Whether a body of `size` bytes is well formed for `type` (checked before the MAC: cheap).
bool body_size_fits(uint8_t type, size_t size) {
  switch (static_cast<Type>(type)) {
    case Type::hello:
      return size == kHelloBody;
    case Type::begin:
      return size == kBeginBody;
    case Type::data:
      return size > kOffsetBytes && size <= kOffsetBytes + kPieceBytes;
    case Type::commit:
      return size == kCommitBody;
  }
  return false;
}

}  // namespace

bool parse_key(const std::string& hex, Key& key) {
  if (hex.size() % 2 || hex.size() < 2 * kMinKeyBytes || hex.size() > 2 * kMaxKeyBytes)
    return false;
  Key parsed;
  for (size_t i = 0; i < hex.size(); i += 2) {
    int high = hex_digit(hex[i]), low = hex_digit(hex[i + 1]);
    if (high < 0 || low < 0) return false;
    parsed.bytes[i / 2] = static_cast<uint8_t>(high << 4 | low);
  }
  parsed.size = hex.size() / 2;
  key = parsed;
  return true;
}

// The reply under construction: its body is written after the request's header.
struct Channel::Reply {
  std::span<uint8_t> out;
  size_t body = 0;  // bytes of body written
  void status(Status s) { out[kHeaderBytes] = static_cast<uint8_t>(s), body = kStatusReply; }
  void result(Status s, uint8_t detail, uint64_t generation) {
    out[kHeaderBytes] = static_cast<uint8_t>(s);
    out[kHeaderBytes + 1] = detail;
    util::store64(&out[kHeaderBytes + 2], generation);
    body = kResultReply;
  }
};

Channel::Channel(const Key& key, size_t max_bytes, Loader load, Random random)
    : mac_(key.span()), max_bytes_(max_bytes), load_(std::move(load)), random_(std::move(random)) {}

size_t Channel::handle(std::span<const uint8_t> m, std::span<uint8_t> reply_buffer) {
  if (reply_buffer.size() < kMaxMessage) std::abort();  // the caller's bug, not bad input
  ++counters_.messages;
  if (m.size() < kMinMessage) return ++counters_.dropped_truncated, 0;
  if (m.size() > kMaxMessage) return ++counters_.dropped_oversized, 0;
  const size_t body_size = m.size() - kMinMessage;
  if (!std::equal(kMagic, kMagic + kMagicBytes, m.begin()) ||
      !body_size_fits(m[kTypeAt], body_size))
    return ++counters_.dropped_malformed, 0;
  const size_t signed_bytes = m.size() - kMacBytes;
  crypto::Sha256Digest mac = mac_.mac(m.first(signed_bytes));
  if (!crypto::equal_in_constant_time(mac, m.subspan(signed_bytes)))
    return ++counters_.dropped_mac, 0;

  // Authenticated. Fresh?
  const Type type = static_cast<Type>(m[kTypeAt]);
  Session session;
  std::copy_n(m.begin() + kSessionAt, kSessionBytes, session.begin());
  const uint64_t seq = util::load64(&m[kSeqAt]);
  if (!fresh(type, session, seq)) return 0;

  Reply reply{reply_buffer.first(m.size())};
  std::copy_n(m.begin(), kHeaderBytes, reply.out.begin());
  reply.out[kTypeAt] |= kReplyBit;
  std::span<const uint8_t> body = m.subspan(kHeaderBytes, body_size);
  switch (type) {
    case Type::hello:
      ++counters_.hellos;
      random_(offer_);
      have_offer_ = true;
      std::copy(offer_.begin(), offer_.end(), &reply.out[kHeaderBytes]);
      reply.body = kSessionBytes;
      break;
    case Type::begin:
      begin(body, reply);
      break;
    case Type::data:
      data(body, reply);
      break;
    case Type::commit:
      commit(body, reply);
      break;
  }
  // Every reply body is shorter than or as long as its request's (the table in the header).
  const size_t signed_reply = kHeaderBytes + reply.body;
  mac = mac_.mac(reply.out.first(signed_reply));
  std::copy(mac.begin(), mac.end(), &reply.out[signed_reply]);
  return signed_reply + kMacBytes;
}

// A HELLO must outnumber every HELLO before it; any other request must name the session with a
// SEQ above the last, or the challenge just offered (which starts a new session). A replayed
// request fails one of these and, being dropped, changes nothing.
bool Channel::fresh(Type type, const Session& session, uint64_t seq) {
  if (type == Type::hello) {
    if (seq <= last_hello_seq_) return ++counters_.dropped_replay, false;
    last_hello_seq_ = seq;
    return true;
  }
  if (have_session_ && session == session_) {
    if (seq <= last_seq_) return ++counters_.dropped_replay, false;
    last_seq_ = seq;
    return true;
  }
  if (have_offer_ && session == offer_ && seq > 0) {
    end_upload();  // the uploads of a session end with it
    session_ = offer_, have_session_ = true, have_offer_ = false;
    last_seq_ = seq;
    return true;
  }
  return ++counters_.dropped_stale_session, false;
}

void Channel::begin(std::span<const uint8_t> body, Reply& reply) {
  const uint64_t generation = util::load64(body.data());
  const uint32_t size = util::load32(body.data() + 8);
  if (size == 0 || size > max_bytes_) {
    ++counters_.refused_size;
    return reply.result(Status::size_out_of_bounds, 0, loaded_generation_);
  }
  if (generation <= loaded_generation_) {
    ++counters_.refused_generation;
    return reply.result(Status::generation_not_above, 0, loaded_generation_);
  }
  end_upload();
  blob_.assign(size, 0);
  pieces_missing_ = (size + kPieceBytes - 1) / kPieceBytes;
  have_.assign(pieces_missing_, false);
  upload_generation_ = generation;
  ++counters_.begun;
  reply.result(Status::ok, 0, loaded_generation_);
}

void Channel::data(std::span<const uint8_t> body, Reply& reply) {
  if (blob_.empty()) {
    ++counters_.refused_not_this_upload;
    return reply.status(Status::not_this_upload);
  }
  const uint32_t offset = util::load32(body.data());
  std::span<const uint8_t> bytes = body.subspan(kOffsetBytes);
  // Pieces start on piece boundaries and fill them (the last may be short).
  if (offset % kPieceBytes != 0 || offset >= blob_.size() ||
      bytes.size() != std::min(kPieceBytes, blob_.size() - offset)) {
    ++counters_.refused_piece;
    return reply.status(Status::bad_piece);
  }
  std::copy(bytes.begin(), bytes.end(), blob_.begin() + offset);
  if (!have_[offset / kPieceBytes]) have_[offset / kPieceBytes] = true, --pieces_missing_;
  reply.status(Status::ok);
}

void Channel::commit(std::span<const uint8_t> body, Reply& reply) {
  const uint64_t generation = util::load64(body.data());
  std::span<const uint8_t> digest = body.subspan(8);
  if (blob_.empty() || generation != upload_generation_) {
    // A COMMIT sent again because its answer was lost finds its blob loaded: say so.
    if (generation == loaded_generation_ && generation != 0 &&
        std::equal(digest.begin(), digest.end(), loaded_digest_.begin()))
      return reply.result(Status::ok, 0, loaded_generation_);
    ++counters_.refused_not_this_upload;
    return reply.result(Status::not_this_upload, 0, loaded_generation_);
  }
  if (pieces_missing_) {
    ++counters_.refused_incomplete;
    return reply.result(Status::pieces_missing, 0, loaded_generation_);
  }
  crypto::Sha256Digest actual = crypto::sha256(blob_);
  if (!std::equal(digest.begin(), digest.end(), actual.begin())) {
    ++counters_.refused_digest;
    end_upload();
    return reply.result(Status::digest_mismatch, 0, loaded_generation_);
  }
  LoadStatus loaded = load_(blob_);
  end_upload();
  if (loaded != LoadStatus::ok) {
    ++counters_.refused_blob;
    return reply.result(Status::blob_refused, static_cast<uint8_t>(loaded), loaded_generation_);
  }
  loaded_generation_ = generation;
  loaded_digest_ = actual;
  ++counters_.loaded;
  reply.result(Status::ok, 0, loaded_generation_);
}

void Channel::end_upload() {
  std::vector<uint8_t>().swap(blob_);  // the memory goes back, not only the size
  std::vector<bool>().swap(have_);
  pieces_missing_ = 0;
  upload_generation_ = 0;
}

}  // namespace keel::firewall::update

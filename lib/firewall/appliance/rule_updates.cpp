// The management port that replaces rules (rule_updates.hpp).
#include "keel/firewall/rule_updates.hpp"

#include <algorithm>
#include <net/stack.hpp>

#include "net/wire/checksum.hpp"
#include "util/siphash.hpp"

namespace keel::firewall {
namespace {

constexpr uint8_t kMagic[4] = {'K', 'F', 'W', '1'};
constexpr size_t kMagicBytes = 4, kTypeAt = 4, kBodyAt = 5;
constexpr size_t kHeaderBytes =
    kMagicBytes + 8 + 4;  // "KFW1" GENERATION SIZE, in front of the blob
constexpr size_t kTagBytes = 16;
constexpr size_t kPieceBytes = 1024;  // arrival is tracked per piece
constexpr uint8_t kBegin = 1, kData = 2, kCommit = 3, kReplyBit = 0x80;
constexpr uint64_t kSecondKeyFlip = ~0ull;
enum Status : uint8_t { kOk = 0, kRefused = 1 };

uint64_t load64(const uint8_t* p) {
  return uint64_t{net::wire::load32(p)} << 32 | net::wire::load32(p + 4);
}
void store64(uint8_t* p, uint64_t v) {
  net::wire::store32(p, static_cast<uint32_t>(v >> 32));
  net::wire::store32(p + 4, static_cast<uint32_t>(v));
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void tag_of(const RuleUpdateKey& key, std::span<const uint8_t> text, uint8_t out[kTagBytes]) {
  store64(out, util::siphash<2, 4>(util::SipKey{key.k0, key.k1}, text.data(), text.size()));
  store64(out + 8, util::siphash<2, 4>(util::SipKey{key.k0 ^ kSecondKeyFlip, key.k1}, text.data(),
                                       text.size()));
}

void write_header(uint8_t* out, uint64_t generation, uint32_t size) {
  std::copy(kMagic, kMagic + kMagicBytes, out);
  store64(out + kMagicBytes, generation);
  net::wire::store32(out + kMagicBytes + 8, size);
}

// Tags compared without an early exit, so timing tells nothing about how much matched.
bool same_tag(const uint8_t* a, const uint8_t* b) {
  uint8_t diff = 0;
  for (size_t i = 0; i < kTagBytes; ++i) diff |= a[i] ^ b[i];
  return diff == 0;
}

}  // namespace

bool parse_rule_update_key(const std::string& text, RuleUpdateKey& key) {
  constexpr size_t kDigits = 32;
  if (text.size() != kDigits) return false;
  uint64_t halves[2] = {0, 0};
  for (size_t i = 0; i < kDigits; ++i) {
    int d = hex_digit(text[i]);
    if (d < 0) return false;
    halves[i / 16] = halves[i / 16] << 4 | static_cast<uint64_t>(d);
  }
  key = {halves[0], halves[1]};
  return true;
}

std::vector<uint8_t> rule_update_tag(const RuleUpdateKey& key, uint64_t generation,
                                     std::span<const uint8_t> blob) {
  std::vector<uint8_t> text(kHeaderBytes + blob.size());
  write_header(text.data(), generation, static_cast<uint32_t>(blob.size()));
  std::copy(blob.begin(), blob.end(), text.begin() + kHeaderBytes);
  std::vector<uint8_t> tag(kTagBytes);
  tag_of(key, text, tag.data());
  return tag;
}

RuleUpdates::RuleUpdates(net::Stack& stack, Appliance& appliance, uint16_t port,
                         const RuleUpdateKey& key, size_t max_bytes)
    : appliance_(appliance), key_(key), max_bytes_(max_bytes) {
  auto bound = stack.udp().bind(port);
  if (!bound) return;
  socket_ = *bound;
  socket_.on_read([this](const net::UdpDatagram& d) {
    std::string text;
    uint8_t status = kRefused;
    receive(d.payload, text, status);
    std::vector<uint8_t> reply(kBodyAt + 1 + 8 + text.size());
    std::copy(kMagic, kMagic + kMagicBytes, reply.begin());
    reply[kTypeAt] =
        static_cast<uint8_t>(kReplyBit | (d.payload.size() > kTypeAt ? d.payload[kTypeAt] : 0));
    reply[kBodyAt] = status;
    store64(reply.data() + kBodyAt + 1, appliance_.generation());
    std::copy(text.begin(), text.end(), reply.begin() + kBodyAt + 9);
    socket_.send_to(d.source, reply, d.destination.address);
  });
}

RuleUpdates::~RuleUpdates() { socket_.close(); }

void RuleUpdates::receive(std::span<const uint8_t> m, std::string& text, uint8_t& status) {
  ++counters_.messages;
  if (m.size() <= kTypeAt || !std::equal(kMagic, kMagic + kMagicBytes, m.begin())) {
    ++counters_.refused_malformed;
    text = "not a KFW1 message";
    return;
  }
  const uint8_t* body = m.data() + kBodyAt;
  const size_t body_len = m.size() - kBodyAt;
  switch (m[kTypeAt]) {
    case kBegin: {
      if (body_len != 12) break;
      uint64_t generation = load64(body);
      uint32_t size = net::wire::load32(body + 8);
      if (size == 0 || size > max_bytes_) {
        ++counters_.refused_size;
        text = "size out of bounds";
        return;
      }
      if (generation <= loaded_generation_) {
        ++counters_.refused_generation;
        text = "generation not above the last one loaded";
        return;
      }
      buffer_.assign(kHeaderBytes + size, 0);
      write_header(buffer_.data(), generation, size);
      have_.assign((size + kPieceBytes - 1) / kPieceBytes, false);
      generation_ = generation;
      ++counters_.begun;
      status = kOk;
      text = "begun";
      return;
    }
    case kData: {
      if (body_len < 4 || buffer_.empty()) break;
      uint32_t offset = net::wire::load32(body);
      size_t bytes = body_len - 4;
      size_t size = buffer_.size() - kHeaderBytes;
      // Pieces start on piece boundaries and fill them (the last may be short).
      if (offset % kPieceBytes != 0 || offset >= size || bytes > kPieceBytes ||
          bytes != std::min(kPieceBytes, size - offset)) {
        ++counters_.refused_malformed;
        text = "bad piece";
        return;
      }
      std::copy(body + 4, body + 4 + bytes, buffer_.begin() + kHeaderBytes + offset);
      have_[offset / kPieceBytes] = true;
      status = kOk;
      return;
    }
    case kCommit: {
      if (body_len != kTagBytes || buffer_.empty()) break;
      size_t missing = static_cast<size_t>(std::count(have_.begin(), have_.end(), false));
      if (missing) {
        ++counters_.refused_malformed;
        text = std::to_string(missing) + " pieces missing";
        return;
      }
      uint8_t expected[kTagBytes];
      tag_of(key_, buffer_, expected);
      if (!same_tag(expected, body)) {
        ++counters_.refused_tag;
        buffer_.clear();
        text = "tag does not authenticate the blob";
        return;
      }
      LoadStatus loaded =
          appliance_.replace_rules({buffer_.data() + kHeaderBytes, buffer_.size() - kHeaderBytes});
      buffer_.clear();
      have_.clear();
      if (loaded != LoadStatus::ok) {
        ++counters_.refused_blob;
        text = std::string("blob refused: ") + to_string(loaded);
        return;
      }
      loaded_generation_ = generation_;
      ++counters_.loaded;
      status = kOk;
      text = "loaded";
      return;
    }
    default:
      break;
  }
  ++counters_.refused_malformed;
  text = "malformed message";
}

}  // namespace keel::firewall

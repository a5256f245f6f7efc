#include "reassembly.hpp"

#include <sys/random.h>

#include <algorithm>
#include <cstring>

#include "net/wire/ip6.hpp"

namespace net {

struct Reassembly::Tables {
  Tables(uint32_t max_datagrams, keel::util::SipKey index_secret, keel::util::SipKey source_secret)
      : index(max_datagrams, KeyHash{index_secret}),
        sources(max_datagrams, SourceHash{source_secret}) {}

  keel::util::FlatMap<Key, uint32_t, KeyHash> index;  // -> datagrams[]
  keel::util::FlatMap<Source, SourceState, SourceHash> sources;
  std::vector<Datagram> datagrams;
  std::vector<uint32_t> free_datagrams;
  std::vector<std::unique_ptr<Chunk>> chunk_store;
  std::vector<Chunk*> free_chunks;
  List all;
};

namespace {

keel::util::SipKey random_secret() {
  keel::util::SipKey key;
  // Weak entropy still beats a fixed key; a short read leaves part zero.
  if (getrandom(&key, sizeof key, 0) != ssize_t(sizeof key)) key.k1 ^= 0x9e3779b97f4a7c15ull;
  return key;
}

uint32_t chunks_for(std::size_t bytes) {
  return uint32_t(std::max(bytes, Reassembly::min_bytes) / Reassembly::chunk_size);
}

}  // namespace

ReassemblyLimits reassembly_limits(const StackConfig& c, std::chrono::seconds timeout) {
  constexpr std::size_t floor = std::size_t(256) << 10, ceiling = std::size_t(8) << 20;
  constexpr std::size_t share_of_memory = 16, share_per_source = 4;
  const ReassemblyConfig& r = c.reassembly;
  std::size_t bytes =
      r.max_bytes ? r.max_bytes : std::clamp(c.total_memory / share_of_memory, floor, ceiling);
  std::size_t per_source =
      r.max_bytes_per_source ? r.max_bytes_per_source : bytes / share_per_source;
  return {bytes, per_source, timeout};
}

std::size_t Reassembly::KeyHash::operator()(const Key& k) const {
  uint8_t bytes[2 * 16 + 4 + 1];
  std::memcpy(bytes, k.src.data(), 16);
  std::memcpy(bytes + 16, k.dst.data(), 16);
  std::memcpy(bytes + 32, &k.id, 4);
  bytes[36] = k.protocol;
  return std::size_t(keel::util::siphash13(secret, bytes, sizeof bytes));
}

std::size_t Reassembly::SourceHash::operator()(const Source& source) const {
  return std::size_t(keel::util::siphash13(secret, source.data(), source.size()));
}

Reassembly::Reassembly(Ip4Counters& c, ReassemblyLimits limits)
    : Reassembly(Family::ip4, counters_of(c), limits) {}

Reassembly::Reassembly(Ip6Counters& c, ReassemblyLimits limits)
    : Reassembly(Family::ip6, counters_of(c), limits) {}

Reassembly::Reassembly(Family family, Counters counters, ReassemblyLimits limits)
    : family_(family),
      counters_(counters),
      limits_(limits),
      max_chunks_(chunks_for(limits.max_bytes)),
      max_chunks_per_source_(std::min(chunks_for(limits.max_bytes_per_source), max_chunks_)) {
  limits_.max_bytes = std::size_t(max_chunks_) * chunk_size;
  limits_.max_bytes_per_source = std::size_t(max_chunks_per_source_) * chunk_size;
}

Reassembly::~Reassembly() = default;

std::size_t Reassembly::in_progress() const { return tables_ ? tables_->index.size() : 0; }

uint64_t Reassembly::next_deadline() const {
  if (!tables_ || tables_->all.oldest == none) return UINT64_MAX;
  return tables_->datagrams[tables_->all.oldest].started_ns + uint64_t(limits_.timeout.count());
}

Reassembly::SourceState& Reassembly::source_of(const Datagram& d) {
  return *tables_->sources.find(d.key.src);  // present while the source has datagrams
}

namespace {

// Appends `index` as the newest of `list`, through the given link member.
template <class Datagrams, class LinksOf>
void push_newest(Datagrams& datagrams, auto& list, uint32_t index, LinksOf links_of) {
  auto& links = links_of(datagrams[index]);
  links.older = list.newest;
  links.newer = UINT32_MAX;
  if (list.newest != UINT32_MAX) links_of(datagrams[list.newest]).newer = index;
  list.newest = index;
  if (list.oldest == UINT32_MAX) list.oldest = index;
}

template <class Datagrams, class LinksOf>
void unlink(Datagrams& datagrams, auto& list, uint32_t index, LinksOf links_of) {
  auto& links = links_of(datagrams[index]);
  if (links.older != UINT32_MAX)
    links_of(datagrams[links.older]).newer = links.newer;
  else
    list.oldest = links.newer;
  if (links.newer != UINT32_MAX)
    links_of(datagrams[links.newer]).older = links.older;
  else
    list.newest = links.older;
}

constexpr auto all_links = [](auto& d) -> auto& { return d.all; };
constexpr auto source_links = [](auto& d) -> auto& { return d.by_source; };

}  // namespace

uint32_t Reassembly::find_or_start(const Key& key, bool to_broadcast, uint64_t now_ns) {
  Tables& t = *tables_;
  if (uint32_t* found = t.index.find(key)) return *found;
  // More datagrams than chunks cannot hold data: give up the oldest.
  if (t.index.full()) {
    ++counters_.evicted;
    discard(t.all.oldest);
  }
  uint32_t index;
  if (!t.free_datagrams.empty()) {
    index = t.free_datagrams.back();
    t.free_datagrams.pop_back();
  } else {
    index = uint32_t(t.datagrams.size());
    t.datagrams.emplace_back();
  }
  Datagram& d = t.datagrams[index];
  d = Datagram{};
  d.key = key;
  d.to_broadcast = to_broadcast;
  d.started_ns = now_ns;
  *t.index.try_emplace(key).first = index;
  SourceState& source = *t.sources.try_emplace(key.src).first;
  push_newest(t.datagrams, t.all, index, all_links);
  push_newest(t.datagrams, source.datagrams, index, source_links);
  return index;
}

// Makes sure chunks [first, last] of datagram `index` exist, giving up other
// datagrams where the budgets say so. False when `index` itself had to go.
bool Reassembly::reserve_chunks(uint32_t index, uint32_t first, uint32_t last) {
  Tables& t = *tables_;
  uint32_t missing = 0;
  for (uint32_t c = first; c <= last; ++c) missing += t.datagrams[index].chunks[c] == nullptr;
  if (missing == 0) return true;
  Source src = t.datagrams[index].key.src;
  // A source over its share gives up its own oldest datagrams first.
  while (t.sources.find(src)->chunks + missing > max_chunks_per_source_) {
    uint32_t victim = t.sources.find(src)->datagrams.oldest;
    if (victim == index) victim = t.datagrams[index].by_source.newer;
    ++counters_.source_limit;
    if (victim == none) {
      discard(index);
      return false;
    }
    discard(victim);
  }
  while (chunks_in_use_ + missing > max_chunks_) {
    uint32_t victim = t.all.oldest == index ? t.datagrams[index].all.newer : t.all.oldest;
    ++counters_.evicted;
    if (victim == none) {
      discard(index);
      return false;
    }
    discard(victim);
  }
  Datagram& d = t.datagrams[index];
  for (uint32_t c = first; c <= last; ++c) {
    if (d.chunks[c]) continue;
    if (t.free_chunks.empty()) {
      t.chunk_store.push_back(std::make_unique<Chunk>());
      t.free_chunks.push_back(t.chunk_store.back().get());
    }
    Chunk* chunk = t.free_chunks.back();
    t.free_chunks.pop_back();
    chunk->received.fill(0);
    d.chunks[c] = chunk;
    ++d.chunks_held;
    ++chunks_in_use_;
    ++source_of(d).chunks;
  }
  return true;
}

// Copies a fragment's payload block by block. IPv4: blocks already there
// must hold the same bytes. IPv6 (RFC 5722): a fragment is either all new
// or, as a duplicate, all old with the same bytes; anything else conflicts.
Reassembly::Copy Reassembly::copy_in(Datagram& d, uint32_t offset, const uint8_t* payload,
                                     uint32_t len) {
  uint32_t end = offset + len;
  auto for_each_block = [&](auto&& visit) {
    for (uint32_t at = offset; at < end; at += unit) {
      Chunk& chunk = *d.chunks[at / chunk_size];
      uint32_t block = at % chunk_size / unit;
      if (!visit(chunk, block, at % chunk_size, payload + (at - offset), std::min(unit, end - at)))
        return false;
    }
    return true;
  };
  auto has = [](const Chunk& chunk, uint32_t block) {
    return (chunk.received[block / 64] >> (block % 64)) & 1;
  };
  auto same = [&](Chunk& chunk, uint32_t block, uint32_t at, const uint8_t* from, uint32_t n) {
    return !has(chunk, block) || std::memcmp(chunk.data.data() + at, from, n) == 0;
  };
  if (family_ == Family::ip6) {
    uint32_t old = 0, blocks = 0;
    for_each_block([&](Chunk& chunk, uint32_t block, uint32_t, const uint8_t*, uint32_t) {
      old += has(chunk, block);
      ++blocks;
      return true;
    });
    if (old == blocks) return for_each_block(same) ? Copy::duplicate : Copy::conflict;
    if (old != 0) return Copy::conflict;
  } else if (!for_each_block(same)) {
    return Copy::conflict;
  }
  for_each_block([&](Chunk& chunk, uint32_t block, uint32_t at, const uint8_t* from, uint32_t n) {
    if (has(chunk, block)) return true;
    std::memcpy(chunk.data.data() + at, from, n);
    chunk.received[block / 64] |= uint64_t(1) << (block % 64);
    ++d.blocks_received;
    return true;
  });
  return Copy::added;
}

uint32_t Reassembly::length_field(uint32_t header_len, uint32_t end) const {
  return family_ == Family::ip4 ? header_len + end : header_len - wire::ip6_header_size + end;
}

PacketPtr Reassembly::add(PacketPtr fragment, bool to_broadcast, uint64_t now_ns) {
  const uint8_t* ip = fragment->data();
  wire::Ip4View<const uint8_t> h(ip, fragment->size());
  Fragment f{};
  uint32_t src = h.src().value, dst = h.dst().value;
  std::memcpy(f.key.src.data(), &src, 4);
  std::memcpy(f.key.dst.data(), &dst, 4);
  f.key.id = h.id();
  f.key.protocol = h.protocol();
  f.packet = ip;
  f.size = uint32_t(fragment->size());
  f.header_len = f.payload_at = h.header_len();
  f.offset = h.fragment_offset();
  f.len = h.payload_len();
  f.more = h.more_fragments();
  f.to_broadcast = to_broadcast;
  return add(f, now_ns);
}

PacketPtr Reassembly::add6(PacketPtr fragment, const Ip6Fragment& in, uint64_t now_ns) {
  constexpr uint16_t offset_mask = 0xfff8, more_flag = 1;
  const uint8_t* ip = fragment->data();
  wire::Ip6View<const uint8_t> h(ip, fragment->size());
  const uint8_t* header = ip + in.header_len;  // the Fragment header
  uint16_t field = wire::load16(header + 2);
  Fragment f{};
  f.key.src = h.src().bytes;
  f.key.dst = h.dst().bytes;
  f.key.id = wire::load32(header + 4);
  f.packet = ip;
  f.size = uint32_t(fragment->size());
  f.header_len = in.header_len;
  f.payload_at = in.header_len + unit;
  f.offset = field & offset_mask;
  f.len = f.size - f.payload_at;
  f.more = field & more_flag;
  f.to_broadcast = in.to_multicast;
  f.next_header_at = in.next_header_at;
  return add(f, now_ns);
}

PacketPtr Reassembly::add(const Fragment& f, uint64_t now_ns) {
  ++counters_.rx_fragments;
  uint32_t end = f.offset + f.len;
  // RFC 791, RFC 8200 §4.5: every fragment but the last carries a multiple
  // of 8 bytes; an empty fragment carries nothing to reassemble. IPv6's
  // unfragmentable part must fit where fragment zero is kept.
  if (f.len == 0 || (f.more && f.len % unit != 0) ||
      (family_ == Family::ip6 && f.header_len > max_ip6_header_len)) {
    ++counters_.bad;
    return nullptr;
  }
  if (end > max_payload || length_field(f.header_len, end) > max_payload) {
    ++counters_.too_big;
    return nullptr;
  }
  if (!tables_) {
    tables_ = std::make_unique<Tables>(max_chunks_ + 1, random_secret(), random_secret());
  }
  uint32_t index = find_or_start(f.key, f.to_broadcast, now_ns);
  {
    Datagram& d = tables_->datagrams[index];
    // The last fragment fixes the length: nothing may lie beyond it, and a
    // second last fragment must agree (RFC 815's rules, as Linux applies them).
    bool conflict =
        f.more ? (d.end && end > d.end) : (end < d.highest_end || (d.end && end != d.end));
    if (conflict) {
      ++counters_.overlap;
      discard(index);
      return nullptr;
    }
  }
  if (!reserve_chunks(index, f.offset / chunk_size, (end - 1) / chunk_size)) return nullptr;
  Datagram& d = tables_->datagrams[index];
  switch (copy_in(d, f.offset, f.packet + f.payload_at, f.len)) {
    case Copy::added:
      break;
    case Copy::duplicate:
      return nullptr;  // nothing new: the datagram waits on
    case Copy::conflict:
      ++counters_.overlap;
      discard(index);
      return nullptr;
  }
  if (!f.more) d.end = end;
  d.highest_end = std::max(d.highest_end, end);
  if (f.offset == 0) {
    d.header_len = f.header_len;
    d.next_header_at = f.next_header_at;
    // IPv4 quotes the header and 8 bytes (RFC 792); IPv6 as much as is
    // kept (RFC 4443 §2.4 (c) asks for as much as fits).
    uint32_t quote =
        family_ == Family::ip4 ? f.header_len + std::min<uint32_t>(f.len, unit) : f.size;
    d.quote_len = std::min(first_capacity, quote);
    std::memcpy(d.first.data(), f.packet, d.quote_len);
  }
  // Fragments may carry headers of different lengths; the datagram gets the
  // first one's. Check its full length against the 16-bit field ("ping of
  // death", RFC 791 §3.1, RFC 8200 §4.5) as soon as both are known.
  if (d.end && d.header_len && length_field(d.header_len, d.end) > max_payload) {
    ++counters_.too_big;
    discard(index);
    return nullptr;
  }
  if (d.end && d.header_len && d.blocks_received == (d.end + unit - 1) / unit) {
    return complete(index);
  }
  return nullptr;
}

PacketPtr Reassembly::complete(uint32_t index) {
  Datagram& d = tables_->datagrams[index];
  uint32_t total = d.header_len + d.end;
  PacketPtr packet = allocate_heap_packet(total);
  if (!packet) {
    ++counters_.no_buffer;
    discard(index);
    return nullptr;
  }
  uint8_t* header = packet->append(total);
  std::memcpy(header, d.first.data(), d.header_len);
  if (family_ == Family::ip4) {
    wire::Ip4View<uint8_t> whole(header, total);
    whole.set_total_length(uint16_t(total));
    whole.set_fragment(false, false, 0);  // one whole datagram now: no MF, offset 0
    whole.fill_checksum();
  } else {
    // RFC 8200 §4.5: the unfragmentable part, its last next header now the
    // Fragment header's, and the payload length of the whole.
    header[d.next_header_at] = d.first[d.header_len];
    wire::store16(header + 4, uint16_t(total - wire::ip6_header_size));
  }
  for (uint32_t from = 0; from < d.end; from += chunk_size) {
    std::memcpy(header + d.header_len + from, d.chunks[from / chunk_size]->data.data(),
                std::min(chunk_size, d.end - from));
  }
  ++counters_.reassembled;
  discard(index);
  return packet;
}

void Reassembly::discard(uint32_t index) {
  Tables& t = *tables_;
  Datagram& d = t.datagrams[index];
  SourceState& source = source_of(d);
  for (Chunk*& chunk : d.chunks) {
    if (!chunk) continue;
    t.free_chunks.push_back(chunk);
    chunk = nullptr;
  }
  chunks_in_use_ -= d.chunks_held;
  source.chunks -= d.chunks_held;
  d.chunks_held = 0;
  unlink(t.datagrams, t.all, index, all_links);
  unlink(t.datagrams, source.datagrams, index, source_links);
  if (source.datagrams.oldest == none) t.sources.erase(d.key.src);
  t.index.erase(d.key);
  t.free_datagrams.push_back(index);
}

void Reassembly::expire(uint64_t now_ns) {
  while (next_deadline() <= now_ns) {
    uint32_t index = tables_->all.oldest;
    Datagram& d = tables_->datagrams[index];
    ++counters_.timeout;
    // RFC 792, RFC 8200 §4.5: time exceeded, code 1, only if fragment zero
    // is available.
    bool tell = d.header_len && !d.to_broadcast && time_exceeded_;
    std::array<uint8_t, first_capacity> quote = d.first;
    std::size_t n = d.quote_len;
    discard(index);
    if (tell) time_exceeded_(quote.data(), n);
  }
}

}  // namespace net

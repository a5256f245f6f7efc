#include "reassembly.hpp"

#include <sys/random.h>

#include <algorithm>
#include <cstring>

namespace net {

struct Reassembly::Tables {
  Tables(uint32_t max_datagrams, keel::util::SipKey index_secret, keel::util::SipKey source_secret)
      : index(max_datagrams, KeyHash{index_secret}),
        sources(max_datagrams, SourceHash{source_secret}) {}

  keel::util::FlatMap<Key, uint32_t, KeyHash> index;  // -> datagrams[]
  keel::util::FlatMap<uint32_t, Source, SourceHash> sources;
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

std::size_t Reassembly::KeyHash::operator()(const Key& k) const {
  uint8_t bytes[11];
  std::memcpy(bytes, &k.src, 4);
  std::memcpy(bytes + 4, &k.dst, 4);
  std::memcpy(bytes + 8, &k.id, 2);
  bytes[10] = k.protocol;
  return std::size_t(keel::util::siphash13(secret, bytes, sizeof bytes));
}

std::size_t Reassembly::SourceHash::operator()(uint32_t source) const {
  return std::size_t(keel::util::siphash13(secret, &source, sizeof source));
}

Reassembly::Reassembly(Ip4Counters& counters, ReassemblyLimits limits)
    : counters_(counters),
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

Reassembly::Source& Reassembly::source_of(const Datagram& d) {
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
    ++counters_.drop_fragment_evicted;
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
  Source& source = *t.sources.try_emplace(key.src).first;
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
  uint32_t src = t.datagrams[index].key.src;
  // A source over its share gives up its own oldest datagrams first.
  while (t.sources.find(src)->chunks + missing > max_chunks_per_source_) {
    uint32_t victim = t.sources.find(src)->datagrams.oldest;
    if (victim == index) victim = t.datagrams[index].by_source.newer;
    ++counters_.drop_fragment_source_limit;
    if (victim == none) {
      discard(index);
      return false;
    }
    discard(victim);
  }
  while (chunks_in_use_ + missing > max_chunks_) {
    uint32_t victim = t.all.oldest == index ? t.datagrams[index].all.newer : t.all.oldest;
    ++counters_.drop_fragment_evicted;
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

// Copies a fragment's payload block by block; overlapping blocks must hold
// the same bytes. False on a conflict.
bool Reassembly::copy_in(Datagram& d, uint32_t offset, const uint8_t* payload, uint32_t len) {
  uint32_t end = offset + len;
  for (uint32_t from = offset; from < end;) {
    Chunk& chunk = *d.chunks[from / chunk_size];
    uint32_t in_chunk = from % chunk_size;
    uint32_t to = std::min(end, (from / chunk_size + 1) * chunk_size);
    for (uint32_t at = in_chunk; at < in_chunk + (to - from); at += wire::ip4_fragment_unit) {
      uint32_t block = at / wire::ip4_fragment_unit;
      uint64_t bit = uint64_t(1) << (block % 64);
      uint32_t n = std::min<uint32_t>(wire::ip4_fragment_unit, in_chunk + (to - from) - at);
      const uint8_t* source = payload + (from - offset) + (at - in_chunk);
      if (chunk.received[block / 64] & bit) {
        if (std::memcmp(chunk.data.data() + at, source, n) != 0) return false;
        continue;
      }
      std::memcpy(chunk.data.data() + at, source, n);
      chunk.received[block / 64] |= bit;
      ++d.blocks_received;
    }
    from = to;
  }
  return true;
}

PacketPtr Reassembly::add(PacketPtr fragment, bool to_broadcast, uint64_t now_ns) {
  ++counters_.rx_fragments;
  const uint8_t* ip = fragment->data();
  wire::Ip4View<const uint8_t> h(ip, fragment->size());
  bool more = h.more_fragments();
  uint32_t offset = h.fragment_offset();
  uint32_t header_len = h.header_len();
  uint32_t len = h.payload_len();
  uint32_t end = offset + len;
  // RFC 791: every fragment but the last carries a multiple of 8 bytes; an
  // empty fragment carries nothing to reassemble.
  if (len == 0 || (more && len % wire::ip4_fragment_unit != 0)) {
    ++counters_.drop_fragment_bad;
    return nullptr;
  }
  if (end > max_payload || header_len + end > wire::ip4_max_total_length) {
    ++counters_.drop_fragment_too_big;
    return nullptr;
  }
  if (!tables_) {
    tables_ = std::make_unique<Tables>(max_chunks_ + 1, random_secret(), random_secret());
  }
  Key key{h.src().value, h.dst().value, h.id(), h.protocol()};
  uint32_t index = find_or_start(key, to_broadcast, now_ns);
  {
    Datagram& d = tables_->datagrams[index];
    // The last fragment fixes the length: nothing may lie beyond it, and a
    // second last fragment must agree (RFC 815's rules, as Linux applies them).
    bool conflict =
        more ? (d.end && end > d.end) : (end < d.highest_end || (d.end && end != d.end));
    if (conflict) {
      ++counters_.drop_fragment_overlap;
      discard(index);
      return nullptr;
    }
  }
  if (!reserve_chunks(index, offset / chunk_size, (end - 1) / chunk_size)) return nullptr;
  Datagram& d = tables_->datagrams[index];
  if (!copy_in(d, offset, ip + header_len, len)) {
    ++counters_.drop_fragment_overlap;
    discard(index);
    return nullptr;
  }
  if (!more) d.end = end;
  d.highest_end = std::max(d.highest_end, end);
  if (offset == 0) {
    d.header_len = header_len;
    std::size_t n = std::min<std::size_t>(quote_len, header_len + std::min<uint32_t>(len, 8));
    std::memcpy(d.first.data(), ip, n);
  }
  // Fragments may carry headers of different lengths; the datagram gets the
  // first one's. Check its full length against IPv4's 16-bit limit ("ping
  // of death", RFC 791 §3.1) as soon as both are known.
  if (d.end && d.header_len && d.header_len + d.end > wire::ip4_max_total_length) {
    ++counters_.drop_fragment_too_big;
    discard(index);
    return nullptr;
  }
  if (d.end && d.header_len &&
      d.blocks_received == (d.end + wire::ip4_fragment_unit - 1) / wire::ip4_fragment_unit) {
    return complete(index);
  }
  return nullptr;
}

PacketPtr Reassembly::complete(uint32_t index) {
  Datagram& d = tables_->datagrams[index];
  uint32_t total = d.header_len + d.end;
  PacketPtr packet = allocate_heap_packet(total);
  if (!packet) {
    ++counters_.drop_no_buffer;
    discard(index);
    return nullptr;
  }
  uint8_t* header = packet->append(total);
  std::memcpy(header, d.first.data(), d.header_len);
  wire::Ip4View<uint8_t> whole(header, total);
  whole.set_total_length(uint16_t(total));
  whole.set_fragment(false, false, 0);  // one whole datagram now: no MF, offset 0
  whole.fill_checksum();
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
  Source& source = source_of(d);
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
    ++counters_.drop_fragment_timeout;
    // RFC 792: time exceeded, code 1, only if fragment zero is available.
    bool tell = d.header_len && !d.to_broadcast && time_exceeded_;
    std::array<uint8_t, quote_len> quote = d.first;
    std::size_t n = std::min<std::size_t>(quote_len, d.header_len + 8);
    discard(index);
    if (tell) time_exceeded_(quote.data(), n);
  }
}

}  // namespace net

// IPv4 fragment reassembly (RFC 791 §3.2, RFC 815), bounded by memory,
// fair between sources, and driven by the caller's clock (decision 0021):
// - fragments are copied into 2 KiB chunks as they arrive; a datagram holds
//   only the chunks its fragments touch, so memory follows what came;
// - all datagrams in progress hold at most limits.max_bytes of chunks
//   together, one source at most limits.max_bytes_per_source. A source over
//   its share gives up its own oldest datagram; a full budget gives up the
//   oldest datagram of all (a datagram completes within milliseconds of its
//   first fragment, so the oldest are the stalled ones). Each one counted;
// - a bitmap of 8-byte blocks per chunk finds overlaps: identical bytes are
//   a retransmission, different bytes discard the datagram (as RFC 5722
//   requires for IPv6 and Linux does for IPv4), as does a last fragment
//   that contradicts what came before;
// - a completed datagram is copied into a heap packet of its own size and
//   its chunks are freed at once, so nothing made from it (an echo reply
//   waiting for ARP) holds reassembly memory;
// - a datagram still incomplete after limits.timeout is dropped, with an
//   ICMP time exceeded (code 1) if fragment zero came (RFC 792).
#pragma once
#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <net/counters.hpp>
#include <net/packet.hpp>
#include <util/delegate.hpp>
#include <vector>

#include "net/wire/ip4.hpp"
#include "util/flat_map.hpp"
#include "util/siphash.hpp"

namespace net {

struct ReassemblyLimits {
  std::size_t max_bytes;
  std::size_t max_bytes_per_source;
  std::chrono::nanoseconds timeout;
};

class Reassembly {
 public:
  static constexpr uint32_t chunk_size = 2048;
  static constexpr uint32_t max_payload = wire::ip4_max_total_length - wire::ip4_header_min;
  static constexpr uint32_t chunks_per_datagram = (max_payload + chunk_size - 1) / chunk_size;
  // The smallest budgets that still let one largest datagram through.
  static constexpr std::size_t min_bytes = std::size_t(chunks_per_datagram) * chunk_size;
  // The first fragment's header and 8 payload bytes, for ICMP time exceeded.
  using TimeExceeded = keel::delegate<void(const uint8_t* ip_header, std::size_t len)>;

  // Limits below min_bytes are raised to it.
  Reassembly(Ip4Counters& counters, ReassemblyLimits limits);
  ~Reassembly();
  Reassembly(const Reassembly&) = delete;
  Reassembly& operator=(const Reassembly&) = delete;

  // `fragment` data() at its IPv4 header (checked, trimmed to its total
  // length); `to_broadcast`: no ICMP errors about it (RFC 1122 §3.2.2).
  // Returns the whole datagram, data() at its (rewritten) header, when this
  // fragment completes it; else nullptr (kept, or dropped and counted).
  PacketPtr add(PacketPtr fragment, bool to_broadcast, uint64_t now_ns);
  // Drops the datagrams whose time ran out by `now_ns`.
  void expire(uint64_t now_ns);
  // When expire() has work next; UINT64_MAX when nothing is in progress.
  uint64_t next_deadline() const;

  void set_time_exceeded(TimeExceeded handler) { time_exceeded_ = std::move(handler); }
  const ReassemblyLimits& limits() const { return limits_; }
  std::size_t in_progress() const;
  std::size_t bytes_held() const { return std::size_t(chunks_in_use_) * chunk_size; }

 private:
  static constexpr uint32_t none = UINT32_MAX;
  static constexpr uint32_t quote_len = wire::ip4_header_max + 8;
  static constexpr uint32_t blocks_per_chunk = chunk_size / wire::ip4_fragment_unit;

  struct Chunk {
    std::array<uint64_t, blocks_per_chunk / 64> received{};  // one bit per 8-byte block
    std::array<uint8_t, chunk_size> data;
  };
  struct Key {
    uint32_t src = 0, dst = 0;
    uint16_t id = 0;
    uint8_t protocol = 0;
    friend bool operator==(const Key&, const Key&) = default;
  };
  struct KeyHash {
    keel::util::SipKey secret;
    std::size_t operator()(const Key& k) const;
  };
  struct SourceHash {
    keel::util::SipKey secret;
    std::size_t operator()(uint32_t source) const;
  };
  // Oldest-first lists through datagram indices: one of all, one per source.
  struct Links {
    uint32_t older = none, newer = none;
  };
  struct List {
    uint32_t oldest = none, newest = none;
  };
  struct Source {
    uint32_t chunks = 0;
    List datagrams;
  };
  struct Datagram {
    Key key;
    bool to_broadcast = false;  // no ICMP errors about it (RFC 1122 §3.2.2)
    uint64_t started_ns = 0;
    uint32_t end = 0;          // payload length, once the last fragment came
    uint32_t highest_end = 0;  // of any fragment so far
    uint32_t header_len = 0;   // of fragment zero, 0 until it came
    uint32_t blocks_received = 0;
    uint32_t chunks_held = 0;
    Links all, by_source;
    std::array<uint8_t, quote_len> first{};
    std::array<Chunk*, chunks_per_datagram> chunks{};
  };
  struct Tables;  // allocated on the first fragment

  uint32_t find_or_start(const Key& key, bool to_broadcast, uint64_t now_ns);
  bool reserve_chunks(uint32_t index, uint32_t first_chunk, uint32_t last_chunk);
  bool copy_in(Datagram& d, uint32_t offset, const uint8_t* payload, uint32_t len);
  PacketPtr complete(uint32_t index);
  void discard(uint32_t index);
  Source& source_of(const Datagram& d);

  Ip4Counters& counters_;
  ReassemblyLimits limits_;
  uint32_t max_chunks_, max_chunks_per_source_;
  uint32_t chunks_in_use_ = 0;
  std::unique_ptr<Tables> tables_;
  TimeExceeded time_exceeded_;
};

}  // namespace net

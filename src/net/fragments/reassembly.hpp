// Fragment reassembly for both families, IPv4 (RFC 791 §3.2, RFC 815) and
// IPv6 (RFC 8200 §4.5, RFC 5722): one implementation, one policy, bounded
// by memory, fair between sources, and driven by the caller's clock
// (decisions 0021 and 0132). Each family owns one instance.
// - fragments are copied into 2 KiB chunks as they arrive; a datagram holds
//   only the chunks its fragments touch, so memory follows what came;
// - all datagrams in progress hold at most limits.max_bytes of chunks
//   together, one source at most limits.max_bytes_per_source. A source over
//   its share gives up its own oldest datagram; a full budget gives up the
//   oldest datagram of all (a datagram completes within milliseconds of its
//   first fragment, so the oldest are the stalled ones). Each one counted;
// - a bitmap of 8-byte blocks per chunk finds overlaps. IPv4: identical
//   bytes are a retransmission, different bytes discard the datagram (as
//   Linux does). IPv6 (RFC 5722 with erratum 3089): a fragment that only
//   repeats blocks already there with the same bytes is a duplicate and
//   ignored; any other overlap discards the datagram. Both: a last
//   fragment that contradicts what came before discards it too;
// - a completed datagram is copied into a heap packet of its own size and
//   its chunks are freed at once, so nothing made from it (an echo reply
//   waiting for ARP) holds reassembly memory;
// - a datagram still incomplete after limits.timeout is dropped, with an
//   ICMP time exceeded (code 1) if fragment zero came (RFC 792, RFC 8200).
#pragma once
#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <net/address.hpp>
#include <net/config.hpp>
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

// The settings (ReassemblyConfig) with their defaults filled in, one
// family's timeout.
ReassemblyLimits reassembly_limits(const StackConfig& config, std::chrono::seconds timeout);

// One IPv6 fragment as the extension-header walk found it (ip6/fragments.cpp):
// data() of the packet at its IPv6 header.
struct Ip6Fragment {
  uint32_t header_len;      // the unfragmentable part: IPv6 header and what precedes the
                            // Fragment header (RFC 8200 §4.5)
  uint32_t next_header_at;  // the field naming the Fragment header, in that part
  bool to_multicast;        // no ICMPv6 errors about it (RFC 4443 §2.4 (e))
};

class Reassembly {
 public:
  static constexpr uint32_t chunk_size = 2048;
  // The largest fragmentable part of either family: IPv6's payload length
  // is 16 bits (no jumbograms), IPv4's total length is.
  static constexpr uint32_t max_payload = 65535;
  static constexpr uint32_t chunks_per_datagram = (max_payload + chunk_size - 1) / chunk_size;
  // The smallest budgets that still let one largest datagram through.
  static constexpr std::size_t min_bytes = std::size_t(chunks_per_datagram) * chunk_size;
  // What fragment zero's bytes are kept of: the header the whole datagram
  // gets (IPv4 up to 60 bytes; IPv6's unfragmentable part up to
  // max_ip6_header_len) and what ICMP time exceeded quotes.
  static constexpr uint32_t first_capacity = 256;
  static constexpr uint32_t max_ip6_header_len = first_capacity - 2 * 8;
  // The first fragment's headers and 8 payload bytes, for ICMP time exceeded.
  using TimeExceeded = keel::delegate<void(const uint8_t* ip_header, std::size_t len)>;

  // Limits below min_bytes are raised to it.
  Reassembly(Ip4Counters& counters, ReassemblyLimits limits);
  Reassembly(Ip6Counters& counters, ReassemblyLimits limits);
  ~Reassembly();
  Reassembly(const Reassembly&) = delete;
  Reassembly& operator=(const Reassembly&) = delete;

  // IPv4: `fragment` data() at its IPv4 header (checked, trimmed to its
  // total length); `to_broadcast`: no ICMP errors about it (RFC 1122
  // §3.2.2). Returns the whole datagram, data() at its (rewritten) header,
  // when this fragment completes it; else nullptr (kept, or dropped and
  // counted).
  PacketPtr add(PacketPtr fragment, bool to_broadcast, uint64_t now_ns);
  // IPv6: `fragment` data() at its IPv6 header, trimmed to its payload
  // length, its Fragment header complete at f.header_len. The checks that
  // answer with ICMPv6 (RFC 8200 §4.5) are the caller's; these are
  // repeated here as counted drops. The whole datagram comes back without
  // the Fragment header, its payload length and next header rewritten.
  PacketPtr add6(PacketPtr fragment, const Ip6Fragment& f, uint64_t now_ns);
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
  static constexpr uint32_t unit = 8;  // fragment offsets count 8 bytes in both families
  static constexpr uint32_t blocks_per_chunk = chunk_size / unit;

  enum class Family : uint8_t { ip4, ip6 };
  // The family's drop and progress counters, by reference.
  struct Counters {
    uint64_t &rx_fragments, &reassembled, &overlap, &too_big, &evicted, &source_limit, &timeout,
        &bad, &no_buffer;
  };
  // Either family's (Ip4Counters and Ip6Counters name them alike).
  template <class FamilyCounters>
  static Counters counters_of(FamilyCounters& c) {
    return {c.rx_fragments,          c.reassembled,           c.drop_fragment_overlap,
            c.drop_fragment_too_big, c.drop_fragment_evicted, c.drop_fragment_source_limit,
            c.drop_fragment_timeout, c.drop_fragment_bad,     c.drop_no_buffer};
  }
  struct Chunk {
    std::array<uint64_t, blocks_per_chunk / 64> received{};  // one bit per 8-byte block
    std::array<uint8_t, chunk_size> data;
  };
  // IPv4 addresses sit in the first 4 bytes; IPv4's identification is 16
  // bits and its protocol part of the key (RFC 791), IPv6's 32 (RFC 8200).
  using Source = std::array<uint8_t, 16>;
  struct Key {
    Source src{}, dst{};
    uint32_t id = 0;
    uint8_t protocol = 0;
    friend bool operator==(const Key&, const Key&) = default;
  };
  struct KeyHash {
    keel::util::SipKey secret;
    std::size_t operator()(const Key& k) const;
  };
  struct SourceHash {
    keel::util::SipKey secret;
    std::size_t operator()(const Source& source) const;
  };
  // Oldest-first lists through datagram indices: one of all, one per source.
  struct Links {
    uint32_t older = none, newer = none;
  };
  struct List {
    uint32_t oldest = none, newest = none;
  };
  struct SourceState {
    uint32_t chunks = 0;
    List datagrams;
  };
  struct Datagram {
    Key key;
    bool to_broadcast = false;  // no ICMP errors about it (RFC 1122 §3.2.2, RFC 4443 §2.4)
    uint64_t started_ns = 0;
    uint32_t end = 0;          // payload length, once the last fragment came
    uint32_t highest_end = 0;  // of any fragment so far
    uint32_t header_len = 0;   // of fragment zero, 0 until it came
    uint32_t quote_len = 0;    // of first[]: what time exceeded quotes
    uint32_t next_header_at = 0;
    uint32_t blocks_received = 0;
    uint32_t chunks_held = 0;
    Links all, by_source;
    std::array<uint8_t, first_capacity> first{};  // fragment zero as it came
    std::array<Chunk*, chunks_per_datagram> chunks{};
  };
  // A fragment of either family, parsed.
  struct Fragment {
    Key key;
    const uint8_t* packet;
    uint32_t size;         // of the whole fragment
    uint32_t header_len;   // in front of the fragmentable part (IPv6: Fragment header excluded)
    uint32_t payload_at;   // where the fragmentable part begins
    uint32_t offset, len;  // of the fragmentable part, in the datagram
    bool more;
    bool to_broadcast;
    uint32_t next_header_at;  // IPv6
  };
  // Room the header takes from the 16-bit length field: IPv4's total length
  // counts its header, IPv6's payload length not the fixed 40 bytes.
  uint32_t length_field(uint32_t header_len, uint32_t end) const;
  struct Tables;  // allocated on the first fragment

  Reassembly(Family family, Counters counters, ReassemblyLimits limits);
  PacketPtr add(const Fragment& f, uint64_t now_ns);
  uint32_t find_or_start(const Key& key, bool to_broadcast, uint64_t now_ns);
  bool reserve_chunks(uint32_t index, uint32_t first_chunk, uint32_t last_chunk);
  enum class Copy : uint8_t { added, duplicate, conflict };
  Copy copy_in(Datagram& d, uint32_t offset, const uint8_t* payload, uint32_t len);
  PacketPtr complete(uint32_t index);
  void discard(uint32_t index);
  SourceState& source_of(const Datagram& d);

  Family family_;
  Counters counters_;
  ReassemblyLimits limits_;
  uint32_t max_chunks_, max_chunks_per_source_;
  uint32_t chunks_in_use_ = 0;
  std::unique_ptr<Tables> tables_;
  TimeExceeded time_exceeded_;
};

}  // namespace net

// IPv4 fragment reassembly (RFC 791 §3.2, RFC 815), bounded in memory and
// time:
// - at most max_datagrams in progress; a new one evicts the oldest (so
//   endless fragments cannot lock out new datagrams for long);
// - each datagram at most 65535 bytes (RFC 791 total length), tracked with
//   a bitmap of 8-byte blocks (RFC 815's holes, without lists);
// - timeout after `timeout`; if the first fragment came, an ICMP time
//   exceeded (code 1) is sent, RFC 792;
// - overlapping fragments are accepted only when the overlapping bytes are
//   identical (retransmissions); any conflict discards the datagram (as
//   RFC 5722 does for IPv6 and Linux for IPv4), so no overlap ambiguity can
//   reach upper layers.
// Slot buffers are allocated on first use and kept: no steady-state heap use.
#pragma once
#include <array>
#include <chrono>
#include <cstdint>
#include <memory>

#include <kernel/timers.hpp>
#include <net/counters.hpp>
#include <net/packet.hpp>
#include <util/delegate.hpp>

#include "ip4_header.hpp"

namespace keel::net {

class Reassembly {
 public:
  static constexpr std::size_t max_datagrams = 8;
  // RFC 791 §3.2 suggests 15 s for the reassembly timer's lower bound.
  static constexpr std::chrono::nanoseconds timeout = std::chrono::seconds(15);
  // The first fragment's header and 8 payload bytes, for ICMP time exceeded.
  using TimeExceeded = keel::delegate<void(const uint8_t* ip_header, std::size_t len)>;

  explicit Reassembly(::net::Ip4Counters& counters) : counters_(counters) {}
  ~Reassembly();

  // `fragment` data() at its IPv4 header (validated, trimmed to its total
  // length). Returns the whole datagram, data() at its (rewritten) header,
  // when this fragment completes it; else nullptr (kept or dropped+counted).
  ::net::PacketPtr add(::net::PacketPtr fragment, const ip4::Header& header);

  void set_time_exceeded(TimeExceeded handler) { time_exceeded_ = std::move(handler); }
  std::size_t in_progress() const;

 private:
  static constexpr uint32_t headroom = ::net::Packet::default_headroom + ip4::header_max;
  static constexpr uint32_t max_payload = ip4::max_total_length - ip4::header_min;
  static constexpr uint32_t blocks = (max_payload + 7) / 8;
  static constexpr uint32_t quote_len = ip4::header_max + 8;

  struct Slot final : ::net::PacketOwner {
    bool used = false;        // collecting fragments
    bool delivered = false;   // handed up as a packet, not yet released
    uint32_t src = 0, dst = 0;
    uint16_t id = 0;
    uint8_t protocol = 0;
    bool to_broadcast = false;  // no ICMP errors about it (RFC 1122 §3.2.2)
    uint64_t deadline_ns = 0;
    uint64_t started_ns = 0;
    uint32_t end = 0;            // payload length, once the last fragment came
    uint32_t blocks_set = 0;
    uint32_t header_len = 0;     // of the first fragment (offset 0), 0 until it came
    std::array<uint8_t, quote_len> first{};  // its header + 8 bytes
    std::array<uint64_t, (blocks + 63) / 64> bitmap{};
    std::unique_ptr<uint8_t[]> buffer;
    ::net::Packet packet;
    void release(::net::Packet*) noexcept override { delivered = false; }
    bool busy() const { return used || delivered; }
  };

  Slot* find_or_start(const ip4::Header& header, uint16_t id, uint64_t now);
  void discard(Slot& slot);
  ::net::PacketPtr complete(Slot& slot);
  void arm_timer();
  void on_timer();

  ::net::Ip4Counters& counters_;
  std::array<Slot, max_datagrams> slots_;
  TimeExceeded time_exceeded_;
  os::Timers::id_t timer_ = os::Timers::invalid_id;
};

}  // namespace keel::net

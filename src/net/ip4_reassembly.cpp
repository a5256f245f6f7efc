#include "ip4_reassembly.hpp"

#include <algorithm>
#include <cstring>
#include <os>

#include "bytes.hpp"

namespace keel::net {
namespace {
uint64_t now_ns() { return uint64_t(os::uptime().count()); }
}  // namespace

Reassembly::~Reassembly() { os::Timers::stop(timer_); }

std::size_t Reassembly::in_progress() const {
  return std::size_t(std::count_if(slots_.begin(), slots_.end(), [](const Slot& s) { return s.used; }));
}

Reassembly::Slot* Reassembly::find_or_start(const ip4::Header& h, uint16_t id, uint64_t now) {
  Slot* free_slot = nullptr;
  Slot* oldest = nullptr;
  for (Slot& s : slots_) {
    if (s.used && s.src == h.src.value && s.dst == h.dst.value && s.id == id && s.protocol == h.protocol)
      return &s;
    if (!s.busy() && !free_slot) free_slot = &s;
    if (s.used && (!oldest || s.started_ns < oldest->started_ns)) oldest = &s;
  }
  if (!free_slot) {
    if (!oldest) {  // every slot is delivered and still held upstream
      ++counters_.drop_fragment_no_slot;
      return nullptr;
    }
    ++counters_.drop_fragment_no_slot;  // the evicted datagram
    discard(*oldest);
    free_slot = oldest;
  }
  Slot& s = *free_slot;
  if (!s.buffer) {
    s.buffer.reset(new uint8_t[headroom + max_payload]);
    s.packet.attach(s.buffer.get(), headroom + max_payload, &s);
  }
  s.used = true;
  s.src = h.src.value;
  s.dst = h.dst.value;
  s.to_broadcast = h.to_broadcast;
  s.id = id;
  s.protocol = h.protocol;
  s.started_ns = now;
  s.deadline_ns = now + uint64_t(timeout.count());
  s.end = 0;
  s.blocks_set = 0;
  s.header_len = 0;
  s.bitmap.fill(0);
  arm_timer();
  return &s;
}

void Reassembly::discard(Slot& slot) { slot.used = false; }

::net::PacketPtr Reassembly::add(::net::PacketPtr fragment, const ip4::Header& h) {
  ++counters_.rx_fragments;
  const uint8_t* ip = fragment->data();
  uint16_t id = load16(ip + 4);
  uint16_t flags = load16(ip + 6);
  bool more = flags & ip4::flag_more_fragments;
  uint32_t offset = uint32_t(flags & ip4::fragment_offset_mask) * ip4::fragment_unit;
  uint32_t len = fragment->size() - h.header_len;
  const uint8_t* payload = ip + h.header_len;

  // RFC 791: every fragment but the last carries a multiple of 8 bytes; an
  // empty fragment carries nothing to reassemble.
  if (len == 0 || (more && len % ip4::fragment_unit != 0)) {
    ++counters_.drop_fragment_bad;
    return nullptr;
  }
  if (offset + len > max_payload || h.header_len + offset + len > ip4::max_total_length) {
    ++counters_.drop_fragment_too_big;
    return nullptr;
  }
  uint64_t now = now_ns();
  Slot* slot = find_or_start(h, id, now);
  if (!slot) return nullptr;
  Slot& s = *slot;
  uint32_t end = offset + len;
  // The last fragment fixes the length; nothing may lie beyond it.
  if ((!more && s.end && s.end != end) || (s.end && end > s.end)) {
    ++counters_.drop_fragment_overlap;
    discard(s);
    return nullptr;
  }
  if (!more) {
    uint32_t last_block = (end + 7) / 8;
    for (uint32_t b = last_block; b < blocks; ++b) {
      if (s.bitmap[b / 64] >> (b % 64) & 1) {  // data already received past the end
        ++counters_.drop_fragment_overlap;
        discard(s);
        return nullptr;
      }
      if (b % 64 == 0 && s.bitmap[b / 64] == 0) b += 63;  // skip empty words
    }
    s.end = end;
  }
  uint8_t* dst = s.buffer.get() + headroom;
  for (uint32_t b = offset / 8; b * 8 < end; ++b) {
    uint32_t from = b * 8, to = std::min(from + 8, end);
    uint64_t bit = uint64_t(1) << (b % 64);
    if (s.bitmap[b / 64] & bit) {
      // Overlap: only identical bytes are acceptable (a retransmission).
      if (std::memcmp(dst + from, payload + (from - offset), to - from) != 0) {
        ++counters_.drop_fragment_overlap;
        discard(s);
        return nullptr;
      }
      continue;
    }
    std::memcpy(dst + from, payload + (from - offset), to - from);
    s.bitmap[b / 64] |= bit;
    ++s.blocks_set;
  }
  if (offset == 0) {
    s.header_len = h.header_len;
    std::size_t n = std::min<std::size_t>(quote_len, h.header_len + std::min<uint32_t>(len, 8));
    std::memcpy(s.first.data(), ip, n);
  }
  // Fragments may carry headers of different lengths; the datagram gets the
  // first one's. Check its full length against IPv4's 16-bit limit ("ping
  // of death", RFC 791 section 3.1) as soon as both are known.
  if (s.end && s.header_len && s.header_len + s.end > ip4::max_total_length) {
    ++counters_.drop_fragment_too_big;
    discard(s);
    return nullptr;
  }
  if (s.end && s.header_len && s.blocks_set == (s.end + 7) / 8) return complete(s);
  return nullptr;
}

::net::PacketPtr Reassembly::complete(Slot& s) {
  s.used = false;
  s.delivered = true;
  ++counters_.reassembled;
  uint32_t total = s.header_len + s.end;
  uint8_t* header = s.buffer.get() + headroom - s.header_len;
  std::memcpy(header, s.first.data(), s.header_len);
  store16(header + 2, uint16_t(total));
  store16(header + 6, 0);  // one whole datagram now: no MF, offset 0
  store16(header + 10, 0);
  store16(header + 10, checksum(header, s.header_len));
  s.packet.reset(0);
  s.packet.set_window(headroom - s.header_len, total);
  return ::net::PacketPtr(&s.packet);
}

void Reassembly::arm_timer() {
  if (timer_ != os::Timers::invalid_id) return;
  uint64_t earliest = UINT64_MAX;
  for (const Slot& s : slots_)
    if (s.used) earliest = std::min(earliest, s.deadline_ns);
  if (earliest == UINT64_MAX) return;
  uint64_t now = now_ns();
  auto wait = std::chrono::nanoseconds(earliest > now ? earliest - now : 0);
  timer_ = os::Timers::oneshot(wait, [this](os::Timers::id_t) {
    timer_ = os::Timers::invalid_id;
    on_timer();
  });
}

void Reassembly::on_timer() {
  uint64_t now = now_ns();
  for (Slot& s : slots_) {
    if (!s.used || s.deadline_ns > now) continue;
    ++counters_.drop_fragment_timeout;
    discard(s);
    // RFC 792: time exceeded, code 1, only if fragment zero is available.
    if (s.header_len && !s.to_broadcast && time_exceeded_) {
      std::size_t n = std::min<std::size_t>(quote_len, s.header_len + 8);
      time_exceeded_(s.first.data(), n);
    }
  }
  arm_timer();
}

}  // namespace keel::net

// TCP headers (RFC 9293 §3.1): a view with checked access, the options
// (RFC 9293 §3.2 MSS, RFC 7323 window scale and timestamps, RFC 2018 SACK)
// parsed with every length checked, and the parsed header (TcpRepr) that
// the TCP layer emits and tests compare whole. The connection logic is in
// src/net/tcp.
#pragma once
#include <array>
#include <cstdint>
#include <net/ip4_addr.hpp>
#include <optional>

#include "checksum.hpp"
#include "ip4.hpp"
#include "ip6.hpp"
#include "view.hpp"

namespace net::wire {

inline constexpr uint32_t tcp_header_min = 20;
inline constexpr uint32_t tcp_header_max = 60;
inline constexpr uint32_t tcp_options_max = tcp_header_max - tcp_header_min;
inline constexpr uint32_t tcp_checksum_offset = 16;

namespace tcp_flag {
inline constexpr uint8_t fin = 0x01, syn = 0x02, rst = 0x04, psh = 0x08, ack = 0x10, urg = 0x20,
                         ece = 0x40, cwr = 0x80;
}

// Option kinds and their lengths (IANA "TCP Option Kind Numbers").
namespace tcp_option {
inline constexpr uint8_t end = 0, nop = 1, mss = 2, window_scale = 3, sack_permitted = 4, sack = 5,
                         timestamps = 8;
inline constexpr uint8_t mss_len = 4, window_scale_len = 3, sack_permitted_len = 2,
                         timestamps_len = 10, sack_base_len = 2, sack_block_len = 8;
}  // namespace tcp_option

// RFC 7323 §2.3: a shift over 14 is treated as 14.
inline constexpr uint8_t tcp_max_window_shift = 14;
// RFC 2018 §3: 40 bytes of options hold at most 4 SACK blocks (3 beside timestamps).
inline constexpr uint32_t tcp_max_sack_blocks = 4;

enum class TcpError : uint8_t { none, truncated, bad_data_offset, bad_checksum };

// Why options were not taken as sent. Parsing stops at an option whose
// length byte is missing, below 2 or past the header (nothing after it can
// be found); a known option with the wrong length for its kind is skipped.
enum class TcpOptionError : uint8_t {
  none,
  bad_length,            // length byte missing, < 2, or past the options area
  bad_option_length,     // MSS not 4, window scale not 3, ... : that option ignored
  window_shift_clamped,  // window scale over 14: used as 14
};

template <class Byte>
class TcpView : public View<Byte> {
  using View<Byte>::data_;
  using View<Byte>::size_;

 public:
  using View<Byte>::View;

  // verify_checksum: false when the NIC vouched for it.
  TcpError check(ip4::Addr src, ip4::Addr dst, bool verify_checksum = true) const {
    return check_with(
        verify_checksum ? pseudo_header_sum(src, dst, ip_protocol_tcp, uint16_t(size_)) : 0,
        verify_checksum);
  }
  // Over IPv6 with its pseudo-header (RFC 8200 §8.1).
  TcpError check(const ip6::Addr& src, const ip6::Addr& dst, bool verify_checksum = true) const {
    return check_with(
        verify_checksum ? pseudo_header_sum(src, dst, ip_protocol_tcp, uint32_t(size_)) : 0,
        verify_checksum);
  }
  // With the pseudo-header's sum given.
  TcpError check_with(uint32_t pseudo, bool verify_checksum) const {
    if (size_ < tcp_header_min) return TcpError::truncated;
    if (header_len() < tcp_header_min || header_len() > size_) return TcpError::bad_data_offset;
    if (verify_checksum && checksum_fold(checksum_add(pseudo, data_, size_)) != 0xffff)
      return TcpError::bad_checksum;
    return TcpError::none;
  }
  uint16_t src_port() const { return load16(data_); }
  uint16_t dst_port() const { return load16(data_ + 2); }
  uint32_t seq() const { return load32(data_ + 4); }
  uint32_t ack() const { return load32(data_ + 8); }
  uint32_t header_len() const { return uint32_t(data_[12] >> 4) * 4; }
  uint8_t flags() const { return data_[13]; }
  uint16_t window() const { return load16(data_ + 14); }
  uint16_t segment_checksum() const { return load16(data_ + tcp_checksum_offset); }
  uint16_t urgent() const { return load16(data_ + 18); }
  Byte* options() const { return data_ + tcp_header_min; }
  uint32_t options_len() const { return header_len() - tcp_header_min; }
  Byte* payload() const { return data_ + header_len(); }
  uint32_t payload_len() const { return uint32_t(size_) - header_len(); }
};

template <class Byte>
TcpView(Byte*, std::size_t) -> TcpView<Byte>;

struct TcpSackBlock {
  uint32_t left = 0, right = 0;  // [left, right): sequence numbers
  friend bool operator==(const TcpSackBlock&, const TcpSackBlock&) = default;
};

struct TcpTimestamps {
  uint32_t value = 0, echo = 0;  // TSval, TSecr (RFC 7323 §3)
  friend bool operator==(const TcpTimestamps&, const TcpTimestamps&) = default;
};

// The options of one header, as values.
struct TcpOptions {
  std::optional<uint16_t> mss;          // SYN only
  std::optional<uint8_t> window_scale;  // SYN only, at most 14
  bool sack_permitted = false;          // SYN only
  std::optional<TcpTimestamps> timestamps;
  uint8_t sack_count = 0;
  std::array<TcpSackBlock, tcp_max_sack_blocks> sack{};

  void add_sack(TcpSackBlock block) {
    if (sack_count < tcp_max_sack_blocks) sack[sack_count++] = block;
  }

  // The emitted length (a multiple of 4), in the layout of emit().
  uint32_t length() const {
    uint32_t n = 0;
    if (mss) n += tcp_option::mss_len;
    if (timestamps)
      n += 2 + tcp_option::timestamps_len;  // NOP NOP or SACK-permitted before it
    else if (sack_permitted)
      n += 2 + tcp_option::sack_permitted_len;
    if (window_scale) n += 1 + tcp_option::window_scale_len;
    if (uint32_t blocks = sack_blocks_that_fit(n)) {
      n += 2 + tcp_option::sack_base_len + blocks * tcp_option::sack_block_len;
    }
    return n;
  }

  // Writes the options at `out` (length() bytes) in Linux's layout:
  // MSS, SACK-permitted with timestamps (or NOP NOP before either), NOP
  // and window scale, NOP NOP and SACK blocks. SACK blocks past the 40
  // bytes are left out. Returns the length written.
  uint32_t emit(uint8_t* out) const {
    using namespace tcp_option;
    uint8_t* p = out;
    if (mss) {
      *p++ = tcp_option::mss;
      *p++ = mss_len;
      store16(p, *mss);
      p += 2;
    }
    if (timestamps) {
      if (sack_permitted) {
        *p++ = tcp_option::sack_permitted;
        *p++ = sack_permitted_len;
      } else {
        *p++ = nop;
        *p++ = nop;
      }
      *p++ = tcp_option::timestamps;
      *p++ = timestamps_len;
      store32(p, timestamps->value);
      store32(p + 4, timestamps->echo);
      p += 8;
    } else if (sack_permitted) {
      *p++ = nop;
      *p++ = nop;
      *p++ = tcp_option::sack_permitted;
      *p++ = sack_permitted_len;
    }
    if (window_scale) {
      *p++ = nop;
      *p++ = tcp_option::window_scale;
      *p++ = window_scale_len;
      *p++ = *window_scale;
    }
    if (uint32_t blocks = sack_blocks_that_fit(uint32_t(p - out))) {
      *p++ = nop;
      *p++ = nop;
      *p++ = tcp_option::sack;
      *p++ = uint8_t(sack_base_len + blocks * sack_block_len);
      for (uint32_t i = 0; i < blocks; ++i) {
        store32(p, sack[i].left);
        store32(p + 4, sack[i].right);
        p += 8;
      }
    }
    return uint32_t(p - out);
  }

  // Parses `len` bytes of options. Unknown kinds are skipped by their
  // length; see TcpOptionError for what is refused. The first error found
  // is returned, and whatever parsed before it (and, for a bad option
  // length, after it) is kept.
  static TcpOptionError parse(const uint8_t* p, uint32_t len, TcpOptions& out) {
    using namespace tcp_option;
    TcpOptionError error = TcpOptionError::none;
    auto note = [&error](TcpOptionError e) {
      if (error == TcpOptionError::none) error = e;
    };
    for (uint32_t i = 0; i < len;) {
      uint8_t kind = p[i];
      if (kind == end) break;
      if (kind == nop) {
        ++i;
        continue;
      }
      if (i + 1 >= len || p[i + 1] < 2 || i + p[i + 1] > len) {
        note(TcpOptionError::bad_length);
        break;
      }
      uint8_t size = p[i + 1];
      const uint8_t* value = p + i + 2;
      switch (kind) {
        case tcp_option::mss:
          if (size == mss_len)
            out.mss = load16(value);
          else
            note(TcpOptionError::bad_option_length);
          break;
        case tcp_option::window_scale:
          if (size != window_scale_len) {
            note(TcpOptionError::bad_option_length);
          } else if (value[0] > tcp_max_window_shift) {
            note(TcpOptionError::window_shift_clamped);
            out.window_scale = tcp_max_window_shift;
          } else {
            out.window_scale = value[0];
          }
          break;
        case tcp_option::sack_permitted:
          if (size == sack_permitted_len)
            out.sack_permitted = true;
          else
            note(TcpOptionError::bad_option_length);
          break;
        case tcp_option::timestamps:
          if (size == timestamps_len)
            out.timestamps = TcpTimestamps{load32(value), load32(value + 4)};
          else
            note(TcpOptionError::bad_option_length);
          break;
        case tcp_option::sack:
          if (size < sack_base_len + sack_block_len ||
              (size - sack_base_len) % sack_block_len != 0) {
            note(TcpOptionError::bad_option_length);
            break;
          }
          out.sack_count = 0;
          for (uint32_t b = 0; b < uint32_t(size - sack_base_len) / sack_block_len; ++b) {
            out.add_sack(
                {load32(value + b * sack_block_len), load32(value + b * sack_block_len + 4)});
          }
          break;
        default:
          break;  // unknown: skipped by its length
      }
      i += size;
    }
    return error;
  }

  friend bool operator==(const TcpOptions& a, const TcpOptions& b) {
    if (a.mss != b.mss || a.window_scale != b.window_scale ||
        a.sack_permitted != b.sack_permitted || a.timestamps != b.timestamps ||
        a.sack_count != b.sack_count) {
      return false;
    }
    for (uint32_t i = 0; i < a.sack_count; ++i)
      if (a.sack[i] != b.sack[i]) return false;
    return true;
  }

 private:
  // How many of the SACK blocks fit after `used` bytes of other options.
  uint32_t sack_blocks_that_fit(uint32_t used) const {
    constexpr uint32_t overhead = 2 + tcp_option::sack_base_len;  // NOP NOP kind length
    if (sack_count == 0 || used + overhead + tcp_option::sack_block_len > tcp_options_max) return 0;
    uint32_t room = (tcp_options_max - used - overhead) / tcp_option::sack_block_len;
    return sack_count < room ? sack_count : room;
  }
};

// A TCP header as a value: what the layer sends, what tests expect.
struct TcpRepr {
  uint16_t src_port = 0, dst_port = 0;
  uint32_t seq = 0, ack = 0;
  uint8_t flags = 0;
  uint16_t window = 0;
  uint16_t urgent = 0;
  TcpOptions options;
  uint32_t payload_len = 0;

  bool has(uint8_t flag) const { return (flags & flag) != 0; }
  uint32_t header_len() const { return tcp_header_min + options.length(); }
  // Sequence space the segment takes: its data, and one each for SYN and FIN.
  uint32_t sequence_len() const {
    return payload_len + (has(tcp_flag::syn) ? 1 : 0) + (has(tcp_flag::fin) ? 1 : 0);
  }

  // After check(). Option errors go to `option_error` (if given).
  template <class Byte>
  static TcpRepr parse(const TcpView<Byte>& v, TcpOptionError* option_error = nullptr) {
    TcpRepr r{v.src_port(), v.dst_port(), v.seq(), v.ack(),        v.flags(),
              v.window(),   v.urgent(),   {},      v.payload_len()};
    TcpOptionError e = TcpOptions::parse(v.options(), v.options_len(), r.options);
    if (option_error) *option_error = e;
    return r;
  }

  // Writes the header at `segment`, whose payload_len bytes of data are
  // already at segment + header_len(), with the full checksum or, for
  // offload, only the pseudo-header sum.
  enum class Checksum { full, pseudo_header_only };
  void emit(uint8_t* segment, ip4::Addr src, ip4::Addr dst, Checksum how = Checksum::full) const {
    auto length = uint16_t(header_len() + payload_len);
    emit_with(segment, pseudo_header_sum(src, dst, ip_protocol_tcp, length), how);
  }
  // Over IPv6 (RFC 8200 §8.1: the IPv6 pseudo-header).
  void emit(uint8_t* segment, const ip6::Addr& src, const ip6::Addr& dst,
            Checksum how = Checksum::full) const {
    uint32_t length = header_len() + payload_len;
    emit_with(segment, pseudo_header_sum(src, dst, ip_protocol_tcp, length), how);
  }
  // With the pseudo-header's sum given.
  void emit_with(uint8_t* segment, uint32_t pseudo, Checksum how) const {
    uint32_t header = header_len();
    store16(segment, src_port);
    store16(segment + 2, dst_port);
    store32(segment + 4, seq);
    store32(segment + 8, ack);
    segment[12] = uint8_t((header / 4) << 4);
    segment[13] = flags;
    store16(segment + 14, window);
    store16(segment + tcp_checksum_offset, 0);
    store16(segment + 18, urgent);
    options.emit(segment + tcp_header_min);
    uint32_t length = header + payload_len;
    if (how == Checksum::pseudo_header_only) {
      store16(segment + tcp_checksum_offset, checksum_fold(pseudo));
      return;
    }
    store16(segment + tcp_checksum_offset,
            uint16_t(~checksum_fold(checksum_add(pseudo, segment, length))));
  }

  friend bool operator==(const TcpRepr&, const TcpRepr&) = default;
};

}  // namespace net::wire

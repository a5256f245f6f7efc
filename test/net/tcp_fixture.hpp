// TCP scenarios against the host stack (stack_fixture.hpp): the test plays
// the peer (10.0.0.1), injects its segments and asserts every segment the
// stack sends as a whole TcpRepr. Our ISN and timestamp clock are secret
// (RFC 6528), so the fixture learns them from the first segment we send.
#pragma once
#include <net/tcp.hpp>
#include <optional>
#include <string>

#include "stack_fixture.hpp"
#include "tcp_frames.hpp"

namespace keel::test {

namespace flag = ::net::wire::tcp_flag;
using ::net::Status;
using ::net::TcpCloseReason;
using ::net::TcpConnection;
using ::net::TcpOptions;
using ::net::TcpState;
using ::net::wire::TcpRepr;

inline void PrintTo(TcpCloseReason r, std::ostream* os) { *os << ::net::to_string(r); }
inline void PrintTo(TcpState s, std::ostream* os) { *os << ::net::to_string(s); }

inline Bytes text(std::string_view s) { return Bytes(s.begin(), s.end()); }

// What the peer offers in its SYN.
struct PeerOffer {
  uint16_t mss = 1460;
  std::optional<uint8_t> window_scale = 7;
  bool sack = true;
  bool timestamps = true;
  uint16_t window = 65535;  // in the SYN (unscaled)
};

class TcpTest : public StackTest {
 protected:
  static constexpr uint16_t server_port = 80;
  static constexpr uint16_t client_port = 40000;  // the peer's, when it connects
  static constexpr uint32_t peer_isn = 1000;
  // Small buffers keep windows readable: 64 KiB with the scale we offer
  // for it (5: room for 1 MiB) is a window field of 2048.
  static constexpr uint32_t buffer = 64 * 1024;
  static constexpr uint8_t our_shift = 5;
  static constexpr uint16_t full_window = buffer >> our_shift;
  static constexpr uint32_t mss = 1460;            // ours: 1500 - 40
  static constexpr uint32_t data_mss = 1460 - 12;  // beside timestamps

  using Peer = PeerOffer;

  TcpOptions options() const {
    TcpOptions o;
    o.send_buffer = buffer;
    o.receive_buffer = buffer;
    return o;
  }

  void inject(const TcpRepr& h, const Bytes& payload = {}) {
    if (v6)
      nic.inject(ip6_frame(tcp6_packet(h, payload)));
    else
      inject_ip(tcp_packet(h, payload));
  }

  // The next segment the stack sent (and it is a TCP one).
  SentSegment next() {
    if (nic.transmitted.empty()) {
      ADD_FAILURE() << "no segment sent";
      return {};
    }
    return v6 ? sent_segment6(nic.pop()) : sent_segment(nic.pop());
  }
  TcpRepr next_header() { return next().header; }
  std::size_t sent_count() const { return nic.transmitted.size(); }

  // Our timestamp clock now, and the peer's.
  uint32_t our_ts() const { return ts_base + uint32_t(clock.now_ns() / 1'000'000); }
  uint32_t peer_ts = 500;

  // A segment from the peer (its port to ours), with timestamps if agreed.
  TcpRepr from_peer(uint8_t flags, uint32_t seq, uint32_t ack, uint16_t window) {
    TcpRepr h{their_port, our_port, seq, ack, flags, window, 0, {}, 0};
    if (timestamps) h.options.timestamps = ::net::wire::TcpTimestamps{peer_ts, last_our_ts};
    return h;
  }
  // A segment we are expected to send.
  TcpRepr from_us(uint8_t flags, uint32_t seq, uint32_t ack, uint16_t window, uint32_t len = 0) {
    TcpRepr h{our_port, their_port, seq, ack, flags, window, 0, {}, len};
    if (timestamps) h.options.timestamps = ::net::wire::TcpTimestamps{our_ts(), peer_ts};
    return h;
  }
  // Remembers our TSval from a segment we sent (the peer echoes it).
  void saw(const TcpRepr& h) {
    if (h.options.timestamps) last_our_ts = h.options.timestamps->value;
  }

  // The peer's SYN to a listener on server_port, our SYN-ACK, the peer's
  // ACK: the connection the listener accepted.
  TcpConnection accept(Peer p = {}, TcpOptions o = {}) {
    if (o.send_buffer == TcpOptions{}.send_buffer) o = options();
    our_port = server_port;
    their_port = client_port;
    listener = *stack.tcp().listen(
        server_port, [this](TcpConnection c) { accepted = c; }, o);
    TcpRepr syn{client_port, server_port, peer_isn, 0, flag::syn, p.window, 0, {}, 0};
    syn.options.mss = p.mss;
    syn.options.window_scale = p.window_scale;
    syn.options.sack_permitted = p.sack;
    if (p.timestamps) syn.options.timestamps = ::net::wire::TcpTimestamps{peer_ts, 0};
    inject(syn);
    TcpRepr synack = next_header();
    handshake = synack;
    iss = synack.seq;
    timestamps = p.timestamps;
    if (synack.options.timestamps)
      ts_base = synack.options.timestamps->value - uint32_t(clock.now_ns() / 1'000'000);
    saw(synack);
    peer_shift = p.window_scale.value_or(0);
    our_window_shift = p.window_scale ? our_shift : 0;
    ++peer_ts;
    inject(from_peer(flag::ack, peer_isn + 1, iss + 1, uint16_t(p.window >> peer_shift)));
    return accepted;
  }

  // connect() to the peer's port 80, our SYN, the peer's SYN-ACK, our ACK.
  TcpConnection connect(Peer p = {}, TcpOptions o = {}) {
    if (o.send_buffer == TcpOptions{}.send_buffer) o = options();
    auto c = stack.tcp().connect(
        {v6 ? ::net::Address(peer_ip6) : ::net::Address(peer_ip), 80},
        [this](TcpConnection c) { accepted = c; }, o);
    EXPECT_TRUE(c.ok());
    TcpRepr syn = next_header();
    handshake = syn;
    iss = syn.seq;
    our_port = syn.src_port;
    their_port = 80;
    ts_base = syn.options.timestamps->value - uint32_t(clock.now_ns() / 1'000'000);
    saw(syn);
    TcpRepr synack{80, syn.src_port, peer_isn, iss + 1, uint8_t(flag::syn | flag::ack), p.window,
                   0,  {},           0};
    synack.options.mss = p.mss;
    synack.options.window_scale = p.window_scale;
    synack.options.sack_permitted = p.sack;
    if (p.timestamps) synack.options.timestamps = ::net::wire::TcpTimestamps{peer_ts, last_our_ts};
    timestamps = p.timestamps;
    peer_shift = p.window_scale.value_or(0);
    our_window_shift = p.window_scale ? our_shift : 0;
    inject(synack);
    return *c;
  }

  ::net::TcpListener listener;
  TcpConnection accepted;
  TcpRepr handshake;  // our SYN-ACK (accept) or SYN (connect)
  uint32_t iss = 0;
  uint32_t ts_base = 0, last_our_ts = 0;
  bool timestamps = true;
  uint8_t peer_shift = 7, our_window_shift = our_shift;
  uint16_t our_port = server_port, their_port = client_port;
  bool v6 = false;  // the peer is fd00::1 (Tcp6Test), segments are IPv6 packets
};

}  // namespace keel::test

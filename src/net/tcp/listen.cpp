// Listeners: a SYN makes a connection in SYN-RECEIVED while the listener's
// backlog of handshakes has room, and a SYN cookie once it has not (or the
// table is full), so a SYN flood neither fills memory nor locks out real
// clients (RFC 4987 §3.6). A SYN for a 4-tuple in TIME_WAIT may take it
// over (RFC 6191 with timestamps, RFC 1122 §4.2.2.13 without).
#include <algorithm>

#include "net/stack_parts.hpp"
#include "seq.hpp"
#include "tcp_layer.hpp"

namespace net {
namespace {

namespace flag = wire::tcp_flag;
constexpr uint32_t max_unscaled_window = 65535;
constexpr uint64_t ns_per_ms = 1'000'000;

}  // namespace

// A listener on the address itself first, else one on the any-address of
// either family (0.0.0.0 and :: are one, as UDP's, decision 0131).
uint32_t TcpLayer::find_listener(const Address& address, uint16_t port) const {
  const uint32_t* first = listener_ports_.find(port);
  uint32_t any = none;
  for (uint32_t i = first ? *first : none; i != none; i = listeners_[i].next_on_port) {
    const Address& a = listeners_[i].address;
    if (a.is_any())
      any = i;
    else if (a == address)
      return i;
  }
  return any;
}

void TcpLayer::listen_input(uint32_t index, const tcp::ConnectionKey& key, const tcp::Segment& s,
                            uint64_t t) {
  Listener& l = listeners_[index];
  // RFC 9293 §3.10.7.2: a RST is ignored, an ACK answered with a RST
  // (unless it is a SYN cookie coming back), anything without SYN dropped.
  if (s.has(flag::rst)) {
    ++counters_.drop_listen_not_syn;
    return;
  }
  if (s.has(flag::ack)) {
    if (!s.has(flag::syn)) {
      accept_cookie(index, key, s, t);
      return;
    }
    ++counters_.drop_listen_not_syn;
    send_reset(key, s);
    return;
  }
  if (!s.has(flag::syn)) {
    ++counters_.drop_listen_not_syn;
    return;
  }
  tcp::Connection* c = l.pending < limits_.backlog ? create(key, l.options) : nullptr;
  if (!c) {
    send_cookie(index, key, s, t);
    return;
  }
  c->listener_slot = index;
  c->listener_generation = l.generation;
  c->in_backlog = true;
  ++l.pending;
  c->open_passive(s, t);
  schedule(*c);
}

void TcpLayer::send_cookie(uint32_t index, const tcp::ConnectionKey& key, const tcp::Segment& syn,
                           uint64_t t) {
  const TcpOptions& options = listeners_[index].options;
  auto path = route(key);
  if (!path) {
    ++counters_.drop_tx_failed;
    return;
  }
  uint16_t our_mss =
      uint16_t(std::min<uint32_t>(mtu(*path, key) - tcp::ip_tcp_headers(key), UINT16_MAX));
  const wire::TcpOptions& offered = syn.header.options;
  uint16_t peer_mss = std::min(offered.mss.value_or(tcp::default_mss_for(key)), our_mss);
  wire::TcpRepr h{key.local_port,
                  key.remote_port,
                  tcp::SynCookies::make(secrets_, key, syn.seq(), peer_mss, t),
                  syn.seq() + 1,
                  uint8_t(flag::syn | flag::ack),
                  uint16_t(std::min<uint32_t>(options.receive_buffer, max_unscaled_window)),
                  0,
                  {},
                  0};
  h.options.mss = our_mss;
  // Window scale and SACK survive only in the timestamp (syn_cookies.hpp).
  if (offered.timestamps && options.timestamps) {
    tcp::SynCookies::Options carried{offered.window_scale, offered.sack_permitted && options.sack};
    uint32_t clock = uint32_t(t / ns_per_ms) + secrets_.timestamp_offset(key);
    h.options.timestamps = wire::TcpTimestamps{tcp::SynCookies::encode_timestamp(clock, carried),
                                               offered.timestamps->value};
    if (offered.window_scale)
      h.options.window_scale = tcp::window_shift_for(options.receive_buffer);
    h.options.sack_permitted = carried.sack;
  }
  if (send(*path, key, h)) ++counters_.syn_cookies_sent;
}

void TcpLayer::accept_cookie(uint32_t index, const tcp::ConnectionKey& key, const tcp::Segment& s,
                             uint64_t t) {
  auto mss = tcp::SynCookies::check(secrets_, key, s.seq() - 1, s.header.ack - 1, t);
  if (!mss) {
    ++counters_.drop_bad_cookie;
    send_reset(key, s);
    return;
  }
  tcp::SynCookies::Options carried;
  if (const auto& ts = s.header.options.timestamps)
    carried = tcp::SynCookies::decode_timestamp(ts->echo);
  Listener& l = listeners_[index];
  tcp::Connection* c = create(key, l.options);
  if (!c) return;  // counted; the peer's retransmission may find room
  ++counters_.syn_cookies_accepted;
  c->listener_slot = index;
  c->listener_generation = l.generation;
  c->open_from_cookie(s, *mss, carried, t);
  if (!s.payload.empty() || s.has(flag::fin)) c->input(s, t);
  schedule(*c);
}

bool TcpLayer::listener_handler(const tcp::Connection& c, Tcp::ConnectHandler& out) const {
  if (c.listener_slot >= listeners_.size()) return false;
  const Listener& l = listeners_[c.listener_slot];
  if (!l.open || l.generation != c.listener_generation) return false;
  out = l.on_connect;
  return true;
}

void TcpLayer::handshake_done(tcp::Connection& c) {
  if (!c.in_backlog) return;
  c.in_backlog = false;
  if (c.listener_slot >= listeners_.size()) return;
  Listener& l = listeners_[c.listener_slot];
  if (l.open && l.generation == c.listener_generation && l.pending > 0) --l.pending;
}

}  // namespace net

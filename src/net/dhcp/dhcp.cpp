#include "dhcp.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include "net/link/link.hpp"
#include "net/time.hpp"
#include "net/wire/checksum.hpp"

namespace net {
namespace {

using wire::load16;
using wire::load32;
using wire::store16;
using wire::store32;

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

constexpr uint32_t options_offset = dhcp::fixed_size + 4;  // after the magic cookie
constexpr uint8_t op_request = 1, op_reply = 2;
constexpr uint16_t flag_broadcast = 0x8000;  // RFC 2131 §2: reply by broadcast

}  // namespace

struct Dhcp::Message {
  uint8_t type = 0;
  Addr yiaddr, server_id, netmask, router;
  std::vector<Addr> dns;
  std::optional<uint32_t> lease, t1, t2;
};

Dhcp::Dhcp(Udp& udp, Link& link, DhcpCounters& counters)
    : udp_(udp), link_(link), mac_(link.mac()), counters_(counters) {
  seed_ = link.now();
  for (uint8_t b : mac_.bytes) seed_ = seed_ * 131 + b;
}

Dhcp::~Dhcp() { stop(); }

uint64_t Dhcp::now() const { return link_.now(); }

void Dhcp::start(Seconds timeout, std::optional<Seconds> t1) {
  stop();
  t1_override_ = t1;
  auto bound = udp_.bind(Endpoint{ip4::Addr{}, dhcp::client_port}, link_.id());
  if (!bound) {
    ++counters_.drop_unexpected;  // port 68 taken on this interface: nothing to do
    return;
  }
  socket_ = *bound;
  socket_.on_read([this](const UdpDatagram& d) {
    if (d.source.port == dhcp::server_port) receive(d.payload.data(), d.payload.size());
  });
  if (timeout.count() > 0) {
    fallback_ns_ = now() + uint64_t(timeout.count()) * ns_per_second;
    link_.wake_by(fallback_ns_);
  }
  enter_init();
}

void Dhcp::stop() {
  deadline_ns_ = fallback_ns_ = never;
  socket_.close();
  state_ = State::stopped;
}

void Dhcp::set_timer(Seconds delay, void (Dhcp::*what)()) {
  deadline_ns_ = now() + uint64_t(delay.count()) * ns_per_second;
  due_ = what;
  link_.wake_by(deadline_ns_);
}

void Dhcp::poll(uint64_t now) {
  if (fallback_ns_ <= now) {
    fallback_ns_ = never;
    if (state_ == State::selecting || state_ == State::requesting) {
      ++counters_.fallbacks;
      stop();
      if (fallback_) fallback_();
      return;
    }
  }
  if (deadline_ns_ <= now) {
    deadline_ns_ = never;
    (this->*due_)();
  }
}

void Dhcp::enter_init() {
  state_ = State::selecting;
  xid_ = uint32_t(splitmix64(seed_));
  retry_ = first_retry;
  tries_ = 0;
  send_discover();
  set_timer(retry_, &Dhcp::on_retransmit);
}

void Dhcp::send_discover() {
  send(dhcp::discover, Addr::broadcast());
  ++counters_.tx_discover;
}

void Dhcp::send_request() {
  // RFC 2131 §4.3.2: renewing is unicast to the server; the rest broadcast.
  send(dhcp::request, state_ == State::renewing ? lease_.server : Addr::broadcast());
  ++counters_.tx_request;
}

Dhcp::Seconds Dhcp::since_bound() const {
  return std::chrono::duration_cast<Seconds>(std::chrono::nanoseconds(now() - bound_at_ns_));
}

void Dhcp::on_retransmit() {
  switch (state_) {
    case State::stopped:
      return;
    case State::selecting:
      retry_ = std::min(retry_ * 2, max_retry);
      send_discover();
      set_timer(retry_, &Dhcp::on_retransmit);
      return;
    case State::requesting:
      if (++tries_ >= max_request_tries) return enter_init();
      retry_ = std::min(retry_ * 2, max_retry);
      send_request();
      set_timer(retry_, &Dhcp::on_retransmit);
      return;
    case State::bound:  // T1
      state_ = State::renewing;
      break;
    case State::renewing:
      if (since_bound() >= lease_.t2) state_ = State::rebinding;
      break;
    case State::rebinding:
      if (since_bound() >= lease_.lease) return expire();
      break;
  }
  // RFC 2131 §4.4.5: retry at half the time left to T2 (or expiry).
  xid_ = uint32_t(splitmix64(seed_));
  send_request();
  Seconds until = (state_ == State::renewing ? lease_.t2 : lease_.lease) - since_bound();
  Seconds delay = std::max(until / 2, min_renew_retry);
  set_timer(std::max(std::min(delay, until), Seconds{1}), &Dhcp::on_retransmit);
}

void Dhcp::expire() {
  ++counters_.expirations;
  if (lost_) lost_();
  enter_init();
}

void Dhcp::send(uint8_t type, Addr dst) {
  std::array<uint8_t, 300> m{};
  m[0] = op_request;
  m[1] = 1;  // htype Ethernet
  m[2] = 6;  // hlen
  store32(&m[4], xid_);
  bool have_address = state_ == State::renewing || state_ == State::rebinding;
  if (!have_address) store16(&m[10], flag_broadcast);
  if (have_address) lease_.address.write(&m[12]);  // ciaddr
  mac_.write(&m[28]);                              // chaddr
  store32(&m[dhcp::fixed_size], dhcp::magic_cookie);
  uint8_t* o = &m[options_offset];
  *o++ = dhcp::message_type;
  *o++ = 1;
  *o++ = type;
  *o++ = dhcp::client_id;
  *o++ = 7;
  *o++ = 1;  // RFC 2132 §9.14: type 1 + MAC
  mac_.write(o);
  o += 6;
  if (type == dhcp::request && state_ == State::requesting) {
    // RFC 2131 §4.3.2 SELECTING: requested address and server identifier.
    *o++ = dhcp::requested_address;
    *o++ = 4;
    offered_.write(o);
    o += 4;
    *o++ = dhcp::server_id;
    *o++ = 4;
    server_.write(o);
    o += 4;
  }
  *o++ = dhcp::parameter_list;
  *o++ = 6;
  for (uint8_t p : {dhcp::subnet_mask, dhcp::router, dhcp::dns_servers, dhcp::lease_time,
                    dhcp::renewal_time, dhcp::rebinding_time})
    *o++ = p;
  *o++ = dhcp::end;
  std::size_t len = std::size_t(o - m.data());
  socket_.send_to(Endpoint{dst, dhcp::server_port}, m.data(), len);
}

void Dhcp::receive(const uint8_t* data, std::size_t len) {
  if (state_ == State::stopped) return;
  if (len < options_offset || data[0] != op_reply || data[1] != 1 || data[2] != 6 ||
      load32(data + dhcp::fixed_size) != dhcp::magic_cookie) {
    ++counters_.drop_malformed;
    return;
  }
  if (load32(data + 4) != xid_ || Mac::from(data + 28) != mac_) {
    ++counters_.drop_unexpected;
    return;
  }
  Message m;
  m.yiaddr = Addr::from_bytes(data + 16);
  // RFC 2132 options: code, length, value; pad and end have no length.
  for (std::size_t i = options_offset; i < len;) {
    uint8_t code = data[i];
    if (code == dhcp::end) break;
    if (code == dhcp::pad) {
      ++i;
      continue;
    }
    if (i + 2 > len || i + 2 + data[i + 1] > len) {
      ++counters_.drop_malformed;
      return;
    }
    uint8_t n = data[i + 1];
    const uint8_t* v = data + i + 2;
    switch (code) {
      case dhcp::message_type:
        if (n == 1) m.type = v[0];
        break;
      case dhcp::server_id:
        if (n == 4) m.server_id = Addr::from_bytes(v);
        break;
      case dhcp::subnet_mask:
        if (n == 4) m.netmask = Addr::from_bytes(v);
        break;
      case dhcp::router:
        if (n >= 4) m.router = Addr::from_bytes(v);
        break;
      case dhcp::dns_servers:
        for (uint8_t k = 0; k + 4 <= n && m.dns.size() < 4; k += 4)
          m.dns.push_back(Addr::from_bytes(v + k));
        break;
      case dhcp::lease_time:
        if (n == 4) m.lease = load32(v);
        break;
      case dhcp::renewal_time:
        if (n == 4) m.t1 = load32(v);
        break;
      case dhcp::rebinding_time:
        if (n == 4) m.t2 = load32(v);
        break;
      default:
        break;
    }
    i += 2 + n;
  }
  if (m.type == dhcp::offer && state_ == State::selecting) return handle_offer(m);
  if (m.type == dhcp::ack &&
      (state_ == State::requesting || state_ == State::renewing || state_ == State::rebinding))
    return handle_ack(m);
  if (m.type == dhcp::nak && state_ != State::selecting && state_ != State::bound)
    return handle_nak();
  ++counters_.drop_unexpected;
}

void Dhcp::handle_offer(const Message& m) {
  if (m.server_id.is_any() || m.yiaddr.is_any() || m.yiaddr.is_broadcast() ||
      m.yiaddr.is_multicast()) {
    ++counters_.drop_malformed;
    return;
  }
  ++counters_.rx_offer;
  offered_ = m.yiaddr;
  server_ = m.server_id;
  state_ = State::requesting;
  retry_ = first_retry;
  tries_ = 0;
  send_request();
  set_timer(retry_, &Dhcp::on_retransmit);
}

void Dhcp::handle_ack(const Message& m) {
  if (!m.lease || m.yiaddr.is_any() || m.yiaddr.is_broadcast() || m.yiaddr.is_multicast()) {
    ++counters_.drop_malformed;
    return;
  }
  ++counters_.rx_ack;
  State was = state_;
  Lease lease;
  lease.address = m.yiaddr;
  // RFC 2132 §3.3: without a mask, the classful default is the best guess.
  uint32_t top = m.yiaddr.value >> 24;
  lease.netmask = !m.netmask.is_any() ? m.netmask
                  : top < 128         ? ip4::netmask_of(8)
                  : top < 192         ? ip4::netmask_of(16)
                                      : ip4::netmask_of(24);
  lease.gateway = m.router;
  lease.dns = m.dns;
  lease.server = !m.server_id.is_any()      ? m.server_id
                 : was == State::requesting ? server_
                                            : lease_.server;
  uint32_t seconds = std::max<uint32_t>(*m.lease, 1);
  lease.lease = Seconds{seconds};
  // RFC 2131 §4.4.5: T1 = 0.5 × lease, T2 = 0.875 × lease by default.
  lease.t1 = Seconds{m.t1 ? *m.t1 : seconds / 2};
  lease.t2 = Seconds{m.t2 ? *m.t2 : uint32_t(uint64_t(seconds) * 7 / 8)};
  if (t1_override_ && *t1_override_ < lease.t1) lease.t1 = *t1_override_;
  if (lease.t2 > lease.lease) lease.t2 = lease.lease;
  if (lease.t1 > lease.t2) lease.t1 = lease.t2;
  bool changed = lease.address != lease_.address || lease.netmask != lease_.netmask ||
                 lease.gateway != lease_.gateway || was == State::requesting;
  lease_ = lease;
  bound_at_ns_ = now();
  state_ = State::bound;
  if (was == State::requesting) {
    ++counters_.leases;
    fallback_ns_ = never;
  } else {
    ++(was == State::renewing ? counters_.renewals : counters_.rebinds);
  }
  set_timer(std::max(lease_.t1, Seconds{1}), &Dhcp::on_retransmit);
  if (bound_) bound_(lease_, !changed);
}

void Dhcp::handle_nak() {
  ++counters_.rx_nak;
  bool had_address = state_ == State::renewing || state_ == State::rebinding;
  // RFC 2131 §3.1 step 5 / §4.4.4: stop using the address and restart.
  if (had_address && lost_) lost_();
  lease_ = Lease{};
  enter_init();
}

}  // namespace net

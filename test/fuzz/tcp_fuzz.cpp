// libFuzzer target: segment sequences against TCP in a whole host stack on
// an in-memory NIC: a listener on port 80 (SYN cookies after a backlog of
// 2), and a connection the stack opened to the peer's port 9000. The
// input plays the peer, with sequence and acknowledgment numbers relative
// to what the stack last sent (so it gets past the handshake without
// knowing our secret ISN), and plays the service (writes, reads held,
// shutdown, close, abort) and time. Build with -DKEEL_FUZZ=ON (clang);
// run test/fuzz/run_tcp.sh.
//
// Input: byte 0 picks the setup:
//   bit 0  the NIC verifies checksums and offloads ours
//   bit 1  the service holds received data (auto_consume off)
//   bit 2  NewReno instead of CUBIC; bit 3 no SACK; bit 4 no timestamps
//   bit 5  the peer speaks IPv6 (fd00::1 to fd00::2; the stack has both
//          families, the listener on the any-address takes both)
//   bit 6  the NIC offers TSO for both families: large segments leave, cut
//          by segment_tcp into the frames checked below (decision 0092)
// Then records:
//   0x00 t                 advance time by t × 20 ms
//   0x01 p f s s a a w w o n n [o option bytes] [n×8 payload bytes... as given]
//        a segment from peer port p&3 (ports 40000+, or 9000 for p&3 == 3)
//        with flags f, seq = the peer's next + signed s, ack = ours + signed
//        a, window w, o option bytes and n payload bytes from the input
//   0x02 m                 the service: 0 write m bytes, 1 consume, 2 shutdown,
//                          3 close, 4 abort, 5 set buffers small (m picks the connection)
//   0x03 r                 the NIC's ring: 0 full, else r slots given back
//   0x04 c m m             an ICMP error (c: code) quoting our last segment, MTU m;
//                          over IPv6 Packet Too Big (c even) or Destination Unreachable
//   other                  the rest as one raw TCP segment (checksum fixed), and stop
// Invariants (abort): no crash, leak or undefined behaviour (ASan/UBSan);
// every TCP frame sent has right lengths and checksum (tcp_fuzz_wire.hpp); buffers
// stay within the budget; once everything is aborted and time passes, no
// connection, memory or packet buffer is left.
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <net/stack.hpp>
#include <vector>

#include "manual_clock.hpp"
#include "memory_nic.hpp"
#include "net/stack_parts.hpp"
#include "tcp_fuzz_wire.hpp"

namespace {

using namespace tcp_fuzz;
namespace flag = net::wire::tcp_flag;
constexpr std::size_t buffers = 256;
constexpr uint32_t peer_isn = 1000;
constexpr std::size_t budget = 256 * 1024;

// An invariant: says which one broke, then aborts (libFuzzer saves the input).
#define CHECK(ok) check_at(ok, __LINE__)
void check_at(bool ok, int line) {
  if (ok) return;
  std::fprintf(stderr, "tcp_fuzz: invariant at line %d broken\n", line);
  std::abort();
}

class Harness {
 public:
  explicit Harness(uint8_t setup) : nic_(our_mac, 1500, buffers), stack_(clock_, config()) {
    net::Nic::Offloads offloads;
    offloads.tx_checksum = offloads.rx_checksum = setup & 1;
    offloads.tso4 = offloads.tso6 = setup & 64;
    nic_.set_offloads(offloads);
    rx_flags_ = setup & 1 ? net::Packet::checksum_verified : 0;
    offload_ = setup & 1;
    v6_ = setup & 32;
    net::Interface& iface = stack_.add_interface(nic_);
    iface.configure(ours, net::ip4::netmask_of(24), peer);
    std::vector<uint8_t> arp(42, 0);  // the peer asks for us: we learn its MAC
    net::ethernet::Addr::broadcast().write(arp.data());
    peer_mac.write(arp.data() + 6);
    arp[12] = 0x08, arp[13] = 0x06, arp[15] = 1, arp[16] = 0x08, arp[18] = 6, arp[19] = 4,
    arp[21] = 1;
    peer_mac.write(arp.data() + 22);
    peer.write(arp.data() + 28);
    ours.write(arp.data() + 38);
    nic_.inject(arp.data(), arp.size());
    if (v6_) learn_peer6(iface);
    nic_.transmitted.clear();
    net::Tcp::Limits limits;
    limits.backlog = 2;
    limits.memory = budget;
    limits.max_connections = 16;
    stack_.tcp().set_limits(limits);
    options_.auto_consume = !(setup & 2);
    if (setup & 4) options_.congestion = net::TcpCongestion::newreno;
    options_.sack = !(setup & 8);
    options_.timestamps = !(setup & 16);
    options_.send_buffer = options_.receive_buffer = 16 * 1024;
    options_.user_timeout = std::chrono::seconds(30);  // so finish() sees everything end
    options_.connect_timeout = std::chrono::seconds(30);
    listener_ = *stack_.tcp().listen(
        80, [this](net::TcpConnection c) { adopt(c); }, options_);
    net::Endpoint to = v6_ ? net::Endpoint{peer6, 9000} : net::Endpoint{peer, 9000};
    net::Endpoint from = v6_ ? net::Endpoint{ours6, 5555} : net::Endpoint{ours, 5555};
    auto active = stack_.tcp().connect(
        to, [](net::TcpConnection) {}, options_, from);
    CHECK(active.ok());
    adopt(*active);
    drain();
  }

  void segment(const uint8_t*& p, const uint8_t* end) {
    if (end - p < 11) {
      p = end;
      return;
    }
    uint32_t port = p[0] & 3;
    Peer& who = peers_[port];
    net::wire::TcpRepr h;
    h.src_port = port == 3 ? 9000 : uint16_t(40000 + port);
    h.dst_port = port == 3 ? 5555 : 80;
    h.flags = p[1];
    h.seq = who.next + uint32_t(int16_t(p[2] << 8 | p[3]));
    h.ack = who.ours + uint32_t(int16_t(p[4] << 8 | p[5]));
    h.window = uint16_t(p[6] << 8 | p[7]);
    uint32_t options = std::min<uint32_t>(p[8] & 0x3f, net::wire::tcp_options_max) & ~3u;
    uint32_t payload = uint32_t(p[9] << 8 | p[10]) % 1461;
    p += 11;
    options = std::min<uint32_t>(options, uint32_t(end - p));
    std::vector<uint8_t> s(net::wire::tcp_header_min + options);
    std::copy(p, p + options, s.begin() + net::wire::tcp_header_min);
    p += options;
    payload = std::min<uint32_t>(payload, uint32_t(end - p));
    s.insert(s.end(), p, p + payload);
    p += payload;
    h.payload_len = payload;
    // The header without options, then the raw option bytes after it.
    net::wire::TcpRepr bare = h;
    bare.options = {};
    if (v6_)
      bare.emit(s.data(), peer6, ours6);
    else
      bare.emit(s.data(), peer, ours);
    s[12] = uint8_t(((net::wire::tcp_header_min + options) / 4) << 4);
    fix_checksum(v6_, s);
    if (h.flags & flag::syn)
      who.next = h.seq + 1 + payload;
    else if (payload)
      who.next = h.seq + payload + ((h.flags & flag::fin) ? 1 : 0);
    deliver(s);
  }

  void raw(const uint8_t* p, std::size_t n) {
    std::vector<uint8_t> s(p, p + std::min<std::size_t>(n, 1480));
    if (s.size() >= 18) fix_checksum(v6_, s);
    deliver(s);
  }

  void service(uint8_t m) {
    if (connections_.empty()) return;
    net::TcpConnection& c = connections_[m % connections_.size()];
    switch ((m >> 4) % 6) {
      case 0:
        c.write(std::vector<uint8_t>(std::size_t(m) * 97, m));
        break;
      case 1:
        c.consumed(c.unconsumed());
        break;
      case 2:
        c.shutdown();
        break;
      case 3:
        c.close();
        break;
      case 4:
        c.abort();
        break;
      case 5:
        c.set_buffers(2048, 2048);
        break;
    }
    drain();
  }

  void ring(uint8_t r) {
    if (r == 0)
      nic_.limit_transmit_room(0);
    else
      nic_.free_transmit_room(r);
    drain();
  }

  void icmp(uint8_t code, uint16_t mtu) {
    if (v6_) {
      icmp6(code, mtu);
      return;
    }
    if (last_sent_.size() < 28) return;
    std::vector<uint8_t> m(8, 0);
    m[0] = 3;
    m[1] = code % 5;
    net::wire::store16(m.data() + 6, mtu);
    m.insert(m.end(), last_sent_.begin(), last_sent_.begin() + 28);
    net::wire::store16(m.data() + 2, net::wire::checksum(m.data(), m.size()));
    send_ip(1, m);
  }

  void icmp6(uint8_t code, uint16_t mtu) {
    if (last_sent_.size() < net::wire::ip6_header_size + net::wire::tcp_header_min) return;
    inject(icmp6_error(code, mtu, last_sent_));
  }

  void advance(uint8_t t) {
    clock_.advance(std::chrono::milliseconds(20 * t));
    drain();
  }

  // Everything ends: no connection, buffer memory or packet is left behind.
  void finish() {
    nic_.limit_transmit_room(net::Nic::unlimited_room);
    nic_.free_transmit_room(0);
    for (net::TcpConnection& c : connections_) c.abort();
    listener_.close();
    for (int i = 0; i < 40; ++i) advance(250);
    stack_.parts().tcp_layer.for_each_connection([](const net::tcp::Connection& c) {
      std::fprintf(stderr,
                   "tcp_fuzz: left: %s, deadline %llu wnd %u una %u nxt %u queued %zu rtx %llu "
                   "persist %llu fin %d/%d rec %d rp %u hr %u cwnd %u blocked %d mss %u\n",
                   net::to_string(c.state), static_cast<unsigned long long>(c.next_deadline()),
                   c.snd_wnd, c.snd_una, c.snd_nxt, c.send.size(),
                   (unsigned long long)c.retransmit_at, (unsigned long long)c.persist_at,
                   c.fin_queued, c.fin_sent, int(c.recovery), c.recovery_point, c.high_rxt,
                   c.cc.cwnd(), c.link_blocked, c.mss);
    });
    CHECK(stack_.tcp().connections() == 0);
    CHECK(stack_.tcp().memory_used() == 0);
    CHECK(nic_.pool().available() == nic_.pool().count());
  }

 private:
  struct Peer {
    uint32_t next = peer_isn;  // the peer's next sequence number
    uint32_t ours = 0;         // the next sequence number we send it
  };

  static net::StackConfig config() {
    net::StackConfig c;
    c.total_memory = std::size_t(16) << 20;
    return c;
  }

  void adopt(net::TcpConnection c) {
    if (connections_.size() >= 8) {
      c.abort();
      return;
    }
    connections_.push_back(c);
    c.on_read([this, c](std::span<const uint8_t> d) mutable {
      read_ += d.size();
      if (!d.empty() && d[0] == 'E') c.write(d);  // an echo, for data both ways
    });
    c.on_writable([] {});
    c.on_close([](net::TcpCloseReason) {});
  }

  // Once duplicate address detection is over, the peer asks for our IPv6
  // address: we learn its MAC (RFC 4861 §7.2.3) and need not ask.
  void learn_peer6(net::Interface& iface) {
    iface.configure6(ours6, 64);
    clock_.advance(std::chrono::seconds(1));
    std::vector<uint8_t> f = solicitation();
    nic_.inject(f.data(), f.size());
    clock_.advance(std::chrono::nanoseconds(0));
  }

  void deliver(const std::vector<uint8_t>& tcp) {
    inject(frame(v6_, net::wire::ip_protocol_tcp, tcp));
  }
  void send_ip(uint8_t protocol, const std::vector<uint8_t>& payload) {
    inject(frame(false, protocol, payload));
  }
  void inject(const std::vector<uint8_t>& f) {
    nic_.inject(f.data(), f.size(), rx_flags_);
    clock_.advance(std::chrono::nanoseconds(0));  // the event loop's step: handlers run
    drain();
  }

  // Checks what the stack sent and learns our sequence numbers from it.
  void drain() {
    while (!nic_.transmitted.empty()) {
      std::vector<uint8_t> f = nic_.pop();
      net::wire::TcpRepr h;
      Sent sent = check_sent(f, offload_, h);
      CHECK(sent != Sent::broken);
      if (sent != Sent::tcp) continue;
      last_sent_.assign(f.begin() + ethernet_header, f.end());
      uint32_t port = h.dst_port == 9000 ? 3 : (h.dst_port - 40000) & 3;
      Peer& who = peers_[port];
      uint32_t end = h.seq + h.sequence_len();
      if (int32_t(end - who.ours) > 0 || who.ours == 0) who.ours = end;
      if ((h.flags & flag::syn) && (h.flags & flag::ack)) who.next = h.ack;
    }
    CHECK(stack_.tcp().memory_used() <= budget);
  }

  keel::test::ManualClock clock_;
  net::MemoryNic nic_;
  net::Stack stack_;
  net::TcpOptions options_;
  net::TcpListener listener_;
  std::vector<net::TcpConnection> connections_;
  std::array<Peer, 4> peers_{};
  std::vector<uint8_t> last_sent_;
  uint32_t rx_flags_ = 0;
  bool offload_ = false;
  bool v6_ = false;
  uint64_t read_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  Harness h(data[0]);
  const uint8_t* p = data + 1;
  const uint8_t* end = data + size;
  while (p < end) {
    uint8_t kind = *p++;
    switch (kind) {
      case 0x00:
        if (p < end) h.advance(*p++);
        break;
      case 0x01:
        h.segment(p, end);
        break;
      case 0x02:
        if (p < end) h.service(*p++);
        break;
      case 0x03:
        if (p < end) h.ring(*p++);
        break;
      case 0x04:
        if (end - p >= 3) {
          h.icmp(p[0], uint16_t(p[1] << 8 | p[2]));
          p += 3;
        } else {
          p = end;
        }
        break;
      default:
        h.raw(p - 1, std::size_t(end - p + 1));
        p = end;
        break;
    }
  }
  h.finish();
  return 0;
}

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
// Then records:
//   0x00 t                 advance time by t × 20 ms
//   0x01 p f s s a a w w o n n [o option bytes] [n×8 payload bytes... as given]
//        a segment from peer port p&3 (ports 40000+, or 9000 for p&3 == 3)
//        with flags f, seq = the peer's next + signed s, ack = ours + signed
//        a, window w, o option bytes and n payload bytes from the input
//   0x02 m                 the service: 0 write m bytes, 1 consume, 2 shutdown,
//                          3 close, 4 abort, 5 set buffers small (m picks the connection)
//   0x03 r                 the NIC's ring: 0 full, else r slots given back
//   0x04 c m m             an ICMP error (c: code) quoting our last segment, MTU m
//   other                  the rest as one raw TCP segment (checksum fixed), and stop
// Invariants (abort): no crash, leak or undefined behaviour (ASan/UBSan);
// every frame sent is IPv4 + TCP with right lengths and checksum; buffers
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
#include "net/wire/ethernet.hpp"
#include "net/wire/ip4.hpp"
#include "net/wire/tcp.hpp"

namespace {

using net::ip4::Addr;
namespace flag = net::wire::tcp_flag;

const net::ethernet::Addr our_mac{{0x02, 0, 0, 0, 0, 1}}, peer_mac{{0x02, 0, 0, 0, 0, 2}};
const Addr ours{10, 0, 0, 2}, peer{10, 0, 0, 1};
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
    if (setup & 1) nic_.set_offloads({.tx_checksum = true, .rx_checksum = true});
    rx_flags_ = setup & 1 ? net::Packet::checksum_verified : 0;
    offload_ = setup & 1;
    stack_.add_interface(nic_).configure(ours, net::ip4::netmask_of(24), peer);
    std::vector<uint8_t> arp(42, 0);  // the peer asks for us: we learn its MAC
    net::ethernet::Addr::broadcast().write(arp.data());
    peer_mac.write(arp.data() + 6);
    arp[12] = 0x08, arp[13] = 0x06, arp[15] = 1, arp[16] = 0x08, arp[18] = 6, arp[19] = 4,
    arp[21] = 1;
    peer_mac.write(arp.data() + 22);
    peer.write(arp.data() + 28);
    ours.write(arp.data() + 38);
    nic_.inject(arp.data(), arp.size());
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
    auto active =
        stack_.tcp().connect({peer, 9000}, [](net::TcpConnection) {}, options_, {ours, 5555});
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
    bare.emit(s.data(), peer, ours);
    s[12] = uint8_t(((net::wire::tcp_header_min + options) / 4) << 4);
    fix_checksum(s);
    if (h.flags & flag::syn)
      who.next = h.seq + 1 + payload;
    else if (payload)
      who.next = h.seq + payload + ((h.flags & flag::fin) ? 1 : 0);
    deliver(s);
  }

  void raw(const uint8_t* p, std::size_t n) {
    std::vector<uint8_t> s(p, p + std::min<std::size_t>(n, 1480));
    if (s.size() >= 18) fix_checksum(s);
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
    if (last_sent_.size() < 28) return;
    std::vector<uint8_t> m(8, 0);
    m[0] = 3;
    m[1] = code % 5;
    net::wire::store16(m.data() + 6, mtu);
    m.insert(m.end(), last_sent_.begin(), last_sent_.begin() + 28);
    net::wire::store16(m.data() + 2, net::wire::checksum(m.data(), m.size()));
    send_ip(1, m);
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

  static void fix_checksum(std::vector<uint8_t>& s) {
    net::wire::store16(s.data() + net::wire::tcp_checksum_offset, 0);
    uint32_t pseudo =
        net::wire::pseudo_header_sum(peer, ours, net::wire::ip_protocol_tcp, uint16_t(s.size()));
    uint16_t sum =
        uint16_t(~net::wire::checksum_fold(net::wire::checksum_add(pseudo, s.data(), s.size())));
    net::wire::store16(s.data() + net::wire::tcp_checksum_offset, sum);
  }

  void deliver(const std::vector<uint8_t>& tcp) { send_ip(net::wire::ip_protocol_tcp, tcp); }

  void send_ip(uint8_t protocol, const std::vector<uint8_t>& payload) {
    std::vector<uint8_t> f(14 + 20);
    our_mac.write(f.data());
    peer_mac.write(f.data() + 6);
    f[12] = 0x08;
    net::wire::Ip4Repr ip;
    ip.src = peer;
    ip.dst = ours;
    ip.protocol = protocol;
    ip.payload_len = uint16_t(payload.size());
    ip.emit(f.data() + 14);
    f.insert(f.end(), payload.begin(), payload.end());
    nic_.inject(f.data(), f.size(), rx_flags_);
    clock_.advance(std::chrono::nanoseconds(0));  // the event loop's step: handlers run
    drain();
  }

  // Checks what the stack sent and learns our sequence numbers from it.
  void drain() {
    while (!nic_.transmitted.empty()) {
      std::vector<uint8_t> f = nic_.pop();
      if (f.size() >= 14 && f[12] == 0x08 && f[13] == 0x06) continue;  // ARP
      CHECK(f.size() >= 14 + 20 && f[12] == 0x08 && f[13] == 0x00);
      net::wire::Ip4View<const uint8_t> ip(f.data() + 14, f.size() - 14);
      CHECK(ip.check() == net::wire::Ip4Error::none && ip.total_length() == f.size() - 14);
      if (ip.protocol() != net::wire::ip_protocol_tcp) continue;  // ICMP about our ports
      net::wire::TcpView<const uint8_t> t(ip.payload(), ip.payload_len());
      CHECK(t.check(ip.src(), ip.dst(), !offload_) == net::wire::TcpError::none);
      net::wire::TcpOptionError e;
      net::wire::TcpRepr h = net::wire::TcpRepr::parse(t, &e);
      CHECK(e == net::wire::TcpOptionError::none);
      last_sent_.assign(f.begin() + 14, f.end());
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

// libFuzzer target: IPv6 input of a host stack (the fixed header, the
// extension-header chain, fragment reassembly, ICMPv6 echo and errors,
// Neighbor Discovery and its cache, UDP over IPv6, source fragmentation) and
// forwarding (hop limit, routes, Packet Too Big, ND failure) on in-memory
// NICs, with a clock the input moves.
// Build with -DKEEL_FUZZ=ON (clang); run test/fuzz/run_ip6.sh.
//
//   net0  10.0.0.2/24, fd00::2/64 (gateway fd00::1), 02:00:00:00:00:01
//   net1  fd01::2/64, MTU 1400; route 2001:db8::/32 via fd01::1; forwarding on
//   a UDP socket on port 7 echoes every datagram back
//
// Records:
//   0x00 t                  advance time by t × 250 ms
//   0x01 a nh hl n_hi n_lo ...  an IPv6 packet to us: a picks the source
//                           (a & 3: peer, peer link-local, ::, fd00::/64 host
//                           from the next byte) and the destination ((a >> 2) & 3:
//                           ours, our link-local, our solicited-node group,
//                           all nodes); nh, hl: next header, hop limit; then n
//                           bytes of payload (n ≤ 2048); bit 4 of a: fix the
//                           ICMPv6/UDP checksum when nh is 58 or 17; bit 5: to be
//                           forwarded instead ((a >> 2) & 3: fd01::1 on net1,
//                           2001:db8::5 by the route, fe80::99, fd00::77 on net0)
//   0x02 n_hi n_lo ...      a raw frame of n bytes
//   0x03 d                  a UDP datagram from the stack to destination d % 4
//   0x04 d s_hi s_lo        the same with s bytes (sent in fragments past the MTU)
//   other                   the rest as one raw frame, and stop
// Invariants (abort): no crash, leak or undefined behaviour (ASan/UBSan);
// every transmitted IPv6 frame fits its link's MTU (nothing forwarded is
// fragmented) and has a valid header whose payload length matches; the forward
// hook sees IPv6 from net0 with a hop limit left; every pool buffer comes back
// once the timers have run out.
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <net/stack.hpp>
#include <vector>

#include "manual_clock.hpp"
#include "memory_nic.hpp"
#include "net/ip6/addr.hpp"
#include "net/wire/ethernet.hpp"
#include "net/wire/icmp6.hpp"
#include "net/wire/ip6.hpp"
#include "net/wire/udp.hpp"

namespace {

using net::ip6::Addr;

const net::ethernet::Addr mac{{0x02, 0, 0, 0, 0, 1}}, peer_mac{{0x02, 0, 0, 0, 0, 2}};
const net::ethernet::Addr mac1{{0x02, 0, 0, 0, 1, 1}};
constexpr uint16_t mtu1 = 1400;
constexpr std::size_t buffers = 256;
constexpr std::size_t max_frame = 2048;

Addr parse(const char* s) { return net::Address::parse(s)->ip6(); }
const Addr ours = parse("fd00::2"), peer = parse("fd00::1"), peer_ll = parse("fe80::2");
const std::array<Addr, 4> destinations{peer, peer_ll, parse("fd00::77"), parse("2001:db8::1")};
const std::array<Addr, 4> elsewhere{parse("fd01::1"), parse("2001:db8::5"), parse("fe80::99"),
                                    parse("fd00::77")};

void check(bool ok) {
  if (!ok) std::abort();
}

class Harness {
 public:
  Harness() : nic_(mac, 1500, buffers), nic1_(mac1, mtu1, buffers), stack_(clock_, config()) {
    net::Interface& i = stack_.add_interface(nic_);
    i.configure(net::ip4::Addr{10, 0, 0, 2}, net::ip4::netmask_of(24));
    i.configure6(ours, 64, peer);
    stack_.add_interface(nic1_).configure6(parse("fd01::2"), 64);
    stack_.set_forwarding(true);
    net::Route6 route;
    route.destination = parse("2001:db8::");
    route.prefix_len = 32;
    route.gateway = parse("fd01::1");
    route.interface = 1;
    check(stack_.routes6().add(route) == net::Status::ok);
    stack_.hooks().add(net::Hook::forward, 0, [](net::HookPacket& p) {
      check(p.family == net::Address::Family::ip6 && p.in == 0 && p.out <= 1);
      return net::Verdict::accept;
    });
    clock_.advance(std::chrono::seconds(1));  // duplicate address detection
    echo_ = *stack_.udp().bind(7);
    echo_.on_read([this](const net::UdpDatagram& d) {
      echo_.send_to(d.source, d.payload, d.destination.address);
    });
    // ICMPv6 errors quoting an echo (udp_errors.cpp): only ever about its port.
    echo_.on_error([](const net::UdpError& e) { check(e.source.port == 7); });
    sender_ = *stack_.udp().bind(0);
  }
  ~Harness() { echo_.close(); }

  void packet(uint8_t a, uint8_t nh, uint8_t hl, const uint8_t* data, std::size_t n, uint8_t host) {
    Addr src = (a & 3) == 0 ? peer : (a & 3) == 1 ? peer_ll : (a & 3) == 2 ? Addr{} : peer;
    if ((a & 3) == 3) src.bytes[15] = host;
    const net::Interface& i = stack_.interface(0);
    Addr dst = std::array<Addr, 4>{ours, i.link_local(), net::ip6addr::solicited_node(ours),
                                   net::ip6addr::all_nodes()}[(a >> 2) & 3];
    if (a & 32) dst = elsewhere[(a >> 2) & 3];
    std::vector<uint8_t> f(14 + 40 + n);
    net::ethernet::Addr to =
        net::ip6addr::is_multicast(dst) ? net::ip6addr::multicast_mac(dst) : mac;
    net::wire::EthernetRepr{to, peer_mac, net::wire::ethertype_ip6}.emit(
        std::span<uint8_t, 14>(f.data(), 14));
    net::wire::Ip6Repr{src, dst, nh, hl, uint16_t(n)}.emit(f.data() + 14);
    std::copy(data, data + n, f.begin() + 54);
    uint8_t* upper = f.data() + 54;
    if ((a & 16) && nh == net::wire::ip6_next_icmp6 && n >= 8)
      net::wire::icmp6_fill_checksum(upper, n, src, dst);
    if ((a & 16) && nh == net::wire::ip_protocol_udp && n >= 8) {
      net::wire::store16(upper + 4, uint16_t(n));
      net::wire::store16(upper + 6, 0);
      uint32_t sum = net::wire::pseudo_header_sum(src, dst, nh, uint32_t(n));
      uint16_t c = uint16_t(~net::wire::checksum_fold(net::wire::checksum_add(sum, upper, n)));
      net::wire::store16(upper + 6, c ? c : 0xffff);
    }
    frame(f.data(), f.size());
  }
  void frame(const uint8_t* data, std::size_t n) {
    nic_.inject(data, n, 0);
    check_transmitted();
  }
  void send(uint8_t d, std::size_t n = 1) {
    std::vector<uint8_t> payload(n, 'x');
    sender_.send_to({destinations[d % destinations.size()], 9}, payload.data(), payload.size());
    check_transmitted();
  }
  void advance(uint8_t t) {
    clock_.advance(std::chrono::milliseconds(250) * t);
    check_transmitted();
  }
  // Every IPv6 frame sent has a valid header whose length is the frame's.
  void check_transmitted() {
    check_transmitted(nic_, 1500);   // fragments, too, fit the MTU
    check_transmitted(nic1_, mtu1);  // forwarded packets are never fragmented
  }
  static void check_transmitted(net::MemoryNic& nic, std::size_t mtu) {
    for (const auto& f : nic.transmitted) {
      check(f.size() >= 14);
      if (net::wire::load16(f.data() + 12) != net::wire::ethertype_ip6) continue;
      net::wire::Ip6View<const uint8_t> v(f.data() + 14, f.size() - 14);
      check(v.check() == net::wire::Ip6Error::none);
      check(40 + v.payload_length() == f.size() - 14);
      check(f.size() - 14 <= mtu);
    }
    nic.transmitted.clear();
  }
  bool all_buffers_back() {
    for (int i = 0; i < 4 * 60; ++i) advance(4);  // every timer runs out
    return nic_.pool().available() == nic_.pool().count() &&
           nic1_.pool().available() == nic1_.pool().count();
  }

 private:
  static net::StackConfig config() {
    net::StackConfig c;
    c.total_memory = std::size_t(64) << 20;
    return c;
  }
  keel::test::ManualClock clock_;
  net::MemoryNic nic_, nic1_;
  net::Stack stack_;
  net::UdpSocket echo_, sender_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  Harness h;
  std::size_t i = 0;
  while (i < size) {
    uint8_t op = data[i++];
    if (op == 0x00 && i < size) {
      h.advance(data[i++]);
    } else if (op == 0x01 && i + 5 <= size) {
      uint8_t a = data[i], nh = data[i + 1], hl = data[i + 2];
      std::size_t n = std::size_t(data[i + 3]) << 8 | data[i + 4];
      i += 5;
      n = std::min({n, size - i, max_frame});
      h.packet(a, nh, hl, data + i, n, n ? data[i] : 0);
      i += n;
    } else if (op == 0x02 && i + 2 <= size) {
      std::size_t n = std::size_t(data[i]) << 8 | data[i + 1];
      i += 2;
      n = std::min({n, size - i, max_frame});
      h.frame(data + i, n);
      i += n;
    } else if (op == 0x03 && i < size) {
      h.send(data[i++]);
    } else if (op == 0x04 && i + 3 <= size) {
      h.send(data[i], std::size_t(data[i + 1]) << 8 | data[i + 2]);
      i += 3;
    } else {
      h.frame(data + i - 1, std::min(size - i + 1, max_frame));
      break;
    }
  }
  check(h.all_buffers_back());
  return 0;
}

// libFuzzer target: arbitrary frame sequences into a whole host stack with
// two interfaces on in-memory NICs (Ethernet, ARP, IPv4 input, forwarding
// and output, reassembly and fragmentation, ICMP, UDP sockets, the DHCP
// client, hooks at all five points, transmit back-pressure) on a clock the
// input moves. Build with -DKEEL_FUZZ=ON (clang); run test/fuzz/run_net.sh.
//
//   net0  10.0.0.2/24 (gateway 10.0.0.1)  02:00:00:00:00:01
//   net1  10.1.0.2/24                     02:00:00:00:01:01
//
// Input: byte 0 picks the setup:
//   bit 0  net0 by DHCP (fallback 10.0.0.2/24) instead of statically
//   bit 1  the NICs claim verified receive checksums, and offload transmit ones
//   bit 2  forwarding off (on otherwise)
//   bit 3  defragment_all: reassemble forwarded datagrams too
//   bit 4  net1's MTU is 576 (forwarded datagrams must be fragmented)
//   bit 5  the hooks drop some packets and rewrite some destinations
// Then records:
//   0x00 t              advance time by t × 250 ms
//   0x01 n_hi n_lo ...  a frame of n bytes (n ≤ 2048) received on net0
//   0x02 n_hi n_lo ...  the same on net1
//   0x03 r              net(r & 1)'s transmit ring: (r >> 1) == 0 makes it full,
//                       127 unlimited, else gives back that many slots
//   0x04 d p n          a UDP datagram from the stack to destination d (of a
//                       table), port p, n × 64 bytes
//   other               the rest of the input as one frame on net0, and stop
// Invariants (abort): no crash, leak or undefined behaviour (ASan/UBSan);
// every hook sees a valid IPv4 header and the interfaces its hook has;
// every transmitted frame is well formed and fits its link; every pool
// buffer comes back once the queues and timers have run out.
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <net/stack.hpp>
#include <vector>

#include "manual_clock.hpp"
#include "memory_nic.hpp"
#include "net/wire/arp.hpp"
#include "net/wire/ethernet.hpp"
#include "net/wire/ip4.hpp"

namespace {

using net::ip4::Addr;

const net::ethernet::Addr mac0{{0x02, 0, 0, 0, 0, 1}}, mac1{{0x02, 0, 0, 0, 1, 1}};
constexpr std::size_t buffers = 256;
constexpr uint16_t small_mtu = 576;
constexpr uint8_t max_room_step = 126, unlimited_step = 127;

void check(bool ok) {
  if (!ok) std::abort();
}

// Where 0x04 records send: peers, our own addresses (loopback), broadcasts,
// a group, a host behind the gateway, one that never answers ARP.
const std::array<Addr, 8> destinations{Addr{10, 0, 0, 1},    Addr{10, 1, 0, 1}, Addr{10, 0, 0, 2},
                                       Addr{10, 1, 0, 2},    Addr::broadcast(), Addr{10, 1, 0, 255},
                                       Addr{224, 0, 0, 251}, Addr{8, 8, 8, 8}};

bool valid_ip(const net::Packet& p) {
  net::wire::Ip4View<const uint8_t> v(p.data(), p.size());
  return v.check() == net::wire::Ip4Error::none && v.total_length() == p.size();
}

class Harness {
 public:
  explicit Harness(uint8_t setup)
      : nic0_(mac0, 1500, buffers),
        nic1_(mac1, setup & 16 ? small_mtu : 1500, buffers),
        stack_(clock_, stack_config(setup)),
        rewrite_and_drop_(setup & 32) {
    if (setup & 2) {
      for (net::MemoryNic* nic : {&nic0_, &nic1_})
        nic->set_offloads({.tx_checksum = true, .rx_checksum = true});
    }
    rx_flags_ = setup & 2 ? net::Packet::checksum_verified : 0;
    net::Interface& if0 = stack_.add_interface(nic0_);
    net::Interface& if1 = stack_.add_interface(nic1_);
    stack_.set_defragment_all(setup & 8);
    if (setup & 1) {
      net::InterfaceConfig c;
      c.mode = net::InterfaceConfig::Mode::dhcp;
      c.address = Addr{10, 0, 0, 2};
      c.netmask = net::ip4::netmask_of(24);
      if0.apply(c);
    } else {
      if0.configure({10, 0, 0, 2}, net::ip4::netmask_of(24), {10, 0, 0, 1});
    }
    if1.configure({10, 1, 0, 2}, net::ip4::netmask_of(24));
    if1.join({224, 0, 0, 251});
    add_hooks();
    open_sockets();
  }

  void receive(int nic, const uint8_t* data, std::size_t n) {
    (nic ? nic1_ : nic0_).inject(data, n, rx_flags_);
    clock_.advance(std::chrono::nanoseconds(0));  // the event loop's step: handlers run
  }

  void room(uint8_t r) {
    int i = r & 1;
    net::MemoryNic& nic = i ? nic1_ : nic0_;
    uint8_t step = r >> 1;
    if (step == unlimited_step) {
      nic.limit_transmit_room(net::Nic::unlimited_room);
      nic.free_transmit_room(0);  // (tells the stack)
      limited_[i] = false;
    } else if (step == 0 || !limited_[i]) {
      nic.limit_transmit_room(step);
      limited_[i] = true;
    } else if (step <= max_room_step) {
      nic.free_transmit_room(step);
    }
  }

  void send(uint8_t d, uint8_t port, uint8_t n) {
    std::vector<uint8_t> payload(std::size_t(n) * 64);
    for (std::size_t i = 0; i < payload.size(); ++i) payload[i] = uint8_t(i * 7 + n);
    net::UdpSocket& from = d & 8 ? via1_ : client_;
    from.send_to({destinations[d & 7], port}, payload);
  }

  void advance(std::chrono::nanoseconds d) { clock_.advance(d); }

  // Every transmitted frame is Ethernet that fits its link; IPv4 in it has
  // a valid header.
  void check_transmitted() {
    for (net::MemoryNic* nic : {&nic0_, &nic1_}) {
      for (const auto& f : nic->transmitted) {
        check(f.size() >= net::wire::EthernetRepr::size &&
              f.size() <= net::wire::EthernetRepr::size + nic->mtu());
        auto e = net::wire::EthernetRepr::parse(f);
        check(e && e->src == nic->mac());
        const uint8_t* body = f.data() + net::wire::EthernetRepr::size;
        std::size_t len = f.size() - net::wire::EthernetRepr::size;
        if (e->type == net::wire::ethertype_ip4) {
          check(net::wire::Ip4View<const uint8_t>(body, len).check() == net::wire::Ip4Error::none);
        } else {
          net::wire::ArpRepr arp;
          check(e->type == net::wire::ethertype_arp &&
                net::wire::ArpRepr::parse({body, len}, arp) == net::wire::ArpError::none);
        }
      }
      nic->transmitted.clear();
    }
  }

  // Lets every queue drain and every timer run out: no buffer may stay held.
  // A DHCP lease keeps renewing, and a renewal may be waiting for ARP at any
  // moment (for 3 s at most; renewals are at least 4 s apart): the buffers
  // must all be back at some moment of the next few seconds.
  void finish() {
    for (uint8_t r : {uint8_t(unlimited_step << 1), uint8_t(unlimited_step << 1 | 1)}) room(r);
    clock_.advance(std::chrono::seconds(60));
    constexpr int steps = 40;
    for (int i = 0; i < steps && !all_buffers_back(); ++i)
      clock_.advance(std::chrono::milliseconds(250));
    check_transmitted();
    check(all_buffers_back());
  }

 private:
  bool all_buffers_back() {
    return nic0_.pool().available() == nic0_.pool().count() &&
           nic1_.pool().available() == nic1_.pool().count();
  }

  static net::StackConfig stack_config(uint8_t setup) {
    net::StackConfig c;
    c.total_memory = std::size_t(64) << 20;
    c.forwarding = !(setup & 4);
    return c;
  }

  void add_hooks() {
    using net::Hook;
    for (Hook hook :
         {Hook::prerouting, Hook::input, Hook::forward, Hook::output, Hook::postrouting}) {
      stack_.hooks().add(hook, 0, [this](net::HookPacket& p) { return inspect(p); });
    }
    // A function that replaces itself every time it runs.
    churn_ = stack_.hooks().add(Hook::input, 1, [this](net::HookPacket& p) { return churn(p); });
  }

  net::Verdict inspect(net::HookPacket& p) {
    using net::Hook;
    check(valid_ip(p.packet));
    bool has_in = p.hook == Hook::prerouting || p.hook == Hook::input || p.hook == Hook::forward;
    bool has_out = p.hook == Hook::output || p.hook == Hook::postrouting || p.hook == Hook::forward;
    std::size_t count = stack_.interface_count();
    check(has_in                        ? p.in < count
          : p.hook == Hook::postrouting ? p.in == net::no_interface || p.in < count
                                        : p.in == net::no_interface);
    check(has_out ? p.out < count : p.out == net::no_interface);
    if (!rewrite_and_drop_) return net::Verdict::accept;
    net::wire::Ip4View<uint8_t> v(p.packet.data(), p.packet.size());
    constexpr uint8_t drop_mark = 0xdd;
    if ((v.id() & 0xff) == drop_mark) return net::Verdict::drop;
    if ((p.hook == Hook::prerouting || p.hook == Hook::output) && v.dst() == Addr{10, 0, 0, 99}) {
      v.set_dst({10, 1, 0, 1});  // a destination NAT: routed anew
      v.fill_checksum();
    }
    return net::Verdict::accept;
  }

  net::Verdict churn(net::HookPacket& p) {
    stack_.hooks().remove(churn_);
    churn_ = stack_.hooks().add(net::Hook::input, int(p.packet.size() % 3),
                                [this](net::HookPacket& q) { return churn(q); });
    return net::Verdict::accept;
  }

  void open_sockets() {
    echo_ = *stack_.udp().bind(7);
    echo_.on_read([this](const net::UdpDatagram& d) { echo_.send_to(d.source, d.payload); });
    // ICMP errors quoting an echo (udp_errors.cpp): only ever about its port.
    echo_.on_error([](const net::UdpError& e) { check(e.source.port == 7); });
    echo_.on_writable([this] { client_.send_to({Addr{10, 0, 0, 1}, 7}, "w", 1); });
    client_ = *stack_.udp().bind(0);
    client_.on_read([](const net::UdpDatagram&) {});
    via1_ = *stack_.udp().bind({Addr{}, 0}, 1);
    rebinding_ = *stack_.udp().bind({Addr{}, 9}, 1);
    rebinding_.on_read([this](const net::UdpDatagram& d) { rebind(d); });
    replacing_ = *stack_.udp().bind({Addr{10, 0, 0, 2}, 10});
    replacing_.on_read([this](const net::UdpDatagram& d) { replace(d); });
  }

  // A handler that closes its socket and binds the port again.
  void rebind(const net::UdpDatagram& d) {
    rebinding_.close();
    auto again = stack_.udp().bind({Addr{}, 9}, 1);
    check(again.ok());  // the port is free at once, even inside its own handler
    rebinding_ = *again;
    rebinding_.on_read([this](const net::UdpDatagram& e) { rebind(e); });
    rebinding_.send_to(d.source, d.payload);
  }

  // A handler that replaces itself, keeping a capture alive on the heap.
  void replace(const net::UdpDatagram& d) {
    std::vector<uint8_t> copy(d.payload.begin(), d.payload.end());
    replacing_.on_read([this, copy](const net::UdpDatagram& e) {
      check(copy.size() <= net::Udp::max_payload);
      replace(e);
    });
    replacing_.send_to(d.source, copy);
  }

  keel::test::ManualClock clock_;
  net::MemoryNic nic0_, nic1_;
  net::Stack stack_;
  bool rewrite_and_drop_;
  uint32_t rx_flags_ = 0;
  std::array<bool, 2> limited_{};
  net::Hooks::Id churn_ = 0;
  net::UdpSocket echo_, client_, via1_, rebinding_, replacing_;
};

}  // namespace

// The stack's configuration messages go to stdout; libFuzzer reports on stderr.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  check(std::freopen("/dev/null", "w", stdout) != nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  constexpr std::size_t max_frame = 2048;
  Harness h(data[0]);
  std::size_t i = 1;
  while (i < size) {
    uint8_t op = data[i++];
    if (op == 0x00 && i < size) {
      h.advance(std::chrono::milliseconds(250) * data[i++]);
    } else if ((op == 0x01 || op == 0x02) && i + 2 <= size) {
      std::size_t n = std::size_t(data[i]) << 8 | data[i + 1];
      i += 2;
      n = std::min({n, size - i, max_frame});
      h.receive(op - 1, data + i, n);
      i += n;
    } else if (op == 0x03 && i < size) {
      h.room(data[i++]);
    } else if (op == 0x04 && i + 3 <= size) {
      h.send(data[i], data[i + 1], data[i + 2]);
      i += 3;
    } else {
      h.receive(0, data + i, size - i);
      break;
    }
    h.check_transmitted();
  }
  h.finish();
  return 0;
}

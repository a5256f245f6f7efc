// The DHCP client (RFC 2131) against a scripted server on the in-memory
// NIC: lease, renew, rebind, expiry, NAK, the static fallback, and its
// retransmissions on the stack's clock.
#include "stack_fixture.hpp"

using namespace std::chrono_literals;

namespace keel::test {
namespace {

const Ip server_ip{10, 0, 0, 1};
const Ip offered{10, 0, 0, 50};

struct ClientMessage {
  uint8_t type = 0;
  uint32_t xid = 0;
  Ip ciaddr, requested, server_id, ip_dst;
};

// Parses a DHCP message the client sent (Ethernet/IPv4/UDP 68→67).
std::optional<ClientMessage> parse_client(const Bytes& f) {
  if (f.size() < 14 + 20 + 8 + 240 || ::net::wire::load16(&f[12]) != 0x0800) return std::nullopt;
  const uint8_t* ip = &f[14];
  const uint8_t* u = ip + 20;
  if (ip[9] != 17 || ::net::wire::load16(u + 2) != 67) return std::nullopt;
  const uint8_t* d = u + 8;
  std::size_t len = ::net::wire::load16(u + 4) - 8;
  ClientMessage m;
  m.ip_dst = Ip::from_bytes(ip + 16);
  m.xid = ::net::wire::load32(d + 4);
  m.ciaddr = Ip::from_bytes(d + 12);
  for (std::size_t i = 240; i + 1 < len && d[i] != 255;) {
    if (d[i] == 0) {
      ++i;
      continue;
    }
    uint8_t code = d[i], n = d[i + 1];
    const uint8_t* v = d + i + 2;
    if (code == 53) m.type = v[0];
    if (code == 50) m.requested = Ip::from_bytes(v);
    if (code == 54) m.server_id = Ip::from_bytes(v);
    i += 2 + n;
  }
  return m;
}

Bytes server_reply(uint8_t type, uint32_t xid, Ip yiaddr, uint32_t lease = 120,
                   Mac chaddr = stack_mac) {
  Bytes d(240);
  d[0] = 2;
  d[1] = 1;
  d[2] = 6;
  ::net::wire::store32(&d[4], xid);
  yiaddr.write(&d[16]);
  chaddr.write(&d[28]);
  ::net::wire::store32(&d[236], 0x63825363);
  auto opt = [&](uint8_t code, Bytes v) {
    d.push_back(code);
    d.push_back(uint8_t(v.size()));
    d.insert(d.end(), v.begin(), v.end());
  };
  auto addr = [](Ip a) {
    Bytes b(4);
    a.write(b.data());
    return b;
  };
  opt(53, {type});
  opt(54, addr(server_ip));
  if (type != 6) {
    Bytes l(4);
    ::net::wire::store32(l.data(), lease);
    opt(51, l);
    opt(1, addr(::net::ip4::netmask_of(24)));
    opt(3, addr(server_ip));
    opt(6, addr(Ip{10, 0, 0, 53}));
  }
  d.push_back(255);
  Bytes u = udp(server_ip, Ip::broadcast(), 67, 68, d);
  return ethernet(Mac::broadcast(), peer_mac, 0x0800, ip4(server_ip, Ip::broadcast(), 17, u));
}

class DhcpTest : public ::testing::Test {
 protected:
  DhcpTest() : nic(stack_mac), stack(clock, test_stack_config()), iface(stack.add_interface(nic)) {
    nic.set_after_receive([this] { clock.advance(0ns); });  // the event loop's step
  }

  void advance(std::chrono::nanoseconds d) { clock.advance(d); }
  const ::net::DhcpCounters& dhcp() const { return iface.counters().dhcp; }
  void start(std::optional<std::chrono::seconds> t1 = {}, std::chrono::seconds timeout = 10s) {
    ::net::InterfaceConfig c;
    c.mode = ::net::InterfaceConfig::Mode::dhcp;
    c.dhcp_t1 = t1;
    c.dhcp_timeout = timeout;
    iface.apply(c);
  }

  // The last DHCP message sent, discarding others (ARP).
  std::optional<ClientMessage> last_sent() {
    std::optional<ClientMessage> m;
    while (!nic.transmitted.empty()) {
      Bytes f = nic.pop();
      if (auto parsed = parse_client(f)) m = parsed;
      // The server answers ARP for itself (renewals are unicast).
      if (::net::wire::load16(&f[12]) == 0x0806 && ::net::wire::load16(&f[14 + 6]) == 1 &&
          Ip::from_bytes(&f[14 + 24]) == server_ip && !iface.address().is_any())
        nic.inject(ethernet(stack_mac, peer_mac, 0x0806,
                            arp(2, peer_mac, server_ip, stack_mac, iface.address())));
    }
    return m;
  }

  void obtain_lease(uint32_t lease = 120) {
    auto discover = last_sent();
    ASSERT_TRUE(discover);
    ASSERT_EQ(discover->type, 1);
    nic.inject(server_reply(2, discover->xid, offered, lease));
    auto request = last_sent();
    ASSERT_TRUE(request);
    ASSERT_EQ(request->type, 3);
    EXPECT_EQ(request->requested, offered);
    EXPECT_EQ(request->server_id, server_ip);
    nic.inject(server_reply(5, request->xid, offered, lease));
    ASSERT_TRUE(iface.is_configured());
  }

  ManualClock clock;
  ::net::MemoryNic nic;
  ::net::Stack stack;
  ::net::Interface& iface;
};

TEST_F(DhcpTest, LeaseRenewRebindExpire) {
  int configs = 0;
  iface.on_config([&](::net::Interface& i) {
    ++configs;
    EXPECT_EQ(&i, &iface);
  });
  start();
  obtain_lease(120);
  EXPECT_EQ(configs, 1);
  EXPECT_EQ(iface.address(), offered);
  EXPECT_EQ(iface.gateway(), server_ip);
  ASSERT_EQ(iface.dns().size(), 1u);
  EXPECT_EQ(dhcp().leases, 1u);
  auto default_route = stack.routes().lookup(Ip{8, 8, 8, 8});
  ASSERT_TRUE(default_route);
  EXPECT_EQ(default_route->gateway, server_ip);

  // T1 = 60 s: a unicast REQUEST to the server with ciaddr set.
  advance(59s);
  EXPECT_FALSE(last_sent());
  advance(2s);
  auto renew = last_sent();
  ASSERT_TRUE(renew);
  EXPECT_EQ(renew->type, 3);
  EXPECT_EQ(renew->ciaddr, offered);
  EXPECT_EQ(renew->ip_dst, server_ip);
  nic.inject(server_reply(5, renew->xid, offered));
  EXPECT_EQ(dhcp().renewals, 1u);
  EXPECT_EQ(configs, 1);  // same address: no new on_config

  // No answer to renewals: at T2 (105 s) it broadcasts, at 120 s it gives up.
  advance(106s);
  auto rebind = last_sent();
  ASSERT_TRUE(rebind);
  EXPECT_EQ(rebind->ip_dst, Ip::broadcast());
  EXPECT_TRUE(iface.is_configured());
  advance(20s);
  EXPECT_FALSE(iface.is_configured());
  EXPECT_EQ(dhcp().expirations, 1u);
  EXPECT_FALSE(stack.routes().lookup(Ip{8, 8, 8, 8}));  // the lease's routes went with it
  EXPECT_FALSE(stack.routes().lookup(offered));
  auto discover = last_sent();
  ASSERT_TRUE(discover);
  EXPECT_EQ(discover->type, 1);  // starts over
}

TEST_F(DhcpTest, NakRestarts) {
  start(5s);
  obtain_lease();
  advance(6s);
  auto renew = last_sent();
  ASSERT_TRUE(renew);
  nic.inject(server_reply(6, renew->xid, Ip{}));
  EXPECT_FALSE(iface.is_configured());
  EXPECT_EQ(dhcp().rx_nak, 1u);
  auto discover = last_sent();
  ASSERT_TRUE(discover);
  EXPECT_EQ(discover->type, 1);
}

TEST_F(DhcpTest, StaticFallbackAfterTimeout) {
  ::net::InterfaceConfig c;
  c.mode = ::net::InterfaceConfig::Mode::dhcp;
  c.address = Ip{10, 0, 0, 9};
  c.netmask = ::net::ip4::netmask_of(24);
  c.dhcp_timeout = 10s;
  iface.apply(c);
  advance(9s);
  EXPECT_FALSE(iface.is_configured());
  EXPECT_GE(dhcp().tx_discover, 2u);  // retransmitted
  advance(2s);
  EXPECT_TRUE(iface.is_configured());
  EXPECT_EQ(iface.address(), (Ip{10, 0, 0, 9}));
  EXPECT_EQ(dhcp().fallbacks, 1u);
}

TEST_F(DhcpTest, WrongXidAndGarbageAreCounted) {
  start();
  auto discover = last_sent();
  ASSERT_TRUE(discover);
  nic.inject(server_reply(2, discover->xid + 1, offered));
  Bytes truncated = server_reply(2, discover->xid, offered);
  truncated.resize(14 + 20 + 8 + 100);
  nic.inject(truncated);  // UDP length now past the frame: dropped by UDP
  Bytes bad_option = server_reply(2, discover->xid, offered);
  bad_option[bad_option.size() - 2] = 200;  // an option running past the end
  nic.inject(bad_option);
  EXPECT_EQ(dhcp().drop_unexpected, 1u);
  EXPECT_FALSE(iface.is_configured());
}

// RFC 2131 §4.1: DISCOVER again after 4 s, the delay doubling up to 64 s,
// with the same transaction id; timed by the stack's clock.
TEST_F(DhcpTest, DiscoverRetransmissionsBackOffOnTheClock) {
  start({}, 0s);  // no fallback: keep trying
  auto first = last_sent();
  ASSERT_TRUE(first);
  const std::pair<std::chrono::milliseconds, uint64_t> expected[] = {
      {3999ms, 1}, {4s, 2},   {11999ms, 2}, {12s, 3},      {28s, 4},
      {60s, 5},    {124s, 6}, {188s, 7},    {251999ms, 7}, {252s, 8}};
  for (auto [when, discovers] : expected) {
    advance(std::chrono::nanoseconds(when) - std::chrono::nanoseconds(clock.now_ns()));
    EXPECT_EQ(dhcp().tx_discover, discovers) << when.count() << " ms";
  }
  auto last = last_sent();
  ASSERT_TRUE(last);
  EXPECT_EQ(last->type, 1);
  EXPECT_EQ(last->xid, first->xid);
  EXPECT_FALSE(iface.is_configured());
  EXPECT_EQ(dhcp().fallbacks, 0u);
}

// A REQUEST nobody answers is sent four times, then the client starts over.
TEST_F(DhcpTest, UnansweredRequestsStartOver) {
  start({}, 0s);
  auto discover = last_sent();
  ASSERT_TRUE(discover);
  nic.inject(server_reply(2, discover->xid, offered));
  EXPECT_EQ(dhcp().tx_request, 1u);
  advance(4s);
  EXPECT_EQ(dhcp().tx_request, 2u);
  advance(8s);
  EXPECT_EQ(dhcp().tx_request, 3u);
  advance(16s);
  EXPECT_EQ(dhcp().tx_request, 4u);
  EXPECT_EQ(dhcp().tx_discover, 1u);
  advance(32s);
  EXPECT_EQ(dhcp().tx_request, 4u);
  EXPECT_EQ(dhcp().tx_discover, 2u);
  auto again = last_sent();
  ASSERT_TRUE(again);
  EXPECT_EQ(again->type, 1);
  EXPECT_NE(again->xid, discover->xid);
}

// DHCP on the second interface of a host whose first is static: the client
// sends and listens only there.
TEST(DhcpSecondInterface, SendsAndListensOnItsOwnInterfaceOnly) {
  const Mac mac1{{0x02, 0, 0, 0, 1, 1}};
  ManualClock clock;
  ::net::MemoryNic nic0(stack_mac), nic1(mac1);
  ::net::Stack stack(clock, test_stack_config());
  ::net::Interface& if0 = stack.add_interface(nic0);
  ::net::Interface& if1 = stack.add_interface(nic1);
  nic0.set_after_receive([&clock] { clock.advance(0ns); });  // the event loop's step
  nic1.set_after_receive([&clock] { clock.advance(0ns); });
  if0.configure(Ip{10, 9, 0, 2}, ::net::ip4::netmask_of(24));
  nic0.transmitted.clear();
  ::net::InterfaceConfig c;
  c.mode = ::net::InterfaceConfig::Mode::dhcp;
  if1.apply(c);
  EXPECT_TRUE(nic0.transmitted.empty());
  ASSERT_EQ(nic1.transmitted.size(), 1u);
  Bytes f = nic1.pop();
  EXPECT_EQ(sent_ethernet(f), (::net::wire::EthernetRepr{Mac::broadcast(), mac1, 0x0800}));
  ::net::wire::Ip4Repr ip = sent_ip(f);
  EXPECT_EQ(ip.src, Ip{});  // RFC 2131 §4.1: from 0.0.0.0
  EXPECT_EQ(ip.dst, Ip::broadcast());
  EXPECT_EQ(sent_udp(f), (::net::wire::UdpRepr{68, 67, uint16_t(ip.payload_len - 8)}));
  auto discover = parse_client(f);
  ASSERT_TRUE(discover);
  // The offer on the other interface is not this client's.
  nic0.inject(server_reply(2, discover->xid, offered, 120, mac1));
  EXPECT_EQ(stack.counters().udp.drop_no_port, 1u);
  EXPECT_EQ(if1.counters().dhcp.rx_offer, 0u);
  nic1.inject(server_reply(2, discover->xid, offered, 120, mac1));
  EXPECT_EQ(if1.counters().dhcp.rx_offer, 1u);
  ASSERT_EQ(nic1.transmitted.size(), 1u);
  auto request = parse_client(nic1.pop());
  ASSERT_TRUE(request);
  nic1.inject(server_reply(5, request->xid, offered, 120, mac1));
  EXPECT_EQ(if1.address(), offered);
  EXPECT_EQ(if0.address(), (Ip{10, 9, 0, 2}));
  EXPECT_EQ(stack.routes().lookup(Ip{10, 0, 0, 7})->interface, 1);
  EXPECT_EQ(stack.routes().lookup(Ip{10, 9, 0, 7})->interface, 0);
}

}  // namespace
}  // namespace keel::test
